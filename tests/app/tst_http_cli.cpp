// loadscope-cli http as a user runs it: against real nginx, next to ab, and
// with every kind of bad argument. The command runs in-process; the
// executable where its exit status and limits are the subject.
#include "cli_process.h"
#include "local_peers.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using loadscope::testing::CliOutcome;
using loadscope::testing::freeLoopbackPort;
using loadscope::testing::NginxPeer;
using loadscope::testing::runCli;
using loadscope::testing::runCliProcess;

namespace {

using Outcome = CliOutcome;

// Another program (ab, a shell), bounded in time.
Outcome run(const QString& program, const QStringList& arguments, int timeoutMs = 60000) {
    QProcess process;
    process.start(program, arguments);
    Outcome outcome;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        outcome.err = "timed out";
        return outcome;
    }
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    outcome.out = process.readAllStandardOutput();
    outcome.err = process.readAllStandardError();
    return outcome;
}

QString cli() {
    return loadscope::testing::cliPath();
}

qint64 abTotalTransferred(const QString& url, bool keepAlive) {
    QStringList arguments{QStringLiteral("-q"), QStringLiteral("-c"), QStringLiteral("10"),
                          QStringLiteral("-n"), QStringLiteral("1000")};
    if (keepAlive)
        arguments << QStringLiteral("-k");
    const Outcome ab = run(QStringLiteral("/usr/bin/ab"), arguments << url);
    const auto match = QRegularExpression(QStringLiteral("Total transferred:\\s+(\\d+) bytes"))
                           .match(QString::fromUtf8(ab.out));
    return match.hasMatch() ? match.captured(1).toLongLong() : -1;
}

} // namespace

class TestHttpCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(cli()), "LOADSCOPE_CLI must name the loadscope-cli binary");
    }

    void matchesAbAgainstNginx_data() {
        QTest::addColumn<bool>("keepAlive");
        QTest::newRow("-k") << true;
        QTest::newRow("no keep-alive") << false;
    }
    void matchesAbAgainstNginx() {
        QFETCH(bool, keepAlive);
        NginxPeer nginx(4897);
        QVERIFY2(nginx.isRunning(), qPrintable(nginx.error()));
        QStringList arguments{QStringLiteral("http"), QStringLiteral("-c"),
                              QStringLiteral("10"),   QStringLiteral("-n"),
                              QStringLiteral("1000"), QStringLiteral("--json"),
                              QStringLiteral("-")};
        if (keepAlive)
            arguments << QStringLiteral("-k");
        const Outcome ours = runCli(arguments << nginx.url());
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = QJsonDocument::fromJson(ours.out).object();
        QCOMPARE(json.value(QStringLiteral("complete")).toInteger(), 1000);
        QCOMPARE(json.value(QStringLiteral("failed")).toInteger(), 0);
        QCOMPARE(json.value(QStringLiteral("bytes_body")).toInteger(), 4'897'000);
        QCOMPARE(json.value(QStringLiteral("keep_alive")).toInteger(), keepAlive ? 1000 : 0);
        QCOMPARE(json.value(QStringLiteral("document_length")).toInteger(), 4897);
        QVERIFY(json.value(QStringLiteral("server_software"))
                    .toString()
                    .startsWith(QStringLiteral("nginx/")));
        QCOMPARE(json.value(QStringLiteral("status_codes"))
                     .toObject()
                     .value(QStringLiteral("200"))
                     .toInteger(),
                 1000);
        // Same request bytes as ab, so nginx sends the same response bytes.
        const qint64 abTotal = abTotalTransferred(nginx.url(), keepAlive);
        QVERIFY(abTotal > 4'897'000);
        QCOMPARE(json.value(QStringLiteral("bytes_total")).toInteger(), abTotal);
    }

    void jsonHasEveryDocumentedKey() {
        NginxPeer nginx(100);
        QVERIFY2(nginx.isRunning(), qPrintable(nginx.error()));
        const Outcome ours = runCli({QStringLiteral("http"), QStringLiteral("-k"),
                                     QStringLiteral("-n"), QStringLiteral("200"),
                                     QStringLiteral("--json"), QStringLiteral("-"), nginx.url()});
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = QJsonDocument::fromJson(ours.out).object();
        const QStringList keys{QStringLiteral("complete"),
                               QStringLiteral("failed"),
                               QStringLiteral("failed_connect"),
                               QStringLiteral("failed_receive"),
                               QStringLiteral("failed_length"),
                               QStringLiteral("failed_exceptions"),
                               QStringLiteral("timeouts"),
                               QStringLiteral("non_2xx"),
                               QStringLiteral("keep_alive"),
                               QStringLiteral("bytes_total"),
                               QStringLiteral("bytes_body"),
                               QStringLiteral("duration_s"),
                               QStringLiteral("requests_per_second"),
                               QStringLiteral("transfer_rate_kib_s"),
                               QStringLiteral("concurrency"),
                               QStringLiteral("threads"),
                               QStringLiteral("status_codes"),
                               QStringLiteral("server_software"),
                               QStringLiteral("document_length"),
                               QStringLiteral("latency_ms"),
                               QStringLiteral("connect_ms"),
                               QStringLiteral("waiting_ms")};
        for (const QString& key : keys)
            QVERIFY2(json.contains(key), qPrintable(key));
        const QStringList latencyKeys{
            QStringLiteral("min"),    QStringLiteral("mean"), QStringLiteral("sd"),
            QStringLiteral("p50"),    QStringLiteral("p66"),  QStringLiteral("p75"),
            QStringLiteral("p80"),    QStringLiteral("p90"),  QStringLiteral("p95"),
            QStringLiteral("p98"),    QStringLiteral("p99"),  QStringLiteral("p99_9"),
            QStringLiteral("p99_99"), QStringLiteral("max")};
        for (const char* object : {"latency_ms", "connect_ms", "waiting_ms"}) {
            const QJsonObject latency = json.value(QLatin1String(object)).toObject();
            for (const QString& key : latencyKeys)
                QVERIFY2(latency.contains(key),
                         qPrintable(QLatin1String(object) + QLatin1Char('.') + key));
        }
        const QJsonObject latency = json.value(QStringLiteral("latency_ms")).toObject();
        QVERIFY(latency.value(QStringLiteral("min")).toDouble() > 0);
        QVERIFY(latency.value(QStringLiteral("p50")).toDouble() <=
                latency.value(QStringLiteral("p99")).toDouble());
        QVERIFY(latency.value(QStringLiteral("p99")).toDouble() <=
                latency.value(QStringLiteral("max")).toDouble());
        const double rps = json.value(QStringLiteral("requests_per_second")).toDouble();
        const double duration = json.value(QStringLiteral("duration_s")).toDouble();
        QVERIFY(qAbs(rps * duration - 200) < 1);
    }

    void reportFollowsAbsLayout() {
        NginxPeer nginx(4897);
        QVERIFY2(nginx.isRunning(), qPrintable(nginx.error()));
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("run.csv"));
        const Outcome ours =
            runCli({QStringLiteral("http"), QStringLiteral("-k"), QStringLiteral("-c"),
                    QStringLiteral("4"), QStringLiteral("-n"), QStringLiteral("400"),
                    QStringLiteral("--csv"), csv, nginx.url()});
        QCOMPARE(ours.exitCode, 0);
        const QString text = QString::fromUtf8(ours.out);
        const QStringList sections{
            QStringLiteral("Server Software:"),
            QStringLiteral("Server Hostname:"),
            QStringLiteral("Server Port:"),
            QStringLiteral("Document Path:"),
            QStringLiteral("Document Length:        4897 bytes"),
            QStringLiteral("Concurrency Level:      4"),
            QStringLiteral("Time taken for tests:"),
            QStringLiteral("Complete requests:      400"),
            QStringLiteral("Failed requests:        0"),
            QStringLiteral("Keep-Alive requests:    400"),
            QStringLiteral("Total transferred:"),
            QStringLiteral("HTML transferred:       1958800 bytes"),
            QStringLiteral("Requests per second:"),
            QStringLiteral("[ms] (mean)"),
            QStringLiteral("(mean, across all concurrent requests)"),
            QStringLiteral("Transfer rate:"),
            QStringLiteral("Connection Times (ms)"),
            QStringLiteral("Connect:"),
            QStringLiteral("Processing:"),
            QStringLiteral("Waiting:"),
            QStringLiteral("Total:"),
            QStringLiteral("Percentage of the requests served within a certain time (ms)"),
            QStringLiteral("50%"),
            QStringLiteral("99.9%"),
            QStringLiteral("99.99%"),
            QStringLiteral("100%")};
        qsizetype at = 0;
        for (const QString& section : sections) {
            const qsizetype found = text.indexOf(section, at);
            QVERIFY2(found >= 0, qPrintable(QStringLiteral("missing or out of order: ") + section));
            at = found;
        }
        QVERIFY(ours.err.contains("Finished 400 requests"));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        QVERIFY(lines.size() >= 2);
        const QList<QByteArray> header = lines.at(0).trimmed().split(',');
        const QList<QByteArray> row = lines.at(1).trimmed().split(',');
        QCOMPARE(header.size(), row.size());
        QCOMPARE(row.at(header.indexOf("complete")), QByteArray("400"));
        QCOMPARE(row.at(header.indexOf("bytes_body")), QByteArray("1958800"));
    }

    void badArgumentsGiveOneLineAndExitTwo_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no URL") << QStringList{} << QStringLiteral("URL");
        QTest::newRow("malformed URL")
            << QStringList{QStringLiteral("http//x")} << QStringLiteral("URL");
        QTest::newRow("https") << QStringList{QStringLiteral("https://127.0.0.1/")}
                               << QStringLiteral("TLS");
        QTest::newRow("ftp") << QStringList{QStringLiteral("ftp://127.0.0.1/")}
                             << QStringLiteral("scheme");
        QTest::newRow("bad port") << QStringList{QStringLiteral("http://127.0.0.1:99999/")}
                                  << QStringLiteral("port");
        QTest::newRow("n < c") << QStringList{QStringLiteral("-c"), QStringLiteral("10"),
                                              QStringLiteral("-n"), QStringLiteral("5"),
                                              QStringLiteral("http://127.0.0.1/")}
                               << QStringLiteral("greater than the number of requests");
        QTest::newRow("c not a number") << QStringList{QStringLiteral("-c"), QStringLiteral("many"),
                                                       QStringLiteral("http://127.0.0.1/")}
                                        << QStringLiteral("-c");
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("--bogus"), QStringLiteral("http://127.0.0.1/")}
            << QStringLiteral("bogus");
        QTest::newRow("header without colon")
            << QStringList{QStringLiteral("-H"), QStringLiteral("NoColon"),
                           QStringLiteral("http://127.0.0.1/")}
            << QStringLiteral("-H");
        QTest::newRow("missing body file")
            << QStringList{QStringLiteral("-p"), QStringLiteral("/nonexistent/body"),
                           QStringLiteral("http://127.0.0.1/")}
            << QStringLiteral("/nonexistent/body");
        QTest::newRow("bad duration") << QStringList{QStringLiteral("-t"), QStringLiteral("soon"),
                                                     QStringLiteral("http://127.0.0.1/")}
                                      << QStringLiteral("-t");
        QTest::newRow("pipeline without -k")
            << QStringList{QStringLiteral("--pipeline"), QStringLiteral("4"),
                           QStringLiteral("http://127.0.0.1/")}
            << QStringLiteral("keep-alive");
        QTest::newRow("cpu that does not exist")
            << QStringList{QStringLiteral("--cpus"), QStringLiteral("4096"),
                           QStringLiteral("http://127.0.0.1/")}
            << QStringLiteral("--cpus");
    }
    void badArgumentsGiveOneLineAndExitTwo() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const Outcome outcome = runCli(QStringList{QStringLiteral("http")} + arguments);
        QCOMPARE(outcome.exitCode, 2);
        const QString err = QString::fromUtf8(outcome.err).trimmed();
        QVERIFY2(!err.contains(QLatin1Char('\n')), qPrintable(err));
        QVERIFY2(err.contains(message), qPrintable(err));
        QVERIFY(outcome.out.isEmpty());
    }

    void unreachableTargetsExitThree_data() {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("message");
        QTest::newRow("refused port")
            << QStringLiteral("http://127.0.0.1:%1/").arg(freeLoopbackPort())
            << QStringLiteral("refused");
        QTest::newRow("unknown host") << QStringLiteral("http://no-such-host.invalid/")
                                      << QStringLiteral("no-such-host.invalid");
    }
    void unreachableTargetsExitThree() {
        QFETCH(QString, url);
        QFETCH(QString, message);
        const Outcome outcome =
            runCli({QStringLiteral("http"), QStringLiteral("-n"), QStringLiteral("10"), url});
        QCOMPARE(outcome.exitCode, 3);
        QVERIFY2(outcome.err.contains(message.toUtf8()), outcome.err.constData());
    }

    // The executable: its exit statuses and one-line errors, as a shell sees them.
    void theExecutableExitsAsDocumented_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("no command") << QStringList{} << 2 << QStringLiteral("Usage");
        QTest::newRow("unknown command")
            << QStringList{QStringLiteral("bogus")} << 2 << QStringLiteral("unknown command");
        QTest::newRow("bad option")
            << QStringList{QStringLiteral("http"), QStringLiteral("-c"), QStringLiteral("x"),
                           QStringLiteral("http://127.0.0.1/")}
            << 2 << QStringLiteral("loadscope-cli http: -c wants");
        QTest::newRow("refused")
            << QStringList{QStringLiteral("http"), QStringLiteral("-q"),
                           QStringLiteral("http://127.0.0.1:%1/").arg(freeLoopbackPort())}
            << 3 << QStringLiteral("refused");
        QTest::newRow("help") << QStringList{QStringLiteral("http"), QStringLiteral("--help")} << 0
                              << QString();
    }
    void theExecutableExitsAsDocumented() {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const Outcome outcome = runCliProcess(arguments);
        QCOMPARE(outcome.exitCode, exitCode);
        if (exitCode == 0) {
            QVERIFY(outcome.out.contains("loadscope-cli http"));
            return;
        }
        QVERIFY2(outcome.err.contains(message.toUtf8()), outcome.err.constData());
    }

    // A header name with a space is refused before any request, as in a sweep.
    void aBadHeaderNameIsRefused() {
        const Outcome outcome =
            runCli({QStringLiteral("http"), QStringLiteral("-H"), QStringLiteral("X Bad: 1"),
                    QStringLiteral("http://127.0.0.1:1/")});
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains("header name 'X Bad'"), outcome.err.constData());
    }

    void concurrencyAboveTheFileLimitIsRefused() {
        const Outcome outcome =
            run(QStringLiteral("/bin/sh"),
                {QStringLiteral("-c"),
                 QStringLiteral("ulimit -n 256 && exec \"$0\" http -c 1000 -n 1000 "
                                "http://127.0.0.1:1/"),
                 cli()});
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains("open files"), outcome.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestHttpCli)
#include "tst_http_cli.moc"
