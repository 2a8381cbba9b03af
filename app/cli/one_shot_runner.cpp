#include "app/cli/one_shot_runner.h"

#include "app/report/progress_printer.h"
#include "app/sweep/load_run_bridge.h"

#include <QCoroTask>
#include <QEventLoop>
#include <optional>

namespace loadscope::cli {

OneShotRunner::OneShotRunner(const CliIo& io)
    : m_io(io)
    , m_signals([this] {
        if (m_running)
            m_running->cancel();
    }) {}

engine::RunResult OneShotRunner::run(engine::LoadSpec spec, bool quiet) {
    if (interruptingSignal() != 0) {
        // Interrupted already, say during the preload: nothing more runs.
        engine::RunResult nothing;
        nothing.cancelled = true;
        return nothing;
    }
    app::ProgressPrinter printer(spec.requests, double(spec.duration.count()) / 1e9, quiet,
                                 m_io.err);
    app::LoadRunBridge run(std::move(spec));
    QObject::connect(&run, &app::PointRun::progressAvailable, &run,
                     [&printer](const std::shared_ptr<const engine::Progress>& progress) {
                         printer.update(progress);
                     });
    run.start();
    m_running = &run;
    std::optional<engine::RunResult> result;
    QEventLoop loop;
    QCoro::connect(run.result(), &run, [&](const app::Result<engine::RunResult>& ran) {
        result = *ran; // the bridge's result is never an error
        loop.quit();
    });
    if (!result)
        loop.exec();
    m_running = nullptr;
    if (!result->unreachable)
        printer.finish(result->complete);
    return std::move(*result);
}

} // namespace loadscope::cli
