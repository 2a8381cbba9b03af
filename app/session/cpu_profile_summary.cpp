#include "app/session/cpu_profile_summary.h"

#include "app/session/point_result.h"
#include "engine/run_rates.h"

#include <algorithm>
#include <map>

namespace loadscope::app {

namespace {

std::optional<double> perRequestUs(const PointResult& r, uint64_t samples) {
    const uint64_t successful = engine::rates::successful(r.complete, r.failed);
    if (!r.profile || !r.profile->taken() || successful == 0)
        return std::nullopt;
    return double(samples) * r.profile->periodUs / double(successful);
}

// "cc1plus [other];…": a chain of the machine's other load.
bool isOtherLoad(const std::string& frames) {
    const size_t end = frames.find(';');
    const std::string_view first = std::string_view(frames).substr(0, end);
    return first.ends_with(" [other]");
}

QString foldedText(std::vector<std::pair<QString, uint64_t>> stacks) {
    std::sort(stacks.begin(), stacks.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    QString text;
    for (const auto& [frames, samples] : stacks)
        text += frames + QLatin1Char(' ') + QString::number(samples) + QLatin1Char('\n');
    return text;
}

} // namespace

uint64_t CpuProfileSummary::roleSamples(engine::ProcessRole role) const {
    uint64_t sum = 0;
    for (const uint64_t n : counts[size_t(role)])
        sum += n;
    return sum;
}

uint64_t CpuProfileSummary::pathSamples(engine::CpuPath path) const {
    uint64_t sum = 0;
    for (size_t role = 0; role < engine::kProcessRoleCount; ++role)
        if (engine::ProcessRole(role) != engine::ProcessRole::Other)
            sum += counts[role][size_t(path)];
    return sum;
}

CpuProfileSummary summarizeProfile(const engine::CpuProfile& profile) {
    CpuProfileSummary summary;
    summary.unavailable = QString::fromStdString(profile.unavailable);
    if (!summary.taken())
        return summary;
    summary.note = QString::fromStdString(profile.note);
    summary.cpus = profile.cpus;
    summary.periodUs = double(profile.periodNs) / 1e3;
    summary.samples = profile.samples;
    summary.idleSamples = profile.idleSamples;
    summary.lostSamples = profile.lostSamples;
    summary.profilerSamples = profile.profilerSamples;
    summary.samplerCpuSeconds = profile.samplerCpuSeconds;
    summary.counts = profile.counts;
    // The point's own chains first (client, server, relays, the kernel), then
    // other load's, each most samples first, as many as the bytes allow.
    qsizetype bytes = 0;
    const auto keep = [&](bool others) {
        for (const engine::FoldedStack& stack : profile.stacks) {
            if (isOtherLoad(stack.frames) != others)
                continue;
            if (bytes + qsizetype(stack.frames.size()) > kKeptStackBytes)
                continue; // a shorter chain further down may still fit
            bytes += qsizetype(stack.frames.size());
            summary.stacks.emplace_back(QString::fromStdString(stack.frames), stack.samples);
        }
    };
    keep(false);
    keep(true);
    return summary;
}

std::optional<double> profileRoleUsPerRequest(const PointResult& r, engine::ProcessRole role) {
    return r.profile ? perRequestUs(r, r.profile->roleSamples(role)) : std::nullopt;
}

std::optional<double> profilePathUsPerRequest(const PointResult& r, engine::CpuPath path) {
    return r.profile ? perRequestUs(r, r.profile->pathSamples(path)) : std::nullopt;
}

std::optional<double> profileRoleUserUsPerRequest(const PointResult& r, engine::ProcessRole role) {
    return r.profile
               ? perRequestUs(r, r.profile->counts[size_t(role)][size_t(engine::CpuPath::User)])
               : std::nullopt;
}

std::optional<double> profileOwnUsPerRequest(const PointResult& r) {
    const uint64_t successful = engine::rates::successful(r.complete, r.failed);
    if (!r.profile || !r.profile->taken() || successful == 0)
        return std::nullopt;
    return r.profile->samplerCpuSeconds * 1e6 / double(successful);
}

QString foldedStacks(const std::vector<const PointResult*>& results) {
    std::map<QString, uint64_t> merged;
    for (const PointResult* r : results)
        if (r->profile)
            for (const auto& [frames, samples] : r->profile->stacks)
                merged[frames] += samples;
    return foldedText({merged.begin(), merged.end()});
}

QString foldedStacks(const engine::CpuProfile& profile) {
    std::vector<std::pair<QString, uint64_t>> stacks;
    stacks.reserve(profile.stacks.size());
    for (const engine::FoldedStack& stack : profile.stacks)
        stacks.emplace_back(QString::fromStdString(stack.frames), stack.samples);
    return foldedText(std::move(stacks));
}

} // namespace loadscope::app
