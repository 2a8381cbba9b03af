#pragma once

// The "hosts" of the suites that reach other machines over OpenSSH: Debian's
// own sshd, started by the test with a host key, an authorised key and a
// stranger's key all made for the run, never its service. Two forms:
//  - SshHostNetwork: each host a network namespace the test builds, with its
//    own sshd, joined to the test's namespace by a veth on a bridge (as the
//    lab joins its namespaces). The test runs in a private network namespace
//    of its own (private_netns_main.h), so that nothing it sets up touches the
//    machine's, which the main proves by comparing snapshots.
//  - TestSshd alone on 127.0.0.1 at a free port, for the CLI suites.
// The remote command on a host is the build's loadscope-cli: same filesystem.
#include "stop_with_test.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QThread>
#include <algorithm>
#include <csignal>
#include <map>
#include <memory>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace loadscope::testing {

inline const QString kSshd = QStringLiteral("/usr/sbin/sshd");

// Why this machine cannot run the sshd suites, or empty when it can.
inline QString sshdUnavailable() {
    if (!QFileInfo(kSshd).isExecutable())
        return QStringLiteral("Debian's openssh-server is not installed (scripts/install-deps.sh "
                              "test installs it)");
    if (QStandardPaths::findExecutable(QStringLiteral("ssh")).isEmpty())
        return QStringLiteral("no ssh client (openssh-client)");
    if (::geteuid() != 0)
        return QStringLiteral("a test sshd logs its user in as root: run as root");
    return {};
}

// A program run to its end within `timeoutMs`: its exit status (-1 when it did
// not finish or start) and its output, both channels merged.
struct Ran {
    int status = -1;
    QByteArray output;
};
inline Ran runBounded(const QString& program, const QStringList& arguments, int timeoutMs = 10000) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    Ran ran;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        ran.output = process.readAll() + "\n(timed out)";
        return ran;
    }
    ran.status = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    ran.output = process.readAll();
    return ran;
}

inline uint64_t netnsInodeOf(qint64 pid) {
    struct stat st {};
    if (::stat(QStringLiteral("/proc/%1/ns/net").arg(pid).toLocal8Bit().constData(), &st) != 0)
        return 0;
    return uint64_t(st.st_ino);
}

// The processes whose network namespace is `inode`, but `except`.
inline std::vector<qint64> processesInNetns(uint64_t inode, const std::vector<qint64>& except) {
    std::vector<qint64> found;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& entry : entries) {
        bool numeric = false;
        const qint64 pid = entry.toLongLong(&numeric);
        if (!numeric || std::find(except.begin(), except.end(), pid) != except.end())
            continue;
        if (netnsInodeOf(pid) == inode)
            found.push_back(pid);
    }
    return found;
}

inline QString commandLineOf(qint64 pid) {
    QFile file(QStringLiteral("/proc/%1/cmdline").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromLocal8Bit(file.readAll().replace('\0', ' ')).trimmed();
}

// Every process below `root` (its children, theirs...), whatever namespaces
// they entered: a lab's sandbox under an ssh session included.
inline std::vector<qint64> descendantsOf(qint64 root) {
    std::map<qint64, std::vector<qint64>> children;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& entry : entries) {
        bool numeric = false;
        const qint64 pid = entry.toLongLong(&numeric);
        if (!numeric)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1)
            children[fields.at(1).toLongLong()].push_back(pid);
    }
    std::vector<qint64> found;
    std::vector<qint64> pending{root};
    while (!pending.empty()) {
        const qint64 pid = pending.back();
        pending.pop_back();
        for (const qint64 child : children[pid]) {
            found.push_back(child);
            pending.push_back(child);
        }
    }
    return found;
}

// The children of this process that are ssh clients (a connection left open).
inline std::vector<qint64> sshClientsOfThisProcess() {
    std::vector<qint64> found;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& entry : entries) {
        bool numeric = false;
        const qint64 pid = entry.toLongLong(&numeric);
        if (!numeric)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        const qsizetype close = line.lastIndexOf(')');
        const QByteArray name = line.mid(line.indexOf('(') + 1, close - line.indexOf('(') - 1);
        const QList<QByteArray> fields = line.mid(close + 2).split(' ');
        if (name == "ssh" && fields.size() > 1 && fields.at(1).toLongLong() == ::getpid())
            found.push_back(pid);
    }
    return found;
}

// The keys and files of one run's ssh: a host key, an authorised user key, a
// stranger's key that no sshd takes, authorized_keys, known_hosts, and the
// client's config naming each host (the suites pass it as --ssh-config).
class SshTestKeys {
public:
    explicit SshTestKeys(const QString& directory)
        : m_dir(directory) {
        for (const char* name : {"host_key", "user_key", "stranger_key"}) {
            const Ran made = runBounded(QStringLiteral("ssh-keygen"),
                                        {QStringLiteral("-q"), QStringLiteral("-t"),
                                         QStringLiteral("ed25519"), QStringLiteral("-N"), QString(),
                                         QStringLiteral("-C"), QStringLiteral("loadscope-test"),
                                         QStringLiteral("-f"), path(QLatin1String(name))});
            if (made.status != 0)
                m_problem = QStringLiteral("ssh-keygen: ") + QString::fromUtf8(made.output);
        }
        QFile::copy(path(QStringLiteral("user_key.pub")), path(QStringLiteral("authorized_keys")));
        QFile known(path(QStringLiteral("known_hosts")));
        known.open(QIODevice::WriteOnly);
        writeConfig();
    }

    const QString& problem() const { return m_problem; }
    QString path(const QString& name) const { return QDir(m_dir).filePath(name); }
    QString hostKey() const { return path(QStringLiteral("host_key")); }
    QString authorizedKeys() const { return path(QStringLiteral("authorized_keys")); }
    QString clientConfig() const { return path(QStringLiteral("ssh_config")); }
    QString directory() const { return m_dir; }

    // A Host entry of the client config: `alias` reaches address:port as root
    // with the authorised key (or the stranger's), and knows the host key.
    void addHost(const QString& alias, const QString& address, quint16 port,
                 bool stranger = false) {
        m_entries +=
            QStringLiteral("Host %1\n  HostName %2\n  Port %3\n  User %4\n"
                           "  IdentityFile %5\n  IdentitiesOnly yes\n"
                           "  UserKnownHostsFile %6\n  GlobalKnownHostsFile /dev/null\n"
                           "  StrictHostKeyChecking yes\n  LogLevel ERROR\n")
                .arg(alias, address)
                .arg(port)
                .arg(userName(),
                     path(stranger ? QStringLiteral("stranger_key") : QStringLiteral("user_key")),
                     path(QStringLiteral("known_hosts")));
        QFile hostPub(path(QStringLiteral("host_key.pub")));
        hostPub.open(QIODevice::ReadOnly);
        const QByteArray key = hostPub.readAll().trimmed();
        QFile known(path(QStringLiteral("known_hosts")));
        known.open(QIODevice::Append);
        known.write((port == 22 ? address.toUtf8()
                                : QStringLiteral("[%1]:%2").arg(address).arg(port).toUtf8()) +
                    ' ' + key + '\n');
        writeConfig();
    }

    static QString userName() {
        const passwd* user = ::getpwuid(::geteuid());
        return user ? QString::fromLocal8Bit(user->pw_name) : QStringLiteral("root");
    }

private:
    void writeConfig() {
        QFile config(clientConfig());
        config.open(QIODevice::WriteOnly | QIODevice::Truncate);
        config.write(m_entries.toUtf8());
    }

    QString m_dir;
    QString m_entries;
    QString m_problem;
};

// One test sshd: its own config, in a private mount namespace (its
// privilege-separation directory, /run/sshd, on a tmpfs of its own: nothing
// is made in the machine's /run) and, with `ownNetns`, a network namespace
// of its own. It ends with the test.
class TestSshd {
public:
    // `listen`: "127.0.0.1:PORT", or "0.0.0.0:22" in its own namespace.
    TestSshd(const SshTestKeys& keys, const QString& name, const QString& listen, bool ownNetns)
        : m_config(keys.path(QStringLiteral("sshd_%1.conf").arg(name))) {
        QFile config(m_config);
        config.open(QIODevice::WriteOnly | QIODevice::Truncate);
        config.write(QStringLiteral("ListenAddress %1\nHostKey %2\nAuthorizedKeysFile %3\n"
                                    "PidFile none\nUsePAM no\nStrictModes no\n"
                                    "PermitRootLogin prohibit-password\n"
                                    "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                                    "UseDNS no\nMaxStartups 100\nMaxSessions 100\n"
                                    "X11Forwarding no\nAllowTcpForwarding no\nPrintMotd no\n"
                                    "PermitUserEnvironment no\nLogLevel ERROR\n")
                         .arg(listen, keys.hostKey(), keys.authorizedKeys())
                         .toUtf8());
        config.close();
        QStringList arguments{QStringLiteral("-m"), QStringLiteral("--propagation"),
                              QStringLiteral("private")};
        if (ownNetns)
            arguments << QStringLiteral("-n");
        arguments << QStringLiteral("--") << QStringLiteral("sh") << QStringLiteral("-c")
                  << QStringLiteral("mount -t tmpfs -o mode=755 none /run && mkdir -m 755 "
                                    "/run/sshd && exec %1 -D -e -f \"$0\"")
                         .arg(kSshd)
                  << m_config;
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        stopWithTest(m_process);
        m_process.start(QStringLiteral("unshare"), arguments);
        m_process.waitForStarted(5000);
    }
    ~TestSshd() { stop(); }

    qint64 pid() const { return m_process.processId(); }
    bool running() { return m_process.state() == QProcess::Running; }
    uint64_t netns() const { return netnsInodeOf(pid()); }

    // Waits until it listens on `port` (its /proc/PID/net/tcp, in its own
    // namespace), at most 5 s.
    bool waitListening(quint16 port) {
        const QByteArray hexPort =
            QByteArray(":").append(QByteArray::number(port, 16).toUpper().rightJustified(4, '0'));
        for (int i = 0; i < 250; ++i) {
            QFile tcp(QStringLiteral("/proc/%1/net/tcp").arg(pid()));
            if (tcp.open(QIODevice::ReadOnly)) {
                for (const QByteArray& line : tcp.readAll().split('\n')) {
                    const QList<QByteArray> fields = line.simplified().split(' ');
                    if (fields.size() > 3 && fields.at(1).endsWith(hexPort) && fields.at(3) == "0A")
                        return true;
                }
            }
            if (!running())
                return false;
            QThread::msleep(20);
        }
        return false;
    }

    // The listener and every session it forked, as a host whose sshd dies:
    // SIGKILL, then reaped.
    void kill() {
        const uint64_t inode = netns();
        for (const qint64 pid : processesInNetns(inode, {})) {
            if (commandLineOf(pid).startsWith(QStringLiteral("sshd")))
                ::kill(pid_t(pid), SIGKILL);
        }
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
    void stop() {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.terminate();
        if (!m_process.waitForFinished(3000)) {
            m_process.kill();
            m_process.waitForFinished(3000);
        }
    }

private:
    QString m_config;
    QProcess m_process;
};

// Network namespaces as hosts, each with its sshd, on a bridge in the
// test's own namespace (hub0, 10.77.0.1/24; host i at 10.77.0.(10 + i)).
// Only inside a private network namespace: the constructor refuses to touch
// the machine's own (its namespace is PID 1's).
class SshHostNetwork {
public:
    static constexpr const char* kHubAddress = "10.77.0.1";

    explicit SshHostNetwork(SshTestKeys& keys)
        : m_keys(keys) {
        if (netnsInodeOf(::getpid()) == netnsInodeOf(1)) {
            m_problem = QStringLiteral("the test is in the machine's own network namespace");
            return;
        }
        for (const QStringList& command :
             {QStringList{QStringLiteral("link"), QStringLiteral("set"), QStringLiteral("lo"),
                          QStringLiteral("up")},
              QStringList{QStringLiteral("link"), QStringLiteral("add"), QStringLiteral("hub0"),
                          QStringLiteral("type"), QStringLiteral("bridge")},
              QStringList{QStringLiteral("addr"), QStringLiteral("add"),
                          QStringLiteral("%1/24").arg(QLatin1String(kHubAddress)),
                          QStringLiteral("dev"), QStringLiteral("hub0")},
              QStringList{QStringLiteral("link"), QStringLiteral("set"), QStringLiteral("hub0"),
                          QStringLiteral("up")}}) {
            if (!ip(command))
                return;
        }
    }

    const QString& problem() const { return m_problem; }

    // A host `name` at 10.77.0.(10 + index), reachable as `name` through the
    // keys' client config. False (problem() says why) when it could not be built.
    bool addHost(const QString& name, int index) {
        if (!m_problem.isEmpty())
            return false;
        auto sshd = std::make_unique<TestSshd>(m_keys, name, QStringLiteral("0.0.0.0:22"), true);
        if (!sshd->waitListening(22)) {
            m_problem = QStringLiteral("sshd of host %1 did not listen").arg(name);
            return false;
        }
        const QString pid = QString::number(sshd->pid());
        const QString link = QStringLiteral("vh-%1").arg(name).left(15);
        const QString address = QStringLiteral("10.77.0.%1").arg(10 + index);
        if (!ip({QStringLiteral("link"), QStringLiteral("add"), link, QStringLiteral("type"),
                 QStringLiteral("veth"), QStringLiteral("peer"), QStringLiteral("name"),
                 QStringLiteral("eth0"), QStringLiteral("netns"), pid}) ||
            !ip({QStringLiteral("link"), QStringLiteral("set"), link, QStringLiteral("master"),
                 QStringLiteral("hub0"), QStringLiteral("up")}) ||
            !ipIn(pid,
                  {QStringLiteral("addr"), QStringLiteral("add"), address + QStringLiteral("/24"),
                   QStringLiteral("dev"), QStringLiteral("eth0")}) ||
            !ipIn(pid, {QStringLiteral("link"), QStringLiteral("set"), QStringLiteral("eth0"),
                        QStringLiteral("up")}) ||
            !ipIn(pid, {QStringLiteral("link"), QStringLiteral("set"), QStringLiteral("lo"),
                        QStringLiteral("up")}))
            return false;
        m_keys.addHost(name, address, 22);
        m_addresses[name] = address;
        m_hosts[name] = std::move(sshd);
        return true;
    }

    QString address(const QString& name) const { return m_addresses.at(name); }
    TestSshd& sshd(const QString& name) { return *m_hosts.at(name); }

    // `command` run inside host `name`'s network namespace.
    QStringList inHost(const QString& name, const QStringList& command) const {
        return QStringList{QStringLiteral("nsenter"), QStringLiteral("-t"),
                           QString::number(m_hosts.at(name)->pid()), QStringLiteral("-n"),
                           QStringLiteral("--")} +
               command;
    }

    // What runs on host `name` but its sshd listener ("pid: command"): in its
    // network namespace, or below its sshd in any other (a lab's sandbox).
    QStringList leftRunning(const QString& name, const std::vector<qint64>& alsoExpected = {}) {
        std::vector<qint64> except = alsoExpected;
        const qint64 listener = m_hosts.at(name)->pid();
        except.push_back(listener);
        std::vector<qint64> found;
        if (const uint64_t inode = m_hosts.at(name)->netns(); inode != 0)
            found = processesInNetns(inode, except);
        // A listener that is gone (killed) has nothing below it to look for.
        for (const qint64 pid : listener > 1 ? descendantsOf(listener) : std::vector<qint64>{}) {
            if (std::find(found.begin(), found.end(), pid) == found.end() &&
                std::find(except.begin(), except.end(), pid) == except.end())
                found.push_back(pid);
        }
        QStringList left;
        for (const qint64 pid : found)
            left << QStringLiteral("%1: %2").arg(pid).arg(commandLineOf(pid));
        return left;
    }

private:
    bool ip(const QStringList& arguments) {
        const Ran ran = runBounded(QStringLiteral("ip"), arguments);
        if (ran.status != 0)
            m_problem =
                QStringLiteral("ip %1: %2")
                    .arg(arguments.join(QLatin1Char(' ')), QString::fromUtf8(ran.output.trimmed()));
        return ran.status == 0;
    }
    bool ipIn(const QString& pid, const QStringList& arguments) {
        const Ran ran = runBounded(
            QStringLiteral("nsenter"),
            QStringList{QStringLiteral("-t"), pid, QStringLiteral("-n"), QStringLiteral("ip")} +
                arguments);
        if (ran.status != 0)
            m_problem = QStringLiteral("ip %1 in %2: %3")
                            .arg(arguments.join(QLatin1Char(' ')), pid,
                                 QString::fromUtf8(ran.output.trimmed()));
        return ran.status == 0;
    }

    SshTestKeys& m_keys;
    QString m_problem;
    std::map<QString, std::unique_ptr<TestSshd>> m_hosts;
    std::map<QString, QString> m_addresses;
};

// A free TCP port on 127.0.0.1 (bound and released: good for a moment).
inline quint16 freeLoopbackPort() {
    QTcpServer server;
    server.listen(QHostAddress::LocalHost, 0);
    return server.serverPort();
}

} // namespace loadscope::testing
