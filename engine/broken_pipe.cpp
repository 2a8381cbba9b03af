#include "engine/broken_pipe.h"

#include <csignal>
#include <pthread.h>

namespace loadscope::engine {

void blockBrokenPipeOnThisThread() {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
}

} // namespace loadscope::engine
