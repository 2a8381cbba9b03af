#pragma once

#include "engine/cpu_profile.h"
#include "engine/cpu_sampler.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace loadscope::engine {

// Whose a sampled process is (ProcessRole), by these rules in this order:
// - PID 0 (a CPU's idle task running interrupts and softirqs) and kernel
//   threads (children of kthreadd, PID 2): kernel;
// - a thread of the server's own (ServerCpuSource::threads), the server's
//   PID, with its descendants when asked, a process in the server's cgroup
//   or below it, and inside the lab every mode's server with its descendants
//   (LOADSCOPE_LAB_SERVER_PIDS, which the lab's sandbox sets): server; but a
//   relay by its name among the server's descendants (the lab's
//   sidecar proxy, which the pod's shell starts beside the server): relay;
// - this process: client;
// - a relay by its name: docker-proxy, slirp4netns, ovs-vswitchd, and
//   loadscope-cli serve proxy (the embedded relay); inside the lab only the
//   lab's own helpers of those names and their descendants
//   (LOADSCOPE_LAB_RELAY_PIDS, which the lab's sandbox sets): relay;
// - anything else: other.
// PIDs are as /proc names them, which is how the perf events a sampler opens
// in the machine's PID namespace (or the lab's sandbox hands in from there)
// report them. Each process is looked up once, when first seen, and kept.
class ProfileRoles {
public:
    explicit ProfileRoles(ServerCpuSource server);

    ProcessRole roleOf(int pid, int tid);
    // The process's name (its /proc comm), "swapper" for PID 0, "?" when gone.
    const std::string& nameOf(int pid);
    // The file a process's address maps, as a frame name ("[libc.so.6]"),
    // from its /proc/PID/maps as read when the process was first seen.
    std::string moduleOf(int pid, uint64_t address);

    int ownPid() const { return m_ownPid; }

    // The pure rules, for the tests: a process's relay name and cgroup membership.
    static bool isRelay(std::string_view comm, std::string_view cmdline);
    static bool inCgroup(std::string_view serverCgroupDir, std::string_view procCgroup);

private:
    struct Mapping {
        uint64_t start = 0;
        uint64_t end = 0;
        std::string name;
    };
    struct Process {
        ProcessRole role = ProcessRole::Other;
        std::string name;
        std::vector<Mapping> executable;
    };
    const Process& lookup(int pid);
    bool descendsFrom(int pid, const std::vector<int>& roots) const;

    ServerCpuSource m_server;
    int m_ownPid = 0;
    std::vector<int> m_serverThreads;
    std::vector<int> m_serverTrees; // PIDs whose descendants are the server's too
    bool m_inLab = false;           // relays are the lab's helpers alone
    std::vector<int> m_labRelays;
    std::unordered_map<int, Process> m_processes;
};

// This process's PID and the calling thread's TID as /proc names them: in a
// PID namespace of its own (the lab's sandbox) they differ from getpid().
int procPidOfSelf();
int procTidOfThisThread();

} // namespace loadscope::engine
