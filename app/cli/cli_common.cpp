#include "app/cli/cli_common.h"

#include "app/cli/commands.h"
#include "engine/file_limit.h"

#include <QCoreApplication>
#include <QFile>
#include <QRegularExpression>
#include <cstdio>
#include <thread>
#include <unistd.h>

namespace loadscope::cli {

void printError(const QString& command, const QString& message) {
    std::fprintf(stderr, "%s: %s\n", qPrintable(command), qPrintable(message));
}

std::optional<int> parseOrExit(QCommandLineParser& parser, const QStringList& arguments) {
    const QString command = arguments.value(0);
    if (!parser.parse(arguments)) {
        printError(command, parser.errorText() + QStringLiteral(" (see --help)"));
        return ExitUsage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // Qt's usage line names the executable; the sub-command belongs in it too.
        QString help = parser.helpText();
        const QString program = QCoreApplication::arguments().value(0);
        const qsizetype at = program.isEmpty() ? -1 : help.indexOf(program);
        if (at >= 0 && at < help.indexOf(QLatin1Char('\n')))
            help.replace(at, program.size(), command);
        std::fputs(qPrintable(help), stdout);
        return ExitOk;
    }
    return std::nullopt;
}

std::optional<uint64_t> parseCount(const QString& option, const QString& text, uint64_t minimum,
                                   uint64_t maximum, QString* error) {
    bool ok = false;
    const qulonglong value = text.trimmed().toULongLong(&ok);
    if (!ok || value < minimum || value > maximum) {
        *error = QStringLiteral("%1 wants a whole number from %2 to %3, not '%4'")
                     .arg(option)
                     .arg(minimum)
                     .arg(maximum)
                     .arg(text);
        return std::nullopt;
    }
    return value;
}

std::optional<double> parseSeconds(const QString& option, const QString& text, QString* error) {
    static const QRegularExpression pattern(
        QStringLiteral("^\\s*([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)\\s*(ms|s|m|h)?\\s*$"));
    const auto match = pattern.match(text);
    if (!match.hasMatch()) {
        *error = QStringLiteral("%1 wants a duration such as 10, 2.5, 500ms, 30s or 2m, not '%2'")
                     .arg(option, text);
        return std::nullopt;
    }
    double value = match.captured(1).toDouble();
    const QString unit = match.captured(2);
    if (unit == QLatin1String("ms"))
        value /= 1000.0;
    else if (unit == QLatin1String("m"))
        value *= 60.0;
    else if (unit == QLatin1String("h"))
        value *= 3600.0;
    if (value > 7 * 24 * 3600.0) {
        *error = QStringLiteral("%1 is longer than a week: '%2'").arg(option, text);
        return std::nullopt;
    }
    return value;
}

std::optional<std::vector<int>> parseCpuList(const QString& text, QString* error) {
    const long online = sysconf(_SC_NPROCESSORS_CONF);
    std::vector<int> cpus;
    const auto fail = [&](const QString& why) {
        *error = QStringLiteral("--cpus '%1': %2").arg(text, why);
        return std::nullopt;
    };
    for (const QString& part : text.split(QLatin1Char(','))) {
        const QStringList range = part.trimmed().split(QLatin1Char('-'));
        bool okFirst = false;
        bool okLast = true;
        const int first = range.value(0).toInt(&okFirst);
        const int last = range.size() == 2 ? range.value(1).toInt(&okLast) : first;
        if (range.size() > 2 || !okFirst || !okLast || first < 0 || last < first)
            return fail(QStringLiteral("expected a list such as 0,2-3"));
        if (last >= online)
            return fail(QStringLiteral("this machine has CPUs 0 to %1").arg(online - 1));
        for (int cpu = first; cpu <= last; ++cpu)
            cpus.push_back(cpu);
    }
    return cpus;
}

std::optional<HostPort> parseHostPort(const QString& text, QString* error) {
    static const QRegularExpression pattern(
        QStringLiteral("^(?:\\[([0-9A-Fa-f:.]+)\\]|([^:\\[\\]\\s]+)):([0-9]{1,5})$"));
    const auto match = pattern.match(text.trimmed());
    const int port = match.hasMatch() ? match.captured(3).toInt() : 0;
    if (!match.hasMatch() || port < 1 || port > 65535) {
        *error =
            QStringLiteral("expected HOST:PORT (e.g. 127.0.0.1:11211 or [::1]:11211), not '%1'")
                .arg(text);
        return std::nullopt;
    }
    HostPort result;
    result.host =
        (match.captured(1).isEmpty() ? match.captured(2) : match.captured(1)).toStdString();
    result.port = static_cast<uint16_t>(port);
    return result;
}

bool writeOutput(const QString& path, const QByteArray& bytes, QString* error) {
    if (path == QLatin1String("-")) {
        const size_t written = std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
        std::fflush(stdout);
        if (written != size_t(bytes.size())) {
            *error = QStringLiteral("cannot write to standard output");
            return false;
        }
        return true;
    }
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(bytes) != bytes.size()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool ensureFileLimit(uint64_t needed, QString* error) {
    const uint64_t limit = engine::raiseOpenFileLimit(needed);
    if (limit < needed) {
        *error = QStringLiteral("%1 connections need about %2 open files, but the limit is %3 "
                                "(raise it with 'ulimit -n' as root)")
                     .arg(needed > 64 ? needed - 64 : needed)
                     .arg(needed)
                     .arg(limit);
        return false;
    }
    return true;
}

uint32_t defaultThreadCount() {
    const unsigned cores = std::thread::hardware_concurrency();
    return cores ? cores : 1;
}

} // namespace loadscope::cli
