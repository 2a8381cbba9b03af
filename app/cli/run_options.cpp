#include "app/cli/run_options.h"

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/report/progress_printer.h"
#include "app/report/result_json.h"
#include "engine/load_run.h"

#include <QJsonDocument>
#include <chrono>

namespace loadscope::cli {

using namespace std::chrono;

void addCommonRunOptions(QCommandLineParser& parser) {
    parser.addOption({QStringLiteral("threads"),
                      QStringLiteral("Worker threads (default: number of cores); the connections "
                                     "are spread over them."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("cpus"),
                      QStringLiteral("Pin worker thread i to the i-th CPU of LIST, e.g. 0,2-3."),
                      QStringLiteral("LIST")});
    parser.addOption({QStringLiteral("warmup"),
                      QStringLiteral("Run this long before measuring; warm-up requests are not "
                                     "counted."),
                      QStringLiteral("SECONDS")});
    parser.addOption({QStringLiteral("json"),
                      QStringLiteral("Write the result as JSON to PATH (- for stdout)."),
                      QStringLiteral("PATH")});
    parser.addOption({QStringLiteral("csv"),
                      QStringLiteral("Write the result as one CSV row with a header to PATH."),
                      QStringLiteral("PATH")});
    parser.addOption({QStringLiteral("q"), QStringLiteral("Do not print progress on stderr.")});
}

std::optional<CommonRunOptions> readCommonRunOptions(const QCommandLineParser& parser,
                                                     QString* error) {
    CommonRunOptions options;
    options.threads = defaultThreadCount();
    if (parser.isSet(QStringLiteral("threads"))) {
        const auto threads = parseCount(QStringLiteral("--threads"),
                                        parser.value(QStringLiteral("threads")), 1, 1024, error);
        if (!threads)
            return std::nullopt;
        options.threads = uint32_t(*threads);
    }
    if (parser.isSet(QStringLiteral("cpus"))) {
        auto cpus = parseCpuList(parser.value(QStringLiteral("cpus")), error);
        if (!cpus)
            return std::nullopt;
        options.cpus = std::move(*cpus);
    }
    if (parser.isSet(QStringLiteral("warmup"))) {
        const auto warmup =
            parseSeconds(QStringLiteral("--warmup"), parser.value(QStringLiteral("warmup")), error);
        if (!warmup)
            return std::nullopt;
        options.warmupSeconds = *warmup;
    }
    options.jsonPath = parser.value(QStringLiteral("json"));
    options.csvPath = parser.value(QStringLiteral("csv"));
    options.quiet = parser.isSet(QStringLiteral("q")) || options.jsonPath == QLatin1String("-") ||
                    options.csvPath == QLatin1String("-");
    return options;
}

void applyCommonRunOptions(const CommonRunOptions& options, engine::LoadSpec& spec) {
    spec.threads = options.threads;
    spec.cpus = options.cpus;
    spec.warmup = duration_cast<nanoseconds>(duration<double>(options.warmupSeconds));
}

std::optional<int> resolveRunTarget(const QString& command, const std::string& host, uint16_t port,
                                    engine::LoadSpec& spec) {
    QString error;
    if (!ensureFileLimit(uint64_t(spec.concurrency) + 64, &error)) {
        printError(command, error);
        return ExitUsage;
    }
    std::string resolveError;
    auto address = engine::resolveAddress(host, port, &resolveError);
    if (!address) {
        printError(command, QString::fromStdString(resolveError));
        return ExitUnreachable;
    }
    spec.target = *address;
    return std::nullopt;
}

std::optional<int> refuseInvalidSpec(const QString& command, const engine::LoadSpec& spec) {
    if (auto problem = engine::validateLoadSpec(spec)) {
        printError(command, QString::fromStdString(*problem));
        return ExitUsage;
    }
    return std::nullopt;
}

engine::RunResult runWithProgress(const engine::LoadSpec& spec, bool quiet) {
    app::ProgressPrinter printer(spec.requests, double(spec.duration.count()) / 1e9, quiet);
    engine::LoadRun run(spec);
    run.setProgressCallback([&printer](auto progress) { printer.update(progress); });
    run.start();
    engine::RunResult result = run.wait();
    if (!result.unreachable)
        printer.finish(result.complete);
    return result;
}

bool writeMachineOutputs(const QString& command, const CommonRunOptions& options,
                         const QJsonObject& json) {
    QString error;
    if (!options.jsonPath.isEmpty() &&
        !writeOutput(options.jsonPath, QJsonDocument(json).toJson(QJsonDocument::Indented),
                     &error)) {
        printError(command, error);
        return false;
    }
    if (!options.csvPath.isEmpty() && !writeOutput(options.csvPath, app::jsonToCsv(json), &error)) {
        printError(command, error);
        return false;
    }
    return true;
}

} // namespace loadscope::cli
