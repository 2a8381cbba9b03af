#include "app/report/memtier_report.h"

#include "app/common/printable_text.h"
#include "app/report/ab_report.h"
#include "app/report/result_json.h"
#include "engine/run_rates.h"

#include <QStringList>
#include <algorithm>
#include <limits>

namespace loadscope::app {

namespace {

using engine::ErrorClass;
using engine::Histogram;
using engine::OperationStats;
using engine::RunResult;

constexpr double kNsPerMs = 1e6;
constexpr int kTypeWidth = 10;
constexpr int kColumnWidth = 14;

const OperationStats* operation(const RunResult& r, uint8_t index) {
    return index < r.operations.size() ? &r.operations[index] : nullptr;
}

uint64_t decimalDigits(uint64_t value) {
    uint64_t digits = 1;
    while (value >= 10) {
        value /= 10;
        ++digits;
    }
    return digits;
}

// Mean decimal length of the keys in [minimum, maximum], as if drawn uniformly.
double meanKeyDigits(uint64_t minimum, uint64_t maximum) {
    double weighted = 0;
    uint64_t low = 0;
    uint64_t high = 9;
    for (int digits = 1; digits <= 20; ++digits) {
        const uint64_t from = std::max(low, minimum);
        const uint64_t to = std::min(high, maximum);
        if (from <= to)
            weighted += (double(to - from) + 1) * digits;
        if (high >= maximum)
            break;
        low = high + 1;
        high = high > std::numeric_limits<uint64_t>::max() / 10
                   ? std::numeric_limits<uint64_t>::max()
                   : high * 10 + 9;
    }
    return weighted / (double(maximum - minimum) + 1);
}

// Share of the bytes on the wire that belong to the sets, from each command's
// and reply's length in the text protocol.
double setWireShare(const RunResult& r, const engine::MemcacheSpec& w) {
    const OperationStats* sets = operation(r, engine::kMemcacheSetOperation);
    const OperationStats* gets = operation(r, engine::kMemcacheGetOperation);
    const double setCount = sets ? double(sets->count) : 0;
    const double getCount = gets ? double(gets->count) : 0;
    const double hits = gets ? double(gets->hits) : 0;
    const double key = double(w.keyPrefix.size()) + meanKeyDigits(w.keyMinimum, w.keyMaximum);
    const double value = w.valueSize;
    const double setTail =
        3.0 +
        double(decimalDigits(w.flags) + decimalDigits(w.expiry) + decimalDigits(w.valueSize)) + 2;
    const double setBytes = setCount * (4 + key + setTail + value + 2 + 8); // + "STORED\r\n"
    const double valueLine =
        6 + key + 1 + double(decimalDigits(w.flags)) + 1 + double(decimalDigits(w.valueSize)) + 2;
    const double getBytes = getCount * (4 + key + 2 + 5) + hits * (valueLine + value + 2);
    return setBytes + getBytes > 0 ? setBytes / (setBytes + getBytes) : 0;
}

QString rate(double count, double seconds) {
    return QString::number(engine::rates::perSecond(count, seconds), 'f', 2);
}

QString msCell(double ns) {
    return QString::number(ns / kNsPerMs, 'f', 5);
}

QString tableRow(const QString& type, const QStringList& cells) {
    QString row = type.leftJustified(kTypeWidth);
    for (const QString& cell : cells)
        row += cell.rightJustified(kColumnWidth);
    return row + QLatin1Char('\n');
}

QStringList latencyCells(const Histogram& h) {
    return {msCell(h.mean()), msCell(double(h.valueAtPercentile(50))),
            msCell(double(h.valueAtPercentile(99))), msCell(double(h.valueAtPercentile(99.9)))};
}

QString allStatsTable(const MemcacheRunReport& report, const MemcacheRunSetup& setup) {
    const RunResult& r = report.result;
    const double seconds = r.durationSeconds;
    const double kib = (double(r.bytesSent) + double(r.bytesTotal)) / 1024.0;
    const double setShare = setWireShare(r, setup.workload);
    const QString none = QStringLiteral("---");

    QString out = QStringLiteral("ALL STATS\n");
    const QStringList titles{QStringLiteral("Ops/sec"),       QStringLiteral("Hits/sec"),
                             QStringLiteral("Misses/sec"),    QStringLiteral("Avg. Latency"),
                             QStringLiteral("p50 Latency"),   QStringLiteral("p99 Latency"),
                             QStringLiteral("p99.9 Latency"), QStringLiteral("KB/sec")};
    const QString header = tableRow(QStringLiteral("Type"), titles);
    const QString rule = QString(header.size() - 1, QLatin1Char('='));
    out += rule + QLatin1Char('\n') + header;
    out += QString(header.size() - 1, QLatin1Char('-')) + QLatin1Char('\n');

    const OperationStats empty;
    const OperationStats* sets = operation(r, engine::kMemcacheSetOperation);
    const OperationStats* gets = operation(r, engine::kMemcacheGetOperation);
    if (!sets)
        sets = &empty;
    if (!gets)
        gets = &empty;
    out += tableRow(QStringLiteral("Sets"),
                    QStringList{rate(double(sets->count), seconds), none, none}
                        << latencyCells(sets->latency) << rate(kib * setShare, seconds));
    out +=
        tableRow(QStringLiteral("Gets"),
                 QStringList{rate(double(gets->count), seconds), rate(double(gets->hits), seconds),
                             rate(double(gets->misses), seconds)}
                     << latencyCells(gets->latency) << rate(kib * (1 - setShare), seconds));
    out += tableRow(QStringLiteral("Totals"),
                    QStringList{rate(double(r.successful()), seconds),
                                rate(double(r.hits), seconds), rate(double(r.misses), seconds)}
                        << latencyCells(r.total) << rate(kib, seconds));
    return out;
}

QString describeRun(const MemcacheRunSetup& s, const RunResult& r) {
    const engine::MemcacheSpec& w = s.workload;
    const auto count = [](uint64_t n, const char* one, const char* many) {
        return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
    };
    QString out =
        QStringLiteral("memcached text protocol to %1: %2 x %3 = %4, pipeline %5\n")
            .arg(s.server, count(s.threads, "thread", "threads"),
                 count(s.clientsPerThread, "client", "clients"),
                 count(uint64_t(s.threads) * s.clientsPerThread, "connection", "connections"))
            .arg(s.pipeline);
    out += QStringLiteral("set:get ratio %1:%2, key pattern %3:%4 over %5%6..%7, %8-byte values\n")
               .arg(w.setRatio)
               .arg(w.getRatio)
               .arg(QLatin1Char(engine::keyPatternLetter(w.setKeyPattern)))
               .arg(QLatin1Char(engine::keyPatternLetter(w.getKeyPattern)))
               .arg(printableText(w.keyPrefix))
               .arg(w.keyMinimum)
               .arg(w.keyMaximum)
               .arg(w.valueSize);
    if (s.preload) {
        out += QStringLiteral("Preloaded %1 keys in %2 s")
                   .arg(s.preload->keys)
                   .arg(s.preload->seconds, 0, 'f', 2);
        if (s.preload->failed > 0)
            out += QStringLiteral(" (%1 sets failed: %2)")
                       .arg(s.preload->failed)
                       .arg(printableText(s.preload->firstError));
        out += QLatin1Char('\n');
    }
    if (s.requestsPerClient > 0)
        out += QStringLiteral("%1 requests (%2 per client) in %3 s\n")
                   .arg(r.complete)
                   .arg(s.requestsPerClient)
                   .arg(r.durationSeconds, 0, 'f', 2);
    else
        out += QStringLiteral("%1 requests in %2 s\n")
                   .arg(r.complete)
                   .arg(r.durationSeconds, 0, 'f', 2);
    return out;
}

QString failures(const MemcacheRunReport& report) {
    const RunResult& r = report.result;
    const auto errors = [&](ErrorClass c) {
        return r.errors[size_t(c)];
    };
    QString out;
    if (r.failed > 0) {
        out += QStringLiteral("Failed: %1 (Connect: %2, Receive: %3, Exceptions: %4, Timeouts: "
                              "%5, Write: %6)\n")
                   .arg(r.failed)
                   .arg(errors(ErrorClass::Connect))
                   .arg(errors(ErrorClass::Receive))
                   .arg(errors(ErrorClass::Exception))
                   .arg(errors(ErrorClass::Timeout))
                   .arg(errors(ErrorClass::Write));
    }
    const ErrorReplyCounts& e = report.errorReplies;
    if (e.total() > 0) {
        out += QStringLiteral("Error replies: %1 (ERROR: %2, CLIENT_ERROR: %3, SERVER_ERROR: %4), "
                              "counted in Exceptions\n")
                   .arg(e.total())
                   .arg(e.error)
                   .arg(e.clientError)
                   .arg(e.serverError);
    }
    if (!r.firstError.empty()) {
        const QString first = printableText(r.firstError);
        const bool reply = first.startsWith(QLatin1String("ERROR")) ||
                           first.startsWith(QLatin1String("CLIENT_ERROR")) ||
                           first.startsWith(QLatin1String("SERVER_ERROR"));
        out += (reply ? QStringLiteral("First error reply: ") : QStringLiteral("First error: ")) +
               first + QLatin1Char('\n');
    }
    return out;
}

} // namespace

QString formatMemtierReport(const MemcacheRunReport& report, const MemcacheRunSetup& setup) {
    const RunResult& r = report.result;
    QString out = QLatin1String("\n") + describeRun(setup, r) + QLatin1Char('\n');
    out += allStatsTable(report, setup);
    out += QLatin1Char('\n');
    const uint64_t lookups = r.hits + r.misses;
    if (lookups > 0)
        out += QStringLiteral("Gets: %1 hits, %2 misses (%3% hit)\n")
                   .arg(r.hits)
                   .arg(r.misses)
                   .arg(100.0 * double(r.hits) / double(lookups), 0, 'f', 1);
    else
        out += QStringLiteral("Gets: none answered\n");
    out += failures(report);
    out += QStringLiteral("Threads: %1 (%2), client CPU %3 s, %4% of the threads' time\n")
               .arg(r.threads)
               .arg(threadPlacement(r))
               .arg(r.clientCpuSeconds, 0, 'f', 2)
               .arg(qRound(r.clientCpuLoad() * 100));
    if (r.cancelled)
        out += QStringLiteral("The run was cancelled; the figures cover the part that ran.\n");
    return out;
}

void addMemcacheSetupJson(QJsonObject& o, const MemcacheRunSetup& setup) {
    const engine::MemcacheSpec& w = setup.workload;
    o[QStringLiteral("server")] = setup.server;
    o[QStringLiteral("clients_per_thread")] = double(setup.clientsPerThread);
    o[QStringLiteral("pipeline")] = double(setup.pipeline);
    o[QStringLiteral("requests_per_client")] = double(setup.requestsPerClient);
    o[QStringLiteral("test_time_s")] = setup.testTimeSeconds;
    o[QStringLiteral("ratio")] = QStringLiteral("%1:%2").arg(w.setRatio).arg(w.getRatio);
    o[QStringLiteral("key_pattern")] =
        QStringLiteral("%1:%2")
            .arg(QLatin1Char(engine::keyPatternLetter(w.setKeyPattern)))
            .arg(QLatin1Char(engine::keyPatternLetter(w.getKeyPattern)));
    o[QStringLiteral("key_minimum")] = double(w.keyMinimum);
    o[QStringLiteral("key_maximum")] = double(w.keyMaximum);
    o[QStringLiteral("key_prefix")] = QString::fromStdString(w.keyPrefix);
    o[QStringLiteral("data_size")] = double(w.valueSize);
    if (setup.preload) {
        o[QStringLiteral("preload")] =
            QJsonObject{{QStringLiteral("keys"), double(setup.preload->keys)},
                        {QStringLiteral("seconds"), setup.preload->seconds},
                        {QStringLiteral("failed"), double(setup.preload->failed)}};
    }
}

QJsonObject memcacheResultJson(PointResult result, const ErrorReplyCounts& errorReplies,
                               const MemcacheRunSetup& setup) {
    CliResultContext context;
    context.protocol = TargetProtocol::Memcache;
    context.memcache = setup;
    result.errorReplies =
        ErrorReplies{errorReplies.error, errorReplies.clientError, errorReplies.serverError};
    return cliResultJson(result, context);
}

} // namespace loadscope::app
