#pragma once

// What the lab suites share (tst_lab_sandbox, tst_lab_examples): the
// machine's network snapshot they compare, a `lab sandbox` process, the
// fetch it runs, the lab's processes, and what `lab check` says here.
#include "app/lab/lab_mode.h"
#include "cli_process.h"
#include "required_here.h"
#include "stop_with_test.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QString>
#include <map>
#include <unistd.h>
#include <vector>

namespace loadscope::testing {

inline const QStringList kModes{
    QStringLiteral("host"),          QStringLiteral("container-host-network"),
    QStringLiteral("container-nat"), QStringLiteral("userland-proxy"),
    QStringLiteral("linux-bridge"),  QStringLiteral("ovs-bridge"),
    QStringLiteral("macvlan"),       QStringLiteral("ipvlan"),
    QStringLiteral("rootless-nat"),  QStringLiteral("cluster-ip"),
    QStringLiteral("pod-bridge"),    QStringLiteral("node-port"),
    QStringLiteral("overlay-vxlan"), QStringLiteral("sidecar"),
};

// The paths of a Kubernetes node among them.
inline const QStringList kKubernetesModes{
    QStringLiteral("cluster-ip"), QStringLiteral("pod-bridge"), QStringLiteral("node-port"),
    QStringLiteral("overlay-vxlan"), QStringLiteral("sidecar")};

inline QByteArray commandOutput(const QString& program, const QStringList& arguments) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    if (!process.waitForFinished(10000)) {
        process.kill();
        process.waitForFinished();
        return "timed out";
    }
    return process.readAll();
}

inline QByteArray fileText(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return "(absent)";
    return file.readAll();
}

// What the lab must never change: the machine's own links, addresses, routes, firewall rules
// and conntrack table. Only reads (nft list creates nothing; ip_tables_names is read, never
// iptables-legacy, which would create tables).
inline QByteArray hostNetworkSnapshot() {
    QByteArray snapshot;
    snapshot += commandOutput(QStringLiteral("ip"), {QStringLiteral("-d"), QStringLiteral("link")});
    snapshot += commandOutput(QStringLiteral("ip"), {QStringLiteral("addr")});
    snapshot += commandOutput(QStringLiteral("ip"), {QStringLiteral("route")});
    if (!QStandardPaths::findExecutable(QStringLiteral("nft"),
                                        {QStringLiteral("/usr/sbin"), QStringLiteral("/sbin")})
             .isEmpty())
        snapshot += commandOutput(QStringLiteral("nft"),
                                  {QStringLiteral("list"), QStringLiteral("ruleset")});
    snapshot += fileText(QStringLiteral("/proc/net/ip_tables_names"));
    snapshot += fileText(QStringLiteral("/proc/sys/net/netfilter/nf_conntrack_count"));
    return snapshot;
}

// A fetch that reads its targets ("ADDRESS:PORT" lines) from stdin, which the test writes
// once the lab's JSON line has named them: each gets `requests` requests, bounded.
inline QStringList fetchCommand(int requests) {
    return {QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
            QStringLiteral("while read target; do \"$0\" http -n %1 -c 2 \"http://$target/\" || "
                           "exit 1; done")
                .arg(requests),
            cliPath()};
}

inline QByteArray targetsOf(const QJsonObject& lab) {
    QByteArray lines;
    for (const QJsonValue& mode : lab.value(u"modes").toArray())
        lines += mode[u"address"].toString().toLatin1() + ':' +
                 QByteArray::number(mode[u"port"].toInt()) + '\n';
    return lines;
}

// One `lab sandbox` process, its JSON line read.
class LabProcess {
public:
    explicit LabProcess(const QStringList& arguments, const QString& program = cliPath()) {
        stopWithTest(m_process);
        m_process.start(program, arguments);
    }
    ~LabProcess() {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished();
        }
    }

    // The "lab" object of the first line, or an empty object when the process ended first.
    QJsonObject readLab() {
        while (!m_process.canReadLine() && m_process.state() != QProcess::NotRunning)
            m_process.waitForReadyRead(200);
        if (!m_process.canReadLine())
            return {};
        return QJsonDocument::fromJson(m_process.readLine()).object().value(u"lab").toObject();
    }
    // Names every mode of `built` to the fetch command, which then ends, and the lab with it.
    CliOutcome fetchAll(const QJsonObject& built) {
        m_process.write(targetsOf(built));
        m_process.closeWriteChannel();
        return finish();
    }
    CliOutcome finish(int timeoutMs = 60000) {
        CliOutcome outcome;
        if (!m_process.waitForFinished(timeoutMs)) {
            m_process.kill();
            m_process.waitForFinished();
            outcome.err = m_process.readAllStandardError() + "\ntimed out";
            return outcome;
        }
        outcome.exitCode =
            m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -2;
        outcome.out = m_process.readAllStandardOutput();
        outcome.err = m_process.readAllStandardError();
        return outcome;
    }
    QProcess& process() { return m_process; }

private:
    QProcess m_process;
};

inline int countMatches(const QByteArray& text, const QString& pattern) {
    int count = 0;
    auto it = QRegularExpression(pattern, QRegularExpression::MultilineOption)
                  .globalMatch(QString::fromUtf8(text));
    while (it.hasNext()) {
        it.next();
        ++count;
    }
    return count;
}

inline pid_t parentOf(pid_t pid) {
    const QByteArray stat = fileText(QStringLiteral("/proc/%1/stat").arg(pid));
    const qsizetype close = stat.lastIndexOf(')');
    return close < 0 ? 0 : pid_t(stat.mid(close + 2).split(' ').value(1).toInt());
}

// Whether `pid` is part of a lab another process started: under a `lab sandbox` that is not
// this test's descendant (another suite running beside this one). An orphan is this test's:
// what a lab it killed left behind.
inline bool inAnotherLab(pid_t pid) {
    static const QByteArray sandboxArguments("lab\0sandbox", 11);
    bool underSandbox = false;
    for (pid_t at = pid; at > 1; at = parentOf(at)) {
        if (at == getpid())
            return false;
        underSandbox =
            underSandbox ||
            fileText(QStringLiteral("/proc/%1/cmdline").arg(at)).contains(sandboxArguments);
    }
    return underSandbox;
}

// Processes whose command line names a lab address or the lab's work directory: the servers
// and daemons of a lab (apache2 -f, ovs-vswitchd --pidfile=), wherever they are.
inline std::vector<pid_t> labProcesses() {
    std::vector<pid_t> found;
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool numeric = false;
        const pid_t pid = entry.toInt(&numeric);
        if (!numeric)
            continue;
        const QByteArray stat = fileText(QStringLiteral("/proc/%1/stat").arg(pid));
        const qsizetype close = stat.lastIndexOf(')');
        if (close < 0 || stat.mid(close + 2, 1) == "Z")
            continue;
        const QByteArray command = fileText(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if ((command.contains("10.213.") || command.contains("/tmp/loadscope-lab-")) &&
            !inAnotherLab(pid))
            found.push_back(pid);
    }
    return found;
}

// What `lab check --json` says of this machine: why there is no sandbox at
// all, or per mode and per server why not (empty: it can be built); and the
// machine's network as it was before the suite, which each test must leave.
// Skips the calling test function where no sandbox can be made. A macro: QSKIP must return from
// the test function itself, not from a helper it calls.
// Each fails instead where the machine states it has the sandbox, the mode or the server
// (required_here.h).
#define LOADSCOPE_SKIP_WITHOUT_SANDBOX(lab)                                                        \
    do {                                                                                           \
        if (!(lab).noSandbox.isEmpty())                                                            \
            LOADSCOPE_SKIP_UNLESS_REQUIRED(                                                        \
                QStringLiteral("sandbox"),                                                         \
                QStringLiteral("no sandbox here: %1").arg((lab).noSandbox));                       \
    } while (false)

// Skips the calling test function where lab check says `mode` cannot be built here.
#define LOADSCOPE_SKIP_UNBUILDABLE_MODE(lab, mode)                                                 \
    do {                                                                                           \
        const QString loadscopeMode = (mode);                                                      \
        if (!(lab).reasons.at(loadscopeMode).isEmpty())                                            \
            LOADSCOPE_SKIP_UNLESS_REQUIRED(                                                        \
                QStringLiteral("mode:") + loadscopeMode,                                           \
                QStringLiteral("%1 cannot be built here: %2")                                      \
                    .arg(loadscopeMode, (lab).reasons.at(loadscopeMode)));                         \
    } while (false)

// Skips the calling test function where lab check says `server` cannot run here.
#define LOADSCOPE_SKIP_UNAVAILABLE_SERVER(lab, server)                                             \
    do {                                                                                           \
        const QString loadscopeServer = (server);                                                  \
        if (!(lab).servers.at(loadscopeServer).isEmpty())                                          \
            LOADSCOPE_SKIP_UNLESS_REQUIRED(QStringLiteral("server:") + loadscopeServer,            \
                                           loadscopeServer + QStringLiteral(": ") +                \
                                               (lab).servers.at(loadscopeServer));                 \
    } while (false)

struct LabCheck {
    QByteArray before;
    QString noSandbox;
    std::map<QString, QString> reasons; // mode -> why not
    std::map<QString, QString> servers; // server -> why not

    void read() {
        before = hostNetworkSnapshot();
        const CliOutcome check = runCliProcess(
            {QStringLiteral("lab"), QStringLiteral("check"), QStringLiteral("--json")});
        if (check.exitCode != 0) {
            noSandbox = QString::fromUtf8(check.err.trimmed());
            return;
        }
        for (const QJsonValue& mode : check.json().value(u"modes").toArray())
            reasons[mode[u"mode"].toString()] =
                mode[u"available"].toBool() ? QString() : mode[u"reason"].toString();
        for (const QJsonValue& server : check.json().value(u"servers").toArray())
            servers[server[u"server"].toString()] =
                server[u"available"].toBool() ? QString() : server[u"detail"].toString();
    }
};

} // namespace loadscope::testing
