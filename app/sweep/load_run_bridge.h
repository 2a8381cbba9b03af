#pragma once

#include "engine/load_run.h"

#include <QCoroTask>
#include <QObject>
#include <memory>

namespace loadscope::app {

// One engine::LoadRun seen from a Qt thread. The engine calls back on its
// monitor thread; every callback is re-posted to this object's thread as one
// queued call (one per Progress snapshot, never one per request), so slots and
// coroutines on that thread never see engine threads. Destroying the bridge
// cancels the run and joins its threads before any queued call could reach a
// dead object.
class LoadRunBridge : public QObject {
    Q_OBJECT

public:
    explicit LoadRunBridge(engine::LoadSpec spec, QObject* parent = nullptr);
    ~LoadRunBridge() override;

    void start();
    void cancel() noexcept;
    // Awaits the end of the run without blocking the event loop, then returns
    // the merged result.
    QCoro::Task<engine::RunResult> result();

Q_SIGNALS:
    void progressAvailable(std::shared_ptr<const loadscope::engine::Progress> progress);
    void runFinished();

private:
    std::unique_ptr<engine::LoadRun> m_run;
    bool m_started = false;
    bool m_finished = false; // runFinished() was emitted
};

} // namespace loadscope::app
