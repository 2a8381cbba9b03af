#include "app/lab/lab_topology.h"

#include "app/lab/docker_proxy.h"
#include "app/lab/netns_command.h"
#include "app/lab/ovs_switch.h"
#include "app/lab/slirp_network.h"
#include "app/session/target_rules.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace loadscope::app::lab {

namespace {

constexpr const char* kDockerGateway = "10.213.1.1";
constexpr const char* kOvsBridge = "lab-ovs";
// A Kubernetes node's pod network: the CNI bridge plugin's bridge and gateway, and the Service
// range a ClusterIP comes from (routed to the node from the client's side of the wire).
constexpr const char* kPodGateway = "10.213.2.1";
constexpr const char* kServiceRange = "10.213.3.0/24";
constexpr const char* kClusterIp = "10.213.3.10";
constexpr uint16_t kClusterIpPort = 80;
constexpr const char* kClientPodAddress = "10.213.2.2";
// The port kube-proxy's first NodePort would get (the range is 30000-32767), and the mark it
// sets on what it masquerades.
constexpr uint16_t kNodePort = 30080;
constexpr const char* kMasqueradeMark = "0x4000";
// Where a mesh's sidecar takes the pod's inbound traffic (Istio's inbound capture port).
constexpr uint16_t kSidecarPort = 15006;

// Each mode reached on the server host's own address has a host port of its own.
uint16_t hostPort(LabMode mode) {
    switch (mode) {
    case LabMode::Host:
        return 8080;
    case LabMode::HostNetwork:
        return 8081;
    case LabMode::Nat:
        return 8082;
    case LabMode::UserlandProxy:
        return 8083;
    case LabMode::RootlessNat:
        return 8084;
    case LabMode::NodePort:
        return kNodePort;
    case LabMode::ClusterIp:
        return kClusterIpPort;
    default:
        return kServicePort;
    }
}

std::string ns(int fd) {
    return "{ns:" + std::to_string(fd) + "}";
}

Result<void> ip(int netns, std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), "ip");
    auto ran = runInNetns(netns, std::move(arguments));
    if (!ran)
        return ran.error();
    return {};
}

} // namespace

LabTopology::LabTopology(std::string cliPath)
    : m_cliPath(std::move(cliPath)) {}

LabTopology::~LabTopology() {
    stopHelpers();
    for (const int fd : m_namespaces)
        close(fd);
    if (m_client >= 0)
        close(m_client);
    if (m_serverHost >= 0)
        close(m_serverHost);
}

void LabTopology::stopHelpers() {
    stopProcesses(m_helpers, 1000);
    m_helpers.clear();
}

void LabTopology::noteVersion(const QString& tool, const std::vector<std::string>& argv) {
    for (const auto& [name, version] : m_versions) {
        if (name == tool)
            return;
    }
    auto printed = runInNetns(m_serverHost, argv);
    const std::string text = printed ? *printed : std::string();
    m_versions.emplace_back(tool,
                            QString::fromStdString(text.substr(0, text.find('\n'))).trimmed());
}

Result<void> LabTopology::buildWire(int mtu, bool bridged) {
    if (findInPath("ip").empty())
        return makeError(ErrorCode::Unreachable,
                         QStringLiteral("ip is not installed (Debian package iproute2)"));
    m_mtu = mtu;
    auto client = createNetns();
    if (!client)
        return client.error();
    m_client = *client;
    auto server = createNetns();
    if (!server)
        return server.error();
    m_serverHost = *server;
    noteVersion(QStringLiteral("iproute2"), {"ip", "-V"});
    const std::string mtuText = std::to_string(mtu);
    if (auto made =
            ip(m_serverHost, {"link", "add", "wire1", "mtu", mtuText, "type", "veth", "peer",
                              "name", kClientLink, "mtu", mtuText, "netns", ns(m_client)});
        !made)
        return made.error().prefixed(QStringLiteral("the wire"));
    for (auto step : std::vector<std::vector<std::string>>{
             {"addr", "add", std::string(kClientAddress) + "/24", "dev", kClientLink},
             {"link", "set", kClientLink, "up"}}) {
        if (auto done = ip(m_client, step); !done)
            return done.error().prefixed(QStringLiteral("the wire"));
    }
    std::vector<std::vector<std::string>> steps;
    if (bridged) {
        m_hostDevice = kWireBridge;
        steps.push_back(
            {"link", "add", kWireBridge, "mtu", mtuText, "type", "bridge", "forward_delay", "0"});
        steps.push_back({"link", "set", "wire1", "master", kWireBridge});
    }
    steps.push_back({"link", "set", "wire1", "up"});
    steps.push_back({"addr", "add", std::string(kServerHostAddress) + "/24", "dev", m_hostDevice});
    steps.push_back({"link", "set", m_hostDevice, "up"});
    for (const auto& step : steps) {
        if (auto done = ip(m_serverHost, step); !done)
            return done.error().prefixed(QStringLiteral("the wire"));
    }
    return {};
}

Result<int> LabTopology::newContainer() {
    auto created = createNetns();
    if (!created)
        return created.error();
    m_namespaces.push_back(*created);
    return *created;
}

// A container namespace whose server is reached at `address`, on the wire's own subnet, through
// its eth0 (MAC `mac`, or the kernel's when empty), a veth whose other end `hostSide` stays in
// the server host for the caller to attach.
Result<int> LabTopology::newWireContainer(ModeEndpoint& endpoint, const std::string& address,
                                          const std::string& hostSide, const std::string& mac) {
    auto container = newContainer();
    if (!container)
        return container.error();
    endpoint.address = address;
    endpoint.port = kServicePort;
    endpoint.serverNetns = *container;
    endpoint.bindAddress = address;
    endpoint.bindPort = kServicePort;
    const std::string mtuText = std::to_string(m_mtu);
    std::vector<std::string> add{"link", "add",  hostSide, "mtu",  mtuText,
                                 "type", "veth", "peer",   "name", "eth0"};
    if (!mac.empty())
        add.insert(add.end(), {"address", mac});
    add.insert(add.end(), {"mtu", mtuText, "netns", ns(*container)});
    if (auto made = ip(m_serverHost, add); !made)
        return made.error();
    for (auto step : std::vector<std::vector<std::string>>{
             {"addr", "add", address + "/24", "dev", "eth0"}, {"link", "set", "eth0", "up"}}) {
        if (auto done = ip(*container, step); !done)
            return done.error();
    }
    return *container;
}

Result<void> LabTopology::ensureDockerBridge() {
    if (m_dockerBridge)
        return {};
    for (auto step : std::vector<std::vector<std::string>>{
             {"link", "add", kDockerBridge, "mtu", std::to_string(m_mtu), "type", "bridge",
              "forward_delay", "0"},
             {"addr", "add", std::string(kDockerGateway) + "/24", "dev", kDockerBridge},
             {"link", "set", kDockerBridge, "up"}}) {
        if (auto done = ip(m_serverHost, step); !done)
            return done;
    }
    // Forwarding between the wire and the container bridge, in the server host's namespace
    // only (a namespace of the sandbox: the machine's own setting is never read or written).
    if (auto forwarding = writeNetSysctl(m_serverHost, "ipv4/ip_forward", "1"); !forwarding)
        return forwarding;
    m_dockerBridge = true;
    return {};
}

// A container namespace on lab-docker0, as Docker's default bridge network makes one; the
// endpoint's server listens there, on the service port, at the container's address.
Result<void> LabTopology::attachToDockerBridge(ModeEndpoint& endpoint, const std::string& address) {
    if (auto bridge = ensureDockerBridge(); !bridge)
        return bridge.error();
    auto container = newContainer();
    if (!container)
        return container.error();
    const std::string hostSide = "veth" + std::to_string(++m_containers);
    const std::string mtuText = std::to_string(m_mtu);
    if (auto made =
            ip(m_serverHost, {"link", "add", hostSide, "mtu", mtuText, "type", "veth", "peer",
                              "name", "eth0", "mtu", mtuText, "netns", ns(*container)});
        !made)
        return made.error();
    if (auto done = ip(m_serverHost, {"link", "set", hostSide, "master", kDockerBridge, "up"});
        !done)
        return done.error();
    for (auto step : std::vector<std::vector<std::string>>{
             {"addr", "add", address + "/24", "dev", "eth0"},
             {"link", "set", "eth0", "up"},
             {"route", "add", "default", "via", kDockerGateway}}) {
        if (auto done = ip(*container, step); !done)
            return done.error();
    }
    endpoint.serverNetns = *container;
    endpoint.bindAddress = address;
    endpoint.bindPort = kServicePort;
    return {};
}

Result<ModeEndpoint> LabTopology::buildMode(LabMode mode) {
    if (m_clientOnServerHost) {
        const QString refused = labServerHostRefusal(labModeId(mode));
        if (!refused.isEmpty())
            return makeError(ErrorCode::InvalidInput,
                             QStringLiteral("client placement server-host: %1").arg(refused));
    }
    auto built = buildPath(mode);
    if (!built || !m_clientOnServerHost)
        return built;
    if (auto placed = placeClientOnServerHost(*built); !placed)
        return placed.error().prefixed(QStringLiteral("its client on the server host"));
    return built;
}

// What a client on the server host connects to, and the path from there, for each mode built
// for the wire. The wire's part of the path goes; where the client starts takes its place:
// "localhost" (127.0.0.1), "own address" (the host's address on the wire, whose packets never
// leave the host's stack before the output hook) or "host" (the host's stack, routing to a
// container's or pod's own address on one of its bridges).
Result<void> LabTopology::placeClientOnServerHost(ModeEndpoint& endpoint) {
    const QString path = labModeServerHostPath(endpoint.mode);
    if (path.isEmpty())
        return makeError(ErrorCode::InvalidInput, labServerHostRefusal(labModeId(endpoint.mode)));
    switch (endpoint.mode) {
    case LabMode::Host:
    case LabMode::HostNetwork:
        // The server on the host's loopback, reached there directly: no device but lo.
        endpoint.address = "127.0.0.1";
        endpoint.bindAddress = "127.0.0.1";
        break;
    case LabMode::UserlandProxy:
        return {}; // its relay listens on 127.0.0.1, and its path names it (buildUserlandProxy)
    case LabMode::Nat: {
        // Docker without its userland proxy: the published port on 127.0.0.1 DNATed at the
        // output hook, where locally made packets pass (prerouting never sees them). Rerouted
        // to the container bridge, a packet from 127.0.0.1 is a martian unless the bridge has
        // route_localnet; the masquerade gives it the bridge's address, so that the
        // container's answer does not go to its own loopback. (Docker sets the same.)
        if (auto localnet = writeNetSysctl(
                m_serverHost, std::string("ipv4/conf/") + kDockerBridge + "/route_localnet", "1");
            !localnet)
            return localnet;
        const std::string port = std::to_string(endpoint.port);
        const std::string target = endpoint.bindAddress + ":" + std::to_string(kServicePort);
        for (auto rule : std::vector<std::vector<std::string>>{
                 {"nft", "add", "chain", "ip", "loadscope_lab", "output",
                  "{ type nat hook output priority -100; policy accept; }"},
                 {"nft", "add", "rule", "ip", "loadscope_lab", "output", "ip", "daddr", "127.0.0.1",
                  "tcp", "dport", port, "counter", "dnat", "to", target},
                 {"nft", "add", "rule", "ip", "loadscope_lab", "output", "ip", "daddr", "127.0.0.1",
                  "udp", "dport", port, "counter", "dnat", "to", target},
                 {"nft", "add", "rule", "ip", "loadscope_lab", "postrouting", "ip", "saddr",
                  "127.0.0.0/8", "oifname", std::string("\"") + kDockerBridge + "\"",
                  "masquerade"}}) {
            if (auto done = runInNetns(m_serverHost, rule); !done)
                return done.error();
        }
        endpoint.address = "127.0.0.1";
        break;
    }
    case LabMode::NodePort:
        // The node's own address, the NodePort's rule (fib daddr type local) seen at the output
        // hook as kube-proxy's nat-output chain sees it; 127.0.0.1 is not a NodePort address
        // in kube-proxy's nftables mode.
        if (auto output = ensureKubeProxyOutput(); !output)
            return output;
        break;
    case LabMode::ClusterIp:
        if (auto output = ensureKubeProxyOutput(); !output)
            return output;
        // The node has no route to the Service range, and connect() needs one before the
        // output hook rewrites the address.
        if (auto routed = ip(m_serverHost, {"route", "add", kServiceRange, "dev", kPodBridge});
            !routed)
            return routed;
        endpoint.path = QString(path).replace(QStringLiteral("mod N"),
                                              QStringLiteral("mod %1").arg(m_backends));
        return {};
    default:
        break; // reached at its own address from the host's stack, as built
    }
    endpoint.path = path;
    return {};
}

Result<ModeEndpoint> LabTopology::buildPath(LabMode mode) {
    ModeEndpoint endpoint;
    endpoint.mode = mode;
    endpoint.address = kServerHostAddress;
    endpoint.port = hostPort(mode);
    endpoint.serverNetns = m_serverHost;
    endpoint.bindAddress = kServerHostAddress;
    endpoint.bindPort = endpoint.port;
    const QString wire =
        m_hostDevice == kWireBridge ? QStringLiteral("veth → bridge port") : QStringLiteral("veth");
    const QString arrow = QStringLiteral(" → ");
    switch (mode) {
    case LabMode::Host:
        endpoint.label = labModeTitle(mode);
        endpoint.path = wire + arrow + labModePath(mode);
        return endpoint;
    case LabMode::HostNetwork:
        endpoint.label = labModeTitle(mode);
        endpoint.path = wire + arrow + labModePath(mode);
        endpoint.ownMountPidUts = true;
        return endpoint;
    case LabMode::Nat:
        endpoint.label = labModeTitle(mode);
        endpoint.path = wire + arrow + labModePath(mode);
        return buildNat(endpoint);
    case LabMode::UserlandProxy:
        return buildUserlandProxy(endpoint);
    case LabMode::Bridge:
        endpoint.label = labModeTitle(mode);
        // The wire's own end is the bridge's port here.
        endpoint.path = QStringLiteral("veth") + arrow + labModePath(mode);
        return buildBridge(endpoint);
    case LabMode::Macvlan:
        endpoint.label = labModeTitle(mode);
        endpoint.path = wire + arrow + labModePath(mode);
        endpoint.address = "10.213.0.11";
        return buildVlanChild(endpoint, "macvlan");
    case LabMode::Ipvlan:
        endpoint.label = labModeTitle(mode);
        endpoint.path = wire + arrow + labModePath(mode);
        endpoint.address = "10.213.0.12";
        return buildVlanChild(endpoint, "ipvlan");
    case LabMode::RootlessNat:
        if (const QString why = unbuiltModeReason(mode); !why.isEmpty())
            return makeError(ErrorCode::Unreachable, why);
        endpoint.label = labModeTitle(mode);
        endpoint.path = wire + arrow + labModePath(mode);
        return buildRootlessNat(endpoint);
    case LabMode::Ovs:
        if (const QString why = unbuiltModeReason(mode); !why.isEmpty())
            return makeError(ErrorCode::Unreachable, why);
        endpoint.label = labModeTitle(mode);
        endpoint.path = wire + arrow + labModePath(mode);
        return buildOvs(endpoint);
    case LabMode::ClusterIp:
        endpoint.label = QStringLiteral("Kubernetes ClusterIP (nftables DNAT, numgen over %1 pods)")
                             .arg(m_backends);
        endpoint.path =
            wire + arrow +
            QStringLiteral("DNAT (numgen random mod %1) → pod bridge → veth").arg(m_backends);
        return buildClusterIp(endpoint);
    case LabMode::PodBridge:
        endpoint.label = labModeTitle(mode);
        endpoint.path = labModePath(mode); // from the client's own link on the bridge
        return buildPodBridge(endpoint);
    case LabMode::NodePort:
        endpoint.label = labModeTitle(mode);
        endpoint.path = wire + arrow + labModePath(mode);
        return buildNodePort(endpoint);
    case LabMode::OverlayVxlan:
        endpoint.label =
            QStringLiteral("Kubernetes overlay (VXLAN, MTU %1)").arg(m_mtu - kVxlanOverhead);
        endpoint.path = labModePath(mode); // from the client's own VXLAN device
        return buildOverlayVxlan(endpoint);
    case LabMode::Sidecar:
        endpoint.label = labModeTitle(mode);
        endpoint.path = wire + arrow + labModePath(mode);
        return buildSidecar(endpoint);
    }
    return makeError(ErrorCode::Internal, QStringLiteral("unknown mode"));
}

// The node's pod bridge, as the CNI bridge plugin makes cni0, with forwarding on in the server
// host (the sandbox's namespace; never the machine's).
Result<void> LabTopology::ensurePodBridge() {
    if (m_podBridge)
        return {};
    for (auto step : std::vector<std::vector<std::string>>{
             {"link", "add", kPodBridge, "mtu", std::to_string(m_mtu), "type", "bridge",
              "forward_delay", "0"},
             {"addr", "add", std::string(kPodGateway) + "/24", "dev", kPodBridge},
             {"link", "set", kPodBridge, "up"}}) {
        if (auto done = ip(m_serverHost, step); !done)
            return done.error().prefixed(QStringLiteral("the pod bridge"));
    }
    if (auto forwarding = writeNetSysctl(m_serverHost, "ipv4/ip_forward", "1"); !forwarding)
        return forwarding;
    m_podBridge = true;
    return {};
}

// A pod: a namespace whose eth0 is a veth on the pod bridge, its default route the bridge's
// gateway; its server listens on the service port.
// `mtu`: the pod's link MTU when not the wire's (an overlay's, as flannel sets it).
Result<ServerPlace> LabTopology::newPod(const std::string& address, int mtu) {
    if (auto bridge = ensurePodBridge(); !bridge)
        return bridge.error();
    auto pod = newContainer();
    if (!pod)
        return pod.error();
    const std::string hostSide = "vpod" + std::to_string(++m_containers);
    const std::string mtuText = std::to_string(mtu > 0 ? mtu : m_mtu);
    if (auto made = ip(m_serverHost, {"link", "add", hostSide, "mtu", mtuText, "type", "veth",
                                      "peer", "name", "eth0", "mtu", mtuText, "netns", ns(*pod)});
        !made)
        return made.error();
    if (auto done = ip(m_serverHost, {"link", "set", hostSide, "master", kPodBridge, "up"}); !done)
        return done.error();
    for (auto step :
         std::vector<std::vector<std::string>>{{"addr", "add", address + "/24", "dev", "eth0"},
                                               {"link", "set", "eth0", "up"},
                                               {"route", "add", "default", "via", kPodGateway}}) {
        if (auto done = ip(*pod, step); !done)
            return done.error();
    }
    return ServerPlace{*pod, address, kServicePort};
}

// A route in the client namespace to a range the server host serves beyond the wire's subnet
// (the Service range), through the server host's wire address; once per range.
Result<void> LabTopology::routeFromClient(const std::string& prefix) {
    if (std::find(m_clientRoutes.begin(), m_clientRoutes.end(), prefix) != m_clientRoutes.end())
        return {};
    if (auto done = ip(m_client, {"route", "add", prefix, "via", kServerHostAddress}); !done)
        return done.error();
    m_clientRoutes.push_back(prefix);
    return {};
}

// kube-proxy's nftables mode for one Service: the ClusterIP's port DNATed, per new connection
// (conntrack keeps a connection's choice), to one of N endpoint chains picked by `numgen random
// mod N`, each endpoint a pod on the node's bridge. TCP and UDP alike, as a Service of both.
Result<ModeEndpoint> LabTopology::buildClusterIp(ModeEndpoint endpoint) {
    if (m_backends < 1 || m_backends > kMaxBackends)
        return makeError(
            ErrorCode::InvalidInput,
            QStringLiteral("backends=%1: expected 1 to %2").arg(m_backends).arg(kMaxBackends));
    if (findInPath("nft").empty())
        return makeError(ErrorCode::Unreachable,
                         QStringLiteral("nft is not installed (Debian package nftables)"));
    endpoint.address = kClusterIp;
    endpoint.port = kClusterIpPort;
    if (auto table = ensureKubeProxyTable(); !table)
        return table.error();
    std::string verdicts;
    std::vector<std::vector<std::string>> rules;
    for (int i = 0; i < m_backends; ++i) {
        auto pod = newPod("10.213.2." + std::to_string(11 + i));
        if (!pod)
            return pod.error().prefixed(QStringLiteral("backend pod %1").arg(i + 1));
        endpoint.backends.push_back(*pod);
        const std::string chain = "endpoint-" + std::to_string(i);
        rules.push_back({"nft", "add", "chain", "ip", "loadscope_k8s", chain});
        rules.push_back({"nft", "add", "rule", "ip", "loadscope_k8s", chain, "meta", "l4proto",
                         "{ tcp, udp }", "dnat", "to",
                         pod->bindAddress + ":" + std::to_string(kServicePort)});
        verdicts += (i ? ", " : "") + std::to_string(i) + " : goto " + chain;
    }
    for (const char* protocol : {"tcp", "udp"})
        rules.push_back({"nft", "add", "rule", "ip", "loadscope_k8s", "services", "ip", "daddr",
                         kClusterIp, protocol, "dport", std::to_string(kClusterIpPort), "numgen",
                         "random", "mod", std::to_string(m_backends), "vmap",
                         "{ " + verdicts + " }"});
    for (const auto& rule : rules) {
        if (auto done = runInNetns(m_serverHost, rule); !done)
            return done.error();
    }
    noteVersion(QStringLiteral("nft"), {"nft", "--version"});
    if (auto routed = routeFromClient(kServiceRange); !routed)
        return routed.error();
    const ServerPlace& first = endpoint.backends.front();
    endpoint.serverNetns = first.netns;
    endpoint.bindAddress = first.bindAddress;
    endpoint.bindPort = first.bindPort;
    return endpoint;
}

// Pod to pod on one node: the client namespace gets a link of its own on the pod bridge, as a
// second pod, and reaches the server's pod on the bridge's subnet, without the wire or NAT.
Result<ModeEndpoint> LabTopology::buildPodBridge(ModeEndpoint endpoint) {
    auto pod = newPod("10.213.2.20");
    if (!pod)
        return pod.error();
    const std::string mtuText = std::to_string(m_mtu);
    if (auto made =
            ip(m_serverHost, {"link", "add", "vclientpod", "mtu", mtuText, "type", "veth", "peer",
                              "name", kClientPodLink, "mtu", mtuText, "netns", ns(m_client)});
        !made)
        return made.error().prefixed(QStringLiteral("the client's pod link"));
    if (auto done = ip(m_serverHost, {"link", "set", "vclientpod", "master", kPodBridge, "up"});
        !done)
        return done.error();
    for (auto step : std::vector<std::vector<std::string>>{
             {"addr", "add", std::string(kClientPodAddress) + "/24", "dev", kClientPodLink},
             {"link", "set", kClientPodLink, "up"}}) {
        if (auto done = ip(m_client, step); !done)
            return done.error().prefixed(QStringLiteral("the client's pod link"));
    }
    endpoint.address = pod->bindAddress;
    endpoint.port = kServicePort;
    endpoint.serverNetns = pod->netns;
    endpoint.bindAddress = pod->bindAddress;
    endpoint.bindPort = pod->bindPort;
    return endpoint;
}

// kube-proxy's table, in the server host: the services chain at the prerouting hook and the
// masquerade of what it marks, at postrouting. Once, for cluster-ip and node-port alike.
Result<void> LabTopology::ensureKubeProxyTable() {
    if (m_kubeProxyTable)
        return {};
    if (findInPath("nft").empty())
        return makeError(ErrorCode::Unreachable,
                         QStringLiteral("nft is not installed (Debian package nftables)"));
    for (auto rule : std::vector<std::vector<std::string>>{
             {"nft", "add", "table", "ip", "loadscope_k8s"},
             {"nft", "add", "chain", "ip", "loadscope_k8s", "services"},
             {"nft", "add", "chain", "ip", "loadscope_k8s", "nat-prerouting",
              "{ type nat hook prerouting priority dstnat; policy accept; }"},
             {"nft", "add", "rule", "ip", "loadscope_k8s", "nat-prerouting", "jump", "services"},
             {"nft", "add", "chain", "ip", "loadscope_k8s", "masquerading",
              "{ type nat hook postrouting priority srcnat; policy accept; }"},
             {"nft", "add", "rule", "ip", "loadscope_k8s", "masquerading", "meta", "mark", "and",
              kMasqueradeMark, "==", kMasqueradeMark, "masquerade"}}) {
        if (auto done = runInNetns(m_serverHost, rule); !done)
            return done.error();
    }
    noteVersion(QStringLiteral("nft"), {"nft", "--version"});
    m_kubeProxyTable = true;
    return {};
}

// kube-proxy's nat-output chain: the Services seen by the node's own processes (a client on the
// server host), whose packets pass the output hook and never prerouting. Once.
Result<void> LabTopology::ensureKubeProxyOutput() {
    if (m_kubeProxyOutput)
        return {};
    for (auto rule : std::vector<std::vector<std::string>>{
             {"nft", "add", "chain", "ip", "loadscope_k8s", "nat-output",
              "{ type nat hook output priority -100; policy accept; }"},
             {"nft", "add", "rule", "ip", "loadscope_k8s", "nat-output", "counter", "jump",
              "services"}}) {
        if (auto done = runInNetns(m_serverHost, rule); !done)
            return done.error();
    }
    m_kubeProxyOutput = true;
    return {};
}

// kube-proxy's NodePort: a port of any of the node's own addresses (fib daddr type local), marked
// for masquerade (externalTrafficPolicy Cluster), into the Service's chain, whose numgen choice
// over its one endpoint DNATs to the pod.
Result<ModeEndpoint> LabTopology::buildNodePort(ModeEndpoint endpoint) {
    if (auto table = ensureKubeProxyTable(); !table)
        return table.error();
    auto pod = newPod("10.213.2.30");
    if (!pod)
        return pod.error();
    const std::string port = std::to_string(kNodePort);
    for (auto rule : std::vector<std::vector<std::string>>{
             {"nft", "add", "chain", "ip", "loadscope_k8s", "nodeport-endpoint-0"},
             {"nft", "add", "rule", "ip", "loadscope_k8s", "nodeport-endpoint-0", "meta", "l4proto",
              "{ tcp, udp }", "dnat", "to", pod->bindAddress + ":" + std::to_string(kServicePort)},
             {"nft", "add", "chain", "ip", "loadscope_k8s", "nodeport-service"},
             {"nft", "add", "rule", "ip", "loadscope_k8s", "nodeport-service", "meta", "mark",
              "set", "mark", "or", kMasqueradeMark},
             {"nft", "add", "rule", "ip", "loadscope_k8s", "nodeport-service", "numgen", "random",
              "mod", "1", "vmap", "{ 0 : goto nodeport-endpoint-0 }"},
             {"nft", "add", "rule", "ip", "loadscope_k8s", "services", "fib", "daddr", "type",
              "local", "tcp", "dport", port, "goto", "nodeport-service"},
             {"nft", "add", "rule", "ip", "loadscope_k8s", "services", "fib", "daddr", "type",
              "local", "udp", "dport", port, "goto", "nodeport-service"}}) {
        if (auto done = runInNetns(m_serverHost, rule); !done)
            return done.error();
    }
    endpoint.serverNetns = pod->netns;
    endpoint.bindAddress = pod->bindAddress;
    endpoint.bindPort = pod->bindPort;
    return endpoint;
}

// Two nodes joined by flannel's VXLAN backend: the client namespace (the client's node) and the
// server host each get a VXLAN device with VNI 1 on UDP 4789 over their end of the wire, its peer
// the other end's address, its MTU the wire's less the encapsulation; the server's pod (its link
// at the overlay's MTU, as flannel sets it) is reached through the overlay, and answers through it.
Result<ModeEndpoint> LabTopology::buildOverlayVxlan(ModeEndpoint endpoint) {
    const int overlayMtu = m_mtu - kVxlanOverhead;
    auto pod = newPod("10.213.2.40", overlayMtu);
    if (!pod)
        return pod.error();
    const std::string mtuText = std::to_string(overlayMtu);
    struct End {
        int netns;
        const char* local;
        const char* remote;
        std::string device;
        const char* address;
    };
    for (const End& end :
         {End{m_client, kClientAddress, kServerHostAddress, kClientLink, "10.213.5.1/24"},
          End{m_serverHost, kServerHostAddress, kClientAddress, m_hostDevice, "10.213.5.2/24"}}) {
        for (auto step : std::vector<std::vector<std::string>>{
                 {"link", "add", kClientOverlayLink, "mtu", mtuText, "type", "vxlan", "id", "1",
                  "local", end.local, "remote", end.remote, "dstport", "4789", "dev", end.device},
                 {"addr", "add", end.address, "dev", kClientOverlayLink},
                 {"link", "set", kClientOverlayLink, "up"}}) {
            if (auto done = ip(end.netns, step); !done)
                return done.error().prefixed(QStringLiteral("the VXLAN overlay"));
        }
    }
    // The pod alone, through the overlay: a host route, more specific than the pod bridge's
    // subnet that pod-bridge gives the client.
    if (auto routed = ip(m_client, {"route", "add", pod->bindAddress + "/32", "via", "10.213.5.2",
                                    "dev", kClientOverlayLink});
        !routed)
        return routed.error().prefixed(QStringLiteral("the VXLAN overlay"));
    endpoint.address = pod->bindAddress;
    endpoint.port = kServicePort;
    endpoint.serverNetns = pod->netns;
    endpoint.bindAddress = pod->bindAddress;
    endpoint.bindPort = pod->bindPort;
    endpoint.pathMtu = overlayMtu;
    return endpoint;
}

// A pod whose inbound traffic a sidecar proxy captures, as a service mesh does: in the pod's own
// namespace an nftables redirect of the server's port to the proxy's, and the proxy (the
// embedded relay, started beside the server in the same process tree) forwarding each
// connection, or each client's datagrams, to the server on 127.0.0.1. The client reaches the
// pod across the wire, routed through the node.
Result<ModeEndpoint> LabTopology::buildSidecar(ModeEndpoint endpoint) {
    if (findInPath("nft").empty())
        return makeError(ErrorCode::Unreachable,
                         QStringLiteral("nft is not installed (Debian package nftables)"));
    auto pod = newPod("10.213.2.50");
    if (!pod)
        return pod.error();
    const std::string service = std::to_string(kServicePort);
    const std::string proxy = std::to_string(kSidecarPort);
    for (auto rule : std::vector<std::vector<std::string>>{
             {"nft", "add", "table", "ip", "loadscope_mesh"},
             {"nft", "add", "chain", "ip", "loadscope_mesh", "inbound",
              "{ type nat hook prerouting priority dstnat; policy accept; }"},
             {"nft", "add", "rule", "ip", "loadscope_mesh", "inbound", "iifname", "eth0", "tcp",
              "dport", service, "redirect", "to", ":" + proxy},
             {"nft", "add", "rule", "ip", "loadscope_mesh", "inbound", "iifname", "eth0", "udp",
              "dport", service, "redirect", "to", ":" + proxy}}) {
        if (auto done = runInNetns(pod->netns, rule); !done)
            return done.error().prefixed(QStringLiteral("the sidecar's capture"));
    }
    noteVersion(QStringLiteral("nft"), {"nft", "--version"});
    if (auto routed =
            ip(m_client, {"route", "add", pod->bindAddress + "/32", "via", kServerHostAddress});
        !routed)
        return routed.error();
    endpoint.address = pod->bindAddress;
    endpoint.port = kServicePort;
    ServerPlace server = *pod;
    server.bindAddress = "127.0.0.1"; // reached by the proxy only
    endpoint.backends = {server};
    endpoint.serverNetns = server.netns;
    endpoint.bindAddress = server.bindAddress;
    endpoint.bindPort = server.bindPort;
    endpoint.companion = {m_cliPath,
                          "serve",
                          "proxy",
                          "--host",
                          pod->bindAddress,
                          "--port",
                          proxy,
                          "--to",
                          "127.0.0.1:" + service,
                          "--threads",
                          std::to_string(std::max<size_t>(1, m_serverCpus.size()))};
    if (m_datagrams)
        endpoint.companion.push_back("--udp");
    return endpoint;
}

Result<ModeEndpoint> LabTopology::buildNat(ModeEndpoint endpoint) {
    const std::string container = "10.213.1.2";
    if (auto attached = attachToDockerBridge(endpoint, container); !attached)
        return attached.error();
    if (findInPath("nft").empty())
        return makeError(ErrorCode::Unreachable,
                         QStringLiteral("nft is not installed (Debian package nftables)"));
    // Docker's rules for `-p` (TCP and UDP: `-p 8082:8080 -p 8082:8080/udp`) without the
    // userland proxy, in a table of the lab's own in the server host's namespace.
    const std::string port = std::to_string(endpoint.port);
    const std::string target = container + ":" + std::to_string(kServicePort);
    for (auto rule : std::vector<std::vector<std::string>>{
             {"nft", "add", "table", "ip", "loadscope_lab"},
             {"nft", "add", "chain", "ip", "loadscope_lab", "prerouting",
              "{ type nat hook prerouting priority dstnat; policy accept; }"},
             {"nft", "add", "rule", "ip", "loadscope_lab", "prerouting", "ip", "daddr",
              kServerHostAddress, "tcp", "dport", port, "dnat", "to", target},
             {"nft", "add", "rule", "ip", "loadscope_lab", "prerouting", "ip", "daddr",
              kServerHostAddress, "udp", "dport", port, "dnat", "to", target},
             {"nft", "add", "chain", "ip", "loadscope_lab", "postrouting",
              "{ type nat hook postrouting priority srcnat; policy accept; }"},
             {"nft", "add", "rule", "ip", "loadscope_lab", "postrouting", "ip", "saddr",
              "10.213.1.0/24", "oifname", "!=", "\"lab-docker0\"", "masquerade"}}) {
        if (auto done = runInNetns(m_serverHost, rule); !done)
            return done.error();
    }
    noteVersion(QStringLiteral("nft"), {"nft", "--version"});
    return endpoint;
}

Result<ModeEndpoint> LabTopology::buildUserlandProxy(ModeEndpoint endpoint) {
    const std::string container = "10.213.1.3";
    if (auto attached = attachToDockerBridge(endpoint, container); !attached)
        return attached.error();
    const std::string dockerProxy = findInPath("docker-proxy");
    // A client on the server host reaches the published port on localhost, which Docker serves
    // through this relay (its DNAT rules leave 127.0.0.0/8 alone).
    const std::string listenAddress = m_clientOnServerHost ? "127.0.0.1" : kServerHostAddress;
    endpoint.address = listenAddress;
    SpawnSpec relay;
    relay.netnsFd = m_serverHost;
    relay.cpus = m_serverCpus;
    if (!dockerProxy.empty()) {
        endpoint.label = QStringLiteral("Userland proxy (docker-proxy)");
        relay.argv = {
            dockerProxy,   "-proto",          m_datagrams ? "udp" : "tcp",   "-host-ip",
            listenAddress, "-host-port",      std::to_string(endpoint.port), "-container-ip",
            container,     "-container-port", std::to_string(kServicePort)};
        noteVersion(QStringLiteral("docker-proxy"),
                    {"dpkg-query", "-W", "-f=${Version}", "docker.io"});
        // A relay on PATH without its package (unpacked from docker.io, a build of
        // its own) has no version to ask for: say where it came from instead.
        for (auto& [tool, version] : m_versions) {
            if (tool == QLatin1String("docker-proxy") && version.isEmpty())
                version = QStringLiteral("not from a package: %1")
                              .arg(QString::fromStdString(dockerProxy));
        }
    } else {
        endpoint.label = QStringLiteral("Userland proxy (embedded; docker-proxy not installed)");
        relay.argv = {m_cliPath,
                      "serve",
                      "proxy",
                      "--host",
                      listenAddress,
                      "--port",
                      std::to_string(endpoint.port),
                      "--to",
                      container + ":" + std::to_string(kServicePort),
                      "--threads",
                      std::to_string(std::max<size_t>(1, m_serverCpus.size()))};
        if (m_datagrams)
            relay.argv.push_back("--udp"); // a relay of datagrams, as docker-proxy -proto udp
    }
    endpoint.path = (m_hostDevice == kWireBridge ? QStringLiteral("veth → bridge port")
                                                 : QStringLiteral("veth")) +
                    QStringLiteral(" → ") + labModePath(LabMode::UserlandProxy);
    if (m_clientOnServerHost)
        endpoint.path = labModeServerHostPath(LabMode::UserlandProxy)
                            .replace(QStringLiteral("relay"), dockerProxy.empty()
                                                                  ? QStringLiteral("embedded relay")
                                                                  : QStringLiteral("docker-proxy"));
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    // Its summary at teardown (the embedded relay counts the connections it relayed) goes to
    // its log in the lab's directory, not after the command's output.
    const std::string logPath = m_workDir + "/userland-proxy-relay.log";
    const int log = open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    relay.stdoutFd = null;
    relay.stderrFd = log >= 0 ? log : null;
    auto started = dockerProxy.empty() ? spawnInNetns(relay) : startDockerProxy(relay, 5000);
    close(null);
    if (log >= 0)
        close(log);
    if (!started)
        return started.error();
    m_helpers.push_back(*started);
    return endpoint;
}

Result<ModeEndpoint> LabTopology::buildBridge(ModeEndpoint endpoint) {
    if (m_hostDevice != kWireBridge)
        return makeError(ErrorCode::Internal,
                         QStringLiteral("the wire was built without a bridge"));
    auto container = newWireContainer(endpoint, "10.213.0.10", "vbr0", {});
    if (!container)
        return container.error();
    if (auto done = ip(m_serverHost, {"link", "set", "vbr0", "master", kWireBridge, "up"}); !done)
        return done.error();
    return endpoint;
}

Result<ModeEndpoint> LabTopology::buildVlanChild(ModeEndpoint endpoint, const char* type) {
    auto container = newContainer();
    if (!container)
        return container.error();
    endpoint.port = kServicePort;
    endpoint.serverNetns = *container;
    endpoint.bindAddress = endpoint.address;
    endpoint.bindPort = kServicePort;
    const std::string device = std::string("lab-") + type;
    std::vector<std::string> add{
        "link", "add",        device,
        "link", m_hostDevice, "type",
        type,   "mode",       std::string(type) == "macvlan" ? "bridge" : "l2"};
    if (auto made = ip(m_serverHost, add); !made)
        return std::string(type) == "ipvlan"
                   ? made.error().prefixed(QStringLiteral("the kernel has no ipvlan support"))
                   : made.error();
    if (auto moved = ip(m_serverHost, {"link", "set", device, "netns", ns(*container)}); !moved)
        return moved.error();
    for (auto step : std::vector<std::vector<std::string>>{
             {"addr", "add", endpoint.address + "/24", "dev", device},
             {"link", "set", device, "up"}}) {
        if (auto done = ip(*container, step); !done)
            return done.error();
    }
    return endpoint;
}

// Rootless Podman's default: the container's only link is slirp4netns' tap, and the published
// port is a socket slirp4netns listens on in the server host's namespace.
Result<ModeEndpoint> LabTopology::buildRootlessNat(ModeEndpoint endpoint) {
    auto container = newContainer();
    if (!container)
        return container.error();
    endpoint.serverNetns = *container;
    endpoint.bindAddress = SlirpNetwork::kGuestAddress;
    endpoint.bindPort = kServicePort;
    SlirpNetwork slirp;
    if (auto started =
            slirp.start(m_serverHost, *container, m_mtu, m_workDir, m_serverCpus, m_helpers);
        !started)
        return started.error();
    noteVersion(QStringLiteral("slirp4netns"), {"slirp4netns", "--version"});
    if (auto forwarded =
            slirp.forwardPort(kServerHostAddress, endpoint.port, kServicePort, m_datagrams);
        !forwarded)
        return forwarded.error();
    return endpoint;
}

// The container's veth is a port of an OVS bridge with the userspace (netdev) datapath, whose
// other port is the server host's wire device: the kernel here need not have the openvswitch
// module.
Result<ModeEndpoint> LabTopology::buildOvs(ModeEndpoint endpoint) {
    if (!m_ovs) {
        m_ovs = std::make_unique<OvsSwitch>();
        if (auto started = m_ovs->start(m_serverHost, m_workDir, m_serverCpus, m_helpers); !started)
            return started.error().prefixed(QStringLiteral("Open vSwitch"));
        noteVersion(QStringLiteral("ovs-vswitchd"), {"ovs-vswitchd", "--version"});
    }
    const std::string mac = "02:00:0a:d5:00:0d";
    auto container = newWireContainer(endpoint, "10.213.0.13", "vovs0", mac);
    if (!container)
        return container.error();
    if (auto up = ip(m_serverHost, {"link", "set", "vovs0", "up"}); !up)
        return up.error();
    // The userspace datapath does not fill in checksums the kernel left to the device: with
    // transmit offload on, the container's SYN-ACKs would reach the client unchecksummed (and
    // its segments would be too large for the wire).
    if (auto offload = runInNetns(*container, {"ethtool", "-K", "eth0", "tx", "off"}); !offload)
        return offload.error();
    if (auto bridged = m_ovs->addBridge(kOvsBridge, m_hostDevice, "vovs0", mac); !bridged)
        return bridged.error().prefixed(QStringLiteral("Open vSwitch"));
    return endpoint;
}

QString unbuiltModeReason(LabMode mode) {
    if (mode == LabMode::Ovs) {
        if (const QString missing = OvsSwitch::missingPart(); !missing.isEmpty())
            return missing;
    } else if (mode != LabMode::RootlessNat) {
        return {};
    } else if (findInPath("slirp4netns").empty()) {
        return QStringLiteral("slirp4netns is not installed (Debian package slirp4netns)");
    }
    // slirp4netns makes its tap device through /dev/net/tun, as the caller; so does
    // ovs-vswitchd for the bridge's own port of a userspace datapath.
    const int tun = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (tun < 0)
        return QStringLiteral("cannot open /dev/net/tun: %1")
            .arg(QString::fromLocal8Bit(std::strerror(errno)));
    close(tun);
    return {};
}

} // namespace loadscope::app::lab
