// The network stack's counters per point: the /proc parsers against the kernel's own text, a
// window's differences, the notes that say what matters, the counters in the session file,
// and, in a network namespace of the test's own, a listener with no room in its accept queue
// against the TCP stack's schedule of SYN retransmissions. The machine's own namespace is
// compared before and after: nothing of it changes.
#include "app/session/net_counters.h"
#include "app/session/point_result.h"
#include "app/session/session_json.h"
#include "engine/http_protocol.h"
#include "engine/load_run.h"
#include "engine/net_counters.h"
#include "lab_sandbox_support.h"

#include <QTest>
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace loadscope;
using namespace std::chrono_literals;

namespace {

// This machine's /proc/net/snmp and /proc/net/netstat, cut to their TCP groups, and a group
// that shares none of their names.
const char* const kSnmp =
    "Ip: Forwarding DefaultTTL InReceives\n"
    "Ip: 2 64 7638\n"
    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets "
    "CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
    "Tcp: 1 200 120000 -1 183343 183157 164 40638 0 31033023 31024791 6885 0 31493 0\n";
const char* const kNetstat =
    "TcpExt: SyncookiesSent DelayedACKLost ListenOverflows ListenDrops TCPTimeouts "
    "TCPSynRetrans\n"
    "TcpExt: 0 6906 12 15 33 7\n"
    "IpExt: InNoRoutes InTruncatedPkts\n"
    "IpExt: 0 0\n";
// Two CPUs' lines in hex under the header that names the columns.
const char* const kConntrack =
    "entries  clashres found new invalid ignore delete chainlength insert insert_failed drop "
    "early_drop icmp_error  expect_new expect_create expect_delete search_restart\n"
    "00000010  00000000 00000000 00000000 0000000a 00000000 00000000 00000000 00000000 00000001 "
    "00000100 00000002 00000000  00000000 00000000 00000000 00000000\n"
    "00000010  00000000 00000000 00000000 00000005 00000000 00000000 00000000 00000000 00000002 "
    "00000038 00000003 00000000  00000000 00000000 00000000 00000000\n";
const char* const kNetDev =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
    "drop fifo colls carrier compressed\n"
    "    lo:   42323     208    0    0    0     0          0         0    42323     208    0    "
    "0    0     0       0          0\n"
    " wire1: 1000 10 0 4 0 0 0 0 2000 20 0 9 0 0 0 0\n";
const char* const kSoftnet =
    "012cf3dd 00000003 00000007 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
    "00000000 00000000 00000000 00000000 00000000\n"
    "00dfd29a 00000001 0000000c 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
    "00000000 00000000 00000001 00000000 00000000\n";

engine::NetNamespaceSample sample(engine::NetRole role, uint64_t id, uint64_t retransmits,
                                  uint64_t wire1Sent) {
    engine::NetNamespaceSample s;
    s.roles = {role};
    s.id = id;
    s.valid = true;
    s.counters.tcpRetransmits = retransmits;
    s.counters.conntrack = true;
    s.counters.links = {{"wire1", 0, wire1Sent}};
    return s;
}

// What a run against a listener that never accepts, in a network namespace of its own, did.
struct TinyBacklogRun {
    QString skipped; // why it could not run
    engine::RunResult run;
    int queued = -1; // connections left in the listener's accept queue (tcpi_unacked)
};

// `connections` kept-alive connections against a listener with a backlog of 0, for `window`:
// the first connection completes into the accept queue, which is then full, so the kernel drops
// every other SYN; each is sent again one second later (the first SYN timeout). The run, its
// workers and its monitor live in a network namespace the calling thread made: the counters
// of no other process are in its client's.
TinyBacklogRun runAgainstTinyBacklog(uint32_t connections, std::chrono::nanoseconds window) {
    TinyBacklogRun out;
    std::thread own([&] {
        if (unshare(CLONE_NEWNET) != 0) {
            out.skipped = QStringLiteral("no network namespace of its own: %1")
                              .arg(QString::fromLocal8Bit(std::strerror(errno)));
            return;
        }
        const int control = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        ifreq lo{};
        std::strcpy(lo.ifr_name, "lo");
        ioctl(control, SIOCGIFFLAGS, &lo);
        lo.ifr_flags = short(lo.ifr_flags | IFF_UP);
        const bool up = ioctl(control, SIOCSIFFLAGS, &lo) == 0;
        close(control);
        const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        auto* generic = reinterpret_cast<sockaddr*>(&address);
        if (!up || bind(listener, generic, sizeof address) != 0 || listen(listener, 0) != 0 ||
            getsockname(listener, generic, &length) != 0) {
            out.skipped = QStringLiteral("no listener in the test's namespace");
            close(listener);
            return;
        }
        const uint16_t port = ntohs(address.sin_port);
        engine::HttpRequestSpec request;
        request.host = "127.0.0.1:" + std::to_string(port);
        request.keepAlive = true;
        engine::LoadSpec spec;
        spec.protocol = std::make_shared<engine::HttpProtocol>(request);
        spec.target = *engine::SocketAddress::fromNumeric("127.0.0.1", port);
        spec.concurrency = connections;
        spec.threads = 1;
        spec.duration = window;
        engine::LoadRun run(std::move(spec));
        run.start();
        out.run = run.wait();
        tcp_info info{};
        socklen_t size = sizeof info;
        if (getsockopt(listener, IPPROTO_TCP, TCP_INFO, &info, &size) == 0)
            out.queued = int(info.tcpi_unacked); // a listener's: its accept queue's length
        close(listener);
    });
    own.join();
    return out;
}

} // namespace

class TestNetCounters : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_before = testing::hostNetworkSnapshot(); }
    // Checked after every test function: the machine's own namespace is as it was.
    void cleanup() { QCOMPARE(testing::hostNetworkSnapshot(), m_before); }

    void parsesTheKernelsText() {
        engine::NetCounters c;
        engine::parseSnmp(kSnmp, c);
        engine::parseSnmp(kNetstat, c);
        QCOMPARE(c.tcpRetransmits, uint64_t(6885));
        QCOMPARE(c.resetsSent, uint64_t(31493));
        QCOMPARE(c.establishedResets, uint64_t(40638));
        QCOMPARE(c.listenOverflows, uint64_t(12));
        QCOMPARE(c.listenDrops, uint64_t(15));
        QCOMPARE(c.tcpTimeouts, uint64_t(33));
        QCOMPARE(c.synRetransmits, uint64_t(7));
        QVERIFY(engine::parseConntrackStat(kConntrack, c));
        QVERIFY(c.conntrack);
        QCOMPARE(c.conntrackInvalid, uint64_t(0xa + 0x5));
        QCOMPARE(c.conntrackInsertFailed, uint64_t(3));
        QCOMPARE(c.conntrackDrop, uint64_t(0x100 + 0x38)); // 312
        QCOMPARE(c.conntrackEarlyDrop, uint64_t(5));
        engine::NetCounters none;
        QVERIFY(!engine::parseConntrackStat("entries searched\n00000001 00000002\n", none));
        QVERIFY(!none.conntrack);
        const std::vector<engine::LinkDrops> links = engine::parseNetDev(kNetDev);
        QCOMPARE(links.size(), size_t(2));
        QCOMPARE(links[1].name, std::string("wire1"));
        QCOMPARE(links[1].received, uint64_t(4));
        QCOMPARE(links[1].sent, uint64_t(9));
        const auto softnet = engine::parseSoftnetStat(kSoftnet);
        QVERIFY(softnet);
        QCOMPARE(softnet->dropped, uint64_t(4));
        QCOMPARE(softnet->timeSqueeze, uint64_t(7 + 12));
    }

    // A window is per namespace, matched by its id; counters that went down count as nothing,
    // a link that came or went has no difference.
    void windowIsTheDifference() {
        engine::NetSample start;
        start.valid = true;
        start.namespaces = {sample(engine::NetRole::Client, 7, 100, 5),
                            sample(engine::NetRole::ServerHost, 9, 50, 0)};
        start.softnet = engine::SoftnetCounters{3, 10};
        engine::NetSample end = start;
        end.namespaces[0].counters.tcpRetransmits = 112;
        end.namespaces[0].counters.links = {{"wire1", 0, 8}, {"new0", 4, 4}};
        end.namespaces[1].counters.tcpRetransmits = 40; // a namespace replaced: not -10
        end.softnet = engine::SoftnetCounters{3, 14};
        const engine::NetWindow w = engine::netWindow(start, end);
        QVERIFY(w.valid);
        QCOMPARE(w.namespaces.size(), size_t(2));
        QCOMPARE(w.namespaces[0].counters.tcpRetransmits, uint64_t(12));
        QCOMPARE(w.namespaces[0].counters.links.size(), size_t(1));
        QCOMPARE(w.namespaces[0].counters.linkDrops(), uint64_t(3));
        QCOMPARE(w.namespaces[1].counters.tcpRetransmits, uint64_t(0));
        QCOMPARE(w.softnet->timeSqueeze, uint64_t(4));
        QVERIFY(!engine::netWindow(start, engine::NetSample{}).valid);
    }

    // One namespace that several share is read once, with all their roles.
    void aSharedNamespaceIsReadOnce() {
        const engine::NetCounterSampler sampler({{engine::NetRole::Client, 0},
                                                 {engine::NetRole::Server, int(getpid())},
                                                 {engine::NetRole::Machine, 1}});
        const engine::NetSample s = sampler.sample();
        QVERIFY(s.valid);
        QVERIFY(!s.namespaces.empty());
        const auto& first = s.namespaces.front();
        QVERIFY(first.valid && first.id != 0);
        QVERIFY(first.roles.size() >= 2); // this process is its own server here
        QCOMPARE(first.roles[1], engine::NetRole::Server);
        QVERIFY(s.softnet);
    }

    // What matters is a line, with where it happened; the machine's own namespace alone, which a
    // lab point's traffic never crosses, is a figure, not a line.
    void notesSayWhatMatters() {
        app::NetCounterWindow w;
        app::NamespaceCounters host;
        host.roles = {QStringLiteral("server host")};
        host.conntrack = true;
        host.conntrackDrop = 312;
        host.conntrackInvalid = 40; // a figure only
        host.resetsSent = 9;        // a figure only
        app::NamespaceCounters client;
        client.roles = {QStringLiteral("client")};
        client.tcpRetransmits = 1;
        client.linkDrops[QStringLiteral("wire0")] = {2, 1};
        app::NamespaceCounters machine;
        machine.roles = {QStringLiteral("machine")};
        machine.tcpRetransmits = 500;
        w.namespaces = {client, host, machine};
        w.softnet = app::SoftnetCounts{0, 70};
        QCOMPARE(app::netCounterNotes(w),
                 QStringList({QStringLiteral("1 TCP segment retransmitted (client)"),
                              QStringLiteral("link wire0 dropped 3 packets (client)"),
                              QStringLiteral("conntrack dropped 312 packets (server host): its "
                                             "table was full (nf_conntrack_max)")}));
        const app::NamespaceCounters totals = w.pointTotals();
        QCOMPARE(totals.tcpRetransmits, uint64_t(1)); // not the machine's 500
        QCOMPARE(totals.conntrackDrop, uint64_t(312));
        QCOMPARE(totals.linkDropTotal(), uint64_t(3));
        QVERIFY(app::netCounterMark(std::nullopt).isEmpty());
        app::NetCounterWindow quiet;
        quiet.namespaces = {machine};
        QVERIFY(app::netCounterMark(quiet).isEmpty());
    }

    // In the session file only when measured, zero counters left out, read back the same; a
    // result without counters writes no key, as files saved before them.
    void sessionFileKeepsTheCounters() {
        app::PointResult r;
        r.targetId = QUuid::createUuid();
        r.concurrency = 1;
        r.complete = 10;
        app::NamespaceCounters host;
        host.roles = {QStringLiteral("server"), QStringLiteral("server host")};
        host.netns = 4026532301;
        host.conntrack = true;
        host.listenDrops = 4;
        host.linkDrops[QStringLiteral("wire1")] = {0, 2};
        r.net = app::NetCounterWindow{{host}, app::SoftnetCounts{1, 2}};
        const QJsonObject saved = app::pointResultToJson(r);
        const QJsonObject net = saved.value(u"netCounters").toObject();
        const QJsonObject first = net.value(u"namespaces")[0].toObject();
        QCOMPARE(first.value(u"listenDrops").toDouble(), 4.0);
        QVERIFY(!first.contains(u"tcpRetransmits"));
        app::JsonReader reader(saved);
        const app::PointResult read = app::pointResultFromJson(reader);
        QVERIFY2(reader.ok(), qPrintable(reader.error().message));
        QCOMPARE(read.net, r.net);
        r.net.reset();
        QVERIFY(!app::pointResultToJson(r).contains(u"netCounters"));
    }

    // Against a listener whose accept queue holds one connection, the kernel drops every other
    // connection's SYN, and again when each is sent once more a second later: in a 1.5 s window
    // exactly two listen drops and one SYN retransmission per connection left out, counted in
    // the client's namespace, which here is the server's too and no one else's.
    void listenQueueOverflowShowsInListenDrops() {
        constexpr uint32_t kConnections = 6;
        const TinyBacklogRun ran = runAgainstTinyBacklog(kConnections, 1500ms);
        if (!ran.skipped.isEmpty())
            QSKIP(qPrintable(ran.skipped));
        QVERIFY(ran.run.net.valid);
        QVERIFY(ran.queued >= 1);
        const uint64_t refused = kConnections - uint32_t(ran.queued);
        const engine::NetNamespaceSample& client = ran.run.net.namespaces.front();
        QCOMPARE(client.roles, std::vector<engine::NetRole>{engine::NetRole::Client});
        const engine::NetCounters& c = client.counters;
        qInfo("%d queued, %llu refused: listen overflows %llu, drops %llu, SYN retransmits %llu, "
              "retransmits %llu, timeouts %llu",
              ran.queued, qulonglong(refused), qulonglong(c.listenOverflows),
              qulonglong(c.listenDrops), qulonglong(c.synRetransmits), qulonglong(c.tcpRetransmits),
              qulonglong(c.tcpTimeouts));
        QCOMPARE(c.listenOverflows, 2 * refused);
        QCOMPARE(c.listenDrops, 2 * refused);
        QCOMPARE(c.synRetransmits, refused);
        QCOMPARE(c.tcpRetransmits, refused);
        // The machine's namespace is read apart, and none of this is in it.
        QCOMPARE(ran.run.net.namespaces.back().roles,
                 std::vector<engine::NetRole>{engine::NetRole::Machine});
        // What the point says of it.
        const app::PointResult point = app::pointResultFromRun(ran.run, {}, 1, 0, {});
        const QString mark = app::netCounterMark(point.net);
        QVERIFY2(mark.contains(QStringLiteral("%1 connection attempts dropped by a listener "
                                              "(client): its accept queue was full")
                                   .arg(2 * refused)),
                 qPrintable(mark));
        QVERIFY2(mark.contains(QStringLiteral("%1 SYNs retransmitted (client)").arg(refused)),
                 qPrintable(mark));
    }

private:
    QByteArray m_before;
};

QTEST_GUILESS_MAIN(TestNetCounters)
#include "tst_net_counters.moc"
