#pragma once

#include "app/servers/tcp_server.h"
#include "app/servers/tls_server_context.h"

#include <cstddef>
#include <string>

namespace loadscope::app {

// tls (ServerTlsConfig): every connection speaks TLS, requests and responses in its records.
struct EchoServerConfig : ServerConfig, ServerTlsConfig {
    // Must match the client's `-r REQUEST,RESPONSE` (netperf TCP_RR's -r). The server cannot
    // infer them: a request's size is not visible in a byte stream that TCP may split or merge.
    size_t requestSize = 1;
    size_t responseSize = 1;
};

// The request/response peer of tcp-rr: for every requestSize bytes received it sends
// responseSize bytes. When the two are equal it returns the received bytes themselves, a plain
// echo; otherwise the responses are filler bytes. A client that stops reading makes the server
// stop reading too, so neither memory nor the owed byte count grows without bound.
class EchoServer final : public TcpServer {
public:
    static constexpr size_t kMaxMessageSize = size_t(1) << 30;

    explicit EchoServer(EchoServerConfig config = {});
    ~EchoServer() override;

    size_t requestSize() const { return m_requestSize; }
    size_t responseSize() const { return m_responseSize; }
    bool mirrors() const { return m_requestSize == m_responseSize; }
    // TLS, after start(): the certificate clients should trust (PEM); empty otherwise.
    std::string certificatePem() const { return m_tls ? m_tls->certificatePem() : std::string(); }
    // TLS: the handshakes that resumed a session, by the server's count; 0 otherwise.
    uint64_t tlsResumed() const { return m_tls ? m_tls->resumedHandshakes() : 0; }

protected:
    std::unique_ptr<ServerConnection> createConnection(ServerLoop& loop, int fd) override;
    Result<void> prepare() override;

private:
    friend class EchoConnection;

    const size_t m_requestSize;
    const size_t m_responseSize;
    const ServerTlsConfig m_tlsConfig;
    std::unique_ptr<TlsServerContext> m_tls; // made by prepare(); shared by the loops
    std::string m_filler;                    // source of response bytes when not mirroring
};

} // namespace loadscope::app
