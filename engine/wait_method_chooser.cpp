#include "engine/wait_method_chooser.h"

namespace loadscope::engine {

void WaitMethodChooser::transactionCompleted(int64_t nowNs) noexcept {
    if (m_startNs < 0) {
        // Timing runs from one completion to another, so connecting and the
        // wait for the first response are never charged to a method.
        m_startNs = nowNs;
        return;
    }
    ++m_done;
    if (m_done < (m_probing ? m_tuning.trialTransactions : stretchTransactions()))
        return;
    const int64_t elapsed = nowNs - m_startNs;
    m_done = 0;
    m_startNs = nowNs;
    if (!m_probing) {
        m_probing = true;
        m_trialsDone = 0;
        m_spentNs[0] = m_spentNs[1] = 0;
        m_method = Method::Recv;
        return;
    }
    m_spentNs[uint8_t(m_method)] += elapsed;
    if (++m_trialsDone < 2 * m_tuning.trialsPerMethod) {
        m_method = m_method == Method::Recv ? Method::Epoll : Method::Recv;
        return;
    }
    endProbe();
}

void WaitMethodChooser::keepRecvWithoutProbe() noexcept {
    m_spentNs[0] = m_spentNs[1] = 0;
    m_method = Method::Recv;
    m_probing = false;
    m_done = 0;
    m_doublings =
        m_lastWinner == m_method ? std::min(m_doublings + 1, m_tuning.maxStretchDoublings) : 0;
    m_lastWinner = m_method;
}

void WaitMethodChooser::endProbe() noexcept {
    const int64_t recvNs = m_spentNs[uint8_t(Method::Recv)];
    const int64_t epollNs = m_spentNs[uint8_t(Method::Epoll)];
    const bool epollFaster = epollNs * 100 < recvNs * (100 - int64_t(m_tuning.epollMarginPercent));
    m_method = epollFaster ? Method::Epoll : Method::Recv;
    m_probing = false;
    m_doublings =
        m_lastWinner == m_method ? std::min(m_doublings + 1, m_tuning.maxStretchDoublings) : 0;
    m_lastWinner = m_method;
}

} // namespace loadscope::engine
