#pragma once

#include "app/common/result.h"

#include <QString>
#include <string>
#include <sys/types.h>
#include <vector>

namespace loadscope::app::lab {

// Open vSwitch's schema, from which the lab creates a database of its own.
inline constexpr const char* kOvsSchema = "/usr/share/openvswitch/vswitch.ovsschema";

// An Open vSwitch of the lab's own in one namespace of the sandbox: its own database, created
// from the schema, and its own ovsdb-server and ovs-vswitchd, every socket, pidfile and log in
// `dir` (the machine's /var/run/openvswitch is never used). The daemons are children of the
// caller and die with the sandbox's PID namespace.
class OvsSwitch {
public:
    // What of Open vSwitch (and ethtool, which the OVS mode needs) is not installed, with its
    // Debian package; empty when everything is.
    static QString missingPart();

    // Starts both daemons in `netnsFd`, pinned to `cpus`, and appends their pids to `daemons`
    // (the caller stops them); returns once ovsdb-server answers.
    Result<void> start(int netnsFd, const std::string& dir, const std::vector<int>& cpus,
                       std::vector<pid_t>& daemons);
    // A bridge with the userspace datapath and two ports: `uplink`, the wire, and `port`, a
    // container's veth whose peer has the MAC `portMac`.
    Result<void> addBridge(const std::string& name, const std::string& uplink,
                           const std::string& port, const std::string& portMac) const;

private:
    // ovs-vsctl against the lab's database; waits (at most 5 s) for ovs-vswitchd to apply it.
    Result<void> vsctl(std::vector<std::string> arguments) const;
    // ovs-ofctl against one bridge of the lab's switch.
    Result<void> ofctl(const std::string& bridge, std::vector<std::string> arguments) const;

    int m_netns = -1;
    std::string m_dir;
};

} // namespace loadscope::app::lab
