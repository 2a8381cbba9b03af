#pragma once

// Checks shared by the import suites: each compares an imported report with
// the numbers printed in the tool's own text, read back here independently
// with one regular expression per line (never with the parsers under test).

#include "app/common/result.h"
#include "app/import/imported_report.h"

#include <QFile>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QTest>
#include <cmath>

namespace import_test {

using loadscope::app::ImportedReport;
using loadscope::app::LatencySummary;
using loadscope::app::PointResult;

// The error line of a refused import, or empty when it succeeded: for the
// messages of QVERIFY2, which are built whether or not the check fails.
template <typename T> QString errorText(const loadscope::app::Result<T>& result) {
    return result ? QString() : result.error().toString();
}

inline QByteArray readFixture(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

// The lines [firstLine, lastLine] (1-based) of `text`.
inline QString reportText(const QString& text, const ImportedReport& report) {
    const QStringList lines = text.split(QRegularExpression(QStringLiteral("\r\n|\n")));
    return lines.mid(report.firstLine - 1, report.lastLine - report.firstLine + 1)
        .join(QLatin1Char('\n'));
}

inline QRegularExpressionMatch find(const QString& text, const char* pattern) {
    return QRegularExpression(QString::fromLatin1(pattern), QRegularExpression::MultilineOption)
        .match(text);
}

// Milliseconds from wrk's "540.00us", "1.23ms", "2.34s", "1.50m".
inline double wrkMs(const QString& number, const QString& unit) {
    const double value = number.toDouble();
    if (unit == QLatin1String("us"))
        return value / 1000.0;
    if (unit == QLatin1String("s"))
        return value * 1000.0;
    if (unit == QLatin1String("m"))
        return value * 60000.0;
    return value;
}

inline double wrkBytes(const QString& number, const QString& unit) {
    const QString prefixes = QStringLiteral("KMGTP");
    const qsizetype power = unit.size() == 2 ? prefixes.indexOf(unit.at(0)) + 1 : 0;
    return number.toDouble() * std::pow(1024.0, static_cast<double>(power));
}

inline bool close(double a, double b) {
    return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

// Every number of an ab report against the printed text. Rates and counts
// must be bit-identical to the printed decimal read as a double.
inline void checkAbAgainstText(const ImportedReport& report, const QString& text) {
    const PointResult& r = report.result;
    QCOMPARE(report.tool, QStringLiteral("ab"));
    QCOMPARE(r.concurrency, find(text, "^Concurrency Level: +(\\d+)$").captured(1).toInt());
    QCOMPARE(r.complete, find(text, "^Complete requests: +(\\d+)$").captured(1).toULongLong());
    QCOMPARE(r.failed, find(text, "^Failed requests: +(\\d+)$").captured(1).toULongLong());
    QCOMPARE(r.bytesTotal,
             find(text, "^Total transferred: +(\\d+) bytes$").captured(1).toULongLong());
    QCOMPARE(r.bytesBody,
             find(text, "^HTML transferred: +(\\d+) bytes$").captured(1).toULongLong());
    QCOMPARE(r.serverSoftware, find(text, "^Server Software: +(\\S*)$").captured(1));
    QVERIFY(r.durationSeconds ==
            find(text, "^Time taken for tests: +([\\d.]+) seconds$").captured(1).toDouble());
    QVERIFY(r.reportedRequestsPerSecond);
    QVERIFY(*r.reportedRequestsPerSecond ==
            find(text, "^Requests per second: +([\\d.]+) \\[#/sec\\]").captured(1).toDouble());
    QVERIFY(r.reportedTransferKiBps);
    QVERIFY(*r.reportedTransferKiBps ==
            find(text, "^Transfer rate: +([\\d.]+) \\[Kbytes/sec\\]").captured(1).toDouble());
    const auto length = find(text, "^Document Length: +(\\d+) bytes$");
    QCOMPARE(r.documentLength, length.hasMatch() ? length.captured(1).toLongLong() : -1);
    const auto keepAlive = find(text, "^Keep-Alive requests: +(\\d+)$");
    QCOMPARE(r.keepAlive, keepAlive.hasMatch() ? keepAlive.captured(1).toULongLong() : 0);
    const auto non2xx = find(text, "^Non-2xx responses: +(\\d+)$");
    QCOMPARE(r.non2xx, non2xx.hasMatch() ? non2xx.captured(1).toULongLong() : 0);

    const std::pair<const char*, const LatencySummary*> rows[] = {{"Connect", &r.connect},
                                                                  {"Processing", &r.processing},
                                                                  {"Waiting", &r.waiting},
                                                                  {"Total", &r.total}};
    for (const auto& [name, summary] : rows) {
        const auto row =
            QRegularExpression(QStringLiteral("^%1: +(\\d+) +(\\d+) +([\\d.]+) +(\\d+) +(\\d+)$")
                                   .arg(QLatin1String(name)),
                               QRegularExpression::MultilineOption)
                .match(text);
        QVERIFY2(row.hasMatch(), name);
        QCOMPARE(summary->minMs.value_or(-1), row.captured(1).toDouble());
        QCOMPARE(summary->meanMs.value_or(-1), row.captured(2).toDouble());
        QCOMPARE(summary->sdMs.value_or(-1), row.captured(3).toDouble());
        QCOMPARE(summary->maxMs.value_or(-1), row.captured(5).toDouble());
        if (summary != &r.total)
            QCOMPARE(summary->percentile(50).value_or(-1), row.captured(4).toDouble());
    }
    auto rowsOfTable = QRegularExpression(QStringLiteral("^ *(\\d+)% +(\\d+)"),
                                          QRegularExpression::MultilineOption)
                           .globalMatch(text);
    int percentiles = 0;
    while (rowsOfTable.hasNext()) {
        const auto row = rowsOfTable.next();
        QCOMPARE(r.total.percentile(row.captured(1).toDouble()).value_or(-1),
                 row.captured(2).toDouble());
        ++percentiles;
    }
    QCOMPARE(percentiles, 9);
    QCOMPARE(static_cast<int>(r.total.percentilesMs.size()), 9);
}

inline void checkWrkAgainstText(const ImportedReport& report, const QString& text) {
    const PointResult& r = report.result;
    QCOMPARE(report.tool, QStringLiteral("wrk"));
    const auto threads = find(text, "^ +(\\d+) threads and (\\d+) connections$");
    QCOMPARE(r.threads, threads.captured(1).toInt());
    QCOMPARE(r.concurrency, threads.captured(2).toInt());
    QCOMPARE(report.url, find(text, "^Running \\S+ test @ (\\S+)$").captured(1));
    const auto latency = find(text, "^ +Latency +([\\d.]+)(us|ms|s) +([\\d.]+)(us|ms|s) +"
                                    "([\\d.]+)(us|ms|s) +[\\d.]+%$");
    QVERIFY(latency.hasMatch());
    QVERIFY(close(r.total.meanMs.value_or(-1), wrkMs(latency.captured(1), latency.captured(2))));
    QVERIFY(close(r.total.sdMs.value_or(-1), wrkMs(latency.captured(3), latency.captured(4))));
    QVERIFY(close(r.total.maxMs.value_or(-1), wrkMs(latency.captured(5), latency.captured(6))));
    auto distribution = QRegularExpression(QStringLiteral("^ +(\\d+)% +([\\d.]+)(us|ms|s)$"),
                                           QRegularExpression::MultilineOption)
                            .globalMatch(text);
    int rows = 0;
    while (distribution.hasNext()) {
        const auto row = distribution.next();
        QVERIFY(close(r.total.percentile(row.captured(1).toDouble()).value_or(-1),
                      wrkMs(row.captured(2), row.captured(3))));
        ++rows;
    }
    QCOMPARE(static_cast<int>(r.total.percentilesMs.size()), rows);
    const auto totals =
        find(text, "^ +(\\d+) requests in ([\\d.]+)(us|ms|s|m), ([\\d.]+)(B|KB|MB|GB) read$");
    QVERIFY(totals.hasMatch());
    QCOMPARE(r.complete, totals.captured(1).toULongLong());
    QVERIFY(close(r.durationSeconds, wrkMs(totals.captured(2), totals.captured(3)) / 1000.0));
    QVERIFY(std::fabs(static_cast<double>(r.bytesTotal) -
                      wrkBytes(totals.captured(4), totals.captured(5))) <= 0.5);
    QVERIFY(r.reportedRequestsPerSecond);
    QVERIFY(*r.reportedRequestsPerSecond ==
            find(text, "^Requests/sec: +([\\d.]+)$").captured(1).toDouble());
    const auto transfer = find(text, "^Transfer/sec: +([\\d.]+)(B|KB|MB|GB)$");
    QVERIFY(r.reportedTransferKiBps);
    QVERIFY(close(*r.reportedTransferKiBps,
                  wrkBytes(transfer.captured(1), transfer.captured(2)) / 1024.0));
    const auto non2xx = find(text, "^ +Non-2xx or 3xx responses: (\\d+)$");
    QCOMPARE(r.non2xx, non2xx.hasMatch() ? non2xx.captured(1).toULongLong() : 0);
}

inline QString fixturePath(const QString& name) {
    return QFINDTESTDATA(QStringLiteral("fixtures/import/") + name);
}

inline QByteArray fixture(const QString& name) {
    return readFixture(fixturePath(name));
}

inline bool sameSummary(const LatencySummary& a, const LatencySummary& b) {
    return a.minMs == b.minMs && a.meanMs == b.meanMs && a.sdMs == b.sdMs && a.maxMs == b.maxMs &&
           a.percentilesMs == b.percentilesMs;
}

// Every number an import carries, compared exactly (fingerprints and line
// numbers aside, which legitimately follow the text).
inline bool sameNumbers(const ImportedReport& a, const ImportedReport& b) {
    const PointResult& x = a.result;
    const PointResult& y = b.result;
    bool same =
        a.tool == b.tool && a.version == b.version && a.test == b.test &&
        a.commandLine == b.commandLine && a.url == b.url && a.concurrency == b.concurrency &&
        a.requests == b.requests && a.keepAlive == b.keepAlive && a.threads == b.threads &&
        x.concurrency == y.concurrency && x.complete == y.complete && x.failed == y.failed &&
        x.errors == y.errors && x.non2xx == y.non2xx && x.keepAlive == y.keepAlive &&
        x.bytesTotal == y.bytesTotal && x.bytesBody == y.bytesBody && x.bytesSent == y.bytesSent &&
        x.durationSeconds == y.durationSeconds && x.threads == y.threads &&
        x.serverSoftware == y.serverSoftware && x.documentLength == y.documentLength &&
        x.reportedRequestsPerSecond == y.reportedRequestsPerSecond &&
        x.reportedTransferKiBps == y.reportedTransferKiBps &&
        x.reportedThroughputMbitps == y.reportedThroughputMbitps &&
        x.reportedTimePerRequestMs == y.reportedTimePerRequestMs &&
        x.reportedTimePerRequestAcrossMs == y.reportedTimePerRequestAcrossMs &&
        sameSummary(x.total, y.total) && sameSummary(x.connect, y.connect) &&
        sameSummary(x.waiting, y.waiting) && sameSummary(x.processing, y.processing) &&
        x.perOperation.size() == y.perOperation.size() &&
        sameSummary(x.uncorrected, y.uncorrected) && x.loadModel == y.loadModel &&
        x.offeredRate == y.offeredRate;
    for (const auto& [name, summary] : x.perOperation)
        same = same && y.perOperation.count(name) && sameSummary(summary, y.perOperation.at(name));
    return same;
}

inline const QStringList& allFixtures() {
    static const QStringList names = {
        QStringLiteral("ab_2.3_keepalive.txt"),
        QStringLiteral("ab_2.3_close.txt"),
        QStringLiteral("ab_2.3_not_found.txt"),
        QStringLiteral("ab_2.0.40_failures.txt"),
        QStringLiteral("ab_terminal_session.txt"),
        QStringLiteral("wrk_latency.txt"),
        QStringLiteral("wrk_not_found.txt"),
        QStringLiteral("wrk_two_threads.txt"),
        QStringLiteral("wrk2_spectrum.txt"),
        QStringLiteral("h2load_h2c_not_found.txt"),
        QStringLiteral("h2load_tls_two_threads.txt"),
        QStringLiteral("h2load_timing_based.txt"),
        QStringLiteral("memtier_table_percentiles.txt"),
        QStringLiteral("memtier_table_1.2.txt"),
        QStringLiteral("memtier_totals_average_fault.json"),
        QStringLiteral("netperf_tcp_rr.txt"),
        QStringLiteral("netperf_tcp_crr.txt"),
        QStringLiteral("netperf_tcp_stream.txt"),
        QStringLiteral("netperf_omni_csv.txt"),
        QStringLiteral("netperf_omni_keyval.txt"),
        QStringLiteral("mixed_notes.md"),
    };
    return names;
}

} // namespace import_test
