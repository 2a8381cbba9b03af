#pragma once

#include "engine/tls_spec.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

using SSL = struct ssl_st;
using SSL_CTX = struct ssl_ctx_st;
using SSL_SESSION = struct ssl_session_st;

namespace loadscope::engine {

// One worker thread's TLS client configuration and session cache: an
// SSL_CTX built from a TlsSpec, and the last few sessions servers handed
// out, which new connections of that worker offer to resume. A TLS 1.3
// ticket is offered once (RFC 8446 C.4; a server may refuse one seen
// before, as OpenSSL's does with a session cache), newest first, and every
// resumption brings a new one; a TLS 1.2 session is offered again until a
// newer one arrives. Owned by one thread; never shared (OpenSSL contexts
// are thread-safe, but a shared cache would need a lock on the connect path).
class TlsContext {
public:
    // The context, or one line saying what is wrong (an unreadable CA file,
    // a key that does not match its certificate).
    static std::unique_ptr<TlsContext> create(const TlsSpec& spec, std::string* error);
    ~TlsContext();
    TlsContext(const TlsContext&) = delete;
    TlsContext& operator=(const TlsContext&) = delete;

    // A new client connection on `fd`: SNI, the name to verify, ALPN and the
    // session to resume set; nullptr when OpenSSL could not allocate one.
    // `stamped`: the socket has SO_TIMESTAMPNS (TlsSession::arrivalRealNs).
    SSL* newConnection(int fd, bool stamped);

private:
    explicit TlsContext(const TlsSpec& spec);
    static int onNewSession(SSL* ssl, SSL_SESSION* session);

    TlsSpec m_spec;
    bool m_serverNameIsAddress = false;
    SSL_CTX* m_ctx = nullptr;
    std::vector<SSL_SESSION*> m_sessions; // oldest first; each owned (one reference)
};

// Whether `host` is an IPv4 or IPv6 literal (no SNI is sent for those).
bool isIpLiteral(const std::string& host);

// What is wrong with `spec`, checked by building a context once; nullopt when it is usable.
std::optional<std::string> checkTlsSpec(const TlsSpec& spec);

} // namespace loadscope::engine
