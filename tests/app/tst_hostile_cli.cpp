// loadscope-cli against hostile servers, absurd numbers, FIFOs, a spoofed lab
// environment and impossible imports, each run as a user's shell would under
// the limits of the hostile-input checks: `ulimit -v 4000000` and `timeout`.
// Each case must end within its own bounds (-t, -s, a SIGINT, or at once for
// a refusal) plus one second, with the exit status and the one line the
// README promises. The whole suite runs in a network namespace of its own
// (private_network.h): the load and the agent's refused targets cannot leave
// it, and TCP's default receive buffer there is 4 MiB, as on a tuned machine.
#include "app/agent/agent_protocol.h"
#include "app/servers/http_server.h"
#include "app/session/session_file.h"
#include "app/session/session_json.h"
#include "cli_process.h"
#include "hostile_files.h"
#include "hostile_peer.h"
#include "private_network.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <csignal>
#include <functional>

using namespace loadscope;
using testing::HostilePeer;
using namespace std::chrono_literals;

namespace {

// The client's CPU, which a flooding peer shares.
constexpr int kSharedCpu = 0;
// What `timeout` allows any case before it kills it: far past every bound,
// so that a case that does not end is measured, not merely killed.
constexpr int kHardLimitSeconds = 20;

struct Bounded {
    int exitCode = -1; // -1: killed by the hard limit
    QByteArray out;
    QByteArray err;
    double seconds = 0;
    double interruptedAt = -1; // when the SIGINT went, when one did

    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
    QList<QByteArray> errorLines() const {
        return err.trimmed().isEmpty() ? QList<QByteArray>() : err.trimmed().split('\n');
    }
    QString describe() const {
        return QStringLiteral("exit %1 after %2 s, stderr: %3")
            .arg(exitCode)
            .arg(seconds, 0, 'f', 2)
            .arg(QString::fromUtf8(err.trimmed()));
    }
};

// loadscope-cli with `arguments`, under 4 GB of address space and a hard
// timeout; `input` on its stdin (then closed); SIGINT as soon as `interrupt`
// says so, when given. `timeout --foreground` passes a SIGINT on to the
// command once; without it, timeout sends it to its process group as well,
// and a second signal ends loadscope-cli at once, as a second Ctrl-C does.
Bounded
runBounded(const QStringList& arguments, const QByteArray& input = {},
           const std::function<bool()>& interrupt = {},
           const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment()) {
    QProcess process;
    process.setProcessEnvironment(environment);
    QElapsedTimer clock;
    clock.start();
    process.start(
        QStringLiteral("bash"),
        QStringList{QStringLiteral("-c"),
                    QStringLiteral("ulimit -v 4000000 && exec timeout --foreground -s KILL %1 "
                                   "\"$0\" \"$@\"")
                        .arg(kHardLimitSeconds),
                    testing::cliPath()} +
            arguments);
    Bounded run;
    if (!process.waitForStarted(5000))
        return run;
    process.write(input);
    process.closeWriteChannel();
    if (interrupt) {
        while (!interrupt() && !process.waitForFinished(20)) {
        }
        if (process.state() != QProcess::NotRunning) {
            run.interruptedAt = double(clock.nsecsElapsed()) / 1e9;
            ::kill(pid_t(process.processId()), SIGINT);
        }
    }
    process.waitForFinished((kHardLimitSeconds + 5) * 1000);
    run.seconds = double(clock.nsecsElapsed()) / 1e9;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    const bool killed =
        process.exitStatus() != QProcess::NormalExit || process.exitCode() == 128 + SIGKILL;
    run.exitCode = killed ? -1 : process.exitCode();
    return run;
}

QString url(uint16_t port) {
    return QStringLiteral("http://127.0.0.1:%1/").arg(port);
}

QStringList strings(std::initializer_list<const char*> words) {
    QStringList list;
    for (const char* word : words)
        list.append(QString::fromUtf8(word));
    return list;
}

// Exit status 2 and one line on stderr that says `expected`, at once.
void checkRefused(const Bounded& run, const QString& expected) {
    QVERIFY2(run.exitCode == 2, qPrintable(run.describe()));
    QVERIFY2(run.errorLines().size() == 1, qPrintable(run.describe()));
    QVERIFY2(run.err.contains(expected.toUtf8()), qPrintable(run.describe()));
    QVERIFY2(run.seconds < 1.0, qPrintable(run.describe()));
}

QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(bytes) == bytes.size();
}

// An agent protocol conversation: hello, then one run (-n 1) of an http
// target at `address`, at `rate` requests/s (0: closed loop).
QByteArray agentRun(const QString& address, double rate = 0) {
    app::AgentRunRequest request;
    request.target = app::makeTarget(QStringLiteral("far"), app::DeploymentMode::Host, 0);
    request.target.http.url = QStringLiteral("http://%1/").arg(address);
    request.plan.limit = app::PointLimit::Requests;
    request.plan.requestsPerPoint = 1;
    request.rate = rate;
    app::AgentMessage run;
    run.type = app::AgentMessage::Type::Run;
    run.id = 1;
    run.run = request;
    return "{\"type\":\"hello\",\"protocol\":" + QByteArray::number(app::kAgentProtocolVersion) +
           "}\n" + app::encodeAgentMessage(run);
}

// The agent's replies after its hello: each a JSON object.
QList<QJsonObject> agentReplies(const Bounded& run) {
    QList<QJsonObject> replies;
    for (const QByteArray& line : run.out.trimmed().split('\n'))
        replies.append(QJsonDocument::fromJson(line).object());
    return replies;
}

} // namespace

class TestHostileCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(testing::cliPath()), "LOADSCOPE_CLI names no loadscope-cli");
        // Nothing here may reach the machine's network: without a namespace
        // of its own the suite does not run.
        if (const auto why = testing::enterPrivateNetwork())
            QSKIP(qPrintable(QStringLiteral("needs a private network namespace: %1")
                                 .arg(QString::fromStdString(*why))));
        QVERIFY(testing::setPrivateTcpBuffers("4096 4194304 33554432"));
        // A link with the lab's address range and a default route, neither of
        // them the lab's: what a spoofed agent would send load through. Its
        // other end is here too, and no one answers on it.
        for (const QStringList& step :
             {strings({"link", "add", "v0", "type", "veth", "peer", "name", "v1"}),
              strings({"addr", "add", "10.213.0.1/24", "dev", "v0"}),
              strings({"link", "set", "v0", "up"}), strings({"link", "set", "v1", "up"}),
              strings({"route", "add", "default", "dev", "v0"})}) {
            const testing::CliOutcome ip = testing::runProgram(QStringLiteral("ip"), step, 5000);
            QVERIFY2(ip.exitCode == 0, ip.err.constData());
        }
        QVERIFY(m_dir.isValid());
        m_fifo = test::makeFifo(m_dir);
        m_garbage = m_dir.filePath(QStringLiteral("garbage.pem"));
        QVERIFY(writeFile(m_garbage, "not a certificate\n"));
        const auto started = m_server.start();
        QVERIFY2(started, started ? "" : qPrintable(started.error().toString()));
    }
    void cleanupTestCase() { m_server.stop(); }

    // 1. Read loops that yield: a flood from the client's own CPU.
    void floodsEndByTheirBounds_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QStringList>("protocol");
        QTest::newRow("HTTP/2 WINDOW_UPDATE flood")
            << int(HostilePeer::Mode::H2FloodWindowUpdate) << QStringList{QStringLiteral("--h2")};
        QTest::newRow("HTTP/2 unknown frames")
            << int(HostilePeer::Mode::H2FloodUnknownFrames) << QStringList{QStringLiteral("--h2")};
        QTest::newRow("HTTP/1 endless body")
            << int(HostilePeer::Mode::Http1EndlessBody) << QStringList{};
    }
    void floodsEndByTheirBounds() {
        QFETCH(int, mode);
        QFETCH(QStringList, protocol);
        HostilePeer peer{HostilePeer::Mode(mode), kSharedCpu};
        QVERIFY(peer.isListening());
        const Bounded run = runBounded(QStringList{QStringLiteral("http")} + protocol +
                                       strings({"-t", "1", "-s", "0.3", "-c", "1", "--threads", "1",
                                                "--cpus", "0", "-q", "--json", "-"}) +
                                       QStringList{url(peer.port())});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY2(run.seconds < 1.0 + 1.0, qPrintable(run.describe()));
        QVERIFY2(run.json().value(QStringLiteral("timeouts")).toInt() >= 1, run.out.constData());
        QVERIFY2(peer.bytesSent() > 16u << 20, qPrintable(QString::number(peer.bytesSent())));
    }

    void aFloodStopsAtTheFirstSigint() {
        HostilePeer peer{HostilePeer::Mode::H2FloodUnknownFrames, kSharedCpu};
        QVERIFY(peer.isListening());
        // Interrupted once the flood is well under way (64 MiB sent).
        const Bounded run = runBounded(strings({"http", "--h2", "-t", "30", "-c", "1", "--threads",
                                                "1", "--cpus", "0", "-q", "--json", "-"}) +
                                           QStringList{url(peer.port())},
                                       {}, [&peer] { return peer.bytesSent() > 64u << 20; });
        QVERIFY2(run.exitCode == 130, qPrintable(run.describe()));
        QVERIFY2(run.interruptedAt > 0 && run.seconds - run.interruptedAt < 1.0,
                 qPrintable(run.describe()));
        QVERIFY2(run.errorLines().last().contains("interrupted by SIGINT"),
                 qPrintable(run.describe()));
        QVERIFY(run.json().value(QStringLiteral("cancelled")).toBool());
    }

    // 2. A connection that may not send, with nothing in flight.
    void noStreamsEndsByTheRequestTimeout() {
        HostilePeer peer{HostilePeer::Mode::H2NoStreams};
        QVERIFY(peer.isListening());
        const Bounded run =
            runBounded(strings({"http", "--h2", "-n", "2", "-s", "1", "-q", "--json", "-"}) +
                       QStringList{url(peer.port())});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY2(run.seconds < 1.0 + 1.0, qPrintable(run.describe()));
        const QJsonObject json = run.json();
        QCOMPARE(json.value(QStringLiteral("complete")).toInt(), 2);
        QCOMPARE(json.value(QStringLiteral("failed_goaway")).toInt(), 1);
        QVERIFY2(json.value(QStringLiteral("first_error"))
                     .toString()
                     .contains(QStringLiteral("SETTINGS_MAX_CONCURRENT_STREAMS 0")),
                 run.out.constData());
    }

    // 5. Streams the client resets, and sessions it ends, say why, at once.
    void malformedResponsesAreCountedAtOnce_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("reason");
        QTest::newRow(":status abc")
            << int(HostilePeer::Mode::H2BadStatus) << QStringLiteral("value: [abc]");
        QTest::newRow("no :status")
            << int(HostilePeer::Mode::H2NoStatus) << QStringLiteral("no :status");
        QTest::newRow("5 bytes of 100")
            << int(HostilePeer::Mode::H2ShortBody) << QStringLiteral("content-length 100");
        QTest::newRow("DATA on stream 0")
            << int(HostilePeer::Mode::H2DataOnStreamZero) << QStringLiteral("stream_id == 0");
        QTest::newRow("PUSH_PROMISE")
            << int(HostilePeer::Mode::H2PushPromise) << QStringLiteral("push disabled");
        QTest::newRow("oversized frame")
            << int(HostilePeer::Mode::H2OversizedFrame) << QStringLiteral("FRAME_SIZE_ERROR");
        QTest::newRow("bad HPACK") << int(HostilePeer::Mode::H2BadHpack) << QStringLiteral("HPACK");
    }
    void malformedResponsesAreCountedAtOnce() {
        QFETCH(int, mode);
        QFETCH(QString, reason);
        HostilePeer peer{HostilePeer::Mode(mode)};
        QVERIFY(peer.isListening());
        const Bounded run =
            runBounded(strings({"http", "--h2", "-n", "1", "-s", "30", "-q", "--json", "-"}) +
                       QStringList{url(peer.port())});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY2(run.seconds < 1.0, qPrintable(run.describe()));
        const QJsonObject json = run.json();
        QCOMPARE(json.value(QStringLiteral("failed_exceptions")).toInt(), 1);
        QCOMPARE(json.value(QStringLiteral("timeouts")).toInt(), 0);
        const QString firstError = json.value(QStringLiteral("first_error")).toString();
        QVERIFY2(firstError.contains(reason), qPrintable(firstError));
        QVERIFY2(!firstError.contains(QStringLiteral("the session ended")), qPrintable(firstError));
    }

    // 3. Numbers outside what the arithmetic holds, through the command line and the agent.
    void absurdRatesAreRefused_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const QString target = QStringLiteral("http://127.0.0.1:1/");
        for (const char* rate : {"1e-10", "0.0001", "5e8", "1e-300", "nan"})
            QTest::addRow("http -R %s", rate)
                << strings({"http", "-n", "1", "-R", rate}) + QStringList{target}
                << QStringLiteral("-R wants requests/s from 0.001 to 100000000");
        QTest::newRow("tcp-rr --rate 1e-10")
            << strings({"tcp-rr", "-l", "-1", "--rate", "1e-10", "127.0.0.1:1"})
            << QStringLiteral("--rate wants requests/s from 0.001 to 100000000");
        QTest::newRow("-t beyond the range")
            << strings({"http", "-t", "200000000"}) + QStringList{target}
            << QStringLiteral("-t wants at most 10000000 seconds");
    }
    void absurdRatesAreRefused() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        checkRefused(runBounded(arguments), expected);
    }

    // One request at 0.2/s: the run ends with its answer, not 5 s later.
    void aSlowRateEndsWithItsLastAnswer() {
        const Bounded run =
            runBounded(strings({"http", "-R", "0.2", "-n", "1", "-q", "--json", "-"}) +
                       QStringList{url(m_server.port())});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY2(run.seconds < 1.0, qPrintable(run.describe()));
        QCOMPARE(run.json().value(QStringLiteral("complete")).toInt(), 1);
        QVERIFY(!run.json().value(QStringLiteral("cancelled")).toBool());
    }

    // Two at 0.2/s: the second is due at 5 s; the first SIGINT, once the
    // first is answered, ends the wait.
    void aSlowRateStopsAtTheFirstSigint() {
        // A server of its own: no request of another case is counted.
        app::HttpServer server;
        const auto started = server.start();
        QVERIFY2(started, started ? "" : qPrintable(started.error().toString()));
        const Bounded run =
            runBounded(strings({"http", "-R", "0.2", "-n", "2", "-q", "--json", "-"}) +
                           QStringList{url(server.port())},
                       {}, [&server] { return server.stats().requests > 0; });
        QVERIFY2(run.exitCode == 130, qPrintable(run.describe()));
        QVERIFY2(run.interruptedAt > 0 && run.seconds - run.interruptedAt < 1.0,
                 qPrintable(run.describe()));
        QVERIFY2(run.seconds < 5.0, qPrintable(run.describe()));
        QVERIFY2(run.errorLines().size() == 1, qPrintable(run.describe()));
        QVERIFY(run.json().value(QStringLiteral("cancelled")).toBool());
        QVERIFY2(run.json().value(QStringLiteral("complete")).toInt() == 1, run.out.constData());
    }

    void theAgentRefusesAnAbsurdRate_data() {
        QTest::addColumn<double>("rate");
        QTest::newRow("1e-300") << 1e-300;
        QTest::newRow("1e-10") << 1e-10;
        QTest::newRow("5e8") << 5e8;
    }
    // Refused as a bad request, at once; main's agent took 1e-300 and spun.
    void theAgentRefusesAnAbsurdRate() {
        QFETCH(double, rate);
        const Bounded run =
            runBounded(strings({"lab", "agent"}),
                       agentRun(QStringLiteral("127.0.0.1:%1").arg(m_server.port()), rate));
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY2(run.seconds < 1.0, qPrintable(run.describe()));
        const QList<QJsonObject> replies = agentReplies(run);
        QCOMPARE(replies.size(), 2);
        QCOMPARE(replies.at(1).value(QStringLiteral("type")).toString(), QStringLiteral("error"));
        const QString message = replies.at(1).value(QStringLiteral("message")).toString();
        QVERIFY2(message.contains(QStringLiteral("field \"rate\"")) &&
                     message.contains(QStringLiteral("0.001 to 100000000")),
                 qPrintable(message));
    }

    // 4. Every file option refuses a FIFO at once.
    void fifosAreRefusedForEveryFileOption_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const QString https = QStringLiteral("https://127.0.0.1:1/");
        const QString fifoProblem =
            QStringLiteral("%1: is a FIFO (named pipe), not a regular file");
        const QString fifo = fifoProblem.arg(m_fifo);
        QTest::newRow("http --cacert")
            << strings({"http", "-n", "1", "--cacert"}) + QStringList{m_fifo, https}
            << QStringLiteral("cannot read CA file ") + fifo;
        QTest::newRow("http --cert")
            << strings({"http", "-n", "1", "--cert"}) + QStringList{m_fifo, https}
            << QStringLiteral("cannot read client certificate ") + fifo;
        QTest::newRow("http --key")
            << strings({"http", "-n", "1", "--cert"}) +
                   QStringList{m_garbage, QStringLiteral("--key"), m_fifo, https}
            << QStringLiteral("cannot read client key ") + fifo;
        QTest::newRow("tcp-rr --tls --cacert")
            << strings({"tcp-rr", "--tls", "-l", "-1", "--cacert"}) +
                   QStringList{m_fifo, QStringLiteral("127.0.0.1:1")}
            << QStringLiteral("cannot read CA file ") + fifo;
        QTest::newRow("tcp-rr --tls --cert")
            << strings({"tcp-rr", "--tls", "-l", "-1", "--cert"}) +
                   QStringList{m_fifo, QStringLiteral("127.0.0.1:1")}
            << QStringLiteral("cannot read client certificate ") + fifo;
        QTest::newRow("tcp-rr --tls --key")
            << strings({"tcp-rr", "--tls", "-l", "-1", "--cert"}) +
                   QStringList{m_garbage, QStringLiteral("--key"), m_fifo,
                               QStringLiteral("127.0.0.1:1")}
            << QStringLiteral("cannot read client key ") + fifo;
        QTest::newRow("serve http --tls --cert")
            << strings({"serve", "http", "--port", "0", "--tls", "--cert"}) + QStringList{m_fifo}
            << QStringLiteral("cannot read certificate ") + fifo;
        QTest::newRow("serve http --tls --key")
            << strings({"serve", "http", "--port", "0", "--tls", "--cert"}) +
                   QStringList{m_garbage, QStringLiteral("--key"), m_fifo}
            << QStringLiteral("cannot read key ") + fifo;
        QTest::newRow("serve echo --tls --cert")
            << strings({"serve", "echo", "--port", "0", "--tls", "--cert"}) + QStringList{m_fifo}
            << QStringLiteral("cannot read certificate ") + fifo;
    }
    void fifosAreRefusedForEveryFileOption() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        checkRefused(runBounded(arguments), expected);
    }

    // 6. The agent, told it is in a lab by its environment, in a namespace
    // with a link and a route (not the lab's): only what the lab built widens.
    void aSpoofedAgentStaysOnLoopback_data() {
        QTest::addColumn<QString>("range");
        QTest::addColumn<QString>("address");
        QTest::addColumn<QString>("refusal");
        const QString notTheLab = QStringLiteral("not the lab's client namespace");
        QTest::newRow("0.0.0.0/0, a lab address") << "0.0.0.0/0"
                                                  << "10.213.0.2:8080" << notTheLab;
        QTest::newRow("0.0.0.0/0, anywhere") << "0.0.0.0/0"
                                             << "192.0.2.7:8080" << notTheLab;
        QTest::newRow("10.0.0.0/8") << "10.0.0.0/8"
                                    << "10.9.0.2:8080" << notTheLab;
        QTest::newRow("the lab's own range") << "10.213.0.0/16"
                                             << "10.213.0.2:8080" << notTheLab;
        QTest::newRow("a host name") << "0.0.0.0/0"
                                     << "nosuch.invalid:8080"
                                     << "the agent takes addresses, not host names";
    }
    void aSpoofedAgentStaysOnLoopback() {
        QFETCH(QString, range);
        QFETCH(QString, address);
        QFETCH(QString, refusal);
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("LOADSCOPE_LAB_HOST_NETNS"), QStringLiteral("1"));
        environment.insert(QStringLiteral("LOADSCOPE_LAB_RANGE"), range);
        const Bounded run =
            runBounded(strings({"lab", "agent"}), agentRun(address), {}, environment);
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY2(run.seconds < 1.0, qPrintable(run.describe()));
        const QList<QJsonObject> replies = agentReplies(run);
        QCOMPARE(replies.size(), 2);
        QCOMPARE(replies.at(1).value(QStringLiteral("type")).toString(), QStringLiteral("error"));
        const QString message = replies.at(1).value(QStringLiteral("message")).toString();
        QVERIFY2(message.startsWith(QStringLiteral("refusing to send load to ")) &&
                     message.contains(refusal),
                 qPrintable(message));
    }

    // 7. Impossible imports and lab options, refused on load with a line.
    void impossibleImportsAreRefused_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QByteArray>("from");
        QTest::addColumn<QByteArray>("to");
        QTest::addColumn<QString>("expected");
        QTest::newRow("h2load min above max")
            << "h2load_h2c_not_found.txt" << QByteArray("time for request:       62us      9.67ms")
            << QByteArray("time for request:     9.67ms        62us")
            << "latency.total.minMs is 9.67, above latency.total.maxMs (0.062)";
        QTest::newRow("wrk2 non-2xx above requests")
            << "wrk2_spectrum.txt" << QByteArray("Requests/sec:")
            << QByteArray("  Non-2xx or 3xx responses: 70000\nRequests/sec:")
            << "non2xx is 70000, more than complete (59981)";
    }
    void impossibleImportsAreRefused() {
        QFETCH(QString, fixture);
        QFETCH(QByteArray, from);
        QFETCH(QByteArray, to);
        QFETCH(QString, expected);
        const QByteArray original =
            readFile(qEnvironmentVariable("LOADSCOPE_SOURCE_DIR") +
                     QStringLiteral("/tests/app/fixtures/import/") + fixture);
        QVERIFY(original.contains(from));
        const QString report = m_dir.filePath(fixture);
        QVERIFY(writeFile(report, QByteArray(original).replace(from, to)));
        const QString session = m_dir.filePath(QStringLiteral("import.loadscope"));
        QVERIFY(app::saveSessionFile(app::Session{}, session));
        const QByteArray before = readFile(session);
        checkRefused(runBounded(strings({"import", "--session"}) +
                                QStringList{session, QStringLiteral("--target"),
                                            QStringLiteral("web"), report}),
                     expected);
        QCOMPARE(readFile(session), before);
    }

    void labOptionsAreRefusedOnLoad_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("cpus");
        QTest::addColumn<QString>("field");
        QTest::newRow("size -1") << "size"
                                 << "-1"
                                 << ""
                                 << "targets[0].lab.serverOptions[0].value";
        QTest::newRow("configuration in a value") << "size"
                                                  << "1;\nuser root;"
                                                  << ""
                                                  << "targets[0].lab.serverOptions[0].value";
        QTest::newRow("unknown key") << "user"
                                     << "root"
                                     << ""
                                     << "targets[0].lab.serverOptions[0].key";
        QTest::newRow("1 GiB document") << "size"
                                        << "1073741824"
                                        << ""
                                        << "targets[0].lab.serverOptions[0].value";
        QTest::newRow("client CPUs a-b") << "size"
                                         << "4897"
                                         << "a-b"
                                         << "lab.clientCpus";
    }
    // report, the first thing to read a session, refuses it with the field.
    void labOptionsAreRefusedOnLoad() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, cpus);
        QFETCH(QString, field);
        app::Session session;
        app::Target target = app::makeTarget(QStringLiteral("host"), app::DeploymentMode::Host, 0);
        target.http.url = QStringLiteral("http://10.213.0.2:8080/");
        target.lab =
            app::LabPlacement{QStringLiteral("host"), QStringLiteral("nginx"), {{key, value}}};
        session.targets.push_back(target);
        session.lab = app::LabSetup{1500, cpus, QString(), {QStringLiteral("host")}};
        const QString path = m_dir.filePath(QStringLiteral("lab.loadscope"));
        QVERIFY(writeFile(path, QJsonDocument(app::sessionToJson(session)).toJson()));
        checkRefused(runBounded(QStringList{QStringLiteral("report"), path}),
                     QStringLiteral("field \"%1\"").arg(field));
    }

private:
    QTemporaryDir m_dir;
    QString m_fifo;
    QString m_garbage;
    app::HttpServer m_server;
};

QTEST_GUILESS_MAIN(TestHostileCli)
#include "tst_hostile_cli.moc"
