#pragma once

#include <cstddef>
#include <cstdint>
#include <sys/types.h>

namespace loadscope::engine {

// recv on a socket with SO_TIMESTAMPNS that also returns when the kernel
// received the data read: the CLOCK_REALTIME stamp of the last segment the
// read took (TCP keeps the latest of them), 0 when the read carried none.
ssize_t receiveStamped(int fd, char* buffer, size_t size, int flags, int64_t& arrivedRealNs);

// CLOCK_REALTIME now, in nanoseconds: the stamps' clock.
int64_t realtimeNs() noexcept;

} // namespace loadscope::engine
