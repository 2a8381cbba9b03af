// loadscope-cli tcp-rr --tls (netperf TCP_RR and TCP_CRR over raw TLS) against the embedded
// echo server with TLS, run here, in-process, so that its own counters are the independent
// truth: transactions and bytes both sides counted, one handshake per connection, resumption
// as asked; and the two mismatches, TLS against a cleartext peer and cleartext against a TLS
// one, each a counted failure in bounded time.
#include "app/cli/one_shot.h"
#include "app/servers/echo_server.h"
#include "app/session/json_reader.h"
#include "app/session/session_json.h"
#include "app/sweep/load_spec_builder.h"
#include "cli_process.h"
#include "echo_cli_support.h"
#include "serve_process.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using loadscope::testing::address;
using loadscope::testing::CliOutcome;
using loadscope::testing::exactRunArguments;
using loadscope::testing::integer;
using loadscope::testing::jsonAt;
using loadscope::testing::runCli;
using loadscope::testing::runCliProcess;
using loadscope::testing::ServeProcess;
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
        // The server's own count of the handshakes that resumed a session, whatever the order
        // in which the connections came; and where the schedule says how many, that number.
        const qint64 resumed = integer(json, "tls_resumed");
        QCOMPARE(resumed, qint64(echo->tlsResumed()));
        if (!resume)
            QCOMPARE(resumed, 0);
        else if (crr && connections == 1)
            // One connection after another: every one but the first resumes its predecessor's.
            QCOMPARE(resumed, opened - 1);
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

    // The command as a user runs it: `serve echo --tls` makes its certificate at start and says
    // that clients need --insecure; every transaction then goes through one handshake.
    void serveEchoTls() {
        ServeProcess echo({QStringLiteral("echo"), QStringLiteral("--tls"),
                           QStringLiteral("--request-size"), QStringLiteral("10"),
                           QStringLiteral("--response-size"), QStringLiteral("20")});
        QVERIFY(echo.port() != 0);
        const CliOutcome ours = runCli(
            {QStringLiteral("tcp-rr"), QStringLiteral("--tls"), QStringLiteral("--insecure"),
             QStringLiteral("-r"), QStringLiteral("10,20"), QStringLiteral("-n"),
             QStringLiteral("50"), QStringLiteral("--json"), QStringLiteral("-"), echo.address()});
        QCOMPARE(ours.exitCode, 0);
        const QJsonObject json = ours.json();
        QCOMPARE(integer(json, "complete"), 50);
        QCOMPARE(integer(json, "failed"), 0);
        QCOMPARE(integer(json, "bytes_total"), 50 * 20);
        QCOMPARE(integer(json, "tls_handshakes"), 1);

        // serve writes its errors to the process's own stderr: run it as a process.
        const CliOutcome refused =
            runCliProcess({QStringLiteral("serve"), QStringLiteral("echo"),
                           QStringLiteral("--cert"), QStringLiteral("/nonexistent.pem")});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("--cert and --key need --tls"), refused.err.constData());
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

    // The command line, a session's target saved and read back, and the spec agree: raw TLS with
    // the options given and no ALPN; a target without the "tls" object stays cleartext.
    void tlsOptionsReachTheSpecAndTheSession() {
        // The builder reads the file (through the checked reader) for the
        // engine, which opens no path: it must be there, whatever it holds.
        QTemporaryDir dir;
        const QString certificate = dir.filePath(QStringLiteral("c.pem"));
        {
            QFile file(certificate);
            QVERIFY(file.open(QIODevice::WriteOnly) && file.write("PEM text\n") == 9);
        }
        auto cli = loadscope::cli::parseTcpRrOneShot(
            {QStringLiteral("loadscope-cli tcp-rr"), QStringLiteral("--tls"),
             QStringLiteral("--insecure"), QStringLiteral("--no-tls-resume"),
             QStringLiteral("--tls-version"), QStringLiteral("1.2"), QStringLiteral("--cert"),
             certificate, QStringLiteral("--crr"), QStringLiteral("127.0.0.1:9443")});
        QVERIFY2(cli, qPrintable(cli ? QString() : cli.error().toString()));
        const loadscope::app::Target& target = cli->target;
        QVERIFY(target.tcpRr.tls && target.tcpRr.tlsInsecure && !target.tcpRr.tlsResume);
        QCOMPARE(target.tcpRr.tlsVersion, QStringLiteral("1.2"));
        QCOMPARE(target.tcpRr.tlsCertFile, certificate);

        loadscope::app::Target inSession = target; // a one-shot target has no id yet
        inSession.id = QUuid::createUuid();
        const QJsonObject saved = loadscope::app::targetToJson(inSession);
        const loadscope::app::JsonReader reader(saved);
        const loadscope::app::Target read = loadscope::app::targetFromJson(reader);
        QVERIFY2(reader.ok(), qPrintable(reader.error().toString()));
        QCOMPARE(read.tcpRr, target.tcpRr);

        const auto spec = loadscope::app::draftLoadSpec(read, 1, cli->plan);
        QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().toString()));
        QVERIFY(spec->spec.tls.enabled && !spec->spec.tls.verify && !spec->spec.tls.resume);
        QVERIFY(spec->spec.tls.version == loadscope::engine::TlsVersion::Tls12);
        QCOMPARE(spec->spec.tls.alpn, std::string());
        QCOMPARE(spec->spec.tls.serverName, std::string("127.0.0.1"));
        QCOMPARE(spec->spec.tls.certFile, certificate.toStdString());
        QCOMPARE(spec->spec.tls.certPem, std::string("PEM text\n"));

        loadscope::app::Target plain = read;
        plain.tcpRr = {};
        QVERIFY(!loadscope::app::targetToJson(plain)
                     .value(QStringLiteral("tcp-rr"))
                     .toObject()
                     .contains(QStringLiteral("tls")));
        const auto cleartext = loadscope::app::draftLoadSpec(plain, 1, cli->plan);
        QVERIFY(cleartext);
        QVERIFY(!cleartext->spec.tls.enabled);
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
