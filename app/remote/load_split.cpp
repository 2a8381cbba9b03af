#include "app/remote/load_split.h"

#include <QString>

namespace loadscope::app {

Result<std::vector<LoadShare>> splitLoad(int concurrency, double rate, uint64_t requests,
                                         int hosts) {
    if (hosts < 1)
        return invalidInput(QStringLiteral("no host to send the load from"));
    if (concurrency < hosts)
        return invalidInput(QStringLiteral("%1 connections cannot be split over %2 hosts: each "
                                           "host needs one at least")
                                .arg(concurrency)
                                .arg(hosts));
    std::vector<LoadShare> shares(static_cast<size_t>(hosts));
    uint64_t requestsGiven = 0;
    for (int i = 0; i < hosts; ++i) {
        LoadShare& share = shares[size_t(i)];
        share.concurrency = concurrency / hosts + (i < concurrency % hosts ? 1 : 0);
        const double part = double(share.concurrency) / double(concurrency);
        share.rate = rate * part;
        // Exact integers: requests x connections stays far below 2^64 for any
        // count and concurrency a plan accepts.
        share.requests = requests * uint64_t(share.concurrency) / uint64_t(concurrency);
        requestsGiven += share.requests;
    }
    for (size_t i = 0; requestsGiven < requests; i = (i + 1) % shares.size()) {
        ++shares[i].requests;
        ++requestsGiven;
    }
    return shares;
}

} // namespace loadscope::app
