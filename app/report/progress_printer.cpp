#include "app/report/progress_printer.h"

#include <cstdio>
#include <unistd.h>

namespace loadscope::app {

ProgressPrinter::ProgressPrinter(uint64_t requests, double seconds, bool quiet)
    : m_requests(requests)
    , m_seconds(seconds)
    , m_quiet(quiet)
    , m_terminal(isatty(STDERR_FILENO) == 1)
    , m_nextMark(requests >= 10 ? requests / 10 : 1) {}

void ProgressPrinter::update(const std::shared_ptr<const engine::Progress>& p) {
    if (m_quiet || !p)
        return;
    if (m_terminal) {
        if (p->warmingUp)
            std::fprintf(stderr, "\rWarming up... %.1f s   ", -p->elapsedSeconds);
        else
            std::fprintf(stderr, "\rCompleted %llu requests (%.0f/s, %llu failed)   ",
                         static_cast<unsigned long long>(p->complete),
                         p->intervalRequestsPerSecond(),
                         static_cast<unsigned long long>(p->failed));
        std::fflush(stderr);
        return;
    }
    if (p->warmingUp)
        return;
    if (m_requests > 0) {
        while (p->complete >= m_nextMark && m_nextMark <= m_requests) {
            if (m_nextMark < m_requests)
                std::fprintf(stderr, "Completed %llu requests\n",
                             static_cast<unsigned long long>(m_nextMark));
            m_nextMark += m_requests >= 10 ? m_requests / 10 : 1;
        }
    } else if (p->elapsedSeconds >= m_nextSecond && p->elapsedSeconds < m_seconds) {
        std::fprintf(stderr, "Completed %llu requests\n",
                     static_cast<unsigned long long>(p->complete));
        m_nextSecond += 1;
    }
}

void ProgressPrinter::finish(uint64_t complete) {
    if (m_quiet)
        return;
    if (m_terminal)
        std::fputs("\r\033[K", stderr);
    std::fprintf(stderr, "Finished %llu requests\n", static_cast<unsigned long long>(complete));
}

} // namespace loadscope::app
