#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// What a point's CPU profile found: samples of every CPU over the measured
// window, each attributed to the process role it ran for and the kernel path
// its call chain was in (DESIGN.md "Metrics", "Where the CPU went, by path").
namespace loadscope::engine {

// Whose time a sample was. The rules are in profile_roles.h.
enum class ProcessRole : uint8_t {
    Client, // this process (the load generator), but the profile's own sampler thread
    Server, // the target's server: its PID and descendants, its cgroup, or its threads
    Relay,  // a userland relay or switch: docker-proxy, the embedded proxy, slirp4netns,
            // ovs-vswitchd
    Other,  // any other process: the machine's other load
    Kernel, // no process: interrupts and softirqs on an idle CPU, kernel threads (ksoftirqd,
            // kworker)
};
inline constexpr size_t kProcessRoleCount = 5;

// Where in the kernel a sample was, from its call chain; User when it ran in
// user space. The rules are the one table in kernel_paths.cpp.
enum class CpuPath : uint8_t {
    User,
    TcpIp,
    Socket,
    Copy,
    Conntrack,
    Nat,
    Nftables,
    Bridge,
    Veth,
    Macvlan,
    Ovs,
    Tap,
    Softirq,
    Scheduler,
    OtherKernel,
};
inline constexpr size_t kCpuPathCount = 15;

// Stable snake_case ids ("client", "tcp_ip"), used as JSON keys and CSV column parts.
std::string_view processRoleId(ProcessRole role);
std::string_view cpuPathId(CpuPath path);
// What a reader sees: "Client", "TCP/IP", "socket/syscall".
std::string_view processRoleLabel(ProcessRole role);
std::string_view cpuPathLabel(CpuPath path);
std::optional<ProcessRole> processRoleFromId(std::string_view id);
std::optional<CpuPath> cpuPathFromId(std::string_view id);

using RolePathCounts = std::array<std::array<uint64_t, kCpuPathCount>, kProcessRoleCount>;

// One call chain and how many samples had it, FlameGraph's folded form:
// "nginx [server];[nginx];entry_SYSCALL_64;...;tcp_sendmsg" (root first).
struct FoldedStack {
    std::string frames;
    uint64_t samples = 0;
};

struct CpuProfile {
    bool requested = false; // the spec asked for one
    // Why there is none although one was asked for, in one line with what to
    // change ("kernel.perf_event_paranoid is 2: ..."); empty when sampled.
    std::string unavailable;
    // Said of a profile that was taken, e.g. that kernel symbols were hidden.
    std::string note;

    int cpus = 0;                    // CPUs sampled
    uint64_t periodNs = 0;           // CPU time one sample stands for (cpu-clock's period)
    uint64_t samples = 0;            // every sample of the window, idle ones included
    uint64_t idleSamples = 0;        // a CPU with nothing to run
    uint64_t lostSamples = 0;        // the kernel dropped them: a ring buffer was full
    uint64_t profilerSamples = 0;    // the sampler thread's own, in no role
    double samplerCpuSeconds = 0;    // the sampler thread's CPU over the window
    RolePathCounts counts{};         // the other samples, by role and path
    std::vector<FoldedStack> stacks; // most samples first
    // Due while the hypervisor held the CPU (steal), so they came late: in no
    // role, for the task running when the CPU came back had not run then.
    uint64_t stolenSamples = 0;
    // Periods with no sample: cpu-clock's timer came so late that it skipped them.
    uint64_t skippedPeriods = 0;

    bool sampled() const { return requested && unavailable.empty(); }
    uint64_t roleSamples(ProcessRole role) const;
    // The point's own samples on a path: every role's but other's (the
    // machine's other load is its own figure, not the point's paths).
    uint64_t pathSamples(CpuPath path) const;
    uint64_t busySamples() const; // every role and path
};

} // namespace loadscope::engine
