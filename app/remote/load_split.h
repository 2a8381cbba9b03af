#pragma once

#include "app/common/result.h"

#include <cstdint>
#include <vector>

namespace loadscope::app {

// One host's part of a point whose load comes from several hosts.
struct LoadShare {
    int concurrency = 0;
    double rate = 0;       // requests/s; 0: closed loop
    uint64_t requests = 0; // a counted point's share; 0: a timed point
};

// The rule (DESIGN.md "Load from several hosts"), as the engine splits a run
// over its threads: each of `hosts` hosts gets concurrency / hosts connections,
// the remainder one each to the first hosts; a fixed rate and a request count
// go in proportion to the connections, a count's remainder one request each to
// the first hosts, so that the shares add up to the whole exactly. Refused
// when there are fewer connections than hosts (a host would send nothing).
Result<std::vector<LoadShare>> splitLoad(int concurrency, double rate, uint64_t requests,
                                         int hosts);

} // namespace loadscope::app
