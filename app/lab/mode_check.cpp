#include "app/lab/mode_check.h"

#include "app/lab/lab_topology.h"
#include "app/lab/netns_command.h"
#include "app/lab/sandbox_process.h"
#include "app/session/target_rules.h"

#include <QStringList>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

namespace loadscope::app::lab {

namespace {

struct Probe {
    bool ok = false;
    QString text;
};

Probe tryCommand(std::vector<std::string> argv) {
    auto ran = runInNetns(-1, std::move(argv)); // the sandbox's own namespace: throwaway
    if (ran)
        return {true, {}};
    return {false, ran.error().message};
}

Probe tryOwnNamespaces() {
    const pid_t child = fork();
    if (child == 0)
        _exit(unshare(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWPID | CLONE_NEWCGROUP) == 0 ? 0
                                                                                        : errno);
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status))
        return {false, QStringLiteral("cannot fork")};
    if (WEXITSTATUS(status) == 0)
        return {true, QStringLiteral("own mount, PID, UTS and cgroup namespaces")};
    return {false, QStringLiteral("cannot create mount, PID, UTS and cgroup namespaces: %1")
                       .arg(QString::fromLocal8Bit(std::strerror(WEXITSTATUS(status))))};
}

Probe missing(const char* what, const char* package) {
    return {false, QStringLiteral("%1 is not installed (Debian package %2)")
                       .arg(QLatin1String(what), QLatin1String(package))};
}

// Runs inside the sandbox: each probe creates what its mode needs, in the sandbox's own
// namespace, which vanishes with it.
std::map<LabMode, Probe> probeModes() {
    std::map<LabMode, Probe> probes;
    if (findInPath("ip").empty()) {
        for (const LabMode mode : labModes())
            probes[mode] = missing("ip", "iproute2");
        return probes;
    }
    const Probe veth =
        tryCommand({"ip", "link", "add", "lab-t0", "type", "veth", "peer", "name", "lab-t1"});
    if (!veth.ok) {
        for (const LabMode mode : labModes())
            probes[mode] = {false, QStringLiteral("no veth pair for the wire: %1").arg(veth.text)};
        return probes;
    }
    probes[LabMode::Host] = {true, {}};
    probes[LabMode::HostNetwork] = tryOwnNamespaces();
    const Probe bridge = tryCommand({"ip", "link", "add", "lab-tb", "type", "bridge"});
    probes[LabMode::Bridge] = bridge;
    Probe nat = bridge;
    if (nat.ok && findInPath("nft").empty())
        nat = missing("nft", "nftables");
    if (nat.ok)
        nat = tryCommand({"nft", "add", "table", "ip", "loadscope_check"});
    if (nat.ok)
        nat = tryCommand({"nft", "add", "chain", "ip", "loadscope_check", "prerouting",
                          "{ type nat hook prerouting priority dstnat; policy accept; }"});
    probes[LabMode::Nat] = nat;
    // kube-proxy's nftables mode: a DNAT per endpoint in a chain of its own, the endpoint chosen
    // by numgen into a verdict map; the kernel must take both (nft_numgen, NAT in a chain
    // jumped to from the prerouting hook).
    Probe clusterIp = nat;
    if (clusterIp.ok && findInPath("nsenter").empty())
        clusterIp = missing("nsenter", "util-linux"); // starts each backend in its pod
    if (clusterIp.ok)
        clusterIp = tryCommand({"nft", "add", "chain", "ip", "loadscope_check", "endpoint-0"});
    if (clusterIp.ok)
        clusterIp = tryCommand({"nft", "add", "rule", "ip", "loadscope_check", "endpoint-0", "meta",
                                "l4proto", "{ tcp, udp }", "dnat", "to", "10.213.2.11:8080"});
    if (clusterIp.ok) {
        clusterIp =
            tryCommand({"nft", "add", "rule", "ip", "loadscope_check", "prerouting", "ip", "daddr",
                        "10.213.3.10", "tcp", "dport", "80", "numgen", "random", "mod", "2", "vmap",
                        "{ 0 : goto endpoint-0, 1 : goto endpoint-0 }"});
        if (!clusterIp.ok)
            clusterIp.text =
                QStringLiteral("nftables cannot spread with numgen here (%1)").arg(clusterIp.text);
    }
    probes[LabMode::ClusterIp] = clusterIp;
    probes[LabMode::PodBridge] = bridge;
    // NodePort: what cluster-ip needs, and the fib expression that finds the node's own addresses
    // (nft_fib) and the mark kube-proxy masquerades by.
    Probe nodePort = clusterIp;
    if (nodePort.ok) {
        nodePort = tryCommand(
            {"nft",   "add",  "rule",  "ip",  "loadscope_check", "prerouting", "fib",
             "daddr", "type", "local", "tcp", "dport",           "30080",      "meta",
             "mark",  "set",  "mark",  "or",  "0x4000",          "goto",       "endpoint-0"});
        if (!nodePort.ok)
            nodePort.text =
                QStringLiteral("nftables has no fib expression here (%1)").arg(nodePort.text);
    }
    if (nodePort.ok)
        nodePort = tryCommand({"nft", "add", "chain", "ip", "loadscope_check", "postrouting",
                               "{ type nat hook postrouting priority srcnat; policy accept; }"});
    if (nodePort.ok)
        nodePort = tryCommand({"nft", "add", "rule", "ip", "loadscope_check", "postrouting", "meta",
                               "mark", "and", "0x4000", "==", "0x4000", "masquerade"});
    probes[LabMode::NodePort] = nodePort;
    Probe vxlan = bridge;
    if (vxlan.ok) {
        vxlan = tryCommand({"ip", "link", "add", "lab-tx", "type", "vxlan", "id", "1", "dstport",
                            "4789", "dev", "lab-t0"});
        if (!vxlan.ok)
            vxlan.text = QStringLiteral("the kernel has no VXLAN support (%1)").arg(vxlan.text);
    }
    probes[LabMode::OverlayVxlan] = vxlan;
    // The sidecar: a pod on the bridge, nftables' redirect in the pod's namespace, and nsenter
    // to start the proxy beside the server; the proxy is the embedded relay, always there.
    Probe sidecar = nat;
    if (sidecar.ok && findInPath("nsenter").empty())
        sidecar = missing("nsenter", "util-linux");
    if (sidecar.ok)
        sidecar = tryCommand({"nft", "add", "rule", "ip", "loadscope_check", "prerouting", "tcp",
                              "dport", "8080", "redirect", "to", ":15006"});
    if (sidecar.ok)
        sidecar.text = QStringLiteral("embedded relay");
    probes[LabMode::Sidecar] = sidecar;
    Probe proxy = bridge;
    if (proxy.ok)
        proxy.text = findInPath("docker-proxy").empty()
                         ? QStringLiteral("embedded proxy; docker-proxy is not installed, Debian "
                                          "package docker.io")
                         : QStringLiteral("docker-proxy");
    probes[LabMode::UserlandProxy] = proxy;
    probes[LabMode::Macvlan] = tryCommand(
        {"ip", "link", "add", "lab-tm", "link", "lab-t0", "type", "macvlan", "mode", "bridge"});
    Probe ipvlan = tryCommand(
        {"ip", "link", "add", "lab-ti", "link", "lab-t0", "type", "ipvlan", "mode", "l2"});
    if (!ipvlan.ok)
        ipvlan.text = QStringLiteral("the kernel has no ipvlan support (%1)").arg(ipvlan.text);
    probes[LabMode::Ipvlan] = ipvlan;
    const QString ovs = unbuiltModeReason(LabMode::Ovs);
    probes[LabMode::Ovs] = {ovs.isEmpty(),
                            ovs.isEmpty() ? QStringLiteral("userspace datapath") : ovs};
    const QString rootless = unbuiltModeReason(LabMode::RootlessNat);
    probes[LabMode::RootlessNat] = {rootless.isEmpty(),
                                    rootless.isEmpty() ? QStringLiteral("slirp4netns") : rootless};
    return probes;
}

} // namespace

Result<std::vector<ModeAvailability>> checkModes() {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0)
        return makeError(ErrorCode::Io, QStringLiteral("pipe failed"));
    auto status = runInSandbox([&] {
        close(report[0]);
        QByteArray lines;
        for (const auto& [mode, probe] : probeModes()) {
            QString reason = probe.text;
            reason.replace(QLatin1Char('\n'), QLatin1Char(' '));
            lines += labModeId(mode).toUtf8() + '\t' + (probe.ok ? '1' : '0') + '\t' +
                     reason.toUtf8() + '\n';
        }
        const bool sent = write(report[1], lines.constData(), size_t(lines.size())) == lines.size();
        close(report[1]);
        return sent ? 0 : 1;
    });
    close(report[1]);
    QByteArray received;
    char buffer[4096];
    ssize_t got;
    while ((got = read(report[0], buffer, sizeof buffer)) > 0 || (got < 0 && errno == EINTR)) {
        if (got > 0)
            received.append(buffer, got);
    }
    close(report[0]);
    if (!status)
        return status.error();
    std::map<LabMode, ModeAvailability> found;
    for (const QByteArray& line : received.split('\n')) {
        const QList<QByteArray> fields = line.split('\t');
        if (fields.size() != 3)
            continue;
        if (const auto mode = labModeFromId(QString::fromUtf8(fields[0])))
            found[*mode] = {*mode, fields[1] == "1", QString::fromUtf8(fields[2])};
    }
    std::vector<ModeAvailability> modes;
    for (const LabMode mode : labModes()) {
        const auto at = found.find(mode);
        modes.push_back(at != found.end()
                            ? at->second
                            : ModeAvailability{mode, false,
                                               QStringLiteral("the sandbox's check did not finish "
                                                              "(exit status %1)")
                                                   .arg(*status)});
    }
    return modes;
}

std::vector<ServerAvailability> checkServers(const std::string& cliPath) {
    std::vector<ServerAvailability> servers;
    for (const LabServerKind kind : labServerKinds()) {
        auto version = labServerVersion(kind, cliPath);
        servers.push_back({kind, version.ok(), version ? *version : version.error().message});
    }
    return servers;
}

ServerHostReach serverHostReach(LabMode mode) {
    if (const QString why = labServerHostRefusal(labModeId(mode)); !why.isEmpty())
        return {true, why};
    switch (mode) {
    case LabMode::Host:
    case LabMode::HostNetwork:
        return {false, QStringLiteral("the server on 127.0.0.1 directly")};
    case LabMode::UserlandProxy: {
        const std::string dockerProxy = findInPath("docker-proxy");
        return {false, dockerProxy.empty()
                           ? QStringLiteral("the published port on 127.0.0.1 through the embedded "
                                            "relay (docker-proxy is not on PATH)")
                           : QStringLiteral("the published port on 127.0.0.1 through docker-proxy "
                                            "(%1)")
                                 .arg(QString::fromStdString(dockerProxy))};
    }
    case LabMode::Nat:
        return {false, QStringLiteral("the published port on 127.0.0.1 DNATed at nftables' output "
                                      "hook, as Docker without its userland proxy: needs "
                                      "route_localnet on the container bridge and a masquerade, "
                                      "both set in the sandbox")};
    case LabMode::NodePort:
        return {false, QStringLiteral("the node's own address, DNATed at nftables' output hook "
                                      "(kube-proxy's nat-output chain)")};
    case LabMode::ClusterIp:
        return {false, QStringLiteral("the Service's address, DNATed at nftables' output hook "
                                      "(kube-proxy's nat-output chain; a route to the Service "
                                      "range through the pod bridge)")};
    case LabMode::RootlessNat:
        return {false, QStringLiteral("the host's own address, where slirp4netns publishes the "
                                      "port")};
    case LabMode::Bridge:
        return {false,
                QStringLiteral("the container's address, from the host's port on the bridge")};
    case LabMode::PodBridge:
    case LabMode::Sidecar:
        return {false, QStringLiteral("the pod's address, from the node's pod bridge")};
    case LabMode::Ovs:
    case LabMode::Macvlan:
    case LabMode::Ipvlan:
    case LabMode::OverlayVxlan:
        break;
    }
    return {true, QStringLiteral("not a mode the lab builds")};
}

} // namespace loadscope::app::lab
