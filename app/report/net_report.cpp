#include "app/report/net_report.h"

#include <QStringList>

namespace loadscope::app {

namespace {

// "retransmits 12, SYN retransmits 3": the counters of `n` that were not 0, or "nothing lost".
QString nonZero(const NamespaceCounters& n) {
    const struct {
        const char* label;
        uint64_t value;
    } counters[] = {
        {"retransmits", n.tcpRetransmits},
        {"SYN retransmits", n.synRetransmits},
        {"listen overflows", n.listenOverflows},
        {"listen drops", n.listenDrops},
        {"timeouts", n.tcpTimeouts},
        {"resets sent", n.resetsSent},
        {"established resets", n.establishedResets},
        {"conntrack insert_failed", n.conntrackInsertFailed},
        {"conntrack drop", n.conntrackDrop},
        {"conntrack early_drop", n.conntrackEarlyDrop},
        {"conntrack invalid", n.conntrackInvalid},
        {"link drops", n.linkDropTotal()},
    };
    QStringList parts;
    for (const auto& c : counters) {
        if (c.value > 0)
            parts << QStringLiteral("%1 %2").arg(QLatin1String(c.label)).arg(c.value);
    }
    return parts.isEmpty() ? QStringLiteral("0 everywhere") : parts.join(QStringLiteral(", "));
}

} // namespace

QString formatNetBlock(const PointResult& r) {
    if (!r.net)
        return {};
    QString out = QStringLiteral("\nNetwork stack (counters over the measured window)\n");
    for (const NamespaceCounters& n : r.net->namespaces)
        out += QStringLiteral("  %1 %2\n")
                   .arg(n.roles.join(QStringLiteral(", ")) + QLatin1Char(':'), -24)
                   .arg(nonZero(n));
    if (r.net->softnet)
        out += QStringLiteral("  %1 dropped %2, time squeezes %3\n")
                   .arg(QStringLiteral("CPU backlogs:"), -24)
                   .arg(r.net->softnet->dropped)
                   .arg(r.net->softnet->timeSqueeze);
    for (const QString& note : netCounterNotes(*r.net))
        out += QStringLiteral("  ! ") + note + QLatin1Char('\n');
    return out;
}

} // namespace loadscope::app
