#include "app/session/target.h"

#include <array>

namespace loadscope::app {

namespace {

struct ModeNames {
    DeploymentMode mode;
    const char* id;
    const char* title;
};

// Identifiers are written to files and CSV: never change them.
constexpr std::array<ModeNames, 15> kModeNames{{
    {DeploymentMode::Host, "host", "Host"},
    {DeploymentMode::ContainerHostNetwork, "container-host-network", "Container (host network)"},
    {DeploymentMode::ContainerNat, "container-nat", "Container (NAT port mapping)"},
    {DeploymentMode::LinuxBridge, "linux-bridge", "Linux bridge"},
    {DeploymentMode::OvsBridge, "ovs-bridge", "OVS bridge"},
    {DeploymentMode::Macvlan, "macvlan", "macvlan"},
    {DeploymentMode::UserlandProxy, "userland-proxy", "Userland proxy"},
    {DeploymentMode::Ipvlan, "ipvlan", "ipvlan"},
    {DeploymentMode::RootlessNat, "rootless-nat", "Rootless NAT (slirp4netns)"},
    {DeploymentMode::ClusterIp, "cluster-ip", "Kubernetes ClusterIP"},
    {DeploymentMode::PodBridge, "pod-bridge", "Kubernetes pods on one node's bridge"},
    {DeploymentMode::NodePort, "node-port", "Kubernetes NodePort"},
    {DeploymentMode::OverlayVxlan, "overlay-vxlan", "Kubernetes overlay (VXLAN)"},
    {DeploymentMode::Sidecar, "sidecar", "Kubernetes pod with a sidecar proxy"},
    {DeploymentMode::Custom, "custom", "Other"},
}};

struct ProtocolNames {
    TargetProtocol protocol;
    const char* id;
};

constexpr std::array<ProtocolNames, kTargetProtocolCount> kProtocolNames{{
    {TargetProtocol::Http, "http"},
    {TargetProtocol::Memcache, "memcache"},
    {TargetProtocol::TcpRr, "tcp-rr"},
    {TargetProtocol::TcpStream, "tcp-stream"},
    {TargetProtocol::UdpRr, "udp-rr"},
    {TargetProtocol::UdpStream, "udp-stream"},
    {TargetProtocol::Redis, "redis"},
}};

} // namespace

const std::vector<DeploymentMode>& deploymentModes() {
    static const std::vector<DeploymentMode> modes{
        DeploymentMode::Host,          DeploymentMode::ContainerHostNetwork,
        DeploymentMode::ContainerNat,  DeploymentMode::LinuxBridge,
        DeploymentMode::OvsBridge,     DeploymentMode::Macvlan,
        DeploymentMode::UserlandProxy, DeploymentMode::Ipvlan,
        DeploymentMode::RootlessNat,   DeploymentMode::ClusterIp,
        DeploymentMode::PodBridge,     DeploymentMode::NodePort,
        DeploymentMode::OverlayVxlan,  DeploymentMode::Sidecar};
    return modes;
}

QString deploymentModeId(DeploymentMode mode) {
    for (const auto& names : kModeNames) {
        if (names.mode == mode)
            return QString::fromLatin1(names.id);
    }
    return {};
}

std::optional<DeploymentMode> deploymentModeFromId(QStringView id) {
    for (const auto& names : kModeNames) {
        if (names.mode != DeploymentMode::Custom && id == QLatin1StringView(names.id))
            return names.mode;
    }
    return std::nullopt;
}

QString deploymentModeTitle(DeploymentMode mode) {
    for (const auto& names : kModeNames) {
        if (names.mode == mode)
            return QString::fromLatin1(names.title);
    }
    return {};
}

QString labClientPlacementId(LabClientPlacement placement) {
    return placement == LabClientPlacement::ServerHost ? QStringLiteral("server-host")
                                                       : QStringLiteral("wire");
}

std::optional<LabClientPlacement> labClientPlacementFromId(QStringView id) {
    if (id == u"wire")
        return LabClientPlacement::Wire;
    if (id == u"server-host")
        return LabClientPlacement::ServerHost;
    return std::nullopt;
}

const std::vector<QString>& labModeIds() {
    static const std::vector<QString> ids = [] {
        std::vector<QString> all;
        for (DeploymentMode mode : deploymentModes())
            all.push_back(deploymentModeId(mode));
        return all;
    }();
    return ids;
}

const std::vector<QString>& labServerKinds() {
    static const std::vector<QString> kinds{
        QStringLiteral("http"),     QStringLiteral("echo"),     QStringLiteral("sink"),
        QStringLiteral("nginx"),    QStringLiteral("apache"),   QStringLiteral("memcached"),
        QStringLiteral("udp-echo"), QStringLiteral("udp-sink"), QStringLiteral("redis")};
    return kinds;
}

const std::vector<TargetProtocol>& targetProtocols() {
    static const std::vector<TargetProtocol> protocols{
        TargetProtocol::Http,      TargetProtocol::Memcache, TargetProtocol::TcpRr,
        TargetProtocol::TcpStream, TargetProtocol::UdpRr,    TargetProtocol::UdpStream,
        TargetProtocol::Redis};
    return protocols;
}

QString targetProtocolId(TargetProtocol protocol) {
    for (const auto& names : kProtocolNames) {
        if (names.protocol == protocol)
            return QString::fromLatin1(names.id);
    }
    return {};
}

std::optional<TargetProtocol> targetProtocolFromId(QStringView id) {
    for (const auto& names : kProtocolNames) {
        if (id == QLatin1StringView(names.id))
            return names.protocol;
    }
    return std::nullopt;
}

QString Target::modeLabel() const {
    if (mode == DeploymentMode::Custom)
        return customMode.trimmed().isEmpty() ? deploymentModeId(mode) : customMode.trimmed();
    return deploymentModeId(mode);
}

QString Target::displayName() const {
    const QString trimmed = name.trimmed();
    return trimmed.isEmpty() ? modeLabel() : trimmed;
}

QString Target::endpoint() const {
    if (protocol == TargetProtocol::Http)
        return address.isEmpty() ? http.url : http.url + QStringLiteral(" via ") + address;
    return address;
}

const std::vector<QString>& defaultTargetColours() {
    // Okabe-Ito: distinguishable with the common colour-vision deficiencies. Its black is
    // replaced by Tol's wine: a black bar or line read as the chart's own ink (axes, error
    // bars, labels), not as a target.
    static const std::vector<QString> colours{QStringLiteral("#0072b2"), QStringLiteral("#e69f00"),
                                              QStringLiteral("#009e73"), QStringLiteral("#d55e00"),
                                              QStringLiteral("#cc79a7"), QStringLiteral("#56b4e9"),
                                              QStringLiteral("#f0e442"), QStringLiteral("#882255")};
    return colours;
}

Target makeTarget(const QString& name, DeploymentMode mode, int index) {
    Target target;
    target.id = QUuid::createUuid();
    target.name = name;
    target.mode = mode;
    const auto& colours = defaultTargetColours();
    const auto count = static_cast<int>(colours.size());
    target.colour = colours[static_cast<size_t>(((index % count) + count) % count)];
    return target;
}

bool isValidColour(const QString& colour) {
    if (colour.size() != 7 || colour.at(0) != QLatin1Char('#'))
        return false;
    for (qsizetype i = 1; i < colour.size(); ++i) {
        const QChar c = colour.at(i);
        const bool hex = (c >= QLatin1Char('0') && c <= QLatin1Char('9')) ||
                         (c >= QLatin1Char('a') && c <= QLatin1Char('f')) ||
                         (c >= QLatin1Char('A') && c <= QLatin1Char('F'));
        if (!hex)
            return false;
    }
    return true;
}

} // namespace loadscope::app
