#pragma once

#include "app/common/result.h"

#include <QString>
#include <chrono>
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

// Commands and servers started in the network namespaces of the lab's sandbox, each in a child
// that setns() into the namespace it is given: the caller never stands in another namespace.
namespace loadscope::app::lab {

// Inside the sandbox: a new network namespace with lo up, held by the returned descriptor
// (close-on-exec); the caller's own namespace is unchanged.
Result<int> createNetns();

// Runs argv[0] (looked up in PATH) in the network namespace `netnsFd` (-1: the caller's, for
// commands that only print, such as versions) and waits at most 10 s.
// Every "{ns:N}" in an argument becomes a path the command can open for the namespace held by
// descriptor N ("ip link set X netns {ns:5}"). The error names the command and its first line of
// output.
Result<std::string> runInNetns(int netnsFd, std::vector<std::string> argv);

// Appends what `fd` gives to `text` until its writers close it (true) or `timeout` passes
// (false); a read error ends it as a close does.
bool readUntilClosed(int fd, std::chrono::milliseconds timeout, std::string* text);

// A TCP socket of the namespace `netnsFd` (close-on-exec); the caller stays where it is.
Result<int> tcpSocketInNetns(int netnsFd);
// A socket of `type` (SOCK_STREAM, SOCK_DGRAM) of the namespace `netnsFd`, non-blocking.
Result<int> socketInNetns(int netnsFd, int type);

// Waits until a TCP connection from `netnsFd` to address:port succeeds, for at most `timeoutMs`;
// an error as soon as `server` (when > 0) has exited. `from` names the namespace in the error
// ("the client namespace").
Result<void> waitForListener(int netnsFd, const std::string& address, uint16_t port, pid_t server,
                             int timeoutMs, const QString& from);

// Sends `datagram` from `netnsFd` to address:port until a datagram comes back, for at most
// `timeoutMs`: a UDP server's readiness. An error as soon as `server` (when > 0) has exited.
Result<void> waitForDatagramAnswer(int netnsFd, const std::string& address, uint16_t port,
                                   pid_t server, int timeoutMs, const QString& from,
                                   const std::string& datagram);

// Writes `value` to a file of /proc/sys/net as seen from the namespace `netnsFd`.
Result<void> writeNetSysctl(int netnsFd, const std::string& path, const std::string& value);

struct SpawnSpec {
    int netnsFd = -1;
    std::vector<std::string> argv;
    std::vector<int> cpus;                // empty: not pinned
    std::vector<std::string> environment; // "NAME=value", added to the inherited environment
    bool ownMountPidUts = false; // the command gets its own mount, PID, UTS and cgroup namespaces
    std::vector<int> keepFds;    // descriptors the command inherits ("/proc/self/fd/N")
    int stdoutFd = -1;           // -1: inherited
    int stderrFd = -1;
    // Becomes the command's descriptor 3: docker-proxy reports there whether it
    // listens ("0\n", or "1\n" and the error), and closes it, whatever it is.
    int fd3 = -1;
};

// Starts a command as SpawnSpec says; it is killed if the caller dies.
Result<pid_t> spawnInNetns(const SpawnSpec& spec);

// Sends SIGTERM to every process of `pids` still running, waits up to `graceMs` for each, then
// SIGKILLs and reaps the rest.
void stopProcesses(const std::vector<pid_t>& pids, int graceMs);

// Whether `program` is an executable in PATH; its full path when it is.
std::string findInPath(const std::string& program);

// Argv as a shell would print it, for messages.
QString describeCommand(const std::vector<std::string>& argv);

} // namespace loadscope::app::lab
