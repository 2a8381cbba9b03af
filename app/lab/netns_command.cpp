#include "app/lab/netns_command.h"

#include "app/lab/sandbox_process.h"

#include <QStringList>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace loadscope::app::lab {

Result<int> createNetns() {
    const int original = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (original < 0)
        return makeError(ErrorCode::Io, QStringLiteral("cannot open /proc/self/ns/net"));
    if (unshare(CLONE_NEWNET) != 0) {
        const int error = errno;
        close(original);
        return makeError(ErrorCode::Io, QStringLiteral("cannot create a network namespace: %1")
                                            .arg(QString::fromLocal8Bit(std::strerror(error))));
    }
    const int created = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    const bool back = setns(original, CLONE_NEWNET) == 0;
    close(original);
    if (!back) // we would go on in the wrong namespace: nothing sensible is left to do
        _exit(127);
    if (created < 0)
        return makeError(ErrorCode::Io, QStringLiteral("cannot open the new network namespace"));
    if (auto up = runInNetns(created, {"ip", "link", "set", "lo", "up"}); !up) {
        close(created);
        return up.error();
    }
    return created;
}

bool readUntilClosed(int fd, std::chrono::milliseconds timeout, std::string* text) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return false;
        pollfd watched{fd, POLLIN, 0};
        const int ready = poll(&watched, 1, int(left.count()));
        if (ready < 0 && errno != EINTR)
            return true;
        if (ready <= 0) // the deadline is checked again; a read now could block past it
            continue;
        char buffer[4096];
        const ssize_t got = read(fd, buffer, sizeof buffer);
        if (got == 0)
            return true;
        if (got > 0)
            text->append(buffer, size_t(got));
    }
}

Result<std::string> runInNetns(int netnsFd, std::vector<std::string> argv) {
    if (const std::string full = findInPath(argv.front()); !full.empty())
        argv.front() = full;
    std::vector<int> shared; // namespace descriptors the command opens by path
    for (std::string& argument : argv) {
        const size_t at = argument.find("{ns:");
        const size_t end = at == std::string::npos ? at : argument.find('}', at);
        if (end == std::string::npos)
            continue;
        const int fd = std::atoi(argument.c_str() + at + 4);
        shared.push_back(fd);
        argument.replace(at, end - at + 1, "/proc/self/fd/" + std::to_string(fd));
    }
    int output[2];
    if (pipe2(output, O_CLOEXEC) != 0)
        return makeError(ErrorCode::Io, QStringLiteral("pipe failed"));
    std::vector<char*> args;
    for (std::string& argument : argv)
        args.push_back(argument.data());
    args.push_back(nullptr);
    const pid_t parent = getpid();
    const pid_t child = forkFlushed();
    if (child == 0) {
        dieWithParent(parent);
        if (netnsFd >= 0 && setns(netnsFd, CLONE_NEWNET) != 0)
            _exit(126); // never run a network command in a namespace we did not mean
        for (const int fd : shared)
            fcntl(fd, F_SETFD, 0);
        restoreDefaultSignals();
        const int null = open("/dev/null", O_RDONLY);
        dup2(null, 0);
        dup2(output[1], 1);
        dup2(output[1], 2);
        execvp(args[0], args.data());
        std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    close(output[1]);
    if (child < 0) {
        close(output[0]);
        return makeError(ErrorCode::Io, QStringLiteral("cannot fork"));
    }
    std::string text;
    const bool timedOut = !readUntilClosed(output[0], std::chrono::seconds(10), &text);
    close(output[0]);
    if (timedOut)
        kill(child, SIGKILL);
    const int status = waitForExit(child);
    if (status == 0 && !timedOut)
        return text;
    std::string firstLine = text.substr(0, text.find('\n'));
    if (timedOut)
        firstLine = "no answer in 10 s";
    else if (firstLine.empty())
        firstLine = "exit status " + std::to_string(status);
    return makeError(ErrorCode::Io,
                     QStringLiteral("'%1' failed: %2")
                         .arg(describeCommand(argv), QString::fromStdString(firstLine)));
}

Result<int> tcpSocketInNetns(int netnsFd) {
    return socketInNetns(netnsFd, SOCK_STREAM);
}

Result<int> socketInNetns(int netnsFd, int type) {
    const int original = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (original < 0)
        return makeError(ErrorCode::Io, QStringLiteral("cannot open /proc/self/ns/net"));
    if (setns(netnsFd, CLONE_NEWNET) != 0) {
        close(original);
        return makeError(ErrorCode::Io, QStringLiteral("cannot enter a lab namespace"));
    }
    const int fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    const bool back = setns(original, CLONE_NEWNET) == 0;
    close(original);
    if (!back)
        _exit(127);
    if (fd < 0)
        return makeError(ErrorCode::Io, QStringLiteral("cannot create a socket"));
    return fd;
}

Result<void> waitForListener(int netnsFd, const std::string& address, uint16_t port, pid_t server,
                             int timeoutMs, const QString& from) {
    sockaddr_in target{};
    target.sin_family = AF_INET;
    target.sin_port = htons(port);
    if (inet_pton(AF_INET, address.c_str(), &target.sin_addr) != 1)
        return makeError(ErrorCode::Internal, QStringLiteral("bad lab address"));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    int lastError = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        if (server > 0 && waitpid(server, &status, WNOHANG) == server)
            return makeError(ErrorCode::Unreachable,
                             QStringLiteral("the server exited (%1)")
                                 .arg(WIFEXITED(status)
                                          ? QStringLiteral("status %1").arg(WEXITSTATUS(status))
                                          : QStringLiteral("signal %1").arg(WTERMSIG(status))));
        auto fd = tcpSocketInNetns(netnsFd);
        if (!fd)
            return fd.error();
        int error = 0;
        if (connect(*fd, reinterpret_cast<const sockaddr*>(&target), sizeof target) != 0) {
            error = errno;
            if (error == EINPROGRESS) {
                pollfd watched{*fd, POLLOUT, 0};
                error = ETIMEDOUT;
                if (poll(&watched, 1, 200) == 1) {
                    socklen_t length = sizeof error;
                    getsockopt(*fd, SOL_SOCKET, SO_ERROR, &error, &length);
                }
            }
        }
        close(*fd);
        if (error == 0)
            return {};
        lastError = error;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return makeError(ErrorCode::Unreachable,
                     QStringLiteral("no answer on %1:%2 from %3 in %4 s (%5)")
                         .arg(QString::fromStdString(address))
                         .arg(port)
                         .arg(from)
                         .arg(timeoutMs / 1000.0)
                         .arg(QString::fromLocal8Bit(std::strerror(lastError))));
}

Result<void> waitForDatagramAnswer(int netnsFd, const std::string& address, uint16_t port,
                                   pid_t server, int timeoutMs, const QString& from,
                                   const std::string& datagram) {
    sockaddr_in target{};
    target.sin_family = AF_INET;
    target.sin_port = htons(port);
    if (inet_pton(AF_INET, address.c_str(), &target.sin_addr) != 1)
        return makeError(ErrorCode::Internal, QStringLiteral("bad lab address"));
    auto fd = socketInNetns(netnsFd, SOCK_DGRAM);
    if (!fd)
        return fd.error();
    // Connected: only the server's answers are read, and a closed port comes back refused.
    if (connect(*fd, reinterpret_cast<const sockaddr*>(&target), sizeof target) != 0) {
        const int error = errno;
        close(*fd);
        return makeError(ErrorCode::Unreachable,
                         QStringLiteral("UDP %1:%2 from %3: %4")
                             .arg(QString::fromStdString(address))
                             .arg(port)
                             .arg(from)
                             .arg(QString::fromLocal8Bit(std::strerror(error))));
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    int lastError = ETIMEDOUT;
    while (std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        if (server > 0 && waitpid(server, &status, WNOHANG) == server) {
            close(*fd);
            return makeError(ErrorCode::Unreachable, QStringLiteral("the server exited"));
        }
        if (send(*fd, datagram.data(), datagram.size(), MSG_NOSIGNAL) < 0)
            lastError = errno;
        pollfd watched{*fd, POLLIN, 0};
        if (poll(&watched, 1, 100) == 1) {
            char answer[256];
            if (recv(*fd, answer, sizeof answer, MSG_DONTWAIT) >= 0) {
                close(*fd);
                return {};
            }
            lastError = errno; // a refused port until the server binds
        }
    }
    close(*fd);
    return makeError(ErrorCode::Unreachable,
                     QStringLiteral("no UDP answer from %1:%2 to %3 in %4 s (%5)")
                         .arg(QString::fromStdString(address))
                         .arg(port)
                         .arg(from)
                         .arg(timeoutMs / 1000.0)
                         .arg(QString::fromLocal8Bit(std::strerror(lastError))));
}

Result<void> writeNetSysctl(int netnsFd, const std::string& path, const std::string& value) {
    // A child, so that this process never stands in another namespace, even for a moment.
    auto written = runInNetns(netnsFd, {"sh", "-c", "printf '%s\\n' \"$1\" > \"$2\"", "sh", value,
                                        "/proc/sys/net/" + path});
    if (!written)
        return written.error();
    return {};
}

Result<pid_t> spawnInNetns(const SpawnSpec& spec) {
    int failure[2]; // carries errno when exec fails; closed by a successful exec
    if (pipe2(failure, O_CLOEXEC) != 0)
        return makeError(ErrorCode::Io, QStringLiteral("pipe failed"));
    std::vector<std::string> argv = spec.argv;
    if (const std::string full = findInPath(argv.front()); !full.empty())
        argv.front() = full;
    std::vector<char*> args;
    for (std::string& argument : argv)
        args.push_back(argument.data());
    args.push_back(nullptr);
    std::vector<std::string> environment = spec.environment;
    const pid_t parent = getpid();
    const pid_t child = forkFlushed();
    if (child == 0) {
        close(failure[0]);
        dieWithParent(parent);
        int error = 0;
        if (setns(spec.netnsFd, CLONE_NEWNET) != 0)
            _exit(126);
        if (!spec.cpus.empty()) {
            cpu_set_t set;
            CPU_ZERO(&set);
            for (const int cpu : spec.cpus)
                CPU_SET(cpu, &set);
            sched_setaffinity(0, sizeof set, &set);
        }
        for (std::string& variable : environment)
            putenv(variable.data());
        for (const int fd : spec.keepFds)
            fcntl(fd, F_SETFD, 0);
        if (spec.stdoutFd >= 0)
            dup2(spec.stdoutFd, 1);
        if (spec.stderrFd >= 0)
            dup2(spec.stderrFd, 2);
        if (spec.fd3 >= 0) {
            if (failure[1] == 3)
                failure[1] = fcntl(failure[1], F_DUPFD_CLOEXEC, 4);
            if (spec.fd3 == 3)
                fcntl(3, F_SETFD, 0);
            else
                dup2(spec.fd3, 3);
        }
        if (spec.ownMountPidUts) {
            if (unshare(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWPID | CLONE_NEWCGROUP) != 0) {
                error = errno;
                (void)!write(failure[1], &error, sizeof error);
                _exit(127);
            }
            sethostname("lab-container", 13);
            const pid_t inner = fork();
            if (inner != 0) {
                close(failure[1]);
                _exit(inner < 0 ? 127 : waitForExit(inner));
            }
            // The init of its own PID namespace: getppid() is 0, so no orphan check.
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr);
        }
        restoreDefaultSignals();
        execvp(args[0], args.data());
        error = errno;
        (void)!write(failure[1], &error, sizeof error);
        _exit(127);
    }
    close(failure[1]);
    if (child < 0) {
        close(failure[0]);
        return makeError(ErrorCode::Io, QStringLiteral("cannot fork"));
    }
    int error = 0;
    ssize_t got;
    do
        got = read(failure[0], &error, sizeof error);
    while (got < 0 && errno == EINTR);
    close(failure[0]);
    if (got == ssize_t(sizeof error)) {
        waitForExit(child);
        return makeError(ErrorCode::Io, QStringLiteral("cannot run %1: %2")
                                            .arg(QString::fromStdString(spec.argv.front()),
                                                 QString::fromLocal8Bit(std::strerror(error))));
    }
    return child;
}

void stopProcesses(const std::vector<pid_t>& pids, int graceMs) {
    for (const pid_t pid : pids)
        kill(pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(graceMs);
    std::vector<pid_t> running = pids;
    while (!running.empty() && std::chrono::steady_clock::now() < deadline) {
        std::erase_if(running, [](pid_t pid) { return waitpid(pid, nullptr, WNOHANG) != 0; });
        if (!running.empty())
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (const pid_t pid : running) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
    }
}

std::string findInPath(const std::string& program) {
    if (program.find('/') != std::string::npos)
        return program;
    const char* path = std::getenv("PATH");
    std::string directories = path ? path : "/usr/local/bin:/usr/bin:/bin";
    // Server daemons live in sbin, which a user's PATH often lacks.
    directories += ":/usr/local/sbin:/usr/sbin:/sbin";
    size_t start = 0;
    while (start <= directories.size()) {
        const size_t end = std::min(directories.find(':', start), directories.size());
        const std::string candidate = directories.substr(start, end - start) + "/" + program;
        if (end > start && access(candidate.c_str(), X_OK) == 0)
            return candidate;
        start = end + 1;
    }
    return {};
}

QString describeCommand(const std::vector<std::string>& argv) {
    QStringList words;
    for (const std::string& argument : argv)
        words.append(QString::fromStdString(argument));
    return words.join(QLatin1Char(' '));
}

} // namespace loadscope::app::lab
