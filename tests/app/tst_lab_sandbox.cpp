// The deployment lab's sandbox, run as a user runs it: `loadscope-cli lab check` and
// `loadscope-cli lab sandbox`, with a bounded fetch from the client namespace as the command.
// Every test compares the machine's own network namespace before and after.
#include "app/lab/lab_server.h"
#include "app/session/target_rules.h"
#include "blocking_client.h"
#include "embedded_server_support.h"
#include "lab_sandbox_support.h"
#include "readme_text.h"

#include <QFileInfo>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <csignal>
#include <unistd.h>

using namespace loadscope::testing;

// Whether the fetch's reports, one per mode, each say `requests` complete, none failed, and
// documents of `bytes`. The report is the failure message: which class, and its first error.
bool fetchedWhole(const CliOutcome& outcome, int requests, int bytes, int modes = 1) {
    const auto lines = [&](const QString& pattern) {
        return countMatches(outcome.out, pattern);
    };
    return lines(QStringLiteral("^Complete requests:\\s+%1$").arg(requests)) == modes &&
           lines(QStringLiteral("^Failed requests:\\s+0$")) == modes &&
           lines(QStringLiteral("^Document Length:\\s+%1 bytes$").arg(bytes)) == modes;
}

// Gives the lab's command its targets and reads what it prints until its load's report has
// ended ("Failed requests:"), the lab still standing (its command waits for another line), so
// that the servers' own counts can be read before it comes down. At most a minute.
QByteArray reportWhileLabStands(LabProcess& lab, const QJsonObject& built) {
    lab.process().write(targetsOf(built));
    QByteArray fetched;
    const QDeadlineTimer deadline(60000);
    while (!fetched.contains("Failed requests:") && !deadline.hasExpired() &&
           lab.process().state() == QProcess::Running) {
        lab.process().waitForReadyRead(200);
        fetched += lab.process().readAllStandardOutput();
    }
    return fetched;
}

class TestLabSandbox : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!cliPath().isEmpty(), "LOADSCOPE_CLI names the loadscope-cli executable");
        m_lab.read();
        if (m_lab.noSandbox.isEmpty())
            QCOMPARE(int(m_lab.reasons.size()), int(kModes.size()));
    }

    // Checked after every test function: nothing of a lab is left in the machine's namespace.
    void cleanup() { QCOMPARE(hostNetworkSnapshot(), m_lab.before); }

    // Each mode on its own, with the embedded server and with Apache (started as root, its
    // workers www-data's), each serving a 1000-byte document. The Kubernetes node's paths run
    // Apache in a pod as the others run it in a container: allModesTogether serves it through
    // them, which keeps the suite quick.
    void everyModeServesTheDocument_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("server");
        for (const QString& server : {QStringLiteral("http"), QStringLiteral("apache")}) {
            for (const QString& mode : kModes) {
                if (server == QLatin1String("apache") && kKubernetesModes.contains(mode))
                    continue;
                QTest::newRow(qPrintable(mode + QLatin1Char('/') + server)) << mode << server;
            }
        }
    }
    void everyModeServesTheDocument() {
        QFETCH(QString, mode);
        QFETCH(QString, server);
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        LOADSCOPE_SKIP_UNBUILDABLE_MODE(m_lab, mode);
        LOADSCOPE_SKIP_UNAVAILABLE_SERVER(m_lab, server);
        LabProcess lab(QStringList{QStringLiteral("lab"), QStringLiteral("sandbox"),
                                   QStringLiteral("--modes"), mode, QStringLiteral("--server"),
                                   server, QStringLiteral("--server-opt"),
                                   QStringLiteral("size=1000")} +
                       fetchCommand(100));
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"mtu").toInt(), 1500);
        QCOMPARE(built.value(u"modes").toArray().size(), 1);
        QCOMPARE(built.value(u"modes")[0][u"mode"].toString(), mode);
        QVERIFY(built.value(u"modes")[0][u"address"].toString().startsWith(u"10.213."));
        QCOMPARE(qulonglong(built.value(u"hostNetns").toDouble()), hostNetnsInode());
        const CliOutcome outcome = lab.fetchAll(built);
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        QVERIFY2(fetchedWhole(outcome, 100, 1000), outcome.out.constData());
        QVERIFY(labProcesses().empty());
        QVERIFY(!QDir(built.value(u"workDir").toString()).exists());
    }

    // Where Debian's docker-proxy can be found, userland-proxy is that relay and not the
    // embedded one: the process forwarding the mode's port is docker-proxy, the label and the
    // versions say so, and the document arrives whole. The tests' set-up unpacks it from
    // docker.io into build/deps without installing the package (its daemon would change the
    // machine's network); the suites' PATH lacks it, so the rows above use the embedded relay.
    void userlandProxyIsDebiansDockerProxy() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        LOADSCOPE_SKIP_UNBUILDABLE_MODE(m_lab, QStringLiteral("userland-proxy"));
        const QString unpacked = qEnvironmentVariable("LOADSCOPE_SOURCE_DIR") +
                                 QStringLiteral("/build/deps/docker-proxy");
        if (!QFileInfo(unpacked + QStringLiteral("/docker-proxy")).isExecutable())
            LOADSCOPE_SKIP_UNLESS_REQUIRED(
                QStringLiteral("docker-proxy"),
                QStringLiteral(
                    "docker-proxy is not unpacked in build/deps (scripts/install-deps.sh "
                    "test could not download docker.io)"));
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", unpacked.toLocal8Bit() + ':' + path);
        const auto restorePath = qScopeGuard([path] { qputenv("PATH", path); });
        LabProcess lab(QStringList{QStringLiteral("lab"), QStringLiteral("sandbox"),
                                   QStringLiteral("--modes"), QStringLiteral("userland-proxy"),
                                   QStringLiteral("--server"), QStringLiteral("http"),
                                   QStringLiteral("--server-opt"), QStringLiteral("size=1000")} +
                       fetchCommand(100));
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"modes").toArray().size(), 1);
        QCOMPARE(built.value(u"modes")[0][u"label"].toString(),
                 QStringLiteral("Userland proxy (docker-proxy)"));
        QVERIFY2(built.value(u"versions")[u"docker-proxy"].toString().contains(unpacked),
                 qPrintable(built.value(u"versions")[u"docker-proxy"].toString()));
        int relays = 0;
        for (const pid_t pid : labProcesses()) {
            const QByteArray command = fileText(QStringLiteral("/proc/%1/cmdline").arg(pid));
            if (command.startsWith((unpacked + QStringLiteral("/docker-proxy")).toLocal8Bit()) &&
                command.contains("-container-ip"))
                ++relays;
        }
        QCOMPARE(relays, 1);
        const CliOutcome outcome = lab.fetchAll(built);
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        QVERIFY2(fetchedWhole(outcome, 100, 1000), outcome.out.constData());
        QVERIFY(labProcesses().empty());
    }

    // Where a relay stands in front of the server (userland-proxy, rootless-nat), a connection
    // from the client succeeds as soon as the relay listens, and the relay resets it while the
    // server behind it refuses: a lab that called that ready lost its first requests (Receive,
    // "connection reset by peer"). Here the relay is the embedded proxy and the server a socket
    // that listens when told, both on loopback in this process's namespace, which the lab's
    // probes enter as they enter the lab's own (so as root only).
    void relayedEndpointIsReadyOnceTheServerListens() {
        using namespace loadscope::app;
        const int ownNetns = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        QVERIFY(ownNetns >= 0);
        const auto closeNetns = qScopeGuard([ownNetns] { ::close(ownNetns); });
        auto probe = lab::tcpSocketInNetns(ownNetns);
        if (!probe)
            // setns needs CAP_SYS_ADMIN, as the sandbox does
            LOADSCOPE_SKIP_UNLESS_REQUIRED(QStringLiteral("sandbox"), probe.error().message);
        ::close(*probe);
        RawListener server(false); // bound, refusing, as a server still starting
        TcpProxy proxy(proxyConfig(server.port()));
        QVERIFY(startServer(proxy));
        lab::ModeEndpoint endpoint;
        endpoint.address = "127.0.0.1";
        endpoint.port = proxy.port();
        endpoint.serverNetns = ownNetns;
        endpoint.bindAddress = "127.0.0.1";
        endpoint.bindPort = server.port();
        // What a probe from the client alone finds: the relay's socket answers.
        QVERIFY(lab::waitForListener(ownNetns, endpoint.address, endpoint.port, 0, 1000,
                                     QStringLiteral("here"))
                    .ok());
        const auto early = lab::waitForServer(endpoint, ownNetns, 0, 300);
        QVERIFY(!early.ok());
        QVERIFY2(early.error().message.contains(
                     QStringLiteral("127.0.0.1:%1 from the server's namespace").arg(server.port())),
                 qPrintable(early.error().message));
        server.listen();
        const auto ready = lab::waitForServer(endpoint, ownNetns, 0, 5000);
        QVERIFY2(ready.ok(), qPrintable(ready.ok() ? QString() : ready.error().message));
        // A request through the relay now reaches the server, queued behind the probes'
        // connections (closed, so each reads empty).
        Socket client = connectTo(proxy.port());
        QVERIFY(sendAll(client, "ping"));
        std::string received;
        for (int accepted = 0; accepted < 4 && received.empty(); ++accepted) {
            Socket next = server.accept(std::chrono::seconds(5));
            QVERIFY(next.isValid());
            received = receiveExactly(next, 4);
        }
        QCOMPARE(received, std::string("ping"));
    }

    // All buildable modes in one lab, behind one server configuration, at a jumbo MTU.
    void allModesTogether_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("version"); // how the server's version starts
        QTest::newRow("nginx") << QStringLiteral("nginx") << QStringLiteral("nginx/");
        QTest::newRow("apache") << QStringLiteral("apache") << QStringLiteral("Apache/");
    }
    void allModesTogether() {
        QFETCH(QString, server);
        QFETCH(QString, version);
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        LOADSCOPE_SKIP_UNAVAILABLE_SERVER(m_lab, server);
        QStringList modes;
        for (const QString& mode : kModes) {
            if (m_lab.reasons.at(mode).isEmpty())
                modes.append(mode);
            else if (const QString capability = QStringLiteral("mode:") + mode;
                     loadscope::testing::requiredHere(capability))
                QFAIL(qPrintable(
                    loadscope::testing::requiredButMissing(capability, m_lab.reasons.at(mode))));
        }
        LabProcess lab(QStringList{QStringLiteral("lab"), QStringLiteral("sandbox"),
                                   QStringLiteral("--mtu"), QStringLiteral("9000"),
                                   QStringLiteral("--modes"), modes.join(QLatin1Char(',')),
                                   QStringLiteral("--server"), server,
                                   QStringLiteral("--server-opt"), QStringLiteral("size=65313")} +
                       fetchCommand(50));
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"mtu").toInt(), 9000);
        QCOMPARE(built.value(u"modes").toArray().size(), modes.size());
        QVERIFY(built.value(u"versions")[server].toString().startsWith(version));
        const CliOutcome outcome = lab.fetchAll(built);
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        QVERIFY2(fetchedWhole(outcome, 50, 65313, int(modes.size())), outcome.out.constData());
        QVERIFY(labProcesses().empty());
    }

    // cluster-ip spreads connections over its backend pods with equal probability, as
    // kube-proxy's numgen rule does: 3,000 requests without keep-alive (so 3,000 connections,
    // each DNATed once by conntrack) from the client, and each backend's own count of what it
    // answered (the embedded server's closing summary in its log) within 1,000 ± 150 (the
    // binomial's standard deviation is 26). The backends are stopped by their PIDs while the lab
    // stands, and their logs read through the server host's mount namespace; each is a child
    // of the mode's serverPid, whose process tree is the mode's server CPU.
    void clusterIpSpreadsOverItsBackends() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        const QString mode = QStringLiteral("cluster-ip");
        LOADSCOPE_SKIP_UNBUILDABLE_MODE(m_lab, mode);
        LabProcess lab({QStringLiteral("lab"), QStringLiteral("sandbox"), QStringLiteral("--modes"),
                        mode, QStringLiteral("--server"), QStringLiteral("http"),
                        QStringLiteral("--server-opt"), QStringLiteral("size=100"),
                        QStringLiteral("--server-opt"), QStringLiteral("backends=3"),
                        QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                        QStringLiteral("read target; \"$0\" http -n 3000 -c 8 "
                                       "\"http://$target/\"; read done"),
                        cliPath()});
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"modes").toArray().size(), 1);
        const QJsonObject clusterIp = built.value(u"modes")[0].toObject();
        QCOMPARE(clusterIp.value(u"address").toString(), QStringLiteral("10.213.3.10"));
        QVERIFY(clusterIp.value(u"path").toString().contains(u"numgen random mod 3"));
        const QJsonArray backends = clusterIp.value(u"backends").toArray();
        QCOMPARE(backends.size(), 3);
        const QByteArray fetched = reportWhileLabStands(lab, built);
        QVERIFY2(countMatches(fetched, QStringLiteral("^Complete requests:\\s+3000$")) == 1,
                 fetched.constData());
        QVERIFY2(countMatches(fetched, QStringLiteral("^Failed requests:\\s+0$")) == 1,
                 fetched.constData());
        const QString root =
            QStringLiteral("/proc/%1/root").arg(built.value(u"serverHostPid").toInt());
        qlonglong total = 0;
        QStringList counts;
        const pid_t serverPid = pid_t(clusterIp.value(u"serverPid").toInt());
        QVERIFY(serverPid > 0);
        for (const QJsonValue& backend : backends) {
            // The backend's server: the process whose command line binds its address, a child
            // of the mode's serverPid, so that the mode's server CPU is every backend's.
            const QByteArray binds =
                QByteArray("\0--host\0", 8) + backend[u"address"].toString().toLatin1() + '\0';
            pid_t pid = 0;
            for (const pid_t candidate : labProcesses()) {
                if (fileText(QStringLiteral("/proc/%1/cmdline").arg(candidate)).contains(binds))
                    pid = candidate;
            }
            QVERIFY2(pid > 0, binds.constData() + 1);
            QCOMPARE(parentOf(pid), serverPid);
            QVERIFY(::kill(pid, SIGTERM) == 0);
            QTRY_VERIFY_WITH_TIMEOUT(
                !QFileInfo::exists(QStringLiteral("/proc/%1/cmdline").arg(pid)) ||
                    fileText(QStringLiteral("/proc/%1/cmdline").arg(pid)).isEmpty(),
                5000);
            const QByteArray log = fileText(root + backend[u"log"].toString());
            const QRegularExpressionMatch served =
                QRegularExpression(
                    QStringLiteral("stopped after \\d+ connections, (\\d+) responses"))
                    .match(QString::fromUtf8(log));
            QVERIFY2(served.hasMatch(), log.constData());
            const qlonglong responses = served.captured(1).toLongLong();
            counts << QString::number(responses);
            total += responses;
        }
        const CliOutcome outcome = lab.fetchAll(built); // the command's last read, then the end
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        qInfo("responses per backend: %s", qPrintable(counts.join(u' ')));
        QCOMPARE(total, 3000);
        for (const QString& count : counts)
            QVERIFY2(qAbs(count.toLongLong() - 1000) <= 150, qPrintable(counts.join(u' ')));
        QVERIFY(labProcesses().empty());
    }

    // overlay-vxlan carries the pod's traffic in VXLAN over the wire at the MTU it states. The
    // command counts, with nftables in the client namespace (a namespace of the lab), what
    // arrives: on the wire, UDP to port 4789, at least the documents' bytes (the veth wire
    // passes the kernel's large segments whole, so the wire's packet sizes say nothing of the
    // MTU); on the VXLAN device, the pod's SYN-ACKs, each announcing the MSS of the stated MTU
    // (1450 less 40 bytes of headers: 1410) and none another. 50 requests without keep-alive,
    // so 50 connections, each with a 65,313-byte document.
    void overlayCarriesVxlanAtItsMtu() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        const QString mode = QStringLiteral("overlay-vxlan");
        LOADSCOPE_SKIP_UNBUILDABLE_MODE(m_lab, mode);
        QString nft = QStandardPaths::findExecutable(QStringLiteral("nft"));
        if (nft.isEmpty())
            nft = QStandardPaths::findExecutable(
                QStringLiteral("nft"), {QStringLiteral("/usr/sbin"), QStringLiteral("/sbin")});
        QVERIFY(!nft.isEmpty()); // the mode was built with it
        const QString synAck = QStringLiteral(
            "\"$1\" add rule ip wirecount input 'iifname \"lab-vxlan\" tcp flags & (syn | ack) == "
            "syn | ack tcp option maxseg size %1 counter'");
        const QString script =
            QStringLiteral("\"$1\" add table ip wirecount && \"$1\" add chain ip wirecount input "
                           "'{ type filter hook input priority 0; }' && \"$1\" add rule ip "
                           "wirecount input iifname wire0 udp dport 4789 counter && ") +
            synAck.arg(QStringLiteral("1410")) + QStringLiteral(" && ") +
            synAck.arg(QStringLiteral("!= 1410")) +
            QStringLiteral(" && read target && \"$0\" http -n 50 -c 2 \"http://$target/\" && "
                           "\"$1\" list table ip wirecount");
        LabProcess lab({QStringLiteral("lab"), QStringLiteral("sandbox"), QStringLiteral("--modes"),
                        mode, QStringLiteral("--server"), QStringLiteral("http"),
                        QStringLiteral("--server-opt"), QStringLiteral("size=65313"),
                        QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"), script,
                        cliPath(), nft});
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"modes").toArray().size(), 1);
        const QJsonObject overlay = built.value(u"modes")[0].toObject();
        QCOMPARE(overlay.value(u"pathMtu").toInt(), 1450);
        QVERIFY(overlay.value(u"label").toString().contains(u"MTU 1450"));
        QVERIFY(overlay.value(u"path").toString().contains(u"UDP 4789"));
        const CliOutcome outcome = lab.fetchAll(built);
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        QVERIFY2(fetchedWhole(outcome, 50, 65313), outcome.out.constData());
        const auto counted = [&](const QString& rule, int field) {
            const QRegularExpressionMatch found =
                QRegularExpression(QRegularExpression::escape(rule) +
                                   QStringLiteral(" counter packets (\\d+) bytes (\\d+)"))
                    .match(QString::fromUtf8(outcome.out));
            return found.hasMatch() ? found.captured(field).toLongLong() : -1;
        };
        const QString wire = QStringLiteral("iifname \"wire0\" udp dport 4789");
        const QString mss = QStringLiteral(
            "iifname \"lab-vxlan\" tcp flags syn,ack / syn,ack tcp option maxseg size ");
        qInfo("wire: %lld UDP 4789 packets, %lld bytes; SYN-ACKs with MSS 1410: %lld",
              counted(wire, 1), counted(wire, 2), counted(mss + QStringLiteral("1410"), 1));
        QVERIFY2(counted(wire, 2) >= 50 * 65313, outcome.out.constData());
        QVERIFY2(counted(mss + QStringLiteral("1410"), 1) == 50, outcome.out.constData());
        QVERIFY2(counted(mss + QStringLiteral("!= 1410"), 1) == 0, outcome.out.constData());
        QVERIFY(labProcesses().empty());
    }

    // sidecar puts its proxy in the path: 2,000 requests without keep-alive reach the server on
    // localhost only through the redirect to the proxy, whose own count (its closing summary)
    // relayed each connection, as the server's own count answered each request. Proxy and
    // server are children of the mode's serverPid, so the pod's server CPU holds the proxy's,
    // which spent some (its /proc times).
    void sidecarRelaysThroughItsProxy() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        const QString mode = QStringLiteral("sidecar");
        LOADSCOPE_SKIP_UNBUILDABLE_MODE(m_lab, mode);
        LabProcess lab({QStringLiteral("lab"), QStringLiteral("sandbox"), QStringLiteral("--modes"),
                        mode, QStringLiteral("--server"), QStringLiteral("http"),
                        QStringLiteral("--server-opt"), QStringLiteral("size=1000"),
                        QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                        QStringLiteral("read target; \"$0\" http -n 2000 -c 4 "
                                       "\"http://$target/\"; read done"),
                        cliPath()});
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"modes").toArray().size(), 1);
        const QJsonObject sidecar = built.value(u"modes")[0].toObject();
        QVERIFY(sidecar.value(u"path").toString().contains(u"sidecar proxy"));
        QVERIFY(sidecar.value(u"label").toString().contains(u"embedded relay"));
        const pid_t serverPid = pid_t(sidecar.value(u"serverPid").toInt());
        QVERIFY(serverPid > 0);
        const QByteArray fetched = reportWhileLabStands(lab, built);
        QVERIFY2(countMatches(fetched, QStringLiteral("^Complete requests:\\s+2000$")) == 1,
                 fetched.constData());
        QVERIFY2(countMatches(fetched, QStringLiteral("^Failed requests:\\s+0$")) == 1,
                 fetched.constData());
        // The pod's two processes, children of the mode's serverPid: the proxy relaying to the
        // server on localhost, and the server.
        const auto find = [serverPid](const QByteArray& a, const QByteArray& b) {
            for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
                const pid_t pid = pid_t(entry.toInt());
                const QByteArray command = fileText(QStringLiteral("/proc/%1/cmdline").arg(pid));
                if (pid > 0 && command.contains(a) && command.contains(b) &&
                    parentOf(pid) == serverPid)
                    return pid;
            }
            return pid_t(0);
        };
        const pid_t proxy = find(QByteArray("serve\0proxy\0", 12), QByteArray("\0--to\0"
                                                                              "127.0.0.1:8080\0",
                                                                              21));
        const pid_t server = find(QByteArray("serve\0http\0", 11), QByteArray("\0--host\0"
                                                                              "127.0.0.1\0",
                                                                              18));
        QVERIFY2(proxy > 0 && server > 0, "the pod's proxy or server is not a child of serverPid");
        const QList<QByteArray> stat =
            fileText(QStringLiteral("/proc/%1/stat").arg(proxy)).split(')').value(1).split(' ');
        QVERIFY2(stat.value(12).toLongLong() + stat.value(13).toLongLong() > 0,
                 "the proxy spent no CPU time");
        const QString root =
            QStringLiteral("/proc/%1/root").arg(built.value(u"serverHostPid").toInt());
        const QString workDir = built.value(u"workDir").toString();
        const auto summary = [&](pid_t pid, const QString& log, const QString& pattern) {
            ::kill(pid, SIGTERM);
            QDeadlineTimer gone(5000);
            while (!fileText(QStringLiteral("/proc/%1/cmdline").arg(pid)).isEmpty() &&
                   QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid)) && !gone.hasExpired())
                QTest::qWait(20);
            return QRegularExpression(pattern).match(
                QString::fromUtf8(fileText(root + workDir + log)));
        };
        const QRegularExpressionMatch relayed = summary(
            proxy, QStringLiteral("/sidecar-companion.log"),
            QStringLiteral("stopped after (\\d+) connections, (\\d+) upstream connections"));
        const QRegularExpressionMatch served =
            summary(server, QStringLiteral("/sidecar-1.log"),
                    QStringLiteral("stopped after \\d+ connections, (\\d+) responses"));
        lab.fetchAll(built);
        QVERIFY2(relayed.hasMatch() && served.hasMatch(), "no summary from the proxy or server");
        qInfo("proxy: %s connections relayed; server: %s responses",
              qPrintable(relayed.captured(2)), qPrintable(served.captured(1)));
        // Every request's connection went through the proxy; the lab's readiness probes add a few.
        QVERIFY(relayed.captured(2).toInt() >= 2000 && relayed.captured(2).toInt() <= 2010);
        QCOMPARE(served.captured(1).toInt(), 2000);
        QVERIFY(labProcesses().empty());
    }

    // A client on the server host reaches each mode as a local client of a docker host does,
    // and the path is the one it names: host's server listens on 127.0.0.1 alone, the published
    // port's relay (the embedded one, or docker-proxy where it is on PATH) relayed every
    // connection itself (its own count), and container-nat's port on 127.0.0.1 was DNATed at
    // the output hook (the rule's own counter in the server host: one packet per connection).
    void serverHostClientReachesModesAsALocalClient() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        const QStringList modes{QStringLiteral("host"), QStringLiteral("container-nat"),
                                QStringLiteral("userland-proxy")};
        for (const QString& mode : modes)
            LOADSCOPE_SKIP_UNBUILDABLE_MODE(m_lab, mode);
        const QString nft = QStandardPaths::findExecutable(
            QStringLiteral("nft"), {QStringLiteral("/usr/sbin"), QStringLiteral("/sbin")});
        constexpr int kRequests = 200; // one connection each: no keep-alive
        LabProcess lab({QStringLiteral("lab"), QStringLiteral("sandbox"),
                        QStringLiteral("--client-placement"), QStringLiteral("server-host"),
                        QStringLiteral("--modes"), modes.join(QLatin1Char(',')),
                        QStringLiteral("--server"), QStringLiteral("http"),
                        QStringLiteral("--server-opt"), QStringLiteral("size=1000"),
                        QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                        QStringLiteral("read targets; for t in $targets; do \"$0\" http -n %1 -c 2 "
                                       "\"http://$t/\" || exit 1; done; \"$1\" list chain ip "
                                       "loadscope_lab output; echo fetched; read done")
                            .arg(kRequests),
                        cliPath(), nft});
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"clientPlacement").toString(), QStringLiteral("server-host"));
        const QJsonArray described = built.value(u"modes").toArray();
        QCOMPARE(described.size(), modes.size());
        for (const QJsonValue& mode : described)
            QCOMPARE(mode[u"address"].toString(), QStringLiteral("127.0.0.1"));
        QCOMPARE(described[0][u"path"].toString(), QStringLiteral("localhost → host"));
        QVERIFY(described[1][u"path"].toString().startsWith(u"localhost → DNAT (output hook"));
        const bool dockerProxy = described[2][u"label"].toString().endsWith(u"(docker-proxy)");
        QCOMPARE(described[2][u"path"].toString(),
                 dockerProxy ? QStringLiteral("localhost → docker-proxy → bridge → veth")
                             : QStringLiteral("localhost → embedded relay → bridge → veth"));

        QByteArray targets;
        for (const QJsonValue& mode : described)
            targets += "127.0.0.1:" + QByteArray::number(mode[u"port"].toInt()) + ' ';
        lab.process().write(targets + '\n');
        QByteArray fetched;
        const QDeadlineTimer deadline(60000);
        while (!fetched.contains("fetched\n") && !deadline.hasExpired() &&
               lab.process().state() == QProcess::Running) {
            lab.process().waitForReadyRead(200);
            fetched += lab.process().readAllStandardOutput();
        }
        QVERIFY2(fetchedWhole(CliOutcome{0, fetched, {}}, kRequests, 1000, 3), fetched.constData());

        // host: its server listens on the server host's loopback, not on its wire address.
        const QByteArray sockets =
            fileText(QStringLiteral("/proc/%1/net/tcp").arg(described[0][u"serverPid"].toInt()));
        QVERIFY2(QRegularExpression(QStringLiteral("^\\s*\\d+: 0100007F:1F90 00000000:0000 0A "),
                                    QRegularExpression::MultilineOption)
                     .match(QString::fromLatin1(sockets))
                     .hasMatch(),
                 sockets.constData());
        QVERIFY2(!sockets.contains(" 0200D50A:1F90 00000000:0000 0A "), sockets.constData());

        // container-nat: every connection's first packet passed the output hook's DNAT (the
        // readiness probe adds one).
        const QRegularExpressionMatch dnat =
            QRegularExpression(
                QStringLiteral("daddr 127.0.0.1 tcp dport 8082 counter packets (\\d+)"))
                .match(QString::fromUtf8(fetched));
        QVERIFY2(dnat.hasMatch(), fetched.constData());
        qInfo("output hook DNAT: %s packets", qPrintable(dnat.captured(1)));
        QVERIFY(dnat.captured(1).toInt() >= kRequests && dnat.captured(1).toInt() <= kRequests + 5);

        // userland-proxy: the relay listening on 127.0.0.1:8083 carried the connections.
        pid_t relay = 0;
        for (const pid_t pid : labProcesses()) {
            const QByteArray command = fileText(QStringLiteral("/proc/%1/cmdline").arg(pid));
            if (dockerProxy ? command.contains(QByteArray("-host-ip\0"
                                                          "127.0.0.1\0",
                                                          19))
                            : command.contains(QByteArray("--host\0"
                                                          "127.0.0.1\0--port\0"
                                                          "8083\0",
                                                          29)))
                relay = pid;
        }
        QVERIFY2(relay > 0, "no relay listening on 127.0.0.1:8083");
        if (!dockerProxy) {
            // Its closing summary counts what it relayed.
            ::kill(relay, SIGTERM);
            QTRY_VERIFY_WITH_TIMEOUT(
                !QFileInfo::exists(QStringLiteral("/proc/%1/cmdline").arg(relay)) ||
                    fileText(QStringLiteral("/proc/%1/cmdline").arg(relay)).isEmpty(),
                5000);
            const QString log = QStringLiteral("/proc/%1/root%2/userland-proxy-relay.log")
                                    .arg(built.value(u"serverHostPid").toInt())
                                    .arg(built.value(u"workDir").toString());
            const QRegularExpressionMatch relayed =
                QRegularExpression(
                    QStringLiteral("stopped after (\\d+) connections, (\\d+) upstream connections"))
                    .match(QString::fromUtf8(fileText(log)));
            QVERIFY2(relayed.hasMatch(), fileText(log).constData());
            qInfo("relay: %s connections relayed", qPrintable(relayed.captured(2)));
            QVERIFY(relayed.captured(2).toInt() >= kRequests &&
                    relayed.captured(2).toInt() <= kRequests + 5);
        }
        lab.process().write("\n");
        lab.process().closeWriteChannel();
        const CliOutcome outcome = lab.finish();
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        QVERIFY(labProcesses().empty());
    }

    // A SIGKILL of `lab sandbox` takes the whole lab with it: servers, relays and command, with
    // the client across the wire or on the server host (whose modes add rules and routes there).
    void sigkillLeavesNothing_data() {
        QTest::addColumn<QString>("placement");
        QTest::newRow("wire") << QStringLiteral("wire");
        QTest::newRow("server-host") << QStringLiteral("server-host");
    }
    void sigkillLeavesNothing() {
        QFETCH(QString, placement);
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        QStringList modes{QStringLiteral("host")};
        for (const QString& mode :
             QStringList{QStringLiteral("container-nat"), QStringLiteral("userland-proxy"),
                         QStringLiteral("ovs-bridge")} +
                 kKubernetesModes)
            if (m_lab.reasons.at(mode).isEmpty() &&
                (placement == QLatin1String("wire") ||
                 loadscope::app::labServerHostRefusal(mode).isEmpty()))
                modes.append(mode);
        LabProcess lab({QStringLiteral("lab"), QStringLiteral("sandbox"),
                        QStringLiteral("--client-placement"), placement, QStringLiteral("--modes"),
                        modes.join(QLatin1Char(',')), QStringLiteral("--server"),
                        QStringLiteral("http"), QStringLiteral("--"), QStringLiteral("sleep"),
                        QStringLiteral("20")});
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"modes").toArray().size(), modes.size());
        QCOMPARE(built.value(u"clientPlacement").toString(), placement);
        const QString workDir = built.value(u"workDir").toString();
        QVERIFY(workDir.startsWith(u"/tmp/loadscope-lab-"));
        QVERIFY(int(labProcesses().size()) >= int(modes.size())); // what must go away
        ::kill(pid_t(lab.process().processId()), SIGKILL);
        QVERIFY(lab.process().waitForFinished(5000));
        QTRY_VERIFY_WITH_TIMEOUT(labProcesses().empty(), 5000);
        // The lab's files (server configurations, logs) were in a tmpfs of the sandbox's own:
        // what a SIGKILL can leave in /tmp is an empty directory.
        QVERIFY(QDir(workDir).exists());
        QVERIFY(QDir(workDir).isEmpty());
        QVERIFY(QDir().rmdir(workDir));
    }

    // SIGTERM to `lab sandbox` ends the command, then the lab, in order.
    void sigtermEndsCommandThenLab() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        LabProcess lab({QStringLiteral("lab"), QStringLiteral("sandbox"), QStringLiteral("--modes"),
                        QStringLiteral("host"), QStringLiteral("--server"), QStringLiteral("echo"),
                        QStringLiteral("--"), QStringLiteral("sleep"), QStringLiteral("20")});
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"modes").toArray().size(), 1);
        ::kill(pid_t(lab.process().processId()), SIGTERM);
        const CliOutcome outcome = lab.finish(5000);
        QCOMPARE(outcome.exitCode, 128 + SIGTERM); // the command's status: sleep, terminated
        QVERIFY(labProcesses().empty());
        QVERIFY(!QDir(built.value(u"workDir").toString()).exists());
    }

    // `lab check` says, under each of the Kubernetes node's paths, what it mimics and what it
    // leaves out, whether or not the mode can be built here, and gives the same in --json; and
    // for every mode what a client on the server host reaches, or why that mode refuses one.
    void labCheckSaysWhatKubernetesModesMimic() {
        const CliOutcome check = runCliProcess({QStringLiteral("lab"), QStringLiteral("check")});
        if (check.exitCode != 0)
            LOADSCOPE_SKIP_UNLESS_REQUIRED(
                QStringLiteral("sandbox"),
                QStringLiteral("no sandbox here: %1").arg(QString::fromUtf8(check.err.trimmed())));
        for (const QString& mode : kKubernetesModes) {
            const QRegularExpression twoLines(
                QStringLiteral(
                    "^  %1 +(buildable.*|not buildable: .+)\n +mimics .+; leaves out .+$")
                    .arg(QRegularExpression::escape(mode)),
                QRegularExpression::MultilineOption);
            QVERIFY2(twoLines.match(QString::fromUtf8(check.out)).hasMatch(),
                     check.out.constData());
        }
        QCOMPARE(countMatches(check.out, QStringLiteral("^ +mimics ")),
                 int(kKubernetesModes.size()));
        // And what a client on the server host reaches in each mode, or why it cannot be there.
        QCOMPARE(countMatches(check.out, QStringLiteral("^A client on the server host "
                                                        "\\(--client-placement server-host\\)")),
                 1);
        QCOMPARE(countMatches(check.out,
                              QStringLiteral("^  host +the server on 127\\.0\\.0\\.1 directly$")),
                 1);
        QCOMPARE(countMatches(check.out, QStringLiteral("^  userland-proxy +the published port on "
                                                        "127\\.0\\.0\\.1 through ")),
                 1);
        QCOMPARE(
            countMatches(check.out, QStringLiteral("^  overlay-vxlan +refused: its path is pod "
                                                   "to pod across two nodes")),
            1);
        QCOMPARE(countMatches(check.out, QStringLiteral("^  \\S+ +refused: ")), 4);
    }

    // The lab's identifiers are the session's where the session has the mode.
    void modeIdsAreTheSessionsIds() {
        using namespace loadscope::app;
        int shared = 0;
        for (const lab::LabMode mode : lab::labModes()) {
            QCOMPARE(lab::labModeFromId(lab::labModeId(mode)), mode);
            if (const auto session = lab::deploymentModeOf(mode)) {
                QCOMPARE(lab::labModeId(mode), deploymentModeId(*session));
                ++shared;
            }
        }
        QCOMPARE(shared, int(deploymentModes().size()));
        QCOMPARE(lab::labModeFromId(u"nat"), lab::LabMode::Nat);
        QCOMPARE(lab::labModeFromId(u"custom"), std::nullopt);
    }

    // The lab's help and the README say the same of the sandbox and of the server options
    // (the help's list made from the rule that checks them, labServerOptionRanges).
    void helpsSayWhatTheReadmeSays() {
        const CliOutcome lab = runCli({QStringLiteral("lab"), QStringLiteral("--help")});
        QCOMPARE(lab.exitCode, 0);
        const QString problem = statedByHelpAndReadme(
            lab.out, QStringLiteral("a sandbox of user, network, mount and PID namespaces"));
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const CliOutcome sandbox =
            runCli({QStringLiteral("lab"), QStringLiteral("sandbox"), QStringLiteral("--help")});
        QCOMPARE(sandbox.exitCode, 0);
        const auto options = QRegularExpression(QStringLiteral("server options: ([^.]*)\\."))
                                 .match(QString::fromUtf8(sandbox.out).simplified());
        QVERIFY2(options.hasMatch(), sandbox.out.constData());
        QVERIFY(options.captured(1).contains(QStringLiteral("size= (http, nginx, apache)")));
        const QString readmeList =
            QStringLiteral("Server options (--server-opt KEY=VALUE): %1.").arg(options.captured(1));
        QVERIFY2(readmeProse().contains(readmeList),
                 qPrintable(QStringLiteral("the README does not say \"%1\"").arg(readmeList)));
    }

    void badInputIsOneLine_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("needsUnavailable"); // a mode that must be unbuildable here
        // "path:PROGRAM": the program left out of the command's PATH; "device:FILE": the
        // device's directory hidden by an empty tmpfs in a mount namespace of the command's own.
        QTest::addColumn<QString>("denied");
        QTest::addColumn<QString>("expected");
        const QStringList command{QStringLiteral("--"), QStringLiteral("true")};
        const auto lab = [&](const QStringList& options) {
            return QStringList{QStringLiteral("lab"), QStringLiteral("sandbox")} + options +
                   command;
        };
        QTest::newRow("unknown mode")
            << lab({QStringLiteral("--modes"), QStringLiteral("warp"), QStringLiteral("--server"),
                    QStringLiteral("http")})
            << QString() << QString() << QStringLiteral("unknown mode 'warp'");
        QTest::newRow("mode twice")
            << lab({QStringLiteral("--modes"), QStringLiteral("host,host"),
                    QStringLiteral("--server"), QStringLiteral("http")})
            << QString() << QString() << QStringLiteral("host is given twice");
        QTest::newRow("no modes") << lab({QStringLiteral("--server"), QStringLiteral("http")})
                                  << QString() << QString() << QStringLiteral("--modes");
        QTest::newRow("MTU too small")
            << lab({QStringLiteral("--mtu"), QStringLiteral("100"), QStringLiteral("--modes"),
                    QStringLiteral("host"), QStringLiteral("--server"), QStringLiteral("http")})
            << QString() << QString() << QStringLiteral("--mtu");
        QTest::newRow("unknown server")
            << lab({QStringLiteral("--modes"), QStringLiteral("host"), QStringLiteral("--server"),
                    QStringLiteral("lighttpd")})
            << QString() << QString() << QStringLiteral("unknown server 'lighttpd'");
        QTest::newRow("server option of another kind")
            << lab({QStringLiteral("--modes"), QStringLiteral("host"), QStringLiteral("--server"),
                    QStringLiteral("http"), QStringLiteral("--server-opt"),
                    QStringLiteral("memory=64")})
            << QString() << QString() << QStringLiteral("http takes size");
        QTest::newRow("no command")
            << QStringList{QStringLiteral("lab"),      QStringLiteral("sandbox"),
                           QStringLiteral("--modes"),  QStringLiteral("host"),
                           QStringLiteral("--server"), QStringLiteral("http")}
            << QString() << QString() << QStringLiteral("after --");
        QTest::newRow("client CPU that does not exist")
            << lab({QStringLiteral("--client-cpus"), QStringLiteral("4095"),
                    QStringLiteral("--modes"), QStringLiteral("host"), QStringLiteral("--server"),
                    QStringLiteral("http")})
            << QString() << QString() << QStringLiteral("--client-cpus '4095'");
        QTest::newRow("ipvlan unbuildable")
            << lab({QStringLiteral("--modes"), QStringLiteral("host,ipvlan"),
                    QStringLiteral("--server"), QStringLiteral("http")})
            << QStringLiteral("ipvlan") << QString()
            << QStringLiteral("mode ipvlan: the kernel has no ipvlan support");
        // Made unbuildable on purpose: the switch's datapath device denied (its daemons are
        // found in sbin whatever PATH says), slirp4netns not on the command's PATH.
        QTest::newRow("ovs-bridge without /dev/net/tun")
            << lab({QStringLiteral("--modes"), QStringLiteral("host,ovs-bridge"),
                    QStringLiteral("--server"), QStringLiteral("http")})
            << QString() << QStringLiteral("device:/dev/net/tun")
            << QStringLiteral(
                   "mode ovs-bridge: cannot open /dev/net/tun: No such file or directory");
        QTest::newRow("rootless-nat without slirp4netns")
            << lab({QStringLiteral("--modes"), QStringLiteral("host,rootless-nat"),
                    QStringLiteral("--server"), QStringLiteral("http")})
            << QString() << QStringLiteral("path:slirp4netns")
            << QStringLiteral(
                   "mode rootless-nat: slirp4netns is not installed (Debian package slirp4netns)");
        QTest::newRow("client placement a mode cannot have")
            << lab({QStringLiteral("--client-placement"), QStringLiteral("server-host"),
                    QStringLiteral("--modes"), QStringLiteral("host,overlay-vxlan"),
                    QStringLiteral("--server"), QStringLiteral("http")})
            << QString() << QString()
            << QStringLiteral("client placement server-host: overlay-vxlan cannot have it: its "
                              "path is pod to pod across two nodes");
        QTest::newRow("unknown client placement")
            << lab({QStringLiteral("--client-placement"), QStringLiteral("pod"),
                    QStringLiteral("--modes"), QStringLiteral("host"), QStringLiteral("--server"),
                    QStringLiteral("http")})
            << QString() << QString() << QStringLiteral("unknown placement 'pod'");
        QTest::newRow("unknown subcommand")
            << QStringList{QStringLiteral("lab"), QStringLiteral("tour")} << QString() << QString()
            << QStringLiteral("unknown subcommand 'tour'");
    }
    void badInputIsOneLine() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, needsUnavailable);
        QFETCH(QString, denied);
        QFETCH(QString, expected);
        if (!needsUnavailable.isEmpty()) {
            LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
            if (m_lab.reasons.at(needsUnavailable).isEmpty())
                QSKIP(qPrintable(needsUnavailable + QStringLiteral(" can be built here")));
        }
        QTemporaryDir pathWithout;
        QString program = cliPath();
        if (!denied.isEmpty()) {
            LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
            const QString what = denied.section(QLatin1Char(':'), 1);
            arguments.prepend(cliPath());
            if (denied.startsWith(QLatin1String("path:"))) {
                QVERIFY(pathWithout.isValid());
                QVERIFY(linkPathWithout(what, pathWithout.path()));
                arguments.prepend(QStringLiteral("PATH=") + pathWithout.path());
                program = QStringLiteral("/usr/bin/env");
            } else {
                const QString hidden = QFileInfo(what).path();
                arguments =
                    QStringList{QStringLiteral("-m"),
                                QStringLiteral("--"),
                                QStringLiteral("sh"),
                                QStringLiteral("-ec"),
                                QStringLiteral("mount -t tmpfs none %1; exec \"$@\"").arg(hidden),
                                QStringLiteral("sh")} +
                    arguments;
                program = QStringLiteral("/usr/bin/unshare");
            }
        }
        const CliOutcome outcome = runProgram(program, arguments);
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY(outcome.out.isEmpty());
        QCOMPARE(outcome.errorLines().size(), 1);
        QVERIFY2(outcome.err.contains(expected.toUtf8()), outcome.err.constData());
    }

private:
    // `dir` made a PATH of one directory: a link to each program of this one's but `tool`.
    static bool linkPathWithout(const QString& tool, const QString& dir) {
        bool linked = false;
        for (const QString& from : qEnvironmentVariable("PATH").split(QLatin1Char(':'))) {
            for (const QFileInfo& program :
                 QDir(from).entryInfoList(QDir::Files | QDir::Executable | QDir::NoDotAndDotDot)) {
                const QString to = dir + QLatin1Char('/') + program.fileName();
                if (program.fileName() != tool && !QFileInfo::exists(to))
                    linked = QFile::link(program.absoluteFilePath(), to) || linked;
            }
        }
        return linked && !QFileInfo::exists(dir + QLatin1Char('/') + tool);
    }

    // "net:[4026531833]" names the namespace by its inode.
    static qulonglong hostNetnsInode() {
        char link[64] = {};
        if (::readlink("/proc/self/ns/net", link, sizeof link - 1) <= 0)
            return 0;
        return QString::fromLatin1(link).section(QLatin1Char('['), 1).chopped(1).toULongLong();
    }

    LabCheck m_lab;
};

QTEST_GUILESS_MAIN(TestLabSandbox)
#include "tst_lab_sandbox.moc"
