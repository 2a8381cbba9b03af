// loadscope-cli tcp-rr --tls (netperf TCP_RR and TCP_CRR over raw TLS) against the embedded
// echo server with TLS, run here, in-process, so that its own counters are the independent
// truth: transactions and bytes both sides counted, one handshake per connection, resumption
// as asked; and the two mismatches, TLS against a cleartext peer and cleartext against a TLS
// one, each a counted failure in bounded time.
#include "app/servers/echo_server.h"
#include "cli_process.h"
#include "echo_cli_support.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using loadscope::testing::address;
using loadscope::testing::CliOutcome;
using loadscope::testing::exactRunArguments;
using loadscope::testing::integer;
using loadscope::testing::jsonAt;
using loadscope::testing::runCli;
using loadscope::testing::startEcho;
using loadscope::testing::verifyExactRun;

class TestTcpTlsCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void countsAreExactOverTls_data() {
        QTest::addColumn<int>("requestSize");
        QTest::addColumn<int>("responseSize");
        QTest::addColumn<int>("connections");
        QTest::addColumn<int>("transactions");
        QTest::addColumn<bool>("crr");
        QTest::addColumn<bool>("resume");
        QTest::addColumn<QString>("version");
        QTest::newRow("1,1 mirrored") << 1 << 1 << 1 << 1000 << false << true << QString();
        QTest::newRow("100,200 on 4 connections")
            << 100 << 200 << 4 << 1000 << false << true << QString();
        QTest::newRow("64 kB responses") << 10 << 65536 << 2 << 100 << false << true << QString();
        QTest::newRow("TLS 1.2") << 100 << 100 << 2 << 300 << false << true
                                 << QStringLiteral("1.2");
        QTest::newRow("--crr resumed") << 1 << 1 << 1 << 100 << true << true << QString();
        QTest::newRow("--crr --no-tls-resume")
            << 100 << 200 << 1 << 100 << true << false << QString();
        QTest::newRow("--crr on 3 connections, TLS 1.2")
            << 50 << 50 << 3 << 90 << true << true << QStringLiteral("1.2");
    }
    void countsAreExactOverTls() {
        QFETCH(int, requestSize);
        QFETCH(int, responseSize);
        QFETCH(int, connections);
        QFETCH(int, transactions);
        QFETCH(bool, crr);
        QFETCH(bool, resume);
        QFETCH(QString, version);
        auto echo = startEcho(size_t(requestSize), size_t(responseSize), true);
        QVERIFY(echo->isRunning());
        // Verified against the server's own certificate, as a user would with --cacert.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString caFile = dir.filePath(QStringLiteral("ca.pem"));
        QFile ca(caFile);
        QVERIFY(ca.open(QIODevice::WriteOnly));
        ca.write(QByteArray::fromStdString(echo->certificatePem()));
        ca.close();
        const loadscope::testing::ExactRun run{requestSize, responseSize, transactions, connections,
                                               crr};
        QStringList arguments = exactRunArguments(run)
                                << QStringLiteral("--tls") << QStringLiteral("--cacert") << caFile;
        if (!resume)
            arguments << QStringLiteral("--no-tls-resume");
        if (!version.isEmpty())
            arguments << QStringLiteral("--tls-version") << version;
        const CliOutcome ours = runCli(arguments << address(echo->port()));
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = ours.json();
        // The application's bytes, not the records': TLS framing is not counted, on either side.
        const qint64 opened = verifyExactRun(json, *echo, run);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(integer(json, "failed_tls"), 0);
        // One handshake per connection: per transaction with --crr.
        QCOMPARE(integer(json, "tls_handshakes"), opened);
        const qint64 resumed = integer(json, "tls_resumed");
        if (!resume)
            QCOMPARE(resumed, 0);
        else if (crr && connections == 1)
            // One connection after another: every one but the first resumes its predecessor's.
            QCOMPARE(resumed, opened - 1);
        else
            QVERIFY(resumed >= 0 && resumed < opened);
        QCOMPARE(json.value(QStringLiteral("tls_protocol")).toString(),
                 version == QLatin1String("1.2") ? QStringLiteral("TLSv1.2")
                                                 : QStringLiteral("TLSv1.3"));
        QVERIFY(!json.value(QStringLiteral("tls_cipher")).toString().isEmpty());
        QVERIFY(jsonAt(json, QStringLiteral("tls_ms.p50")).toDouble() > 0);

        echo->stop();
    }

    void reportShowsTheHandshakes() {
        auto echo = startEcho(1, 1, true);
        QVERIFY(echo->isRunning());
        const CliOutcome ours =
            runCli({QStringLiteral("tcp-rr"), QStringLiteral("--tls"), QStringLiteral("--insecure"),
                    QStringLiteral("--crr"), QStringLiteral("--no-tls-resume"),
                    QStringLiteral("-n"), QStringLiteral("20"), address(echo->port())});
        QCOMPARE(ours.exitCode, 0);
        const QString text = QString::fromUtf8(ours.out);
        QVERIFY2(text.contains(QStringLiteral("TCP_CRR test to ")), qPrintable(text));
        QVERIFY2(text.contains(QRegularExpression(QStringLiteral(
                     "\nTLS: TLSv1\\.3,\\S+, handshakes 20 \\(0 resumed, 20 full\\)\n"))),
                 qPrintable(text));
        QVERIFY2(text.contains(QRegularExpression(
                     QStringLiteral("\nTLS handshake \\(us\\): p50 \\d+\\.\\d, p99 \\d+\\.\\d, "
                                    "max \\d+\\.\\d\n"))),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Failed: 0\n")), qPrintable(text));
        echo->stop();
    }

    // The client speaks TLS, the peer echoes the ClientHello back: every connection fails its
    // handshake, counted as TLS, with the reason as the first error.
    void tlsAgainstACleartextPeerIsCountedTls() {
        auto echo = startEcho(1, 1, false);
        QVERIFY(echo->isRunning());
        const CliOutcome ours =
            runCli({QStringLiteral("tcp-rr"), QStringLiteral("--tls"), QStringLiteral("--insecure"),
                    QStringLiteral("-n"), QStringLiteral("5"), QStringLiteral("--timeout"),
                    QStringLiteral("2"), address(echo->port())});
        const QString text = QString::fromUtf8(ours.out);
        // netperf's Transactions counts every attempt, failed ones too.
        QVERIFY2(text.contains(QStringLiteral("\nTransactions: 5\nFailed: 5 (Connect: 0, Receive: "
                                              "0, Exceptions: 0, Timeouts: 0, Write: 0, TLS: 5)\n"
                                              "First error: TLS handshake with ")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("\nTLS: (no handshake completed), handshakes 0 (0 "
                                              "resumed, 0 full)\n")),
                 qPrintable(text));
        QVERIFY(!text.contains(QStringLiteral("TLS handshake (us)")));
        echo->stop();
    }

    // The peer speaks TLS, the client does not: the server fails the handshake on the request
    // bytes (or waits for more of a record than one byte) and the client counts its failure,
    // by the closed connection or by its response timeout, never hanging.
    void cleartextAgainstATlsPeerIsCounted_data() {
        QTest::addColumn<int>("size");
        QTest::newRow("64 bytes: not a TLS record") << 64;
        QTest::newRow("1 byte: part of a record header") << 1;
    }
    void cleartextAgainstATlsPeerIsCounted() {
        QFETCH(int, size);
        auto echo = startEcho(size_t(size), size_t(size), true);
        QVERIFY(echo->isRunning());
        const CliOutcome ours =
            runCli({QStringLiteral("tcp-rr"), QStringLiteral("-r"), QString::number(size),
                    QStringLiteral("-n"), QStringLiteral("3"), QStringLiteral("--timeout"),
                    QStringLiteral("1"), QStringLiteral("-l"), QStringLiteral("10"),
                    QStringLiteral("--json"), QStringLiteral("-"), address(echo->port())});
        const QJsonObject json = ours.json();
        // Every attempt failed: none is a transaction per second.
        QVERIFY2(integer(json, "failed") > 0, QByteArray(ours.out + ours.err).constData());
        QCOMPARE(integer(json, "failed"), integer(json, "complete"));
        QCOMPARE(json.value(QStringLiteral("transactions_per_second")).toDouble(), 0.0);
        QCOMPARE(integer(json, "failed_tls"), 0); // the client spoke no TLS
        QCOMPARE(integer(json, "bytes_total"), 0);
        QVERIFY(!json.value(QStringLiteral("first_error")).toString().isEmpty());
        echo->stop();
    }

    void tlsOptionsNeedTls_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("--insecure") << QStringList{QStringLiteral("--insecure")}
                                    << QStringLiteral("--insecure is a TLS option: it needs --tls");
        QTest::newRow("--tls-version")
            << QStringList{QStringLiteral("--tls-version"), QStringLiteral("1.3")}
            << QStringLiteral("--tls-version is a TLS option: it needs --tls");
        QTest::newRow("--tls-version 1.1")
            << QStringList{QStringLiteral("--tls"), QStringLiteral("--tls-version"),
                           QStringLiteral("1.1")}
            << QStringLiteral("1.1");
    }
    void tlsOptionsNeedTls() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const CliOutcome ours =
            runCli(QStringList{QStringLiteral("tcp-rr"), QStringLiteral("-n"), QStringLiteral("1")}
                   << arguments << QStringLiteral("127.0.0.1:9"));
        QCOMPARE(ours.exitCode, 2);
        QCOMPARE(ours.err.count('\n'), 1);
        QVERIFY2(ours.err.contains(message.toUtf8()), ours.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestTcpTlsCli)
#include "tst_tcp_tls_cli.moc"
