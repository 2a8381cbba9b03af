#pragma once

#include <cstdint>

using BIO = struct bio_st;

namespace loadscope::engine {

// An OpenSSL BIO over a non-blocking stream socket that takes all the socket
// holds in one recv (up to 64 KiB) and remembers when the socket ran dry.
// OpenSSL reads each record's header and body from the BIO's buffer, one
// copy each; with its own read-ahead instead (one buffer for several
// records) OpenSSL 3.0 moves the bytes left in its buffer to the front
// before each record, a cost that grows with the square of a batch. A recv
// that returns fewer bytes than it asked for found the socket's queue empty;
// with edge-triggered readiness every byte that arrives after it brings a new
// event, so until that event (expectInput) a read with nothing buffered asks
// the kernel nothing and says "retry", as a recv returning EAGAIN would have.
// OpenSSL's own socket BIO would make that recv, once per readiness event at
// the least: the read that only finds the socket empty.
// Writes are plain sends (MSG_NOSIGNAL: a peer gone is EPIPE, never SIGPIPE).
// End of stream is reported as OpenSSL's socket BIO reports it (BIO_eof).

// A new BIO on `fd` (not closed with the BIO); nullptr when out of memory.
// `stamped`: the socket has SO_TIMESTAMPNS, and each recv keeps the kernel's
// receive time of what it took (socketArrivalRealNs).
BIO* newSocketBio(int fd, bool stamped);

// When the kernel received the bytes of the BIO's last recv that took any
// (CLOCK_REALTIME ns, stamped_receive.h); 0 without stamps, or for a BIO of
// another kind.
int64_t socketArrivalRealNs(BIO* bio);

// The socket may hold new bytes: the next read asks the kernel. With
// `toEnd` (the peer has closed) every read does, a short one included,
// until the end of the stream is read: the close was reported once, with
// the bytes before it. A BIO of another kind is left alone.
void expectSocketInput(BIO* bio, bool toEnd);

} // namespace loadscope::engine
