#include "app/lab/sandbox_process.h"

#include "app/lab/subordinate_ids.h"

#include <QDir>
#include <QFile>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace loadscope::app::lab {

namespace {

volatile sig_atomic_t g_forwardTo = 0;

void forwardTerminate(int) {
    if (g_forwardTo > 0)
        kill(pid_t(g_forwardTo), SIGTERM);
}

// While alive, SIGINT and SIGTERM to this process become SIGTERM to `pid`: the process below
// shuts down in order instead of being torn from under its children.
class SignalForwarding {
public:
    explicit SignalForwarding(pid_t pid) {
        g_forwardTo = pid;
        struct sigaction action {};
        action.sa_handler = forwardTerminate;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &m_oldInt);
        sigaction(SIGTERM, &action, &m_oldTerm);
    }
    ~SignalForwarding() {
        sigaction(SIGINT, &m_oldInt, nullptr);
        sigaction(SIGTERM, &m_oldTerm, nullptr);
        g_forwardTo = 0;
    }
    SignalForwarding(const SignalForwarding&) = delete;
    SignalForwarding& operator=(const SignalForwarding&) = delete;

private:
    struct sigaction m_oldInt {};
    struct sigaction m_oldTerm {};
};

QString readSysctl(const char* path) {
    QFile file(QString::fromLatin1(path));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromLatin1(file.readAll()).trimmed();
}

QString userNamespaceProblem(int error) {
    QString why;
    if (readSysctl("/proc/sys/user/max_user_namespaces") == QLatin1String("0"))
        why = QStringLiteral("user namespaces are disabled (sysctl user.max_user_namespaces is 0)");
    else if (readSysctl("/proc/sys/kernel/unprivileged_userns_clone") == QLatin1String("0"))
        why = QStringLiteral("unprivileged user namespaces are disabled (sysctl "
                             "kernel.unprivileged_userns_clone is 0)");
    else if (readSysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") ==
             QLatin1String("1"))
        why = QStringLiteral("AppArmor restricts unprivileged user namespaces (sysctl "
                             "kernel.apparmor_restrict_unprivileged_userns is 1)");
    else
        why = QStringLiteral("cannot create the sandbox's user namespace: %1")
                  .arg(QString::fromLocal8Bit(std::strerror(error)));
    if (geteuid() != 0)
        why += QStringLiteral("; running as root works");
    return why;
}

Result<void> writeProcFile(pid_t pid, const char* name, const std::string& text) {
    const std::string path = "/proc/" + std::to_string(pid) + "/" + name;
    const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text.data(), text.size()) != ssize_t(text.size())) {
        const int error = errno;
        if (fd >= 0)
            close(fd);
        return makeError(ErrorCode::Io, QStringLiteral("cannot write the sandbox's %1: %2")
                                            .arg(QString::fromLatin1(name),
                                                 QString::fromLocal8Bit(std::strerror(error))));
    }
    close(fd);
    return {};
}

// Root maps the first 65536 ids as they are, so that servers that drop to a user of their own
// (www-data) find it. Anyone else maps their own uid to root and, where /etc/subuid and
// /etc/subgid grant them ranges and newuidmap is installed, those ranges above it, as rootless
// containers do; without them only their own uid, which becomes root inside.
Result<void> mapIds(pid_t keeper, uid_t uid, gid_t gid) {
    if (uid == 0) {
        if (auto written = writeProcFile(keeper, "uid_map", "0 0 65536\n"); !written)
            return written;
        return writeProcFile(keeper, "gid_map", "0 0 65536\n");
    }
    if (const auto ids = subordinateIds(uid))
        return mapSubordinateIds(keeper, uid, gid, *ids);
    if (auto written = writeProcFile(keeper, "setgroups", "deny"); !written)
        return written;
    if (auto written = writeProcFile(keeper, "uid_map", "0 " + std::to_string(uid) + " 1\n");
        !written)
        return written;
    return writeProcFile(keeper, "gid_map", "0 " + std::to_string(gid) + " 1\n");
}

[[noreturn]] void runKeeper(pid_t parent, int readyFd, int goFd, const std::function<int()>& body) {
    dieWithParent(parent);
    int error = 0;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWPID) != 0)
        error = errno;
    if (write(readyFd, &error, sizeof error) != ssize_t(sizeof error) || error != 0)
        _exit(127);
    char go = 0;
    if (read(goFd, &go, 1) != 1 || go != 'g')
        _exit(127);
    const pid_t keeper = getpid();
    const pid_t init = fork();
    if (init < 0)
        _exit(127);
    if (init == 0) {
        // The PID namespace's init sees no parent (getppid() is 0), so the orphan check of
        // dieWithParent() cannot be made; the keeper waits for it and cannot die first unless
        // killed, which PR_SET_PDEATHSIG covers from here on.
        static_cast<void>(keeper);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        // Mounts made inside (a server's own mount namespace) never propagate out.
        mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr);
        // Everything in the lab starts from default signal actions, whatever the caller ignores.
        restoreDefaultSignals();
        const int status = body();
        std::fflush(stdout);
        std::fflush(stderr);
        _exit(status);
    }
    SignalForwarding forwarding(init);
    _exit(waitForExit(init));
}

} // namespace

pid_t procPidOfChild(pid_t child) {
    // /proc/self is this process as /proc names it; each entry's "NSpid:" lists its PIDs from
    // /proc's namespace down to its own, the last being what fork() returned.
    char self[32] = {};
    if (readlink("/proc/self", self, sizeof self - 1) <= 0)
        return 0;
    const QByteArray parent = QByteArray("PPid:\t") + self + '\n';
    const QByteArray inner = QByteArray::number(child);
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool numeric = false;
        const pid_t pid = entry.toInt(&numeric);
        if (!numeric)
            continue;
        QFile file(QStringLiteral("/proc/%1/status").arg(pid));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QByteArray status = file.readAll();
        if (!status.contains(parent))
            continue;
        const qsizetype at = status.indexOf("\nNSpid:");
        const QByteArray line = status.mid(at + 8, status.indexOf('\n', at + 1) - at - 8);
        if (at >= 0 && line.simplified().split(' ').constLast() == inner)
            return pid;
    }
    return 0;
}

pid_t forkFlushed() {
    std::fflush(stdout);
    std::fflush(stderr);
    return fork();
}

int waitForExit(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return 127;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

// Dies with the process that forked it; a parent already gone means we were orphaned between
// fork() and prctl().
void dieWithParent(pid_t parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
}

void restoreDefaultSignals() {
    struct sigaction action = {};
    action.sa_handler = SIG_DFL;
    for (int signal = 1; signal < NSIG; ++signal)
        sigaction(signal, &action, nullptr); // refused for SIGKILL and SIGSTOP, which is fine
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
}

Result<int> runInSandbox(const std::function<int()>& body) {
    const uid_t uid = geteuid();
    const gid_t gid = getegid();
    int ready[2];
    int go[2];
    if (pipe2(ready, O_CLOEXEC) != 0)
        return makeError(ErrorCode::Io, QStringLiteral("pipe: %1").arg(errno));
    if (pipe2(go, O_CLOEXEC) != 0) {
        close(ready[0]);
        close(ready[1]);
        return makeError(ErrorCode::Io, QStringLiteral("pipe: %1").arg(errno));
    }
    const pid_t parent = getpid();
    const pid_t keeper = forkFlushed();
    if (keeper == 0) {
        close(ready[0]);
        close(go[1]);
        runKeeper(parent, ready[1], go[0], body);
    }
    close(ready[1]);
    close(go[0]);
    if (keeper < 0) {
        close(ready[0]);
        close(go[1]);
        return makeError(ErrorCode::Io, QStringLiteral("cannot fork the sandbox"));
    }
    int error = -1;
    const bool heard = read(ready[0], &error, sizeof error) == ssize_t(sizeof error);
    close(ready[0]);
    Result<void> mapped;
    if (!heard)
        mapped = makeError(ErrorCode::Internal, QStringLiteral("the sandbox died while starting"));
    else if (error != 0)
        mapped = makeError(ErrorCode::Unreachable, userNamespaceProblem(error));
    else
        mapped = mapIds(keeper, uid, gid);
    if (!mapped) {
        close(go[1]);
        kill(keeper, SIGKILL);
        waitForExit(keeper);
        return mapped.error();
    }
    const char start = 'g';
    const bool started = write(go[1], &start, 1) == 1;
    close(go[1]);
    SignalForwarding forwarding(keeper);
    const int status = waitForExit(keeper);
    if (!started)
        return makeError(ErrorCode::Internal, QStringLiteral("the sandbox died while starting"));
    return status;
}

Result<unsigned long> currentNetnsInode() {
    struct stat info {};
    if (stat("/proc/self/ns/net", &info) != 0)
        return makeError(ErrorCode::Io, QStringLiteral("cannot stat /proc/self/ns/net: %1")
                                            .arg(QString::fromLocal8Bit(std::strerror(errno))));
    return static_cast<unsigned long>(info.st_ino);
}

} // namespace loadscope::app::lab
