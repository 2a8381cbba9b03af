#include "engine/cpu_sampler.h"

#include "engine/run_state.h"
#include "engine/text_file.h"

#include <algorithm>
#include <charconv>
#include <dirent.h>
#include <unistd.h>
#include <unordered_map>
#include <utility>

namespace loadscope::engine {

namespace {

// The numbers of `text` separated by blanks, as many as there are.
std::vector<uint64_t> numbers(std::string_view text) {
    std::vector<uint64_t> values;
    const char* p = text.data();
    const char* end = p + text.size();
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t'))
            ++p;
        // A negative field (/proc/PID/stat's tpgid -1) counts as 0: only
        // counters are read, and they never are negative.
        const bool negative = p < end && *p == '-';
        if (negative)
            ++p;
        uint64_t value = 0;
        const auto [next, error] = std::from_chars(p, end, value);
        if (negative)
            value = 0;
        if (error != std::errc() || next == p)
            break;
        values.push_back(value);
        p = next;
    }
    return values;
}

std::optional<CpuTicks> ticksFrom(std::string_view fields) {
    const std::vector<uint64_t> v = numbers(fields);
    if (v.size() < 4)
        return std::nullopt;
    const auto at = [&v](size_t i) {
        return i < v.size() ? v[i] : 0;
    };
    // user nice system idle iowait irq softirq steal guest guest_nice: guest is already in user.
    return CpuTicks{at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7)};
}

double seconds(uint64_t from, uint64_t to, long ticksPerSecond) {
    // Counters only grow; a smaller end (a CPU gone offline) counts as nothing.
    return to > from ? double(to - from) / double(ticksPerSecond) : 0.0;
}

} // namespace

std::optional<CpuSample> parseProcStat(std::string_view text) {
    CpuSample sample;
    bool haveMachine = false;
    while (!text.empty()) {
        const size_t eol = text.find('\n');
        const std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        if (!line.starts_with("cpu"))
            continue;
        const size_t blank = line.find(' ');
        if (blank == std::string_view::npos)
            continue;
        const auto ticks = ticksFrom(line.substr(blank));
        if (!ticks)
            continue;
        if (blank == 3) {
            sample.machine = *ticks;
            haveMachine = true;
        } else {
            sample.perCpu.push_back(*ticks);
        }
    }
    if (!haveMachine)
        return std::nullopt;
    sample.valid = true;
    return sample;
}

std::optional<ProcessStat> parseProcessStat(std::string_view statLine) {
    // "pid (comm) state ppid ...": comm may hold ") ", so the last ')' ends it.
    const size_t close = statLine.rfind(')');
    if (close == std::string_view::npos)
        return std::nullopt;
    std::string_view rest = statLine.substr(close + 1);
    // After comm: state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
    // cmajflt utime(14) stime(15) cutime(16) cstime(17). Skip the state letter, then
    // count numbers.
    const size_t state = rest.find_first_not_of(' ');
    if (state == std::string_view::npos)
        return std::nullopt;
    rest = rest.substr(state + 1);
    const std::vector<uint64_t> v = numbers(rest);
    if (v.size() < 14)
        return std::nullopt;
    return ProcessStat{int(v[0]), v[10] + v[11], v[12] + v[13]};
}

std::optional<uint64_t> parseProcessTicks(std::string_view statLine) {
    const auto stat = parseProcessStat(statLine);
    return stat ? std::optional<uint64_t>(stat->ticks) : std::nullopt;
}

std::optional<uint64_t> processTreeTicks(int root) {
    const auto rootStat = readTextFile("/proc/" + std::to_string(root) + "/stat");
    const auto parsed = rootStat ? parseProcessStat(*rootStat) : std::nullopt;
    if (!parsed)
        return std::nullopt;
    // Every process's parent, then the tree from its root: one pass over /proc.
    std::unordered_map<int, std::vector<std::pair<int, uint64_t>>> children;
    size_t processes = 0;
    if (DIR* proc = opendir("/proc")) {
        while (const dirent* entry = readdir(proc)) {
            int pid = 0;
            const std::string_view name(entry->d_name);
            const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
            if (error != std::errc() || end != name.data() + name.size() || pid == root)
                continue;
            const auto stat = readTextFile("/proc/" + std::string(name) + "/stat");
            if (const auto p = stat ? parseProcessStat(*stat) : std::nullopt) {
                children[p->ppid].emplace_back(pid, p->ticks + p->childTicks);
                ++processes;
            }
        }
        closedir(proc);
    }
    uint64_t ticks = parsed->ticks + parsed->childTicks;
    std::vector<int> pending{root};
    // PIDs reused while /proc was read could make a loop of parents: never more
    // rounds than there were processes.
    size_t rounds = processes + 1;
    while (!pending.empty() && rounds-- > 0) {
        const int parent = pending.back();
        pending.pop_back();
        const auto found = children.find(parent);
        if (found == children.end())
            continue;
        for (const auto& [pid, own] : found->second) {
            ticks += own;
            pending.push_back(pid);
        }
    }
    return ticks;
}

bool isSoftirqThread(std::string_view statLine) {
    const size_t open = statLine.find('(');
    return open != std::string_view::npos && statLine.substr(open + 1).starts_with("ksoftirqd/");
}

namespace {

// One per CPU, children of kthreadd (PID 2), as long as the machine runs: found once.
const std::vector<int>& softirqThreads() {
    static const std::vector<int> found = [] {
        std::vector<uint64_t> candidates;
        if (const auto children = readTextFile("/proc/2/task/2/children")) {
            candidates = numbers(*children);
        } else if (DIR* proc = opendir("/proc")) { // a kernel without CONFIG_PROC_CHILDREN
            while (const dirent* entry = readdir(proc)) {
                uint64_t pid = 0;
                const std::string_view name(entry->d_name);
                const auto [end, error] =
                    std::from_chars(name.data(), name.data() + name.size(), pid);
                if (error == std::errc() && end == name.data() + name.size())
                    candidates.push_back(pid);
            }
            closedir(proc);
        }
        std::vector<int> pids;
        for (const uint64_t pid : candidates) {
            const auto stat = readTextFile("/proc/" + std::to_string(pid) + "/stat");
            if (stat && isSoftirqThread(*stat))
                pids.push_back(int(pid));
        }
        return pids;
    }();
    return found;
}

std::optional<uint64_t> softirqThreadTicks() {
    if (softirqThreads().empty())
        return std::nullopt;
    uint64_t ticks = 0;
    for (const int pid : softirqThreads()) {
        const auto stat = readTextFile("/proc/" + std::to_string(pid) + "/stat");
        if (const auto own = stat ? parseProcessTicks(*stat) : std::nullopt)
            ticks += *own;
    }
    return ticks;
}

} // namespace

std::optional<uint64_t> parseCgroupUsageNs(std::string_view cpuStat) {
    const size_t at = cpuStat.find("usage_usec ");
    if (at == std::string_view::npos || (at > 0 && cpuStat[at - 1] != '\n'))
        return std::nullopt;
    const std::vector<uint64_t> v = numbers(cpuStat.substr(at + 11));
    if (v.empty())
        return std::nullopt;
    return v.front() * 1000;
}

CpuSampler::CpuSampler(ServerCpuSource server)
    : m_server(std::move(server))
    , m_ticksPerSecond(ticksPerSecond()) {}

long CpuSampler::ticksPerSecond() {
    const long ticks = sysconf(_SC_CLK_TCK);
    return ticks > 0 ? ticks : 100;
}

std::optional<uint64_t> CpuSampler::serverCpuNs() const {
    if (m_server.empty())
        return std::nullopt;
    uint64_t ns = 0;
    const auto ticksNs = [this](uint64_t ticks) {
        return ticks * 1'000'000'000ULL / uint64_t(m_ticksPerSecond);
    };
    if (m_server.pid > 0) {
        std::optional<uint64_t> ticks;
        if (m_server.withChildren) {
            ticks = processTreeTicks(m_server.pid);
        } else {
            const auto stat = readTextFile("/proc/" + std::to_string(m_server.pid) + "/stat");
            ticks = stat ? parseProcessTicks(*stat) : std::nullopt;
        }
        if (!ticks)
            return std::nullopt; // the process is gone: no figure rather than a wrong one
        ns += ticksNs(*ticks);
    }
    if (!m_server.cgroup.empty()) {
        std::optional<uint64_t> usage;
        if (const auto v2 = readTextFile(m_server.cgroup + "/cpu.stat"))
            usage = parseCgroupUsageNs(*v2);
        if (!usage) {
            if (const auto v1 = readTextFile(m_server.cgroup + "/cpuacct.usage")) {
                const std::vector<uint64_t> v = numbers(*v1);
                if (!v.empty())
                    usage = v.front();
            }
        }
        if (!usage)
            return std::nullopt;
        ns += *usage;
    }
    for (const int tid : m_server.threads) {
        const auto stat = readTextFile("/proc/self/task/" + std::to_string(tid) + "/stat");
        const auto ticks = stat ? parseProcessTicks(*stat) : std::nullopt;
        if (!ticks)
            return std::nullopt;
        ns += ticksNs(*ticks);
    }
    return ns;
}

CpuSample CpuSampler::sample() const {
    CpuSample sample;
    // The server first and the machine last, closest to the timestamp.
    const auto server = serverCpuNs();
    const auto softirq = softirqThreadTicks();
    if (const auto text = readTextFile("/proc/stat")) {
        if (auto parsed = parseProcStat(*text))
            sample = std::move(*parsed);
    }
    sample.serverCpuNs = server;
    sample.softirqThreadTicks = softirq;
    for (size_t cpu = 0; cpu < sample.perCpu.size(); ++cpu) {
        const auto freq = readTextFile("/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                                       "/cpufreq/scaling_cur_freq");
        const std::vector<uint64_t> v = freq ? numbers(*freq) : std::vector<uint64_t>{};
        if (v.empty()) {
            sample.frequencies.clear(); // not exposed (a VM, no cpufreq driver): never assumed
            break;
        }
        sample.frequencies.push_back(v.front());
    }
    sample.atNs = detail::monotonicNs();
    return sample;
}

CpuWindow cpuWindow(const CpuSample& start, const CpuSample& end, long ticksPerSecond) {
    CpuWindow w;
    if (!start.valid || !end.valid || end.atNs <= start.atNs || ticksPerSecond <= 0)
        return w;
    w.valid = true;
    w.wallSeconds = double(end.atNs - start.atNs) / 1e9;
    w.cpus = int(std::max<size_t>(1, end.perCpu.size()));
    const CpuTicks& a = start.machine;
    const CpuTicks& b = end.machine;
    const long t = ticksPerSecond;
    w.user = seconds(a.user, b.user, t) + seconds(a.nice, b.nice, t);
    w.system = seconds(a.system, b.system, t);
    w.irq = seconds(a.irq, b.irq, t);
    w.softirq = seconds(a.softirq, b.softirq, t);
    w.steal = seconds(a.steal, b.steal, t);
    w.idle = seconds(a.idle, b.idle, t) + seconds(a.iowait, b.iowait, t);
    if (start.serverCpuNs && end.serverCpuNs && *end.serverCpuNs >= *start.serverCpuNs)
        w.serverCpuSeconds = double(*end.serverCpuNs - *start.serverCpuNs) / 1e9;
    if (start.softirqThreadTicks && end.softirqThreadTicks)
        w.softirqThreadSeconds = seconds(*start.softirqThreadTicks, *end.softirqThreadTicks, t);
    const size_t cpus = std::min(start.perCpu.size(), end.perCpu.size());
    for (size_t i = 0; i < cpus; ++i) {
        const CpuTicks& x = start.perCpu[i];
        const CpuTicks& y = end.perCpu[i];
        const uint64_t busyX = x.all() - x.idle - x.iowait;
        const uint64_t busyY = y.all() - y.idle - y.iowait;
        w.busyPerCpu.push_back(seconds(busyX, busyY, t));
    }
    if (!start.frequencies.empty() && start.frequencies.size() == end.frequencies.size()) {
        // Governors move the clock by a few percent all the time; a tenth is a change that
        // shows in the figures (turbo ending, thermal throttling, a powersave step).
        for (size_t i = 0; i < start.frequencies.size(); ++i) {
            const double from = double(start.frequencies[i]);
            const double to = double(end.frequencies[i]);
            if (std::max(from, to) > 1.1 * std::min(from, to))
                w.frequencyChanged = true;
        }
        const auto [lo1, hi1] =
            std::minmax_element(start.frequencies.begin(), start.frequencies.end());
        const auto [lo2, hi2] = std::minmax_element(end.frequencies.begin(), end.frequencies.end());
        w.minFrequencyKHz = std::min(*lo1, *lo2);
        w.maxFrequencyKHz = std::max(*hi1, *hi2);
    }
    return w;
}

} // namespace loadscope::engine
