// loadscope-cli http refusing what it cannot run: every kind of bad argument
// (one line, exit status 2), unreachable targets (exit status 3), and the
// executable's exit statuses where the process itself is the subject (a
// shell's view, a file limit).
#include "cli_process.h"
#include "local_peers.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using loadscope::testing::CliOutcome;
using loadscope::testing::cliPath;
using loadscope::testing::freeLoopbackPort;
using loadscope::testing::runCli;
using loadscope::testing::runCliProcess;
using loadscope::testing::runProgram;

class TestHttpCliExitStatuses : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(cliPath()), "LOADSCOPE_CLI must name the loadscope-cli binary");
    }

    void badArgumentsGiveOneLineAndExitTwo_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no URL") << QStringList{} << QStringLiteral("URL");
        QTest::newRow("malformed URL")
            << QStringList{QStringLiteral("http//x")} << QStringLiteral("URL");
        QTest::newRow("cacert missing")
            << QStringList{QStringLiteral("--cacert"), QStringLiteral("/nonexistent/ca.pem"),
                           QStringLiteral("https://127.0.0.1/")}
            << QStringLiteral("ca.pem");
        QTest::newRow("TLS option on http URL")
            << QStringList{QStringLiteral("--insecure"), QStringLiteral("http://127.0.0.1/")}
            << QStringLiteral("https://");
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
        const CliOutcome outcome = runCli(QStringList{QStringLiteral("http")} + arguments);
        const QString refusal = outcome.refusalProblem(message);
        QVERIFY2(refusal.isEmpty(), qPrintable(refusal));
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
        const CliOutcome outcome =
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
        const CliOutcome outcome = runCliProcess(arguments);
        QCOMPARE(outcome.exitCode, exitCode);
        if (exitCode == 0) {
            QVERIFY(outcome.out.contains("loadscope-cli http"));
            return;
        }
        QVERIFY2(outcome.err.contains(message.toUtf8()), outcome.err.constData());
    }

    // A run holds its body once; one that cannot be held even once is refused before it is
    // read (main read all of it and aborted in std::bad_alloc).
    void aBodyLargerThanMemoryIsRefusedBeforeReading() {
        QTemporaryDir dir;
        QFile body(dir.filePath(QStringLiteral("body")));
        QVERIFY(body.open(QIODevice::WriteOnly));
        QVERIFY(body.resize(qint64(1) << 40)); // 1 TiB, sparse: it costs no disk
        body.close();
        const CliOutcome outcome =
            runCli({QStringLiteral("http"), QStringLiteral("-n"), QStringLiteral("1"),
                    QStringLiteral("-p"), body.fileName(), QStringLiteral("http://127.0.0.1:1/")});
        QCOMPARE(outcome.exitCode, 2);
        const QString err = QString::fromUtf8(outcome.err).trimmed();
        QVERIFY2(!err.isEmpty() && !err.contains(QLatin1Char('\n')), qPrintable(err));
        QVERIFY2(err.contains(body.fileName()), qPrintable(err));
    }

    // A header name with a space is refused before any request, as in a sweep.
    void aBadHeaderNameIsRefused() {
        const CliOutcome outcome =
            runCli({QStringLiteral("http"), QStringLiteral("-H"), QStringLiteral("X Bad: 1"),
                    QStringLiteral("http://127.0.0.1:1/")});
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains("header name 'X Bad'"), outcome.err.constData());
    }

    void concurrencyAboveTheFileLimitIsRefused() {
        const CliOutcome outcome =
            runProgram(QStringLiteral("/bin/sh"),
                       {QStringLiteral("-c"),
                        QStringLiteral("ulimit -n 256 && exec \"$0\" http -c 1000 -n 1000 "
                                       "http://127.0.0.1:1/"),
                        cliPath()});
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains("open files"), outcome.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestHttpCliExitStatuses)
#include "tst_http_cli_exit_statuses.moc"
