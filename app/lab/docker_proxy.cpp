#include "app/lab/docker_proxy.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace loadscope::app::lab {

namespace {

int64_t monotonicMs() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1000 + now.tv_nsec / 1'000'000;
}

// What docker-proxy wrote on its status pipe until it closed it or `timeoutMs` passed.
std::string readStatus(int fd, int timeoutMs) {
    std::string status;
    const int64_t deadline = monotonicMs() + timeoutMs;
    for (;;) {
        const int64_t left = deadline - monotonicMs();
        if (left <= 0)
            return status;
        pollfd ready{fd, POLLIN, 0};
        const int polled = poll(&ready, 1, int(left));
        if (polled < 0 && errno == EINTR)
            continue;
        if (polled <= 0)
            return status;
        char chunk[512];
        const ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || status.size() > 4096)
            return status;
        status.append(chunk, size_t(got));
    }
}

} // namespace

Result<pid_t> startDockerProxy(SpawnSpec relay, int timeoutMs) {
    int status[2];
    if (pipe2(status, O_CLOEXEC) != 0)
        return makeError(ErrorCode::Io, QStringLiteral("pipe for docker-proxy failed"));
    relay.fd3 = status[1];
    auto started = spawnInNetns(relay);
    close(status[1]);
    if (!started) {
        close(status[0]);
        return started.error();
    }
    const std::string said = readStatus(status[0], timeoutMs);
    close(status[0]);
    if (said.rfind("0\n", 0) == 0)
        return *started;
    kill(*started, SIGKILL);
    waitpid(*started, nullptr, 0);
    const QString why = said.rfind("1\n", 0) == 0 ? QString::fromStdString(said.substr(2)).trimmed()
                        : said.empty() ? QStringLiteral("it said nothing in %1 ms").arg(timeoutMs)
                                       : QString::fromStdString(said).trimmed();
    return makeError(ErrorCode::Unreachable,
                     QStringLiteral("docker-proxy does not listen: %1").arg(why));
}

} // namespace loadscope::app::lab
