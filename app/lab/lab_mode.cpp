#include "app/lab/lab_mode.h"

#include <array>
#include <utility>

namespace loadscope::app::lab {

namespace {

struct ModeName {
    LabMode mode;
    const char* id;
    const char* alias; // what users type for it, or nullptr
};

constexpr std::array<ModeName, 9> kNames{{
    {LabMode::Host, "host", nullptr},
    {LabMode::HostNetwork, "container-host-network", "host-network"},
    {LabMode::Nat, "container-nat", "nat"},
    {LabMode::UserlandProxy, "userland-proxy", nullptr},
    {LabMode::Bridge, "linux-bridge", "bridge"},
    {LabMode::Ovs, "ovs-bridge", "ovs"},
    {LabMode::Macvlan, "macvlan", nullptr},
    {LabMode::Ipvlan, "ipvlan", nullptr},
    {LabMode::RootlessNat, "rootless-nat", nullptr},
}};

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
    for (const ModeName& name : kNames) {
        if (name.mode == mode)
            return QString::fromLatin1(name.id);
    }
    return {};
}

std::optional<LabMode> labModeFromId(QStringView id) {
    for (const ModeName& name : kNames) {
        if (id == QLatin1String(name.id) || (name.alias && id == QLatin1String(name.alias)))
            return name.mode;
    }
    return std::nullopt;
}

std::optional<DeploymentMode> deploymentModeOf(LabMode mode) {
    switch (mode) {
    case LabMode::Host:
        return DeploymentMode::Host;
    case LabMode::HostNetwork:
        return DeploymentMode::ContainerHostNetwork;
    case LabMode::Nat:
        return DeploymentMode::ContainerNat;
    case LabMode::UserlandProxy:
        return DeploymentMode::UserlandProxy;
    case LabMode::Bridge:
        return DeploymentMode::LinuxBridge;
    case LabMode::Ovs:
        return DeploymentMode::OvsBridge;
    case LabMode::Macvlan:
        return DeploymentMode::Macvlan;
    case LabMode::Ipvlan:
    case LabMode::RootlessNat:
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace loadscope::app::lab
