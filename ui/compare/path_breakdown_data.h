#pragma once

#include "app/session/comparison.h"
#include "app/session/session.h"
#include "engine/cpu_profile.h"

#include <QColor>
#include <QString>
#include <QUuid>
#include <optional>
#include <vector>

// What the Compare page's CPU breakdown charts show, read from the
// comparison's profile rows (app::profilePathMetric): per mode, the µs of CPU
// per request on each kernel path (and in user space), with each figure's 95%
// interval over the repetitions; or each path's difference from the
// baseline's. Plain values: the chart draws them, the tests check them
// against the table.
namespace loadscope::ui {

struct PathSegment {
    engine::CpuPath path = engine::CpuPath::User;
    QString label; // "conntrack"
    QColor colour;
    // One figure per mode (PathBreakdownData::modes), µs per request.
    std::vector<double> values;
    std::vector<std::optional<double>> ciLow; // of the mean (per request); none for a difference
    std::vector<std::optional<double>> ciHigh;
};

struct PathBreakdownData {
    QString title;
    QString axisTitle;
    QString emptyText; // shown instead of bars when there are none
    std::vector<QUuid> targetIds;
    std::vector<QString> modes;        // the bars' names, in session order
    std::vector<PathSegment> segments; // only paths some mode spent time on, in path order
};

enum class PathBreakdownKind {
    PerRequest, // each mode's µs per request by path
    VsBaseline, // each mode's µs per request by path less the baseline's (the baseline left out)
};

// The colour of a path in every breakdown chart: user space grey, the
// netfilter paths warm, the devices green, the rest cool.
QColor cpuPathColour(engine::CpuPath path);

PathBreakdownData pathBreakdownData(const app::Session& session, const app::Comparison& comparison,
                                    app::TargetProtocol protocol, int concurrency,
                                    PathBreakdownKind kind);

// Whether any target of `protocol` has a profile at any level.
bool hasProfiles(const app::Session& session, const app::Comparison& comparison,
                 app::TargetProtocol protocol);

} // namespace loadscope::ui
