// Imports into a session: targets created from the tool, repetitions, the
// duplicate and all-or-nothing rules and the session file round trip.
// `loadscope-cli import` and the comparison of imported results beside
// measured ones are tst_session_import_cli's.
#include "app/import/session_importer.h"
#include "app/session/comparison_report.h"
#include "app/session/csv_export.h"
#include "app/session/session_file.h"
#include "golden_outputs.h"
#include "import_test_support.h"
#include "session_test_data.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace loadscope::app;
using namespace import_test;

namespace {

ImportFile fixtureFile(const QString& name) {
    return ImportFile{name, readFixture(QFINDTESTDATA(QStringLiteral("fixtures/import/") + name))};
}

// One cell of row 1 of a CSV, by its column name.
QString csvCell(const QByteArray& csv, const QString& column) {
    for (const loadscope::testing::golden::Field& field :
         loadscope::testing::golden::flattenCsv(csv)) {
        if (field.path == QStringLiteral("row1.") + column)
            return field.value;
    }
    return QStringLiteral("(no such column)");
}

} // namespace

class TestSessionImport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void createsTargetFromTool_data();
    void createsTargetFromTool();
    void repetitionsPerConcurrency();
    void existingTargetKeepsItsMode();
    void wrk2KeepsBothLatencies();
    void duplicatesRefused();
    void allOrNothing_data();
    void allOrNothing();
    void survivesSaveAndOpen();
    void memtierThatDoesNotSayFitsRedis();
    void abTimePerRequestAsPrinted();
    void unprintedCountsStayUnknown();
};

void TestSessionImport::createsTargetFromTool_data() {
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("protocol");
    QTest::addColumn<QString>("modeLabel");
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<int>("results");

    QTest::newRow("ab") << "ab_2.0.40_failures.txt"
                        << "container-nat"
                        << "http"
                        << "container-nat"
                        << "http://www.example.org:8080/app/status" << 1;
    QTest::newRow("wrk") << "wrk_latency.txt"
                         << ""
                         << "http"
                         << "host"
                         << "http://127.0.0.1:53549/index.html" << 1;
    QTest::newRow("wrk2") << "wrk2_spectrum.txt"
                          << "macvlan"
                          << "http"
                          << "macvlan"
                          << "http://10.0.3.15:8080/index.html" << 1;
    QTest::newRow("memtier") << "memtier_table_percentiles.txt"
                             << "docker on the VM"
                             << "memcache"
                             << "docker on the VM"
                             << "127.0.0.1:11211" << 1;
    QTest::newRow("memtier JSON") << "memtier_totals_average_fault.json"
                                  << "ovs-bridge"
                                  << "memcache"
                                  << "ovs-bridge"
                                  << "127.0.0.1:11211" << 1;
    QTest::newRow("memtier -P redis") << "memtier_redis_default.txt"
                                      << ""
                                      << "redis"
                                      << "host"
                                      << "127.0.0.1:16391" << 1;
    QTest::newRow("memtier -P resp3 JSON") << "memtier_resp3_commands.json"
                                           << "container-nat"
                                           << "redis"
                                           << "container-nat"
                                           << "127.0.0.1:16391" << 1;
    QTest::newRow("TCP_RR") << "netperf_tcp_rr.txt"
                            << "linux-bridge"
                            << "tcp-rr"
                            << "linux-bridge"
                            << "127.0.0.1:12865" << 1;
    QTest::newRow("TCP_CRR") << "netperf_omni_keyval.txt"
                             << ""
                             << "tcp-rr"
                             << "host"
                             << "127.0.0.1:12865" << 1;
    QTest::newRow("TCP_STREAM") << "netperf_tcp_stream.txt"
                                << ""
                                << "tcp-stream"
                                << "host"
                                << "127.0.0.1:12865" << 2;
}

void TestSessionImport::createsTargetFromTool() {
    QFETCH(QString, fixture);
    QFETCH(QString, mode);
    QFETCH(QString, protocol);
    QFETCH(QString, modeLabel);
    QFETCH(QString, endpoint);
    QFETCH(int, results);

    Session session;
    const auto imported =
        importIntoSession(session, QStringLiteral("before"), mode, {fixtureFile(fixture)});
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QVERIFY(imported->createdTarget);
    QCOMPARE(static_cast<int>(session.targets.size()), 1);
    const Target& target = session.targets.front();
    QCOMPARE(target.id, imported->targetId);
    QCOMPARE(target.name, QStringLiteral("before"));
    QCOMPARE(targetProtocolId(target.protocol), protocol);
    QCOMPARE(target.modeLabel(), modeLabel);
    QCOMPARE(target.endpoint(), endpoint);
    QCOMPARE(target.tcpRr.connectPerRequest, fixture == QLatin1String("netperf_omni_keyval.txt"));
    QCOMPARE(static_cast<int>(session.results.size()), results);
    for (const PointResult& result : session.results) {
        QCOMPARE(result.targetId, target.id);
        QCOMPARE(result.source.kind, ResultSource::Kind::Imported);
        QCOMPARE(result.source.file, fixture);
        QVERIFY(result.concurrency >= 1);
    }
    QCOMPARE(imported->reports.size(), results);
}

void TestSessionImport::repetitionsPerConcurrency() {
    // Two ab runs at concurrency 10 and one at 4 (the terminal session holds
    // c=4 and c=10 runs): each level counts its own repetitions.
    Session session;
    const auto imported =
        importIntoSession(session, QStringLiteral("nat"), QStringLiteral("container-nat"),
                          {fixtureFile(QStringLiteral("ab_terminal_session.txt")),
                           fixtureFile(QStringLiteral("ab_2.3_close.txt"))});
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->reports.size(), 3);
    QCOMPARE(imported->reports.at(0).result.concurrency, 4);
    QCOMPARE(imported->reports.at(0).result.repetition, 0);
    QCOMPARE(imported->reports.at(1).result.concurrency, 10);
    QCOMPARE(imported->reports.at(1).result.repetition, 0);
    QCOMPARE(imported->reports.at(2).result.concurrency, 10);
    QCOMPARE(imported->reports.at(2).result.repetition, 1);
    QVERIFY(session.findResult(imported->targetId, 10, 1));
    QVERIFY(*session.findResult(imported->targetId, 10, 1)->reportedRequestsPerSecond == 12653.10);

    // A later import continues at the next free repetition.
    const auto more = importIntoSession(session, QStringLiteral("nat"), QString(),
                                        {fixtureFile(QStringLiteral("ab_2.3_not_found.txt"))});
    QVERIFY2(more.ok(), qPrintable(errorText(more)));
    QVERIFY(!more->createdTarget);
    QCOMPARE(more->reports.first().result.concurrency, 5);
    QCOMPARE(more->reports.first().result.repetition, 0);
    const auto wrk = importIntoSession(session, QStringLiteral("nat"), QString(),
                                       {fixtureFile(QStringLiteral("wrk_latency.txt"))});
    QVERIFY2(wrk.ok(), qPrintable(errorText(wrk)));
    QCOMPARE(wrk->reports.first().result.repetition, 2);
    QCOMPARE(static_cast<int>(session.results.size()), 5);
}

void TestSessionImport::existingTargetKeepsItsMode() {
    Session session;
    QVERIFY(importIntoSession(session, QStringLiteral("edge"), QStringLiteral("macvlan"),
                              {fixtureFile(QStringLiteral("ab_2.3_close.txt"))})
                .ok());
    const QByteArray before = serializeSession(session);
    const auto other = importIntoSession(session, QStringLiteral("edge"), QStringLiteral("host"),
                                         {fixtureFile(QStringLiteral("wrk_latency.txt"))});
    QCOMPARE(errorText(other), QStringLiteral("target 'edge' is in mode 'macvlan', not 'host'"));
    QCOMPARE(serializeSession(session), before);
    QVERIFY(importIntoSession(session, QStringLiteral("edge"), QStringLiteral("macvlan"),
                              {fixtureFile(QStringLiteral("wrk_latency.txt"))})
                .ok());
}

void TestSessionImport::duplicatesRefused() {
    Session session;
    QVERIFY(importIntoSession(session, QStringLiteral("host"), QString(),
                              {fixtureFile(QStringLiteral("ab_2.3_keepalive.txt"))})
                .ok());
    const QByteArray before = serializeSession(session);

    // The same run again, even pasted elsewhere with a prompt and CRLF.
    const auto again = importIntoSession(session, QStringLiteral("host"), QString(),
                                         {fixtureFile(QStringLiteral("ab_terminal_session.txt"))});
    QCOMPARE(errorText(again),
             QStringLiteral("ab_terminal_session.txt:47: this ab report is already in "
                            "target 'host' (imported from ab_2.3_keepalive.txt)"));
    QCOMPARE(again.error().code, ErrorCode::Duplicate);
    QCOMPARE(serializeSession(session), before);

    // Twice within one import.
    Session fresh;
    const auto twice = importIntoSession(fresh, QStringLiteral("host"), QString(),
                                         {fixtureFile(QStringLiteral("wrk_latency.txt")),
                                          fixtureFile(QStringLiteral("wrk_latency.txt"))});
    QCOMPARE(errorText(twice),
             QStringLiteral("wrk_latency.txt:1: this wrk report is already in target "
                            "'host' (imported from wrk_latency.txt:1)"));
    QVERIFY(fresh.targets.empty() && fresh.results.empty());

    // Into another target it is a result of its own.
    QVERIFY(importIntoSession(session, QStringLiteral("nat"), QStringLiteral("container-nat"),
                              {fixtureFile(QStringLiteral("ab_2.3_keepalive.txt"))})
                .ok());
}

void TestSessionImport::allOrNothing_data() {
    QTest::addColumn<QString>("target");
    QTest::addColumn<QByteArray>("second");
    QTest::addColumn<QString>("error");

    const QByteArray ab = readFixture(QFINDTESTDATA("fixtures/import/ab_2.3_close.txt"));
    QTest::newRow("cut file") << "web" << ab.left(ab.indexOf("Transfer rate"))
                              << "second.txt:34: ab report cut off after 'Time per request'";
    QTest::newRow("unrecognised") << "web" << QByteArray("hello\n")
                                  << "second.txt:1: not a recognised ab, wrk, wrk2, h2load, "
                                     "memtier_benchmark or netperf report";
    QTest::newRow("other protocol")
        << "web" << readFixture(QFINDTESTDATA("fixtures/import/netperf_tcp_rr.txt"))
        << "second.txt:1: netperf TCP_RR measures tcp-rr, but target 'web' measures http";
    QTest::newRow("RR into CRR")
        << "crr" << readFixture(QFINDTESTDATA("fixtures/import/netperf_tcp_rr.txt"))
        << "second.txt:1: netperf TCP_RR does not match target 'crr', which measures TCP_CRR";
    // Figures no run can have: refused before saving (each was saved on
    // main, and the session then refused to open).
    QTest::newRow("negative time")
        << "web" << QByteArray(ab).replace("0.158 seconds", "-0.002 seconds")
        << "second.txt:1: the ab report has a figure out of range: durationSeconds is -0.002, "
           "expected above 0";
    QTest::newRow("400-digit rate")
        << "web"
        << QByteArray(ab).replace("12653.10 [#/sec]",
                                  QByteArray("1" + QByteArray(399, '0') + ".10 [#/sec]"))
        << "second.txt:1: the ab report has a figure out of range: reported.requestsPerSecond is "
           "inf";
    QTest::newRow("failed above complete")
        << "web"
        << readFixture(QFINDTESTDATA("fixtures/import/ab_2.0.40_failures.txt"))
               .replace("Complete requests:      10000", "Complete requests:      30")
        << "second.txt:1: the ab report has a figure out of range: failed is 37, more than "
           "complete (30)";
    QTest::newRow("decreasing percentiles")
        << "web" << QByteArray(ab).replace("  99%      1", "  99%      0")
        << "second.txt:1: the ab report has a figure out of range: latency.total.percentiles "
           "decrease: 99 is 0, below 98 at 1";
    QTest::newRow("Redis into memcached")
        << "cache" << readFixture(QFINDTESTDATA("fixtures/import/memtier_redis_default.txt"))
        << "second.txt:7: memtier_benchmark measures redis, but target 'cache' measures memcache";
    // The same for figures that contradict each other.
    QTest::newRow("h2load min above max")
        << "web"
        << readFixture(QFINDTESTDATA("fixtures/import/h2load_h2c_not_found.txt"))
               .replace("time for request:       62us      9.67ms",
                        "time for request:     9.67ms        62us")
        << "second.txt:1: the h2load report has a figure out of range: latency.total.minMs is "
           "9.67, above latency.total.maxMs (0.062)";
    QTest::newRow("wrk2 non-2xx above requests")
        << "web"
        << readFixture(QFINDTESTDATA("fixtures/import/wrk2_spectrum.txt"))
               .replace("Requests/sec:", "  Non-2xx or 3xx responses: 70000\nRequests/sec:")
        << "second.txt:1: the wrk2 report has a figure out of range: non2xx is 70000, more "
           "than complete (59981)";
    QByteArray memtier =
        readFixture(QFINDTESTDATA("fixtures/import/memtier_table_percentiles.txt"));
    memtier = memtier.mid(memtier.indexOf("ALL STATS"));
    QTest::newRow("no concurrency")
        << "cache" << memtier
        << "second.txt:1: the memtier_benchmark report does not say its concurrency";
}

void TestSessionImport::allOrNothing() {
    QFETCH(QString, target);
    QFETCH(QByteArray, second);
    QFETCH(QString, error);

    Session session;
    QVERIFY(importIntoSession(session, QStringLiteral("crr"), QString(),
                              {fixtureFile(QStringLiteral("netperf_omni_keyval.txt"))})
                .ok());
    const QByteArray before = serializeSession(session);
    const QString first = target == QLatin1String("crr") ? QStringLiteral("netperf_omni_keyval.txt")
                          : target == QLatin1String("cache")
                              ? QStringLiteral("memtier_table_1.2.txt")
                              : QStringLiteral("wrk_latency.txt");
    const auto imported = importIntoSession(
        session, target, QString(),
        {target == QLatin1String("crr") ? fixtureFile(QStringLiteral("netperf_tcp_crr.txt"))
                                        : fixtureFile(first),
         ImportFile{QStringLiteral("second.txt"), second}});
    QCOMPARE(errorText(imported), error);
    QVERIFY(!imported.ok());
    // Neither the good first file nor a new target was added.
    QCOMPARE(serializeSession(session), before);
}

void TestSessionImport::memtierThatDoesNotSayFitsRedis() {
    // A Redis target, then an ALL STATS table with no command above it: memtier's table is
    // the same for both protocols, so it may join a Redis target as it may a memcached one.
    Session session;
    QVERIFY(importIntoSession(session, QStringLiteral("kv"), QString(),
                              {fixtureFile(QStringLiteral("memtier_redis_default.txt"))})
                .ok());
    QCOMPARE(session.targets.front().protocol, TargetProtocol::Redis);
    const auto imported = importIntoSession(session, QStringLiteral("kv"), QString(),
                                            {fixtureFile(QStringLiteral("memtier_table_1.2.txt"))});
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(static_cast<int>(session.results.size()), 2);
    // A memcache_text run says so, and stays out.
    const auto refused =
        importIntoSession(session, QStringLiteral("kv"), QString(),
                          {fixtureFile(QStringLiteral("memtier_totals_average_fault.json"))});
    QVERIFY(!refused.ok());
    QVERIFY2(errorText(refused).contains(
                 QStringLiteral("memtier_benchmark measures memcache, but target 'kv' measures "
                                "redis")),
             qPrintable(errorText(refused)));
}

void TestSessionImport::abTimePerRequestAsPrinted() {
    // ab printed 74.351 and 1.487 ms; from the rounded "Time taken" and the
    // successful requests they would be 74.63 and 1.49.
    Session session;
    QVERIFY(importIntoSession(session, QStringLiteral("web"), QString(),
                              {fixtureFile(QStringLiteral("ab_2.0.40_failures.txt"))})
                .ok());
    const Result<Session> reopened =
        parseSession(serializeSession(session), QStringLiteral("s.loadscope"));
    QVERIFY(reopened);
    const PointResult& result = reopened->results.at(0);
    QCOMPARE(result.timePerRequestMs(), 74.351);
    QCOMPARE(result.timePerRequestAcrossMs(), 1.487);
}

void TestSessionImport::survivesSaveAndOpen() {
    Session session;
    session.name = QStringLiteral("imports");
    const QList<ImportFile> files = {fixtureFile(QStringLiteral("wrk2_spectrum.txt"))};
    QVERIFY(importIntoSession(session, QStringLiteral("wrk2"), QString(), files).ok());
    QVERIFY(importIntoSession(session, QStringLiteral("mc"), QString(),
                              {fixtureFile(QStringLiteral("memtier_totals_average_fault.json"))})
                .ok());
    QVERIFY(importIntoSession(session, QStringLiteral("stream"), QString(),
                              {fixtureFile(QStringLiteral("netperf_tcp_stream.txt"))})
                .ok());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("imports.loadscope"));
    QVERIFY(saveSessionFile(session, path));
    const Result<Session> reopened = loadSessionFile(path);
    QVERIFY2(reopened, reopened ? "" : qPrintable(reopened.error().toString()));
    QCOMPARE(reopened->results.size(), session.results.size());
    for (size_t i = 0; i < session.results.size(); ++i) {
        const PointResult& a = session.results.at(i);
        const PointResult& b = reopened->results.at(i);
        QCOMPARE(b.source.fingerprint, a.source.fingerprint);
        QCOMPARE(b.source.tool, a.source.tool);
        QVERIFY(b.reportedRequestsPerSecond == a.reportedRequestsPerSecond);
        QVERIFY(b.reportedThroughputMbitps == a.reportedThroughputMbitps);
        QVERIFY(b.total.percentilesMs == a.total.percentilesMs);
        QVERIFY(b.total.meanMs == a.total.meanMs);
    }
    // Reopened, the same report is still recognised as already imported.
    Session again = *reopened;
    const auto duplicate = importIntoSession(again, QStringLiteral("wrk2"), QString(), files);
    QVERIFY(errorText(duplicate).contains(QLatin1String("already in target 'wrk2'")));
}

// What a tool did not print is unknown, not 0: netperf prints no count of
// transactions, memtier's table neither a count nor a run time. They stay empty
// in the CSV and out of the session file, and come back unknown when reopened;
// what the tool printed (netperf's elapsed time, memtier's JSON count) is kept.
void TestSessionImport::unprintedCountsStayUnknown() {
    Session session;
    QVERIFY(importIntoSession(session, QStringLiteral("rr"), QString(),
                              {fixtureFile(QStringLiteral("netperf_tcp_rr.txt"))})
                .ok());
    QVERIFY(importIntoSession(session, QStringLiteral("table"), QString(),
                              {fixtureFile(QStringLiteral("memtier_table_1.2.txt"))})
                .ok());
    QVERIFY(importIntoSession(session, QStringLiteral("json"), QString(),
                              {fixtureFile(QStringLiteral("memtier_redis.json"))})
                .ok());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("unknown.loadscope"));
    QVERIFY(saveSessionFile(session, path));
    QFile saved(path);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const QJsonArray results = QJsonDocument::fromJson(saved.readAll())
                                   .object()
                                   .value(QStringLiteral("results"))
                                   .toArray();
    QCOMPARE(results.size(), 3);
    QVERIFY(!results.at(0).toObject().contains(QStringLiteral("complete")));
    QVERIFY(results.at(0).toObject().contains(QStringLiteral("durationSeconds")));
    QVERIFY(!results.at(1).toObject().contains(QStringLiteral("complete")));
    QVERIFY(!results.at(1).toObject().contains(QStringLiteral("durationSeconds")));

    const Result<Session> reopened = loadSessionFile(path);
    QVERIFY2(reopened, reopened ? "" : qPrintable(reopened.error().toString()));
    QVERIFY(*reopened == session);
    const auto cells = [](const Session& s, const PointResult& r) {
        Session one = s;
        one.results = {r};
        const QByteArray csv = resultsCsv(one);
        return std::pair{csvCell(csv, QStringLiteral("complete")),
                         csvCell(csv, QStringLiteral("duration_s"))};
    };
    QCOMPARE(cells(*reopened, reopened->results.at(0)),
             (std::pair{QString(), QStringLiteral("10")}));
    QCOMPARE(cells(*reopened, reopened->results.at(1)), (std::pair{QString(), QString()}));
    QCOMPARE(cells(*reopened, reopened->results.at(2)),
             (std::pair{QStringLiteral("1000"), QStringLiteral("0.041")}));
}

void TestSessionImport::wrk2KeepsBothLatencies() {
    // wrk2 -R2000 -U prints the corrected distribution, then the uncorrected
    // one; both survive the session file and reach the CSV as printed.
    Session session;
    QVERIFY(importIntoSession(session, QStringLiteral("wrk2"), QString(),
                              {fixtureFile(QStringLiteral("wrk2_spectrum.txt"))})
                .ok());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("wrk2.loadscope"));
    QVERIFY(saveSessionFile(session, path));
    const Result<Session> reopened = loadSessionFile(path);
    QVERIFY2(reopened, reopened ? "" : qPrintable(reopened.error().toString()));
    QCOMPARE(reopened->results.size(), size_t(1));
    const PointResult& r = reopened->results.front();
    QCOMPARE(r.loadModel, LoadModel::FixedRate);
    QVERIFY(r.offeredRate && *r.offeredRate == 2000.0);
    QVERIFY(r.total.percentile(50) == 0.773);
    QVERIFY(r.total.percentile(99) == 3.60);
    QVERIFY(r.total.meanMs == 1.002);
    QVERIFY(r.total.maxMs == 12.814);
    QVERIFY(r.uncorrected.percentile(50) == 0.683);
    QVERIFY(r.uncorrected.percentile(99) == 3.51);
    QVERIFY(r.uncorrected.meanMs == 0.912);
    QVERIFY(r.uncorrected.maxMs == 12.724);
    QVERIFY(r.uncorrected.minMs == 0.322);

    const QByteArray csv = resultsCsv(*reopened);
    QCOMPARE(csvCell(csv, QStringLiteral("load_model")), QStringLiteral("fixed-rate"));
    QCOMPARE(csvCell(csv, QStringLiteral("offered_rate")), QStringLiteral("2000"));
    QCOMPARE(csvCell(csv, QStringLiteral("latency_p50_ms")), QStringLiteral("0.773"));
    QCOMPARE(csvCell(csv, QStringLiteral("latency_uncorrected_p50_ms")), QStringLiteral("0.683"));
    QCOMPARE(csvCell(csv, QStringLiteral("latency_uncorrected_mean_ms")), QStringLiteral("0.912"));
    QCOMPARE(csvCell(csv, QStringLiteral("latency_uncorrected_p99_ms")), QStringLiteral("3.51"));
}

QTEST_GUILESS_MAIN(TestSessionImport)
#include "tst_session_import.moc"
