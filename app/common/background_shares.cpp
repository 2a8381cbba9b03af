#include "app/common/background_shares.h"

#include <algorithm>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace loadscope::app {

namespace {

constexpr int kShareNice = 5;

} // namespace

void runInBackgroundShares(size_t count, size_t minPerThread,
                           const std::function<void(size_t begin, size_t end)>& work) {
    const size_t threads = std::clamp<size_t>(count / std::max<size_t>(minPerThread, 1), 1,
                                              std::max(1u, std::thread::hardware_concurrency()));
    if (threads == 1) {
        work(0, count);
        return;
    }
    const size_t share = (count + threads - 1) / threads;
    std::vector<std::thread> helpers;
    for (size_t t = 0; t < threads; ++t) {
        helpers.emplace_back([&work, t, share, count] {
            // Only this thread's: on Linux a thread's id names it alone.
            (void)setpriority(PRIO_PROCESS, id_t(gettid()), kShareNice);
            work(std::min(count, t * share), std::min(count, (t + 1) * share));
        });
    }
    for (std::thread& helper : helpers)
        helper.join();
}

} // namespace loadscope::app
