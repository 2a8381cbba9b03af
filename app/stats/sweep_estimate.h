#pragma once

#include "app/session/session.h"

namespace loadscope::app {

// How long a session's sweep takes: every point's warm-up and measured time
// plus the pauses between points. A point limited by a request count lasts
// as long as the server needs; its rate is taken from results already in the
// session (same target, nearest level), and a point with nothing to go by is
// counted as unknown rather than guessed. The Sweep page shows it; it needs
// nothing of the window, so the CLI can print it too.
struct SweepEstimate {
    int points = 0;
    int missingPoints = 0;       // not done yet: what Run (or Resume) will measure
    double totalSeconds = 0;     // the whole sweep, points of unknown length left out
    double remainingSeconds = 0; // the missing points only
    int unknownPoints = 0;       // of all points, lengths not estimated
    int unknownMissingPoints = 0;
    // A plan with a precision ends anywhere between its least repetitions
    // (points, totalSeconds) and its most: every point at maxRepetitions.
    // A capacity plan's searches (its points) between a typical search of
    // its shortest steps and every step budget spent on its longest.
    // Otherwise the same as points and totalSeconds.
    int mostPoints = 0;
    double mostSeconds = 0;
};

// Each result is looked at once, not once per point: a session of ten
// thousand results is estimated again on every edit of the plan.
SweepEstimate estimateSweep(const Session& session);

} // namespace loadscope::app
