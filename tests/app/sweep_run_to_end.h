#pragma once

// Runs a SweepRunner's sweep to its end on the test's event loop, bounded:
// cancelled after the timeout, then a "did not end in time" failure.

#include "app/sweep/sweep_runner.h"

#include <QCoroTask>
#include <QElapsedTimer>
#include <QTest>
#include <optional>

namespace loadscope::test {

inline app::SweepOutcome runToEnd(app::SweepRunner& runner, int timeoutMs = 120'000) {
    using app::SweepOutcome;
    std::optional<SweepOutcome> outcome;
    QCoro::connect(runner.run(), &runner,
                   [&outcome](const SweepOutcome& ended) { outcome = ended; });
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
        SweepOutcome timedOut;
        timedOut.status = SweepOutcome::Status::Failed;
        timedOut.error = QStringLiteral("test: the sweep did not end in time");
        return timedOut;
    }
    return *outcome;
}

} // namespace loadscope::test
