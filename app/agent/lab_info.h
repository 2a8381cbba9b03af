#pragma once

#include "app/common/result.h"

#include <QByteArrayView>
#include <QJsonObject>
#include <QString>
#include <cstdint>
#include <vector>

namespace loadscope::app {

// Where one mode of a built lab serves.
struct LabModeEndpoint {
    QString mode;    // lab mode id ("container-nat")
    QString label;   // what the lab calls it ("NAT (nftables DNAT)", "OVS userspace")
    QString address; // numeric, inside the lab's range
    uint16_t port = 0;
    QString path; // the network path the lab built, as it describes it
    // The mode's server process as /proc names it, whose CPU and its children's is the
    // server's; 0 when the lab did not say (an older lab, /proc unreadable).
    int serverPid = 0;
};

// The one line `loadscope-cli lab sandbox` prints before its command's output:
// {"lab":{"mtu":1500,"clientPlacement":"wire","modes":[{"mode","label","address","port","path",
//  "serverPid"}],"versions":{...},"hostNetns":inode}}.
struct LabInfo {
    int mtu = 0;
    std::vector<LabModeEndpoint> modes;
    QJsonObject versions; // tool name -> version, as the lab reports them
    uint64_t hostNetns = 0;
    // Where the lab's command, the load's client, runs: "wire" (the client namespace; a lab
    // line without the key) or "server-host" (the server host's namespace).
    QString clientPlacement;
    QJsonObject json; // the "lab" object as printed, to keep beside results

    const LabModeEndpoint* find(const QString& mode) const;
};

struct RunEnvironment;
// Records in `environment` where a point of `mode` ran in the lab: the MTU,
// the mode's path, where the client stood and the versions, as results keep them.
void recordLabEnvironment(RunEnvironment& environment, const LabInfo& lab, const QString& mode);

// True when `line` is a JSON object with a "lab" key (whatever else is wrong with it).
bool isLabLine(QByteArrayView line);
// The lab line read, or one Format error naming the field.
Result<LabInfo> labInfoFromLine(QByteArrayView line);

} // namespace loadscope::app
