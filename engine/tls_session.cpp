#include "engine/tls_session.h"

#include "engine/request_queue.h"
#include "engine/tls_socket_bio.h"

#include <cerrno>
#include <cstring>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace loadscope::engine {

namespace {

// Largest TLS record payload: joining more parts than this gains nothing.
constexpr size_t kRecordBytes = 16 * 1024;

} // namespace

TlsSession::TlsSession(SSL* ssl)
    : m_ssl(ssl) {}

TlsSession::~TlsSession() {
    // Closed without a close_notify (the socket is closed right after), yet
    // marked shut down so that OpenSSL keeps the session resumable.
    SSL_set_shutdown(m_ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    SSL_free(m_ssl);
}

void TlsSession::noteFailure(int code) {
    if (!m_failure.empty()) {
        ERR_clear_error();
        return;
    }
    const long verify = SSL_get_verify_result(m_ssl);
    if (verify != X509_V_OK) {
        m_failure = std::string("TLS certificate verification failed: ") +
                    X509_verify_cert_error_string(verify);
    } else if (const unsigned long error = ERR_get_error(); error != 0) {
        char text[256];
        ERR_error_string_n(error, text, sizeof text);
        m_failure = std::string("TLS: ") + text;
    } else if (code == SSL_ERROR_SYSCALL && errno != 0) {
        m_failure = std::string("TLS: ") + std::strerror(errno);
    } else {
        m_failure = SSL_is_init_finished(m_ssl)
                        ? "TLS: the connection failed"
                        : "TLS: the peer closed the connection during the handshake";
    }
    ERR_clear_error();
}

TlsSession::Step TlsSession::handshake() {
    const int result = SSL_do_handshake(m_ssl);
    if (result == 1)
        return Step::Done;
    const int code = SSL_get_error(m_ssl, result);
    if (code == SSL_ERROR_WANT_READ)
        return Step::WantRead;
    if (code == SSL_ERROR_WANT_WRITE)
        return Step::WantWrite;
    noteFailure(code);
    return Step::Failed;
}

ssize_t TlsSession::socketResult(int result, bool reading) {
    const int code = SSL_get_error(m_ssl, result);
    switch (code) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_ZERO_RETURN:
        if (reading)
            return 0; // close_notify: the end of the stream
        errno = EPIPE;
        return -1;
    case SSL_ERROR_SYSCALL:
        if (errno == ECONNRESET || errno == EPIPE) {
            ERR_clear_error();
            return -1; // as the socket said
        }
        [[fallthrough]];
    default:
        noteFailure(code);
        errno = EPROTO;
        return -1;
    }
}

int64_t TlsSession::arrivalRealNs() const {
    return socketArrivalRealNs(SSL_get_rbio(m_ssl));
}

void TlsSession::expectInput(bool peerClosed) {
    expectSocketInput(SSL_get_rbio(m_ssl), peerClosed);
}

ssize_t TlsSession::read(char* buffer, size_t capacity) {
    size_t n = 0;
    const int result = SSL_read_ex(m_ssl, buffer, capacity, &n);
    if (result == 1)
        return ssize_t(n);
    return socketResult(result, true);
}

ssize_t TlsSession::readReady(char* buffer, size_t capacity) {
    if (m_deferred) {
        m_deferred = false;
        errno = m_deferredErrno;
        return m_deferredResult;
    }
    size_t total = 0;
    while (total < capacity) {
        size_t n = 0;
        const int result = SSL_read_ex(m_ssl, buffer + total, capacity - total, &n);
        if (result == 1) {
            total += n;
            continue;
        }
        const ssize_t outcome = socketResult(result, true);
        if (total == 0)
            return outcome;
        if (outcome == 0 || errno != EAGAIN) {
            // Kept for the next call, so that these bytes are handled first.
            m_deferred = true;
            m_deferredResult = outcome;
            m_deferredErrno = errno;
        }
        break;
    }
    return ssize_t(total);
}

ssize_t TlsSession::send(RequestQueue& queue) {
    std::string_view bytes = queue.frontPart();
    if (bytes.size() < kRecordBytes && !queue.frontIsLast()) {
        // Several small parts (a pipelined burst): one record, not one each.
        m_staging.clear();
        queue.copyUnsent(m_staging, kRecordBytes);
        bytes = m_staging;
    }
    size_t n = 0;
    const int result = SSL_write_ex(m_ssl, bytes.data(), bytes.size(), &n);
    if (result == 1) {
        queue.consume(n);
        return ssize_t(n);
    }
    return socketResult(result, false);
}

ssize_t TlsSession::write(const char* bytes, size_t size) {
    size_t n = 0;
    const int result = SSL_write_ex(m_ssl, bytes, size, &n);
    if (result == 1)
        return ssize_t(n);
    return socketResult(result, false);
}

void TlsSession::notifyClose() {
    if (SSL_is_init_finished(m_ssl) && SSL_shutdown(m_ssl) < 0)
        ERR_clear_error();
}

bool TlsSession::resumed() const {
    return SSL_session_reused(m_ssl) == 1;
}

const char* TlsSession::protocol() const {
    return SSL_get_version(m_ssl);
}

const char* TlsSession::cipher() const {
    return SSL_get_cipher_name(m_ssl);
}

std::string_view TlsSession::alpn() const {
    const unsigned char* name = nullptr;
    unsigned int length = 0;
    SSL_get0_alpn_selected(m_ssl, &name, &length);
    return name ? std::string_view(reinterpret_cast<const char*>(name), length)
                : std::string_view();
}

} // namespace loadscope::engine
