#pragma once

#include "engine/load_spec.h"
#include "engine/progress.h"
#include "engine/run_result.h"

#include <functional>
#include <memory>

namespace loadscope::engine {

// One load run on its own worker threads (one epoll loop each) plus a monitor
// thread that publishes Progress snapshots. start() returns at once; the run
// ends by itself at its request count or duration, or within 100 ms of cancel().
class LoadRun {
public:
    using ProgressCallback = std::function<void(std::shared_ptr<const Progress>)>;
    using FinishedCallback = std::function<void()>;

    explicit LoadRun(LoadSpec spec);
    ~LoadRun(); // cancels and joins
    LoadRun(const LoadRun&) = delete;
    LoadRun& operator=(const LoadRun&) = delete;

    // Both are called on the monitor thread; set them before start().
    void setProgressCallback(ProgressCallback callback);
    void setFinishedCallback(FinishedCallback callback);

    void start();
    void cancel() noexcept; // any thread
    // Blocks until every thread has ended, then returns the merged result.
    RunResult wait();
    std::shared_ptr<const Progress> latestProgress() const;

    const LoadSpec& spec() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace loadscope::engine
