#pragma once

#include "app/servers/tcp_server.h"
#include "app/servers/tls_server_context.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace loadscope::app {

// tls (ServerTlsConfig): HTTPS.
struct HttpServerConfig : ServerConfig, ServerTlsConfig {
    size_t documentSize = 4897; // body bytes of every 200 response
    // HTTP/2 as well: cleartext h2c with prior knowledge (a connection opening with the client
    // preface; any other goes on as HTTP/1.1) and, with tls, ALPN "h2" beside "http/1.1".
    bool http2 = false;
};

// Answers every request, whatever its method and target, with one static HTML document:
// keep-alive HTTP/1.1, HTTP/1.0 and "Connection: close" honoured, HEAD without body, pipelined
// requests answered in order. Requests are parsed only as far as needed to find where each ends;
// a head larger than kMaxHeadSize or a malformed one gets a 400 and the connection is closed.
// Every response is prebuilt once and written straight from the server's memory. With http2, an
// HTTP/2 connection gets the same document on every stream (Http2Session).
class HttpServer final : public TcpServer {
public:
    static constexpr size_t kMaxHeadSize = 16 * 1024;
    static constexpr size_t kMaxDocumentSize = size_t(1) << 30;

    explicit HttpServer(HttpServerConfig config = {});
    ~HttpServer() override;

    // The exact bytes of a response, headers and body, for tests and tools that compare them.
    const std::string& keepAliveResponse() const { return m_keepAlive; }
    const std::string& closeResponse() const { return m_close; }
    size_t documentSize() const { return m_documentSize; }
    // The body every 200 response carries, HTTP/1 or HTTP/2.
    std::string_view document() const { return std::string_view(m_keepAlive).substr(m_headLength); }
    // HTTPS, after start(): the certificate clients should trust (PEM); empty otherwise.
    std::string certificatePem() const { return m_tls ? m_tls->certificatePem() : std::string(); }

    // The document served for a given size: an HTML page padded with text to exactly `size` bytes.
    static std::string makeDocument(size_t size);

protected:
    std::unique_ptr<ServerConnection> createConnection(ServerLoop& loop, int fd) override;
    Result<void> prepare() override;

private:
    friend class HttpConnection;

    const size_t m_documentSize;
    const HttpServerConfig m_httpConfig;
    std::unique_ptr<TlsServerContext> m_tls; // made by prepare(); shared by the loops
    std::string m_keepAlive;
    std::string m_close;
    std::string m_badRequest;
    size_t m_headLength = 0; // what a HEAD request gets of m_keepAlive
    size_t m_closeHeadLength = 0;
};

} // namespace loadscope::app
