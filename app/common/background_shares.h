#pragma once

#include <cstddef>
#include <functional>

// Work over many items (the results of a large session file) cut into one
// share per core, each on a thread of its own below the process's other
// threads in niceness (+5): the window's event loop, waking every few
// milliseconds meanwhile, gets a core at once instead of waiting out a
// worker's time slice (stalls of 50-140 ms were seen while ten thousand
// results were read on both cores of a busy machine). Within the process's
// scheduling group only, so it costs the work nothing against other programs.
namespace loadscope::app {

// Calls `work(begin, end)` for consecutive ranges covering [0, count), in
// parallel when there are at least 2 * `minPerThread` items, otherwise once on
// this thread; returns when every call has.
void runInBackgroundShares(size_t count, size_t minPerThread,
                           const std::function<void(size_t begin, size_t end)>& work);

} // namespace loadscope::app
