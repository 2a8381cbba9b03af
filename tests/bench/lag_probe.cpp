#include "tests/bench/lag_probe.h"

#include <algorithm>
#include <cstdio>
#include <sys/resource.h>

namespace loadscope::bench {

double percentile(std::vector<double> values, double p) {
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const auto rank =
        size_t(std::clamp(p / 100 * double(values.size()), 1.0, double(values.size())) - 1);
    return values[rank];
}

LagProbe::LagProbe(QObject* parent)
    : QObject(parent) {
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(kIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &LagProbe::tick);
}

void LagProbe::start() {
    m_clock.start();
    m_last = 0;
    m_timer.start();
}

double LagProbe::maxLagMs() const {
    return m_lags.empty() ? 0.0 : *std::max_element(m_lags.begin(), m_lags.end());
}

void LagProbe::tick() {
    const double now = double(m_clock.nsecsElapsed()) / 1e6;
    m_lags.push_back(std::max(0.0, now - m_last - kIntervalMs));
    m_ticks.push_back(now);
    m_last = now;
}

void printLargestLags(const LagProbe& probe, const std::vector<ProbeEvent>& events) {
    std::vector<size_t> order(probe.lagsMs().size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return probe.lagsMs()[a] > probe.lagsMs()[b]; });
    order.resize(std::min<size_t>(order.size(), 5));
    for (size_t i : order) {
        const double end = probe.ticksMs()[i];
        const double start = end - probe.lagsMs()[i] - 10;
        QString near;
        for (const ProbeEvent& event : events) {
            if (event.atMs >= start - 20 && event.atMs <= end + 5)
                near += QStringLiteral(" [%1 at %2 ms]").arg(event.what).arg(event.atMs, 0, 'f', 0);
        }
        std::printf("    lag %.1f ms ending at %.0f ms%s\n", probe.lagsMs()[i], end,
                    qPrintable(near));
    }
}

double processCpuMs() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto ms = [](const timeval& t) {
        return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3;
    };
    return ms(usage.ru_utime) + ms(usage.ru_stime);
}

} // namespace loadscope::bench
