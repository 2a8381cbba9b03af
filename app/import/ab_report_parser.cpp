#include "app/import/ab_report_parser.h"

#include "app/import/ab_report_fields.h"
#include "app/import/decimal_number.h"
#include "app/import/report_lines.h"
#include "app/import/report_reader.h"

#include <QRegularExpression>
#include <map>

namespace loadscope::app {

namespace {

using namespace ab;

const QRegularExpression kBanner = pattern("^This is ApacheBench, Version (\\S+)");
const QRegularExpression kBenchmarking = pattern("^Benchmarking \\S+ \\(be patient\\)");
const QRegularExpression kProgress = pattern("^(Completed|Finished) \\d+ requests$");
const QRegularExpression kAborted =
    pattern("^(apr_\\w+|Total of \\d+ requests completed|Test aborted after|ab: )");
const QRegularExpression kFieldLine = pattern("^([A-Za-z][A-Za-z0-9/ .-]*?):(?: +(.*))?$");
const QRegularExpression kTransferMore = pattern("^(\\S+) (kb/s) (sent|total)$");
const QRegularExpression kConnectionTimes = pattern("^Conn+ection Times \\(ms\\)$");
const QRegularExpression kConnectionRow = pattern("^(Connect|Processing|Waiting|Total): +(.*)$");
const QRegularExpression kPercentage =
    pattern("^Percentage of the requests served within a certain time \\(ms\\)$");
const QRegularExpression kPercentRow = pattern("^(\\d+)% +(\\S+)( \\(longest request\\))?$");
const QRegularExpression kFailedSplit = pattern("^\\((\\w+): (\\d+)((?:, \\w+: \\d+)*)\\)$");

bool startsReport(const QString& line) {
    if (!line.startsWith(QLatin1StringView("This is ")) &&
        !line.startsWith(QLatin1StringView("Benchmarking ")) &&
        !line.startsWith(QLatin1StringView("Server ")))
        return false;
    return kBanner.match(line).hasMatch() || kBenchmarking.match(line).hasMatch() ||
           line.startsWith(QLatin1StringView("Server Software:")) ||
           line.startsWith(QLatin1StringView("Server Hostname:"));
}

struct FieldValue {
    QString text;
    int index = 0;
};

class AbReader : public ReportReader {
public:
    using ReportReader::ReportReader;

    bool read(int start, const std::optional<ReportLines::Command>& command, int commandIndex);

private:
    QString tool() const override { return QStringLiteral("ab"); }
    bool readPreamble(int& index);
    bool readFields(int& index);
    bool checkFields();
    bool readConnectionTimes(int& index);
    bool readPercentages(int& index);
    bool fill();

    std::optional<double> number(Field field, const QRegularExpression& pattern);
    std::optional<uint64_t> count(Field field);

    AbOptions m_options;

    std::map<Field, FieldValue> m_fields;
    QList<FieldValue> m_timePerRequest;
    QList<int> m_failedSplit; // Connect, Receive, Length, Exceptions
    bool m_confidence = true;
    std::map<QString, QList<double>> m_connectionRows;
    std::map<double, double> m_percentages;
};

bool AbReader::read(int start, const std::optional<ReportLines::Command>& command,
                    int commandIndex) {
    if (command) {
        m_options = readOptions(command->words);
        m_report.commandLine = command->text;
    }
    m_report.firstLine = m_lines.number(command ? commandIndex : start);
    int index = start;
    if (!readPreamble(index) || !readFields(index) || !checkFields())
        return false;
    const uint64_t complete =
        m_fields.count(Field::Complete) ? m_fields.at(Field::Complete).text.toULongLong() : 0;
    if (complete > 0 && !readConnectionTimes(index))
        return false;
    if (complete > 1 && !m_options.noPercentiles && !readPercentages(index))
        return false;
    // Only the 100% row proves by itself that it is whole; any other last
    // line of a file that stops without a line end may have lost digits.
    if (!m_lines.at(m_last).terminated && !m_percentages.count(100))
        return cutOff();
    return fill();
}

bool AbReader::readPreamble(int& index) {
    bool banner = false;
    bool benchmarking = false;
    for (; index < m_lines.size(); ++index) {
        const QString line = m_lines.trimmed(index);
        if (line.isEmpty())
            continue;
        if (line.startsWith(QLatin1StringView("Server Software:")) ||
            line.startsWith(QLatin1StringView("Server Hostname:"))) {
            m_fingerprintFrom = index;
            return true;
        }
        const auto bannerMatch = kBanner.match(line);
        if (bannerMatch.hasMatch()) {
            if (banner || benchmarking)
                return cutOff(); // the next report's banner: this one never printed its numbers
            banner = true;
            m_report.version = bannerMatch.captured(1);
            mark(index, line);
        } else if (banner && !benchmarking &&
                   (line.startsWith(QLatin1StringView("Copyright ")) ||
                    line.startsWith(QLatin1StringView("Licensed to ")))) {
            mark(index, line);
        } else if (kBenchmarking.match(line).hasMatch()) {
            if (benchmarking)
                return cutOff();
            benchmarking = true;
            mark(index, line);
        } else if (kProgress.match(line).hasMatch()) {
            mark(index, line);
        } else if (kAborted.match(line).hasMatch()) {
            return refuse(index, QStringLiteral("ab run aborted: '%1'").arg(line));
        } else if (!benchmarking) {
            // ab -v prints requests and headers after "Benchmarking"; before it,
            // anything else means the banner was only text around something else.
            return cutOff();
        }
    }
    return cutOff();
}

bool AbReader::readFields(int& index) {
    int lastOrder = -1;
    for (; index < m_lines.size(); ++index) {
        const QString line = m_lines.trimmed(index);
        if (line.isEmpty())
            continue;
        if (lastOrder == static_cast<int>(Field::Failed) && line.startsWith(QLatin1Char('('))) {
            const auto split = kFailedSplit.match(line);
            if (!split.hasMatch())
                return malformed(index, nameOf(Field::Failed), line);
            const QStringList parts = line.mid(1, line.size() - 2).split(QStringLiteral(", "));
            static const QStringList kinds = {QStringLiteral("Connect"), QStringLiteral("Receive"),
                                              QStringLiteral("Length"),
                                              QStringLiteral("Exceptions")};
            m_failedSplit = {0, 0, 0, 0};
            for (const QString& part : parts) {
                const QStringList pair = part.split(QStringLiteral(": "));
                const qsizetype kind = kinds.indexOf(pair.value(0));
                const auto value = DecimalNumber::parseCount(pair.value(1));
                if (kind < 0 || !value)
                    return malformed(index, nameOf(Field::Failed), line);
                m_failedSplit[kind] = static_cast<int>(*value);
            }
            mark(index, line);
            continue;
        }
        if (lastOrder == static_cast<int>(Field::TransferRate) &&
            kTransferMore.match(line).hasMatch()) {
            mark(index, line);
            continue;
        }
        const auto match = kFieldLine.match(line);
        const FieldName* name = match.hasMatch() ? findField(match.captured(1)) : nullptr;
        if (!name)
            return true;
        const int order = static_cast<int>(name->field);
        const bool secondTimePerRequest =
            name->field == Field::TimePerRequest && m_timePerRequest.size() == 1;
        if (order < lastOrder || (order == lastOrder && !secondTimePerRequest))
            return true; // the next report, printed without a banner
        const FieldValue value{match.captured(2).simplified(), index};
        if (name->field == Field::TimePerRequest)
            m_timePerRequest.append(value);
        else
            m_fields[name->field] = value;
        lastOrder = order;
        mark(index, QString(name->text));
    }
    return true;
}

std::optional<double> AbReader::number(Field field, const QRegularExpression& pattern) {
    const FieldValue& value = m_fields.at(field);
    const auto match = pattern.match(value.text);
    const auto parsed =
        match.hasMatch() ? DecimalNumber::parseDouble(match.captured(1)) : std::nullopt;
    if (!parsed)
        malformed(value.index, nameOf(field), value.text);
    return parsed;
}

std::optional<uint64_t> AbReader::count(Field field) {
    const FieldValue& value = m_fields.at(field);
    QString text = value.text;
    if (text.endsWith(QLatin1StringView(" bytes")))
        text.chop(6);
    const auto parsed = DecimalNumber::parseCount(text);
    if (!parsed)
        malformed(value.index, nameOf(field), value.text);
    return parsed;
}

bool AbReader::checkFields() {
    std::vector<Field> required = {
        Field::ServerSoftware, Field::ServerHostname,   Field::ServerPort,      Field::DocumentPath,
        Field::DocumentLength, Field::Concurrency,      Field::TimeTaken,       Field::Complete,
        Field::Failed,         Field::TotalTransferred, Field::HtmlTransferred,
    };
    const bool anyRequests =
        m_fields.count(Field::Complete) &&
        DecimalNumber::parseCount(m_fields.at(Field::Complete).text).value_or(0) > 0;
    // ab prints rates only when something completed, and then both.
    const bool anyRates =
        m_fields.count(Field::RequestsPerSecond) || m_fields.count(Field::TransferRate);
    if (anyRequests || anyRates)
        required.insert(required.end(), {Field::RequestsPerSecond, Field::TransferRate});
    for (Field field : required) {
        if (m_fields.count(field))
            continue;
        // A gap with later fields present is a malformed report, a missing
        // tail is a cut one.
        for (const auto& [present, value] : m_fields) {
            if (present > field) {
                return refuse(value.index,
                              QStringLiteral("ab report is missing '%1'").arg(nameOf(field)));
            }
        }
        return cutOff();
    }
    if (anyRequests && m_timePerRequest.size() != 2)
        return cutOff();
    return true;
}

bool AbReader::readConnectionTimes(int& index) {
    index = m_lines.skipBlank(index);
    if (index >= m_lines.size() || !kConnectionTimes.match(m_lines.trimmed(index)).hasMatch())
        return cutOff();
    mark(index, m_lines.trimmed(index));
    index = m_lines.skipBlank(index + 1);
    if (index >= m_lines.size())
        return cutOff();
    const QString header = m_lines.trimmed(index);
    if (!header.startsWith(QLatin1StringView("min")))
        return cutOff();
    // "-S" drops the spread columns: "min avg max" instead of "min mean[+/-sd] median max".
    m_confidence = header.contains(QLatin1StringView("median"));
    mark(index, header);
    static const QStringList rows = {QStringLiteral("Connect"), QStringLiteral("Processing"),
                                     QStringLiteral("Waiting"), QStringLiteral("Total")};
    for (const QString& row : rows) {
        index = m_lines.skipBlank(index + 1);
        const auto match = index < m_lines.size() ? kConnectionRow.match(m_lines.trimmed(index))
                                                  : QRegularExpressionMatch();
        if (!match.hasMatch() || match.captured(1) != row)
            return cutOff();
        const QStringList cells = ReportLines::fields(match.captured(2));
        if (cells.size() != (m_confidence ? 5 : 3))
            return malformed(index, row, match.captured(2));
        QList<double> values;
        for (const QString& cell : cells) {
            const auto value = DecimalNumber::parseDouble(cell);
            if (!value)
                return malformed(index, row, match.captured(2));
            values.append(*value);
        }
        m_connectionRows[row] = values;
        mark(index, row);
    }
    // ab's sanity warnings: "ERROR: The median and mean for ... are more than
    // twice the standard" and an indented second line.
    bool inWarning = false;
    for (++index; index < m_lines.size(); ++index) {
        const QString line = m_lines.trimmed(index);
        if (line.startsWith(QLatin1StringView("ERROR:")) ||
            line.startsWith(QLatin1StringView("WARNING:")))
            inWarning = true;
        else if (!inWarning || line.isEmpty() || !m_lines.text(index).startsWith(QLatin1Char(' ')))
            break;
        m_last = index;
    }
    return true;
}

bool AbReader::readPercentages(int& index) {
    index = m_lines.skipBlank(index);
    if (index >= m_lines.size() || !kPercentage.match(m_lines.trimmed(index)).hasMatch())
        return cutOff();
    mark(index, m_lines.trimmed(index));
    double previous = -1;
    for (++index; index < m_lines.size(); ++index) {
        const QString line = m_lines.trimmed(index);
        if (line.isEmpty())
            continue;
        if (line.startsWith(QLatin1StringView("0% ")) &&
            line.endsWith(QLatin1StringView("(never)")))
            continue;
        const auto match = kPercentRow.match(line);
        if (!match.hasMatch())
            return cutOff();
        const double percent = match.captured(1).toDouble();
        const auto value = DecimalNumber::parseDouble(match.captured(2));
        const bool longest = match.capturedLength(3) > 0;
        if (percent == 100 && !longest)
            return cutOff(); // "(longest request)" always follows the 100% figure
        if (!value || percent <= previous || percent > 100 || longest != (percent == 100))
            return malformed(index, match.captured(1) + QLatin1Char('%'), match.captured(2));
        m_percentages[percent] = *value;
        previous = percent;
        mark(index, match.captured(1) + QLatin1Char('%'));
        if (longest)
            return true;
    }
    return cutOff();
}

LatencySummary connectionSummary(const QList<double>& values, bool confidence) {
    LatencySummary summary;
    summary.minMs = values.value(0);
    summary.meanMs = values.value(1);
    if (confidence) {
        summary.sdMs = values.value(2);
        summary.percentilesMs[50] = values.value(3);
        summary.maxMs = values.value(4);
    } else {
        summary.maxMs = values.value(2);
    }
    return summary;
}

bool AbReader::fill() {
    static const QRegularExpression bytes(QStringLiteral("^(\\d+) bytes$"));
    static const QRegularExpression seconds(QStringLiteral("^(\\S+) seconds$"));
    static const QRegularExpression perSecond(QStringLiteral("^(\\S+) \\[#/sec\\] \\(mean\\)$"));
    static const QRegularExpression kibPerSecond(
        QStringLiteral("^(\\S+) \\[Kbytes/sec\\] received$"));
    static const QRegularExpression timePerRequest(
        QStringLiteral("^(\\S+) \\[ms\\] \\(mean(, across all concurrent requests)?\\)$"));

    PointResult& result = m_report.result;
    result.serverSoftware = m_fields.at(Field::ServerSoftware).text;
    const QString host = m_fields.at(Field::ServerHostname).text;
    const auto port = count(Field::ServerPort);
    const auto concurrency = count(Field::Concurrency);
    const auto complete = count(Field::Complete);
    const auto failed = count(Field::Failed);
    const auto totalBytes = count(Field::TotalTransferred);
    const auto bodyBytes = count(Field::HtmlTransferred);
    const auto duration = number(Field::TimeTaken, seconds);
    if (!port || !concurrency || *concurrency == 0 || *concurrency > 1'000'000 || !complete ||
        !failed || !totalBytes || !bodyBytes || !duration) {
        if (!refused())
            malformed(m_fields.at(Field::Concurrency).index, nameOf(Field::Concurrency),
                      m_fields.at(Field::Concurrency).text);
        return false;
    }
    const QString length = m_fields.at(Field::DocumentLength).text;
    if (length == QLatin1StringView("Variable")) {
        result.documentLength = -1;
    } else if (const auto value = count(Field::DocumentLength)) {
        result.documentLength = static_cast<int64_t>(*value);
    } else {
        return false;
    }
    result.concurrency = static_cast<int>(*concurrency);
    result.complete = *complete;
    result.failed = *failed;
    result.bytesTotal = *totalBytes;
    result.bytesBody = *bodyBytes;
    result.durationSeconds = *duration;
    result.threads = 1;
    const std::pair<Field, uint64_t*> optionalCounts[] = {
        {Field::WriteErrors, &result.errors[static_cast<size_t>(engine::ErrorClass::Write)]},
        {Field::Non2xx, &result.non2xx},
        {Field::KeepAlive, &result.keepAlive},
        {Field::BodySent, &result.bytesSent}};
    for (const auto& [field, target] : optionalCounts) {
        if (!m_fields.count(field))
            continue;
        const auto value = count(field);
        if (!value)
            return false;
        *target = *value;
    }
    const engine::ErrorClass failedKinds[] = {
        engine::ErrorClass::Connect, engine::ErrorClass::Receive, engine::ErrorClass::Length,
        engine::ErrorClass::Exception};
    for (qsizetype i = 0; i < m_failedSplit.size(); ++i)
        result.errors[static_cast<size_t>(failedKinds[i])] = m_failedSplit.at(i);
    if (m_fields.count(Field::RequestsPerSecond)) {
        const auto rps = number(Field::RequestsPerSecond, perSecond);
        const auto kib = number(Field::TransferRate, kibPerSecond);
        if (!rps || !kib)
            return false;
        result.reportedRequestsPerSecond = *rps;
        result.reportedTransferKiBps = *kib;
        for (const FieldValue& value : std::as_const(m_timePerRequest)) {
            const auto match = timePerRequest.match(value.text);
            const auto ms =
                match.hasMatch() ? DecimalNumber::parseDouble(match.captured(1)) : std::nullopt;
            if (!ms)
                return malformed(value.index, nameOf(Field::TimePerRequest), value.text);
            // Kept as printed: derived from the rounded "Time taken" they would change.
            (match.hasCaptured(2) ? result.reportedTimePerRequestAcrossMs
                                  : result.reportedTimePerRequestMs) = *ms;
        }
    }
    const std::pair<const char*, LatencySummary*> rows[] = {{"Connect", &result.connect},
                                                            {"Processing", &result.processing},
                                                            {"Waiting", &result.waiting},
                                                            {"Total", &result.total}};
    for (const auto& [row, summary] : rows) {
        const auto found = m_connectionRows.find(QLatin1StringView(row));
        if (found != m_connectionRows.end())
            *summary = connectionSummary(found->second, m_confidence);
    }
    // The percentage table is the distribution ab users quote; its 50% wins
    // over the table's median, which ab computes differently.
    for (const auto& [percent, value] : m_percentages)
        result.total.percentilesMs[percent] = value;

    const bool tls = m_fields.count(Field::TlsProtocol) > 0;
    const QString path = m_fields.at(Field::DocumentPath).text;
    const bool defaultPort = *port == (tls ? 443u : 80u);
    m_report.url = m_options.url.isEmpty()
                       ? (tls ? QStringLiteral("https://") : QStringLiteral("http://")) + host +
                             (defaultPort ? QString() : QLatin1Char(':') + QString::number(*port)) +
                             path
                       : m_options.url;
    m_report.concurrency = result.concurrency;
    m_report.requests = m_options.requests;
    m_report.keepAlive = m_options.keepAlive || m_fields.count(Field::KeepAlive) > 0;
    m_report.threads = 1;
    return true;
}

} // namespace

ImportResult AbReportParser::parse(const ReportLines& lines, const QString& fileName) {
    QList<ImportedReport> result;
    std::optional<ReportLines::Command> command;
    int commandIndex = -1;
    int index = 0;
    while (index < lines.size()) {
        const QString line = lines.trimmed(index);
        if (auto typed = ReportLines::commandWithUrl(
                lines.text(index), {QStringLiteral("ab"), QStringLiteral("ab2")})) {
            command = typed;
            commandIndex = index;
            ++index;
            continue;
        }
        if (startsReport(line)) {
            AbReader reader(lines, fileName);
            if (!reader.read(index, command, commandIndex))
                return reader.error();
            result.append(reader.finish());
            index = reader.lastIndex() + 1;
            command.reset();
            continue;
        }
        // A command belongs to the report right below it, not to one further down.
        if (!line.isEmpty())
            command.reset();
        ++index;
    }
    return result;
}

} // namespace loadscope::app
