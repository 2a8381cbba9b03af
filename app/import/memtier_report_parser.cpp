#include "app/import/memtier_report_parser.h"

#include "app/import/decimal_number.h"
#include "app/import/report_lines.h"
#include "app/import/report_reader.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <cmath>

namespace loadscope::app {

namespace {

const QString kTool = QStringLiteral("memtier_benchmark");

const QRegularExpression kTitle =
    pattern("^(ALL STATS|AGGREGATED AVERAGE RESULTS \\(\\d+ runs\\))$");
const QRegularExpression kRunTitle = pattern("^(BEST|WORST) RUN RESULTS$");
const QRegularExpression kDoubleRule = pattern("^=+$");
const QRegularExpression kRule = pattern("^-+$");
const QRegularExpression kColumn = pattern(
    "(Ops/sec|Hits/sec|Misses/sec|MOVED/sec|ASK/sec|Avg\\. Latency|p\\d+(?:\\.\\d+)? Latency|"
    "Latency|KB/sec)");
const QRegularExpression kSetting =
    pattern("^(\\d+) +(Threads|Connections per thread|Seconds|Requests per client)$");
const QRegularExpression kVersion = pattern("^memtier_benchmark (\\d+\\.\\d+\\S*)$");

// What the run was asked to do, from the lines memtier prints above its
// tables or, failing those, from the command typed.
struct RunSettings {
    std::optional<int> threads;
    std::optional<int> clients;
    std::optional<uint64_t> requestsPerClient;
    QString server;
    QString port;
    QString commandLine;
    QString protocol; // -P; memtier's default, redis, when a command without one was typed
};

void readCommand(const ReportLines::Command& command, RunSettings& settings) {
    settings.commandLine = command.text;
    // Defaults of memtier_benchmark for what the command leaves out.
    int threads = 4;
    int clients = 50;
    std::optional<uint64_t> requests = 10000;
    settings.protocol = QStringLiteral("redis");
    for (qsizetype i = 0; i < command.words.size(); ++i) {
        QString name = command.words.at(i);
        QString value;
        if (name.startsWith(QLatin1StringView("--"))) {
            const qsizetype equals = name.indexOf(QLatin1Char('='));
            if (equals > 0) {
                value = name.mid(equals + 1);
                name.truncate(equals);
            }
        } else if (name.size() > 2 && name.startsWith(QLatin1Char('-'))) {
            value = name.mid(2);
            name.truncate(2);
        }
        static const QStringList valued = {
            QStringLiteral("-t"),          QStringLiteral("--threads"),
            QStringLiteral("-c"),          QStringLiteral("--clients"),
            QStringLiteral("-n"),          QStringLiteral("--requests"),
            QStringLiteral("--test-time"), QStringLiteral("-s"),
            QStringLiteral("--server"),    QStringLiteral("-p"),
            QStringLiteral("--port"),      QStringLiteral("-P"),
            QStringLiteral("--protocol")};
        if (!valued.contains(name))
            continue;
        if (value.isEmpty())
            value = command.words.value(++i);
        if (name == QLatin1StringView("-t") || name == QLatin1StringView("--threads"))
            threads = static_cast<int>(DecimalNumber::parseCount(value).value_or(0));
        else if (name == QLatin1StringView("-c") || name == QLatin1StringView("--clients"))
            clients = static_cast<int>(DecimalNumber::parseCount(value).value_or(0));
        else if (name == QLatin1StringView("-n") || name == QLatin1StringView("--requests"))
            requests = DecimalNumber::parseCount(value); // "allkeys" is not a count
        else if (name == QLatin1StringView("--test-time"))
            requests.reset();
        else if (name == QLatin1StringView("-s") || name == QLatin1StringView("--server"))
            settings.server = value;
        else if (name == QLatin1StringView("-P") || name == QLatin1StringView("--protocol"))
            settings.protocol = value.trimmed().toLower();
        else
            settings.port = value;
    }
    if (threads > 0)
        settings.threads = threads;
    if (clients > 0)
        settings.clients = clients;
    settings.requestsPerClient = requests;
}

void fillCommon(ImportedReport& report, const RunSettings& settings) {
    report.tool = kTool;
    report.commandLine = settings.commandLine;
    report.memtierProtocol = settings.protocol;
    if (!settings.server.isEmpty() || !settings.port.isEmpty())
        report.url = (settings.server.isEmpty() ? QStringLiteral("localhost") : settings.server) +
                     QLatin1Char(':') +
                     (settings.port.isEmpty() ? QStringLiteral("6379") : settings.port);
    report.threads = settings.threads;
    if (settings.threads && settings.clients) {
        report.concurrency = *settings.threads * *settings.clients;
        report.result.concurrency = *report.concurrency;
        report.result.threads = *settings.threads;
        if (settings.requestsPerClient)
            report.requests =
                *settings.requestsPerClient * static_cast<uint64_t>(*report.concurrency);
    }
}

// "Sets" -> "set": the row names are memtier's plural command names.
QString operationName(const QString& row) {
    QString name = row.toLower();
    if (name.endsWith(QLatin1Char('s')))
        name.chop(1);
    return name;
}

struct Column {
    QString name;
    bool latency = false;
    std::optional<double> percentile;
};

class TableReader : public ReportReader {
public:
    using ReportReader::ReportReader;

    bool read(int titleIndex);

private:
    QString tool() const override { return kTool; }
    bool readHeader(int index);

    QList<Column> m_columns;
};

bool TableReader::readHeader(int index) {
    QString rest = m_lines.trimmed(index);
    if (!rest.startsWith(QLatin1StringView("Type ")))
        return cutOff();
    rest = rest.mid(5);
    auto matches = kColumn.globalMatch(rest);
    while (matches.hasNext()) {
        const auto match = matches.next();
        Column column{match.captured(1), match.captured(1).endsWith(QLatin1StringView("Latency")),
                      std::nullopt};
        if (column.name.startsWith(QLatin1Char('p')))
            column.percentile = DecimalNumber::parseDouble(
                QStringView(column.name).sliced(1, column.name.indexOf(QLatin1Char(' ')) - 1));
        m_columns.append(column);
    }
    QString leftover = rest;
    leftover.remove(kColumn);
    if (m_columns.isEmpty() || !leftover.trimmed().isEmpty() ||
        m_columns.last().name != QLatin1StringView("KB/sec"))
        return malformed(index, QStringLiteral("Type"), m_lines.trimmed(index));
    mark(index, QStringLiteral("Type"));
    return true;
}

bool TableReader::read(int titleIndex) {
    m_fingerprintFrom = titleIndex;
    mark(titleIndex, m_lines.trimmed(titleIndex));
    int index = titleIndex + 1;
    if (index >= m_lines.size() || !kDoubleRule.match(m_lines.trimmed(index)).hasMatch())
        return cutOff();
    mark(index, m_lastWhat);
    if (++index >= m_lines.size() || !readHeader(index))
        return refused() ? false : cutOff();
    if (++index >= m_lines.size() || !kRule.match(m_lines.trimmed(index)).hasMatch())
        return cutOff();
    mark(index, QStringLiteral("Type"));

    PointResult& result = m_report.result;
    // The table prints rates and latencies: no count of operations, no run time.
    result.completeUnknown = true;
    result.durationUnknown = true;
    for (++index; index < m_lines.size(); ++index) {
        const QStringList cells = ReportLines::fields(m_lines.text(index));
        if (cells.isEmpty())
            return cutOff(); // the table ends with its Totals row, never with a blank line
        const QString row = cells.first();
        if (cells.size() != m_columns.size() + 1)
            return cells.size() < m_columns.size() + 1 && !m_lines.at(index).terminated
                       ? cutOff()
                       : malformed(index, row, m_lines.trimmed(index));
        const bool totals = row == QLatin1StringView("Totals");
        LatencySummary summary;
        double operations = 0;
        for (qsizetype c = 0; c < m_columns.size(); ++c) {
            const Column& column = m_columns.at(c);
            const QString& cell = cells.at(c + 1);
            if (cell == QLatin1StringView("---"))
                continue;
            const auto value = DecimalNumber::parse(cell);
            // Rates print "%.2f": a shorter fraction is a number cut short.
            if (!value || value->isNegative() || (!column.latency && value->printedDecimals() != 2))
                return malformed(index, row + QLatin1Char(' ') + column.name, cell);
            const double number = value->toDouble();
            if (column.percentile)
                summary.percentilesMs[*column.percentile] = number;
            else if (column.latency)
                summary.meanMs = number;
            else if (column.name == QLatin1StringView("Ops/sec"))
                operations = number;
            else if (totals && column.name == QLatin1StringView("KB/sec"))
                result.reportedTransferKiBps = number;
        }
        mark(index, row);
        if (totals) {
            result.total = summary;
            if (cells.at(1) != QLatin1StringView("---"))
                result.reportedRequestsPerSecond = operations;
            if (!result.reportedRequestsPerSecond || !result.reportedTransferKiBps)
                return malformed(index, row, m_lines.trimmed(index));
            return true;
        }
        // memtier lists Waits (and unused commands) with no operations.
        if (operations > 0 && !summary.isEmpty())
            result.perOperation[operationName(row)] = summary;
    }
    return cutOff();
}

double jsonNumber(const QJsonObject& object, const char* key) {
    return object.value(QLatin1StringView(key)).toDouble();
}

LatencySummary jsonSummary(const QJsonObject& entry) {
    LatencySummary summary;
    for (const char* key : {"Average Latency", "Latency"}) {
        if (entry.contains(QLatin1StringView(key))) {
            summary.meanMs = jsonNumber(entry, key);
            break;
        }
    }
    if (entry.contains(QLatin1StringView("Min Latency")))
        summary.minMs = jsonNumber(entry, "Min Latency");
    if (entry.contains(QLatin1StringView("Max Latency")))
        summary.maxMs = jsonNumber(entry, "Max Latency");
    const QJsonObject percentiles =
        entry.value(QLatin1StringView("Percentile Latencies")).toObject();
    for (auto it = percentiles.begin(); it != percentiles.end(); ++it) {
        if (!it.key().startsWith(QLatin1Char('p')) || !it.value().isDouble())
            continue;
        if (const auto percent = DecimalNumber::parseDouble(QStringView(it.key()).sliced(1)))
            summary.percentilesMs[*percent] = it.value().toDouble();
    }
    return summary;
}

// Milliseconds per unit of "Accumulated Latency", learnt from the commands
// whose average is right (versions differ between ms and us).
double accumulatedUnitMs(const QJsonObject& stats) {
    for (auto it = stats.begin(); it != stats.end(); ++it) {
        const QJsonObject entry = it.value().toObject();
        const double count = jsonNumber(entry, "Count");
        const double accumulated = jsonNumber(entry, "Accumulated Latency");
        const double average = jsonNumber(entry, "Average Latency");
        if (it.key() == QLatin1StringView("Totals") || count <= 0 || accumulated <= 0 ||
            average <= 0)
            continue;
        return accumulated / count / average > 100 ? 0.001 : 1.0;
    }
    return 1.0;
}

int lineOfOffset(const QByteArray& content, qsizetype offset) {
    return static_cast<int>(content.left(offset).count('\n')) + 1;
}

} // namespace

ImportResult MemtierReportParser::parse(const ReportLines& lines, const QString& fileName) {
    QList<ImportedReport> result;
    RunSettings settings;
    QString version;
    int pendingRuns = -1; // index of a BEST/WORST table waiting for its AGGREGATED one
    for (int index = 0; index < lines.size(); ++index) {
        const QString line = lines.trimmed(index);
        // "memtier_benchmark 2.1.0" (from --version) before the command check,
        // which would take it for a run with default options.
        if (const auto printed = kVersion.match(line); printed.hasMatch()) {
            version = printed.captured(1);
            continue;
        }
        if (const auto command =
                ReportLines::command(lines.text(index), {QStringLiteral("memtier_benchmark")})) {
            settings = RunSettings{};
            readCommand(*command, settings);
            continue;
        }
        if (line.isEmpty() || !(line.at(0).isDigit() || line.at(0).isUpper()))
            continue; // every line read below starts with a digit or a capital
        if (const auto setting =
                line.at(0).isDigit() ? kSetting.match(line) : QRegularExpressionMatch();
            setting.hasMatch()) {
            const auto value = DecimalNumber::parseCount(setting.captured(1));
            const QString name = setting.captured(2);
            if (name == QLatin1StringView("Threads"))
                settings.threads = static_cast<int>(value.value_or(0));
            else if (name == QLatin1StringView("Connections per thread"))
                settings.clients = static_cast<int>(value.value_or(0));
            else if (name == QLatin1StringView("Requests per client"))
                settings.requestsPerClient = value;
            else
                settings.requestsPerClient.reset();
            continue;
        }
        const bool followedByRule =
            index + 1 < lines.size() && kDoubleRule.match(lines.trimmed(index + 1)).hasMatch();
        if (kRunTitle.match(line).hasMatch() && followedByRule) {
            if (pendingRuns < 0)
                pendingRuns = index;
            continue;
        }
        if (!kTitle.match(line).hasMatch() || !followedByRule)
            continue;
        TableReader reader(lines, fileName);
        if (!reader.read(index))
            return reader.error();
        ImportedReport& report = reader.report();
        report.version = version;
        fillCommon(report, settings);
        report.firstLine = lines.number(pendingRuns >= 0 ? pendingRuns : index);
        result.append(reader.finish());
        index = reader.lastIndex();
        pendingRuns = -1;
        settings = RunSettings{};
    }
    if (pendingRuns >= 0) {
        return makeError(ErrorCode::Format,
                         QStringLiteral("memtier_benchmark report cut off before its AGGREGATED "
                                        "AVERAGE RESULTS"),
                         fileName, lines.number(pendingRuns));
    }
    return result;
}

bool MemtierReportParser::looksLikeJson(const QByteArray& content) {
    const QByteArray start = content.trimmed().left(1);
    return start == "{" &&
           (content.contains("\"ALL STATS\"") || content.contains("\"run information\"") ||
            content.contains("\"configuration\""));
}

ImportResult MemtierReportParser::parseJson(const QByteArray& content, const QString& fileName) {
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(content, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return makeError(ErrorCode::Format,
                         QStringLiteral("memtier_benchmark JSON cut off or invalid: %1")
                             .arg(parseError.errorString()),
                         fileName, lineOfOffset(content, parseError.offset));
    }
    const QJsonObject root = document.object();
    QJsonObject stats = root.value(QLatin1StringView("ALL STATS")).toObject();
    for (auto it = root.begin(); stats.isEmpty() && it != root.end(); ++it) {
        if (it.key().startsWith(QLatin1StringView("AGGREGATED AVERAGE RESULTS")))
            stats = it.value().toObject();
    }
    const QJsonObject totals = stats.value(QLatin1StringView("Totals")).toObject();
    const int lastLine = lineOfOffset(content, content.trimmed().size());
    if (totals.isEmpty() || !totals.value(QLatin1StringView("Ops/sec")).isDouble()) {
        return makeError(
            ErrorCode::Format,
            QStringLiteral("memtier_benchmark JSON has no \"ALL STATS\" Totals with Ops/sec"),
            fileName, lastLine);
    }

    ImportedReport report;
    PointResult& result = report.result;
    const QJsonObject configuration = root.value(QLatin1StringView("configuration")).toObject();
    const QJsonObject run = root.value(QLatin1StringView("run information")).toObject();
    RunSettings settings;
    settings.server = configuration.value(QLatin1StringView("server")).toString();
    settings.protocol =
        configuration.value(QLatin1StringView("protocol")).toString().trimmed().toLower();
    const QJsonValue port = configuration.value(QLatin1StringView("port"));
    settings.port = port.isDouble() ? QString::number(port.toInt()) : port.toString();
    const auto positive = [](const QJsonValue& value) -> std::optional<int> {
        return value.toInt() > 0 ? std::optional<int>(value.toInt()) : std::nullopt;
    };
    settings.threads = positive(configuration.value(QLatin1StringView("threads")));
    settings.clients = positive(configuration.value(QLatin1StringView("clients")));
    if (!settings.threads || !settings.clients) {
        settings.threads = positive(run.value(QLatin1StringView("Threads")));
        settings.clients = positive(run.value(QLatin1StringView("Connections per thread")));
    }
    if (jsonNumber(configuration, "test_time") <= 0 && jsonNumber(configuration, "requests") > 0)
        settings.requestsPerClient = static_cast<uint64_t>(jsonNumber(configuration, "requests"));
    fillCommon(report, settings);

    result.reportedRequestsPerSecond = jsonNumber(totals, "Ops/sec");
    if (totals.contains(QLatin1StringView("KB/sec")))
        result.reportedTransferKiBps = jsonNumber(totals, "KB/sec");
    if (totals.value(QLatin1StringView("Count")).isDouble()) {
        const double count = jsonNumber(totals, "Count");
        // A count as printed, or refused: never cast from a negative or a fraction.
        if (count < 0 || std::floor(count) != count || count > 9007199254740992.0)
            return makeError(ErrorCode::Format,
                             QStringLiteral("memtier_benchmark JSON: Totals \"Count\" is %1, "
                                            "not a count")
                                 .arg(count),
                             fileName, 1);
        result.complete = static_cast<uint64_t>(count);
    } else {
        result.completeUnknown = true;
    }
    const double durationMs =
        jsonNumber(stats.value(QLatin1StringView("Runtime")).toObject(), "Total duration");
    const double runSeconds = jsonNumber(run, "Actual benchmark duration (seconds)");
    result.durationSeconds = durationMs > 0 ? durationMs / 1000.0 : std::max(runSeconds, 0.0);
    result.durationUnknown = result.durationSeconds <= 0;

    result.total = jsonSummary(totals);
    const double count = jsonNumber(totals, "Count");
    const double accumulated = jsonNumber(totals, "Accumulated Latency");
    if (count > 0 && totals.contains(QLatin1StringView("Accumulated Latency")))
        result.total.meanMs = accumulated * accumulatedUnitMs(stats) / count;
    for (auto it = stats.begin(); it != stats.end(); ++it) {
        const QJsonObject entry = it.value().toObject();
        if (it.key() == QLatin1StringView("Totals") ||
            !entry.contains(QLatin1StringView("Ops/sec")))
            continue;
        const double operations = jsonNumber(entry, "Count");
        if (operations < 0 || std::floor(operations) != operations)
            return makeError(ErrorCode::Format,
                             QStringLiteral("memtier_benchmark JSON: %1 \"Count\" is %2, not a "
                                            "count")
                                 .arg(it.key())
                                 .arg(operations),
                             fileName, 1);
        if (entry.contains(QLatin1StringView("Count")) && operations == 0)
            continue; // memtier lists Waits even when the run had none
        const LatencySummary summary = jsonSummary(entry);
        if (!summary.isEmpty())
            result.perOperation[operationName(it.key())] = summary;
    }

    report.firstLine = 1;
    report.lastLine = lastLine;
    result.source =
        importedSource(report, fileName,
                       QString::fromLatin1(
                           QCryptographicHash::hash(
                               QByteArray(kTool.toUtf8() + document.toJson(QJsonDocument::Compact)),
                               QCryptographicHash::Sha256)
                               .toHex()));
    return QList<ImportedReport>{report};
}

} // namespace loadscope::app
