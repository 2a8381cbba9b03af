#include "engine/load_run.h"

#include "engine/broken_pipe.h"
#include "engine/cpu_profiler.h"
#include "engine/interrupt_accounting.h"
#include "engine/load_worker.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace loadscope::engine {

using detail::LoadWorker;
using detail::monotonicNs;

namespace {

// Whose network counters a run reads (LoadSpec::netNamespaces): the client's first, so that a
// namespace the client shares with the server or the machine is named for it first.
std::vector<NetNamespaceSource> netSources(const LoadSpec& spec) {
    std::vector<NetNamespaceSource> sources{{NetRole::Client, 0}};
    if (spec.serverCpu.pid > 0)
        sources.push_back({NetRole::Server, spec.serverCpu.pid});
    sources.insert(sources.end(), spec.netNamespaces.begin(), spec.netNamespaces.end());
    sources.push_back({NetRole::Machine, 1});
    return sources;
}

} // namespace

struct LoadRun::Impl {
    explicit Impl(LoadSpec s)
        : spec(std::move(s))
        , shared(spec) {}

    LoadSpec spec;
    detail::SharedRunState shared;
    std::vector<std::unique_ptr<LoadWorker>> workers;
    std::vector<std::thread> threads;
    std::thread monitor;
    bool started = false;

    ProgressCallback onProgress;
    FinishedCallback onFinished;

    std::mutex mutex; // guards the fields below
    std::condition_variable changed;
    uint32_t workersRunning = 0;
    std::shared_ptr<const Progress> latest;
    int64_t cancelledAtNs = 0;
    RunResult result;
    int64_t lastProgressNs = 0;

    // The machine's CPU at the measured window's ends, read on the monitor
    // thread (or in start() when there is no warm-up) off the workers' path,
    // and the profile enabled at the same instants.
    std::unique_ptr<CpuSampler> cpuSampler;
    std::unique_ptr<CpuProfiler> profiler;
    CpuSample cpuAtStart;
    bool windowOpened = false;
    CpuProfile refusedProfile; // what the profile says when its events could not be opened
    // The network counters, read just before each CPU sample.
    std::unique_ptr<NetCounterSampler> netSampler;
    NetSample netAtStart;
    bool watchesWindow() const { return cpuSampler || profiler; }
    void openWindow();
    void openWindowAtMeasureStart(int64_t now);

    void monitorLoop();
    std::shared_ptr<const Progress> snapshot(int64_t now);
    void mergeResults();
};

LoadRun::LoadRun(LoadSpec spec)
    : d(std::make_unique<Impl>(std::move(spec))) {}

LoadRun::~LoadRun() {
    cancel();
    if (d->started)
        wait();
}

void LoadRun::setProgressCallback(ProgressCallback callback) {
    d->onProgress = std::move(callback);
}

void LoadRun::setFinishedCallback(FinishedCallback callback) {
    d->onFinished = std::move(callback);
}

const LoadSpec& LoadRun::spec() const {
    return d->spec;
}

void LoadRun::start() {
    if (d->started)
        return;
    d->started = true;
    if (auto problem = validateLoadSpec(d->spec)) {
        d->result.firstError = *problem;
        d->monitor = std::thread([this] {
            if (d->onFinished)
                d->onFinished();
        });
        return;
    }
    const LoadSpec& spec = d->spec;
    const uint32_t threadCount = std::min(spec.threads, spec.concurrency);
    if (spec.sampleCpu) {
        d->cpuSampler = std::make_unique<CpuSampler>(spec.serverCpu);
        d->netSampler = std::make_unique<NetCounterSampler>(netSources(spec));
    }
    if (spec.profile) {
        d->profiler = std::make_unique<CpuProfiler>(spec.serverCpu);
        // Refused (unprivileged, a user namespace): the run goes on, and
        // its profile says why there is none.
        if (!d->profiler->open()) {
            d->refusedProfile = d->profiler->finish();
            d->profiler.reset();
        }
    }
    // Without warm-up the window opens with the clock: sampled just before it
    // is read, so that reading /proc is not measured time.
    if (d->watchesWindow() && spec.warmup.count() == 0)
        d->shared.beforeClock = [impl = d.get()] {
            impl->openWindow();
        };
    d->shared.remaining = int64_t(spec.requests);
    d->shared.unready = threadCount; // the last one ready starts the clock

    // A fixed share of the connections per thread; the remainder goes one each
    // to the first threads, so no connection is dropped.
    uint32_t first = 0;
    for (uint32_t i = 0; i < threadCount; ++i) {
        const uint32_t share =
            spec.concurrency / threadCount + (i < spec.concurrency % threadCount ? 1 : 0);
        d->workers.push_back(std::make_unique<LoadWorker>(d->shared, i, first, share));
        first += share;
    }
    d->workersRunning = threadCount;
    for (auto& worker : d->workers) {
        d->threads.emplace_back([this, w = worker.get()] {
            blockBrokenPipeOnThisThread(); // https: a server gone mid-write is a counted failure
            w->run();
            std::lock_guard lock(d->mutex);
            --d->workersRunning;
            d->changed.notify_all();
        });
    }
    d->monitor = std::thread([this] { d->monitorLoop(); });
}

void LoadRun::cancel() noexcept {
    std::lock_guard lock(d->mutex);
    // A run whose workers all ended by its own bounds is complete: a cancel
    // that comes after (a Ctrl-C as the report is written) changes nothing.
    if (d->started && d->workersRunning == 0)
        return;
    if (!d->shared.stop.exchange(true))
        d->cancelledAtNs = monotonicNs();
}

RunResult LoadRun::wait() {
    if (d->monitor.joinable())
        d->monitor.join();
    return d->result;
}

std::shared_ptr<const Progress> LoadRun::latestProgress() const {
    std::lock_guard lock(d->mutex);
    return d->latest;
}

std::shared_ptr<const Progress> LoadRun::Impl::snapshot(int64_t now) {
    auto p = std::make_shared<Progress>();
    p->elapsedSeconds = double(now - shared.measureStartNs) / 1e9;
    p->warmingUp = now < shared.measureStartNs;
    p->target = spec.requests;
    p->targetSeconds = double(spec.duration.count()) / 1e9;
    p->intervalSeconds = double(now - lastProgressNs) / 1e9;
    lastProgressNs = now;
    for (auto& worker : workers) {
        auto& box = worker->mailbox();
        std::lock_guard lock(box.mutex);
        p->complete += box.complete;
        p->failed += box.failed;
        p->bytesReceived += box.bytesReceived;
        p->bytesSent += box.bytesSent;
        p->intervalComplete += box.intervalComplete;
        p->intervalLatency.merge(box.interval);
        box.interval.reset();
        box.intervalComplete = 0;
    }
    return p;
}

void detail::SharedRunState::workerReady() {
    if (unready.fetch_sub(1, std::memory_order_acq_rel) != 1) {
        awaitClock();
        return;
    }
    if (beforeClock)
        beforeClock();
    measureStartNs = monotonicNs() + spec.warmup.count();
    if (spec.duration.count() > 0)
        deadlineNs = measureStartNs + spec.duration.count();
    clockStarted.store(true, std::memory_order_release);
    clockStarted.notify_all();
}

void LoadRun::Impl::openWindow() {
    if (cpuSampler) {
        netAtStart = netSampler->sample();
        cpuAtStart = cpuSampler->sample();
    }
    if (profiler)
        profiler->enable(); // after /proc is read: the samples above are no part of the profile
    windowOpened = true;
}

void LoadRun::Impl::openWindowAtMeasureStart(int64_t now) {
    if (watchesWindow() && !windowOpened && now >= shared.measureStartNs)
        openWindow();
}

void LoadRun::Impl::monitorLoop() {
    shared.awaitClock();
    lastProgressNs = monotonicNs();
    for (;;) {
        bool done = false;
        auto timeout = spec.progressInterval;
        if (watchesWindow() && !windowOpened) {
            // Wake at the end of the warm-up, so the window starts with the measuring.
            const auto untilMeasuring = Nanoseconds(shared.measureStartNs - monotonicNs());
            timeout = std::clamp(untilMeasuring, Nanoseconds(0), timeout);
        }
        {
            std::unique_lock lock(mutex);
            done = changed.wait_for(lock, timeout, [this] { return workersRunning == 0; });
        }
        if (done)
            break;
        openWindowAtMeasureStart(monotonicNs());
        auto progress = snapshot(monotonicNs());
        {
            std::lock_guard lock(mutex);
            latest = progress;
        }
        if (onProgress)
            onProgress(progress);
    }
    for (auto& thread : threads)
        thread.join();
    // The window closes when the workers have ended: the profile first, so
    // that reading /proc below is no part of it.
    if (profiler)
        profiler->disable();
    const bool sampled = cpuSampler && cpuAtStart.valid;
    const NetSample netAtEnd = sampled ? netSampler->sample() : NetSample{};
    const CpuSample cpuAtEnd = sampled ? cpuSampler->sample() : CpuSample{};
    mergeResults();
    result.cpu = cpuWindow(cpuAtStart, cpuAtEnd, CpuSampler::ticksPerSecond());
    result.net = netWindow(netAtStart, netAtEnd);
    // After the window, never inside it: the first run of a process measures it (a few ms).
    if (result.cpu.valid)
        result.cpu.interruptsInProcessTimes = interruptsInProcessTimes();
    // Attributed after the window: reading symbols and /proc is not measured.
    result.profile = profiler ? profiler->finish() : refusedProfile;
    auto last = snapshot(monotonicNs());
    {
        std::lock_guard lock(mutex);
        latest = last;
    }
    if (onProgress)
        onProgress(last);
    if (onFinished)
        onFinished();
}

void LoadRun::Impl::mergeResults() {
    RunResult merged;
    int64_t lastCompletion = 0;
    for (auto& worker : workers) {
        accumulate(merged, worker->result());
        lastCompletion = std::max(lastCompletion, worker->lastCompletionNs());
    }
    merged.concurrency = spec.concurrency;
    merged.pinned = !spec.cpus.empty();
    merged.documentLength = shared.documentLength.load();
    merged.unreachable = shared.unreachable.load();
    const bool cancelledByUser = shared.stop.load() && !merged.unreachable;
    const int64_t end = monotonicNs();
    int64_t measuredEnd = 0;
    if (spec.requests > 0 && lastCompletion > 0 && !cancelledByUser &&
        (spec.duration.count() == 0 || lastCompletion < shared.deadlineNs)) {
        measuredEnd = lastCompletion; // as ab: until the last request ended
    } else if (spec.protocol->isStream() && lastCompletion > 0 && !cancelledByUser) {
        measuredEnd = lastCompletion; // as netperf TCP_STREAM: until the sinks closed
    } else if (cancelledByUser) {
        std::lock_guard lock(mutex);
        measuredEnd = std::min(cancelledAtNs ? cancelledAtNs : end, shared.deadlineNs);
        merged.cancelled = true;
    } else {
        measuredEnd = std::min(end, shared.deadlineNs);
    }
    merged.durationSeconds = std::max(0.0, double(measuredEnd - shared.measureStartNs) / 1e9);
    merged.measureStartNs = shared.measureStartNs;
    result = std::move(merged);
}

} // namespace loadscope::engine
