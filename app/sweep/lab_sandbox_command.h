#pragma once

#include "app/common/result.h"
#include "app/session/session.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace loadscope::app {

// The loadscope-cli that starts a lab, looked for in this order: beside this
// executable (the build tree's bin/ and an installation's bin/ hold both
// programs; the CLI finds itself), then on PATH. The error is one line naming
// every place looked.
Result<QString> findCli();

// The command that builds a session's lab and runs the load agent inside it:
//   CLI lab sandbox --mtu N [--client-placement server-host] [--client-cpus L]
//       [--server-cpus L] --modes M,M... --server KIND [--server-opt K=V]... -- CLI lab agent
// `labTargets` are the lab targets the sweep will run; their modes, in order
// and each once, are the lab's. One lab runs one server: targets that ask
// for different servers or server options are refused in one line, and so
// are modes that cannot have the lab's client placement (checkLabClientPlacement).
Result<QStringList> labSandboxCommand(const QString& cli, const Session& session,
                                      const std::vector<const Target*>& labTargets);

} // namespace loadscope::app
