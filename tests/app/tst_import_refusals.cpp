// What the import refuses: files cut at every byte, unrecognised files,
// garbage numbers, aborted runs and unsupported tests, each with one line
// naming the file and the line.
#include "app/import/report_importer.h"
#include "import_test_support.h"

#include <QTest>

using namespace loadscope::app;
using namespace import_test;

class TestImportRefusals : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyCutPoint_data();
    void everyCutPoint();
    void refusals_data();
    void refusals();
};

void TestImportRefusals::everyCutPoint_data() {
    QTest::addColumn<QString>("name");
    for (const QString& name : allFixtures())
        QTest::newRow(qPrintable(name)) << name;
}

void TestImportRefusals::everyCutPoint() {
    // A file cut at any byte either imports exactly the reports it still holds
    // whole, or is refused with one line naming the file: never a half result.
    QFETCH(QString, name);
    const QByteArray content = fixture(name);
    const ImportResult full = importReports(name, content);
    QVERIFY2(full.ok(), qPrintable(errorText(full)));
    int refused = 0;
    for (qsizetype cut = 0; cut < content.size(); ++cut) {
        const ImportResult part = importReports(name, content.left(cut));
        if (!part.ok()) {
            ++refused;
            QVERIFY2(errorText(part).startsWith(name + QLatin1Char(':')) &&
                         !errorText(part).contains(QLatin1Char('\n')),
                     qPrintable(errorText(part)));
            continue;
        }
        QVERIFY2(part->size() <= full->size(), qPrintable(QString::number(cut)));
        for (qsizetype i = 0; i < part->size(); ++i)
            QVERIFY2(sameNumbers(part->at(i), full->at(i)),
                     qPrintable(QStringLiteral("%1: report %2 differs when cut at byte %3")
                                    .arg(name)
                                    .arg(i)
                                    .arg(cut)));
    }
    QVERIFY(refused > 0);
}

void TestImportRefusals::refusals_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");

    const QByteArray ab = fixture(QStringLiteral("ab_2.3_keepalive.txt"));
    const QByteArray wrk = fixture(QStringLiteral("wrk_latency.txt"));
    const QByteArray memtier = fixture(QStringLiteral("memtier_table_percentiles.txt"));
    const QByteArray keyval = fixture(QStringLiteral("netperf_omni_keyval.txt"));

    QTest::newRow("empty")
        << QByteArray() << 1
        << "not a recognised ab, wrk, wrk2, h2load, memtier_benchmark or netperf report";
    QTest::newRow("prose")
        << QByteArray("We ran ab -c 100 -n 1000 http://host/ on the NAT box.\nIt was slow.\n") << 1
        << "not a recognised";
    QTest::newRow("binary") << QByteArray("\x7f"
                                          "ELF\x02\x01\x01\0\0\0\xff\xfe\x00garbage",
                                          17)
                            << 1 << "not a recognised";
    QTest::newRow("own CSV table")
        << QByteArray("mode,Throughput,p99\nhost,41328.13,0.059\nnat,35120.70,0.071\n") << 1
        << "not a recognised";
    QTest::newRow("other JSON") << QByteArray("{\"k6\": {\"metrics\": {}}}\n") << 1
                                << "not a recognised";

    // The example of the issue: a report cut after "Complete requests", with
    // a whole report after it in the same file.
    QByteArray cut = ab.left(ab.indexOf("Failed requests:")) + "\n" + ab;
    const int completeLine =
        static_cast<int>(ab.left(ab.indexOf("Complete requests:")).count('\n')) + 1;
    QTest::newRow("ab cut, then a whole one")
        << cut << completeLine << "ab report cut off after 'Complete requests'";

    QByteArray garbled = ab;
    garbled.replace("Complete requests:      2000", "Complete requests:      2OOO");
    QTest::newRow("ab garbage number")
        << garbled << completeLine << "ab report has a malformed 'Complete requests' value '2OOO'";
    QByteArray gap = ab;
    gap.replace("Failed requests:        0\n", "");
    QTest::newRow("ab field missing")
        << gap << completeLine + 1 << "ab report is missing 'Failed requests'";
    // A rate without its partner, in a report where nothing completed (found
    // by the fuzzer: it read the missing one).
    QByteArray halfRates = ab;
    halfRates.replace("Complete requests:      2000", "Complete requests:      0");
    halfRates.replace(halfRates.mid(halfRates.indexOf("Transfer rate:"),
                                    halfRates.indexOf('\n', halfRates.indexOf("Transfer rate:")) -
                                        halfRates.indexOf("Transfer rate:") + 1),
                      "");
    QTest::newRow("ab rate without transfer rate")
        << halfRates << 35 << "ab report cut off after 'Time per request'";
    QTest::newRow("ab aborted")
        << QByteArray("This is ApacheBench, Version 2.3 <$Revision: 1903618 $>\n\nBenchmarking "
                      "10.0.0.7 (be patient)\nCompleted 100 requests\napr_socket_recv: Connection "
                      "reset by peer (104)\nTotal of 187 requests completed\n")
        << 5 << "ab run aborted: 'apr_socket_recv: Connection reset by peer (104)'";
    QTest::newRow("ab banner only") << ab.left(ab.indexOf("Server Software")) << 16
                                    << "ab report cut off after 'Finished 2000 requests'";

    QByteArray wrkGarbled = wrk;
    wrkGarbled.replace("Requests/sec:  47418.04", "Requests/sec:  lots");
    QTest::newRow("wrk garbage number")
        << wrkGarbled << 12 << "wrk report has a malformed 'Requests/sec' value 'lots'";
    QTest::newRow("wrk cut mid-file")
        << wrk.left(wrk.indexOf("  Latency Distribution")) + "\n" + wrk << 5
        << "wrk report cut off after 'Req/Sec'";

    QByteArray memtierGarbled = memtier;
    memtierGarbled.replace("966.88", "96x.88");
    QTest::newRow("memtier garbage number")
        << memtierGarbled << 19
        << "memtier_benchmark report has a malformed 'Totals KB/sec' value '96x.88'";
    QTest::newRow("memtier table cut") << memtier.left(memtier.indexOf("Waits")) + "\nlater notes\n"
                                       << 17 << "memtier_benchmark report cut off after 'Gets'";
    QTest::newRow("memtier JSON cut")
        << QByteArray("{\n\t\"configuration\":{\n\t\t\"server\": \"x\"\n") << 4
        << "memtier_benchmark JSON cut off or invalid";
    QTest::newRow("memtier JSON without totals")
        << QByteArray("{\n\"configuration\": {\"server\": \"x\"},\n\"ALL STATS\": {}\n}\n") << 4
        << "memtier_benchmark JSON has no \"ALL STATS\" Totals";

    QByteArray keyvalGarbled = keyval;
    keyvalGarbled.replace("MEAN_LATENCY=83.74", "MEAN_LATENCY=fast");
    QTest::newRow("netperf garbage number")
        << keyvalGarbled << 5 << "netperf report has a malformed 'MEAN_LATENCY' value 'fast'";
    QTest::newRow("netperf SCTP") << QByteArray("MIGRATED SCTP STREAM TEST from 0.0.0.0 (0.0.0.0) "
                                                "port 0 AF_INET to h () port 0 AF_INET\n")
                                  << 1 << "netperf test 'SCTP STREAM' is not one Loadscope imports";
    // UDP_STREAM's receive line is its figure: without it the report is cut.
    const QByteArray udpStream =
        "MIGRATED UDP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to h () port 0 AF_INET\n"
        "Socket  Message  Elapsed      Messages\n"
        "Size    Size     Time         Okay Errors   Throughput\n"
        "bytes   bytes    secs            #      #   10^6bits/sec\n\n"
        "212992    1472   2.00       231627      0    1363.78\n";
    QTest::newRow("netperf UDP_STREAM without its receive line")
        << udpStream << 6 << "netperf report cut off after 'result line'";
    QTest::newRow("netperf UDP_STREAM receive line garbled")
        << udpStream + "212992           2.00        71x78            421.44\n"
        << 7 << "netperf report has a malformed 'receive line' value '71x78'";
    QTest::newRow("netperf banner only")
        << QByteArray("MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to h () port "
                      "0 AF_INET\n")
        << 1 << "netperf report cut off after 'STREAM TEST'";
}

void TestImportRefusals::refusals() {
    QFETCH(QByteArray, content);
    QFETCH(int, line);
    QFETCH(QString, message);
    const ImportResult imported = importReports(QStringLiteral("results.txt"), content);
    QVERIFY(!imported.ok());
    // The file and line travel with the error, not only in its text.
    QCOMPARE(imported.error().code, ErrorCode::Format);
    QCOMPARE(imported.error().file, QStringLiteral("results.txt"));
    QCOMPARE(imported.error().line, line);
    const QString expected = QStringLiteral("results.txt:%1: %2").arg(line).arg(message);
    QVERIFY2(errorText(imported).startsWith(expected),
             qPrintable(errorText(imported) + QStringLiteral("\n   expected: ") + expected));
    QVERIFY(!errorText(imported).contains(QLatin1Char('\n')));
}

QTEST_GUILESS_MAIN(TestImportRefusals)
#include "tst_import_refusals.moc"
