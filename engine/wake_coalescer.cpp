#include "engine/wake_coalescer.h"

#include <algorithm>

namespace loadscope::engine::detail {

void WakeCoalescer::update(int64_t now) {
    const int64_t period = now - m_sinceNs;
    m_pauseNs = 0;
    if (m_enabled && m_sinceNs > 0 && period > 0 && m_responses > 0) {
        const int64_t meanLatency = m_latencySumNs / int64_t(m_responses);
        const int64_t pause = std::min(kMaxPauseNs, meanLatency / kLatencyShare);
        const double gathered = double(pause) * double(m_responses) / double(period);
        if (pause >= kMinPauseNs && gathered >= kResponsesPerPause)
            m_pauseNs = pause;
    }
    m_sinceNs = now;
    m_responses = 0;
    m_latencySumNs = 0;
}

} // namespace loadscope::engine::detail
