// Times Histogram::record() and merge(), the two operations on a load run's hot and
// end-of-run paths. Usage: histogram_bench [million-records]  (default 50)
// Build it optimised (the `release` preset); a Debug figure says nothing.

#include "engine/histogram.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <time.h>
#include <vector>

using loadscope::engine::Histogram;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The machine is shared: wall time counts whatever else ran meanwhile, the thread's CPU
// time only what this loop cost.
double threadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A buffer far smaller than the run, replayed: generating 50M values would cost more than
// recording them, and 400 MB of input would measure the memory bus instead.
constexpr size_t kBufferSize = size_t{1} << 20;

std::vector<int64_t> latencyLike(uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<double> dist(std::log(300e3), 1.2); // median 300 us
    std::vector<int64_t> values(kBufferSize);
    for (auto& v : values) {
        v = static_cast<int64_t>(dist(rng));
    }
    return values;
}

// Every bucket equally likely: the worst case for the cache.
std::vector<int64_t> wholeRange(uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> exponent(0.0, std::log2(3.6e12));
    std::vector<int64_t> values(kBufferSize);
    for (auto& v : values) {
        v = static_cast<int64_t>(std::exp2(exponent(rng)));
    }
    return values;
}

struct RecordFigure {
    double bestCpuNs;
    double medianCpuNs;
    double bestWallNs;
    uint64_t checksum;
};

RecordFigure timeRecord(const std::vector<int64_t>& values, size_t passes) {
    std::vector<double> perRecord;
    std::vector<double> wallPerRecord;
    uint64_t checksum = 0;
    for (int repetition = 0; repetition < 5; ++repetition) {
        Histogram h;
        for (int64_t v : values) { // warm the counters and the input
            h.record(v);
        }
        h.reset();
        const auto start = Clock::now();
        const double cpuStart = threadCpuSeconds();
        for (size_t pass = 0; pass < passes; ++pass) {
            for (int64_t v : values) {
                h.record(v);
            }
        }
        const double cpuSeconds = threadCpuSeconds() - cpuStart;
        const double seconds = secondsSince(start);
        const auto n = static_cast<double>(passes * values.size());
        perRecord.push_back(cpuSeconds * 1e9 / n);
        wallPerRecord.push_back(seconds * 1e9 / n);
        checksum += h.count() + static_cast<uint64_t>(h.valueAtPercentile(99.9));
    }
    std::sort(perRecord.begin(), perRecord.end());
    std::sort(wallPerRecord.begin(), wallPerRecord.end());
    return {perRecord.front(), perRecord[perRecord.size() / 2], wallPerRecord.front(), checksum};
}

// Thread CPU time per merge of one part.
double timeMergeMicroseconds(const std::vector<Histogram>& parts, int rounds) {
    const double start = threadCpuSeconds();
    uint64_t checksum = 0;
    for (int round = 0; round < rounds; ++round) {
        Histogram merged;
        for (const Histogram& part : parts) {
            merged.merge(part);
        }
        checksum += merged.count();
    }
    const double seconds = threadCpuSeconds() - start;
    if (checksum == 0) {
        std::puts("unexpected empty merge");
    }
    return seconds * 1e6 / (static_cast<double>(rounds) * static_cast<double>(parts.size()));
}

} // namespace

int main(int argc, char** argv) {
    const long millions = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 50;
    if (millions <= 0) {
        std::fprintf(stderr, "usage: %s [million-records]\n", argv[0]);
        return 2;
    }
    const auto passes = static_cast<size_t>(
        std::max<long>(1, (millions * 1'000'000 + static_cast<long>(kBufferSize) / 2) /
                              static_cast<long>(kBufferSize)));
    const size_t records = passes * kBufferSize;

    const auto latencies = latencyLike(1);
    const auto spread = wholeRange(2);

    std::printf("Histogram: %zu buckets (%zu KiB of counters)\n", Histogram::bucketCount(),
                Histogram::bucketCount() * sizeof(uint64_t) / 1024);
    for (const auto& [name, values] :
         {std::pair{"latency-like (lognormal, median 300 us)", &latencies},
          std::pair{"whole range (every bucket alike)", &spread}}) {
        const RecordFigure f = timeRecord(*values, passes);
        std::printf("record, %s: %.2f ns CPU best, %.2f ns CPU median, %.2f ns wall best;"
                    " 5 runs of %zu records [%llu]\n",
                    name, f.bestCpuNs, f.medianCpuNs, f.bestWallNs, records,
                    static_cast<unsigned long long>(f.checksum % 1000));
    }

    // Eight per-thread histograms of a run, then the same with the whole range in use.
    for (const auto& [name, values] :
         {std::pair{"latency-like", &latencies}, std::pair{"whole range", &spread}}) {
        std::vector<Histogram> parts(8);
        for (size_t i = 0; i < values->size(); ++i) {
            parts[i % parts.size()].record((*values)[i]);
        }
        const size_t usedBuckets =
            Histogram::indexFor(parts[0].max()) - Histogram::indexFor(parts[0].min()) + 1;
        const double us = timeMergeMicroseconds(parts, 200);
        std::printf("merge, %s (%zu buckets in use): %.1f us CPU per merge\n", name, usedBuckets,
                    us);

        const double start = threadCpuSeconds();
        const std::string blob = parts[0].serialize();
        const double serializeUs = (threadCpuSeconds() - start) * 1e6;
        const auto back = Histogram::deserialize(blob);
        std::printf("serialize, %s: %zu bytes for %llu values, %.0f us CPU; round trip %s\n", name,
                    blob.size(), static_cast<unsigned long long>(parts[0].count()), serializeUs,
                    back && *back == parts[0] ? "equal" : "DIFFERS");
    }
    return 0;
}
