#include "app/import/h2load_report_parser.h"

#include "app/import/decimal_number.h"
#include "app/import/report_lines.h"
#include "app/import/report_reader.h"

#include <QRegularExpression>

namespace loadscope::app {

namespace {

const QRegularExpression kStarting = pattern("^starting benchmark\\.\\.\\.$");
const QRegularExpression kSpawning =
    pattern("^spawning thread #(\\d+): (\\d+) total client\\(s\\)\\.(?: (.*))?$");
const QRegularExpression kTimingBased =
    pattern("Timing-based test with (\\S+) of warm-up time and (\\S+) of main duration");
const QRegularExpression kTlsProtocol = pattern("^TLS Protocol: (\\S+)$");
const QRegularExpression kCipher = pattern("^Cipher: (\\S+)$");
const QRegularExpression kApplicationProtocol = pattern("^Application protocol: (\\S+)$");
const QRegularExpression kFinished = pattern("^finished in (\\S+), (\\S+) req/s, (\\S+)/s$");
const QRegularExpression kRequests =
    pattern("^requests: (\\d+) total, (\\d+) started, (\\d+) done, (\\d+) succeeded, (\\d+) "
            "failed, (\\d+) errored, (\\d+) timeout$");
const QRegularExpression kStatusCodes =
    pattern("^status codes: (\\d+) 2xx, (\\d+) 3xx, (\\d+) 4xx, (\\d+) 5xx$");
const QRegularExpression kTraffic =
    pattern("^traffic: \\S+ \\((\\d+)\\) total, \\S+ \\((\\d+)\\) headers \\(space savings "
            "\\S+%\\), \\S+ \\((\\d+)\\) data$");
// h2load built with HTTP/3 adds it after the traffic.
const QRegularExpression kDatagrams = pattern("^UDP datagram: ");
const QRegularExpression kTableHeader = pattern("^min +max +mean +sd +\\+/- sd$");
const QRegularExpression kTimeRow = pattern("^(time for request|time for connect|time to 1st "
                                            "byte): +(\\S+) +(\\S+) +(\\S+) +(\\S+) +(\\S+)%$");
const QRegularExpression kRateRow = pattern("^req/s +: +(\\S+) +(\\S+) +(\\S+) +(\\S+) +(\\S+)%$");
const QRegularExpression kVersion = pattern("^h2load nghttp2/(\\S+)$");

// Streams at once per client: -m N, -mN, --max-concurrent-streams[=]N; h2load's default is 1.
std::optional<int> commandStreams(const ReportLines::Command& command) {
    const QStringList& words = command.words;
    for (qsizetype i = 0; i < words.size(); ++i) {
        const QString& word = words.at(i);
        QString value;
        if (word == QLatin1StringView("-m") ||
            word == QLatin1StringView("--max-concurrent-streams"))
            value = words.value(i + 1);
        else if (word.startsWith(QLatin1StringView("--max-concurrent-streams=")))
            value = word.mid(25);
        else if (word.startsWith(QLatin1StringView("-m")) &&
                 !word.startsWith(QLatin1StringView("--")))
            value = word.mid(2);
        else
            continue;
        const auto streams = DecimalNumber::parseCount(value);
        return streams && *streams > 0 && *streams <= 1'000'000
                   ? std::optional<int>(static_cast<int>(*streams))
                   : std::nullopt;
    }
    return 1;
}

QString commandUrl(const ReportLines::Command& command) {
    for (qsizetype i = command.words.size() - 1; i >= 0; --i) {
        const QString& word = command.words.at(i);
        if (word.startsWith(QLatin1StringView("http://")) ||
            word.startsWith(QLatin1StringView("https://")))
            return word;
    }
    return {};
}

class H2loadReader : public ReportReader {
public:
    using ReportReader::ReportReader;

    bool read(int start, const std::optional<ReportLines::Command>& command, int commandIndex,
              const QString& version);

private:
    QString tool() const override { return QStringLiteral("h2load"); }
    bool readSpawned(int& index);
    bool readSpawnLine(int index, const QString& line);
    bool readUntilFinished(int& index);
    bool readCounts(int& index);
    bool readTable(int& index);
    std::optional<uint64_t> count(int index, const QRegularExpressionMatch& match, int group,
                                  const QString& what);

    std::optional<double> m_mainDurationSeconds; // -D: what the rates are over
};

std::optional<uint64_t> H2loadReader::count(int index, const QRegularExpressionMatch& match,
                                            int group, const QString& what) {
    const auto value = DecimalNumber::parseCount(match.captured(group));
    if (!value)
        malformed(index, what, match.captured(group));
    return value;
}

bool H2loadReader::read(int start, const std::optional<ReportLines::Command>& command,
                        int commandIndex, const QString& version) {
    if (command) {
        m_report.commandLine = command->text;
        m_report.url = commandUrl(*command);
        m_report.streams = commandStreams(*command);
    }
    m_report.firstLine = m_lines.number(command ? commandIndex : start);
    m_fingerprintFrom = start;
    m_report.version = version;
    mark(start, QStringLiteral("starting benchmark"));
    int index = start;
    if (!readSpawned(index) || !readUntilFinished(index) || !readCounts(index) || !readTable(index))
        return false;
    m_report.keepAlive = true; // every client keeps its connection for all its requests
    m_report.result.concurrency = *m_report.concurrency;
    m_report.result.threads = *m_report.threads;
    return true;
}

bool H2loadReader::readSpawned(int& index) {
    // The first thread's line comes at once; the others may come after lines the first one's
    // thread printed meanwhile (warm-up, progress), and readUntilFinished takes them there.
    const QString line = next(index);
    if (!line.startsWith(QLatin1StringView("spawning thread")))
        return cutOff();
    return readSpawnLine(index, line);
}

bool H2loadReader::readSpawnLine(int index, const QString& line) {
    const int threads = m_report.threads.value_or(0);
    const uint64_t clients = uint64_t(m_report.concurrency.value_or(0));
    const auto spawned = kSpawning.match(line);
    const auto thread = DecimalNumber::parseCount(spawned.captured(1));
    const auto mine = DecimalNumber::parseCount(spawned.captured(2));
    if (!spawned.hasMatch() || !thread || *thread != uint64_t(threads) || !mine || *mine == 0 ||
        clients + *mine > 10'000'000)
        return malformed(index, QStringLiteral("spawning thread"), line);
    if (const auto timed = kTimingBased.match(spawned.captured(3)); timed.hasMatch()) {
        const auto main = DecimalNumber::wrkTimeMs(timed.captured(2));
        if (!main || main->toDouble() <= 0)
            return malformed(index, QStringLiteral("main duration"), timed.captured(2));
        m_mainDurationSeconds = main->shifted(-3).toDouble();
    }
    m_report.threads = threads + 1;
    m_report.concurrency = static_cast<int>(clients + *mine);
    mark(index, QStringLiteral("spawning thread #%1").arg(threads));
    return true;
}

bool H2loadReader::readUntilFinished(int& index) {
    // Progress, warm-up and per-client lines come in any order and number; what is kept of
    // them is the TLS session and the protocol.
    for (QString line = next(index);; line = next(index)) {
        if (line.isEmpty() || kStarting.match(line).hasMatch())
            return cutOff();
        if (line.startsWith(QLatin1StringView("spawning thread"))) {
            if (!readSpawnLine(index, line))
                return false;
        } else if (const auto tls = kTlsProtocol.match(line); tls.hasMatch()) {
            m_report.result.tlsProtocol = tls.captured(1);
        } else if (const auto cipher = kCipher.match(line); cipher.hasMatch()) {
            m_report.result.tlsCipher = cipher.captured(1);
        } else if (const auto protocol = kApplicationProtocol.match(line); protocol.hasMatch()) {
            m_report.applicationProtocol = protocol.captured(1);
            mark(index, QStringLiteral("Application protocol"));
        } else if (const auto finished = kFinished.match(line); finished.hasMatch()) {
            PointResult& result = m_report.result;
            const auto time = DecimalNumber::wrkTimeMs(finished.captured(1));
            if (!time || time->toDouble() <= 0)
                return malformed(index, QStringLiteral("finished in"), finished.captured(1));
            result.durationSeconds = m_mainDurationSeconds.value_or(time->shifted(-3).toDouble());
            const auto rate = DecimalNumber::parse(finished.captured(2));
            // "%.2f": fewer than two decimals means the line lost its end.
            if (!rate || rate->printedDecimals() != 2)
                return malformed(index, QStringLiteral("req/s"), finished.captured(2));
            result.reportedRequestsPerSecond = rate->toDouble();
            const auto transfer = DecimalNumber::wrkBytes(finished.captured(3));
            if (!transfer)
                return malformed(index, QStringLiteral("finished in"), finished.captured(3));
            result.reportedTransferKiBps = transfer->scaled(9765625, -10).toDouble(); // / 1024
            mark(index, QStringLiteral("finished in"));
            return true;
        }
    }
}

bool H2loadReader::readCounts(int& index) {
    PointResult& result = m_report.result;
    const QString requestsLine = next(index);
    const auto requests = kRequests.match(requestsLine);
    if (!requests.hasMatch())
        return cutOff();
    uint64_t counts[7];
    for (int i = 0; i < 7; ++i) {
        const auto value = count(index, requests, i + 1, QStringLiteral("requests"));
        if (!value)
            return false;
        counts[i] = *value;
    }
    ImportedReport::RequestCounts printed{counts[1], counts[2], counts[3],
                                          counts[4], counts[5], counts[6]};
    // h2load counts a timeout as errored and an errored request as failed.
    if (printed.timeout > printed.errored || printed.errored > printed.failed ||
        printed.succeeded + printed.failed > counts[0] || printed.done > counts[0])
        return malformed(index, QStringLiteral("requests"), requestsLine);
    m_report.requests = counts[0];
    m_report.requestCounts = printed;
    // Every request that ended: streams abandoned when a client stopped are failed and
    // errored without being done.
    result.complete = printed.succeeded + printed.failed;
    result.failed = printed.errored;
    result.errors[static_cast<size_t>(engine::ErrorClass::Timeout)] = printed.timeout;
    // Streams closed or connections lost before their response.
    result.errors[static_cast<size_t>(engine::ErrorClass::Receive)] =
        printed.errored - printed.timeout;
    mark(index, QStringLiteral("requests"));

    const QString statusLine = next(index);
    const auto status = kStatusCodes.match(statusLine);
    if (!status.hasMatch())
        return cutOff();
    for (int i = 0; i < 4; ++i) {
        const auto value = count(index, status, i + 1, QStringLiteral("status codes"));
        if (!value)
            return false;
        m_report.statusClasses[i + 2] = *value;
        if (i > 0)
            result.non2xx += *value;
    }
    mark(index, QStringLiteral("status codes"));

    const auto traffic = kTraffic.match(next(index));
    if (!traffic.hasMatch())
        return cutOff();
    const auto total = count(index, traffic, 1, QStringLiteral("traffic"));
    const auto headers = total ? count(index, traffic, 2, QStringLiteral("headers")) : total;
    const auto data = headers ? count(index, traffic, 3, QStringLiteral("data")) : headers;
    if (!data)
        return false;
    result.bytesTotal = *total;
    result.bytesBody = *data;
    m_report.headerBytes = *headers;
    mark(index, QStringLiteral("traffic"));
    return true;
}

bool H2loadReader::readTable(int& index) {
    QString line = next(index);
    if (kDatagrams.match(line).hasMatch()) {
        mark(index, QStringLiteral("UDP datagram"));
        line = next(index);
    }
    if (!kTableHeader.match(line).hasMatch())
        return cutOff();
    mark(index, QStringLiteral("min max mean sd"));
    const char* const rows[] = {"time for request", "time for connect", "time to 1st byte"};
    LatencySummary* const summaries[] = {&m_report.result.total, &m_report.result.connect,
                                         &m_report.firstByte};
    for (int row = 0; row < 3; ++row) {
        line = next(index);
        const auto times = kTimeRow.match(line);
        const QString name = QString::fromLatin1(rows[row]);
        if (!times.hasMatch() || times.captured(1) != name)
            return cutOff();
        std::optional<double>* const fields[] = {&summaries[row]->minMs, &summaries[row]->maxMs,
                                                 &summaries[row]->meanMs, &summaries[row]->sdMs};
        for (int column = 0; column < 4; ++column) {
            const auto value = DecimalNumber::wrkTimeMs(times.captured(column + 2));
            if (!value)
                return malformed(index, name, times.captured(column + 2));
            *fields[column] = value->toDouble();
        }
        if (!DecimalNumber::parse(times.captured(6)))
            return malformed(index, name, times.captured(6) + QLatin1Char('%'));
        mark(index, name);
    }
    line = next(index);
    const auto rates = kRateRow.match(line);
    if (!rates.hasMatch())
        return cutOff();
    for (int column = 1; column <= 5; ++column) {
        const auto value = DecimalNumber::parse(rates.captured(column));
        // "%.2f" in every column: a shorter last one lost its end.
        if (!value || value->printedDecimals() != 2)
            return malformed(index, QStringLiteral("req/s"), rates.captured(column));
    }
    mark(index, QStringLiteral("req/s"));
    return true;
}

} // namespace

ImportResult H2loadReportParser::parse(const ReportLines& lines, const QString& fileName) {
    return readReports<H2loadReader>(
        lines, fileName, {QStringLiteral("h2load")}, [](const QString& line, QString& version) {
            if (const auto printed = kVersion.match(line); printed.hasMatch()) {
                version = printed.captured(1);
                return LineRole::Preamble;
            }
            if (kStarting.match(line).hasMatch())
                return LineRole::Start;
            // h2load's own warnings about its options come between its command and its report.
            return line.contains(QLatin1StringView("warning:")) ? LineRole::Preamble
                                                                : LineRole::Other;
        });
}

} // namespace loadscope::app
