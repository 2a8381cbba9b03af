// The CLI with other hosts, reached with real OpenSSH: a test sshd on
// 127.0.0.1 at a free port (Debian's, a key made for the run, its
// privilege-separation directory in a mount namespace of its own), reached
// under two names as two hosts. The truths: the embedded servers' own
// counts, this machine's CPUs, the lab check's own answer.
#include "app/servers/echo_server.h"
#include "app/servers/http_server.h"
#include "app/session/session.h"
#include "app/session/session_file.h"
#include "cli_process.h"
#include "local_peers.h"
#include "required_here.h"
#include "ssh_test_hosts.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <unistd.h>

using namespace loadscope;
using testing::CliOutcome;
using testing::cliPath;
using testing::integer;
using testing::jsonAt;
using testing::runCliProcess;

class TestHostsCli : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<testing::SshTestKeys> m_keys;
    std::unique_ptr<testing::TestSshd> m_sshd;

    QStringList hostOptions() const {
        return {QStringLiteral("--ssh-config"), m_keys->clientConfig(),
                QStringLiteral("--agent-command"), cliPath()};
    }

private Q_SLOTS:
    void initTestCase() {
        if (const QString why = testing::sshdUnavailable(); !why.isEmpty())
            LOADSCOPE_SKIP_UNLESS_REQUIRED(QStringLiteral("sshd"), why);
        m_dir = std::make_unique<QTemporaryDir>();
        m_keys = std::make_unique<testing::SshTestKeys>(m_dir->path());
        QVERIFY2(m_keys->problem().isEmpty(), qPrintable(m_keys->problem()));
        const quint16 port = testing::freeLoopbackPort();
        m_sshd = std::make_unique<testing::TestSshd>(
            *m_keys, QStringLiteral("local"), QStringLiteral("127.0.0.1:%1").arg(port), false);
        QVERIFY(m_sshd->waitListening(port));
        // One sshd, two names: two hosts as far as Loadscope can tell.
        m_keys->addHost(QStringLiteral("one"), QStringLiteral("127.0.0.1"), port);
        m_keys->addHost(QStringLiteral("two"), QStringLiteral("127.0.0.1"), port);
        m_keys->addHost(QStringLiteral("stranger"), QStringLiteral("127.0.0.1"), port, true);
    }

    // What runs on each host, one line each; a host that refuses the key is
    // named as reachable but not authenticated, and the status says one failed.
    void hostsCheckSaysWhatRunsThere() {
        const CliOutcome text = runCliProcess(
            QStringList{QStringLiteral("hosts"), QStringLiteral("check"),
                        QStringLiteral("--no-lab")} +
                hostOptions() + QStringList{QStringLiteral("one"), QStringLiteral("stranger")},
            30'000);
        QCOMPARE(text.exitCode, 3);
        const QList<QByteArray> lines = text.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY2(lines[0].startsWith(
                     "one (one): reachable, authenticated, loadscope " LOADSCOPE_VERSION),
                 lines[0].constData());
        QVERIFY2(
            lines[0].contains(QByteArray::number(::sysconf(_SC_NPROCESSORS_ONLN)).append(" CPUs")),
            lines[0].constData());
        QVERIFY2(lines[1].contains("reachable, not authenticated") &&
                     lines[1].contains("Permission denied"),
                 lines[1].constData());

        // With the lab: what `lab check` says here, said there.
        const CliOutcome json =
            runCliProcess(QStringList{QStringLiteral("hosts"), QStringLiteral("check"),
                                      QStringLiteral("--json")} +
                              hostOptions() + QStringList{QStringLiteral("one")},
                          60'000);
        QCOMPARE(json.exitCode, 0);
        const QJsonObject checked =
            QJsonDocument::fromJson(json.out).object().value(u"hosts").toArray().at(0).toObject();
        QVERIFY(checked.value(u"ok").toBool());
        QCOMPARE(checked.value(u"cpus").toInt(), int(::sysconf(_SC_NPROCESSORS_ONLN)));
        QVERIFY(std::abs(checked.value(u"clockOffsetMs").toDouble()) < 5); // one clock
        const CliOutcome here = runCliProcess(
            {QStringLiteral("lab"), QStringLiteral("check"), QStringLiteral("--json")}, 60'000);
        const QJsonArray modesHere =
            QJsonDocument::fromJson(here.out).object().value(u"modes").toArray();
        const QJsonArray modesThere = checked.value(u"lab").toObject().value(u"modes").toArray();
        QCOMPARE(modesThere.size(), modesHere.size());
        for (qsizetype i = 0; i < modesHere.size(); ++i)
            QCOMPARE(modesThere.at(i)[u"available"].toBool(),
                     modesHere.at(i)[u"available"].toBool());
    }

    // http from two hosts: the merged count is the server's own, each host's
    // part is named with its figures.
    void httpFromTwoHosts() {
        app::HttpServerConfig config;
        config.threads = 1;
        app::HttpServer server(config);
        QVERIFY(server.start());
        const CliOutcome run = runCliProcess(
            QStringList{QStringLiteral("http"), QStringLiteral("--agents"),
                        QStringLiteral("one,two")} +
                hostOptions() +
                QStringList{QStringLiteral("-n"), QStringLiteral("3001"), QStringLiteral("-c"),
                            QStringLiteral("3"), QStringLiteral("-k"), QStringLiteral("--json"),
                            QStringLiteral("-"),
                            QStringLiteral("http://127.0.0.1:%1/").arg(server.port())},
            60'000);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject json = run.json();
        QCOMPARE(integer(json, "complete"), 3001);
        QCOMPARE(integer(json, "failed"), 0);
        QCOMPARE(qint64(server.stats().requests), 3001);
        const QJsonArray agents = json.value(u"agents").toArray();
        QCOMPARE(agents.size(), 2);
        // 3 connections over 2 hosts: 2 and 1; 3001 requests in proportion, 2000.67
        // and 1000.33, floored, the one left to the first host.
        QCOMPARE(agents.at(0)[u"complete"].toInteger(), 2001);
        QCOMPARE(agents.at(1)[u"complete"].toInteger(), 1000);
        QCOMPARE(agents.at(0)[u"host"].toString(), QStringLiteral("one"));
        server.stop();
    }

    // tcp-rr the same way: the echo server's own count.
    void tcpRrFromTwoHosts() {
        app::EchoServerConfig config;
        config.threads = 1;
        app::EchoServer server(config);
        QVERIFY(server.start());
        const CliOutcome run = runCliProcess(
            QStringList{QStringLiteral("tcp-rr"), QStringLiteral("--agents"),
                        QStringLiteral("one,two")} +
                hostOptions() +
                QStringList{QStringLiteral("-n"), QStringLiteral("2000"), QStringLiteral("-c"),
                            QStringLiteral("2"), QStringLiteral("--json"), QStringLiteral("-"),
                            QStringLiteral("127.0.0.1:%1").arg(server.port())},
            60'000);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(integer(run.json(), "complete"), 2000);
        QCOMPARE(qint64(server.stats().requests), 2000);
        server.stop();
    }

    // memcache from two hosts, preloaded by the first: every get hits, and
    // memcached's own counters are the merged ones.
    void memcacheFromTwoHostsWithAPreload() {
        testing::MemcachedPeer memcached;
        if (!memcached.isRunning())
            LOADSCOPE_SKIP_UNLESS_REQUIRED(QStringLiteral("server:memcached"), memcached.error());
        const auto before = memcached.stats();
        const CliOutcome run = runCliProcess(
            QStringList{QStringLiteral("memcache"), QStringLiteral("--agents"),
                        QStringLiteral("one,two")} +
                hostOptions() +
                QStringList{QStringLiteral("--preload"), QStringLiteral("--key-minimum"),
                            QStringLiteral("1"), QStringLiteral("--key-maximum"),
                            QStringLiteral("500"), QStringLiteral("--ratio=0:1"),
                            QStringLiteral("-c"), QStringLiteral("2"), QStringLiteral("-t"),
                            QStringLiteral("1"), QStringLiteral("-n"), QStringLiteral("150"),
                            QStringLiteral("--json"), QStringLiteral("-"),
                            QStringLiteral("127.0.0.1:%1").arg(memcached.port())},
            60'000);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const auto after = memcached.stats();
        const QJsonObject json = run.json();
        QCOMPARE(integer(json, "complete"), 300);
        QCOMPARE(integer(json, "hits"), 300);
        QCOMPARE(after.value(QStringLiteral("curr_items")), 500);
        QCOMPARE(after.value(QStringLiteral("cmd_set")) - before.value(QStringLiteral("cmd_set")),
                 500);
        QCOMPARE(after.value(QStringLiteral("get_hits")) - before.value(QStringLiteral("get_hits")),
                 300);
        QCOMPARE(json.value(u"agents").toArray().size(), 2);
    }

    // Every load command takes --agents.
    void everyLoadCommandTakesAgents() {
        for (const char* command : {"http", "memcache", "tcp-rr", "tcp-stream"}) {
            const CliOutcome help =
                runCliProcess({QLatin1String(command), QStringLiteral("--help")}, 10'000);
            QVERIFY2(help.out.contains("--agents <LIST>"), command);
            QVERIFY2(help.out.contains("--ssh-config <FILE>"), command);
        }
    }

    // A host refusing the key: one line naming it, exit status 3.
    void aRefusedHostIsOneLine() {
        const CliOutcome run =
            runCliProcess(QStringList{QStringLiteral("http"), QStringLiteral("--agents"),
                                      QStringLiteral("stranger")} +
                              hostOptions() +
                              QStringList{QStringLiteral("-n"), QStringLiteral("10"),
                                          QStringLiteral("http://127.0.0.1:9/")},
                          30'000);
        QCOMPARE(run.exitCode, 3);
        const QByteArray line = run.err.trimmed().split('\n').last();
        QVERIFY2(line.contains("host 'stranger' (stranger): ssh:") &&
                     line.contains("Permission denied"),
                 run.err.constData());
    }

    // A session's hosts through `sweep`: the hosts of the file, --ssh-config
    // for the run; the result keeps each host's part.
    void sweepReachesTheSessionsHosts() {
        app::HttpServerConfig config;
        config.threads = 1;
        app::HttpServer server(config);
        QVERIFY(server.start());
        app::Session session;
        for (const char* name : {"one", "two"}) {
            app::Host host;
            host.name = QLatin1String(name);
            host.destination = QLatin1String(name);
            host.command = cliPath();
            session.hosts.push_back(host);
        }
        app::Target target =
            app::makeTarget(QStringLiteral("direct"), app::DeploymentMode::Host, 0);
        target.http.url = QStringLiteral("http://127.0.0.1:%1/").arg(server.port());
        target.loadFrom = {QStringLiteral("one"), QStringLiteral("two")};
        session.targets.push_back(target);
        session.plan.concurrencyLevels = {2};
        session.plan.repetitions = 1;
        session.plan.threads = 1;
        session.plan.limit = app::PointLimit::Requests;
        session.plan.requestsPerPoint = 1000;
        const QString file = m_dir->filePath(QStringLiteral("hosts.loadscope"));
        QVERIFY(app::saveSessionFile(session, file));
        const CliOutcome run =
            runCliProcess({QStringLiteral("sweep"), file, QStringLiteral("--ssh-config"),
                           m_keys->clientConfig(), QStringLiteral("-q")},
                          60'000);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const auto saved = app::loadSessionFile(file);
        QVERIFY(saved);
        QCOMPARE(saved->results.size(), size_t(1));
        QCOMPARE(saved->results[0].complete, 1000u);
        QCOMPARE(saved->results[0].agents.size(), size_t(2));
        QCOMPARE(qint64(server.stats().requests), 1000);
        server.stop();
    }
};

QTEST_GUILESS_MAIN(TestHostsCli)
#include "tst_hosts_cli.moc"
