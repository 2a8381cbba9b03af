#pragma once

#include "engine/cpu_profile.h"

#include <QString>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace loadscope::app {

struct PointResult;

// A point's CPU profile as a result keeps it (engine::CpuProfile): the
// samples by process role and kernel path, the profile's own cost, and the
// call chains with the most samples. Plain value; absent from a result that
// was not profiled.
struct CpuProfileSummary {
    // Asked for but not taken: why, with what to change. Empty when taken.
    QString unavailable;
    QString note; // said of a profile taken (kernel symbols hidden, ...)
    int cpus = 0;
    double periodUs = 0; // CPU time one sample stands for
    uint64_t samples = 0;
    uint64_t idleSamples = 0;
    uint64_t lostSamples = 0;
    uint64_t profilerSamples = 0;
    double samplerCpuSeconds = 0;
    engine::RolePathCounts counts{};
    // Folded call chains ("nginx [server];[nginx];entry_SYSCALL_64;…") and
    // their samples: the point's own (every role's but other's) most samples
    // first, then other load's, as many as kKeptStackBytes hold.
    std::vector<std::pair<QString, uint64_t>> stacks;

    bool taken() const { return unavailable.isEmpty(); }
    uint64_t roleSamples(engine::ProcessRole role) const;
    // Every role's samples on the path but other's (engine::CpuProfile::pathSamples).
    uint64_t pathSamples(engine::CpuPath path) const;

    friend bool operator==(const CpuProfileSummary&, const CpuProfileSummary&) = default;
};

// The call chains a result keeps, by the bytes of their text: enough for the
// few chains that hold most samples, so that a session of ten thousand
// profiled results grows by less than half.
inline constexpr qsizetype kKeptStackBytes = 1024;

// The summary of an engine profile, its chains cut to kKeptStackBytes (a
// chain longer than that is left out).
CpuProfileSummary summarizeProfile(const engine::CpuProfile& profile);

// µs of CPU per successful request (per transaction, per op): of a role, of a
// path over every role but other, and of a role's user-space time; nullopt
// without a profile or a success.
std::optional<double> profileRoleUsPerRequest(const PointResult& r, engine::ProcessRole role);
std::optional<double> profilePathUsPerRequest(const PointResult& r, engine::CpuPath path);
std::optional<double> profileRoleUserUsPerRequest(const PointResult& r, engine::ProcessRole role);
// The profile's own cost: its sampler thread's CPU per request.
std::optional<double> profileOwnUsPerRequest(const PointResult& r);

// The folded stacks of results, merged ("frames count" lines, most samples
// first): what FlameGraph's flamegraph.pl and speedscope read.
QString foldedStacks(const std::vector<const PointResult*>& results);
QString foldedStacks(const engine::CpuProfile& profile);

} // namespace loadscope::app
