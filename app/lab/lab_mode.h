#pragma once

#include "app/session/target.h"

#include <QString>
#include <QStringView>
#include <optional>
#include <vector>

namespace loadscope::app::lab {

// The deployment modes the lab can build inside its sandbox. Where a mode is one of
// app::DeploymentMode it has the same identifier; every lab mode is one today.
enum class LabMode {
    Host,
    HostNetwork,
    Nat,
    UserlandProxy,
    Bridge,
    Ovs,
    Macvlan,
    Ipvlan,
    RootlessNat,
    ClusterIp,
    PodBridge,
    NodePort,
    OverlayVxlan,
    Sidecar,
};

// Every mode, in the order `lab check` lists them.
const std::vector<LabMode>& labModes();
// "host", "container-host-network", "container-nat", "userland-proxy", "linux-bridge",
// "ovs-bridge", "macvlan", "ipvlan", "rootless-nat", "cluster-ip", "pod-bridge", "node-port",
// "overlay-vxlan", "sidecar".
QString labModeId(LabMode mode);
// The identifiers above, and the short names users type: "host-network", "nat", "bridge", "ovs".
std::optional<LabMode> labModeFromId(QStringView id);
// The session's mode for a lab mode; nullopt for a lab mode the session does not know.
std::optional<DeploymentMode> deploymentModeOf(LabMode mode);
// What the lab builds for a mode, for a picker and a topology sketch: "NAT (nftables DNAT)".
QString labModeTitle(LabMode mode);
// The path from the server host's end of the wire to the server: "DNAT → bridge → veth"; for a
// mode whose path does not start there (labModePathFromWire), the whole path from the client.
QString labModePath(LabMode mode);
// Whether labModePath starts at the server host's end of the wire: for every mode but those
// whose client leaves by a link of its own (pod-bridge's link on the pod bridge, overlay-vxlan's
// VXLAN device).
bool labModePathFromWire(LabMode mode);
// The path from a load client on the server host (LabClientPlacement::ServerHost) to the server,
// from where that client starts: "localhost → host", "own address → slirp4netns → tap"; empty
// for a mode that cannot have such a client (labServerHostRefusal). userland-proxy's "relay" and
// cluster-ip's "N" are named when the mode is built (LabTopology).
QString labModeServerHostPath(LabMode mode);
// For a mode that imitates part of a larger system, what it mimics and what it leaves out
// ("mimics kube-proxy's nftables mode ...; leaves out ..."); empty for the others.
QString labModeMimics(LabMode mode);

} // namespace loadscope::app::lab
