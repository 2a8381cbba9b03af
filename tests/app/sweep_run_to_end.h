#pragma once

// The sweep runner suites' way of running a sweep to its end on the test's
// thread, bounded in time.

#include "app/sweep/sweep_runner.h"

#include <QCoroTask>
#include <QElapsedTimer>
#include <QTest>
#include <optional>

namespace loadscope::test {

// Runs the sweep to its end on this thread's event loop, bounded.
inline app::SweepOutcome runToEnd(app::SweepRunner& runner, int timeoutMs = 120'000) {
    std::optional<app::SweepOutcome> outcome;
    QCoro::connect(runner.run(), &runner,
                   [&outcome](const app::SweepOutcome& ended) { outcome = ended; });
    QElapsedTimer waited;
    waited.start();
    while (!outcome && waited.elapsed() < timeoutMs)
        QTest::qWait(10);
    if (!outcome) {
        runner.cancel();
        for (int i = 0; i < 500 && !outcome; ++i)
            QTest::qWait(10);
    }
    if (!outcome) {
        app::SweepOutcome timedOut;
        timedOut.status = app::SweepOutcome::Status::Failed;
        timedOut.error = QStringLiteral("test: the sweep did not end in time");
        return timedOut;
    }
    return *outcome;
}

} // namespace loadscope::test
