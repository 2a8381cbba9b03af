#pragma once

#include "app/common/result.h"

#include <cstdint>
#include <memory>
#include <string>

using SSL = struct ssl_st;
using SSL_CTX = struct ssl_ctx_st;

namespace loadscope::app {

// The TLS settings of an embedded server (http, echo): TLS 1.2/1.3 on every connection, with the
// certificate in tlsCertFile (key in tlsKeyFile, or in the same file) or, when none is given, a
// self-signed one made at start (TlsServerContext).
struct ServerTlsConfig {
    bool tls = false;
    std::string tlsCertFile;
    std::string tlsKeyFile;
};

// The TLS side of an embedded server: one SSL_CTX (TLS 1.2 and 1.3, ALPN
// http/1.1, and h2 first when the server speaks HTTP/2) shared by its loop threads, which only
// create connections from it. The certificate is the user's (PEM files) or, without one, a
// self-signed EC P-256 certificate made at start for 127.0.0.1 and localhost.
class TlsServerContext {
public:
    // certFile empty: a fresh self-signed certificate; keyFile empty: the key is in certFile.
    // offerHttp2: ALPN chooses "h2" when the client offers it, else "http/1.1".
    static Result<std::unique_ptr<TlsServerContext>>
    create(const std::string& certFile, const std::string& keyFile, bool offerHttp2 = false);
    // After the handshake: whether ALPN chose "h2" on `ssl`.
    static bool negotiatedHttp2(const SSL* ssl);
    ~TlsServerContext();
    TlsServerContext(const TlsServerContext&) = delete;
    TlsServerContext& operator=(const TlsServerContext&) = delete;

    // A server-side connection on `fd`, waiting for the client's hello; nullptr when out of memory.
    SSL* accept(int fd) const;
    // The certificate in PEM, for a client to trust (--cacert).
    const std::string& certificatePem() const { return m_certificatePem; }
    // Of the handshakes completed so far, over every loop, those that resumed a session (a
    // ticket or a cached id), as OpenSSL's own statistics count them: the server's side of a
    // client's resumption figure.
    uint64_t resumedHandshakes() const;

private:
    TlsServerContext() = default;

    SSL_CTX* m_ctx = nullptr;
    std::string m_certificatePem;
};

// A server's prepare(): makes `context` from `config` when TLS is on and it has none yet.
Result<void> prepareTls(const ServerTlsConfig& config, bool offerHttp2,
                        std::unique_ptr<TlsServerContext>& context);

} // namespace loadscope::app
