// What a typed value or a server's reply may do to the wire and the terminal:
// a method, header or content type that would put a second request on the
// wire is refused before anything connects (from the CLI and from a session
// file alike); a server's text reaches the report with its control characters
// escaped; Ctrl-C and SIGTERM end a one-shot with the report of what ran.
#include "app/common/printable_text.h"
#include "app/servers/echo_server.h"
#include "app/servers/sink_server.h"
#include "canned_reply_server.h"
#include "cli_process.h"
#include "fixed_delay_server.h"
#include "local_peers.h"
#include "silent_peer.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <csignal>

using loadscope::testing::CannedReplyServer;
using loadscope::testing::CliOutcome;
using loadscope::testing::FixedDelayServer;
using loadscope::testing::runCli;

namespace {

QString urlOf(quint16 port) {
    return QStringLiteral("http://127.0.0.1:%1/").arg(port);
}

QString addressOf(quint16 port) {
    return QStringLiteral("127.0.0.1:%1").arg(port);
}

// The first byte a terminal would act on (a C0 control but the report's own
// newlines, DEL, or a C1 control written in UTF-8), or -1.
int firstRawControl(const QByteArray& text) {
    const QString decoded = QString::fromUtf8(text);
    for (qsizetype i = 0; i < decoded.size(); ++i) {
        const char16_t u = decoded.at(i).unicode();
        if ((u < 0x20 && u != u'\n') || (u >= 0x7f && u <= 0x9f))
            return int(u);
    }
    return -1;
}

// A one-target, one-point session file for `url` whose http object `edit`
// changes; written into `dir`.
QString writeSession(const QTemporaryDir& dir, const QString& url,
                     void (*edit)(QJsonObject& http)) {
    const QString id = QStringLiteral("6f1d2a4e-9c3b-4d8a-8f55-1a2b3c4d5e01");
    QJsonObject http{{QStringLiteral("bodyFile"), QString()},
                     {QStringLiteral("contentType"), QString()},
                     {QStringLiteral("headers"), QJsonArray()},
                     {QStringLiteral("keepAlive"), true},
                     {QStringLiteral("method"), QStringLiteral("GET")},
                     {QStringLiteral("pipeline"), 1},
                     {QStringLiteral("url"), url}};
    edit(http);
    const QJsonObject target{{QStringLiteral("address"), QString()},
                             {QStringLiteral("colour"), QStringLiteral("#0072b2")},
                             {QStringLiteral("http"), http},
                             {QStringLiteral("id"), id},
                             {QStringLiteral("mode"), QStringLiteral("host")},
                             {QStringLiteral("name"), QStringLiteral("host")},
                             {QStringLiteral("protocol"), QStringLiteral("http")}};
    const QJsonObject plan{{QStringLiteral("concurrency"), QJsonArray{1}},
                           {QStringLiteral("cpus"), QJsonArray()},
                           {QStringLiteral("durationSeconds"), 0.2},
                           {QStringLiteral("limit"), QStringLiteral("duration")},
                           {QStringLiteral("order"), QStringLiteral("interleaved")},
                           {QStringLiteral("pauseSeconds"), 0},
                           {QStringLiteral("repetitions"), 1},
                           {QStringLiteral("requestsPerPoint"), 100},
                           {QStringLiteral("threads"), 1},
                           {QStringLiteral("warmupSeconds"), 0}};
    const QJsonObject session{{QStringLiteral("baseline"), id},
                              {QStringLiteral("format"), QStringLiteral("loadscope-session")},
                              {QStringLiteral("name"), QStringLiteral("injection")},
                              {QStringLiteral("notes"), QString()},
                              {QStringLiteral("plan"), plan},
                              {QStringLiteral("results"), QJsonArray()},
                              {QStringLiteral("targets"), QJsonArray{target}},
                              {QStringLiteral("version"), 1}};
    const QString path = dir.filePath(QStringLiteral("injection.loadscope"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    file.write(QJsonDocument(session).toJson());
    return path;
}

void addHeader(QJsonObject& http, const QString& name, const QString& value) {
    QJsonArray headers = http.value(QStringLiteral("headers")).toArray();
    headers.append(QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("value"), value}});
    http.insert(QStringLiteral("headers"), headers);
}

// A one-byte body file for -p, in `dir`.
QString writeBodyFile(const QTemporaryDir& dir) {
    const QString path = dir.filePath(QStringLiteral("body"));
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write("x");
    return path;
}

using SessionEdit = void (*)(QJsonObject&);

} // namespace

Q_DECLARE_METATYPE(SessionEdit)

class TestWireSafety : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(loadscope::testing::cliPath()),
                 "LOADSCOPE_CLI must name the loadscope-cli binary");
    }

    // Fails on a main where -H, -m and -T went on the wire as typed.
    void injectionFromTheCommandLineIsRefused_data() {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("named"); // what the one line must name
        QTest::newRow("CR LF in a header value")
            << QStringList{QStringLiteral("-H"), QStringLiteral("X: a\r\nGET /evil")}
            << QStringLiteral("header 'X'");
        QTest::newRow("LF alone in a header value")
            << QStringList{QStringLiteral("-H"), QStringLiteral("X: a\nGET /evil")}
            << QStringLiteral("header 'X'");
        QTest::newRow("NUL in a header value")
            << QStringList{QStringLiteral("-H"),
                           QStringLiteral("X: a") + QChar(0) + QStringLiteral("b")}
            << QStringLiteral("header 'X'");
        QTest::newRow("empty method")
            << QStringList{QStringLiteral("-m"), QString()} << QStringLiteral("method");
        QTest::newRow("method with a space")
            << QStringList{QStringLiteral("-m"), QStringLiteral("GE T")}
            << QStringLiteral("method 'GE T'");
        QTest::newRow("method with CR LF")
            << QStringList{QStringLiteral("-m"), QStringLiteral("GET / HTTP/1.1\r\nX:")}
            << QStringLiteral("method");
        QTest::newRow("header name with a space")
            << QStringList{QStringLiteral("-H"), QStringLiteral("X Y: a")}
            << QStringLiteral("header name 'X Y'");
        QTest::newRow("header name with a bracket")
            << QStringList{QStringLiteral("-H"), QStringLiteral("X(: a")}
            << QStringLiteral("header name 'X('");
        QTest::newRow("CR LF in the content type")
            << QStringList{QStringLiteral("-p"), QStringLiteral("BODY"), QStringLiteral("-T"),
                           QStringLiteral("text/plain\r\nX-Evil: 1")}
            << QStringLiteral("content type");
        QTest::newRow("CR LF in the URL")
            << QStringList{QStringLiteral("URL"), QStringLiteral("a\r\nGET /evil")}
            << QStringLiteral("path or query");
    }
    void injectionFromTheCommandLineIsRefused() {
        QFETCH(QStringList, options);
        QFETCH(QString, named);
        CannedReplyServer server("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false);
        QVERIFY(server.isRunning());
        QTemporaryDir dir;
        const QString body = writeBodyFile(dir);
        QString url = urlOf(server.port());
        QStringList arguments{QStringLiteral("http"), QStringLiteral("-n"), QStringLiteral("5")};
        for (qsizetype i = 0; i < options.size(); ++i) {
            if (options[i] == u"URL")
                url += options[++i];
            else
                arguments << (options[i] == u"BODY" ? body : options[i]);
        }
        const CliOutcome outcome = runCli(arguments << url);
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.errorLines().size(), 1);
        QVERIFY2(outcome.err.contains(named.toUtf8()), outcome.err.constData());
        QCOMPARE(firstRawControl(outcome.err.trimmed()), -1);
        QTest::qWait(100); // a connection would have been accepted by now
        QCOMPARE(server.connectionsAccepted(), uint64_t(0));
    }

    // The same fields from a session file: refused at load or by the builder,
    // before the sweep connects.
    void injectionFromASessionIsRefused_data() {
        QTest::addColumn<SessionEdit>("edit");
        QTest::addColumn<QString>("named");
        QTest::newRow("CR LF in a header value") << SessionEdit([](QJsonObject& http) {
            addHeader(http, QStringLiteral("X"), QStringLiteral("a\r\nGET /evil HTTP/1.1"));
        }) << QStringLiteral("header 'X'");
        QTest::newRow("method with a space") << SessionEdit([](QJsonObject& http) {
            http.insert(QStringLiteral("method"), QStringLiteral("GE T"));
        }) << QStringLiteral("method 'GE T'");
        QTest::newRow("empty method") << SessionEdit([](QJsonObject& http) {
            http.insert(QStringLiteral("method"), QString());
        }) << QStringLiteral("method");
        QTest::newRow("header name with a space") << SessionEdit([](QJsonObject& http) {
            addHeader(http, QStringLiteral("X Y"), QStringLiteral("a"));
        }) << QStringLiteral("'X Y'");
        QTest::newRow("CR LF in the content type") << SessionEdit([](QJsonObject& http) {
            http.insert(QStringLiteral("contentType"), QStringLiteral("text/plain\r\nX: 1"));
            http.insert(QStringLiteral("bodyFile"), QStringLiteral("BODY"));
        }) << QStringLiteral("content type");
    }
    void injectionFromASessionIsRefused() {
        QFETCH(SessionEdit, edit);
        QFETCH(QString, named);
        CannedReplyServer server("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false);
        QVERIFY(server.isRunning());
        QTemporaryDir dir;
        QString path = writeSession(dir, urlOf(server.port()), edit);
        QVERIFY(!path.isEmpty());
        // A body file that exists, so that only the content type is wrong.
        const QString body = writeBodyFile(dir);
        QFile session(path);
        QVERIFY(session.open(QIODevice::ReadOnly));
        QByteArray text = session.readAll();
        session.close();
        text.replace(
            "\"BODY\"",
            QJsonDocument(QJsonArray{body}).toJson(QJsonDocument::Compact).mid(1).chopped(1));
        QVERIFY(session.open(QIODevice::WriteOnly | QIODevice::Truncate));
        session.write(text);
        session.close();

        const CliOutcome outcome = runCli({QStringLiteral("sweep"), path, QStringLiteral("-q")});
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(named.toUtf8()), outcome.err.constData());
        QCOMPARE(firstRawControl(outcome.err.trimmed()), -1);
        QTest::qWait(100);
        QCOMPARE(server.connectionsAccepted(), uint64_t(0));
    }

    void printableTextEscapesControlCharacters_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("shown");
        QTest::newRow("plain") << QStringLiteral("nginx/1.22.1") << QStringLiteral("nginx/1.22.1");
        QTest::newRow("OSC title") << QStringLiteral("a\x1b]0;pwn\x07"
                                                     "b")
                                   << QStringLiteral("a\\x1B]0;pwn\\x07b");
        QTest::newRow("CR and LF") << QStringLiteral("a\r\nb") << QStringLiteral("a\\x0D\\x0Ab");
        QTest::newRow("NUL") << (QStringLiteral("a") + QChar(0) + QStringLiteral("b"))
                             << QStringLiteral("a\\x00b");
        QTest::newRow("tab and DEL")
            << QStringLiteral("a\tb\x7f") << QStringLiteral("a\\x09b\\x7F");
        QTest::newRow("C1 CSI") << (QStringLiteral("a") + QChar(0x9b) + QStringLiteral("2J"))
                                << QStringLiteral("a\\u009B2J");
        QTest::newRow("UTF-8 kept") << QStringLiteral("caf\u00e9") << QStringLiteral("caf\u00e9");
    }
    void printableTextEscapesControlCharacters() {
        QFETCH(QString, text);
        QFETCH(QString, shown);
        QCOMPARE(loadscope::app::printableText(text), shown);
        QCOMPARE(loadscope::app::printableText(std::string_view(text.toStdString())), shown);
    }

    // Fails on a main where the Server header went raw into the ab report.
    void serverHeaderIsEscapedInTheReport() {
        CannedReplyServer server("HTTP/1.1 200 OK\r\nServer: a\x1b]0;pwn\x07"
                                 "b\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                                 true);
        QVERIFY(server.isRunning());
        const CliOutcome outcome = runCli({QStringLiteral("http"), QStringLiteral("-n"),
                                           QStringLiteral("3"), urlOf(server.port())});
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY2(outcome.out.contains("Server Software:        a\\x1B]0;pwn\\x07b\n"),
                 outcome.out.constData());
        QCOMPARE(firstRawControl(outcome.out), -1);
        QCOMPARE(firstRawControl(outcome.err), -1);
    }

    // A memcached error line is the server's text too (memtier's report).
    void memcachedErrorTextIsEscapedInTheReport() {
        CannedReplyServer server("SERVER_ERROR out\x1b[2Jof memory\r\n", false);
        QVERIFY(server.isRunning());
        const CliOutcome outcome =
            runCli({QStringLiteral("memcache"), QStringLiteral("-c"), QStringLiteral("1"),
                    QStringLiteral("-t"), QStringLiteral("1"), QStringLiteral("-n"),
                    QStringLiteral("5"), addressOf(server.port())});
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY2(outcome.out.contains("SERVER_ERROR out\\x1B[2Jof memory"),
                 outcome.out.constData());
        QCOMPARE(firstRawControl(outcome.out), -1);
    }

    void zeroTimeLimitSaysItMustBePositive() {
        const CliOutcome outcome =
            runCli({QStringLiteral("http"), QStringLiteral("-t"), QStringLiteral("0"), urlOf(9)});
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.err, QByteArray("loadscope-cli http: -t must be more than 0 seconds\n"));
    }

    // Fails on a main that echoed "http://127.0.0.1:9/a?b", a query it never had.
    void urlWithASpaceIsEchoedAsTyped() {
        const CliOutcome outcome =
            runCli({QStringLiteral("http"), QStringLiteral("-n"), QStringLiteral("1"),
                    QStringLiteral("http://127.0.0.1:9/a b")});
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains("'http://127.0.0.1:9/a b'"), outcome.err.constData());
        QVERIFY2(outcome.err.contains("%20"), outcome.err.constData());
    }

    // A peer that hangs up on every request completes no transaction: the
    // rate is 0 however many failures a second it causes.
    void rrRateCountsNoFailedTransaction() {
        CannedReplyServer peer(QByteArray(), true, 'A'); // reads the request, closes
        QVERIFY(peer.isRunning());
        const CliOutcome report = runCli({QStringLiteral("tcp-rr"), QStringLiteral("-n"),
                                          QStringLiteral("200"), addressOf(peer.port())});
        QCOMPARE(report.exitCode, 0);
        // The figure under "Trans. Rate": the last column of the row after the units.
        const auto row = QRegularExpression(QStringLiteral("per sec\\n\\n([^\\n]+)\\n"))
                             .match(QString::fromUtf8(report.out));
        QVERIFY2(row.hasMatch(), report.out.constData());
        QCOMPARE(row.captured(1).split(QLatin1Char(' '), Qt::SkipEmptyParts).last(),
                 QStringLiteral("0.00"));
        QVERIFY(report.out.contains("Failed: 200 "));
        const CliOutcome json =
            runCli({QStringLiteral("tcp-rr"), QStringLiteral("-n"), QStringLiteral("200"),
                    QStringLiteral("--json"), QStringLiteral("-"), addressOf(peer.port())});
        QCOMPARE(json.exitCode, 0);
        QCOMPARE(json.json().value(QStringLiteral("failed")).toInteger(), 200);
        QCOMPARE(json.json().value(QStringLiteral("transactions_per_second")).toDouble(), 0.0);
        // Every one of the 400 requests reached the peer, and none was answered.
        QTRY_COMPARE_WITH_TIMEOUT(peer.requestsAnswered(), uint64_t(400), 5000);
    }

    // A peer that reads nothing takes at most its receive buffer: the bytes
    // delivered are no more than that, not the client's send buffer, and the
    // report says the run delivered nothing. Fails on a main that counted
    // the send buffer's fill (megabytes) when the peer reset or stalled.
    void streamToAPeerThatReadsNothingDeliversNothing_data() {
        QTest::addColumn<int>("closeAfterMs");
        QTest::newRow("never closes") << 0;
        QTest::newRow("closes unread during the drain") << 1500;
    }
    void streamToAPeerThatReadsNothingDeliversNothing() {
        QFETCH(int, closeAfterMs);
        loadscope::testing::SilentPeer peer{std::chrono::milliseconds(closeAfterMs)};
        QVERIFY(peer.port() != 0);
        const CliOutcome outcome =
            runCli({QStringLiteral("tcp-stream"), QStringLiteral("-l"), QStringLiteral("1"),
                    QStringLiteral("--json"), QStringLiteral("-"), addressOf(peer.port())});
        QCOMPARE(outcome.exitCode, 0);
        QCOMPARE(peer.accepted(), 1);
        const QJsonObject json = outcome.json();
        const qint64 sent = json.value(QStringLiteral("bytes_sent")).toInteger(-1);
        QVERIFY2(sent >= 0 && sent <= peer.receiveBuffer(),
                 qPrintable(QStringLiteral("%1 bytes counted, the peer's buffer holds %2")
                                .arg(sent)
                                .arg(peer.receiveBuffer())));
        const double seconds = json.value(QStringLiteral("duration_s")).toDouble();
        QVERIFY2(seconds >= 0.9, qPrintable(QString::number(seconds)));
        if (closeAfterMs == 0) {
            loadscope::testing::SilentPeer again;
            const CliOutcome report = runCli({QStringLiteral("tcp-stream"), QStringLiteral("-l"),
                                              QStringLiteral("1"), addressOf(again.port())});
            QCOMPARE(report.exitCode, 0);
            QVERIFY2(report.out.contains("The peer stopped reading on 1 of 1 connection:"),
                     report.out.constData());
            QVERIFY2(report.out.contains("The run delivered nothing"), report.out.constData());
        }
    }

    // Fails on a main where the first SIGINT killed the run with no report.
    void firstSignalEndsTheRunWithItsReport_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<int>("signal");
        QTest::addColumn<QByteArray>("completeLine"); // the report's count, a number after it
        QTest::newRow("http SIGINT")
            << QStringLiteral("http") << int(SIGINT) << QByteArray("Complete requests:");
        QTest::newRow("http SIGTERM")
            << QStringLiteral("http") << int(SIGTERM) << QByteArray("Complete requests:");
        QTest::newRow("tcp-rr SIGINT")
            << QStringLiteral("tcp-rr") << int(SIGINT) << QByteArray("Transactions:");
        QTest::newRow("tcp-stream SIGTERM")
            << QStringLiteral("tcp-stream") << int(SIGTERM) << QByteArray("Bytes sent:");
        QTest::newRow("memcache SIGINT")
            << QStringLiteral("memcache") << int(SIGINT) << QByteArray("Gets");
    }
    void firstSignalEndsTheRunWithItsReport() {
        QFETCH(QString, command);
        QFETCH(int, signal);
        QFETCH(QByteArray, completeLine);
        FixedDelayServer::Options options;
        options.delay = std::chrono::milliseconds(1);
        FixedDelayServer http(options);
        loadscope::app::EchoServerConfig echoConfig;
        echoConfig.threads = 1;
        loadscope::app::EchoServer echo(echoConfig);
        loadscope::app::SinkServer sink(loadscope::app::ServerConfig{"127.0.0.1", 0, 1});
        CannedReplyServer memcached("END\r\n", false);
        QVERIFY(http.isListening());
        QVERIFY(echo.start());
        QVERIFY(sink.start());
        QVERIFY(memcached.isRunning());
        QTemporaryDir dir;
        const QString jsonPath = dir.filePath(QStringLiteral("result.json"));
        QStringList arguments{command};
        if (command == u"http")
            arguments << QStringLiteral("-t") << QStringLiteral("30") << urlOf(http.port());
        else if (command == u"tcp-rr")
            arguments << QStringLiteral("-l") << QStringLiteral("30") << addressOf(echo.port());
        else if (command == u"tcp-stream")
            arguments << QStringLiteral("-l") << QStringLiteral("30") << addressOf(sink.port());
        else
            arguments << QStringLiteral("--test-time") << QStringLiteral("30")
                      << QStringLiteral("--ratio") << QStringLiteral("0:1") << QStringLiteral("-t")
                      << QStringLiteral("1") << QStringLiteral("-c") << QStringLiteral("1")
                      << addressOf(memcached.port());
        arguments << QStringLiteral("--json") << jsonPath;

        QProcess process;
        process.start(loadscope::testing::cliPath(), arguments);
        QVERIFY(process.waitForStarted(5000));
        QTest::qWait(700); // the run is under way
        QCOMPARE(process.state(), QProcess::Running);
        ::kill(pid_t(process.processId()), signal);
        QVERIFY2(process.waitForFinished(3000), "the run did not end within 3 s of the signal");
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 128 + signal);
        const QByteArray out = process.readAllStandardOutput();
        const QByteArray err = process.readAllStandardError();
        QVERIFY2(out.contains(completeLine), out.constData());
        QVERIFY2(out.contains("cancelled"), out.constData());
        QVERIFY2(
            err.contains(signal == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM"),
            err.constData());
        QFile json(jsonPath);
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject result = QJsonDocument::fromJson(json.readAll()).object();
        QCOMPARE(result.value(QStringLiteral("cancelled")).toBool(), true);
        const double duration = result.value(QStringLiteral("duration_s")).toDouble();
        QVERIFY2(duration > 0.3 && duration < 3, qPrintable(QString::number(duration)));
        const qint64 measured = command == u"tcp-stream"
                                    ? result.value(QStringLiteral("bytes_sent")).toInteger()
                                    : result.value(QStringLiteral("complete")).toInteger();
        QVERIFY2(measured > 0, qPrintable(QString::number(measured)));
    }

    // A signal during memcache --preload ends the command before anything is
    // measured: memcached's own counters show no get, and no report or JSON
    // is written.
    void signalDuringThePreloadMeasuresNothing() {
        loadscope::testing::MemcachedPeer memcached;
        QVERIFY2(memcached.isRunning(), qPrintable(memcached.error()));
        QTemporaryDir dir;
        const QString jsonPath = dir.filePath(QStringLiteral("result.json"));
        QProcess process;
        // Ten million keys to set one connection at a time: far longer than the test waits.
        process.start(loadscope::testing::cliPath(),
                      {QStringLiteral("memcache"), QStringLiteral("--preload"),
                       QStringLiteral("--key-maximum"), QStringLiteral("10000000"),
                       QStringLiteral("--test-time"), QStringLiteral("30"), QStringLiteral("-c"),
                       QStringLiteral("1"), QStringLiteral("-t"), QStringLiteral("1"),
                       QStringLiteral("--json"), jsonPath, addressOf(memcached.port())});
        QVERIFY(process.waitForStarted(5000));
        QTest::qWait(700); // the preload is under way
        QCOMPARE(process.state(), QProcess::Running);
        ::kill(pid_t(process.processId()), SIGTERM);
        QVERIFY2(process.waitForFinished(3000), "the preload did not end within 3 s of SIGTERM");
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 128 + SIGTERM);
        const QByteArray err = process.readAllStandardError();
        QVERIFY2(err.contains("interrupted during the preload: nothing was measured"),
                 err.constData());
        QVERIFY2(process.readAllStandardOutput().isEmpty(), "a report was printed");
        QVERIFY(!QFile::exists(jsonPath));
        const auto stats = memcached.stats();
        QVERIFY2(stats.value(QStringLiteral("cmd_set")) > 0, "the preload set nothing");
        QCOMPARE(stats.value(QStringLiteral("cmd_get")), 0);
    }
};

QTEST_GUILESS_MAIN(TestWireSafety)

#include "tst_wire_safety.moc"
