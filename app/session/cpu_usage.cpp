#include "app/session/cpu_usage.h"

#include "app/session/point_result.h"
#include "engine/run_rates.h"

#include <QStringList>
#include <algorithm>

namespace loadscope::app {

namespace {

std::optional<double> perRequestUs(const PointResult& r, std::optional<double> seconds) {
    const uint64_t successful = engine::rates::successful(r.complete, r.failed);
    if (!seconds || successful == 0)
        return std::nullopt;
    return *seconds * 1e6 / double(successful);
}

QString percent(double value) {
    return QString::number(value, 'f', 1) + QStringLiteral(" %");
}

} // namespace

double CpuUsage::percentOfMachine(double seconds) const {
    const double machine = machineSeconds();
    return machine > 0 ? 100.0 * seconds / machine : 0.0;
}

std::optional<double> serverCpuUsPerRequest(const PointResult& r) {
    return r.cpu ? perRequestUs(r, r.cpu->serverSeconds) : std::nullopt;
}

std::optional<double> softirqUsPerRequest(const PointResult& r) {
    return r.cpu ? perRequestUs(r, r.cpu->softirq) : std::nullopt;
}

std::optional<double> clientCpuUsPerRequest(const PointResult& r) {
    // Measured results always carry the client's CPU; imported ones have none.
    return r.cpu ? perRequestUs(r, r.clientCpuSeconds) : std::nullopt;
}

std::optional<double> otherLoadPercent(const PointResult& r) {
    if (!r.cpu)
        return std::nullopt;
    const CpuUsage& c = *r.cpu;
    if (c.machineSeconds() <= 0)
        return 0.0;                           // a window shorter than a clock tick saw nothing
    double tasks = c.user + c.system + c.irq; // the rule before the accounting was recorded
    if (c.interruptsInProcessTimes)
        tasks = *c.interruptsInProcessTimes
                    ? c.user + c.system + c.irq + c.softirq - c.softirqThreadSeconds.value_or(0)
                    : c.user + c.system;
    const double other =
        tasks - c.clientSecondsHere.value_or(r.clientCpuSeconds) - c.serverSeconds.value_or(0);
    return std::clamp(c.percentOfMachine(other), 0.0, 100.0);
}

QString noiseReason(const CpuUsage& cpu, std::optional<double> otherLoad, double thresholdPercent) {
    QStringList reasons;
    if (otherLoad && *otherLoad > thresholdPercent)
        reasons << QStringLiteral("other load %1 of the machine (threshold %2)")
                       .arg(percent(*otherLoad), percent(thresholdPercent));
    const double steal = cpu.percentOfMachine(cpu.steal);
    if (steal > kStealNoisePercent)
        reasons
            << QStringLiteral("steal %1 (the hypervisor ran something else)").arg(percent(steal));
    if (cpu.frequencyChanged)
        reasons << QStringLiteral("CPU frequency changed");
    return reasons.join(QStringLiteral("; "));
}

void judgeNoise(PointResult& r, double thresholdPercent) {
    if (r.cpu)
        r.noise = noiseReason(*r.cpu, otherLoadPercent(r), thresholdPercent);
}

} // namespace loadscope::app
