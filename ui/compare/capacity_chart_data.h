#pragma once

#include "app/session/capacity_comparison.h"
#include "app/session/session.h"
#include "ui/compare/compare_chart_data.h"
#include "ui/compare/rate_chart_data.h"

// What the Compare page's capacity charts show, read from
// app::CapacityComparison. Plain values, as compare_chart_data.h: the charts
// only draw, the tests check what is drawn.
namespace loadscope::ui {

// One bar per mode: its capacity at the objective, the mean over the
// searches that found one, with its 95 % interval and its change against
// the baseline's capacity; a mode with none says why ("no rate meets it",
// "≥ 41000, client-limited").
ModeBarChartData capacityBarChartData(const app::Session& session,
                                      const app::CapacityComparison& comparison);

// One line per search: the objective's percentile of each step against the
// rate it achieved, steps by offered rate, in its mode's colour (the mode's
// first search named in the legend), its answer ringed; the objective's
// bound dashed across.
RateChartData capacityStepsChartData(const app::Session& session,
                                     const app::CapacityComparison& comparison);

} // namespace loadscope::ui
