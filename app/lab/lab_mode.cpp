#include "app/lab/lab_mode.h"

#include <array>
#include <optional>

namespace loadscope::app::lab {

namespace {

// A mode the session knows shares its identifier (deploymentModeId), so that the two lists
// cannot drift apart; only the lab's own modes name theirs here.
struct ModeName {
    LabMode mode;
    std::optional<DeploymentMode> deployment;
    const char* ownId;            // the identifier of a mode the session does not know, or nullptr
    const char* alias;            // what users type for it, or nullptr
    const char* title;            // UTF-8
    const char* path;             // UTF-8, from the server host's end of the wire
    const char* mimics = nullptr; // UTF-8: what it imitates and leaves out, or nullptr
};

constexpr std::array<ModeName, 14> kNames{{
    {LabMode::Host, DeploymentMode::Host, nullptr, nullptr, "Host", "host"},
    {LabMode::HostNetwork, DeploymentMode::ContainerHostNetwork, nullptr, "host-network",
     "Container on the host network", "host (own mount, PID, UTS and cgroup namespaces)"},
    {LabMode::Nat, DeploymentMode::ContainerNat, nullptr, "nat", "NAT (nftables DNAT)",
     "DNAT → bridge → veth"},
    {LabMode::UserlandProxy, DeploymentMode::UserlandProxy, nullptr, nullptr, "Userland proxy",
     "proxy → bridge → veth"},
    {LabMode::Bridge, DeploymentMode::LinuxBridge, nullptr, "bridge", "Linux bridge",
     "bridge → veth"},
    {LabMode::Ovs, DeploymentMode::OvsBridge, nullptr, "ovs", "OVS (userspace datapath)",
     "OVS bridge (userspace datapath) → veth"},
    {LabMode::Macvlan, DeploymentMode::Macvlan, nullptr, nullptr, "macvlan (bridge mode)",
     "macvlan"},
    {LabMode::Ipvlan, DeploymentMode::Ipvlan, nullptr, nullptr, "ipvlan (L2)", "ipvlan"},
    {LabMode::RootlessNat, DeploymentMode::RootlessNat, nullptr, nullptr,
     "Rootless NAT (slirp4netns)", "slirp4netns → tap"},
    {LabMode::ClusterIp, DeploymentMode::ClusterIp, nullptr, nullptr,
     "Kubernetes ClusterIP (nftables DNAT, numgen over N pods)",
     "DNAT (numgen random mod N) → pod bridge → veth",
     "mimics a Service's virtual address as kube-proxy's nftables mode builds it: the address "
     "DNATed to one of N backend pods (server option backends, default 3) with equal probability, "
     "chosen per connection (conntrack); leaves out the client's own node (the client reaches the "
     "address from the wire, as traffic routed through the node), endpoints on other nodes, "
     "session affinity, health checks and the masquerade of hairpin traffic"},
    {LabMode::PodBridge, DeploymentMode::PodBridge, nullptr, nullptr,
     "Kubernetes pods on one node's bridge", "client pod's veth → pod bridge → veth",
     "mimics two pods on one node as the CNI bridge plugin joins them (a veth each on the node's "
     "bridge, the same subnet, no NAT); leaves out the client pod's own namespace (the client "
     "namespace gets a second link, pod0, on the bridge), IPAM, network policy and kube-proxy"},
    {LabMode::NodePort, DeploymentMode::NodePort, nullptr, nullptr,
     "Kubernetes NodePort (nftables DNAT, masquerade)",
     "DNAT (node port, numgen) → masquerade → pod bridge → veth",
     "mimics a NodePort Service with externalTrafficPolicy Cluster as kube-proxy's nftables mode "
     "builds it: a port of the node's own addresses (fib daddr type local) DNATed through the "
     "Service's numgen choice to its endpoint pod, the packet marked and masqueraded to the "
     "node's address; leaves out endpoints on other nodes (one pod, on this node), "
     "externalTrafficPolicy Local and its health check port, and the Service's ClusterIP"},
    {LabMode::OverlayVxlan, DeploymentMode::OverlayVxlan, nullptr, nullptr,
     "Kubernetes overlay (VXLAN)",
     "VXLAN device → UDP 4789 over the wire → VXLAN device → pod "
     "bridge → veth",
     "mimics pod to pod across two nodes over flannel's VXLAN backend: the client's node and the "
     "server's (the server host) each with a VXLAN device (VNI 1, UDP 4789) over the wire, its MTU "
     "the wire's less the 50 bytes of encapsulation, the pod's route through it; leaves out the "
     "client pod's own namespace (the client namespace is the client's node), flannel's daemon, "
     "subnet leases and learned neighbours (the one peer is static)"},
    {LabMode::Sidecar, DeploymentMode::Sidecar, nullptr, nullptr,
     "Kubernetes pod with a sidecar proxy (embedded relay)",
     "pod bridge → veth → nftables redirect → sidecar proxy → localhost → server",
     "mimics a service mesh's inbound capture: in the pod's namespace an nftables redirect of the "
     "server's port to the proxy's (15006, as Istio's), the proxy forwarding each connection to "
     "the "
     "server on 127.0.0.1; the proxy is the embedded relay (serve proxy), and the pod's server CPU "
     "is the server's and the proxy's together, as a pod's is; leaves out the mesh's control "
     "plane, mutual TLS, HTTP-aware routing and telemetry, the outbound capture, and Envoy or "
     "HAProxy themselves"},
}};

const ModeName* nameOf(LabMode mode) {
    for (const ModeName& name : kNames) {
        if (name.mode == mode)
            return &name;
    }
    return nullptr;
}

QString idOf(const ModeName& name) {
    return name.deployment ? deploymentModeId(*name.deployment) : QString::fromLatin1(name.ownId);
}

} // namespace

const std::vector<LabMode>& labModes() {
    static const std::vector<LabMode> modes = [] {
        std::vector<LabMode> all;
        for (const ModeName& name : kNames)
            all.push_back(name.mode);
        return all;
    }();
    return modes;
}

QString labModeId(LabMode mode) {
    const ModeName* name = nameOf(mode);
    return name ? idOf(*name) : QString();
}

std::optional<LabMode> labModeFromId(QStringView id) {
    for (const ModeName& name : kNames) {
        if (id == idOf(name) || (name.alias && id == QLatin1String(name.alias)))
            return name.mode;
    }
    return std::nullopt;
}

std::optional<DeploymentMode> deploymentModeOf(LabMode mode) {
    const ModeName* name = nameOf(mode);
    return name ? name->deployment : std::nullopt;
}

QString labModeTitle(LabMode mode) {
    const ModeName* name = nameOf(mode);
    return name ? QString::fromUtf8(name->title) : QString();
}

QString labModePath(LabMode mode) {
    const ModeName* name = nameOf(mode);
    return name ? QString::fromUtf8(name->path) : QString();
}

bool labModePathFromWire(LabMode mode) {
    return mode != LabMode::PodBridge && mode != LabMode::OverlayVxlan;
}

QString labModeServerHostPath(LabMode mode) {
    switch (mode) {
    case LabMode::Host:
    case LabMode::HostNetwork:
        return QStringLiteral("localhost → ") + labModePath(mode);
    case LabMode::Nat:
        return QStringLiteral(
            "localhost → DNAT (output hook, route_localnet) → masquerade → bridge → veth");
    case LabMode::UserlandProxy:
        return QStringLiteral("localhost → relay → bridge → veth");
    case LabMode::Bridge:
    case LabMode::Sidecar:
        return QStringLiteral("host → ") + labModePath(mode);
    case LabMode::PodBridge:
        return QStringLiteral("host → pod bridge → veth");
    case LabMode::RootlessNat:
        return QStringLiteral("own address → ") + labModePath(mode);
    case LabMode::ClusterIp:
        return QStringLiteral("DNAT (output hook, numgen random mod N) → pod bridge → veth");
    case LabMode::NodePort:
        return QStringLiteral("own address → DNAT (output hook, node port, numgen) → masquerade → "
                              "pod bridge → veth");
    case LabMode::Ovs:
    case LabMode::Macvlan:
    case LabMode::Ipvlan:
    case LabMode::OverlayVxlan:
        break;
    }
    return {};
}

QString labModeMimics(LabMode mode) {
    const ModeName* name = nameOf(mode);
    return name && name->mimics ? QString::fromUtf8(name->mimics) : QString();
}

} // namespace loadscope::app::lab
