#include "app/import/wrk_report_parser.h"

#include "app/import/decimal_number.h"
#include "app/import/report_lines.h"
#include "app/import/report_reader.h"

#include <QRegularExpression>

namespace loadscope::app {

namespace {

const QRegularExpression kRunning = pattern("^Running (\\S+) test @ (\\S+)$");
const QRegularExpression kThreads = pattern("^(\\d+) threads and (\\d+) connections$");
const QRegularExpression kCalibration = pattern("^Thread calibration: ");
const QRegularExpression kStatsHeader = pattern("^Thread Stats +Avg +Stdev +Max +\\+/- Stdev$");
const QRegularExpression kStatsRow =
    pattern("^(Latency|Req/Sec) +(\\S+) +(\\S+) +(\\S+) +(\\S+)%$");
const QRegularExpression kDistribution = pattern("^Latency Distribution$");
const QRegularExpression kHdrDistribution =
    pattern("^Latency Distribution \\(HdrHistogram - (Recorded|Uncorrected) Latency");
const QRegularExpression kPercentRow = pattern("^(\\d+(?:\\.\\d+)?)% +(\\S+)$");
const QRegularExpression kSpectrumTitle = pattern("^Detailed Percentile spectrum:$");
const QRegularExpression kSpectrumHeader =
    pattern("^Value +Percentile +TotalCount +1/\\(1-Percentile\\)$");
const QRegularExpression kSpectrumRow = pattern("^(\\S+) +(\\S+) +(\\d+) +(\\S+)$");
const QRegularExpression kMeanFooter = pattern("^#\\[Mean += +(\\S+), StdDeviation += +(\\S+)\\]$");
const QRegularExpression kMaxFooter = pattern("^#\\[Max += +(\\S+), Total count += +(\\d+)\\]$");
const QRegularExpression kBucketsFooter = pattern("^#\\[Buckets += +\\d+, SubBuckets += +\\d+\\]$");
const QRegularExpression kRule = pattern("^-{10,}$");
const QRegularExpression kTotals = pattern("^(\\d+) requests in (\\S+), (\\S+) read$");
const QRegularExpression kSocketErrors =
    pattern("^Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)$");
const QRegularExpression kNon2xx = pattern("^Non-2xx or 3xx responses: (\\d+)$");
const QRegularExpression kRequestsPerSecond = pattern("^Requests/sec: +(\\S+)$");
const QRegularExpression kTransferPerSecond = pattern("^Transfer/sec: +(\\S+)$");
const QRegularExpression kVersion = pattern("^wrk (\\S+) \\[\\w+\\] Copyright");

bool commandIsWrk2(const ReportLines::Command& command) {
    if (command.program == QLatin1StringView("wrk2"))
        return true;
    for (const QString& word : command.words) {
        if (word == QLatin1StringView("-R") || word.startsWith(QLatin1StringView("--rate")) ||
            (word.startsWith(QLatin1StringView("-R")) && word.size() > 2))
            return true;
    }
    return false;
}

// The offered rate of a wrk2 command: -R2000, -R 2000, --rate 2000,
// --rate=2000; wrk2 reads it with k/M/G suffixes as it does counts.
std::optional<double> commandRate(const ReportLines::Command& command) {
    const QStringList& words = command.words;
    for (qsizetype i = 0; i < words.size(); ++i) {
        const QString& word = words.at(i);
        QString value;
        if (word == QLatin1StringView("-R") || word == QLatin1StringView("--rate"))
            value = i + 1 < words.size() ? words.at(i + 1) : QString();
        else if (word.startsWith(QLatin1StringView("--rate=")))
            value = word.mid(7);
        else if (word.startsWith(QLatin1StringView("-R")))
            value = word.mid(2);
        else
            continue;
        const auto rate = DecimalNumber::wrkCount(value);
        return rate && rate->toDouble() > 0 ? std::optional<double>(rate->toDouble())
                                            : std::nullopt;
    }
    return std::nullopt;
}

class WrkReader : public ReportReader {
public:
    using ReportReader::ReportReader;

    bool read(int start, const std::optional<ReportLines::Command>& command, int commandIndex,
              const QString& version);

private:
    QString tool() const override {
        return m_wrk2 ? QStringLiteral("wrk2") : QStringLiteral("wrk");
    }
    bool readStats(int& index);
    bool readPlainDistribution(int& index);
    bool readHdrDistribution(int& index, LatencySummary& summary);
    bool readTotals(int& index);

    bool m_wrk2 = false;
    std::optional<double> m_rate;
};

bool WrkReader::read(int start, const std::optional<ReportLines::Command>& command,
                     int commandIndex, const QString& version) {
    if (command) {
        m_report.commandLine = command->text;
        m_wrk2 = commandIsWrk2(*command);
        m_rate = commandRate(*command);
    }
    m_report.firstLine = m_lines.number(command ? commandIndex : start);
    m_fingerprintFrom = start;
    m_report.version = version;
    const auto running = kRunning.match(m_lines.trimmed(start));
    m_report.url = running.captured(2);
    mark(start, QStringLiteral("Running %1 test").arg(running.captured(1)));

    int index = start;
    const auto threads = kThreads.match(next(index));
    if (!threads.hasMatch())
        return cutOff();
    const auto threadCount = DecimalNumber::parseCount(threads.captured(1));
    const auto connections = DecimalNumber::parseCount(threads.captured(2));
    if (!threadCount || !connections || *connections == 0 || *connections > 10'000'000)
        return malformed(index, QStringLiteral("connections"), threads.captured(2));
    m_report.threads = static_cast<int>(*threadCount);
    m_report.concurrency = static_cast<int>(*connections);
    mark(index, QStringLiteral("threads and connections"));

    if (!readStats(index))
        return false;
    // The optional distributions, in the order wrk and wrk2 print them.
    for (QString line = next(index); !kTotals.match(line).hasMatch(); line = next(index)) {
        if (kDistribution.match(line).hasMatch()) {
            mark(index, line);
            if (!readPlainDistribution(index))
                return false;
        } else if (const auto hdr = kHdrDistribution.match(line); hdr.hasMatch()) {
            m_wrk2 = true;
            mark(index, QStringLiteral("Latency Distribution"));
            const bool recorded = hdr.captured(1) == QLatin1StringView("Recorded");
            if (!readHdrDistribution(index, recorded ? m_report.result.total
                                                     : m_report.result.uncorrected))
                return false;
        } else {
            return cutOff();
        }
    }
    if (!readTotals(index))
        return false;
    m_report.keepAlive = true; // wrk keeps every connection open
    m_report.result.concurrency = *m_report.concurrency;
    m_report.result.threads = *m_report.threads;
    // wrk2 sends on a schedule and prints the corrected latency first.
    if (m_wrk2) {
        m_report.result.loadModel = LoadModel::FixedRate;
        m_report.result.offeredRate = m_rate;
    }
    return true;
}

bool WrkReader::readStats(int& index) {
    QString line = next(index);
    while (kCalibration.match(line).hasMatch()) {
        m_wrk2 = true;
        mark(index, QStringLiteral("Thread calibration"));
        line = next(index);
    }
    if (!kStatsHeader.match(line).hasMatch())
        return cutOff();
    mark(index, QStringLiteral("Thread Stats"));

    const auto latency = kStatsRow.match(next(index));
    if (!latency.hasMatch() || latency.captured(1) != QLatin1StringView("Latency"))
        return cutOff();
    LatencySummary& total = m_report.result.total;
    // wrk prints "-nan" for the spread of a run without responses.
    for (int column : {2, 3, 4}) {
        const QString text = latency.captured(column);
        if (text.endsWith(QLatin1StringView("nan")))
            continue;
        const auto value = DecimalNumber::wrkTimeMs(text);
        if (!value)
            return malformed(index, QStringLiteral("Latency"), text);
        (column == 2 ? total.meanMs : column == 3 ? total.sdMs : total.maxMs) = value->toDouble();
    }
    mark(index, QStringLiteral("Latency"));

    const auto rate = kStatsRow.match(next(index));
    if (!rate.hasMatch() || rate.captured(1) != QLatin1StringView("Req/Sec"))
        return cutOff();
    for (int column : {2, 3, 4}) {
        const QString text = rate.captured(column);
        if (!text.endsWith(QLatin1StringView("nan")) && !DecimalNumber::wrkCount(text))
            return malformed(index, QStringLiteral("Req/Sec"), text);
    }
    mark(index, QStringLiteral("Req/Sec"));
    return true;
}

bool WrkReader::readPlainDistribution(int& index) {
    int rows = 0;
    for (int peek = index;; ++rows) {
        const auto row = kPercentRow.match(next(peek));
        if (!row.hasMatch())
            break;
        index = peek;
        const auto value = DecimalNumber::wrkTimeMs(row.captured(2));
        const auto percent = DecimalNumber::parseDouble(row.captured(1));
        if (!value || !percent)
            return malformed(index, row.captured(1) + QLatin1Char('%'), row.captured(2));
        m_report.result.total.percentilesMs[*percent] = value->toDouble();
        mark(index, row.captured(1) + QLatin1Char('%'));
    }
    return rows > 0 ? true : cutOff();
}

bool WrkReader::readHdrDistribution(int& index, LatencySummary& summary) {
    QString line = next(index);
    for (; kPercentRow.match(line).hasMatch(); line = next(index)) {
        const auto row = kPercentRow.match(line);
        const auto value = DecimalNumber::wrkTimeMs(row.captured(2));
        const auto percent = DecimalNumber::parseDouble(row.captured(1));
        if (!value || !percent)
            return malformed(index, row.captured(1) + QLatin1Char('%'), row.captured(2));
        summary.percentilesMs[*percent] = value->toDouble();
        mark(index, row.captured(1) + QLatin1Char('%'));
    }
    if (!kSpectrumTitle.match(line).hasMatch())
        return cutOff();
    mark(index, QStringLiteral("Detailed Percentile spectrum"));
    if (!kSpectrumHeader.match(next(index)).hasMatch())
        return cutOff();
    mark(index, QStringLiteral("Value Percentile TotalCount"));

    // Spectrum rows hold values in milliseconds and the percentile as a
    // fraction; the summary rows above keep their own (unit-suffixed) figures.
    line = next(index);
    int rows = 0;
    for (; kSpectrumRow.match(line).hasMatch(); line = next(index), ++rows) {
        const auto row = kSpectrumRow.match(line);
        const auto value = DecimalNumber::parse(row.captured(1));
        const auto fraction = DecimalNumber::parse(row.captured(2));
        const QString inverse = row.captured(4);
        if (!value || !fraction ||
            (inverse != QLatin1StringView("inf") && !DecimalNumber::parse(inverse)))
            return malformed(index, QStringLiteral("percentile spectrum"), line);
        const double percent = fraction->shifted(2).toDouble();
        if (percent > 100)
            return malformed(index, QStringLiteral("percentile spectrum"), line);
        if (percent == 0)
            summary.minMs = value->toDouble();
        else if (!summary.percentilesMs.count(percent) && percent <= 100)
            summary.percentilesMs[percent] = value->toDouble();
        mark(index, QStringLiteral("percentile spectrum"));
    }
    const auto mean = kMeanFooter.match(line);
    if (rows == 0 || !mean.hasMatch())
        return cutOff();
    const auto meanValue = DecimalNumber::parseDouble(mean.captured(1));
    const auto sdValue = DecimalNumber::parseDouble(mean.captured(2));
    if (!meanValue || !sdValue)
        return malformed(index, QStringLiteral("Mean"), line);
    summary.meanMs = meanValue;
    summary.sdMs = sdValue;
    mark(index, QStringLiteral("#[Mean"));
    const auto max = kMaxFooter.match(next(index));
    if (!max.hasMatch())
        return cutOff();
    const auto maxValue = DecimalNumber::parseDouble(max.captured(1));
    if (!maxValue)
        return malformed(index, QStringLiteral("Max"), max.captured(1));
    summary.maxMs = maxValue;
    mark(index, QStringLiteral("#[Max"));
    if (!kBucketsFooter.match(next(index)).hasMatch())
        return cutOff();
    mark(index, QStringLiteral("#[Buckets"));
    if (!kRule.match(next(index)).hasMatch())
        return cutOff();
    mark(index, QStringLiteral("----"));
    return true;
}

bool WrkReader::readTotals(int& index) {
    PointResult& result = m_report.result;
    const auto totals = kTotals.match(m_lines.trimmed(index));
    const auto complete = DecimalNumber::parseCount(totals.captured(1));
    const auto runtimeMs = DecimalNumber::wrkTimeMs(totals.captured(2));
    const auto bytes = DecimalNumber::wrkBytes(totals.captured(3));
    if (!complete || !runtimeMs || !bytes || !bytes->toUInt64())
        return malformed(index, QStringLiteral("requests in"), m_lines.trimmed(index));
    result.complete = *complete;
    result.durationSeconds = runtimeMs->shifted(-3).toDouble();
    result.bytesTotal = *bytes->toUInt64();
    mark(index, QStringLiteral("requests in"));

    QString line = next(index);
    if (const auto errors = kSocketErrors.match(line); errors.hasMatch()) {
        const engine::ErrorClass kinds[] = {engine::ErrorClass::Connect,
                                            engine::ErrorClass::Receive, engine::ErrorClass::Write,
                                            engine::ErrorClass::Timeout};
        for (int i = 0; i < 4; ++i) {
            const auto value = DecimalNumber::parseCount(errors.captured(i + 1));
            if (!value)
                return malformed(index, QStringLiteral("Socket errors"), line);
            result.errors[static_cast<size_t>(kinds[i])] = *value;
            // wrk counts errors, not failed requests; their sum is the nearest figure.
            result.failed += *value;
        }
        mark(index, QStringLiteral("Socket errors"));
        line = next(index);
    }
    if (const auto non2xx = kNon2xx.match(line); non2xx.hasMatch()) {
        const auto count = DecimalNumber::parseCount(non2xx.captured(1));
        if (!count)
            return malformed(index, QStringLiteral("Non-2xx or 3xx responses"), non2xx.captured(1));
        result.non2xx = *count;
        mark(index, QStringLiteral("Non-2xx or 3xx responses"));
        line = next(index);
    }
    const auto rps = kRequestsPerSecond.match(line);
    if (!rps.hasMatch())
        return cutOff();
    const auto rpsValue = DecimalNumber::parse(rps.captured(1));
    // "%9.2Lf": fewer than two decimals means the line lost its end.
    if (!rpsValue || rpsValue->printedDecimals() != 2)
        return malformed(index, QStringLiteral("Requests/sec"), rps.captured(1));
    result.reportedRequestsPerSecond = rpsValue->toDouble();
    mark(index, QStringLiteral("Requests/sec"));

    const auto transfer = kTransferPerSecond.match(next(index));
    if (!transfer.hasMatch())
        return cutOff();
    const auto transferBytes = DecimalNumber::wrkBytes(transfer.captured(1));
    if (!transferBytes)
        return malformed(index, QStringLiteral("Transfer/sec"), transfer.captured(1));
    // KiB exactly: 1/1024 = 0.0009765625.
    result.reportedTransferKiBps = transferBytes->scaled(9765625, -10).toDouble();
    mark(index, QStringLiteral("Transfer/sec"));
    return true;
}

} // namespace

ImportResult WrkReportParser::parse(const ReportLines& lines, const QString& fileName) {
    return readReports<WrkReader>(
        lines, fileName, {QStringLiteral("wrk"), QStringLiteral("wrk2")},
        [](const QString& line, QString& version) {
            if (line.startsWith(QLatin1StringView("wrk "))) {
                if (const auto printed = kVersion.match(line); printed.hasMatch()) {
                    version = printed.captured(1);
                    return LineRole::Preamble;
                }
            }
            return line.startsWith(QLatin1StringView("Running ")) && kRunning.match(line).hasMatch()
                       ? LineRole::Start
                       : LineRole::Other;
        });
}

} // namespace loadscope::app
