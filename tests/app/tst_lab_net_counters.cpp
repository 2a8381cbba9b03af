// The network stack's counters of a lab point, in every namespace it used: an nft rule inside
// the lab's client namespace drops a known number of the server's responses, and the server
// host's namespace counts that many retransmissions; a sweep through the lab's agent reads the
// client's, the server's, the server host's and the machine's namespaces, each once. Every test
// compares the machine's own network namespace before and after.
#include "lab_sandbox_support.h"

#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

using namespace loadscope::testing;

namespace {

// The namespace of `namespaces` whose roles are exactly `roles`, or an empty object.
QJsonObject namespaceOf(const QJsonArray& namespaces, const QStringList& roles) {
    for (const QJsonValue& n : namespaces) {
        QStringList have;
        for (const QJsonValue& role : n[u"roles"].toArray())
            have << role.toString();
        if (have == roles)
            return n.toObject();
    }
    return {};
}

QString rolesOf(const QJsonArray& namespaces) {
    QStringList all;
    for (const QJsonValue& n : namespaces) {
        QStringList roles;
        for (const QJsonValue& role : n[u"roles"].toArray())
            roles << role.toString();
        all << QLatin1Char('[') + roles.join(QStringLiteral(", ")) + QLatin1Char(']');
    }
    return all.join(QLatin1Char(' '));
}

} // namespace

class TestLabNetCounters : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!cliPath().isEmpty(), "LOADSCOPE_CLI names the loadscope-cli executable");
        m_lab.read();
    }

    // Checked after every test function: the rules went with the lab, the machine's namespace
    // is as it was.
    void cleanup() { QCOMPARE(hostNetworkSnapshot(), m_lab.before); }

    // In the client's namespace an nft rule drops every 100th of the server's segments that
    // carry data, and counts them. Each dropped response is one the server sends again: its
    // namespace (the server host's, read through the lab's process there) counts them, exactly
    // unless a retransmission went spurious, and at most that many more. The client, missing
    // the acknowledgement the response carried, may send its request again, at most once per
    // drop.
    void nftDropsShowAsRetransmits() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        QTemporaryDir dir;
        const QString script = QStringLiteral(
            "read target; addr=${target%:*}; port=${target#*:}; "
            "nft add table inet loss && "
            "nft add chain inet loss in '{ type filter hook input priority 0; }' && "
            "nft add rule inet loss in ip saddr $addr tcp sport $port ip length '>' 100 "
            "numgen inc mod 100 == 0 counter drop || exit 3; "
            "\"$0\" http -k -n 2000 -c 4 -q --json \"$1/out.json\" \"http://$target/\" "
            "> \"$1/report.txt\" || exit 4; "
            "nft list chain inet loss in > \"$1/nft.txt\"");
        LabProcess lab({QStringLiteral("lab"), QStringLiteral("sandbox"), QStringLiteral("--modes"),
                        QStringLiteral("host"), QStringLiteral("--server"), QStringLiteral("http"),
                        QStringLiteral("--server-opt"), QStringLiteral("size=100"),
                        QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"), script,
                        cliPath(), dir.path()});
        const QJsonObject built = lab.readLab();
        QVERIFY(built.value(u"serverHostPid").toInt() > 0);
        const CliOutcome outcome = lab.fetchAll(built);
        QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
        const QByteArray rules = fileText(dir.filePath(QStringLiteral("nft.txt")));
        const QRegularExpressionMatch counted =
            QRegularExpression(QStringLiteral("counter packets (\\d+)"))
                .match(QString::fromUtf8(rules));
        QVERIFY2(counted.hasMatch(), rules.constData());
        const double dropped = counted.captured(1).toDouble();
        const QJsonObject run =
            QJsonDocument::fromJson(fileText(dir.filePath(QStringLiteral("out.json")))).object();
        QCOMPARE(run.value(u"complete").toDouble(), 2000.0);
        QCOMPARE(run.value(u"failed").toDouble(), 0.0);
        const QJsonObject net = run.value(u"net_counters").toObject();
        const QJsonArray namespaces = net.value(u"namespaces").toArray();
        const QJsonObject client = namespaceOf(namespaces, {QStringLiteral("client")});
        const QJsonObject host = namespaceOf(namespaces, {QStringLiteral("server host")});
        const QJsonObject machine = namespaceOf(namespaces, {QStringLiteral("machine")});
        QVERIFY2(!client.isEmpty() && !host.isEmpty() && !machine.isEmpty(),
                 qPrintable(rolesOf(namespaces)));
        const double serverSent = host.value(u"tcp_retransmits").toDouble();
        const double clientSent = client.value(u"tcp_retransmits").toDouble();
        qInfo("nft dropped %.0f responses; retransmitted: server host %.0f, client %.0f; "
              "notes: %s",
              dropped, serverSent, clientSent, qPrintable(net.value(u"notes").toString()));
        QVERIFY2(dropped >= 10, rules.constData()); // about 2000 / 100
        QVERIFY2(serverSent >= dropped && serverSent <= dropped + 2,
                 qPrintable(
                     QStringLiteral("%1 retransmitted, %2 dropped").arg(serverSent).arg(dropped)));
        QVERIFY(clientSent <= dropped);
        // The point's totals are its own namespaces', not the machine's.
        QCOMPARE(net.value(u"tcp_retransmits").toDouble(), serverSent + clientSent);
        QVERIFY2(net.value(u"notes").toString().contains(
                     QStringLiteral("%1 TCP segments retransmitted (server host)").arg(serverSent)),
                 qPrintable(net.value(u"notes").toString()));
        // The ab-style report says so, in its block after the CPU.
        const QByteArray report = fileText(dir.filePath(QStringLiteral("report.txt")));
        QVERIFY2(report.contains("Network stack (counters over the measured window)") &&
                     QRegularExpression(
                         QStringLiteral("server host:\\s+retransmits %1\\b").arg(serverSent))
                         .match(QString::fromUtf8(report))
                         .hasMatch(),
                 report.constData());
        QVERIFY(labProcesses().empty());
    }

    // A sweep through the lab's agent reads every namespace a point used, once each: in NAT mode
    // the server's own (the container's), the server host's, the client's and the machine's; in
    // host mode the server's is the server host's. A lab's wire with no rule on it loses nothing.
    void sweepReadsEveryNamespace() {
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        for (const QString& mode : {QStringLiteral("host"), QStringLiteral("container-nat")})
            LOADSCOPE_SKIP_UNBUILDABLE_MODE(m_lab, mode);
        QFile file(qEnvironmentVariable("LOADSCOPE_SOURCE_DIR") +
                   QStringLiteral("/resources/sessions/lab-tcp-rr.loadscope"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonObject session = QJsonDocument::fromJson(file.readAll()).object();
        QJsonArray targets;
        for (const QJsonValue target : session.value(u"targets").toArray())
            if (target[u"lab"][u"mode"] != QStringLiteral("container-host-network"))
                targets.append(target);
        session.insert(QStringLiteral("targets"), targets);
        QJsonObject lab = session.value(u"lab").toObject();
        lab.insert(QStringLiteral("modes"),
                   QJsonArray{QStringLiteral("host"), QStringLiteral("container-nat")});
        session.insert(QStringLiteral("lab"), lab);
        QJsonObject plan = session.value(u"plan").toObject();
        plan.insert(QStringLiteral("durationSeconds"), 0.5);
        plan.insert(QStringLiteral("warmupSeconds"), 0);
        plan.insert(QStringLiteral("repetitions"), 1);
        plan.insert(QStringLiteral("concurrency"), QJsonArray{2});
        session.insert(QStringLiteral("plan"), plan);
        QTemporaryDir dir;
        QFile small(dir.filePath(QStringLiteral("lab.loadscope")));
        QVERIFY(small.open(QIODevice::WriteOnly));
        small.write(QJsonDocument(session).toJson());
        small.close();
        const QString out = dir.filePath(QStringLiteral("out.loadscope"));
        const CliOutcome sweep =
            runCliProcess({QStringLiteral("sweep"), small.fileName(), QStringLiteral("--out"), out,
                           QStringLiteral("--idle-check"), QStringLiteral("0")},
                          90'000);
        QVERIFY2(sweep.exitCode == 0, sweep.err.constData());
        const QJsonArray results =
            QJsonDocument::fromJson(fileText(out)).object().value(u"results").toArray();
        QCOMPARE(results.size(), 2);
        for (const QJsonValue& result : results) {
            const bool nat = result[u"target"] == targets.at(1)[u"id"];
            const QJsonArray namespaces = result[u"netCounters"][u"namespaces"].toArray();
            const QList<QStringList> expected =
                nat ? QList<QStringList>{{QStringLiteral("client")},
                                         {QStringLiteral("server")},
                                         {QStringLiteral("server host")},
                                         {QStringLiteral("machine")}}
                    : QList<QStringList>{{QStringLiteral("client")},
                                         {QStringLiteral("server"), QStringLiteral("server host")},
                                         {QStringLiteral("machine")}};
            QCOMPARE(namespaces.size(), expected.size());
            QSet<double> ids;
            for (const QStringList& roles : expected) {
                const QJsonObject n = namespaceOf(namespaces, roles);
                QVERIFY2(!n.isEmpty(), qPrintable(roles.join(u',') + QStringLiteral(" in ") +
                                                  rolesOf(namespaces)));
                ids.insert(n.value(u"netns").toDouble());
                if (roles != QStringList{QStringLiteral("machine")}) {
                    // Zero counters are not written: nothing lost, nothing refused.
                    for (const char* lost : {"tcpRetransmits", "synRetransmits", "listenDrops",
                                             "conntrackDrop", "linkDrops"})
                        QVERIFY2(!n.contains(QLatin1String(lost)),
                                 QJsonDocument(n).toJson().constData());
                }
            }
            QCOMPARE(ids.size(), expected.size());
            QVERIFY(!ids.contains(0));
            QCOMPARE(qulonglong(namespaceOf(namespaces, {QStringLiteral("machine")})
                                    .value(u"netns")
                                    .toDouble()),
                     qulonglong(fileInode(QStringLiteral("/proc/1/net/snmp"))));
        }
        QVERIFY(labProcesses().empty());
    }

private:
    static uint64_t fileInode(const QString& path) {
        struct stat info {};
        return ::stat(path.toLocal8Bit().constData(), &info) == 0 ? uint64_t(info.st_ino) : 0;
    }

    LabCheck m_lab;
};

QTEST_GUILESS_MAIN(TestLabNetCounters)
#include "tst_lab_net_counters.moc"
