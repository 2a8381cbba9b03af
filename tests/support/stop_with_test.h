#pragma once

#include <QProcess>
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace loadscope::testing {

// A server a test starts must not outlive it, even when the test is killed
// before its destructors run (a timeout, a closed pipe): the child asks the
// kernel for SIGTERM when the thread that started it ends. Call before start().
inline void stopWithTest(QProcess& process) {
    const pid_t parent = ::getpid();
    process.setChildProcessModifier([parent] {
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) // the test ended before the request took effect
            ::_exit(1);
    });
}

} // namespace loadscope::testing
