#pragma once

#include "app/cli/one_shot.h"
#include "app/cli/run_options.h"
#include "app/common/result.h"
#include "app/report/result_json.h"
#include "engine/load_spec.h"

#include <QCommandLineParser>
#include <QString>
#include <QStringList>
#include <optional>

// --find-capacity on http, memcache and tcp-rr: the highest fixed rate the
// target sustains within a latency objective, found by the search of
// app/session/capacity_search.h (a probe, then fixed-rate steps), printed as
// a table of its steps and the answer, its --json under "capacity" and its
// --csv one row per step.
namespace loadscope::cli {

// --find-capacity, --slo, --max-failed, --min-achieved, --capacity-precision,
// --max-steps, --min-step, --max-step.
void addCapacityOptions(QCommandLineParser& parser);

// With --find-capacity: `shot`'s plan becomes a capacity plan at the shot's
// connections with the objective and search settings given. Refused in one
// line: an objective option without --find-capacity, --find-capacity
// without --slo, with a fixed rate (-R) or with one of `lengthOptions` (the
// command's run length, which the search chooses per step), or an objective
// the plan's rules refuse (p101, a bound at or below 0).
app::Result<void> readCapacityOptions(const QCommandLineParser& parser, OneShot& shot,
                                      const QStringList& lengthOptions);

// Runs the search of a capacity one-shot through one OneShotRunner: the
// preload when given, the probe (`probe`: the spec prepareRun() built for
// the shot's point, the search's closed loop), then each step's spec from
// the one builder at the probe's address, until the search has finished or
// a signal stops it. Prints the report unless --json or --csv go to stdout,
// then writes them. The exit status: ExitOk with an answer or a finished
// search that found none (the report says why), ExitUnreachable when the
// target never answered, the signal's when interrupted.
int runCapacitySearch(const QString& command, const OneShot& shot, const engine::LoadSpec& probe,
                      std::optional<engine::LoadSpec> preload, const OutputOptions& output,
                      const app::CliResultContext& context, const CliIo& io);

} // namespace loadscope::cli
