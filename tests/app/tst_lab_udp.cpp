// UDP through the deployment lab, run as a user runs it: `loadscope-cli lab sandbox` with the
// udp-echo and udp-sink servers and udp-rr or udp-stream as the command, in the client
// namespace. Every buildable mode carries datagrams (NAT's DNAT, the userland relays and
// slirp4netns' forwarding included); an nftables rule in the lab's client namespace that drops
// every 100th datagram, counting them, is lost requests the client counts to the one, and the
// namespace's own UDP counters (/proc/net/snmp) see every other request leave and its answer
// come back. Every test compares the machine's own network namespace before and after.
#include "lab_sandbox_support.h"

#include <QScopeGuard>

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

private:
    LabCheck m_lab;
};

QTEST_GUILESS_MAIN(TestLabUdp)
#include "tst_lab_udp.moc"
