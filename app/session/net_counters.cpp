#include "app/session/net_counters.h"

#include "engine/net_counters.h"

#include <algorithm>

namespace loadscope::app {

namespace {

// "1 packet", "312 packets".
QString count(uint64_t n, const char* one, const char* many) {
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

QString where(const NamespaceCounters& n) {
    return QStringLiteral(" (") + n.roles.join(QStringLiteral(", ")) + QLatin1Char(')');
}

void addNamespaceNotes(const NamespaceCounters& n, QStringList& notes) {
    if (n.tcpRetransmits > 0) {
        QString line = count(n.tcpRetransmits, "TCP segment", "TCP segments") +
                       QStringLiteral(" retransmitted") + where(n);
        if (n.tcpTimeouts > 0)
            line += QStringLiteral(", ") +
                    count(n.tcpTimeouts, "retransmission timeout", "retransmission timeouts");
        notes << line;
    }
    if (n.synRetransmits > 0)
        notes << count(n.synRetransmits, "SYN", "SYNs") + QStringLiteral(" retransmitted") +
                     where(n) + QStringLiteral(": each kept a connection waiting a second or more");
    if (n.listenDrops > 0 || n.listenOverflows > 0) {
        QString line = count(std::max(n.listenDrops, n.listenOverflows), "connection attempt",
                             "connection attempts") +
                       QStringLiteral(" dropped by a listener") + where(n);
        if (n.listenOverflows > 0)
            line += QStringLiteral(": its accept queue was full (the server's backlog, "
                                   "net.core.somaxconn)");
        notes << line;
    }
    if (n.conntrackDrop > 0)
        notes << QStringLiteral("conntrack dropped ") +
                     count(n.conntrackDrop, "packet", "packets") + where(n) +
                     QStringLiteral(": its table was full (nf_conntrack_max)");
    if (n.conntrackEarlyDrop > 0)
        notes << QStringLiteral("conntrack evicted ") +
                     count(n.conntrackEarlyDrop, "entry", "entries") + where(n) +
                     QStringLiteral(" to make room: its table was full (nf_conntrack_max)");
    if (n.conntrackInsertFailed > 0)
        notes << QStringLiteral("conntrack could not insert ") +
                     count(n.conntrackInsertFailed, "entry", "entries") + where(n) +
                     QStringLiteral(": two connections clashed on one address and port");
    for (const auto& [name, drops] : n.linkDrops)
        notes << QStringLiteral("link %1 dropped ").arg(name) +
                     count(drops.received + drops.sent, "packet", "packets") + where(n);
}

} // namespace

uint64_t NamespaceCounters::linkDropTotal() const {
    uint64_t total = 0;
    for (const auto& [name, drops] : linkDrops)
        total += drops.received + drops.sent;
    return total;
}

bool NamespaceCounters::machineOnly() const {
    return roles == QStringList{QStringLiteral("machine")};
}

NamespaceCounters NetCounterWindow::pointTotals() const {
    NamespaceCounters t;
    for (const NamespaceCounters& n : namespaces) {
        if (n.machineOnly())
            continue;
        t.tcpRetransmits += n.tcpRetransmits;
        t.synRetransmits += n.synRetransmits;
        t.listenOverflows += n.listenOverflows;
        t.listenDrops += n.listenDrops;
        t.tcpTimeouts += n.tcpTimeouts;
        t.resetsSent += n.resetsSent;
        t.establishedResets += n.establishedResets;
        t.conntrack = t.conntrack || n.conntrack;
        t.conntrackInsertFailed += n.conntrackInsertFailed;
        t.conntrackDrop += n.conntrackDrop;
        t.conntrackEarlyDrop += n.conntrackEarlyDrop;
        t.conntrackInvalid += n.conntrackInvalid;
        for (const auto& [name, drops] : n.linkDrops)
            t.linkDrops[n.roles.join(QLatin1Char(',')) + QLatin1Char(':') + name] = drops;
    }
    return t;
}

std::optional<NetCounterWindow> netCounterWindow(const engine::NetWindow& window) {
    if (!window.valid)
        return std::nullopt;
    NetCounterWindow w;
    for (const engine::NetNamespaceSample& sample : window.namespaces) {
        NamespaceCounters n;
        for (const engine::NetRole role : sample.roles) {
            const std::string_view name = engine::netRoleName(role);
            n.roles << QString::fromLatin1(name.data(), qsizetype(name.size()));
        }
        n.netns = sample.id;
        const engine::NetCounters& c = sample.counters;
        n.tcpRetransmits = c.tcpRetransmits;
        n.synRetransmits = c.synRetransmits;
        n.listenOverflows = c.listenOverflows;
        n.listenDrops = c.listenDrops;
        n.tcpTimeouts = c.tcpTimeouts;
        n.resetsSent = c.resetsSent;
        n.establishedResets = c.establishedResets;
        n.conntrack = c.conntrack;
        n.conntrackInsertFailed = c.conntrackInsertFailed;
        n.conntrackDrop = c.conntrackDrop;
        n.conntrackEarlyDrop = c.conntrackEarlyDrop;
        n.conntrackInvalid = c.conntrackInvalid;
        for (const engine::LinkDrops& link : c.links) {
            if (link.received + link.sent > 0)
                n.linkDrops[QString::fromStdString(link.name)] = {link.received, link.sent};
        }
        w.namespaces.push_back(std::move(n));
    }
    if (window.softnet)
        w.softnet = SoftnetCounts{window.softnet->dropped, window.softnet->timeSqueeze};
    return w;
}

QStringList netCounterNotes(const NetCounterWindow& window) {
    QStringList notes;
    for (const NamespaceCounters& n : window.namespaces) {
        // The machine's own namespace carries none of a lab point's traffic: its counters are
        // everyone else's, kept as figures.
        if (!n.machineOnly())
            addNamespaceNotes(n, notes);
    }
    if (window.softnet && window.softnet->dropped > 0)
        notes << count(window.softnet->dropped, "packet", "packets") +
                     QStringLiteral(" dropped on arrival (machine): a CPU's receive backlog was "
                                    "full (net.core.netdev_max_backlog)");
    return notes;
}

QString netCounterMark(const std::optional<NetCounterWindow>& window) {
    return window ? netCounterNotes(*window).join(QStringLiteral("; ")) : QString();
}

} // namespace loadscope::app
