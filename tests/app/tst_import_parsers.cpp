#include "app/import/decimal_number.h"
#include "app/import/report_importer.h"
#include "import_test_support.h"

#include <QStringEncoder>
#include <QTest>

using namespace loadscope::app;
using namespace import_test;

class TestImportParsers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void exactUnits_data();
    void exactUnits();
    void capturedToolOutputs_data();
    void capturedToolOutputs();
    void wrk2Spectrum();
    void memtierTable();
    void memtierOldTable();
    void memtierJsonAverageFault();
    void memtierRedis_data();
    void memtierRedis();
    void memtierRedisCommands_data();
    void memtierRedisCommands();
    void netperf_data();
    void netperf();
    void netperfUdp_data();
    void netperfUdp();
    void mixedNotes();
    void pastedTextVariants();
    void fingerprints();
};

void TestImportParsers::exactUnits_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected"); // the exact decimal, read as a double once

    QTest::newRow("ms") << "time"
                        << "1.23ms"
                        << "1.23";
    QTest::newRow("s") << "time"
                       << "2.34s"
                       << "2340";
    QTest::newRow("us") << "time"
                        << "540.00us"
                        << "0.54";
    QTest::newRow("minutes") << "time"
                             << "1.50m"
                             << "90000";
    QTest::newRow("MB") << "bytes"
                        << "549.55MB"
                        << "576244940.8";
    QTest::newRow("GB") << "bytes"
                        << "1.2GB"
                        << "1288490188.8";
    QTest::newRow("KB") << "bytes"
                        << "676.41KB"
                        << "692643.84";
    QTest::newRow("B") << "bytes"
                       << "512.00B"
                       << "512";
    QTest::newRow("k") << "count"
                       << "10.5k"
                       << "10500";
    QTest::newRow("M") << "count"
                       << "1.20M"
                       << "1200000";
    QTest::newRow("plain") << "count"
                           << "890.00"
                           << "890";
    QTest::newRow("bad unit") << "time"
                              << "3.1ns"
                              << "";
    QTest::newRow("no unit") << "bytes"
                             << "549.55"
                             << "";
    QTest::newRow("comma") << "count"
                           << "1,5k"
                           << "";
    QTest::newRow("lone point") << "time"
                                << ".5ms"
                                << "";
}

void TestImportParsers::exactUnits() {
    QFETCH(QString, kind);
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const auto value = kind == QLatin1String("time")    ? DecimalNumber::wrkTimeMs(text)
                       : kind == QLatin1String("bytes") ? DecimalNumber::wrkBytes(text)
                                                        : DecimalNumber::wrkCount(text);
    QCOMPARE(value.has_value(), !expected.isEmpty());
    if (value)
        QVERIFY2(value->toDouble() == expected.toDouble(),
                 qPrintable(QString::number(value->toDouble(), 'g', 17)));
    if (qstrcmp(QTest::currentDataTag(), "ms") == 0) {
        // 18672.41 stays 18672.41, and rounding to whole bytes is half up.
        QVERIFY(DecimalNumber::parseDouble(u"18672.41") == 18672.41);
        QCOMPARE(DecimalNumber::wrkBytes(u"549.55MB")->toUInt64().value_or(0), 576244941ULL);
        QCOMPARE(DecimalNumber::wrkBytes(u"1.2GB")->toUInt64().value_or(0), 1288490189ULL);
        QCOMPARE(DecimalNumber::wrkBytes(u"512.40B")->toUInt64().value_or(0), 512ULL);
    }
}

void TestImportParsers::capturedToolOutputs_data() {
    QTest::addColumn<QString>("name");
    // Outputs of Debian's ab 2.3 and wrk 4.1 against nginx, captured unchanged.
    for (const char* name : {"ab_2.3_keepalive.txt", "ab_2.3_close.txt", "ab_2.3_not_found.txt",
                             "wrk_latency.txt", "wrk_not_found.txt", "wrk_two_threads.txt"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestImportParsers::capturedToolOutputs() {
    QFETCH(QString, name);
    const QByteArray content = fixture(name);
    QVERIFY(!content.isEmpty());
    const ImportResult imported = importReports(name, content);
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->size(), 1);
    const ImportedReport& report = imported->first();
    const QString text = QString::fromUtf8(content);
    if (name.startsWith(QLatin1String("ab")))
        checkAbAgainstText(report, text);
    else
        checkWrkAgainstText(report, text);
    QCOMPARE(report.result.source.kind, ResultSource::Kind::Imported);
    QCOMPARE(report.result.source.file, name);
    QCOMPARE(report.result.source.fingerprint.size(), 64);
    QVERIFY(report.result.totalHistogram.isEmpty());
}

void TestImportParsers::wrk2Spectrum() {
    const ImportResult imported =
        importReports(QStringLiteral("wrk2.txt"), fixture(QStringLiteral("wrk2_spectrum.txt")));
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->size(), 1);
    const ImportedReport& report = imported->first();
    const PointResult& r = report.result;
    QCOMPARE(report.tool, QStringLiteral("wrk2"));
    QCOMPARE(r.source.tool, QStringLiteral("wrk2"));
    QCOMPARE(report.url, QStringLiteral("http://10.0.3.15:8080/index.html"));
    QVERIFY(report.commandLine.startsWith(QLatin1String("wrk2 -t2 -c100")));
    QCOMPARE(r.concurrency, 100);
    QCOMPARE(r.threads, 2);
    QCOMPARE(r.complete, 59981ULL);
    QVERIFY(r.durationSeconds == 30.0);
    QCOMPARE(r.bytesTotal, 20782776ULL); // 19.82 MiB = 20782776.32 B, rounded to a whole byte
    QVERIFY(*r.reportedRequestsPerSecond == 1999.35);
    QVERIFY(*r.reportedTransferKiBps == 676.41);
    // The summary rows keep their printed figures ...
    QVERIFY(r.total.percentile(50) == 0.773);
    QVERIFY(r.total.percentile(99.9) == 5.49);
    QVERIFY(r.total.percentile(99.999) == 9.55);
    QVERIFY(r.total.percentile(100) == 12.81);
    // ... the spectrum adds the rest, and its footer gives mean, spread and max.
    QVERIFY(r.total.percentile(10) == 0.453);
    QVERIFY(r.total.percentile(77.5).has_value());
    QVERIFY(r.total.percentilesMs.size() > 60);
    QVERIFY(r.total.minMs == 0.412);
    QVERIFY(r.total.meanMs == 1.002);
    QVERIFY(r.total.sdMs == 0.61);
    QVERIFY(r.total.maxMs == 12.814);
    QCOMPARE(r.errors[static_cast<size_t>(loadscope::engine::ErrorClass::Receive)], 3ULL);
    QCOMPARE(r.errors[static_cast<size_t>(loadscope::engine::ErrorClass::Timeout)], 12ULL);
    QCOMPARE(r.failed, 15ULL);
    // wrk2 offers a fixed rate (-R2000): the first distribution is the
    // corrected one and stays the result's latency; -U's uncorrected one is
    // kept apart, each with the figures exactly as printed.
    QCOMPARE(r.loadModel, LoadModel::FixedRate);
    QVERIFY(r.offeredRate && *r.offeredRate == 2000.0);
    QCOMPARE(r.loadModelText(), QStringLiteral("fixed-rate 2000/s"));
    QVERIFY(r.uncorrected.percentile(50) == 0.683);
    QVERIFY(r.uncorrected.percentile(90) == 1.76);
    QVERIFY(r.uncorrected.percentile(99.9) == 5.40);
    QVERIFY(r.uncorrected.percentile(100) == 12.72);
    QVERIFY(r.uncorrected.percentile(10) == 0.363);
    QVERIFY(r.uncorrected.minMs == 0.322);
    QVERIFY(r.uncorrected.meanMs == 0.912);
    QVERIFY(r.uncorrected.sdMs == 0.61);
    QVERIFY(r.uncorrected.maxMs == 12.724);
}

void TestImportParsers::memtierTable() {
    const ImportResult imported = importReports(
        QStringLiteral("memtier.txt"), fixture(QStringLiteral("memtier_table_percentiles.txt")));
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->size(), 1);
    const ImportedReport& report = imported->first();
    const PointResult& r = report.result;
    QCOMPARE(report.tool, QStringLiteral("memtier_benchmark"));
    QCOMPARE(report.protocolId(), QStringLiteral("memcache"));
    QCOMPARE(report.concurrency, std::optional<int>(100)); // 4 threads x 25 connections
    QCOMPARE(r.threads, 4);
    QCOMPARE(report.url, QStringLiteral("127.0.0.1:11211"));
    QVERIFY(!report.requests); // --test-time
    QVERIFY(*r.reportedRequestsPerSecond == 21775.77);
    QVERIFY(*r.reportedTransferKiBps == 966.88);
    QVERIFY(r.total.meanMs == 1.00634);
    QVERIFY(r.total.percentile(50) == 0.943);
    QVERIFY(r.total.percentile(99) == 2.287);
    QVERIFY(r.total.percentile(99.9) == 4.079);
    QCOMPARE(static_cast<int>(r.perOperation.size()), 2); // Waits had no operations
    QVERIFY(r.perOperation.at(QStringLiteral("set")).meanMs == 1.01239);
    QVERIFY(r.perOperation.at(QStringLiteral("get")).percentile(99.9) == 4.063);
}

void TestImportParsers::memtierOldTable() {
    const ImportResult imported = importReports(QStringLiteral("memtier-1.2.txt"),
                                                fixture(QStringLiteral("memtier_table_1.2.txt")));
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->size(), 1);
    const PointResult& r = imported->first().result;
    QCOMPARE(imported->first().concurrency, std::optional<int>(200));
    QCOMPARE(imported->first().requests, std::optional<uint64_t>(2000000));
    QVERIFY(*r.reportedRequestsPerSecond == 93046.79);
    QVERIFY(*r.reportedTransferKiBps == 4250.47);
    QVERIFY(r.total.meanMs == 2.137);
    QVERIFY(r.total.percentilesMs.empty());
    QVERIFY(r.perOperation.at(QStringLiteral("get")).meanMs == 2.136);
}

// memtier_benchmark 2.3.1 against redis-server 7.0.15: the default -P redis (the command
// typed names none), its JSON, and -P resp3 with two --command rows.
void TestImportParsers::memtierRedis_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("ALL STATS, -P left at its default")
        << QStringLiteral("memtier_redis_default.txt");
    QTest::newRow("JSON") << QStringLiteral("memtier_redis.json");
}

void TestImportParsers::memtierRedis() {
    QFETCH(QString, file);
    const ImportResult imported = importReports(file, fixture(file));
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->size(), 1);
    const ImportedReport& report = imported->first();
    const PointResult& r = report.result;
    QCOMPARE(report.memtierProtocol, QStringLiteral("redis"));
    QCOMPARE(report.protocolId(), QStringLiteral("redis"));
    QVERIFY(report.fitsProtocol(QStringLiteral("redis")));
    QVERIFY(!report.fitsProtocol(QStringLiteral("memcache")));
    QCOMPARE(report.concurrency, std::optional<int>(2));
    QCOMPARE(report.requests, std::optional<uint64_t>(1000));
    QCOMPARE(report.url, QStringLiteral("127.0.0.1:16391"));
    if (file.endsWith(QLatin1String(".txt"))) {
        QVERIFY(*r.reportedRequestsPerSecond == 10244.22);
        QVERIFY(*r.reportedTransferKiBps == 632.94);
        QVERIFY(r.total.meanMs == 0.19661);
        QVERIFY(r.perOperation.at(QStringLiteral("get")).percentile(99.9) == 68.607);
    } else {
        QVERIFY(*r.reportedRequestsPerSecond == 24499.00);
        QCOMPARE(r.complete, 1000ULL);
        QVERIFY(r.perOperation.count(QStringLiteral("set")) == 1);
    }
    QVERIFY(!r.perOperation.count(QStringLiteral("wait")));
}

void TestImportParsers::memtierRedisCommands_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("ALL STATS") << QStringLiteral("memtier_resp3_commands.txt");
    QTest::newRow("JSON") << QStringLiteral("memtier_resp3_commands.json");
}

void TestImportParsers::memtierRedisCommands() {
    QFETCH(QString, file);
    const ImportResult imported = importReports(file, fixture(file));
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->size(), 1);
    const ImportedReport& report = imported->first();
    const PointResult& r = report.result;
    QCOMPARE(report.memtierProtocol, QStringLiteral("resp3"));
    QCOMPARE(report.protocolId(), QStringLiteral("redis"));
    QCOMPARE(report.concurrency, std::optional<int>(10));
    // A row per command, named as memtier names them ("Hsets" is hset's).
    QCOMPARE(static_cast<int>(r.perOperation.size()), 2);
    QVERIFY(r.perOperation.count(QStringLiteral("set")) == 1);
    QVERIFY(r.perOperation.count(QStringLiteral("hset")) == 1);
    if (file.endsWith(QLatin1String(".txt"))) {
        QVERIFY(*r.reportedRequestsPerSecond == 32399.68);
        QVERIFY(r.perOperation.at(QStringLiteral("hset")).meanMs == 0.27614);
    }
}

void TestImportParsers::memtierJsonAverageFault() {
    const ImportResult imported =
        importReports(QStringLiteral("memtier.json"),
                      fixture(QStringLiteral("memtier_totals_average_fault.json")));
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->size(), 1);
    const PointResult& r = imported->first().result;
    QCOMPARE(imported->first().concurrency, std::optional<int>(100));
    QCOMPARE(r.complete, 217824ULL);
    QVERIFY(r.durationSeconds == 10.003);
    QVERIFY(*r.reportedRequestsPerSecond == 21775.77);
    QVERIFY(*r.reportedTransferKiBps == 966.88);
    // Totals says "Average Latency": 0.000; the mean comes from the accumulated latency.
    QVERIFY(r.total.meanMs == 219202.0 / 217824.0);
    QVERIFY(r.total.minMs == 0.198);
    QVERIFY(r.total.maxMs == 11.263);
    QVERIFY(r.total.percentile(99.9) == 4.079);
    QVERIFY(r.perOperation.at(QStringLiteral("set")).meanMs == 1.012);
    QVERIFY(r.perOperation.at(QStringLiteral("get")).percentile(99) == 2.287);
    QVERIFY(!r.perOperation.count(QStringLiteral("wait")));
}

void TestImportParsers::netperf_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("test");
    QTest::addColumn<double>("rate");       // transactions/s, or -1
    QTest::addColumn<double>("throughput"); // Mbit/s, or -1
    QTest::addColumn<double>("meanMs");     // or -1

    QTest::newRow("TCP_RR") << "netperf_tcp_rr.txt" << 0 << "TCP_RR" << 35140.43 << -1.0 << -1.0;
    QTest::newRow("TCP_CRR with CPU")
        << "netperf_tcp_crr.txt" << 0 << "TCP_CRR" << 11847.18 << -1.0 << -1.0;
    QTest::newRow("TCP_STREAM") << "netperf_tcp_stream.txt" << 0 << "TCP_STREAM" << -1.0 << 41328.13
                                << -1.0;
    QTest::newRow("TCP_STREAM -f g")
        << "netperf_tcp_stream.txt" << 1 << "TCP_STREAM" << -1.0 << 38470.0 << -1.0;
    QTest::newRow("-o CSV") << "netperf_omni_csv.txt" << 0 << "TCP_RR" << 35854.15 << -1.0
                            << 0.02784;
    QTest::newRow("-o CSV, -P 0") << "netperf_omni_csv.txt" << 1 << "TCP_STREAM" << -1.0 << 41102.67
                                  << -1.0;
    QTest::newRow("-k") << "netperf_omni_keyval.txt" << 0 << "TCP_CRR" << 11920.44 << -1.0
                        << 0.08374;
}

void TestImportParsers::netperf() {
    QFETCH(QString, name);
    QFETCH(int, index);
    QFETCH(QString, test);
    QFETCH(double, rate);
    QFETCH(double, throughput);
    QFETCH(double, meanMs);
    const ImportResult imported = importReports(name, fixture(name));
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QVERIFY(index < imported->size());
    const ImportedReport& report = imported->at(index);
    const PointResult& r = report.result;
    QCOMPARE(report.tool, QStringLiteral("netperf"));
    QCOMPARE(report.test, test);
    QCOMPARE(report.protocolId(), test == QLatin1String("TCP_STREAM") ? QStringLiteral("tcp-stream")
                                                                      : QStringLiteral("tcp-rr"));
    QCOMPARE(r.concurrency, 1);
    QVERIFY(r.durationSeconds == 10.0);
    QVERIFY(report.commandLine.startsWith(QLatin1String("netperf ")));
    QCOMPARE(r.reportedRequestsPerSecond.value_or(-1), rate);
    QVERIFY(r.reportedThroughputMbitps.value_or(-1) == throughput);
    QVERIFY(r.total.meanMs.value_or(-1) == meanMs);
}

void TestImportParsers::netperfUdp_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("test");
    QTest::addColumn<double>("rate");      // transactions/s, or -1
    QTest::addColumn<double>("delivered"); // Mbit/s the receiver got, or -1
    QTest::addColumn<double>("sent");      // Mbit/s sent, or -1
    QTest::addColumn<qint64>("messages");  // sent, or -1
    QTest::addColumn<qint64>("received");  // by the receiver, or -1
    QTest::addColumn<double>("seconds");
    // Real netperf 2.7.1 outputs against netserver on 127.0.0.1.
    QTest::newRow("UDP_RR") << "netperf_udp_classic.txt" << 0 << "UDP_RR" << 21202.86 << -1.0
                            << -1.0 << qint64(-1) << qint64(-1) << 2.01;
    QTest::newRow("UDP_STREAM's two lines")
        << "netperf_udp_classic.txt" << 1 << "UDP_STREAM" << -1.0 << 421.44 << 1363.78
        << qint64(231627) << qint64(71578) << 2.00;
    QTest::newRow("UDP_RR -o") << "netperf_udp_omni_csv.txt" << 0 << "UDP_RR" << 38339.97 << -1.0
                               << -1.0 << qint64(-1) << qint64(-1) << 2.00;
    QTest::newRow("UDP_STREAM -o") << "netperf_udp_omni_csv.txt" << 1 << "UDP_STREAM" << -1.0
                                   << 363.42 << 1283.18 << qint64(219676) << qint64(62217) << 2.02;
    QTest::newRow("UDP_STREAM -k") << "netperf_udp_omni_keyval.txt" << 0 << "UDP_STREAM" << -1.0
                                   << 491.21 << 1711.20 << qint64(292374) << qint64(83928) << 2.01;
    QTest::newRow("UDP_RR -k") << "netperf_udp_omni_keyval.txt" << 1 << "UDP_RR" << 79403.46 << -1.0
                               << -1.0 << qint64(-1) << qint64(-1) << 2.00;
}

void TestImportParsers::netperfUdp() {
    QFETCH(QString, name);
    QFETCH(int, index);
    QFETCH(QString, test);
    QFETCH(double, rate);
    QFETCH(double, delivered);
    QFETCH(double, sent);
    QFETCH(qint64, messages);
    QFETCH(qint64, received);
    QFETCH(double, seconds);
    const ImportResult imported = importReports(name, fixture(name));
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QCOMPARE(imported->size(), 2);
    const ImportedReport& report = imported->at(index);
    const PointResult& r = report.result;
    QCOMPARE(report.test, test);
    QCOMPARE(report.protocolId(), test == QLatin1String("UDP_RR") ? QStringLiteral("udp-rr")
                                                                  : QStringLiteral("udp-stream"));
    QVERIFY(report.commandLine.startsWith(QLatin1String("netperf ")));
    QVERIFY(r.durationSeconds == seconds);
    QCOMPARE(r.reportedRequestsPerSecond.value_or(-1), rate);
    QCOMPARE(r.reportedDeliveredMbitps.value_or(-1), delivered);
    QCOMPARE(r.reportedThroughputMbitps.value_or(-1), sent);
    if (messages >= 0) {
        QCOMPARE(qint64(r.datagrams.sent), messages);
        QCOMPARE(qint64(r.datagrams.sinkDatagrams.value_or(0)), received);
        // The loss is what netperf's two counts say.
        QVERIFY(qAbs(*r.datagramLossPercent() -
                     100.0 * double(messages - received) / double(messages)) < 1e-9);
    }
}

void TestImportParsers::mixedNotes() {
    const ImportResult imported =
        importReports(QStringLiteral("notes.md"), fixture(QStringLiteral("mixed_notes.md")));
    QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
    QStringList tools;
    for (const ImportedReport& report : *imported)
        tools << report.tool;
    QCOMPARE(tools, (QStringList{QStringLiteral("ab"), QStringLiteral("wrk"),
                                 QStringLiteral("netperf"), QStringLiteral("memtier_benchmark")}));
    const QString text = QString::fromUtf8(fixture(QStringLiteral("mixed_notes.md")));
    checkAbAgainstText(imported->at(0), reportText(text, imported->at(0)));
    checkWrkAgainstText(imported->at(1), reportText(text, imported->at(1)));
    QCOMPARE(imported->at(0).requests, std::optional<uint64_t>(2000));
}

void TestImportParsers::pastedTextVariants() {
    const QByteArray plain = fixture(QStringLiteral("ab_2.3_keepalive.txt"));
    const ImportResult reference = importReports(QStringLiteral("a.txt"), plain);
    QVERIFY(reference.ok());

    // From a web page: non-breaking spaces and tabs for the padding.
    QString web = QString::fromUtf8(plain);
    web.replace(QStringLiteral("  "), QStringLiteral("\u00A0 "));
    web.replace(QStringLiteral(":      "), QStringLiteral(":\t"));
    // From Windows PowerShell: UTF-16 with a byte-order mark and CRLF.
    QString windows = QString::fromUtf8(plain);
    windows.replace(QLatin1Char('\n'), QStringLiteral("\r\n"));
    QStringEncoder utf16(QStringEncoder::Utf16LE, QStringEncoder::Flag::WriteBom);
    const QByteArray variants[] = {web.toUtf8(), QByteArray(utf16(windows))};
    for (const QByteArray& variant : variants) {
        const ImportResult imported = importReports(QStringLiteral("a.txt"), variant);
        QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
        QCOMPARE(imported->size(), 1);
        QVERIFY(sameNumbers(imported->first(), reference->first()));
        QCOMPARE(imported->first().result.source.fingerprint,
                 reference->first().result.source.fingerprint);
    }
}

void TestImportParsers::fingerprints() {
    // The same report keeps its fingerprint whatever surrounds it; another report differs.
    const ImportResult alone =
        importReports(QStringLiteral("a"), fixture(QStringLiteral("ab_2.3_keepalive.txt")));
    const ImportResult inNotes =
        importReports(QStringLiteral("b"), fixture(QStringLiteral("mixed_notes.md")));
    const ImportResult other =
        importReports(QStringLiteral("c"), fixture(QStringLiteral("ab_2.3_close.txt")));
    QVERIFY(alone.ok() && inNotes.ok() && other.ok());
    QCOMPARE(alone->first().result.source.fingerprint, inNotes->first().result.source.fingerprint);
    QVERIFY(alone->first().result.source.fingerprint != other->first().result.source.fingerprint);
    // The terminal session holds the keep-alive capture again, behind a prompt
    // and with CRLF: the same run, so the same fingerprint.
    const ImportResult session =
        importReports(QStringLiteral("d"), fixture(QStringLiteral("ab_terminal_session.txt")));
    QVERIFY(session.ok());
    QCOMPARE(session->at(1).result.source.fingerprint, alone->first().result.source.fingerprint);

    QSet<QString> distinct;
    for (const QString& name : allFixtures()) {
        if (name == QLatin1String("mixed_notes.md") ||
            name == QLatin1String("ab_terminal_session.txt"))
            continue; // made of the other fixtures
        const ImportResult imported = importReports(name, fixture(name));
        QVERIFY2(imported.ok(), qPrintable(errorText(imported)));
        for (const ImportedReport& report : *imported) {
            // Provenance of every reader, the JSON one too: what the report says, from its file.
            const ResultSource& source = report.result.source;
            QCOMPARE(source.kind, ResultSource::Kind::Imported);
            QCOMPARE(source.tool, report.tool);
            QCOMPARE(source.toolVersion, report.version);
            QCOMPARE(source.file, name);
            QVERIFY2(!distinct.contains(report.result.source.fingerprint), qPrintable(name));
            distinct.insert(report.result.source.fingerprint);
        }
    }
}

QTEST_GUILESS_MAIN(TestImportParsers)
#include "tst_import_parsers.moc"
