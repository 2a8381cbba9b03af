#pragma once

#include "app/common/result.h"
#include "app/lab/lab_mode.h"

#include <QString>
#include <cstdint>
#include <memory>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace loadscope::app::lab {

class OvsSwitch;

// The lab's one address range, used only inside the sandbox.
inline constexpr const char* kLabRange = "10.213.0.0/16";
// The wire: client and server host on 10.213.0.0/24; the client's end is kClientLink.
inline constexpr const char* kClientLink = "wire0";
// The client's link on the pod bridge, as a pod on the server's node (pod-bridge).
inline constexpr const char* kClientPodLink = "pod0";
// The client's VXLAN device, as the overlay of the client's node (overlay-vxlan).
inline constexpr const char* kClientOverlayLink = "lab-vxlan";
// What VXLAN adds to each packet on the wire: outer IPv4, UDP, VXLAN headers and inner Ethernet.
inline constexpr int kVxlanOverhead = 50;
inline constexpr const char* kClientAddress = "10.213.0.1";
inline constexpr const char* kServerHostAddress = "10.213.0.2";
// The server host's end of the wire; the bridge over it when linux-bridge is built (the host's
// address then moves onto the bridge); the container bridge (nat, userland-proxy) and the pod
// bridge (the Kubernetes node's paths). A client on the server host leaves by these.
inline constexpr const char* kServerHostLink = "wire1";
inline constexpr const char* kWireBridge = "lab-wire";
inline constexpr const char* kDockerBridge = "lab-docker0";
inline constexpr const char* kPodBridge = "lab-cni0";
// What every containerised server listens on inside its own namespace.
inline constexpr uint16_t kServicePort = 8080;

// Why a mode that needs a program the lab may not have (ovs-vswitchd and ethtool; slirp4netns)
// or a usable /dev/net/tun cannot be built here: the Debian package when it is missing. Empty
// when it can.
QString unbuiltModeReason(LabMode mode);

// Where one server of a mode listens, when a mode runs several (cluster-ip's backend pods).
struct ServerPlace {
    int netns = -1; // owned by the topology
    std::string bindAddress;
    uint16_t bindPort = 0;
};

// Where one built mode is reached from the client, and where its server must listen.
struct ModeEndpoint {
    LabMode mode = LabMode::Host;
    QString label;       // "NAT (nftables DNAT)"
    QString path;        // "veth → bridge → DNAT"
    std::string address; // what the client connects to
    uint16_t port = 0;
    int serverNetns = -1; // the namespace the server runs in (owned by the topology)
    std::string bindAddress;
    uint16_t bindPort = 0;
    bool ownMountPidUts = false; // the server gets its own mount, PID, UTS and cgroup namespaces
    // A mode of several servers (cluster-ip): one runs at each place, the same command; empty
    // for the one server above.
    std::vector<ServerPlace> backends;
    int instance = 0; // which of the backends this endpoint's server is (its files' names)
    int pathMtu = 0;  // the MTU of a path narrower than the wire's (an overlay's), or 0
    // A process that runs beside the first backend's server, in its namespace and in the same
    // process tree (sidecar's proxy), or empty.
    std::vector<std::string> companion;
};

// How many backend pods cluster-ip spreads over unless the server option `backends` says.
inline constexpr int kDefaultBackends = 3;
inline constexpr int kMaxBackends = 16;

// The sandbox's namespaces and links. Built inside the sandbox's init process only; its
// descriptors hold the namespaces, and nothing it makes outlives the sandbox.
//
//   client ns: wire0 10.213.0.1 ──veth (the wire)── server host ns: wire1 10.213.0.2
//   server host: lab-docker0 10.213.1.1/24 with container veths (nat, userland-proxy),
//   lab-wire bridge over wire1 when linux-bridge is built (the host address moves onto it),
//   macvlan/ipvlan children of the host's wire device, each in a container namespace,
//   an OVS bridge (userspace datapath, the lab's own ovsdb-server and ovs-vswitchd) with the
//   host's wire device and a container veth as ports.
//   A Kubernetes node's paths: the pod bridge lab-cni0 10.213.2.1/24 with pod veths (cluster-ip's
//   backends behind kube-proxy's table loadscope_k8s, node-port's pod, sidecar's pod with its
//   own redirect, overlay-vxlan's pod), the client's second link pod0 on it (pod-bridge), and a
//   VXLAN device lab-vxlan over each end of the wire (overlay-vxlan).
class LabTopology {
public:
    // `cliPath`: the loadscope-cli executable, for the embedded proxy.
    explicit LabTopology(std::string cliPath);
    ~LabTopology();
    LabTopology(const LabTopology&) = delete;
    LabTopology& operator=(const LabTopology&) = delete;

    // The client and server-host namespaces and the wire between them. `bridged`: the server
    // host's end is a port of a Linux bridge (needed by linux-bridge).
    Result<void> buildWire(int mtu, bool bridged);
    // One mode on top of the wire, reached from where the client runs (loadNetns()); the relay
    // processes a mode needs are started here.
    Result<ModeEndpoint> buildMode(LabMode mode);

    // CPUs for the relays a mode runs on the server host (the proxy), as the servers get.
    void setServerCpus(std::vector<int> cpus) { m_serverCpus = std::move(cpus); }

    // The server speaks UDP: the relays a mode runs (docker-proxy, the embedded proxy,
    // slirp4netns' forwarding) carry datagrams instead of TCP connections. Before buildMode.
    void setDatagrams(bool datagrams) { m_datagrams = datagrams; }

    // How many backend pods cluster-ip builds (1 to kMaxBackends). Before buildMode.
    void setBackends(int backends) { m_backends = backends; }

    // The load's client runs in the server host's namespace (LabClientPlacement::ServerHost):
    // each mode is reached as a local client reaches it (127.0.0.1, the published port through
    // the relay, the host's own address DNATed back), its endpoint's address and path say
    // so. Before buildMode; a mode that cannot have it (labServerHostRefusal) is refused.
    void setClientOnServerHost(bool onServerHost) { m_clientOnServerHost = onServerHost; }
    // The namespace the load's client runs in: the client's, or the server host's.
    int loadNetns() const { return m_clientOnServerHost ? m_serverHost : m_client; }

    // A directory of the lab's own for sockets of the relays (slirp4netns' API socket).
    void setWorkDir(std::string dir) { m_workDir = std::move(dir); }

    int clientNetns() const { return m_client; }
    int serverHostNetns() const { return m_serverHost; }
    // Tool versions the built modes used ("nft" → "v1.0.6"), for the record of a run.
    const std::vector<std::pair<QString, QString>>& toolVersions() const { return m_versions; }
    // Stops the relays; the namespaces go with the descriptors in the destructor.
    void stopHelpers();
    // The helpers running (relays, switch daemons), as fork() named them.
    const std::vector<pid_t>& helpers() const { return m_helpers; }

private:
    Result<int> newContainer();
    Result<int> newWireContainer(ModeEndpoint& endpoint, const std::string& address,
                                 const std::string& hostSide, const std::string& mac);
    Result<void> ensureDockerBridge();
    Result<void> attachToDockerBridge(ModeEndpoint& endpoint, const std::string& address);
    Result<void> ensurePodBridge();
    Result<ServerPlace> newPod(const std::string& address, int mtu = 0);
    Result<void> routeFromClient(const std::string& prefix);
    Result<ModeEndpoint> buildPath(LabMode mode);
    Result<void> placeClientOnServerHost(ModeEndpoint& endpoint);
    Result<void> ensureKubeProxyOutput();
    Result<ModeEndpoint> buildClusterIp(ModeEndpoint endpoint);
    Result<ModeEndpoint> buildPodBridge(ModeEndpoint endpoint);
    Result<void> ensureKubeProxyTable();
    Result<ModeEndpoint> buildNodePort(ModeEndpoint endpoint);
    Result<ModeEndpoint> buildOverlayVxlan(ModeEndpoint endpoint);
    Result<ModeEndpoint> buildSidecar(ModeEndpoint endpoint);
    Result<ModeEndpoint> buildNat(ModeEndpoint endpoint);
    Result<ModeEndpoint> buildUserlandProxy(ModeEndpoint endpoint);
    Result<ModeEndpoint> buildBridge(ModeEndpoint endpoint);
    Result<ModeEndpoint> buildVlanChild(ModeEndpoint endpoint, const char* type);
    Result<ModeEndpoint> buildRootlessNat(ModeEndpoint endpoint);
    Result<ModeEndpoint> buildOvs(ModeEndpoint endpoint);
    void noteVersion(const QString& tool, const std::vector<std::string>& argv);

    std::string m_cliPath;
    std::string m_workDir = "/tmp";
    std::vector<int> m_serverCpus;
    int m_mtu = 1500;
    bool m_datagrams = false;
    int m_client = -1;
    int m_serverHost = -1;
    std::string m_hostDevice = "wire1"; // the server host's wire device, or the bridge over it
    bool m_dockerBridge = false;
    bool m_podBridge = false;
    bool m_kubeProxyTable = false;
    bool m_kubeProxyOutput = false;
    bool m_clientOnServerHost = false;
    int m_backends = kDefaultBackends;
    std::vector<std::string> m_clientRoutes;
    int m_containers = 0;
    std::vector<int> m_namespaces; // every container namespace, closed in the destructor
    std::vector<pid_t> m_helpers;
    std::unique_ptr<OvsSwitch> m_ovs; // started with the first OVS mode
    std::vector<std::pair<QString, QString>> m_versions;
};

} // namespace loadscope::app::lab
