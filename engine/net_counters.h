#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The network stack's own counters over a measured window, per network namespace: what the
// kernel retransmitted, refused and dropped while a point ran. The same counters `nstat` reads
// (/proc/net/snmp, /proc/net/netstat), conntrack's statistics (/proc/net/stat/nf_conntrack),
// the links' drops (/proc/net/dev) and the CPUs' backlog (/proc/net/softnet_stat). Another
// namespace is read through /proc/PID/net of a process inside it, never by entering it.
namespace loadscope::engine {

// Whose namespace a source is; a namespace several roles share is read once, with all of them.
enum class NetRole { Client, Server, ServerHost, Machine };
std::string_view netRoleName(NetRole role); // "client", "server", "server host", "machine"
std::optional<NetRole> netRoleFromName(std::string_view name);

// A process whose network namespace is read; pid 0: the sampling thread's own (the client's:
// the workers run in the namespace of the thread that started them).
struct NetNamespaceSource {
    NetRole role = NetRole::Client;
    int pid = 0;
};

// A link's dropped packets (/proc/net/dev's drop columns).
struct LinkDrops {
    std::string name;
    uint64_t received = 0;
    uint64_t sent = 0;
};

// One namespace's counters: totals since boot in a sample, differences in a window.
struct NetCounters {
    uint64_t tcpRetransmits = 0;    // Tcp RetransSegs: segments sent again
    uint64_t synRetransmits = 0;    // TcpExt TCPSynRetrans: SYNs (and SYN-ACKs) sent again
    uint64_t listenOverflows = 0;   // TcpExt ListenOverflows: a listener's accept queue full
    uint64_t listenDrops = 0;       // TcpExt ListenDrops: SYNs and handshakes a listener dropped
    uint64_t tcpTimeouts = 0;       // TcpExt TCPTimeouts: retransmission timers that fired
    uint64_t resetsSent = 0;        // Tcp OutRsts
    uint64_t establishedResets = 0; // Tcp EstabResets: connections reset once established
    // /proc/net/stat/nf_conntrack, summed over the CPUs; absent without conntrack.
    bool conntrack = false;
    uint64_t conntrackInsertFailed = 0; // an entry that clashed with another being inserted
    uint64_t conntrackDrop = 0;         // packets dropped: no entry could be made (table full)
    uint64_t conntrackEarlyDrop = 0;    // entries evicted to make room in a full table
    uint64_t conntrackInvalid = 0;      // packets conntrack could not track
    std::vector<LinkDrops> links;       // every link of the namespace, in /proc/net/dev order

    uint64_t linkDrops() const;
};

// What one namespace said at one moment.
struct NetNamespaceSample {
    std::vector<NetRole> roles;
    // An id of the namespace: the inode of its /proc/PID/net/snmp, one per namespace (0: none).
    uint64_t id = 0;
    bool valid = false; // its counters could be read
    NetCounters counters;
};

// The CPUs' receive backlogs (/proc/net/softnet_stat), summed over the CPUs: not a
// namespace's but the machine's.
struct SoftnetCounters {
    uint64_t dropped = 0;     // packets dropped: a CPU's backlog was full (netdev_max_backlog)
    uint64_t timeSqueeze = 0; // receive work left for later: its budget or time ran out
};

struct NetSample {
    bool valid = false;
    std::vector<NetNamespaceSample> namespaces;
    std::optional<SoftnetCounters> softnet;
};

// The difference between two samples, per namespace (those read at both ends).
struct NetWindow {
    bool valid = false;
    std::vector<NetNamespaceSample> namespaces;
    std::optional<SoftnetCounters> softnet;
};

// Parsers of the files' text; each leaves what it does not find as it was.
// /proc/net/snmp and /proc/net/netstat: pairs of lines, names then values ("Tcp: ...").
void parseSnmp(std::string_view text, NetCounters& into);
// /proc/net/stat/nf_conntrack: a header naming the columns, a line per CPU in hex.
bool parseConntrackStat(std::string_view text, NetCounters& into);
// /proc/net/dev: a line per link.
std::vector<LinkDrops> parseNetDev(std::string_view text);
// /proc/net/softnet_stat: a line per CPU in hex (processed, dropped, time_squeeze, ...).
std::optional<SoftnetCounters> parseSoftnetStat(std::string_view text);

// Reads the namespaces of its sources, at the instants the CPU is sampled (LoadRun's monitor).
class NetCounterSampler {
public:
    explicit NetCounterSampler(std::vector<NetNamespaceSource> sources);
    NetSample sample() const;

private:
    std::vector<NetNamespaceSource> m_sources;
};

// The window between `start` and `end`; counters that went down (a namespace replaced under
// the same id) count as 0.
NetWindow netWindow(const NetSample& start, const NetSample& end);

} // namespace loadscope::engine
