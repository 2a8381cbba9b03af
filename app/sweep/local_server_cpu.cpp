#include "app/sweep/local_server_cpu.h"

#include "engine/local_listener.h"

#include <QFileInfo>

namespace loadscope::app {

engine::ServerCpuSource loopbackServerCpu(const engine::SocketAddress& address) {
    engine::ServerCpuSource found;
    const std::string text = address.toString();
    if (text.starts_with("127.") || text.starts_with("[::1]")) {
        if (const auto pid = engine::localListenerPid(address.port()))
            found.pid = *pid;
    }
    return found;
}

LocalServerCpu localServerCpu(const Target& target, const engine::SocketAddress& address) {
    if (target.serverPid <= 0 && target.serverCgroup.isEmpty())
        return {loopbackServerCpu(address), {}};
    LocalServerCpu local;
    QStringList missing;
    if (target.serverPid > 0) {
        if (QFileInfo::exists(QStringLiteral("/proc/%1/stat").arg(target.serverPid))) {
            local.source.pid = target.serverPid;
            local.source.withChildren = true; // a master and its workers
        } else {
            missing.append(QStringLiteral("server PID %1 does not run here").arg(target.serverPid));
        }
    }
    if (!target.serverCgroup.isEmpty()) {
        if (QFileInfo::exists(target.serverCgroup + QStringLiteral("/cpu.stat")) ||
            QFileInfo::exists(target.serverCgroup + QStringLiteral("/cpuacct.usage")))
            local.source.cgroup = target.serverCgroup.toStdString();
        else
            missing.append(QStringLiteral("server cgroup %1 has no cpu.stat or cpuacct.usage")
                               .arg(target.serverCgroup));
    }
    if (!missing.isEmpty()) {
        // Both or neither: half of a server's CPU would pass for all of it.
        local.source = {};
        local.warning =
            missing.join(QStringLiteral(", ")) + QStringLiteral(": its points have no server CPU");
    }
    return local;
}

} // namespace loadscope::app
