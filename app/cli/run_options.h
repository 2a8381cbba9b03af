#pragma once

#include "engine/load_spec.h"
#include "engine/run_result.h"

#include <QCommandLineParser>
#include <QJsonObject>
#include <QString>
#include <optional>
#include <vector>

namespace loadscope::cli {

// Options every load command shares: --threads, --cpus, --warmup, --json,
// --csv, -q.
struct CommonRunOptions {
    uint32_t threads = 1;
    std::vector<int> cpus;
    double warmupSeconds = 0;
    QString jsonPath;
    QString csvPath;
    bool quiet = false;
};

void addCommonRunOptions(QCommandLineParser& parser);
std::optional<CommonRunOptions> readCommonRunOptions(const QCommandLineParser& parser,
                                                     QString* error);
void applyCommonRunOptions(const CommonRunOptions& options, engine::LoadSpec& spec);

// Raises the open-file limit for the spec's connections and resolves
// host:port into spec.target. On failure prints one line and returns the exit
// status: ExitUsage for the limit, ExitUnreachable for a name that does not resolve.
std::optional<int> resolveRunTarget(const QString& command, const std::string& host, uint16_t port,
                                    engine::LoadSpec& spec);
// ExitUsage (after printing the problem) when the engine would refuse `spec`.
std::optional<int> refuseInvalidSpec(const QString& command, const engine::LoadSpec& spec);

// Runs `spec` to its end with progress on stderr (ab style) and returns the result.
engine::RunResult runWithProgress(const engine::LoadSpec& spec, bool quiet);

// Writes --json and --csv when asked; false (after printing one line) on failure.
bool writeMachineOutputs(const QString& command, const CommonRunOptions& options,
                         const QJsonObject& json);

} // namespace loadscope::cli
