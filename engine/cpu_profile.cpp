#include "engine/cpu_profile.h"

namespace loadscope::engine {

namespace {

struct Names {
    std::string_view id;
    std::string_view label;
};

constexpr std::array<Names, kProcessRoleCount> kRoles{{
    {"client", "Client"},
    {"server", "Server"},
    {"relay", "Relay"},
    {"other", "Other"},
    {"kernel", "Kernel"},
}};

constexpr std::array<Names, kCpuPathCount> kPaths{{
    {"user", "user space"},
    {"tcp_ip", "TCP/IP"},
    {"socket", "socket/syscall"},
    {"copy", "copy"},
    {"conntrack", "conntrack"},
    {"nat", "NAT"},
    {"nftables", "nftables rules"},
    {"bridge", "bridge"},
    {"veth", "veth"},
    {"macvlan", "macvlan"},
    {"ovs", "OVS"},
    {"tap", "tun/tap, packet"},
    {"softirq", "softirq/NAPI"},
    {"scheduler", "scheduler"},
    {"other_kernel", "other kernel"},
}};

} // namespace

std::string_view processRoleId(ProcessRole role) {
    return kRoles[size_t(role)].id;
}

std::string_view cpuPathId(CpuPath path) {
    return kPaths[size_t(path)].id;
}

std::string_view processRoleLabel(ProcessRole role) {
    return kRoles[size_t(role)].label;
}

std::string_view cpuPathLabel(CpuPath path) {
    return kPaths[size_t(path)].label;
}

std::optional<ProcessRole> processRoleFromId(std::string_view id) {
    for (size_t i = 0; i < kRoles.size(); ++i)
        if (kRoles[i].id == id)
            return ProcessRole(i);
    return std::nullopt;
}

std::optional<CpuPath> cpuPathFromId(std::string_view id) {
    for (size_t i = 0; i < kPaths.size(); ++i)
        if (kPaths[i].id == id)
            return CpuPath(i);
    return std::nullopt;
}

uint64_t CpuProfile::roleSamples(ProcessRole role) const {
    uint64_t sum = 0;
    for (const uint64_t n : counts[size_t(role)])
        sum += n;
    return sum;
}

uint64_t CpuProfile::pathSamples(CpuPath path) const {
    uint64_t sum = 0;
    for (size_t role = 0; role < kProcessRoleCount; ++role)
        if (ProcessRole(role) != ProcessRole::Other)
            sum += counts[role][size_t(path)];
    return sum;
}

uint64_t CpuProfile::busySamples() const {
    uint64_t sum = 0;
    for (const auto& role : counts)
        for (const uint64_t n : role)
            sum += n;
    return sum;
}

} // namespace loadscope::engine
