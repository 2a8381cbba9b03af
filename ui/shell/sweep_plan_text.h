#pragma once

#include <QString>
#include <optional>
#include <vector>

// The sweep page's text fields and their plan values, both ways.
namespace loadscope::ui {

// "1, 10, 100 1000" (commas, semicolons or spaces between) in the order given.
// nullopt with one line in `error` for anything else, a level out of range or
// a level listed twice.
std::optional<std::vector<int>> parseConcurrencyLevels(const QString& text, QString* error);
QString formatConcurrencyLevels(const std::vector<int>& levels); // "1, 10, 100"

// CPU numbers and ranges as taskset takes them: "0-3,8". Empty text: no pinning.
std::optional<std::vector<int>> parseCpuList(const QString& text, QString* error);
QString formatCpuList(const std::vector<int>& cpus); // ranges folded: "0-3,8"

// A span of time as a person reads it: "45 s", "4 min 20 s", "2 h 03 min".
QString formatSeconds(double seconds);

} // namespace loadscope::ui
