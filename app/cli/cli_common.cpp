#include "app/cli/cli_common.h"

#include "app/common/atomic_file_writer.h"
#include "app/common/checked_file_reader.h"
#include "app/common/printable_text.h"
#include "app/session/sweep_plan.h"
#include "app/session/target_rules.h"
#include "engine/file_limit.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <cerrno>
#include <cstdio>

namespace loadscope::cli {

using app::invalidInput;
using app::Result;

void printError(const CliIo& io, const QString& command, const QString& message) {
    // A message may quote a server's reply or a typed value: one line, and
    // nothing in it reaches the terminal as a control sequence.
    std::fprintf(io.err, "%s: %s\n", qPrintable(command), qPrintable(app::printableText(message)));
}

void printSetAside(const CliIo& io, const QString& command, const app::Session& session) {
    for (const app::SetAsideResult& kept : session.setAside)
        printError(io, command, kept.problem);
}

std::optional<int> parseOrExit(QCommandLineParser& parser, const QStringList& arguments,
                               const CliIo& io) {
    const QString command = arguments.value(0);
    if (!parser.parse(arguments)) {
        printError(io, command, parser.errorText() + QStringLiteral(" (see --help)"));
        return ExitUsage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // Qt's usage line names the executable; the sub-command belongs in it too.
        QString help = parser.helpText();
        const QString program = QCoreApplication::arguments().value(0);
        const qsizetype at = program.isEmpty() ? -1 : help.indexOf(program);
        if (at >= 0 && at < help.indexOf(QLatin1Char('\n')))
            help.replace(at, program.size(), command);
        std::fputs(qPrintable(help), io.out);
        return ExitOk;
    }
    return std::nullopt;
}

int exitCodeFor(const app::Error& error) {
    switch (error.code) {
    case app::ErrorCode::Unreachable:
        return ExitUnreachable;
    case app::ErrorCode::Internal:
        return ExitInternal;
    default:
        return ExitUsage;
    }
}

Result<uint64_t> parseCount(const QString& option, const QString& text, uint64_t minimum,
                            uint64_t maximum) {
    bool ok = false;
    const qulonglong value = text.trimmed().toULongLong(&ok);
    if (!ok || value < minimum || value > maximum)
        return invalidInput(QStringLiteral("%1 wants a whole number from %2 to %3, not '%4'")
                                .arg(option)
                                .arg(minimum)
                                .arg(maximum)
                                .arg(text));
    return uint64_t(value);
}

Result<double> parseSeconds(const QString& option, const QString& text) {
    static const QRegularExpression pattern(
        QStringLiteral("^\\s*([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)\\s*(ms|s|m|h)?\\s*$"));
    const auto match = pattern.match(text);
    if (!match.hasMatch())
        return invalidInput(
            QStringLiteral("%1 wants a duration such as 10, 2.5, 500ms, 30s or 2m, not '%2'")
                .arg(option, text));
    double value = match.captured(1).toDouble();
    const QString unit = match.captured(2);
    if (unit == QLatin1String("ms"))
        value /= 1000.0;
    else if (unit == QLatin1String("m"))
        value *= 60.0;
    else if (unit == QLatin1String("h"))
        value *= 3600.0;
    if (!(value <= app::kMaxSeconds))
        return invalidInput(QStringLiteral("%1 wants at most %2 seconds, not '%3'")
                                .arg(option)
                                .arg(app::kMaxSeconds, 0, 'f', 0)
                                .arg(text));
    return value;
}

Result<double> parsePositiveSeconds(const QString& option, const QString& text) {
    auto seconds = parseSeconds(option, text);
    if (seconds && *seconds <= 0)
        return invalidInput(QStringLiteral("%1 must be more than 0 seconds").arg(option));
    if (seconds && *seconds < app::kMinSeconds)
        return invalidInput(QStringLiteral("%1 must be at least %2 seconds, not '%3'")
                                .arg(option)
                                .arg(app::kMinSeconds)
                                .arg(text));
    return seconds;
}

Result<std::vector<int>> parseCpusOption(const QString& text) {
    auto cpus = app::parseCpuList(text);
    if (!cpus)
        return cpus.error().prefixed(QStringLiteral("--cpus '%1'").arg(text));
    if (auto exist = app::checkCpusExist(*cpus); !exist)
        return exist.error().prefixed(QStringLiteral("--cpus '%1'").arg(text));
    return cpus;
}

Result<void> writeOutput(const QString& path, const QByteArray& bytes, const CliIo& io) {
    if (path == QLatin1String("-")) {
        errno = 0;
        const size_t written = std::fwrite(bytes.constData(), 1, size_t(bytes.size()), io.out);
        const int errnum = errno;
        if (written != size_t(bytes.size()))
            return app::makeError(app::ErrorCode::Io,
                                  QStringLiteral("cannot write to standard output: %1")
                                      .arg(app::errnoText(errnum ? errnum : EIO)));
        return app::flushStream(io.out, QStringLiteral("standard output"));
    }
    return app::writeFileAtomically(path, bytes);
}

Result<void> ensureFileLimit(uint64_t needed) {
    const uint64_t limit = engine::raiseOpenFileLimit(needed);
    if (limit < needed)
        return invalidInput(QStringLiteral("%1 connections need about %2 open files, but the "
                                           "limit is %3 (raise it with 'ulimit -n' as root)")
                                .arg(needed > 64 ? needed - 64 : needed)
                                .arg(needed)
                                .arg(limit));
    return {};
}

} // namespace loadscope::cli
