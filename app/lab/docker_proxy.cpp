#include "app/lab/docker_proxy.h"

#include <fcntl.h>
#include <signal.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace loadscope::app::lab {

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
    // docker-proxy closes the pipe once it has said "0" (listening) or "1" and why.
    std::string said;
    readUntilClosed(status[0], std::chrono::milliseconds(timeoutMs), &said);
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
