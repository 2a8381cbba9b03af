#include "engine/interrupt_accounting.h"

#include "engine/text_file.h"

#include <algorithm>
#include <arpa/inet.h>
#include <charconv>
#include <mutex>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace loadscope::engine {

namespace {

constexpr double kChargedRatio = 0.9;
constexpr int kBursts = 5;
constexpr int64_t kBurstCpuNs = 2'000'000;

int64_t clockNs(clockid_t clock) {
    timespec t{};
    clock_gettime(clock, &t);
    return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// The second field of /proc/thread-self/schedstat: nanoseconds spent waiting on a run queue.
int64_t waitingNs() {
    const auto text = readTextFile("/proc/thread-self/schedstat");
    if (!text)
        return 0;
    const size_t blank = text->find(' ');
    if (blank == std::string::npos)
        return 0;
    int64_t value = 0;
    const char* begin = text->data() + blank + 1;
    std::from_chars(begin, text->data() + text->size(), value);
    return value;
}

uint64_t netRxOn(int cpu) {
    const auto text = readTextFile("/proc/softirqs");
    return text ? parseNetRxSoftirqs(*text, cpu).value_or(0) : 0;
}

// A UDP socket connected to itself on 127.0.0.1, or -1 (no loopback here).
int loopbackSocket() {
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    auto* generic = reinterpret_cast<sockaddr*>(&address);
    if (bind(fd, generic, sizeof address) != 0 || getsockname(fd, generic, &length) != 0 ||
        connect(fd, generic, sizeof address) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

std::optional<bool> probe() {
    // On its own CPU for the whole probe, so that /proc/softirqs' column is the burst's.
    const int cpu = sched_getcpu();
    if (cpu < 0)
        return std::nullopt;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return std::nullopt;
    const int fd = loopbackSocket();
    if (fd < 0)
        return std::nullopt;
    std::vector<InterruptProbeBurst> bursts;
    char byte = 0;
    for (int i = 0; i < kBursts; ++i) {
        InterruptProbeBurst burst;
        const int64_t wall = clockNs(CLOCK_MONOTONIC);
        const int64_t cpuStart = clockNs(CLOCK_THREAD_CPUTIME_ID);
        const int64_t waited = waitingNs();
        const uint64_t netRx = netRxOn(cpu);
        int64_t used = 0;
        while (used < kBurstCpuNs) {
            // 64 round trips between clock reads: the clock costs less than a datagram.
            for (int k = 0; k < 64; ++k) {
                if (send(fd, &byte, 1, 0) == 1 && recv(fd, &byte, 1, 0) == 1)
                    ++burst.datagrams;
            }
            used = clockNs(CLOCK_THREAD_CPUTIME_ID) - cpuStart;
        }
        burst.cpuNs = used;
        burst.waitingNs = waitingNs() - waited;
        burst.netRx = netRxOn(cpu) - netRx;
        burst.wallNs = clockNs(CLOCK_MONOTONIC) - wall;
        bursts.push_back(burst);
        // Two bursts that agree settle it; a busy machine may need all five.
        if (bursts.size() >= 2 && judgeInterruptAccounting(bursts) == true)
            break;
    }
    close(fd);
    return judgeInterruptAccounting(bursts);
}

} // namespace

std::optional<bool> judgeInterruptAccounting(std::span<const InterruptProbeBurst> bursts) {
    double best = -1;
    for (const InterruptProbeBurst& b : bursts) {
        const int64_t onCpu = b.wallNs - b.waitingNs;
        if (b.datagrams == 0 || b.netRx * 2 < b.datagrams || onCpu <= 0 || b.cpuNs <= 0)
            continue;
        best = std::max(best, double(b.cpuNs) / double(onCpu));
    }
    if (best < 0)
        return std::nullopt;
    return best >= kChargedRatio;
}

std::optional<bool> interruptsInProcessTimes() {
    static std::once_flag once;
    static std::optional<bool> answer;
    std::call_once(once, [] {
        // A thread of its own: the pinning must not outlive the probe.
        std::thread prober([] { answer = probe(); });
        prober.join();
    });
    return answer;
}

std::optional<uint64_t> parseNetRxSoftirqs(std::string_view text, int cpu) {
    // "                    CPU0       CPU1\n      NET_RX:    2720193    5071470\n": the header
    // names the columns (only online CPUs have one).
    const size_t eol = text.find('\n');
    if (eol == std::string_view::npos)
        return std::nullopt;
    std::string_view header = text.substr(0, eol);
    int column = -1;
    for (int index = 0; !header.empty(); ++index) {
        const size_t start = header.find_first_not_of(' ');
        if (start == std::string_view::npos)
            break;
        header = header.substr(start);
        const size_t end = std::min(header.find(' '), header.size());
        const std::string_view name = header.substr(0, end);
        int number = -1;
        if (name.starts_with("CPU"))
            std::from_chars(name.data() + 3, name.data() + name.size(), number);
        if (number == cpu) {
            column = index;
            break;
        }
        header = header.substr(end);
    }
    const size_t at = text.find("NET_RX:");
    if (column < 0 || at == std::string_view::npos)
        return std::nullopt;
    std::string_view values = text.substr(at + 7);
    values = values.substr(0, values.find('\n'));
    for (int index = 0;; ++index) {
        const size_t start = values.find_first_not_of(' ');
        if (start == std::string_view::npos)
            return std::nullopt;
        values = values.substr(start);
        uint64_t value = 0;
        const auto [next, error] =
            std::from_chars(values.data(), values.data() + values.size(), value);
        if (error != std::errc())
            return std::nullopt;
        if (index == column)
            return value;
        values = values.substr(size_t(next - values.data()));
    }
}

} // namespace loadscope::engine
