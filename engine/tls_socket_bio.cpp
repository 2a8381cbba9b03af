#include "engine/tls_socket_bio.h"

#include "engine/stamped_receive.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <openssl/bio.h>
#include <sys/socket.h>

namespace loadscope::engine {

namespace {

// One recv takes as much as this: a 16 KiB record and its overhead a few
// times over, so that a batch of responses costs one system call.
constexpr size_t kReceiveBytes = 64 * 1024;

struct SocketState {
    int fd = -1;
    bool stamped = false;      // the socket has SO_TIMESTAMPNS: reads take the stamp
    int64_t arrivedRealNs = 0; // the stamp of the last recv that took bytes
    bool dry = false;          // a recv found the queue empty since the last expectInput
    bool toEnd = false;        // the peer closed: read until the end of the stream
    bool endOfStream = false;
    // What the last recv took and OpenSSL has not asked for yet: it reads a
    // record header, then its body, each served from here with one copy.
    std::unique_ptr<char[]> received; // kReceiveBytes, from the first read
    size_t begin = 0;
    size_t end = 0;
};

SocketState& stateOf(BIO* bio) {
    return *static_cast<SocketState*>(BIO_get_data(bio));
}

int serveReceived(SocketState& s, char* out, int size) {
    const size_t n = std::min(size_t(size), s.end - s.begin);
    std::memcpy(out, s.received.get() + s.begin, n);
    s.begin += n;
    if (s.begin == s.end)
        s.begin = s.end = 0;
    return int(n);
}

int socketRead(BIO* bio, char* out, int size) {
    SocketState& s = stateOf(bio);
    BIO_clear_retry_flags(bio);
    if (size <= 0)
        return 0;
    if (s.begin < s.end)
        return serveReceived(s, out, size);
    if (s.dry) {
        BIO_set_retry_read(bio);
        errno = EAGAIN;
        return -1;
    }
    if (!s.received) {
        s.received.reset(new (std::nothrow) char[kReceiveBytes]);
        if (!s.received) {
            errno = ENOMEM;
            return -1;
        }
    }
    for (;;) {
        errno = 0; // as OpenSSL's socket BIO: an end of stream leaves errno 0
        int64_t arrived = 0;
        const ssize_t n =
            s.stamped ? receiveStamped(s.fd, s.received.get(), kReceiveBytes, MSG_DONTWAIT, arrived)
                      : ::recv(s.fd, s.received.get(), kReceiveBytes, MSG_DONTWAIT);
        if (n > 0) {
            s.arrivedRealNs = arrived;
            s.dry = size_t(n) < kReceiveBytes && !s.toEnd;
            s.begin = 0;
            s.end = size_t(n);
            return serveReceived(s, out, size);
        }
        if (n == 0) {
            s.endOfStream = true;
            return 0;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            s.dry = true; // toEnd or not: an end of stream would have been 0
            BIO_set_retry_read(bio);
        }
        return -1;
    }
}

int socketWrite(BIO* bio, const char* bytes, int size) {
    SocketState& s = stateOf(bio);
    BIO_clear_retry_flags(bio);
    for (;;) {
        errno = 0;
        const ssize_t n = ::send(s.fd, bytes, size_t(size), MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n >= 0)
            return int(n);
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            BIO_set_retry_write(bio);
        return -1;
    }
}

long socketControl(BIO* bio, int command, long /*number*/, void* pointer) {
    SocketState& s = stateOf(bio);
    switch (command) {
    case BIO_C_GET_FD:
        if (pointer)
            *static_cast<int*>(pointer) = s.fd;
        return s.fd;
    case BIO_CTRL_EOF:
        return s.endOfStream && s.begin == s.end ? 1 : 0;
    case BIO_CTRL_PENDING:
        return long(s.end - s.begin);
    case BIO_CTRL_FLUSH: // nothing is buffered here
    case BIO_CTRL_DUP:
        return 1;
    default:
        return 0; // no kTLS, no pending counts: what OpenSSL then assumes
    }
}

int socketCreate(BIO* bio) {
    auto* state = new (std::nothrow) SocketState;
    if (!state)
        return 0;
    BIO_set_data(bio, state);
    BIO_set_init(bio, 1);
    return 1;
}

int socketDestroy(BIO* bio) {
    delete static_cast<SocketState*>(BIO_get_data(bio));
    BIO_set_data(bio, nullptr);
    BIO_set_init(bio, 0);
    return 1;
}

struct SocketMethod {
    BIO_METHOD* method = nullptr;
    int type = 0;
};

const SocketMethod& socketMethod() {
    static const SocketMethod made = [] {
        SocketMethod m;
        m.type = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR;
        m.method = BIO_meth_new(m.type, "loadscope socket");
        if (m.method) {
            BIO_meth_set_read(m.method, &socketRead);
            BIO_meth_set_write(m.method, &socketWrite);
            BIO_meth_set_ctrl(m.method, &socketControl);
            BIO_meth_set_create(m.method, &socketCreate);
            BIO_meth_set_destroy(m.method, &socketDestroy);
        }
        return m;
    }();
    return made;
}

} // namespace

BIO* newSocketBio(int fd, bool stamped) {
    const SocketMethod& m = socketMethod();
    BIO* bio = m.method ? BIO_new(m.method) : nullptr;
    if (bio) {
        stateOf(bio).fd = fd;
        stateOf(bio).stamped = stamped;
    }
    return bio;
}

int64_t socketArrivalRealNs(BIO* bio) {
    if (!bio || BIO_method_type(bio) != socketMethod().type)
        return 0;
    return stateOf(bio).arrivedRealNs;
}

void expectSocketInput(BIO* bio, bool toEnd) {
    if (!bio || BIO_method_type(bio) != socketMethod().type)
        return;
    SocketState& s = stateOf(bio);
    s.dry = false;
    s.toEnd = toEnd;
}

} // namespace loadscope::engine
