#include "app/lab/lab_run.h"

#include "app/common/json_bytes.h"
#include "app/lab/lab_topology.h"
#include "app/lab/netns_command.h"
#include "app/lab/sandbox_process.h"
#include "app/session/target_rules.h"
#include "engine/cpu_profiler.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

namespace loadscope::app::lab {

namespace {

constexpr int kSetupFailed = 2;

int fail(const QString& message) {
    std::fprintf(stderr, "loadscope-cli lab sandbox: %s\n", qPrintable(message));
    std::fflush(stderr);
    return kSetupFailed;
}

QString kernelVersion() {
    utsname name{};
    uname(&name);
    return QString::fromLatin1(name.release);
}

// The last line a server wrote to its log, to say why it stopped.
QString lastLogLine(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QStringList lines =
        QString::fromLocal8Bit(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    return lines.isEmpty() ? QString() : lines.constLast().trimmed();
}

// What the command gets for CPU profiles: inside the sandbox's user namespace
// the kernel refuses perf events on every CPU even to its root, and hides
// kernel addresses from /proc/kallsyms, so both are opened before the sandbox
// exists, in the machine's own namespaces, and handed in (cpu_profiler.h).
// Opened disabled, the events cost nothing until a profile enables them.
class ProfileHandover {
public:
    ProfileHandover() {
        m_events = engine::openProfileEventsToHand(&m_refused);
        m_kallsyms = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
    }
    ~ProfileHandover() {
        for (const int fd : m_events.fds)
            close(fd);
        if (m_kallsyms >= 0)
            close(m_kallsyms);
    }
    ProfileHandover(const ProfileHandover&) = delete;
    ProfileHandover& operator=(const ProfileHandover&) = delete;

    void handTo(SpawnSpec& command) const {
        if (!m_events.fds.empty()) {
            command.keepFds.insert(command.keepFds.end(), m_events.fds.begin(), m_events.fds.end());
            command.environment.push_back("LOADSCOPE_PROFILE_FDS=" + m_events.environment);
        } else {
            command.environment.push_back("LOADSCOPE_PROFILE_REFUSED=" + m_refused);
        }
        if (m_kallsyms >= 0) {
            command.keepFds.push_back(m_kallsyms);
            command.environment.push_back("LOADSCOPE_PROFILE_KALLSYMS_FD=" +
                                          std::to_string(m_kallsyms));
        }
    }

private:
    engine::HandedProfileEvents m_events;
    std::string m_refused;
    int m_kallsyms = -1;
};

// Everything after the sandbox exists, run by its init process.
class LabInit {
public:
    LabInit(const LabSpec& spec, unsigned long hostNetns, std::string workDir,
            const ProfileHandover& profile)
        : m_spec(spec)
        , m_hostNetns(hostNetns)
        , m_profile(profile)
        , m_topology(spec.cliPath)
        , m_workDir(std::move(workDir)) {}
    // The files of the work directory live in a tmpfs of the sandbox's mount namespace and go
    // with it; the empty directory under it is removed by the caller of runInSandbox.
    ~LabInit() {
        stopProcesses(m_servers, 1000);
        if (m_serverHostHolder > 0)
            stopProcesses({m_serverHostHolder}, 1000);
        m_topology.stopHelpers();
    }

    int run() {
        // Until the command runs, a stop request ends the setup; afterwards it goes to the
        // command, and the lab comes down after it. (As the PID namespace's init, this process
        // gets no signal it has no handler for.)
        struct sigaction action {};
        action.sa_handler = [](int) {
            s_stopRequested = 1;
            if (s_command > 0)
                kill(s_command, SIGTERM);
        };
        sigemptyset(&action.sa_mask);
        sigaction(SIGTERM, &action, nullptr);
        sigaction(SIGINT, &action, nullptr);
        if (mount("loadscope-lab", m_workDir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
                  "mode=0700,size=64m") != 0)
            return fail(QStringLiteral("cannot mount the lab's temporary directory: %1")
                            .arg(QString::fromLocal8Bit(std::strerror(errno))));
        m_topology.setServerCpus(m_spec.serverCpus);
        m_topology.setDatagrams(servesDatagrams(m_spec.server.kind));
        m_topology.setWorkDir(m_workDir);
        m_topology.setBackends(labBackends(m_spec.server));
        m_topology.setClientOnServerHost(m_spec.client == LabClientPlacement::ServerHost);
        const bool bridged = std::find(m_spec.modes.begin(), m_spec.modes.end(), LabMode::Bridge) !=
                             m_spec.modes.end();
        if (auto wire = m_topology.buildWire(m_spec.mtu, bridged); !wire)
            return fail(wire.error().message);
        if (auto held = holdServerHost(); !held)
            return fail(held.error().message);
        auto version = labServerVersion(m_spec.server.kind, m_spec.cliPath);
        if (!version)
            return fail(QStringLiteral("server %1: %2")
                            .arg(labServerKindId(m_spec.server.kind), version.error().message));
        QJsonArray modes;
        for (const LabMode mode : m_spec.modes) {
            if (s_stopRequested)
                return fail(QStringLiteral("stopped while building the lab"));
            auto built = buildMode(mode);
            if (!built)
                return fail(
                    QStringLiteral("mode %1: %2").arg(labModeId(mode), built.error().message));
            modes.append(*built);
        }
        QJsonObject versions{{QStringLiteral("kernel"), kernelVersion()},
                             {labServerKindId(m_spec.server.kind), *version}};
        for (const auto& [tool, text] : m_topology.toolVersions())
            versions.insert(tool, text);
        const QJsonObject lab{
            {QStringLiteral("mtu"), m_spec.mtu},
            {QStringLiteral("clientPlacement"), labClientPlacementId(m_spec.client)},
            {QStringLiteral("modes"), modes},
            {QStringLiteral("versions"), versions},
            {QStringLiteral("clientCpus"), cpuArray(m_spec.clientCpus)},
            {QStringLiteral("serverCpus"), cpuArray(m_spec.serverCpus)},
            {QStringLiteral("hostNetns"), double(m_hostNetns)},
            {QStringLiteral("serverHostPid"), int(m_serverHostPid)},
            {QStringLiteral("workDir"), QString::fromStdString(m_workDir)}};
        const QByteArray line =
            jsonBytes(QJsonObject{{QStringLiteral("lab"), lab}}, QJsonDocument::Compact);
        std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
        std::fputc('\n', stdout);
        std::fflush(stdout);
        return runCommand();
    }

private:
    static QJsonArray cpuArray(const std::vector<int>& cpus) {
        QJsonArray array;
        for (const int cpu : cpus)
            array.append(cpu);
        return array;
    }

    // A process that only waits in the server host's namespace, so that a load command in the
    // client namespace can read that namespace's network counters through its /proc/PID/net
    // (engine/net_counters.h) whatever the modes start there, without entering it.
    Result<void> holdServerHost() {
        SpawnSpec holder;
        holder.netnsFd = m_topology.serverHostNetns();
        holder.argv = {"sleep", "infinity"};
        auto started = spawnInNetns(holder);
        if (!started)
            return started.error().prefixed(QStringLiteral("the server host's holder"));
        m_serverHostHolder = *started;
        m_serverHostPid = procPidOfChild(*started);
        return {};
    }

    // Starts the server at `endpoint`'s place and waits until it listens there and the mode's
    // address reaches a server; its process.
    Result<pid_t> startServer(const ModeEndpoint& endpoint, const std::string& log) {
        auto command =
            labServerCommand(m_spec.server, endpoint, m_workDir, m_spec.cliPath, m_spec.serverCpus);
        if (!command)
            return command.error();
        const int logFd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        command->stdoutFd = null;
        command->stderrFd = logFd;
        auto server = spawnInNetns(*command);
        close(null);
        close(logFd);
        if (!server)
            return server.error();
        m_servers.push_back(*server);
        if (auto ready =
                waitForServer(endpoint, m_topology.loadNetns(), *server, 5000, m_spec.server.kind);
            !ready) {
            const QString why = lastLogLine(log);
            return why.isEmpty() ? ready.error() : ready.error().prefixed(why);
        }
        return *server;
    }

    // The process the mode's server CPU is read from, with its children (Apache's workers, the
    // server under a container's own PID namespace, a pod's backends or sidecar), as /proc names
    // it: in the lab line, and among the servers a CPU profile attributes.
    void nameServer(pid_t server, QJsonObject& described) {
        if (const pid_t pid = procPidOfChild(server); pid > 0) {
            described.insert(QStringLiteral("serverPid"), int(pid));
            m_serverPids.push_back(pid);
        }
    }

    Result<QJsonObject> buildMode(LabMode mode) {
        auto endpoint = m_topology.buildMode(mode);
        if (!endpoint)
            return endpoint.error();
        const std::string id = labModeId(mode).toStdString();
        QJsonObject described{
            {QStringLiteral("mode"), labModeId(mode)},
            {QStringLiteral("label"), endpoint->label},
            {QStringLiteral("address"), QString::fromStdString(endpoint->address)},
            {QStringLiteral("port"), endpoint->port},
            {QStringLiteral("path"), endpoint->path}};
        if (endpoint->pathMtu > 0)
            described.insert(QStringLiteral("pathMtu"), endpoint->pathMtu);
        if (endpoint->backends.empty()) {
            auto server = startServer(*endpoint, m_workDir + "/" + id + ".log");
            if (!server)
                return server.error();
            nameServer(*server, described);
            return described;
        }
        // One server per backend pod, each with its log (the embedded servers' closing summary
        // counts what each served), all children of one shell in the server host: the mode's
        // server CPU is that process tree's, every backend's.
        auto group = startBackends(*endpoint, id);
        if (!group)
            return group.error();
        nameServer(*group, described);
        QJsonArray backends;
        for (size_t i = 0; i < endpoint->backends.size(); ++i)
            backends.append(
                QJsonObject{{QStringLiteral("address"),
                             QString::fromStdString(endpoint->backends[i].bindAddress)},
                            {QStringLiteral("port"), endpoint->backends[i].bindPort},
                            {QStringLiteral("log"), QString::fromStdString(backendLog(id, i))}});
        described.insert(QStringLiteral("backends"), backends);
        return described;
    }

    std::string backendLog(const std::string& id, size_t i) const {
        return m_workDir + "/" + id + "-" + std::to_string(i + 1) + ".log";
    }

    // The backends of a mode of several: a shell in the server host that starts each backend's
    // server in its pod's namespace through nsenter (the pods' namespaces are its descriptors),
    // passes a stop on to them and waits for them, so that their summaries reach their logs.
    Result<pid_t> startBackends(const ModeEndpoint& endpoint, const std::string& id) {
        const std::string nsenter = findInPath("nsenter");
        if (nsenter.empty())
            return makeError(
                ErrorCode::Unreachable,
                QStringLiteral("nsenter is not installed (Debian package util-linux)"));
        // A word for the shell, in single quotes: each quote in it closes them, is escaped and
        // opens them again.
        const auto quoted = [](const std::string& word) {
            QString text = QString::fromLocal8Bit(word);
            text.replace(QLatin1Char('\''), QLatin1String("'\\''"));
            return QStringLiteral("'%1'").arg(text).toLocal8Bit().toStdString();
        };
        std::vector<ModeEndpoint> places;
        SpawnSpec group;
        group.netnsFd = m_topology.serverHostNetns();
        group.cpus = m_spec.serverCpus;
        std::string script = "p=; trap 'kill $p 2>/dev/null; wait; exit 0' TERM INT; ";
        for (size_t i = 0; i < endpoint.backends.size(); ++i) {
            ModeEndpoint place = endpoint;
            place.instance = int(i);
            place.serverNetns = endpoint.backends[i].netns;
            place.bindAddress = endpoint.backends[i].bindAddress;
            place.bindPort = endpoint.backends[i].bindPort;
            auto command = labServerCommand(m_spec.server, place, m_workDir, m_spec.cliPath,
                                            m_spec.serverCpus);
            if (!command)
                return command.error();
            std::string line = quoted(nsenter);
            line.append(" --net=/proc/self/fd/").append(std::to_string(place.serverNetns));
            line.append(" --");
            for (const std::string& word : command->argv)
                line.append(" ").append(quoted(word));
            script.append(line).append(" >/dev/null 2>").append(quoted(backendLog(id, i)));
            script.append(" & p=\"$p $!\"; ");
            group.keepFds.push_back(place.serverNetns);
            places.push_back(place);
        }
        if (!endpoint.companion.empty()) {
            std::string line = quoted(nsenter);
            line.append(" --net=/proc/self/fd/").append(std::to_string(endpoint.backends[0].netns));
            line.append(" --");
            for (const std::string& word : endpoint.companion)
                line.append(" ").append(quoted(word));
            script.append(line).append(" >/dev/null 2>");
            script.append(quoted(m_workDir + "/" + id + "-companion.log"));
            script.append(" & p=\"$p $!\"; ");
        }
        script += "wait";
        group.argv = {"sh", "-c", script};
        auto started = spawnInNetns(group);
        if (!started)
            return started.error();
        m_servers.push_back(*started);
        for (size_t i = 0; i < places.size(); ++i) {
            if (auto ready = waitForServer(places[i], m_topology.loadNetns(), *started, 5000,
                                           m_spec.server.kind);
                !ready) {
                const QString why = lastLogLine(backendLog(id, i));
                return (why.isEmpty() ? ready.error() : ready.error().prefixed(why))
                    .prefixed(QStringLiteral("backend %1").arg(i + 1));
            }
        }
        return *started;
    }

    int runCommand() {
        SpawnSpec command;
        command.netnsFd = m_topology.loadNetns();
        command.argv = m_spec.command;
        command.cpus = m_spec.clientCpus;
        command.environment = {"LOADSCOPE_LAB_HOST_NETNS=" + std::to_string(m_hostNetns),
                               std::string("LOADSCOPE_LAB_RANGE=") + kLabRange,
                               "LOADSCOPE_LAB_SERVER_HOST_PID=" + std::to_string(m_serverHostPid)};
        m_profile.handTo(command);
        // Whose CPU a profile counts as the server's: every mode's server, with its children.
        std::string servers = "LOADSCOPE_LAB_SERVER_PIDS=";
        for (size_t i = 0; i < m_serverPids.size(); ++i)
            servers.append(i > 0 ? "," : "").append(std::to_string(m_serverPids[i]));
        command.environment.push_back(servers);
        // And whose is a relay's: the lab's own helpers, not a process of the same
        // name elsewhere on the machine (another docker-proxy, another lab's switch).
        std::string relays = "LOADSCOPE_LAB_RELAY_PIDS=";
        bool first = true;
        for (const pid_t helper : m_topology.helpers()) {
            if (const pid_t pid = procPidOfChild(helper); pid > 0) {
                relays.append(first ? "" : ",").append(std::to_string(pid));
                first = false;
            }
        }
        command.environment.push_back(relays);
        auto started = spawnInNetns(command);
        if (!started)
            return fail(started.error().message);
        m_command = *started;
        s_command = m_command;
        if (s_stopRequested)
            kill(m_command, SIGTERM);
        int status = 0;
        while (waitpid(m_command, &status, 0) < 0) {
            if (errno != EINTR)
                return 127;
        }
        s_command = 0;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }

    static inline volatile sig_atomic_t s_command = 0;
    static inline volatile sig_atomic_t s_stopRequested = 0;
    const LabSpec& m_spec;
    const unsigned long m_hostNetns;
    const ProfileHandover& m_profile;
    LabTopology m_topology;
    const std::string m_workDir;
    std::vector<pid_t> m_servers;
    std::vector<pid_t> m_serverPids; // the same, as /proc names them
    pid_t m_serverHostHolder = -1;   // as this sandbox's PID namespace names it
    pid_t m_serverHostPid = 0;       // as /proc names it
    pid_t m_command = -1;
};

} // namespace

CpuSplit defaultCpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> allowed;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
            if (CPU_ISSET(cpu, &set))
                allowed.push_back(cpu);
        }
    }
    if (allowed.empty())
        allowed.push_back(0);
    if (allowed.size() == 1)
        return {allowed, allowed};
    return {std::vector<int>(allowed.begin(), allowed.end() - 1), {allowed.back()}};
}

Result<void> checkLabSpec(const LabSpec& spec) {
    if (spec.mtu < kMinLabMtu || spec.mtu > kMaxLabMtu)
        return invalidInput(QStringLiteral("--mtu %1: expected %2 to %3 (1500, 9000, 65535)")
                                .arg(spec.mtu)
                                .arg(kMinLabMtu)
                                .arg(kMaxLabMtu));
    if (spec.modes.empty())
        return invalidInput(
            QStringLiteral("--modes: which modes? (see 'loadscope-cli lab check')"));
    QSet<int> seen;
    for (const LabMode mode : spec.modes) {
        if (seen.contains(int(mode)))
            return invalidInput(QStringLiteral("--modes: %1 is given twice").arg(labModeId(mode)));
        seen.insert(int(mode));
    }
    if (spec.command.empty())
        return invalidInput(QStringLiteral("no command to run in the client namespace (after --)"));
    std::vector<QString> modes;
    for (const LabMode mode : spec.modes)
        modes.push_back(labModeId(mode));
    if (auto placed = checkLabClientPlacement(spec.client, modes); !placed)
        return placed.error();
    return checkServerSpec(spec.server);
}

Result<int> runLab(const LabSpec& given) {
    if (auto valid = checkLabSpec(given); !valid)
        return valid.error();
    LabSpec spec = given;
    const CpuSplit split = defaultCpus();
    if (spec.clientCpus.empty())
        spec.clientCpus = split.client;
    if (spec.serverCpus.empty())
        spec.serverCpus = split.server;
    auto hostNetns = currentNetnsInode();
    if (!hostNetns)
        return hostNetns.error();
    char pattern[] = "/tmp/loadscope-lab-XXXXXX";
    if (!mkdtemp(pattern))
        return makeError(ErrorCode::Io, QStringLiteral("cannot create the lab's temporary "
                                                       "directory in /tmp: %1")
                                            .arg(QString::fromLocal8Bit(std::strerror(errno))));
    const std::string workDir = pattern;
    const ProfileHandover profile;
    auto status = runInSandbox([&] { return LabInit(spec, *hostNetns, workDir, profile).run(); });
    rmdir(workDir.c_str());
    return status;
}

} // namespace loadscope::app::lab
