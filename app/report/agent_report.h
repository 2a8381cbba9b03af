#pragma once

#include "app/session/point_result.h"

#include <QJsonArray>
#include <QString>
#include <vector>

namespace loadscope::app {

// The "Load agents" block of a report of a point loaded from several hosts:
// a line per host with its requests, rate over its own time, client CPU
// (saturated or not), noise, clock offset and where its measured time lay
// in the common window, or why it failed. Empty without agents.
QString formatAgentShares(const std::vector<AgentShare>& agents);

// The same for the CLI's --json: per host its figures, not its whole result.
QJsonArray agentSharesCliJson(const std::vector<AgentShare>& agents);

// One line per host, for a run log's note: "load1 4802 req/s, CPU 41 %".
QString agentSharesSummary(const std::vector<AgentShare>& agents);

} // namespace loadscope::app
