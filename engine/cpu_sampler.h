#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loadscope::engine {

// One CPU's (or the machine's) counters from a /proc/stat line, in clock ticks.
struct CpuTicks {
    uint64_t user = 0; // includes guest, as the kernel counts it
    uint64_t nice = 0;
    uint64_t system = 0;
    uint64_t idle = 0;
    uint64_t iowait = 0;
    uint64_t irq = 0;
    uint64_t softirq = 0;
    uint64_t steal = 0;

    uint64_t all() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
};

// Whose CPU time counts as the server's. Any combination may be set; none: no
// server figure (the server is remote or unknown).
struct ServerCpuSource {
    int pid = 0; // a local process: utime + stime of all its threads
    // With pid: its descendants too, found afresh at each sample (a master's
    // workers, started or replaced during the window), and the CPU of those
    // already reaped (cutime + cstime), so a worker that exits mid-window
    // keeps counting.
    bool withChildren = false;
    std::string cgroup;       // a cgroup directory: cpu.stat usage_usec (v2) or cpuacct.usage (v1)
    std::vector<int> threads; // threads of this process (an embedded server's loops)

    bool empty() const { return pid <= 0 && cgroup.empty() && threads.empty(); }
};

// What /proc and /sys said at one moment.
struct CpuSample {
    int64_t atNs = 0; // CLOCK_MONOTONIC
    bool valid = false;
    CpuTicks machine;                  // the "cpu" line
    std::vector<CpuTicks> perCpu;      // "cpu0", "cpu1" ...
    std::vector<uint64_t> frequencies; // kHz per CPU, scaling_cur_freq; empty when absent
    std::optional<uint64_t> serverCpuNs;
    // The kernel's softirq threads (ksoftirqd/N) together, in ticks; nullopt where /proc does
    // not show them (a PID namespace with its own /proc).
    std::optional<uint64_t> softirqThreadTicks;
};

// Where the CPU went between two samples, in seconds of CPU time summed over
// every CPU (a 2-CPU machine has 2 s of CPU per second of wall time).
struct CpuWindow {
    bool valid = false;
    double wallSeconds = 0;
    int cpus = 0;
    double user = 0; // user + nice
    double system = 0;
    double irq = 0;
    double softirq = 0;
    double steal = 0;
    double idle = 0; // idle + iowait
    std::optional<double> serverCpuSeconds;
    // The softirq threads' CPU (ksoftirqd/N): softirq work the kernel deferred, the point's
    // traffic's mostly; nullopt when not read.
    std::optional<double> softirqThreadSeconds;
    // Whether the kernel charged interrupt time to the task it interrupted
    // (interrupt_accounting.h), as LoadRun measured it after the window; nullopt: not known.
    std::optional<bool> interruptsInProcessTimes;
    bool frequencyChanged = false; // some CPU's scaling_cur_freq moved by over 10 % end to end
    uint64_t minFrequencyKHz = 0;  // over both samples, 0 when not available
    uint64_t maxFrequencyKHz = 0;
    // Busy (user + system + irq + softirq + steal) seconds per CPU, "cpu0" first.
    std::vector<double> busyPerCpu;

    // The machine's CPU time over the window: every counter added up.
    double total() const { return user + system + irq + softirq + steal + idle; }
};

// Parses /proc/stat text; nullopt when it has no "cpu" line.
std::optional<CpuSample> parseProcStat(std::string_view text);
// utime + stime in ticks from a /proc/PID/stat or /proc/PID/task/TID/stat
// line (the command name may hold spaces and parentheses); nullopt if malformed.
std::optional<uint64_t> parseProcessTicks(std::string_view statLine);
// From a /proc/PID/stat line: the parent, utime + stime, and cutime + cstime
// (the reaped children's), in ticks; nullopt if malformed.
struct ProcessStat {
    int ppid = 0;
    uint64_t ticks = 0;
    uint64_t childTicks = 0;
};
std::optional<ProcessStat> parseProcessStat(std::string_view statLine);
// utime + stime + cutime + cstime in ticks of `root` and of every process below
// it, walking /proc; nullopt when `root` is gone.
std::optional<uint64_t> processTreeTicks(int root);
// The kernel's softirq threads, "ksoftirqd/N", from a /proc/PID/stat line's command.
bool isSoftirqThread(std::string_view statLine);
// The CPU nanoseconds a cgroup's cpu.stat (usage_usec) reports; nullopt without it.
std::optional<uint64_t> parseCgroupUsageNs(std::string_view cpuStat);

// Reads /proc/stat, the CPU frequencies when the machine exposes them, and the
// server's CPU time. Cheap enough for twice a point; never throws.
class CpuSampler {
public:
    explicit CpuSampler(ServerCpuSource server = {});

    CpuSample sample() const;
    // The clock ticks per second of /proc/stat (sysconf(_SC_CLK_TCK)).
    static long ticksPerSecond();

private:
    std::optional<uint64_t> serverCpuNs() const;

    ServerCpuSource m_server;
    long m_ticksPerSecond;
};

// The window between `start` and `end`; invalid when either sample is.
CpuWindow cpuWindow(const CpuSample& start, const CpuSample& end, long ticksPerSecond);

} // namespace loadscope::engine
