#include "engine/cpu_profiler.h"

#include "engine/kernel_paths.h"
#include "engine/kernel_symbols.h"
#include "engine/profile_roles.h"
#include "engine/run_state.h"
#include "engine/text_file.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace loadscope::engine {

namespace {

constexpr size_t kRingPages = 32; // 128 KiB a CPU: a third of a second of deep call chains
// A run's distinct call chains beyond this share one entry per process.
constexpr size_t kMaxDistinctChains = 200'000;
// Folded stacks kept in the result, most samples first; the rest is summed in one line.
constexpr size_t kMaxFoldedStacks = 5000;
// What a chain's key says after its role.
constexpr char kChain = 0;
constexpr char kProfilerChain = 1;
constexpr char kChainBeyondLimit = 2;

std::atomic<bool> g_handedInUse{false};

int perfEventOpen(perf_event_attr& attr, int cpu) {
    return int(syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

perf_event_attr cpuClockAttr() {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    attr.sample_period = CpuProfiler::kPeriodNs;
    attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;
    // Sample times on the clock cpu-clock's timer is due on, so that a late one shows.
    attr.use_clockid = 1;
    attr.clockid = CLOCK_MONOTONIC;
    attr.disabled = 1;
    // Woken when a quarter of the ring is full, so the sampler sleeps between reads.
    attr.watermark = 1;
    attr.wakeup_watermark = uint32_t(kRingPages * size_t(sysconf(_SC_PAGESIZE)) / 4);
    return attr;
}

// The online CPUs, from /sys/devices/system/cpu/online ("0-3,5").
std::vector<int> onlineCpus() {
    std::vector<int> cpus;
    if (const auto text = readTextFile("/sys/devices/system/cpu/online")) {
        std::string_view rest(*text);
        while (!rest.empty()) {
            int first = 0;
            auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), first);
            if (error != std::errc())
                break;
            int last = first;
            if (end < rest.data() + rest.size() && *end == '-') {
                auto [end2, error2] = std::from_chars(end + 1, rest.data() + rest.size(), last);
                if (error2 != std::errc())
                    break;
                end = end2;
            }
            for (int cpu = first; cpu <= last && cpu - first < 4096; ++cpu)
                cpus.push_back(cpu);
            rest = rest.substr(size_t(end - rest.data()));
            rest = rest.substr(std::min(rest.size(), rest.find_first_not_of(",\n")));
        }
    }
    if (cpus.empty()) {
        const long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (int cpu = 0; cpu < std::max(1L, n); ++cpu)
            cpus.push_back(cpu);
    }
    return cpus;
}

bool inInitialUserNamespace() {
    const auto map = readTextFile("/proc/self/uid_map");
    if (!map)
        return true;
    // The machine's own: "0 0 4294967295".
    unsigned long inside = 1, outside = 1, count = 0;
    return std::sscanf(map->c_str(), "%lu %lu %lu", &inside, &outside, &count) == 3 &&
           inside == 0 && outside == 0 && count == 4294967295UL;
}

std::string paranoidSetting() {
    const auto text = readTextFile("/proc/sys/kernel/perf_event_paranoid");
    return text ? text->substr(0, text->find('\n')) : std::string("unknown");
}

// "0:5,1:6": the events the lab's sandbox opened, by CPU.
std::vector<std::pair<int, int>> handedEvents() {
    std::vector<std::pair<int, int>> events;
    const char* text = std::getenv("LOADSCOPE_PROFILE_FDS");
    if (!text)
        return events;
    std::string_view rest(text);
    while (!rest.empty()) {
        int cpu = -1, fd = -1;
        auto [colon, error] = std::from_chars(rest.data(), rest.data() + rest.size(), cpu);
        if (error != std::errc() || colon == rest.data() + rest.size() || *colon != ':')
            return {};
        auto [end, error2] = std::from_chars(colon + 1, rest.data() + rest.size(), fd);
        if (error2 != std::errc() || fd < 3 || fcntl(fd, F_GETFD) < 0)
            return {};
        events.emplace_back(cpu, fd);
        rest = rest.substr(size_t(end - rest.data()));
        if (!rest.empty() && rest.front() == ',')
            rest.remove_prefix(1);
    }
    return events;
}

double threadCpuSeconds(clockid_t clock) {
    timespec ts{};
    if (clock_gettime(clock, &ts) != 0)
        return 0;
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

constexpr uint64_t kContextKernel = uint64_t(PERF_CONTEXT_KERNEL);
constexpr uint64_t kContextUser = uint64_t(PERF_CONTEXT_USER);
constexpr uint64_t kContextMax = uint64_t(PERF_CONTEXT_MAX);

} // namespace

std::string profileRefusal(int error) {
    if (error == EACCES || error == EPERM) {
        if (!inInitialUserNamespace())
            return "perf events on every CPU are refused inside a user namespace (a sandbox's, a "
                   "rootless container's), even to its root: run the lab (loadscope-cli lab "
                   "sandbox) as root, which opens them in the machine's own namespace and hands "
                   "them in";
        if (geteuid() != 0)
            return "kernel.perf_event_paranoid is " + paranoidSetting() +
                   ": sampling every CPU needs it at 0 or below without CAP_PERFMON (as root: "
                   "sysctl -w kernel.perf_event_paranoid=0), or run as root";
        return "the kernel refused perf events on every CPU to root (kernel.perf_event_paranoid "
               "is " +
               paranoidSetting() + "; a security module may forbid them)";
    }
    if (error == ENOENT || error == ENODEV || error == EOPNOTSUPP || error == ENOSYS)
        return "this kernel has no software cpu-clock perf event (CONFIG_PERF_EVENTS)";
    if (error == EMFILE || error == ENFILE)
        return "no file descriptor left for the perf events";
    return std::string("perf_event_open: ") + std::strerror(error);
}

namespace {

void sleepUntilNs(int64_t due) {
    const timespec at{time_t(due / 1'000'000'000), long(due % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR) {
    }
}

// A disabled cpu-clock timer keeps what was left of its period and resumes
// from there when enabled again (the lab hands the same events to every
// point): setting the period again clears that, so that the first sample
// comes a whole period after the enabling.
void restartPeriod(int fd) {
    uint64_t period = CpuProfiler::kPeriodNs;
    ioctl(fd, PERF_EVENT_IOC_PERIOD, &period);
}

// Enables `fd` at `due`, or at the same phase a whole number of periods
// later: the timer starts within the enabling call, so a call that began late
// (the thread woke late) or took long (it was preempted) is undone and tried
// at the next period.
void enableAtPhase(int fd, int64_t due) {
    constexpr auto period = int64_t(CpuProfiler::kPeriodNs);
    const auto onTime = [&due] {
        return detail::monotonicNs() - due <= int64_t(CpuProfiler::kPhaseToleranceNs);
    };
    for (int attempt = 0; attempt < CpuProfiler::kPhaseAttempts; ++attempt) {
        restartPeriod(fd);
        sleepUntilNs(due);
        if (onTime()) {
            ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
            if (onTime())
                return;
            ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
        }
        due += period * ((detail::monotonicNs() - due) / period + 1);
    }
    // The machine never let it start on time: where it is.
    restartPeriod(fd);
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

} // namespace

HandedProfileEvents openProfileEventsToHand(std::string* why) {
    HandedProfileEvents handed;
    for (const int cpu : onlineCpus()) {
        perf_event_attr attr = cpuClockAttr();
        const int fd = perfEventOpen(attr, cpu);
        if (fd < 0) {
            if (why)
                *why = profileRefusal(errno);
            for (const int open : handed.fds)
                close(open);
            return {};
        }
        handed.fds.push_back(fd);
        if (!handed.environment.empty())
            handed.environment += ',';
        handed.environment += std::to_string(cpu) + ":" + std::to_string(fd);
    }
    return handed;
}

struct CpuProfiler::Impl {
    explicit Impl(ServerCpuSource server)
        : roles(std::move(server)) {}

    struct Ring {
        int cpu = 0;
        int fd = -1;
        bool own = false;
        void* base = MAP_FAILED;
        size_t mapped = 0;
        perf_event_mmap_page* page = nullptr;
        const char* data = nullptr;
        size_t dataSize = 0;
        // The timer's due instants: `grid` is one (0: none seen yet), a
        // period apart; `previousNs` the last sample's time, `previousLateNs`
        // how late it came.
        uint64_t grid = 0;
        uint64_t previousNs = 0;
        int64_t previousLateNs = 0;
    };

    ProfileRoles roles;
    std::vector<Ring> rings;
    int cpus = 0; // sampled, kept once the rings are closed
    bool opened = false;
    bool usesHanded = false;
    std::string unavailable;
    std::thread sampler;
    int wakeFd = -1;
    std::atomic<bool> stopping{false};
    std::atomic<int> samplerTid{0};
    clockid_t samplerClock{};
    bool haveSamplerClock = false;
    double samplerCpuAtEnable = 0;
    double samplerCpuSeconds = 0;
    bool enabled = false;

    // Written by the sampler thread until it is joined.
    std::unordered_map<std::string, uint64_t> chains; // role, pid, profiler flag, IPs -> samples
    uint64_t samples = 0;
    uint64_t lost = 0;
    uint64_t stolen = 0;
    uint64_t skipped = 0;
    std::vector<char> scratch;

    bool openEvents();
    void closeEvents();
    void samplerLoop();
    void drain(Ring& ring);
    void record(Ring& ring, const char* bytes, size_t size);
    static int64_t lateness(Ring& ring, uint64_t timeNs);
    CpuProfile attribute();
};

bool CpuProfiler::Impl::openEvents() {
    const long pageSize = sysconf(_SC_PAGESIZE);
    const auto handed = handedEvents();
    if (!handed.empty()) {
        if (g_handedInUse.exchange(true)) {
            unavailable = "another profile is being taken in this process with the events the "
                          "lab handed in";
            return false;
        }
        usesHanded = true;
        for (const auto& [cpu, fd] : handed)
            rings.push_back(Ring{cpu, fd, false});
    } else {
        for (const int cpu : onlineCpus()) {
            perf_event_attr attr = cpuClockAttr();
            const int fd = perfEventOpen(attr, cpu);
            if (fd < 0) {
                // Inside the lab's sandbox, the sandbox's parent says why it could not open them.
                const char* refused = std::getenv("LOADSCOPE_PROFILE_REFUSED");
                unavailable = refused && *refused ? refused : profileRefusal(errno);
                return false;
            }
            rings.push_back(Ring{cpu, fd, true});
        }
    }
    cpus = int(rings.size());
    for (Ring& ring : rings) {
        ring.mapped = (1 + kRingPages) * size_t(pageSize);
        ring.base = mmap(nullptr, ring.mapped, PROT_READ | PROT_WRITE, MAP_SHARED, ring.fd, 0);
        if (ring.base == MAP_FAILED) {
            const int error = errno;
            unavailable = "cannot map the profile's ring buffers (" +
                          std::to_string(kRingPages * size_t(pageSize) / 1024) +
                          " KiB a CPU): " + std::strerror(error) +
                          "; kernel.perf_event_mlock_kb and ulimit -l bound them";
            return false;
        }
        ring.page = static_cast<perf_event_mmap_page*>(ring.base);
        ring.data = static_cast<const char*>(ring.base) + pageSize;
        ring.dataSize = kRingPages * size_t(pageSize);
    }
    return true;
}

void CpuProfiler::Impl::closeEvents() {
    for (Ring& ring : rings) {
        if (ring.base != MAP_FAILED)
            munmap(ring.base, ring.mapped);
        ring.base = MAP_FAILED;
        if (ring.own && ring.fd >= 0)
            close(ring.fd);
        else if (ring.fd >= 0)
            ioctl(ring.fd, PERF_EVENT_IOC_DISABLE, 0);
        ring.fd = -1;
    }
    rings.clear();
    if (usesHanded)
        g_handedInUse.store(false);
    usesHanded = false;
    if (wakeFd >= 0)
        close(wakeFd);
    wakeFd = -1;
}

int64_t CpuProfiler::Impl::lateness(Ring& ring, uint64_t timeNs) {
    constexpr int64_t period = int64_t(kPeriodNs);
    if (ring.grid == 0 || timeNs <= ring.previousNs) {
        ring.grid = timeNs;
        ring.previousNs = timeNs;
        ring.previousLateNs = 0;
        return 0;
    }
    // cpu-clock's timer is due a period after its last due instant; one that
    // fires late (its CPU was not running) is forwarded past now, so the
    // sample that comes is due at the first grid instant after the last one.
    const int64_t sincePrevious = int64_t(ring.previousNs - ring.grid);
    const int64_t due = int64_t(ring.grid) + (sincePrevious / period + 1) * period;
    int64_t late = int64_t(timeNs) - due;
    const bool shifted = late < 0 || (late > kLateNs && ring.previousLateNs > kLateNs &&
                                      std::abs(late - ring.previousLateNs) < kLateNs / 4);
    if (shifted) {
        // Earlier than due, or late by the same twice: the timer was restarted
        // (enabled, or scheduled in again), and its due instants moved.
        ring.grid = timeNs;
        late = 0;
    }
    ring.previousNs = timeNs;
    ring.previousLateNs = late;
    return late;
}

void CpuProfiler::Impl::record(Ring& ring, const char* bytes, size_t size) {
    perf_event_header header;
    std::memcpy(&header, bytes, sizeof header);
    if (header.type == PERF_RECORD_LOST && size >= sizeof header + 16) {
        uint64_t count = 0;
        std::memcpy(&count, bytes + sizeof header + 8, sizeof count);
        lost += count;
        return;
    }
    if (header.type != PERF_RECORD_SAMPLE || size < sizeof header + 32)
        return;
    // PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_CPU, PERF_SAMPLE_CALLCHAIN, in that order.
    uint32_t ids[2];
    std::memcpy(ids, bytes + sizeof header, sizeof ids);
    uint64_t timeNs = 0;
    std::memcpy(&timeNs, bytes + sizeof header + 8, sizeof timeNs);
    uint64_t nr = 0;
    std::memcpy(&nr, bytes + sizeof header + 24, sizeof nr);
    const size_t ipsAt = sizeof header + 32;
    if (nr > (size - ipsAt) / sizeof(uint64_t))
        return;
    ++samples;
    // Due while the hypervisor held this CPU (steal): the task it finds
    // running when its CPU comes back did not run for that period, whose
    // time the task's own CPU clock leaves out too. In no role.
    if (const int64_t late = lateness(ring, timeNs); late > kLateNs) {
        ++stolen;
        // The due instants it came past were forwarded over: no sample at all.
        skipped += uint64_t(late / int64_t(kPeriodNs));
        return;
    }
    const int pid = int(ids[0]);
    const int tid = int(ids[1]);
    const bool profiler = pid == roles.ownPid() && tid == samplerTid.load();
    const ProcessRole role = roles.roleOf(pid, tid);
    char head[6] = {char(role), profiler ? kProfilerChain : kChain};
    std::memcpy(head + 2, &pid, sizeof pid);
    std::string key(head, sizeof head);
    key.append(bytes + ipsAt, nr * sizeof(uint64_t));
    if (chains.size() >= kMaxDistinctChains && !chains.contains(key)) {
        head[1] = kChainBeyondLimit;
        key.assign(head, sizeof head);
    }
    ++chains[key];
}

void CpuProfiler::Impl::drain(Ring& ring) {
    const uint64_t head = __atomic_load_n(&ring.page->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = ring.page->data_tail;
    const auto copyOut = [&ring](uint64_t from, char* into, size_t length) {
        const size_t at = size_t(from % ring.dataSize);
        const size_t first = std::min(length, ring.dataSize - at);
        std::memcpy(into, ring.data + at, first);
        std::memcpy(into + first, ring.data, length - first);
    };
    while (tail + sizeof(perf_event_header) <= head) {
        perf_event_header header;
        copyOut(tail, reinterpret_cast<char*>(&header), sizeof header);
        if (header.size < sizeof header || tail + header.size > head)
            break;
        scratch.resize(header.size);
        copyOut(tail, scratch.data(), header.size);
        record(ring, scratch.data(), header.size);
        tail += header.size;
    }
    __atomic_store_n(&ring.page->data_tail, tail, __ATOMIC_RELEASE);
}

void CpuProfiler::Impl::samplerLoop() {
    pthread_setname_np(pthread_self(), "loadscope-prof");
    samplerTid.store(procTidOfThisThread());
    std::vector<pollfd> fds;
    for (const Ring& ring : rings)
        fds.push_back(pollfd{ring.fd, POLLIN, 0});
    fds.push_back(pollfd{wakeFd, POLLIN, 0});
    for (;;) {
        // Bounded, so that a ring is read at least ten times a second.
        poll(fds.data(), fds.size(), 100);
        const bool last = stopping.load(std::memory_order_acquire);
        for (Ring& ring : rings)
            drain(ring);
        if (last)
            return;
        if (fds.back().revents & POLLIN) {
            uint64_t value = 0;
            (void)!read(wakeFd, &value, sizeof value);
        }
    }
}

CpuProfile CpuProfiler::Impl::attribute() {
    CpuProfile profile;
    profile.requested = true;
    profile.cpus = cpus;
    profile.periodNs = kPeriodNs;
    profile.samples = samples;
    profile.lostSamples = lost;
    profile.stolenSamples = stolen;
    profile.skippedPeriods = skipped;
    profile.samplerCpuSeconds = samplerCpuSeconds;
    const std::shared_ptr<const KernelSymbols> symbols = KernelSymbols::machine();
    if (symbols->hidden())
        profile.note = "kernel symbols are hidden (kernel.kptr_restrict, or "
                       "kernel.perf_event_paranoid above 1 for a reader without CAP_SYSLOG): "
                       "kernel time is all other kernel";
    else if (symbols->size() == 0)
        profile.note = "no kernel symbols (/proc/kallsyms): kernel time is all other kernel";
    if (stolen > 0) {
        if (!profile.note.empty())
            profile.note += "; ";
        profile.note += stolen == 1 ? std::string("1 sample came late, due while the hypervisor "
                                                  "held its CPU (steal): in no role")
                                    : std::to_string(stolen) +
                                          " samples came late, due while the hypervisor held "
                                          "their CPU (steal): in no role";
    }
    std::unordered_map<uint64_t, std::string_view> names;
    std::unordered_map<std::string, uint64_t> folded;
    std::vector<std::string_view> kernel;
    for (const auto& [key, count] : chains) {
        const ProcessRole role = ProcessRole(key[0]);
        int pid = 0;
        std::memcpy(&pid, key.data() + 2, sizeof pid);
        if (key[1] == kProfilerChain) {
            profile.profilerSamples += count;
            continue;
        }
        if (key[1] == kChainBeyondLimit) {
            profile.counts[size_t(role)][size_t(CpuPath::OtherKernel)] += count;
            folded[roles.nameOf(pid) + " [" + std::string(processRoleId(role)) +
                   "];[call chains beyond the limit]"] += count;
            continue;
        }
        const size_t n = (key.size() - 6) / sizeof(uint64_t);
        kernel.clear();
        std::vector<uint64_t> kernelIps;
        std::optional<uint64_t> userLeaf;
        uint64_t context = 0;
        for (size_t i = 0; i < n; ++i) {
            uint64_t ip = 0;
            std::memcpy(&ip, key.data() + 6 + i * sizeof ip, sizeof ip);
            if (ip >= kContextMax) {
                context = ip;
                continue;
            }
            if (context == kContextKernel) {
                kernelIps.push_back(ip);
                auto found = names.find(ip);
                if (found == names.end())
                    found = names.emplace(ip, symbols->lookup(ip)).first;
                kernel.push_back(found->second);
            } else if (context == kContextUser && !userLeaf) {
                userLeaf = ip;
            }
        }
        CpuPath path = CpuPath::User;
        if (!kernelIps.empty()) {
            const KernelPathVerdict verdict = classifyKernelChain(kernel);
            if (verdict.idle) {
                profile.idleSamples += count;
                continue;
            }
            path = verdict.path;
        } else if (n == 0 && pid == 0) {
            // A chain the kernel could not take on the idle task: counted as idle's.
            profile.idleSamples += count;
            continue;
        }
        profile.counts[size_t(role)][size_t(path)] += count;
        std::string frames = roles.nameOf(pid);
        frames.append(" [").append(processRoleId(role)).append("]");
        if (userLeaf)
            frames.append(";").append(roles.moduleOf(pid, *userLeaf));
        for (size_t i = kernel.size(); i-- > 0;)
            frames.append(";").append(kernel[i].empty() ? std::string_view("[kernel]") : kernel[i]);
        if (n == 0)
            frames.append(";[no call chain]");
        folded[frames] += count;
    }
    profile.stacks.reserve(folded.size());
    for (auto& [frames, count] : folded)
        profile.stacks.push_back(FoldedStack{frames, count});
    std::sort(profile.stacks.begin(), profile.stacks.end(),
              [](const FoldedStack& a, const FoldedStack& b) {
                  return a.samples != b.samples ? a.samples > b.samples : a.frames < b.frames;
              });
    if (profile.stacks.size() > kMaxFoldedStacks) {
        uint64_t rest = 0;
        for (size_t i = kMaxFoldedStacks; i < profile.stacks.size(); ++i)
            rest += profile.stacks[i].samples;
        profile.stacks.resize(kMaxFoldedStacks);
        profile.stacks.push_back(FoldedStack{"[other stacks]", rest});
    }
    return profile;
}

CpuProfiler::CpuProfiler(ServerCpuSource server)
    : d(std::make_unique<Impl>(std::move(server))) {}

CpuProfiler::~CpuProfiler() {
    if (d->sampler.joinable()) {
        d->stopping.store(true, std::memory_order_release);
        const uint64_t one = 1;
        (void)!write(d->wakeFd, &one, sizeof one);
        d->sampler.join();
    }
    d->closeEvents();
}

bool CpuProfiler::open() {
    if (d->opened)
        return true;
    if (!d->openEvents()) {
        d->closeEvents();
        return false;
    }
    d->wakeFd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (d->wakeFd < 0) {
        d->unavailable = std::string("eventfd: ") + std::strerror(errno);
        d->closeEvents();
        return false;
    }
    d->sampler = std::thread([impl = d.get()] { impl->samplerLoop(); });
    d->haveSamplerClock = pthread_getcpuclockid(d->sampler.native_handle(), &d->samplerClock) == 0;
    d->opened = true;
    return true;
}

void CpuProfiler::enable() {
    if (!d->opened || d->enabled)
        return;
    d->enabled = true;
    if (d->haveSamplerClock)
        d->samplerCpuAtEnable = threadCpuSeconds(d->samplerClock);
    // Ring i's timer starts i/n of a period after the first one's.
    const int64_t first = detail::monotonicNs();
    const size_t n = d->rings.size();
    for (size_t i = 0; i < n; ++i)
        enableAtPhase(d->rings[i].fd, first + int64_t(kPeriodNs * i / n));
}

void CpuProfiler::disable() {
    if (!d->opened || !d->enabled)
        return;
    for (const Impl::Ring& ring : d->rings)
        ioctl(ring.fd, PERF_EVENT_IOC_DISABLE, 0);
    if (d->haveSamplerClock)
        d->samplerCpuSeconds = threadCpuSeconds(d->samplerClock) - d->samplerCpuAtEnable;
    d->enabled = false;
}

CpuProfile CpuProfiler::finish() {
    if (!d->opened) {
        CpuProfile profile;
        profile.requested = true;
        profile.unavailable =
            d->unavailable.empty() ? "the profile was not opened" : d->unavailable;
        return profile;
    }
    disable();
    d->stopping.store(true, std::memory_order_release);
    const uint64_t one = 1;
    (void)!write(d->wakeFd, &one, sizeof one);
    d->sampler.join();
    d->closeEvents();
    d->opened = false;
    return d->attribute();
}

} // namespace loadscope::engine
