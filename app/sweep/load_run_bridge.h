#pragma once

#include "app/sweep/point_run.h"
#include "engine/load_run.h"

#include <memory>

namespace loadscope::app {

// One engine::LoadRun seen from a Qt thread. The engine calls back on its
// monitor thread; every callback is re-posted to this object's thread as one
// queued call (one per Progress snapshot, never one per request), so slots and
// coroutines on that thread never see engine threads. Destroying the bridge
// cancels the run and joins its threads before any queued call could reach a
// dead object.
class LoadRunBridge : public PointRun {
    Q_OBJECT

public:
    explicit LoadRunBridge(engine::LoadSpec spec, QObject* parent = nullptr);
    ~LoadRunBridge() override;

    void start() override;
    void cancel() noexcept override;
    // The merged result; never an error.
    QCoro::Task<Result<engine::RunResult>> result() override;

private:
    std::unique_ptr<engine::LoadRun> m_run;
    bool m_started = false;
    bool m_finished = false; // runFinished() was emitted
};

} // namespace loadscope::app
