#pragma once

namespace loadscope::engine {

// Blocks SIGPIPE on the calling thread. OpenSSL writes to its socket with
// write(), not send(MSG_NOSIGNAL): a peer gone while a TLS record is written
// raises SIGPIPE, whose default action ends the whole process. Blocked on
// the thread that writes, the signal only stays pending there, and the write
// fails with EPIPE like any other. Every thread that writes TLS calls it
// first: the load workers and the embedded servers' loops.
void blockBrokenPipeOnThisThread();

} // namespace loadscope::engine
