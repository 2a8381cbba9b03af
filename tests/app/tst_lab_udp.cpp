// UDP through the deployment lab, run as a user runs it: `loadscope-cli lab sandbox` with the
// udp-echo and udp-sink servers and udp-rr or udp-stream as the command, in the client
// namespace. Every buildable mode carries datagrams (NAT's DNAT, the userland relays and
// slirp4netns' forwarding included); an nftables rule in the lab's client namespace that drops
// every 100th datagram, counting them, is lost requests the client counts to the one, and the
// namespace's own UDP counters (/proc/net/snmp) see every other request leave and its answer
// come back. Through NAT each of the client's sockets is one flow in the server host's
// conntrack table, none dropped. Every test compares the machine's own network namespace
// before and after.
#include "app/lab/lab_topology.h"
#include "lab_sandbox_support.h"

#include <QHostAddress>
#include <QScopeGuard>
#include <QSet>
#include <QTemporaryDir>
#include <QtEndian>

using namespace loadscope::testing;

namespace {

// A shell command for the lab: reads ADDRESS:PORT lines and runs `udp` with `arguments` and
// --json against each, printing each JSON object on one line.
QStringList perTarget(const QString& arguments) {
    return {QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
            QStringLiteral("while read target; do \"$0\" %1 -q --json - \"$target\" | tr -d '\\n' "
                           "|| exit 1; echo; done")
                .arg(arguments),
            cliPath()};
}

QList<QJsonObject> jsonLines(const QByteArray& out) {
    QList<QJsonObject> objects;
    for (const QByteArray& line : out.split('\n')) {
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        if (!object.isEmpty() && !object.contains(u"lab"))
            objects.append(object);
    }
    return objects;
}

qint64 count(const QJsonObject& json, const char* key) {
    return json.value(QLatin1String(key)).toInteger(-1);
}

// One UDP flow of a conntrack listing (/proc/PID/net/nf_conntrack): where its replies come
// from (the DNAT target, for a flow through NAT), whether any came, and the packets
// conntrack's accounting counted each way (-1: the entry has no accounting, made before it
// was turned on).
struct ConntrackFlow {
    QString replySource;
    int replySourcePort = 0;
    bool unreplied = false;
    qint64 packetsOut = -1;
    qint64 packetsBack = -1;
};

// The UDP flows of `table` to address:port, by their source port.
std::map<int, ConntrackFlow> udpFlowsTo(const QByteArray& table, const QString& address, int port) {
    std::map<int, ConntrackFlow> flows;
    for (const QByteArray& line : table.split('\n')) {
        const QList<QByteArray> fields = line.simplified().split(' ');
        if (fields.value(2) != "udp")
            continue;
        // Each key comes once for the original direction, then again for the reply's.
        std::map<QByteArray, QList<QByteArray>> values;
        bool unreplied = false;
        for (const QByteArray& field : fields) {
            const qsizetype equals = field.indexOf('=');
            if (equals > 0)
                values[field.left(equals)].append(field.mid(equals + 1));
            unreplied = unreplied || field == "[UNREPLIED]";
        }
        const auto value = [&values](const char* key, int direction) {
            return values[key].value(direction);
        };
        if (value("dst", 0) != address.toLatin1() || value("dport", 0).toInt() != port)
            continue;
        ConntrackFlow flow;
        flow.replySource = QString::fromLatin1(value("src", 1));
        flow.replySourcePort = value("sport", 1).toInt();
        flow.unreplied = unreplied;
        if (values["packets"].size() == 2) {
            flow.packetsOut = value("packets", 0).toLongLong();
            flow.packetsBack = value("packets", 1).toLongLong();
        }
        flows[value("sport", 0).toInt()] = flow;
    }
    return flows;
}

// A column of conntrack's statistics (/proc/PID/net/stat/nf_conntrack: a header, then one
// row of hexadecimal counters per CPU), summed over the CPUs; -1 when there is no such column.
qint64 conntrackStat(const QByteArray& stats, const QByteArray& column) {
    const QList<QByteArray> rows = stats.trimmed().split('\n');
    const qsizetype at = rows.value(0).simplified().split(' ').indexOf(column);
    if (at < 0 || rows.size() < 2)
        return -1;
    qint64 sum = 0;
    for (qsizetype row = 1; row < rows.size(); ++row)
        sum += rows.at(row).simplified().split(' ').value(at).toLongLong(nullptr, 16);
    return sum;
}

// How /proc/net/udp names a socket's peer ADDRESS:PORT: the address's bytes in network order
// printed as one host-order word, the port in hexadecimal.
QString procNetPeer(const QString& address, int port) {
    return QStringLiteral("%1:%2")
        .arg(qToBigEndian(QHostAddress(address).toIPv4Address()), 8, 16, QLatin1Char('0'))
        .arg(port, 4, 16, QLatin1Char('0'))
        .toUpper();
}

// The local ports of the sockets in /proc/net/udp connected (state 01) to `peer`.
QSet<int> socketsConnectedTo(const QByteArray& table, const QString& peer) {
    QSet<int> ports;
    for (const QByteArray& line : table.split('\n')) {
        const QList<QByteArray> fields = line.simplified().split(' ');
        if (fields.size() > 3 && QString::fromLatin1(fields.at(2)) == peer && fields.at(3) == "01")
            ports.insert(fields.at(1).mid(fields.at(1).indexOf(':') + 1).toInt(nullptr, 16));
    }
    return ports;
}

} // namespace

class TestLabUdp : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!cliPath().isEmpty(), "LOADSCOPE_CLI names the loadscope-cli executable");
        m_lab.read();
    }

    void cleanup() { QCOMPARE(hostNetworkSnapshot(), m_lab.before); }

    // udp-rr through every mode this machine builds, in one lab: each answer came back.
    void everyModeCarriesDatagrams() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        if (!m_lab.servers.at(QStringLiteral("udp-echo")).isEmpty())
            QSKIP(qPrintable(m_lab.servers.at(QStringLiteral("udp-echo"))));
        QStringList modes;
        for (const QString& mode : kModes) {
            if (m_lab.reasons.at(mode).isEmpty())
                modes.append(mode);
        }
        LabProcess lab(QStringList{QStringLiteral("lab"), QStringLiteral("sandbox"),
                                   QStringLiteral("--modes"), modes.join(QLatin1Char(',')),
                                   QStringLiteral("--server"), QStringLiteral("udp-echo"),
                                   QStringLiteral("--server-opt"),
                                   QStringLiteral("response-size=64")} +
                       perTarget(QStringLiteral("udp-rr -n 2000 -c 2 -r 64,64 --timeout 0.5")));
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"modes").toArray().size(), modes.size());
        const CliOutcome outcome = lab.fetchAll(built);
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        const QList<QJsonObject> runs = jsonLines(outcome.out);
        QCOMPARE(runs.size(), modes.size());
        for (qsizetype i = 0; i < runs.size(); ++i) {
            const QJsonObject& run = runs.at(i);
            const QByteArray which = modes.at(i).toUtf8();
            QVERIFY2(count(run, "complete") == 2000, which.constData());
            QVERIFY2(count(run, "failed") == 0, which.constData());
            QVERIFY2(count(run, "answers_duplicate") + count(run, "answers_late") +
                             count(run, "answers_stray") ==
                         0,
                     which.constData());
        }
        QVERIFY(labProcesses().empty());
    }

    // Every 100th datagram the client sends is dropped by nftables in the lab's client
    // namespace (numgen, with a counter): the client's lost requests are the rule's drops, 1 %.
    // Two more counters there, on the lab's addresses and port alone, say what left the
    // namespace and what came back (an answer that came after its socket closed included):
    // every request but the dropped ones, and an answer to each. (Not the namespace's
    // /proc/net/snmp: the process's own loopback datagrams, such as the interrupt accounting
    // probe's, count there too.)
    void everyHundredthDatagramDroppedIsOnePercentLost() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        if (!m_lab.servers.at(QStringLiteral("udp-echo")).isEmpty())
            QSKIP(qPrintable(m_lab.servers.at(QStringLiteral("udp-echo"))));
        const QString nft = QStandardPaths::findExecutable(
            QStringLiteral("nft"), {QStringLiteral("/usr/sbin"), QStringLiteral("/sbin")});
        if (nft.isEmpty())
            QSKIP("nft is not installed (Debian package nftables)");
        // In the lab's client namespace only: the command runs there. The counters print in
        // the rules' order: dropped, left, answered.
        const QString script =
            QStringLiteral("set -e; N=%1; "
                           "$N add table ip drops; "
                           "$N add chain ip drops out '{ type filter hook output priority 0; }'; "
                           "$N add chain ip drops in '{ type filter hook input priority 0; }'; "
                           "$N add rule ip drops out ip daddr 10.213.0.2 udp dport 8080 "
                           "numgen inc mod 100 == 0 counter drop; "
                           "$N add rule ip drops out ip daddr 10.213.0.2 udp dport 8080 counter; "
                           "$N add rule ip drops in ip saddr 10.213.0.2 udp sport 8080 counter; "
                           "\"$0\" udp-rr -n 10000 -c 4 -r 64,64 --timeout 0.1 -q --json - "
                           "10.213.0.2:8080 | tr -d '\\n'; echo; "
                           "echo counters $($N list table ip drops | "
                           "sed -n 's/.*counter packets \\([0-9]*\\).*/\\1/p')")
                .arg(nft);
        LabProcess lab({QStringLiteral("lab"), QStringLiteral("sandbox"), QStringLiteral("--modes"),
                        QStringLiteral("host"), QStringLiteral("--server"),
                        QStringLiteral("udp-echo"), QStringLiteral("--server-opt"),
                        QStringLiteral("response-size=64"), QStringLiteral("--"),
                        QStringLiteral("sh"), QStringLiteral("-c"), script, cliPath()});
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"modes").toArray().size(), 1);
        const CliOutcome outcome = lab.finish();
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        const QList<QJsonObject> runs = jsonLines(outcome.out);
        QCOMPARE(runs.size(), 1);
        const QJsonObject& run = runs.constFirst();
        const QRegularExpression countersLine(QStringLiteral("^counters (\\d+) (\\d+) (\\d+)$"),
                                              QRegularExpression::MultilineOption);
        const auto counters = countersLine.match(QString::fromUtf8(outcome.out));
        QVERIFY2(counters.hasMatch(), outcome.out.constData());
        // Counted by the rules from their making, after the lab's readiness check: the run's alone.
        const qint64 drops = counters.captured(1).toLongLong();
        const qint64 left = counters.captured(2).toLongLong();
        const qint64 answered = counters.captured(3).toLongLong();
        QCOMPARE(drops, 100);
        QCOMPARE(left, 10000 - drops);
        QCOMPARE(answered, left);
        QCOMPARE(count(run, "complete"), 10000);
        const qint64 lost = count(run, "failed_lost");
        const double share = 100.0 * double(lost) / 10000.0;
        QVERIFY2(share >= 0.8 && share <= 1.2, qPrintable(QString::number(share)));
        QCOMPARE(count(run, "failed"), lost);
        // Each request the rule dropped is lost; any other loss is an answer that came after the
        // timeout on a busy machine (late, when it came before the run ended: one a socket).
        const qint64 late = count(run, "answers_late");
        QVERIFY2(
            lost >= drops && lost - drops <= late + 4,
            qPrintable(
                QStringLiteral("lost %1, dropped %2, late %3").arg(lost).arg(drops).arg(late)));
        QVERIFY(labProcesses().empty());
    }

    // udp-stream's sink says what it received, through NAT and the userland relay too.
    void streamThroughNatAndRelay() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        QStringList modes;
        for (const QString& mode : {QStringLiteral("host"), QStringLiteral("container-nat"),
                                    QStringLiteral("userland-proxy")}) {
            if (m_lab.reasons.at(mode).isEmpty())
                modes.append(mode);
        }
        LabProcess lab(QStringList{QStringLiteral("lab"), QStringLiteral("sandbox"),
                                   QStringLiteral("--modes"), modes.join(QLatin1Char(',')),
                                   QStringLiteral("--server"), QStringLiteral("udp-sink")} +
                       perTarget(QStringLiteral("udp-stream -l 0.3 -m 1400")));
        const QJsonObject built = lab.readLab();
        const CliOutcome outcome = lab.fetchAll(built);
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        const QList<QJsonObject> runs = jsonLines(outcome.out);
        QCOMPARE(runs.size(), modes.size());
        for (qsizetype i = 0; i < runs.size(); ++i) {
            const QJsonObject& run = runs.at(i);
            const QByteArray which = modes.at(i).toUtf8();
            QVERIFY2(count(run, "sink_datagrams") > 0, which.constData());
            QVERIFY2(count(run, "sink_datagrams") <= count(run, "datagrams_sent"),
                     which.constData());
            QVERIFY2(count(run, "sink_bytes") == count(run, "sink_datagrams") * 1400,
                     which.constData());
        }
        QVERIFY(labProcesses().empty());
    }

    // Through NAT every UDP socket of a run is one flow in the server host's conntrack table
    // (read through /proc/PID/net of the process the lab holds in that namespace): the flows
    // the table gained are exactly those whose source ports are the client's sockets' as the
    // kernel listed them in the client namespace mid-run (/proc/net/udp), each DNAT'd to the
    // container and answered; with conntrack's accounting turned on in that namespace alone,
    // they carried every request one way and every answer the other; and conntrack's own
    // statistics there count no failed insert and no drop. Any flow the table had before (the
    // lab's readiness datagram's) stays; a socket may reuse its ports, and its flow with them.
    void natTracksOneConntrackFlowPerSocket() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        if (!m_lab.servers.at(QStringLiteral("udp-echo")).isEmpty())
            QSKIP(qPrintable(m_lab.servers.at(QStringLiteral("udp-echo"))));
        if (!m_lab.reasons.at(QStringLiteral("container-nat")).isEmpty())
            QSKIP(qPrintable(m_lab.reasons.at(QStringLiteral("container-nat"))));
        if (!QFile::exists(QStringLiteral("/proc/net/nf_conntrack")))
            QSKIP("the kernel lists no conntrack table (/proc/net/nf_conntrack)");
        const QString machineAccounting =
            QStringLiteral("/proc/sys/net/netfilter/nf_conntrack_acct");
        const QByteArray accountingBefore = fileText(machineAccounting);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        constexpr qint64 kSockets = 4;
        constexpr qint64 kRequests = 2000;
        // In the client namespace; the server host's is read through its holder's /proc/PID. The
        // run lasts two seconds at its fixed rate, while its sockets are listed once all are
        // open (or the run ended without them).
        const QString script =
            QStringLiteral("set -e; read target peer; P=$LOADSCOPE_LAB_SERVER_HOST_PID; "
                           "nsenter --net=/proc/$P/ns/net sh -c "
                           "'echo 1 > /proc/sys/net/netfilter/nf_conntrack_acct'; "
                           "cat /proc/$P/net/nf_conntrack > \"$1/before\"; "
                           "cat /proc/$P/net/stat/nf_conntrack > \"$1/stats-before\"; "
                           "\"$0\" udp-rr -n %1 -R %2 -c %3 -r 64,64 --timeout 2 -q "
                           "--json \"$1/run.json\" \"$target\" > /dev/null & run=$!; "
                           "until [ \"$(grep -c \" $peer 01 \" /proc/net/udp)\" -ge %3 ] || "
                           "! kill -0 $run 2>/dev/null; do sleep 0.02; done; "
                           "cat /proc/net/udp > \"$1/sockets\"; wait $run; "
                           "cat /proc/$P/net/nf_conntrack > \"$1/after\"; "
                           "cat /proc/$P/net/stat/nf_conntrack > \"$1/stats-after\"")
                .arg(kRequests)
                .arg(kRequests / 2)
                .arg(kSockets);
        LabProcess lab({QStringLiteral("lab"), QStringLiteral("sandbox"), QStringLiteral("--modes"),
                        QStringLiteral("container-nat"), QStringLiteral("--server"),
                        QStringLiteral("udp-echo"), QStringLiteral("--server-opt"),
                        QStringLiteral("response-size=64"), QStringLiteral("--"),
                        QStringLiteral("sh"), QStringLiteral("-c"), script, cliPath(), dir.path()});
        const QJsonObject built = lab.readLab();
        QCOMPARE(built.value(u"modes").toArray().size(), 1);
        const QJsonObject mode = built.value(u"modes").toArray().first().toObject();
        const QString address = mode.value(u"address").toString();
        const int port = mode.value(u"port").toInt();
        lab.process().write(QStringLiteral("%1:%2 %3\n")
                                .arg(address)
                                .arg(port)
                                .arg(procNetPeer(address, port))
                                .toLatin1());
        lab.process().closeWriteChannel();
        const CliOutcome outcome = lab.finish();
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        const QJsonObject run =
            QJsonDocument::fromJson(fileText(dir.filePath(QStringLiteral("run.json")))).object();
        QCOMPARE(count(run, "complete"), kRequests);
        QCOMPARE(count(run, "failed"), 0);

        const QSet<int> sockets = socketsConnectedTo(
            fileText(dir.filePath(QStringLiteral("sockets"))), procNetPeer(address, port));
        QCOMPARE(qint64(sockets.size()), kSockets);
        QCOMPARE(count(run, "connections_opened"), kSockets);
        const auto before =
            udpFlowsTo(fileText(dir.filePath(QStringLiteral("before"))), address, port);
        const auto after =
            udpFlowsTo(fileText(dir.filePath(QStringLiteral("after"))), address, port);
        QSet<int> expected = sockets;
        for (const auto& [sourcePort, flow] : before)
            expected.insert(sourcePort);
        QSet<int> tracked;
        for (const auto& [sourcePort, flow] : after)
            tracked.insert(sourcePort);
        QCOMPARE(tracked, expected);
        qint64 out = 0;
        qint64 back = 0;
        bool accounted = true;
        for (const int sourcePort : sockets) {
            const ConntrackFlow& flow = after.at(sourcePort);
            QVERIFY2(flow.replySource.startsWith(QStringLiteral("10.213.1.")) &&
                         flow.replySourcePort == loadscope::app::lab::kServicePort,
                     qPrintable(QStringLiteral("port %1: replies from %2:%3")
                                    .arg(sourcePort)
                                    .arg(flow.replySource)
                                    .arg(flow.replySourcePort)));
            QVERIFY(!flow.unreplied);
            accounted = accounted && flow.packetsOut >= 0;
            out += std::max<qint64>(flow.packetsOut, 0);
            back += std::max<qint64>(flow.packetsBack, 0);
        }
        qInfo("%lld sockets; conntrack: %zu flows before, %zu after; accounted %lld datagrams out, "
              "%lld back",
              kSockets, before.size(), after.size(), out, back);
        // Exactly, unless a socket took the readiness datagram's ports and with them its flow,
        // whose entry has no accounting: then at most.
        if (accounted) {
            QCOMPARE(out, kRequests);
            QCOMPARE(back, kRequests);
        } else {
            QVERIFY(out <= kRequests && back <= kRequests);
        }
        const QByteArray statsBefore = fileText(dir.filePath(QStringLiteral("stats-before")));
        const QByteArray statsAfter = fileText(dir.filePath(QStringLiteral("stats-after")));
        for (const QByteArray& column :
             {QByteArray("insert_failed"), QByteArray("drop"), QByteArray("early_drop")}) {
            QVERIFY2(conntrackStat(statsBefore, column) >= 0, statsBefore.constData());
            QVERIFY2(conntrackStat(statsAfter, column) == conntrackStat(statsBefore, column),
                     QByteArray(column + "\n" + statsBefore + statsAfter).constData());
        }
        // The accounting was the lab namespace's alone.
        QCOMPARE(fileText(machineAccounting), accountingBefore);
        QVERIFY(labProcesses().empty());
    }

private:
    LabCheck m_lab;
};

QTEST_GUILESS_MAIN(TestLabUdp)
#include "tst_lab_udp.moc"
