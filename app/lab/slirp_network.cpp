#include "app/lab/slirp_network.h"

#include "app/lab/netns_command.h"

#include <QString>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

namespace loadscope::app::lab {

namespace {

// One request on a Unix stream socket and the whole answer (slirp4netns' API closes after one).
Result<std::string> askUnixSocket(const std::string& path, const std::string& request) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path)
        return makeError(ErrorCode::Io, QStringLiteral("socket path too long"));
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return makeError(ErrorCode::Io, QStringLiteral("socket failed"));
    const timeval limit{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    std::string answer;
    if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
        write(fd, request.data(), request.size()) == ssize_t(request.size())) {
        shutdown(fd, SHUT_WR);
        char buffer[1024];
        ssize_t got;
        while ((got = read(fd, buffer, sizeof buffer)) > 0)
            answer.append(buffer, size_t(got));
    }
    const int error = errno;
    close(fd);
    if (answer.empty())
        return makeError(ErrorCode::Io, QStringLiteral("no answer on %1: %2")
                                            .arg(QString::fromStdString(path),
                                                 QString::fromLocal8Bit(std::strerror(error))));
    return answer;
}

} // namespace

Result<void> SlirpNetwork::start(int hostNetns, int containerNetns, int mtu, const std::string& dir,
                                 const std::vector<int>& cpus, std::vector<pid_t>& helpers) {
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0)
        return makeError(ErrorCode::Io, QStringLiteral("pipe failed"));
    m_socketPath = dir + "/slirp4netns.sock";
    SpawnSpec slirp;
    slirp.netnsFd = hostNetns;
    slirp.cpus = cpus;
    slirp.keepFds = {containerNetns, ready[1]};
    slirp.argv = {"slirp4netns",
                  "--configure",
                  "--mtu=" + std::to_string(std::min(mtu, 65520)),
                  "--disable-host-loopback",
                  "--cidr=10.213.3.0/24",
                  "--netns-type=path",
                  "--api-socket",
                  m_socketPath,
                  "--ready-fd=" + std::to_string(ready[1]),
                  "/proc/self/fd/" + std::to_string(containerNetns),
                  "tap0"};
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    slirp.stdoutFd = null;
    slirp.stderrFd = null;
    auto started = spawnInNetns(slirp);
    close(null);
    close(ready[1]);
    if (!started) {
        close(ready[0]);
        return started.error();
    }
    helpers.push_back(*started);
    pollfd watched{ready[0], POLLIN, 0};
    char signal = 0;
    const bool configured = poll(&watched, 1, 5000) == 1 && read(ready[0], &signal, 1) == 1;
    close(ready[0]);
    if (!configured)
        return makeError(ErrorCode::Unreachable,
                         QStringLiteral("slirp4netns did not configure the container in 5 s"));
    return {};
}

Result<void> SlirpNetwork::forwardPort(const std::string& hostAddress, uint16_t hostPort,
                                       uint16_t guestPort, bool datagrams) const {
    const std::string request = std::string(R"({"execute":"add_hostfwd","arguments":{"proto":")") +
                                (datagrams ? "udp" : "tcp") + R"(","host_addr":")" + hostAddress +
                                R"(","host_port":)" + std::to_string(hostPort) +
                                R"(,"guest_port":)" + std::to_string(guestPort) + "}}";
    auto answer = askUnixSocket(m_socketPath, request);
    if (!answer)
        return answer.error().prefixed(QStringLiteral("slirp4netns port forwarding"));
    if (answer->find("\"return\"") == std::string::npos)
        return makeError(ErrorCode::Unreachable,
                         QStringLiteral("slirp4netns refused the port forwarding: %1")
                             .arg(QString::fromStdString(*answer)));
    return {};
}

} // namespace loadscope::app::lab
