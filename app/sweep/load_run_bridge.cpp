#include "app/sweep/load_run_bridge.h"

#include <QCoroSignal>
#include <QMetaObject>

namespace loadscope::app {

LoadRunBridge::LoadRunBridge(engine::LoadSpec spec, QObject* parent)
    : PointRun(parent)
    , m_run(std::make_unique<engine::LoadRun>(std::move(spec))) {
    // The callbacks capture `this`; the destructor joins the monitor thread
    // before `this` goes, so no callback can outlive the object it posts to.
    m_run->setProgressCallback([this](std::shared_ptr<const engine::Progress> progress) {
        QMetaObject::invokeMethod(
            this, [this, progress = std::move(progress)] { Q_EMIT progressAvailable(progress); },
            Qt::QueuedConnection);
    });
    m_run->setFinishedCallback([this] {
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_finished = true;
                Q_EMIT runFinished();
            },
            Qt::QueuedConnection);
    });
}

LoadRunBridge::~LoadRunBridge() {
    // Cancels and joins; queued calls still pending die with this object.
    m_run.reset();
}

void LoadRunBridge::start() {
    if (m_started)
        return;
    m_started = true;
    m_run->start();
}

void LoadRunBridge::cancel() noexcept {
    m_run->cancel();
}

QCoro::Task<Result<engine::RunResult>> LoadRunBridge::result() {
    if (!m_finished)
        co_await qCoro(static_cast<PointRun*>(this), &PointRun::runFinished);
    // The monitor thread has delivered its last callback: joining it is immediate.
    co_return m_run->wait();
}

} // namespace loadscope::app
