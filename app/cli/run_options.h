#pragma once

#include "app/cli/commands.h"
#include "app/cli/one_shot.h"
#include "app/common/result.h"
#include "engine/load_spec.h"
#include "engine/run_result.h"

#include <QCommandLineParser>
#include <QJsonObject>
#include <QString>

// The steps every load command shares: the common options, build, run, write.
namespace loadscope::cli {

// Where the result goes: --json, --csv, -q.
struct OutputOptions {
    QString jsonPath;
    QString csvPath;
    bool quiet = false;

    // The human report goes to stdout unless JSON or CSV does.
    bool printsReport() const {
        return jsonPath != QLatin1String("-") && csvPath != QLatin1String("-");
    }
};

// --threads, --cpus, --warmup, --json, --csv, -q.
void addCommonRunOptions(QCommandLineParser& parser);
// --threads, --cpus and --warmup into `plan`; the rest into the result.
app::Result<OutputOptions> readCommonRunOptions(const QCommandLineParser& parser,
                                                app::SweepPlan& plan);

// A OneShot with its one level and one repetition.
OneShot oneShotOf(app::Target target, int concurrency);

// The spec of the one point through the builder, the open-file limit raised
// for its connections and the address resolved (ErrorCode::Unreachable for a
// name that does not resolve); refused when the engine would refuse it.
app::Result<engine::LoadSpec> buildOneShotSpec(const OneShot& shot);

// Runs `spec` to its end with progress on io.err (ab style) and returns the result.
engine::RunResult runWithProgress(const engine::LoadSpec& spec, bool quiet, const CliIo& io);

// Writes --json and --csv when asked.
app::Result<void> writeMachineOutputs(const OutputOptions& options, const QJsonObject& json,
                                      const CliIo& io);

// Parses `arguments` with `parser` for parseXxxOneShot(): a parse error or
// --help as an error, nothing printed.
app::Result<void> parseForOneShot(QCommandLineParser& parser, const QStringList& arguments);

// parseXxxOneShot(): the options `addOptions` declares, parsed, read by
// `read` into the command's invocation, whose OneShot is returned.
template <typename Invocation>
app::Result<OneShot> parseOneShot(void (*addOptions)(QCommandLineParser&),
                                  app::Result<Invocation> (*read)(const QCommandLineParser&),
                                  const QStringList& arguments) {
    QCommandLineParser parser;
    addOptions(parser);
    if (auto parsed = parseForOneShot(parser, arguments); !parsed)
        return parsed.error();
    auto invocation = read(parser);
    if (!invocation)
        return invocation.error();
    return invocation->shot;
}

} // namespace loadscope::cli
