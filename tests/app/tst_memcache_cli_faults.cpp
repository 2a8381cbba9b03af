// loadscope-cli memcache against stand-ins that answer with errors, answer twice
// or hang up, each counted in its class without a hang; with bad arguments, one
// line and exit status 2; against a refused port, exit status 3.
#include "canned_reply_server.h"
#include "cli_process.h"
#include "local_peers.h"

#include <QFile>
#include <QTest>

using loadscope::testing::address;
using loadscope::testing::CannedReplyServer;
using loadscope::testing::CliOutcome;
using loadscope::testing::freeLoopbackPort;
using loadscope::testing::integer;
using loadscope::testing::jsonAt;
using loadscope::testing::runCli;
using loadscope::testing::runCliProcess;

class TestMemcacheCliFaults : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(loadscope::testing::cliPath()),
                 "LOADSCOPE_CLI must name the loadscope-cli binary");
    }

    void faultyPeersAreCountedWithoutHanging_data() {
        QTest::addColumn<QByteArray>("reply");
        QTest::addColumn<bool>("closeAfterReply");
        QTest::addColumn<QString>("counter");    // equals the number of requests
        QTest::addColumn<QString>("firstError"); // how first_error starts
        QTest::newRow("ERROR") << QByteArray("ERROR\r\n") << false
                               << QStringLiteral("error_replies.error") << QStringLiteral("ERROR");
        QTest::newRow("CLIENT_ERROR") << QByteArray("CLIENT_ERROR bad command line format\r\n")
                                      << false << QStringLiteral("error_replies.client_error")
                                      << QStringLiteral("CLIENT_ERROR bad command line format");
        QTest::newRow("SERVER_ERROR") << QByteArray("SERVER_ERROR temporary failure\r\n") << false
                                      << QStringLiteral("error_replies.server_error")
                                      << QStringLiteral("SERVER_ERROR temporary failure");
        QTest::newRow("malformed reply line")
            << QByteArray("HELLO\r\n") << false << QStringLiteral("failed_exceptions") << QString();
        QTest::newRow("VALUE longer than announced")
            << QByteArray("VALUE memtier-1 0 3\r\nabcdef\r\nEND\r\n") << false
            << QStringLiteral("failed_exceptions") << QString();
        QTest::newRow("closes in the middle of a value")
            << QByteArray("VALUE memtier-1 0 32\r\nabc") << true << QStringLiteral("failed_receive")
            << QString();
        QTest::newRow("closes before replying")
            << QByteArray() << true << QStringLiteral("failed_receive") << QString();
    }
    void faultyPeersAreCountedWithoutHanging() {
        QFETCH(QByteArray, reply);
        QFETCH(bool, closeAfterReply);
        QFETCH(QString, counter);
        QFETCH(QString, firstError);
        CannedReplyServer peer(reply, closeAfterReply);
        QVERIFY(peer.isRunning());
        // Gets only: one line per request, which the stand-in answers line by line.
        const CliOutcome ours = runCli(
            {QStringLiteral("memcache"), QStringLiteral("-c"), QStringLiteral("2"),
             QStringLiteral("-t"), QStringLiteral("1"), QStringLiteral("-n"), QStringLiteral("20"),
             QStringLiteral("--ratio=0:1"), QStringLiteral("--timeout"), QStringLiteral("10"),
             QStringLiteral("--json"), QStringLiteral("-"), address(peer.port())});
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = ours.json();
        QCOMPARE(integer(json, "complete"), 40);
        QCOMPARE(integer(json, "failed"), 40);
        QCOMPARE(jsonAt(json, counter).toInteger(), 40);
        QCOMPARE(integer(json, "timeouts"), 0);
        const qint64 replies = integer(json, "error_replies.error") +
                               integer(json, "error_replies.client_error") +
                               integer(json, "error_replies.server_error");
        QCOMPARE(replies, counter.startsWith(QLatin1String("error_replies")) ? 40 : 0);
        QCOMPARE(integer(json, "hits") + integer(json, "misses"), 0);
        QVERIFY(json.value(QStringLiteral("first_error")).toString().startsWith(firstError));
    }

    void extraReplyIsNotTakenForTheNextOne() {
        // Two replies to every get: the second must not answer the next get.
        CannedReplyServer peer("END\r\nEND\r\n", false);
        QVERIFY(peer.isRunning());
        const CliOutcome ours =
            runCli({QStringLiteral("memcache"), QStringLiteral("-c"), QStringLiteral("1"),
                    QStringLiteral("-t"), QStringLiteral("1"), QStringLiteral("-n"),
                    QStringLiteral("20"), QStringLiteral("--ratio=0:1"), QStringLiteral("--json"),
                    QStringLiteral("-"), address(peer.port())});
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = ours.json();
        QCOMPARE(integer(json, "complete"), 20);
        QVERIFY(integer(json, "failed_exceptions") > 0);
        QCOMPARE(integer(json, "misses") + integer(json, "failed"), 20);
        QCOMPARE(qint64(peer.requestsAnswered()), 20);
    }

    void badArgumentsGiveOneLineAndExitTwo_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        const QString target = QStringLiteral("127.0.0.1:11211");
        QTest::newRow("no HOST:PORT") << QStringList{} << QStringLiteral("HOST:PORT");
        QTest::newRow("two targets") << QStringList{target, target} << QStringLiteral("HOST:PORT");
        QTest::newRow("no port") << QStringList{QStringLiteral("127.0.0.1")}
                                 << QStringLiteral("HOST:PORT");
        QTest::newRow("port out of range")
            << QStringList{QStringLiteral("127.0.0.1:70000")} << QStringLiteral("HOST:PORT");
        QTest::newRow("ratio with a dash")
            << QStringList{QStringLiteral("--ratio=1-10"), target} << QStringLiteral("--ratio");
        QTest::newRow("ratio 0:0")
            << QStringList{QStringLiteral("--ratio=0:0"), target} << QStringLiteral("--ratio");
        QTest::newRow("key pattern X") << QStringList{QStringLiteral("--key-pattern=X:R"), target}
                                       << QStringLiteral("--key-pattern");
        QTest::newRow("key pattern without colon")
            << QStringList{QStringLiteral("--key-pattern=R"), target}
            << QStringLiteral("--key-pattern");
        QTest::newRow("key-minimum > key-maximum")
            << QStringList{QStringLiteral("--key-minimum"), QStringLiteral("100"),
                           QStringLiteral("--key-maximum"), QStringLiteral("10"), target}
            << QStringLiteral("greater than the key maximum");
        QTest::newRow("key prefix with a space")
            << QStringList{QStringLiteral("--key-prefix"), QStringLiteral("a b"), target}
            << QStringLiteral("prefix");
        QTest::newRow("-n and --test-time")
            << QStringList{QStringLiteral("-n"), QStringLiteral("10"),
                           QStringLiteral("--test-time"), QStringLiteral("5"), target}
            << QStringLiteral("cannot be combined");
        QTest::newRow("-n 0") << QStringList{QStringLiteral("-n"), QStringLiteral("0"), target}
                              << QStringLiteral("-n");
        QTest::newRow("-c 0") << QStringList{QStringLiteral("-c"), QStringLiteral("0"), target}
                              << QStringLiteral("-c");
        QTest::newRow("-t many") << QStringList{QStringLiteral("-t"), QStringLiteral("many"),
                                                target}
                                 << QStringLiteral("-t");
        QTest::newRow("-d 0") << QStringList{QStringLiteral("-d"), QStringLiteral("0"), target}
                              << QStringLiteral("-d");
        QTest::newRow("--pipeline 0")
            << QStringList{QStringLiteral("--pipeline"), QStringLiteral("0"), target}
            << QStringLiteral("--pipeline");
        QTest::newRow("--test-time soon")
            << QStringList{QStringLiteral("--test-time"), QStringLiteral("soon"), target}
            << QStringLiteral("--test-time");
        QTest::newRow("preload of ten billion keys")
            << QStringList{QStringLiteral("--preload"), QStringLiteral("--key-maximum"),
                           QStringLiteral("10000000000"), target}
            << QStringLiteral("preload of 10000000001 keys");
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("--bogus"), target} << QStringLiteral("bogus");
        QTest::newRow("cpu that does not exist")
            << QStringList{QStringLiteral("--cpus"), QStringLiteral("4096"), target}
            << QStringLiteral("--cpus");
    }
    void badArgumentsGiveOneLineAndExitTwo() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const CliOutcome ours = runCli(QStringList{QStringLiteral("memcache")} << arguments);
        QCOMPARE(ours.exitCode, 2);
        QCOMPARE(ours.errorLines().size(), 1);
        QVERIFY2(ours.err.startsWith("loadscope-cli memcache: "), ours.err.constData());
        QVERIFY2(ours.err.contains(message.toUtf8()), ours.err.constData());
        QVERIFY(ours.out.isEmpty());
    }

    void refusedPortExitsThree_data() {
        QTest::addColumn<bool>("preload");
        QTest::addColumn<bool>("fixedRate");
        QTest::newRow("run") << false << false;
        QTest::newRow("preload") << true << false;
        // Its connections open before any request is due: none is counted,
        // and the run must still say why it ended.
        QTest::newRow("fixed rate") << false << true;
    }
    void refusedPortExitsThree() {
        QFETCH(bool, preload);
        QFETCH(bool, fixedRate);
        QStringList arguments{QStringLiteral("memcache"),
                              QStringLiteral("-q"),
                              QStringLiteral("-c"),
                              QStringLiteral("2"),
                              QStringLiteral("-t"),
                              QStringLiteral("2"),
                              QStringLiteral("--key-maximum"),
                              QStringLiteral("100")};
        if (preload)
            arguments << QStringLiteral("--preload");
        if (fixedRate)
            arguments << QStringLiteral("--rate") << QStringLiteral("100");
        // The executable itself, for its exit status.
        const CliOutcome ours = runCliProcess(arguments << address(freeLoopbackPort()));
        QCOMPARE(ours.exitCode, 3);
        QCOMPARE(ours.errorLines().size(), 1);
        QVERIFY2(ours.err.contains("refused"), ours.err.constData());
        QVERIFY(ours.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestMemcacheCliFaults)
#include "tst_memcache_cli_faults.moc"
