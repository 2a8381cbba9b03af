#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

// Whether the kernel charges the time it spends serving interrupts to the task it interrupted.
//
// With tick-based CPU accounting and no CONFIG_IRQ_TIME_ACCOUNTING, a tick that lands while a
// softirq runs in a task's context (the network receive work of the task's own sends, on
// loopback and veth) is counted in /proc/stat's softirq column and in that task's stime: the
// client's and the server's CPU then hold the softirq of their own traffic, and /proc/stat's
// user + system do not. With IRQ time accounting (and where it is enabled at boot) interrupt
// time is taken out of every task's runtime instead. Other load (app/session/cpu_usage.h)
// needs to know which: it is measured by its effect, never read from a kernel version.
namespace loadscope::engine {

// One burst of the probe: a thread pinned to one CPU sends UDP datagrams to itself over
// loopback, whose receive work (NET_RX) runs as a softirq in its own context.
struct InterruptProbeBurst {
    int64_t wallNs = 0;     // CLOCK_MONOTONIC over the burst
    int64_t cpuNs = 0;      // the thread's CPU clock over the burst (its runtime)
    int64_t waitingNs = 0;  // time it waited for its CPU (/proc/thread-self/schedstat run_delay)
    uint64_t datagrams = 0; // sent and received
    uint64_t netRx = 0;     // NET_RX softirqs run on the thread's CPU meanwhile (/proc/softirqs)
};

// The answer of a probe's bursts. Each burst's runtime is compared with the wall time it had
// its CPU (wall - waiting): where interrupts are charged to the task the two agree (the best
// burst above 0.9), where they are not the receive work, a third or more of a loopback
// datagram's cost, is missing (below 0.9: an interruption, a stolen tick, only ever lowers a
// burst). A burst counts only when the receive work ran on its CPU (at least half as many
// NET_RX softirqs as datagrams). nullopt: no burst counted.
std::optional<bool> judgeInterruptAccounting(std::span<const InterruptProbeBurst> bursts);

// Measures it: up to five bursts of 2 ms of CPU on a thread of its own (tens of ms on a busy
// machine), once per process; later calls return the first answer. nullopt where the probe
// cannot run (no loopback in this network namespace). Never call it inside a measured window.
std::optional<bool> interruptsInProcessTimes();

// The NET_RX count of CPU `cpu` in /proc/softirqs text; nullopt when absent.
std::optional<uint64_t> parseNetRxSoftirqs(std::string_view procSoftirqs, int cpu);

} // namespace loadscope::engine
