#pragma once

#include "app/common/result.h"
#include "app/session/target_rules.h"

#include <QString>
#include <optional>
#include <vector>

// The sweep page's text fields and their plan values, both ways.
namespace loadscope::ui {

// "1, 10, 100 1000" (commas, semicolons or spaces between) in the order given.
// One line for anything else, a level out of range or a level listed twice.
app::Result<std::vector<int>> parseConcurrencyLevels(const QString& text);
QString formatConcurrencyLevels(const std::vector<int>& levels); // "1, 10, 100"

// Rate levels in requests/s, "1000, 2000 5k 1.5k" (a k multiplies by 1000),
// in the order given; the same separators and one-line refusals.
app::Result<std::vector<double>> parseRateLevels(const QString& text);
QString formatRateLevels(const std::vector<double>& levels); // "1000, 2500.5"

// CPU lists are read by app::parseCpuList() (app/session/target_rules.h),
// the rule the CLI's --cpus and the session file follow too. This writes one
// back in the list's order, ascending runs folded: "0-3,8".
QString formatCpuList(const std::vector<int>& cpus);

// A span of time as a person reads it: "45 s", "4 min 20 s", "2 h 03 min".
QString formatSeconds(double seconds);

} // namespace loadscope::ui
