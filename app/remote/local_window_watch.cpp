#include "app/remote/local_window_watch.h"

#include "app/common/background_job.h"

#include <QCoroSignal>
#include <QPointer>
#include <chrono>
#include <ctime>

namespace loadscope::app {

namespace {

int64_t realtimeUs() {
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    return int64_t(now.tv_sec) * 1'000'000 + now.tv_nsec / 1000;
}

} // namespace

LocalWindowWatch::LocalWindowWatch(engine::ServerCpuSource server, QObject* parent)
    : QObject(parent)
    , m_sampler(std::move(server)) {
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this,
            [this] { QCoro::connect(takeFirstSample(), this, [] {}); });
}

void LocalWindowWatch::start(int64_t atUs) {
    const int64_t waitUs = atUs - realtimeUs();
    m_timer.start(std::chrono::milliseconds(waitUs > 0 ? (waitUs + 999) / 1000 : 0));
}

QCoro::Task<> LocalWindowWatch::takeFirstSample() {
    if (m_sampling || m_start)
        co_return;
    m_sampling = true;
    QPointer<LocalWindowWatch> alive(this);
    // The task made in a statement of its own: GCC destroys the temporaries of
    // a co_await's operand (here the lambda's captured sampler) twice.
    auto sampling = runOnWorkerThread([sampler = m_sampler] { return sampler.sample(); });
    const engine::CpuSample first = co_await sampling;
    if (!alive)
        co_return;
    m_start = first;
    m_sampling = false;
    Q_EMIT started();
}

QCoro::Task<std::optional<engine::CpuWindow>> LocalWindowWatch::end() {
    QPointer<LocalWindowWatch> alive(this);
    if (!m_start && !m_sampling) {
        m_timer.stop();
        QCoro::connect(takeFirstSample(), this, [] {}); // the window begins and ends now
    }
    while (alive && !m_start)
        co_await qCoro(this, &LocalWindowWatch::started);
    if (!alive)
        co_return std::nullopt;
    auto sampling = runOnWorkerThread([sampler = m_sampler] { return sampler.sample(); });
    const engine::CpuSample last = co_await sampling;
    if (!alive || !m_start->valid || !last.valid)
        co_return std::nullopt;
    co_return engine::cpuWindow(*m_start, last, engine::CpuSampler::ticksPerSecond());
}

} // namespace loadscope::app
