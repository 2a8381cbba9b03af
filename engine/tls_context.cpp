#include "engine/tls_context.h"

#include "engine/tls_pem.h"
#include "engine/tls_socket_bio.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

namespace loadscope::engine {

namespace {

std::string lastOpenSslError(const char* what) {
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    char text[256] = "unknown error";
    if (code != 0)
        ERR_error_string_n(code, text, sizeof text);
    return std::string(what) + ": " + text;
}

// Sessions kept per worker: more than the tickets of the handshakes that
// can be in flight at once on a few connections.
constexpr size_t kMaxSessions = 16;

} // namespace

bool isIpLiteral(const std::string& host) {
    unsigned char address[16];
    const std::string bare = host.substr(0, host.find('%')); // an IPv6 zone
    return inet_pton(AF_INET, bare.c_str(), address) == 1 ||
           inet_pton(AF_INET6, bare.c_str(), address) == 1;
}

TlsContext::TlsContext(const TlsSpec& spec)
    : m_spec(spec)
    , m_serverNameIsAddress(isIpLiteral(spec.serverName)) {}

TlsContext::~TlsContext() {
    for (SSL_SESSION* session : m_sessions)
        SSL_SESSION_free(session);
    if (m_ctx)
        SSL_CTX_free(m_ctx);
}

std::unique_ptr<TlsContext> TlsContext::create(const TlsSpec& spec, std::string* error) {
    const auto fail = [&](std::string message) {
        if (error)
            *error = std::move(message);
        return nullptr;
    };
    std::unique_ptr<TlsContext> context(new TlsContext(spec));
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx)
        return fail(lastOpenSslError("TLS context"));
    context->m_ctx = ctx;
    const int lowest = spec.version == TlsVersion::Tls13 ? TLS1_3_VERSION : TLS1_2_VERSION;
    const int highest = spec.version == TlsVersion::Tls12 ? TLS1_2_VERSION : TLS1_3_VERSION;
    SSL_CTX_set_min_proto_version(ctx, lowest);
    SSL_CTX_set_max_proto_version(ctx, highest);
    // Partial writes: a send queue is consumed as records go out, as send()
    // consumes it. Moving buffer: a retried write may come from a new copy.
    // No read-ahead: the connection's BIO (tls_socket_bio.h) takes every
    // queued record in one recv, and OpenSSL reads them from it a header
    // and a body at a time.
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_clear_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    // A server that closes without close_notify (common after a
    // Connection: close response) ends the stream; the HTTP framing still
    // tells a complete response from a cut one.
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    if (spec.verify) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
        if (spec.caFile.empty()) {
            if (SSL_CTX_set_default_verify_paths(ctx) != 1)
                return fail(lastOpenSslError("the system certificate store"));
        } else if (auto problem = addTrustedCertificates(ctx, spec.caPem)) {
            return fail("CA file '" + spec.caFile + "': " + *problem);
        }
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
    }
    if (!spec.certFile.empty()) {
        const bool keyApart = !spec.keyFile.empty();
        const std::string& keyFile = keyApart ? spec.keyFile : spec.certFile;
        if (auto problem = useCertificateChain(ctx, spec.certPem))
            return fail("client certificate '" + spec.certFile + "': " + *problem);
        if (auto problem = usePrivateKey(ctx, keyApart ? spec.keyPem : spec.certPem))
            return fail("client key '" + keyFile + "': " + *problem);
        if (SSL_CTX_check_private_key(ctx) != 1)
            return fail(lastOpenSslError("client key and certificate"));
    } else if (!spec.keyFile.empty()) {
        return fail("a client key needs its certificate (--cert)");
    }
    if (!spec.alpn.empty()) {
        if (spec.alpn.size() > 255)
            return fail("ALPN protocol name too long");
        std::string wire(1, char(spec.alpn.size()));
        wire += spec.alpn;
        SSL_CTX_set_alpn_protos(ctx, reinterpret_cast<const unsigned char*>(wire.data()),
                                unsigned(wire.size()));
    }
    if (spec.resume) {
        // The client keeps its own small cache (m_sessions) through the
        // callback; OpenSSL's internal store would only grow.
        SSL_CTX_set_session_cache_mode(ctx,
                                       SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_sess_set_new_cb(ctx, &TlsContext::onNewSession);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
        SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    }
    SSL_CTX_set_ex_data(ctx, 0, context.get()); // SSL_CTX_set_app_data
    return context;
}

int TlsContext::onNewSession(SSL* ssl, SSL_SESSION* session) {
    auto* self = static_cast<TlsContext*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), 0));
    if (!self || !SSL_SESSION_is_resumable(session))
        return 0; // not kept: OpenSSL frees it
    if (self->m_sessions.size() == kMaxSessions) {
        SSL_SESSION_free(self->m_sessions.front());
        self->m_sessions.erase(self->m_sessions.begin());
    }
    self->m_sessions.push_back(session);
    return 1; // the reference is ours now
}

SSL* TlsContext::newConnection(int fd, bool stamped) {
    SSL* ssl = SSL_new(m_ctx);
    if (!ssl)
        return nullptr;
    BIO* socket = newSocketBio(fd, stamped);
    if (!socket) {
        SSL_free(ssl);
        return nullptr;
    }
    SSL_set_bio(ssl, socket, socket); // one reference, owned by ssl
    const std::string& name = m_spec.serverName;
    if (!name.empty() && !m_serverNameIsAddress)
        // SSL_set_tlsext_host_name, without the macro's C cast.
        SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                 const_cast<char*>(name.c_str()));
    if (m_spec.verify && !name.empty()) {
        if (m_serverNameIsAddress)
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl),
                                          name.substr(0, name.find('%')).c_str());
        else
            SSL_set1_host(ssl, name.c_str());
    }
    if (m_spec.resume && !m_sessions.empty()) {
        SSL_SESSION* newest = m_sessions.back();
        SSL_set_session(ssl, newest); // takes a reference of its own
        if (SSL_SESSION_get_protocol_version(newest) == TLS1_3_VERSION) {
            SSL_SESSION_free(newest);
            m_sessions.pop_back();
        }
    }
    SSL_set_connect_state(ssl);
    return ssl;
}

std::optional<std::string> checkTlsSpec(const TlsSpec& spec) {
    if (!spec.enabled)
        return std::nullopt;
    std::string error;
    if (!TlsContext::create(spec, &error))
        return error;
    return std::nullopt;
}

} // namespace loadscope::engine
