#pragma once

#include "app/session/comparison.h"
#include "app/session/session.h"

#include <QString>

// The comparison as plain text, for `loadscope-cli report` and `sweep`:
// per concurrency level a table with the modes side by side (mean +- half
// the 95% confidence interval, and the change against the baseline), then
// lines a reader can act on:
//   container-nat: -17.3% requests/s vs host (significant)
//   container-nat: +2.1% latency p99 vs host (within noise)
namespace loadscope::app {

QString comparisonReport(const Session& session, const Comparison& comparison);

// "<target>: <+-x.x>% [<low>, <high>] <metric> vs <baseline> (<verdict>, <method>)",
// without the change when it is below the metric's resolution, or an empty
// string when the row has no baseline to speak of.
QString verdictLine(const Session& session, const ComparisonRow& row);
// The same line for TARGET's row against BASELINE, the figure named WHAT
// ("capacity at p99 <= 5 ms"); empty when either is missing.
QString verdictLine(const Target* target, const Target* baseline, const ComparisonRow& row,
                    const QString& what);

// A figure with as many decimals as its size deserves: 25310, 412.5, 1.234.
QString formatFigure(double value);
// "+2.1%", "-17.3%"
QString formatPercent(double percent);

} // namespace loadscope::app
