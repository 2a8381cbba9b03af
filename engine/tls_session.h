#pragma once

#include "engine/tls_context.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace loadscope::engine {

class RequestQueue;

// One TLS client connection over a non-blocking socket, read and written as
// the socket itself is: read() and send() return what recv() and send()
// would (bytes, 0 at the end of the stream, -1 with errno EAGAIN when
// OpenSSL wants the socket ready again), so the worker's readiness handling
// serves both. A TLS failure is -1 with errno EPROTO and failure() says why.
// readReady() decrypts every record it can without waiting, as one recv
// returns all the bytes queued: the caller handles one batch of responses,
// and answers them with one write, not one per record.
class TlsSession {
public:
    enum class Step : uint8_t { Done, WantRead, WantWrite, Failed };

    explicit TlsSession(SSL* ssl); // takes ownership; client or server side
    ~TlsSession();
    TlsSession(const TlsSession&) = delete;
    TlsSession& operator=(const TlsSession&) = delete;

    // Drives the handshake as far as the socket allows.
    Step handshake();
    // The socket was reported readable (`peerClosed`: with the peer's close):
    // on a socket BIO of newSocketBio's the next read asks the kernel again.
    void expectInput(bool peerClosed);
    // One record's bytes at most (a level-triggered caller is told again
    // while the socket holds more).
    ssize_t read(char* buffer, size_t capacity);
    // Every decrypted byte that is ready, up to `capacity`. An error or the
    // end of the stream met after some bytes is the next call's result: for
    // callers that read on until EAGAIN, as an edge-triggered loop does.
    ssize_t readReady(char* buffer, size_t capacity);
    // When the kernel received the bytes of the last recv from the socket
    // (CLOCK_REALTIME ns): on a stamped socket BIO of newSocketBio's, 0 else.
    int64_t arrivalRealNs() const;
    // Writes from the front of `queue` and consumes what went out.
    ssize_t send(RequestQueue& queue);
    ssize_t write(const char* bytes, size_t size);
    // Sends close_notify once, without waiting for the peer's (a server's close).
    void notifyClose();

    bool resumed() const;
    const char* protocol() const;  // "TLSv1.3"
    const char* cipher() const;    // "TLS_AES_256_GCM_SHA384"
    std::string_view alpn() const; // the protocol the server chose by ALPN; empty: none
    // Why the handshake or the stream failed: the certificate's verification
    // result when that was the cause, else OpenSSL's reason.
    const std::string& failure() const { return m_failure; }

private:
    // Maps an SSL_* result <= 0 to the socket's convention; sets m_failure on failure.
    ssize_t socketResult(int result, bool reading);
    void noteFailure(int code);

    SSL* m_ssl;
    std::string m_failure;
    std::string m_staging; // a few small queued parts joined into one record
    // A read's error or end of stream behind bytes it returned: the next read's result.
    bool m_deferred = false;
    ssize_t m_deferredResult = 0;
    int m_deferredErrno = 0;
};

} // namespace loadscope::engine
