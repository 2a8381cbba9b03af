// CPU profiles of lab modes, taken as a user takes them (`loadscope-cli lab sandbox --
// loadscope-cli tcp-rr --profile`), each mode in a lab of its own: the kernel paths a mode's
// network path holds show up in its profile and are absent from the host's, the lab's server is the
// server role and a relay the relay role. Inside a user namespace the profile is refused in one
// line and the run goes on. Every test compares the machine's own network namespace before and
// after, and runs the lab inside a network namespace of its own (unshare -n).
#include "echo_cli_support.h"
#include "lab_sandbox_support.h"
#include "required_here.h"

#include <QScopeGuard>
#include <unistd.h>

using namespace loadscope::testing;

namespace {

// What a profile of one mode said, µs per transaction.
struct ModeProfile {
    QJsonObject byRole;
    QJsonObject byPath;
    double samples = 0;
    QByteArray problem; // why there is none

    double path(const char* id) const { return byPath.value(QLatin1String(id)).toDouble(); }
    double role(const char* id) const { return byRole.value(QLatin1String(id)).toDouble(); }
    double netfilter() const { return path("conntrack") + path("nat") + path("nftables"); }
};

} // namespace

class TestLabProfile : public QObject {
    Q_OBJECT

private:
    LabCheck m_lab;
    QString m_unshare;
    QString m_noProfile; // why profiles are refused here

    // TCP_CRR for a second in a lab of `mode` alone (a connection per
    // transaction: every packet through the mode's path, conntrack and NAT
    // setting up each connection).
    ModeProfile profileOf(const QString& mode) {
        LabProcess lab(
            {QStringLiteral("-n"), cliPath(), QStringLiteral("lab"), QStringLiteral("sandbox"),
             QStringLiteral("--modes"), mode, QStringLiteral("--server"), QStringLiteral("echo"),
             QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
             QStringLiteral("read target && exec \"$0\" tcp-rr --crr -c 2 -l 1 --profile --json - "
                            "\"$target\""),
             cliPath()},
            m_unshare);
        ModeProfile profile;
        const QJsonObject built = lab.readLab();
        if (built.isEmpty()) {
            profile.problem = "no lab line: " + lab.finish().err;
            return profile;
        }
        lab.process().write(targetsOf(built));
        lab.process().closeWriteChannel();
        const CliOutcome outcome = lab.finish();
        const QJsonObject json = QJsonDocument::fromJson(outcome.out).object();
        if (outcome.exitCode != 0 || json.value(u"failed").toDouble() != 0) {
            profile.problem = outcome.err;
            return profile;
        }
        const QJsonObject cpu = json.value(u"cpu_profile").toObject();
        if (cpu.contains(u"unavailable")) {
            profile.problem = cpu.value(u"unavailable").toString().toUtf8();
            return profile;
        }
        profile.byRole = cpu.value(u"by_role").toObject();
        profile.byPath = cpu.value(u"by_path").toObject();
        profile.samples = cpu.value(u"samples").toDouble();
        qInfo("%s: %.0f samples; server %.1f, client %.1f, relay %.1f us; conntrack %.2f, NAT "
              "%.2f, nftables %.2f, bridge %.2f, veth %.2f us a transaction",
              qPrintable(mode), profile.samples, profile.role("server"), profile.role("client"),
              profile.role("relay"), profile.path("conntrack"), profile.path("nat"),
              profile.path("nftables"), profile.path("bridge"), profile.path("veth"));
        return profile;
    }

    bool skipUnlessLab(const QString& mode) {
        if (!m_lab.noSandbox.isEmpty()) {
            m_skip = QStringLiteral("no sandbox here: ") + m_lab.noSandbox;
            m_skipCapability = QStringLiteral("sandbox");
            return true;
        }
        if (m_unshare.isEmpty()) {
            m_skip = QStringLiteral("unshare (util-linux) is not installed");
            m_skipCapability = QStringLiteral("sandbox");
            return true;
        }
        if (!m_noProfile.isEmpty()) {
            m_skip = QStringLiteral("no CPU profile here: ") + m_noProfile;
            m_skipCapability = QStringLiteral("cpu-profile");
            return true;
        }
        if (!m_lab.reasons.at(mode).isEmpty()) {
            m_skip = mode + QStringLiteral(": ") + m_lab.reasons.at(mode);
            m_skipCapability = QStringLiteral("mode:") + mode;
            return true;
        }
        return false;
    }
    QString m_skip;
    QString m_skipCapability; // what LOADSCOPE_REQUIRE may say is here (required_here.h)

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!cliPath().isEmpty(), "LOADSCOPE_CLI names the loadscope-cli executable");
        m_lab.read();
        m_unshare = QStandardPaths::findExecutable(QStringLiteral("unshare"));
        // Whether this machine lets the lab open its perf events: a run with a
        // profile in a network namespace of its own says so (its target is refused at once).
        if (!m_unshare.isEmpty()) {
            const CliOutcome probe =
                runProgram(m_unshare, {QStringLiteral("-n"), cliPath(), QStringLiteral("tcp-rr"),
                                       QStringLiteral("-n"), QStringLiteral("1"),
                                       QStringLiteral("--profile"), QStringLiteral("127.0.0.1:9")});
            const QByteArray refused = "no CPU profile: ";
            for (const QByteArray& line : probe.errorLines())
                if (line.startsWith(refused))
                    m_noProfile = QString::fromUtf8(line.mid(refused.size()));
        }
    }

    // Checked after every test function: nothing of a lab is left in the machine's namespace.
    void cleanup() { QCOMPARE(hostNetworkSnapshot(), m_lab.before); }

    // Behind NAT every packet passes conntrack and is rewritten, and each
    // new connection meets the DNAT rule: those paths hold time. On the host,
    // in a lab without NAT, they hold less than a fifth of that (none).
    void natCostsConntrackNatAndRulesTheHostDoesNot() {
        for (const QString& mode : {QStringLiteral("container-nat"), QStringLiteral("host")})
            if (skipUnlessLab(mode))
                LOADSCOPE_SKIP_UNLESS_REQUIRED(m_skipCapability, m_skip);
        const ModeProfile nat = profileOf(QStringLiteral("container-nat"));
        QVERIFY2(nat.problem.isEmpty(), nat.problem.constData());
        const ModeProfile host = profileOf(QStringLiteral("host"));
        QVERIFY2(host.problem.isEmpty(), host.problem.constData());
        QVERIFY(nat.path("conntrack") > 0);
        QVERIFY(nat.path("nat") > 0);
        QVERIFY(host.netfilter() < nat.netfilter() / 5);
        // The lab's server is the server role in both.
        QVERIFY(nat.role("server") > 0);
        QVERIFY(host.role("server") > 0);
    }

    // A linux-bridge mode's frames cross the bridge the host's never meet.
    void aBridgeModeShowsTheBridge() {
        for (const QString& mode : {QStringLiteral("linux-bridge"), QStringLiteral("host")})
            if (skipUnlessLab(mode))
                LOADSCOPE_SKIP_UNLESS_REQUIRED(m_skipCapability, m_skip);
        const ModeProfile bridge = profileOf(QStringLiteral("linux-bridge"));
        QVERIFY2(bridge.problem.isEmpty(), bridge.problem.constData());
        const ModeProfile host = profileOf(QStringLiteral("host"));
        QVERIFY2(host.problem.isEmpty(), host.problem.constData());
        QVERIFY(bridge.path("bridge") > 0);
        QVERIFY(host.path("bridge") < bridge.path("bridge") / 5);
    }

    // Behind a userland proxy the relay's own CPU is the relay role's.
    void aUserlandProxyIsTheRelay() {
        if (skipUnlessLab(QStringLiteral("userland-proxy")))
            LOADSCOPE_SKIP_UNLESS_REQUIRED(m_skipCapability, m_skip);
        const ModeProfile proxied = profileOf(QStringLiteral("userland-proxy"));
        QVERIFY2(proxied.problem.isEmpty(), proxied.problem.constData());
        QVERIFY(proxied.role("relay") > 0);
        QVERIFY(proxied.role("server") > 0);
    }

    // A sidecar's proxy runs in the pod beside the server, a child of the pod's own shell, so
    // the /proc server CPU of the mode holds both; the profile names the proxy apart, as the
    // relay it is.
    void aSidecarProxyIsTheRelay() {
        if (skipUnlessLab(QStringLiteral("sidecar")))
            LOADSCOPE_SKIP_UNLESS_REQUIRED(m_skipCapability, m_skip);
        const ModeProfile sidecar = profileOf(QStringLiteral("sidecar"));
        QVERIFY2(sidecar.problem.isEmpty(), sidecar.problem.constData());
        QVERIFY(sidecar.role("relay") > 0);
        QVERIFY(sidecar.role("server") > 0);
        const ModeProfile host = profileOf(QStringLiteral("host"));
        QVERIFY2(host.problem.isEmpty(), host.problem.constData());
        QVERIFY(host.role("relay") < sidecar.role("relay") / 5);
    }

    // Inside a user namespace of its own, even root is refused perf events
    // on every CPU: one line says so and what to do, and the run goes on.
    void refusedInAUserNamespaceTheRunGoesOn() {
        if (m_unshare.isEmpty())
            QSKIP("unshare (util-linux) is not installed");
        const auto echo = startEcho(1, 1);
        QVERIFY(echo->port() > 0);
        const CliOutcome run = runProgram(
            m_unshare,
            {QStringLiteral("-U"), QStringLiteral("-r"), cliPath(), QStringLiteral("tcp-rr"),
             QStringLiteral("-n"), QStringLiteral("200"), QStringLiteral("--profile"),
             QStringLiteral("--json"), QStringLiteral("-"), address(echo->port())});
        if (run.exitCode != 0 && run.err.contains("unshare"))
            QSKIP(qPrintable(QStringLiteral("no user namespace here: ") +
                             QString::fromUtf8(run.err.trimmed())));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(integer(run.json(), "complete"), qint64(200));
        const QList<QByteArray> lines = run.errorLines();
        QCOMPARE(lines.size(), qsizetype(1));
        QVERIFY2(lines.front().startsWith("no CPU profile: perf events on every CPU are refused "
                                          "inside a user namespace"),
                 lines.front().constData());
        QVERIFY(jsonAt(run.json(), QStringLiteral("cpu_profile.unavailable"))
                    .toString()
                    .contains(QStringLiteral("lab sandbox")));
    }

    // A user without CAP_PERFMON, where kernel.perf_event_paranoid is above 0,
    // is refused too: one line names the setting and what to set, and the run
    // goes on (as nobody, switched to by setpriv).
    void refusedUnprivilegedTheRunGoesOn() {
        const QString setpriv = QStandardPaths::findExecutable(QStringLiteral("setpriv"));
        if (setpriv.isEmpty() || geteuid() != 0)
            QSKIP("needs root and setpriv (util-linux) to run as nobody");
        const QByteArray paranoid =
            fileText(QStringLiteral("/proc/sys/kernel/perf_event_paranoid")).trimmed();
        if (paranoid.toInt() <= 0)
            QSKIP("kernel.perf_event_paranoid lets any user sample every CPU here");
        const auto echo = startEcho(1, 1);
        QVERIFY(echo->port() > 0);
        const CliOutcome run = runProgram(
            setpriv, {QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"),
                      QStringLiteral("--clear-groups"), cliPath(), QStringLiteral("tcp-rr"),
                      QStringLiteral("-n"), QStringLiteral("200"), QStringLiteral("--profile"),
                      QStringLiteral("--json"), QStringLiteral("-"), address(echo->port())});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(integer(run.json(), "complete"), qint64(200));
        const QList<QByteArray> lines = run.errorLines();
        QCOMPARE(lines.size(), qsizetype(1));
        QCOMPARE(lines.front(), "no CPU profile: kernel.perf_event_paranoid is " + paranoid +
                                    ": sampling every CPU needs it at 0 or below without "
                                    "CAP_PERFMON (as root: sysctl -w "
                                    "kernel.perf_event_paranoid=0), or run as root");
    }
};

QTEST_GUILESS_MAIN(TestLabProfile)
#include "tst_lab_profile.moc"
