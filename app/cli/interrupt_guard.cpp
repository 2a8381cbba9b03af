#include "app/cli/interrupt_guard.h"

#include "engine/load_run.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace loadscope::cli {

namespace {

std::atomic<int> s_signal{0};
int s_pipe[2] = {-1, -1};
struct sigaction s_previousInt {};
struct sigaction s_previousTerm {};

constexpr char kWake = 0; // the guard's own "the run ended" byte

void setDefault(int signal) {
    struct sigaction action {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal, &action, nullptr);
}

// Async-signal-safe only: an atomic store, write(2) and sigaction(2).
extern "C" void onInterrupt(int signal) {
    const int savedErrno = errno;
    int expected = 0;
    s_signal.compare_exchange_strong(expected, signal);
    setDefault(SIGINT); // the next one of either kills at once
    setDefault(SIGTERM);
    const char byte = char(signal);
    [[maybe_unused]] const ssize_t written = ::write(s_pipe[1], &byte, 1);
    errno = savedErrno;
}

} // namespace

InterruptGuard::InterruptGuard(engine::LoadRun& run) {
    if (s_signal.load() != 0) {
        run.cancel(); // interrupted already, say during a preload: run nothing more
        return;
    }
    if (::pipe2(s_pipe, O_CLOEXEC) != 0)
        return; // the signals keep their default action: the run can still be killed
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &s_previousInt);
    ::sigaction(SIGTERM, &action, &s_previousTerm);
    m_installed = true;
    m_watcher = std::thread([&run, fd = s_pipe[0]] {
        char byte = kWake;
        ssize_t n = -1;
        do {
            n = ::read(fd, &byte, 1);
        } while (n < 0 && errno == EINTR);
        if (n == 1 && byte != kWake)
            run.cancel();
    });
}

InterruptGuard::~InterruptGuard() {
    if (!m_installed)
        return;
    if (s_signal.load() == 0) {
        // Back to what the process had, before the watcher goes: a signal
        // from now on is the previous handler's.
        ::sigaction(SIGINT, &s_previousInt, nullptr);
        ::sigaction(SIGTERM, &s_previousTerm, nullptr);
    }
    const char wake = kWake;
    [[maybe_unused]] const ssize_t written = ::write(s_pipe[1], &wake, 1);
    m_watcher.join();
    ::close(s_pipe[0]);
    ::close(s_pipe[1]);
    s_pipe[0] = s_pipe[1] = -1;
}

int interruptingSignal() {
    return s_signal.load();
}

int exitCodeForSignal(int signal) {
    return 128 + signal;
}

} // namespace loadscope::cli
