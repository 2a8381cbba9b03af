#pragma once

#include <QString>
#include <optional>

namespace loadscope::app {

struct PointResult;

// Where the CPU went over one point's measured window, as /proc/stat counted
// it: CPU seconds summed over the machine's CPUs (DESIGN.md "Metrics"). Plain
// value; absent for imported results and for results saved before it existed.
struct CpuUsage {
    double wallSeconds = 0; // between the two samples
    int cpus = 0;
    double user = 0; // user + nice
    double system = 0;
    double irq = 0;
    double softirq = 0;
    double steal = 0;
    double idle = 0; // idle + iowait
    // The server's CPU when it is local and known (a PID, a cgroup, the
    // embedded server's threads); nullopt otherwise.
    std::optional<double> serverSeconds;
    bool frequencyChanged = false; // some CPU's clock moved by over 10 % end to end
    // The kernel's softirq threads' CPU (ksoftirqd/N), when /proc showed them.
    std::optional<double> softirqThreadSeconds = {};
    // Whether the kernel charged interrupt time to the task it interrupted (tick accounting
    // without IRQ time accounting; engine/interrupt_accounting.h): which rule other load
    // follows. nullopt where it was not measured (results saved before it was recorded).
    std::optional<bool> interruptsInProcessTimes = {};
    // The session's host these counters are of (the target's server host);
    // empty: the machine that ran the load.
    QString host = {};
    // The load's own CPU on this machine when it is not all of the result's
    // clientCpuSeconds: the load came from other hosts (0 when none of them
    // is this one). nullopt: the client ran here, all of it.
    std::optional<double> clientSecondsHere = {};

    // Every counter added up: about cpus x wallSeconds.
    double machineSeconds() const { return user + system + irq + softirq + steal + idle; }
    // A counter's share of the machine in percent; 0 without a window.
    double percentOfMachine(double seconds) const;

    friend bool operator==(const CpuUsage&, const CpuUsage&) = default;
};

// The figures derived from a result's CpuUsage and counters; nullopt when the
// result has no CPU window (or no successful request, for per-request figures).
std::optional<double> serverCpuUsPerRequest(const PointResult& r);
std::optional<double> softirqUsPerRequest(const PointResult& r);
std::optional<double> clientCpuUsPerRequest(const PointResult& r);
// CPU used by neither the client nor the server nor the kernel's work for their traffic, as %
// of the machine (DESIGN.md "Metrics"): the time /proc/stat counted in the tasks' place,
// minus the client's and the server's CPU. Where interrupts are charged to the task they
// interrupt, that place holds user + system + irq + softirq less the softirq threads'
// (ksoftirqd, the point's deferred receive work); where they are not (IRQ time accounting),
// user + system alone. A window that did not record which (saved before it was) keeps the
// rule it was saved under: user + system + irq. Steal is left out (its own reason to be
// noisy). Without a server figure, a local server counts as other load.
std::optional<double> otherLoadPercent(const PointResult& r);

// Noise rules (DESIGN.md "Metrics").
inline constexpr double kDefaultNoiseThresholdPercent = 10;
inline constexpr double kStealNoisePercent = 1; // more than a tick or two of rounding

// Why the window was noisy, with the figures ("other load 23.4 % of the
// machine (threshold 10 %); steal 2.0 %"), or empty when it was quiet.
QString noiseReason(const CpuUsage& cpu, std::optional<double> otherLoad, double thresholdPercent);
// Sets r.noise from its CPU window; a result without one is left unjudged.
void judgeNoise(PointResult& r, double thresholdPercent);

} // namespace loadscope::app
