#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace loadscope::engine {
struct NetWindow;
}

namespace loadscope::app {

// A link's dropped packets over a window (/proc/net/dev's drop columns).
struct LinkDropCounts {
    uint64_t received = 0;
    uint64_t sent = 0;

    friend bool operator==(const LinkDropCounts&, const LinkDropCounts&) = default;
};

// One network namespace's counters over a point's measured window (engine/net_counters.h):
// what its TCP stack retransmitted and refused, what conntrack dropped, what its links
// dropped. Plain value.
struct NamespaceCounters {
    // Whose namespace it is: "client", "server", "server host", "machine"; one namespace that
    // several share is one entry with all of them (a loopback point: client, server, machine).
    QStringList roles;
    uint64_t netns = 0; // an id of the namespace on its machine, 0 when unknown
    uint64_t tcpRetransmits = 0;
    uint64_t synRetransmits = 0;
    uint64_t listenOverflows = 0;
    uint64_t listenDrops = 0;
    uint64_t tcpTimeouts = 0;
    uint64_t resetsSent = 0;
    uint64_t establishedResets = 0;
    bool conntrack = false; // the namespace has conntrack's statistics
    uint64_t conntrackInsertFailed = 0;
    uint64_t conntrackDrop = 0;
    uint64_t conntrackEarlyDrop = 0;
    uint64_t conntrackInvalid = 0;
    std::map<QString, LinkDropCounts> linkDrops; // the links that dropped packets, by name

    uint64_t linkDropTotal() const;
    // Only the machine's: neither client's nor server's (a lab point's machine namespace,
    // which the point's traffic never crosses).
    bool machineOnly() const;

    friend bool operator==(const NamespaceCounters&, const NamespaceCounters&) = default;
};

// The CPUs' receive backlogs over the window: the machine's, whatever the namespace.
struct SoftnetCounts {
    uint64_t dropped = 0;
    uint64_t timeSqueeze = 0;

    friend bool operator==(const SoftnetCounts&, const SoftnetCounts&) = default;
};

// The network stack's counters over a point's window, in every namespace it used.
struct NetCounterWindow {
    std::vector<NamespaceCounters> namespaces;
    std::optional<SoftnetCounts> softnet;

    // The point's own namespaces added up (all but machineOnly() ones): the figures the CSV
    // columns carry. No roles; each link named "roles:link".
    NamespaceCounters pointTotals() const;

    friend bool operator==(const NetCounterWindow&, const NetCounterWindow&) = default;
};

// nullopt when the engine did not sample the window.
std::optional<NetCounterWindow> netCounterWindow(const engine::NetWindow& window);

// What the counters say that matters, one line each: lost and refused packets in the point's
// namespaces ("conntrack dropped 312 packets (server host): its table was full"). Resets,
// timeouts alone, conntrack's invalid packets and time squeezes are figures, not lines.
// Empty when nothing was lost.
QStringList netCounterNotes(const NetCounterWindow& window);
// The notes as one mark on a point ("…; …"), empty without a window or anything lost: the Run
// log's note, the Compare table's mark, the CSVs' net_notes.
QString netCounterMark(const std::optional<NetCounterWindow>& window);

} // namespace loadscope::app
