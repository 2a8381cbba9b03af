#pragma once

#include "app/common/result.h"
#include "app/lab/lab_mode.h"
#include "app/lab/lab_server.h"

#include <QString>
#include <string>
#include <vector>

namespace loadscope::app::lab {

struct ModeAvailability {
    LabMode mode = LabMode::Host;
    bool available = false;
    QString reason; // why not, one line; or, when available, how ("embedded proxy: ...")
};

// Which modes this machine and user can build, found by creating throwaway devices inside a
// sandbox of its own (never a module load, never the machine's own namespace). Blocks for a
// moment: call it off the GUI thread. An error when no sandbox can be made at all (user
// namespaces disabled), saying which sysctl or policy blocks them.
Result<std::vector<ModeAvailability>> checkModes();

// What a load client on the server host (LabClientPlacement::ServerHost) reaches in `mode`, and
// what that needs ("127.0.0.1:8083 through docker-proxy (/usr/sbin/docker-proxy)"), or why the
// mode cannot have it (`refused`). Whether the mode itself can be built is checkModes()'s.
struct ServerHostReach {
    bool refused = false;
    QString text;
};
ServerHostReach serverHostReach(LabMode mode);

struct ServerAvailability {
    LabServerKind kind = LabServerKind::Http;
    bool available = false;
    QString detail; // the version, or why it cannot run (the package to install)
};

// Every server kind, with its version or the reason it cannot run. `cliPath`: the loadscope-cli
// executable that runs the embedded servers.
std::vector<ServerAvailability> checkServers(const std::string& cliPath);

} // namespace loadscope::app::lab
