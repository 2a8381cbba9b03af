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
    const char* ownId; // the identifier of a mode the session does not know, or nullptr
    const char* alias; // what users type for it, or nullptr
};

constexpr std::array<ModeName, 9> kNames{{
    {LabMode::Host, DeploymentMode::Host, nullptr, nullptr},
    {LabMode::HostNetwork, DeploymentMode::ContainerHostNetwork, nullptr, "host-network"},
    {LabMode::Nat, DeploymentMode::ContainerNat, nullptr, "nat"},
    {LabMode::UserlandProxy, DeploymentMode::UserlandProxy, nullptr, nullptr},
    {LabMode::Bridge, DeploymentMode::LinuxBridge, nullptr, "bridge"},
    {LabMode::Ovs, DeploymentMode::OvsBridge, nullptr, "ovs"},
    {LabMode::Macvlan, DeploymentMode::Macvlan, nullptr, nullptr},
    {LabMode::Ipvlan, std::nullopt, "ipvlan", nullptr},
    {LabMode::RootlessNat, std::nullopt, "rootless-nat", nullptr},
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

} // namespace loadscope::app::lab
