#pragma once

#include "app/common/result.h"
#include "engine/progress.h"
#include "engine/run_result.h"

#include <QCoroTask>
#include <QObject>
#include <memory>

namespace loadscope::app {

// One load run as the SweepRunner drives it, whoever executes it: the
// in-process engine (LoadRunBridge) or a load agent process (AgentClient).
// Signals arrive on the object's thread, one per Progress snapshot.
class PointRun : public QObject {
    Q_OBJECT

public:
    using QObject::QObject;

    virtual void start() = 0;
    // The run stops early; result() then reports it cancelled (or an error).
    virtual void cancel() noexcept = 0;
    // Awaits the end of the run without blocking the event loop. An error is
    // a run that could not be carried out at all (an agent that died or
    // refused the point), one line; failed requests are in the RunResult.
    virtual QCoro::Task<Result<engine::RunResult>> result() = 0;

Q_SIGNALS:
    void progressAvailable(std::shared_ptr<const loadscope::engine::Progress> progress);
    void runFinished();
};

} // namespace loadscope::app
