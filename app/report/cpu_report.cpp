#include "app/report/cpu_report.h"

#include <QStringList>

namespace loadscope::app {

namespace {

QString line(const char* label, const QString& value) {
    return QStringLiteral("%1 %2\n").arg(QLatin1String(label), -24).arg(value);
}

QString perRequest(const std::optional<double>& us) {
    return us ? QStringLiteral("%1 µs per request").arg(*us, 0, 'f', 2) : QStringLiteral("-");
}

} // namespace

QString formatCpuBlock(const PointResult& r) {
    if (!r.cpu)
        return {};
    const CpuUsage& c = *r.cpu;
    const auto pct = [&c](double seconds) {
        return c.percentOfMachine(seconds);
    };
    QString out = QStringLiteral("\nCPU (%1 CPUs over %2 s, % of the machine)\n")
                      .arg(c.cpus)
                      .arg(c.wallSeconds, 0, 'f', 2);
    out += line("  Machine:", QStringLiteral("user %1%, system %2%, softirq %3%, irq %4%, "
                                             "steal %5%, idle %6%")
                                  .arg(pct(c.user), 0, 'f', 1)
                                  .arg(pct(c.system), 0, 'f', 1)
                                  .arg(pct(c.softirq), 0, 'f', 1)
                                  .arg(pct(c.irq), 0, 'f', 1)
                                  .arg(pct(c.steal), 0, 'f', 1)
                                  .arg(pct(c.idle), 0, 'f', 1));
    out += line("  Client:", QStringLiteral("%1 s (%2%), %3")
                                 .arg(r.clientCpuSeconds, 0, 'f', 2)
                                 .arg(pct(r.clientCpuSeconds), 0, 'f', 1)
                                 .arg(perRequest(clientCpuUsPerRequest(r))));
    if (c.serverSeconds)
        out += line("  Server:", QStringLiteral("%1 s (%2%), %3")
                                     .arg(*c.serverSeconds, 0, 'f', 2)
                                     .arg(pct(*c.serverSeconds), 0, 'f', 1)
                                     .arg(perRequest(serverCpuUsPerRequest(r))));
    else
        out += line("  Server:", QStringLiteral("not measured (remote, or give --server-pid "
                                                "or --server-cgroup)"));
    out += line("  Softirq:", perRequest(softirqUsPerRequest(r)));
    if (const auto other = otherLoadPercent(r)) {
        // Which rule the figure followed (cpu_usage.h): how the kernel counts interrupts.
        QString rule;
        if (c.interruptsInProcessTimes)
            rule = *c.interruptsInProcessTimes
                       ? QStringLiteral(" (interrupts charged to the tasks they interrupted)")
                       : QStringLiteral(" (interrupt time accounted apart)");
        out += line("  Other load:",
                    QStringLiteral("%1% of the machine%2").arg(*other, 0, 'f', 1).arg(rule));
    }
    out += line("  Noise:",
                r.noise.isEmpty() ? QStringLiteral("quiet") : QStringLiteral("noisy: ") + r.noise);
    return out;
}

QString oneShotAdvice(const PointResult& r) {
    QStringList advice;
    advice << QStringLiteral("repeat it (a sweep with 3 or more repetitions): one run has no "
                             "spread to judge a difference by");
    if (!r.pinned)
        advice << QStringLiteral("pin the client (--cpus) and the server to separate CPUs");
    if (!r.noise.isEmpty())
        advice << QStringLiteral("a quieter machine (%1)").arg(r.noise);
    return QStringLiteral("To compare this tighter: ") + advice.join(QStringLiteral("; ")) +
           QStringLiteral(".\n");
}

} // namespace loadscope::app
