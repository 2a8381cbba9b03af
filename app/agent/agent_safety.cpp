#include "app/agent/agent_safety.h"

#include <QHostAddress>
#include <sys/stat.h>

namespace loadscope::app {

AgentEnvironment AgentEnvironment::current() {
    AgentEnvironment env;
    if (qEnvironmentVariableIsSet("LOADSCOPE_LAB_HOST_NETNS")) {
        bool ok = false;
        const uint64_t inode = qEnvironmentVariable("LOADSCOPE_LAB_HOST_NETNS").toULongLong(&ok);
        // A value that is not an inode is no lab: the rule stays loopback only.
        if (ok && inode > 0)
            env.labHostNetns = inode;
    }
    env.labRange = qEnvironmentVariable("LOADSCOPE_LAB_RANGE");
    struct stat self {};
    if (::stat("/proc/self/ns/net", &self) == 0)
        env.ownNetns = uint64_t(self.st_ino);
    return env;
}

Result<void> checkAgentTarget(const engine::SocketAddress& address, const AgentEnvironment& env) {
    QHostAddress host(address.data());
    if (host.isLoopback())
        return {};
    const QString where = QString::fromStdString(address.toString());
    const auto refuse = [&](const QString& why) {
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("refusing to send load to %1: %2").arg(where, why));
    };
    if (!env.labHostNetns)
        return refuse(QStringLiteral("outside the lab (LOADSCOPE_LAB_HOST_NETNS is not set) the "
                                     "agent sends load only to 127.0.0.0/8 or ::1"));
    if (env.ownNetns == 0 || env.ownNetns == *env.labHostNetns)
        return refuse(QStringLiteral("the agent runs in the machine's own network namespace "
                                     "(inode %1), not inside the lab")
                          .arg(*env.labHostNetns));
    const auto range = QHostAddress::parseSubnet(env.labRange);
    if (range.first.isNull())
        return refuse(
            QStringLiteral("LOADSCOPE_LAB_RANGE \"%1\" is not an address range").arg(env.labRange));
    if (!host.isInSubnet(range))
        return refuse(QStringLiteral("not in the lab's range %1").arg(env.labRange));
    return {};
}

} // namespace loadscope::app
