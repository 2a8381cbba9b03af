#include "app/report/agent_report.h"

#include "app/session/cpu_usage.h"

#include <QJsonObject>
#include <QStringList>

namespace loadscope::app {

namespace {

QString signedMs(double ms) {
    return (ms >= 0 ? QStringLiteral("+") : QString()) + QString::number(ms, 'f', 2);
}

} // namespace

QString formatAgentShares(const std::vector<AgentShare>& agents) {
    if (agents.empty())
        return {};
    QString text = QStringLiteral("\nLoad agents (times on this machine's clock):\n");
    for (const AgentShare& agent : agents) {
        QString line = QStringLiteral("  %1").arg(agent.host);
        if (!agent.software.isEmpty())
            line += QStringLiteral(" (%1)").arg(agent.software);
        line += QStringLiteral(": ");
        if (!agent.result.empty()) {
            const PointResult& r = agent.result.front();
            line += QStringLiteral("%1 requests, %2 failed, %3 req/s over %4 s, client CPU %5 %%6")
                        .arg(r.complete)
                        .arg(r.failed)
                        .arg(r.requestsPerSecond(), 0, 'f', 2)
                        .arg(r.durationSeconds, 0, 'f', 3)
                        .arg(100.0 * r.clientCpuLoad(), 0, 'f', 0)
                        .arg(r.clientSaturated || r.clientCpuLoad() >= 0.9
                                 ? QStringLiteral(" (saturated)")
                                 : QString());
            line += QStringLiteral(", clock %1 ms (+/- %2), measured from %3 to %4 ms")
                        .arg(signedMs(agent.clockOffsetMs))
                        .arg(agent.clockUncertaintyMs, 0, 'f', 2)
                        .arg(agent.startMs, 0, 'f', 1)
                        .arg(agent.endMs, 0, 'f', 1);
            line += r.noise.isEmpty() ? QStringLiteral(", quiet")
                                      : QStringLiteral(", noisy: ") + r.noise;
        }
        if (!agent.error.isEmpty())
            line += (agent.result.empty() ? QString() : QStringLiteral("; ")) +
                    QStringLiteral("failed: ") + agent.error;
        text += line + QLatin1Char('\n');
    }
    return text;
}

QJsonArray agentSharesCliJson(const std::vector<AgentShare>& agents) {
    QJsonArray array;
    for (const AgentShare& agent : agents) {
        QJsonObject json{{QStringLiteral("host"), agent.host},
                         {QStringLiteral("software"), agent.software},
                         {QStringLiteral("clock_offset_ms"), agent.clockOffsetMs},
                         {QStringLiteral("clock_uncertainty_ms"), agent.clockUncertaintyMs},
                         {QStringLiteral("start_ms"), agent.startMs},
                         {QStringLiteral("end_ms"), agent.endMs}};
        if (!agent.result.empty()) {
            const PointResult& r = agent.result.front();
            json.insert(QStringLiteral("complete"), double(r.complete));
            json.insert(QStringLiteral("failed"), double(r.failed));
            json.insert(QStringLiteral("duration_s"), r.durationSeconds);
            json.insert(QStringLiteral("requests_per_second"), r.requestsPerSecond());
            json.insert(QStringLiteral("client_cpu_load"), r.clientCpuLoad());
            json.insert(QStringLiteral("client_saturated"), r.clientSaturated);
            json.insert(QStringLiteral("noise"), r.noise);
            json.insert(QStringLiteral("cancelled"), r.cancelled);
        }
        if (!agent.error.isEmpty())
            json.insert(QStringLiteral("error"), agent.error);
        array.append(json);
    }
    return array;
}

QString agentSharesSummary(const std::vector<AgentShare>& agents) {
    QStringList parts;
    for (const AgentShare& agent : agents) {
        if (!agent.error.isEmpty()) {
            parts << QStringLiteral("%1 failed").arg(agent.host);
            continue;
        }
        if (agent.result.empty())
            continue;
        const PointResult& r = agent.result.front();
        QString part = QStringLiteral("%1 %2 req/s, CPU %3 %")
                           .arg(agent.host)
                           .arg(r.requestsPerSecond(), 0, 'f', 0)
                           .arg(100.0 * r.clientCpuLoad(), 0, 'f', 0);
        if (r.clientSaturated || r.clientCpuLoad() >= 0.9)
            part += QStringLiteral(" saturated");
        if (!r.noise.isEmpty())
            part += QStringLiteral(" noisy");
        parts << part;
    }
    return parts.join(QStringLiteral("; "));
}

} // namespace loadscope::app
