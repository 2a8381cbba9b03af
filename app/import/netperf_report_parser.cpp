#include "app/import/netperf_report_parser.h"

#include "app/import/decimal_number.h"
#include "app/import/report_lines.h"
#include "app/import/report_reader.h"

#include <QRegularExpression>
#include <map>

namespace loadscope::app {

namespace {

const QString kTool = QStringLiteral("netperf");

const QRegularExpression kBanner =
    pattern("^(?:MIGRATED )?(TCP|UDP|SCTP|SDP|DLPI|UNIX|OMNI) (.+?) TEST(?: from .*?)?(?: to "
            "(\\S+).*)?$");
const QRegularExpression kKeyValue = pattern("^([A-Z][A-Z0-9_]*)=(.*)$");
const QRegularExpression kVersion = pattern("^Netperf version (\\S+)");
const QRegularExpression kBitUnits = pattern("^10\\^(\\d+)bits/s(?:ec)?$");
const QRegularExpression kByteUnits = pattern("^([KMG]?)Bytes/s(?:ec)?$");

// The omni output selectors this import reads, by their -k key and their -o
// column title.
struct Selector {
    const char* key;
    const char* title;
};
constexpr Selector kSelectors[] = {
    {"THROUGHPUT", "Throughput"},
    {"THROUGHPUT_UNITS", "Throughput Units"},
    {"TRANSACTION_RATE", "Transaction Rate Tran/s"},
    {"ELAPSED_TIME", "Elapsed Time (sec)"},
    {"MEAN_LATENCY", "Mean Latency Microseconds"},
    {"MIN_LATENCY", "Minimum Latency Microseconds"},
    {"MAX_LATENCY", "Maximum Latency Microseconds"},
    {"P50_LATENCY", "50th Percentile Latency Microseconds"},
    {"P90_LATENCY", "90th Percentile Latency Microseconds"},
    {"P99_LATENCY", "99th Percentile Latency Microseconds"},
    {"STDDEV_LATENCY", "Stddev Latency Microseconds"},
    {"PROTOCOL", "Protocol"},
    {"COMMAND_LINE", "Command Line"},
    // UDP_STREAM's send side (its THROUGHPUT is the receiver's) and its message counts.
    {"LOCAL_SEND_THROUGHPUT", "Local Send Throughput"},
    {"REMOTE_RECV_THROUGHPUT", "Remote Recv Throughput"},
    {"LOCAL_SEND_CALLS", "Local Send Calls"},
    {"REMOTE_RECV_CALLS", "Remote Recv Calls"},
};

// The tests this import reads, as the refusals name them.
const char* const kImportedTests = "TCP_RR, TCP_CRR, TCP_STREAM, UDP_RR, UDP_STREAM";

bool isUdpStream(const QString& test) {
    return test == QLatin1StringView("UDP_STREAM");
}

bool isStreamTest(const QString& test) {
    return test == QLatin1StringView("TCP_STREAM") || isUdpStream(test);
}

QString keyOfTitle(const QString& title) {
    for (const Selector& selector : kSelectors) {
        if (title == QLatin1StringView(selector.title))
            return QLatin1StringView(selector.key);
    }
    return {};
}

// The test named by the banner's words, or empty for one not imported.
QString testOfBanner(const QString& protocol, const QString& kind) {
    if (protocol == QLatin1StringView("UDP") && kind == QLatin1StringView("REQUEST/RESPONSE"))
        return QStringLiteral("UDP_RR");
    if (protocol == QLatin1StringView("UDP") && kind == QLatin1StringView("STREAM"))
        return QStringLiteral("UDP_STREAM");
    if (protocol != QLatin1StringView("TCP"))
        return {};
    if (kind == QLatin1StringView("REQUEST/RESPONSE"))
        return QStringLiteral("TCP_RR");
    if (kind == QLatin1StringView("Connect/Request/Response"))
        return QStringLiteral("TCP_CRR");
    if (kind == QLatin1StringView("STREAM"))
        return QStringLiteral("TCP_STREAM");
    return {};
}

// What the typed command adds: the test, the host and the selector list of -k/-o.
struct NetperfCommand {
    QString text;
    QString test;
    QString host;
    QStringList selectors;
};

NetperfCommand readCommand(const ReportLines::Command& command) {
    NetperfCommand result;
    result.text = command.text;
    bool testSpecific = false;
    for (qsizetype i = 0; i < command.words.size(); ++i) {
        const QString& word = command.words.at(i);
        if (word == QLatin1StringView("--")) {
            testSpecific = true;
        } else if (!testSpecific && word == QLatin1StringView("-t")) {
            result.test = command.words.value(++i).toUpper();
        } else if (!testSpecific && word.startsWith(QLatin1StringView("-t"))) {
            result.test = word.mid(2).toUpper();
        } else if (!testSpecific && word == QLatin1StringView("-H")) {
            result.host = command.words.value(++i);
        } else if (testSpecific &&
                   (word == QLatin1StringView("-k") || word == QLatin1StringView("-o") ||
                    word == QLatin1StringView("-O"))) {
            const QString list = command.words.value(i + 1);
            // A selector list, not a file of selectors nor the next option.
            static const QRegularExpression selectors(
                QStringLiteral("^[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*$"));
            if (selectors.match(list).hasMatch() && !list.startsWith(QLatin1Char('-'))) {
                result.selectors = list.toUpper().split(QLatin1Char(','));
                ++i;
            }
        }
    }
    return result;
}

QStringList splitCsv(const QString& line) {
    QStringList cells;
    QString cell;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line.at(i);
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < line.size() && line.at(i + 1) == QLatin1Char('"'))
                cell.append(line.at(++i));
            else if (c == QLatin1Char('"'))
                quoted = false;
            else
                cell.append(c);
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            cells.append(cell.trimmed());
            cell.clear();
        } else {
            cell.append(c);
        }
    }
    cells.append(cell.trimmed());
    return cells;
}

// A line of -o column titles. "Throughput" alone is too common a word in
// notes to tell netperf from someone's own table; the other titles are not.
bool isCsvHeader(const QString& line) {
    if (!line.contains(QLatin1Char(',')) || line.contains(QLatin1Char('=')))
        return false;
    for (const QString& cell : splitCsv(line)) {
        const QString key = keyOfTitle(cell);
        if (key == QLatin1StringView("THROUGHPUT_UNITS") ||
            key == QLatin1StringView("TRANSACTION_RATE") ||
            key == QLatin1StringView("ELAPSED_TIME") || key.endsWith(QLatin1StringView("_LATENCY")))
            return true;
    }
    return false;
}

bool isResultKey(const QString& line) {
    if (line.isEmpty() || !line.at(0).isUpper() || !line.contains(QLatin1Char('=')))
        return false;
    const auto match = kKeyValue.match(line);
    if (!match.hasMatch())
        return false;
    const QString key = match.captured(1);
    return key == QLatin1StringView("THROUGHPUT") || key == QLatin1StringView("TRANSACTION_RATE") ||
           key.endsWith(QLatin1StringView("_LATENCY"));
}

// Mbit/s (10^6 bit/s) from a throughput in the units netperf's -f picked.
std::optional<double> toMbitps(const DecimalNumber& value, const QString& units) {
    if (const auto bits = kBitUnits.match(units); bits.hasMatch())
        return value.shifted(bits.captured(1).toInt() - 6).toDouble();
    if (units == QLatin1StringView("bits/s") || units == QLatin1StringView("bits/sec"))
        return value.shifted(-6).toDouble();
    if (const auto bytes = kByteUnits.match(units); bytes.hasMatch()) {
        // netperf counts bytes in powers of 1024, bits in powers of 1000.
        const QString prefix = bytes.captured(1);
        const uint64_t scale = prefix.isEmpty()                   ? 1
                               : prefix == QLatin1StringView("K") ? 1024ULL
                               : prefix == QLatin1StringView("M") ? 1024ULL * 1024
                                                                  : 1024ULL * 1024 * 1024;
        return value.scaled(8 * scale, -6).toDouble();
    }
    return std::nullopt;
}

class NetperfReader : public ReportReader {
public:
    NetperfReader(const ReportLines& lines, const QString& fileName, const NetperfCommand& command,
                  const QString& version)
        : ReportReader(lines, fileName)
        , m_command(command) {
        m_report.version = version;
    }

    bool read(int start);

private:
    QString tool() const override { return kTool; }
    // A last line without its line end may have lost digits, unless it ends
    // in something that cannot be cut short into another valid value.
    bool endsWhole(const QString& lastValue) const {
        return m_lines.at(m_last).terminated || !DecimalNumber::parse(lastValue);
    }
    bool readClassic(int index);
    bool readUdpStreamLines(int index, const QStringList& cells, const QStringList& unitCells);
    bool readCsv(int index);
    bool readKeyValues(int index);
    bool fill();

    NetperfCommand m_command;
    std::map<QString, std::pair<QString, int>> m_values; // selector key -> value, line index
};

bool NetperfReader::read(int start) {
    m_fingerprintFrom = start;
    m_report.commandLine = m_command.text;
    m_report.test = m_command.test;
    m_report.url = m_command.host;
    int index = start;
    if (const auto banner = kBanner.match(m_lines.trimmed(start)); banner.hasMatch()) {
        const QString test = testOfBanner(banner.captured(1), banner.captured(2));
        if (test.isEmpty())
            return refuse(start, QStringLiteral("netperf test '%1 %2' is not one Loadscope imports "
                                                "(%3)")
                                     .arg(banner.captured(1), banner.captured(2),
                                          QLatin1StringView(kImportedTests)));
        m_report.test = test;
        if (!banner.captured(3).isEmpty())
            m_report.url = banner.captured(3);
        mark(start, banner.captured(2) + QStringLiteral(" TEST"));
        index = m_lines.skipBlank(start + 1);
        if (index >= m_lines.size())
            return cutOff();
    }
    const QString first = m_lines.trimmed(index);
    if (kKeyValue.match(first).hasMatch())
        return readKeyValues(index) && fill();
    if (isCsvHeader(first))
        return readCsv(index) && fill();
    if (index == start) // parse() starts only at a banner, a CSV header or a result key
        return refuse(start, QStringLiteral("netperf output not understood"));
    return readClassic(index) && fill();
}

bool NetperfReader::readClassic(int index) {
    // Column titles over up to four lines, the last one the units ("bytes ...").
    int units = -1;
    for (int seen = 0; index < m_lines.size() && seen < 6;
         index = m_lines.skipBlank(index + 1), ++seen) {
        const QString line = m_lines.trimmed(index);
        if (line.startsWith(QLatin1StringView("bytes"))) {
            units = index;
            break;
        }
        mark(index, line);
    }
    if (units < 0)
        return cutOff();
    mark(units, QStringLiteral("bytes"));
    // "per sec" and "% S" are one column each.
    QString normalised = m_lines.trimmed(units);
    normalised.replace(QStringLiteral("per sec"), QStringLiteral("per_sec"));
    normalised.replace(QRegularExpression(QStringLiteral("% (\\w)")), QStringLiteral("%\\1"));
    const QStringList unitCells = ReportLines::fields(normalised);

    index = m_lines.skipBlank(units + 1);
    if (index >= m_lines.size())
        return cutOff();
    const QStringList cells = ReportLines::fields(m_lines.text(index));
    if (cells.size() != unitCells.size()) {
        if (cells.size() < unitCells.size() && !m_lines.at(index).terminated)
            return cutOff();
        return malformed(index, QStringLiteral("result"), m_lines.trimmed(index));
    }
    for (const QString& cell : cells) {
        if (!DecimalNumber::parse(cell))
            return malformed(index, QStringLiteral("result"), cell);
    }
    mark(index, QStringLiteral("result line"));
    if (isUdpStream(m_report.test))
        return readUdpStreamLines(index, cells, unitCells);
    const bool stream = m_report.test == QLatin1StringView("TCP_STREAM");
    if (cells.size() < (stream ? 5 : 6))
        return malformed(index, QStringLiteral("result"), m_lines.trimmed(index));
    m_values[QStringLiteral("ELAPSED_TIME")] = {cells.at(stream ? 3 : 4), index};
    m_values[QStringLiteral("THROUGHPUT")] = {cells.at(stream ? 4 : 5), index};
    m_values[QStringLiteral("THROUGHPUT_UNITS")] = {
        stream ? unitCells.at(4) : QStringLiteral("Trans/s"), units};
    if (!stream) {
        // Request/response tests print the remote socket sizes on a line of their own.
        const int remote = m_lines.skipBlank(index + 1);
        const QStringList sizes =
            remote < m_lines.size() ? ReportLines::fields(m_lines.text(remote)) : QStringList();
        if (sizes.size() != 2 || !DecimalNumber::parseCount(sizes.at(0)) ||
            !DecimalNumber::parseCount(sizes.at(1)))
            return cutOff();
        mark(remote, QStringLiteral("remote socket sizes"));
    }
    return m_lines.at(m_last).terminated ? true : cutOff();
}

bool NetperfReader::readUdpStreamLines(int index, const QStringList& cells,
                                       const QStringList& unitCells) {
    // "Socket Message Elapsed Messages(Okay Errors) Throughput", then the receiver's line:
    // "Socket Elapsed Messages Throughput". Its throughput is what arrived, netperf's figure.
    if (cells.size() != 6 || unitCells.size() != 6)
        return malformed(index, QStringLiteral("result"), m_lines.trimmed(index));
    const int remote = m_lines.skipBlank(index + 1);
    if (remote >= m_lines.size())
        return cutOff();
    const QStringList received = ReportLines::fields(m_lines.text(remote));
    if (received.size() != 4) {
        if (received.size() < 4 && !m_lines.at(remote).terminated)
            return cutOff();
        return malformed(remote, QStringLiteral("receive line"), m_lines.trimmed(remote));
    }
    for (const QString& cell : received) {
        if (!DecimalNumber::parse(cell))
            return malformed(remote, QStringLiteral("receive line"), cell);
    }
    mark(remote, QStringLiteral("receive line"));
    m_values[QStringLiteral("ELAPSED_TIME")] = {cells.at(2), index};
    m_values[QStringLiteral("LOCAL_SEND_CALLS")] = {cells.at(3), index};
    m_values[QStringLiteral("LOCAL_SEND_ERRORS")] = {cells.at(4), index};
    m_values[QStringLiteral("LOCAL_SEND_THROUGHPUT")] = {cells.at(5), index};
    m_values[QStringLiteral("REMOTE_RECV_CALLS")] = {received.at(2), remote};
    m_values[QStringLiteral("THROUGHPUT")] = {received.at(3), remote};
    m_values[QStringLiteral("THROUGHPUT_UNITS")] = {unitCells.at(5), index - 1};
    return m_lines.at(m_last).terminated ? true : cutOff();
}

bool NetperfReader::readCsv(int index) {
    const QStringList titles = splitCsv(m_lines.trimmed(index));
    mark(index, QStringLiteral("CSV header"));
    const int valuesIndex = m_lines.skipBlank(index + 1);
    if (valuesIndex >= m_lines.size())
        return cutOff();
    const QStringList values = splitCsv(m_lines.trimmed(valuesIndex));
    if (values.size() != titles.size()) {
        if (values.size() < titles.size() && !m_lines.at(valuesIndex).terminated)
            return cutOff();
        return malformed(valuesIndex, QStringLiteral("CSV values"), m_lines.trimmed(valuesIndex));
    }
    mark(valuesIndex, QStringLiteral("CSV values"));
    if (!endsWhole(values.last()))
        return cutOff();
    for (qsizetype i = 0; i < titles.size(); ++i) {
        const QString key = keyOfTitle(titles.at(i));
        if (!key.isEmpty())
            m_values[key] = {values.at(i), valuesIndex};
    }
    return true;
}

bool NetperfReader::readKeyValues(int index) {
    QString lastValue;
    for (; index < m_lines.size(); ++index) {
        const auto match = kKeyValue.match(m_lines.trimmed(index));
        if (!match.hasMatch())
            break;
        m_values[match.captured(1)] = {match.captured(2).trimmed(), index};
        lastValue = match.captured(2).trimmed();
        mark(index, match.captured(1));
    }
    if (!endsWhole(lastValue))
        return cutOff();
    // With the selector list typed above the output, a missing key is a cut.
    for (const QString& selector : std::as_const(m_command.selectors)) {
        if (!m_values.count(selector))
            return cutOff();
    }
    return true;
}

bool NetperfReader::fill() {
    PointResult& result = m_report.result;
    const auto numberOf = [this](const char* key) -> std::optional<DecimalNumber> {
        const auto found = m_values.find(QLatin1StringView(key));
        return found == m_values.end() ? std::nullopt : DecimalNumber::parse(found->second.first);
    };
    // Every selected number must be one, so that garbage never imports as 0.
    for (const Selector& selector : kSelectors) {
        const QLatin1StringView key(selector.key);
        const auto found = m_values.find(key);
        if (found == m_values.end() || key == QLatin1StringView("THROUGHPUT_UNITS") ||
            key == QLatin1StringView("PROTOCOL") || key == QLatin1StringView("COMMAND_LINE"))
            continue;
        if (!DecimalNumber::parse(found->second.first))
            return malformed(found->second.second, QString(key), found->second.first);
    }
    const QString units = m_values.count(QStringLiteral("THROUGHPUT_UNITS"))
                              ? m_values.at(QStringLiteral("THROUGHPUT_UNITS")).first
                              : QString();
    if (m_report.test.isEmpty()) {
        if (m_values.count(QStringLiteral("COMMAND_LINE"))) {
            const auto typed =
                ReportLines::command(m_values.at(QStringLiteral("COMMAND_LINE")).first, {kTool});
            if (typed)
                m_report.test = readCommand(*typed).test;
        }
        if (m_report.test.isEmpty() && (units == QLatin1StringView("Trans/s") ||
                                        m_values.count(QStringLiteral("TRANSACTION_RATE"))))
            m_report.test = QStringLiteral("TCP_RR");
        else if (m_report.test.isEmpty() && !units.isEmpty())
            m_report.test = QStringLiteral("TCP_STREAM");
    }
    if (!QString::fromLatin1(kImportedTests).split(QStringLiteral(", ")).contains(m_report.test))
        return refuse(m_last, m_report.test.isEmpty()
                                  ? QStringLiteral("netperf output does not say which test it ran")
                                  : QStringLiteral("netperf test '%1' is not one Loadscope imports "
                                                   "(%2)")
                                        .arg(m_report.test, QLatin1StringView(kImportedTests)));

    const auto throughput = numberOf("THROUGHPUT");
    if (isStreamTest(m_report.test)) {
        if (!throughput)
            return refuse(m_last,
                          QStringLiteral("netperf %1 output has no throughput").arg(m_report.test));
        const QString bitUnits = units.isEmpty() ? QStringLiteral("10^6bits/s") : units;
        const auto mbit = toMbitps(*throughput, bitUnits);
        if (!mbit)
            return malformed(m_values.at(QStringLiteral("THROUGHPUT_UNITS")).second,
                             QStringLiteral("THROUGHPUT_UNITS"), units);
        if (isUdpStream(m_report.test)) {
            // netperf's UDP_STREAM throughput is the receiver's; its send side, when printed,
            // is the local one.
            result.reportedDeliveredMbitps = *mbit;
            if (const auto sent = numberOf("LOCAL_SEND_THROUGHPUT"))
                result.reportedThroughputMbitps = toMbitps(*sent, bitUnits);
            const auto countOf = [this](const char* key) -> std::optional<uint64_t> {
                const auto found = m_values.find(QLatin1StringView(key));
                return found == m_values.end() ? std::nullopt
                                               : DecimalNumber::parseCount(found->second.first);
            };
            result.datagrams.sent = countOf("LOCAL_SEND_CALLS").value_or(0);
            result.datagrams.sendErrors = countOf("LOCAL_SEND_ERRORS").value_or(0);
            result.datagrams.sinkDatagrams = countOf("REMOTE_RECV_CALLS");
        } else {
            result.reportedThroughputMbitps = *mbit;
        }
    } else {
        const bool throughputIsRate =
            throughput && (units.isEmpty() || units == QLatin1StringView("Trans/s"));
        const auto rate = throughputIsRate ? throughput : numberOf("TRANSACTION_RATE");
        if (!rate)
            return refuse(
                m_last,
                QStringLiteral("netperf %1 output has no transaction rate").arg(m_report.test));
        result.reportedRequestsPerSecond = rate->toDouble();
        m_report.keepAlive = m_report.test == QLatin1StringView("TCP_RR");
    }
    // netperf prints no count of transactions or bytes' sends: the count is unknown, as is
    // the run time where ELAPSED_TIME was not asked for.
    result.completeUnknown = true;
    if (const auto elapsed = numberOf("ELAPSED_TIME"))
        result.durationSeconds = elapsed->toDouble();
    else
        result.durationUnknown = true;
    // Latencies are printed in microseconds; netperf prints -1 for one it did not measure.
    const char* negative = nullptr; // a latency below 0 other than netperf's -1
    const auto ms = [&](const char* key) -> std::optional<double> {
        const auto value = numberOf(key);
        if (!value || value->isNegative()) {
            if (value && value->toDouble() != -1 && !negative)
                negative = key;
            return std::nullopt;
        }
        return value->shifted(-3).toDouble();
    };
    result.total.meanMs = ms("MEAN_LATENCY");
    result.total.minMs = ms("MIN_LATENCY");
    result.total.maxMs = ms("MAX_LATENCY");
    result.total.sdMs = ms("STDDEV_LATENCY");
    for (const auto& [key, percent] :
         {std::pair{"P50_LATENCY", 50.0}, std::pair{"P90_LATENCY", 90.0},
          std::pair{"P99_LATENCY", 99.0}}) {
        if (const auto value = ms(key))
            result.total.percentilesMs[percent] = *value;
    }
    if (negative) {
        const QString key = QString::fromLatin1(negative);
        return malformed(m_values.at(key).second, key, m_values.at(key).first);
    }
    if (m_report.commandLine.isEmpty() && m_values.count(QStringLiteral("COMMAND_LINE")))
        m_report.commandLine = m_values.at(QStringLiteral("COMMAND_LINE")).first;

    m_report.concurrency = 1; // one connection (a new one per transaction for TCP_CRR)
    m_report.threads = 1;
    result.concurrency = 1;
    result.threads = 1;
    return true;
}

} // namespace

ImportResult NetperfReportParser::parse(const ReportLines& lines, const QString& fileName) {
    QList<ImportedReport> result;
    NetperfCommand command;
    int commandIndex = -1;
    QString version;
    int floor = 0; // first line after the previous report
    for (int index = 0; index < lines.size(); ++index) {
        const QString line = lines.trimmed(index);
        if (const auto typed = ReportLines::command(lines.text(index), {kTool})) {
            command = readCommand(*typed);
            commandIndex = index;
            continue;
        }
        if (const auto printed = line.startsWith(QLatin1StringView("Netperf "))
                                     ? kVersion.match(line)
                                     : QRegularExpressionMatch();
            printed.hasMatch()) {
            version = printed.captured(1);
            continue;
        }
        const bool banner =
            line.contains(QLatin1StringView(" TEST")) && kBanner.match(line).hasMatch();
        if (!banner && !isCsvHeader(line) && !isResultKey(line)) {
            if (!line.isEmpty() && commandIndex >= 0) {
                command = NetperfCommand{};
                commandIndex = -1;
            }
            continue;
        }
        // A KEY=VALUE block printed without a banner starts at its first key,
        // which need not be a result one.
        if (!banner && isResultKey(line)) {
            while (index > floor && kKeyValue.match(lines.trimmed(index - 1)).hasMatch())
                --index;
        }
        NetperfReader reader(lines, fileName, command, version);
        if (!reader.read(index))
            return reader.error();
        reader.report().firstLine = lines.number(commandIndex >= 0 ? commandIndex : index);
        result.append(reader.finish());
        index = reader.lastIndex();
        floor = index + 1;
        command = NetperfCommand{};
        commandIndex = -1;
    }
    return result;
}

} // namespace loadscope::app
