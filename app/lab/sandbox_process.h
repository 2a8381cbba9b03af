#pragma once

#include "app/common/result.h"

#include <QString>
#include <cstdint>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

// The lab's sandbox: a process tree in user, network, mount and PID namespaces of its own, whose
// user namespace gives it no capability over the machine's own namespaces. Commands inside it
// run through netns_command.h.
namespace loadscope::app::lab {

// Runs `body` in a new sandbox and returns its exit status. The calling process forks a keeper
// that unshares user, network, mount and PID namespaces (the caller's uid mapped to root inside:
// as root the ids 0-65535 identically, else the caller's uid and its /etc/subuid and /etc/subgid
// ranges above it, or the caller's uid alone without them), and the keeper forks the
// sandbox's init, which runs `body`. Both die with their parent (PR_SET_PDEATHSIG), and the PID
// namespace takes every process started inside with its init, so a SIGKILL anywhere up the chain
// leaves nothing running. SIGINT and SIGTERM sent to the caller are passed down as SIGTERM.
// An error when user namespaces cannot be created, naming the sysctl or policy that blocks them.
Result<int> runInSandbox(const std::function<int()>& body);

// The inode of the caller's network namespace, as `ls -i /proc/self/ns/net` prints it.
Result<unsigned long> currentNetnsInode();

// The PID /proc gives `child` (a child of the caller), 0 when it is not found. Inside the
// sandbox the two differ: fork() answers in the sandbox's PID namespace, while /proc, never
// remounted, is the machine's, where whoever reads a server's CPU looks for it.
pid_t procPidOfChild(pid_t child);

// Flushes stdio, so that no child writes the parent's buffered output a second time, and forks.
pid_t forkFlushed();
// Waits for `pid` and returns its exit status (128 + signal when killed).
int waitForExit(pid_t pid);
// Asks for SIGKILL when the parent thread ends; exits at once when `parent` is already gone.
void dieWithParent(pid_t parent);
// Every signal back to its default action and none blocked: in the sandbox's init and in each
// forked child before exec. An ignored signal survives exec, and a lab started from a process
// that ignores SIGPIPE (a Qt application, a test runner) would otherwise hand that to its
// servers, helpers and command, which then behave unlike the same lab started from a shell.
void restoreDefaultSignals();

} // namespace loadscope::app::lab
