#include "app/report/progress_printer.h"

#include <cstdio>
#include <unistd.h>

namespace loadscope::app {

ProgressPrinter::ProgressPrinter(uint64_t requests, double seconds, bool quiet, FILE* stream)
    : m_requests(requests)
    , m_seconds(seconds)
    , m_quiet(quiet)
    , m_stream(stream)
    , m_terminal(fileno(stream) >= 0 && isatty(fileno(stream)) == 1)
    , m_nextMark(requests >= 10 ? requests / 10 : 1) {}

void ProgressPrinter::update(const std::shared_ptr<const engine::Progress>& p) {
    if (m_quiet || !p)
        return;
    if (m_terminal) {
        if (p->warmingUp)
            std::fprintf(m_stream, "\rWarming up... %.1f s   ", -p->elapsedSeconds);
        else
            std::fprintf(m_stream, "\rCompleted %llu requests (%.0f/s, %llu failed)   ",
                         static_cast<unsigned long long>(p->complete),
                         p->intervalRequestsPerSecond(),
                         static_cast<unsigned long long>(p->failed));
        std::fflush(m_stream);
        return;
    }
    if (p->warmingUp)
        return;
    if (m_requests > 0) {
        while (p->complete >= m_nextMark && m_nextMark <= m_requests) {
            if (m_nextMark < m_requests)
                std::fprintf(m_stream, "Completed %llu requests\n",
                             static_cast<unsigned long long>(m_nextMark));
            m_nextMark += m_requests >= 10 ? m_requests / 10 : 1;
        }
    } else if (p->elapsedSeconds >= m_nextSecond && p->elapsedSeconds < m_seconds) {
        std::fprintf(m_stream, "Completed %llu requests\n",
                     static_cast<unsigned long long>(p->complete));
        m_nextSecond += 1;
    }
}

void ProgressPrinter::finish(uint64_t complete) {
    if (m_quiet)
        return;
    if (m_terminal)
        std::fputs("\r\033[K", m_stream);
    std::fprintf(m_stream, "Finished %llu requests\n", static_cast<unsigned long long>(complete));
}

} // namespace loadscope::app
