#pragma once

#include "app/common/result.h"
#include "app/session/target.h"
#include "app/session/target_rules.h"
#include "engine/socket_address.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <vector>

namespace loadscope::app {

// One IPv4 route of the agent's network namespace, as /proc/self/net/route
// lists it (addresses in host byte order).
struct AgentRoute {
    QString device;
    uint32_t destination = 0;
    uint32_t mask = 0;
};

// One IPv4 address of a link of the agent's network namespace (host byte order).
struct AgentLinkAddress {
    QString device;
    uint32_t address = 0;
};

// Where the agent runs, as far as its safety rule is concerned. The
// environment's variables say what the agent was told; the rest is what its
// network namespace is, which no variable can change.
struct AgentEnvironment {
    // LOADSCOPE_LAB_HOST_NETNS: the machine's own network namespace inode, set
    // by `loadscope-cli lab sandbox` for the agent it starts.
    std::optional<uint64_t> labHostNetns;
    // LOADSCOPE_LAB_RANGE: may narrow the lab's range (kLabRange), never
    // widen it; empty: the lab's range.
    QString labRange;
    uint64_t ownNetns = 0; // inode of /proc/self/ns/net; 0 when unreadable
    // Inode of PID 1's network namespace (the machine's), when this process
    // may read it (root outside a user namespace); nothing otherwise.
    std::optional<uint64_t> initNetns;
    std::vector<AgentRoute> routes;              // the namespace's IPv4 routes that are up
    std::vector<AgentLinkAddress> linkAddresses; // the namespace's links' IPv4 addresses

    static AgentEnvironment current();
};

// Nothing when the agent may send load to `address`: loopback (127.0.0.0/8,
// ::1) always; outside the lab, an address of an endpoint the run request
// allows (the remote agent's rule: only where the user chose to send load in
// the session); anything else only inside the lab, that is when all of these
// hold: LOADSCOPE_LAB_HOST_NETNS is set and the agent's own network namespace
// is neither that one nor (where it can be read) PID 1's; the namespace is
// the lab's client namespace, holding the client link wire0 with the
// client's address 10.213.0.1, or its server host's (a client placed there),
// holding wire1 or the bridge lab-wire over it with 10.213.0.2 (lab_topology.h:
// what the lab builds, not what a variable says); the address lies in the
// lab's range 10.213.0.0/16, narrowed by LOADSCOPE_LAB_RANGE when set (a range
// that is not inside the lab's is refused); and the namespace's most specific
// route to it leaves by wire0, by pod0 (the client's link on the lab's pod
// bridge) or by lab-vxlan (the client's VXLAN device, whose packets leave by
// wire0), or on the server host by wire1, lab-wire, lab-docker0 or lab-cni0. Inside the lab the
// lab's rule alone decides, whatever a request allows. Otherwise one line naming the address and
// the rule it breaks. The routes of /proc/self/net/route's text `table`: those flagged up, with
// their device, destination and mask; lines that do not parse are skipped.
std::vector<AgentRoute> parseRouteTable(const QByteArray& table);

// `allowedByRequest`: the run's endpoint is one its request allows
// (endpointAllowed()), which outside the lab also lets the agent send to that
// address, when it is one host's (not unspecified, multicast or broadcast).
// Inside the lab the lab's rule alone decides.
Result<void> checkAgentTarget(const engine::SocketAddress& address, const AgentEnvironment& env,
                              bool allowedByRequest = false);

// True when `endpoint` is one of `allow` (AgentRunRequest::allow: the
// endpoints of the targets the user chose to load from this agent's host),
// compared as written, before any name is resolved: the host without regard
// to case, the port exactly.
bool endpointAllowed(const Endpoint& endpoint, const QStringList& allow);

// Who makes a connection for a target.
enum class Connector {
    // This process, in the network namespace it was started in: the window's
    // probe, a sweep's points and preloads run in-process, the CLI's sweep.
    ThisProcess,
    // A load agent (`loadscope-cli lab agent`), inside its lab or alone.
    LoadAgent,
};

// The one gate for every outgoing connection made for a target: the window,
// the CLI and the agent ask it before anything connects (the agent once the
// address is resolved). A lab target is reached only through its lab: its
// address means something only inside the lab, and outside it 10.213.0.0/16
// leads to the machine's real network. So ThisProcess is refused a lab target
// with one line, "lab target 'host' is reached inside its lab: run the sweep";
// a load agent sends to `address` only where checkAgentTarget() lets it
// (loopback, or the lab's range from inside the lab), and is refused without
// an address or environment to check. `allowedByRequest` is checkAgentTarget()'s.
Result<void> checkConnection(const Target& target, Connector connector,
                             const engine::SocketAddress* address = nullptr,
                             const AgentEnvironment* environment = nullptr,
                             bool allowedByRequest = false);

} // namespace loadscope::app
