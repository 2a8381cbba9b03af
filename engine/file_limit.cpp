#include "engine/file_limit.h"

#include <algorithm>
#include <limits>
#include <sys/resource.h>

namespace loadscope::engine {

uint64_t raiseOpenFileLimit(uint64_t wanted) {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return std::numeric_limits<uint64_t>::max(); // cannot tell; failures are counted per
                                                     // connection
    if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
        limit.rlim_cur =
            limit.rlim_max == RLIM_INFINITY ? wanted : std::min<rlim_t>(limit.rlim_max, wanted);
        setrlimit(RLIMIT_NOFILE, &limit);
        getrlimit(RLIMIT_NOFILE, &limit);
    }
    return limit.rlim_cur == RLIM_INFINITY ? std::numeric_limits<uint64_t>::max()
                                           : uint64_t(limit.rlim_cur);
}

} // namespace loadscope::engine
