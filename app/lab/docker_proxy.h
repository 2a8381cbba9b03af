#pragma once

#include "app/common/result.h"
#include "app/lab/netns_command.h"

#include <sys/types.h>

namespace loadscope::app::lab {

// Starts Debian's docker-proxy as `relay` says, the way dockerd does: with a pipe as its
// descriptor 3, on which it writes "0\n" once it listens, or "1\n" and why it cannot (a
// docker-proxy started without one closes whatever its descriptor 3 is, its own listener
// included, and exits at once). Waits up to `timeoutMs` for that word; an error with
// docker-proxy's own message when it refuses, exits or stays silent.
Result<pid_t> startDockerProxy(SpawnSpec relay, int timeoutMs);

} // namespace loadscope::app::lab
