#pragma once

#include "app/session/session.h"

#include <QString>
#include <QUuid>
#include <optional>
#include <vector>

// Whether a level of a sweep is measured tightly enough: the check behind
// "repeat until every target's ratio to the baseline is known within +/-X %".
namespace loadscope::app {

struct LoosePrecision {
    QUuid targetId;
    // Half the 95% interval of the target's ratio to the baseline, as a
    // percentage of the ratio; nullopt when there is no interval yet.
    std::optional<double> halfWidthPercent;
    QString why; // "±7.4 % after 10 repetitions: its runs scatter by 5.2 % (sd), ..."
};

struct LevelPrecision {
    int concurrency = 0;
    // Repetitions every target has at the level: the rounds done.
    int rounds = 0;
    bool tight = false;
    std::vector<LoosePrecision> loose; // the targets not pinned down, in session order
};

// The level's precision against session.plan.precisionPercent, from the
// comparison of the session's results (paired where interleaved): every
// target but the baseline by its primary metric's ratio interval; a session
// with the baseline alone (or none), by each target's own mean interval.
LevelPrecision levelPrecision(const Session& session, int concurrency);

} // namespace loadscope::app
