#include "app/cli/stop_signals.h"

#include <QSocketNotifier>
#include <cstdlib>
#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace loadscope::cli {

StopSignals::StopSignals(std::function<void()> onFirst) {
    sigemptyset(&m_mask);
    sigaddset(&m_mask, SIGINT);
    sigaddset(&m_mask, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &m_mask, &m_previous);
    m_fd = signalfd(-1, &m_mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (m_fd < 0)
        return;
    m_notifier = std::make_unique<QSocketNotifier>(m_fd, QSocketNotifier::Read);
    QObject::connect(m_notifier.get(), &QSocketNotifier::activated, m_notifier.get(),
                     [this, onFirst = std::move(onFirst)] {
                         signalfd_siginfo info{};
                         while (read(m_fd, &info, sizeof info) == ssize_t(sizeof info)) {
                             // A second signal means "now": the file on disk is
                             // whole at every moment, so leaving at once is safe.
                             if (m_first != 0)
                                 std::_Exit(exitCodeForSignal(int(info.ssi_signo)));
                             m_first = int(info.ssi_signo);
                             onFirst();
                         }
                     });
}

StopSignals::~StopSignals() {
    m_notifier.reset();
    if (m_fd >= 0)
        close(m_fd);
    pthread_sigmask(SIG_SETMASK, &m_previous, nullptr);
}

} // namespace loadscope::cli
