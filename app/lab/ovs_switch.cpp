#include "app/lab/ovs_switch.h"

#include "app/lab/netns_command.h"

#include <QFile>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loadscope::app::lab {

QString OvsSwitch::missingPart() {
    // openvswitch-switch brings the rest (openvswitch-common) with it.
    for (const char* program :
         {"ovs-vswitchd", "ovsdb-server", "ovsdb-tool", "ovs-vsctl", "ovs-ofctl"}) {
        if (findInPath(program).empty())
            return QStringLiteral("%1 is not installed (Debian package openvswitch-switch)")
                .arg(QLatin1String(program));
    }
    if (!QFile::exists(QString::fromLatin1(kOvsSchema)))
        return QStringLiteral("%1 is missing (Debian package openvswitch-switch)")
            .arg(QLatin1String(kOvsSchema));
    if (findInPath("ethtool").empty())
        return QStringLiteral("ethtool is not installed (Debian package ethtool)");
    return {};
}

Result<void> OvsSwitch::start(int netnsFd, const std::string& dir, const std::vector<int>& cpus,
                              std::vector<pid_t>& daemons) {
    m_netns = netnsFd;
    m_dir = dir + "/ovs";
    if (mkdir(m_dir.c_str(), 0700) != 0 && errno != EEXIST)
        return makeError(ErrorCode::Io, QStringLiteral("cannot create %1: %2")
                                            .arg(QString::fromStdString(m_dir),
                                                 QString::fromLocal8Bit(std::strerror(errno))));
    const std::string database = m_dir + "/conf.db";
    if (auto created = runInNetns(-1, {"ovsdb-tool", "create", database, kOvsSchema}); !created)
        return created.error();
    // The daemons find their run, database and log directories here when a path is not given.
    const std::vector<std::string> environment = {"OVS_RUNDIR=" + m_dir, "OVS_DBDIR=" + m_dir,
                                                  "OVS_LOGDIR=" + m_dir, "OVS_SYSCONFDIR=" + m_dir};
    const auto daemon = [&](const std::string& name, const std::string& first) {
        SpawnSpec spec;
        spec.netnsFd = netnsFd;
        spec.cpus = cpus;
        spec.environment = environment;
        spec.argv = {name,
                     first,
                     "--pidfile=" + m_dir + "/" + name + ".pid",
                     "--unixctl=" + m_dir + "/" + name + ".ctl",
                     "--log-file=" + m_dir + "/" + name + ".log",
                     "--no-chdir",
                     "-vconsole:off"};
        if (name == "ovsdb-server")
            spec.argv.push_back("--remote=punix:" + m_dir + "/db.sock");
        return spec;
    };
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    auto startOne = [&](SpawnSpec spec) -> Result<void> {
        spec.stdoutFd = null;
        spec.stderrFd = null;
        auto started = spawnInNetns(spec);
        if (!started)
            return started.error();
        daemons.push_back(*started);
        return {};
    };
    Result<void> started = startOne(daemon("ovsdb-server", database));
    // --retry: the database server may not listen yet. userspace-tso-enable: packet sockets
    // with vnet headers, which carry the checksums the client's stack left to its device (a
    // frame read without one would reach the container with a wrong TCP checksum).
    if (started) {
        if (auto ready = vsctl({"--retry", "--no-wait", "init", "--", "set", "Open_vSwitch", ".",
                                "other_config:userspace-tso-enable=true"});
            !ready)
            started = ready.error();
    }
    if (started)
        started = startOne(daemon("ovs-vswitchd", "unix:" + m_dir + "/db.sock"));
    close(null);
    return started;
}

// Frames from the wire reach ovs-vswitchd through a packet socket on the uplink, while the
// server host's own addresses stay on that device for the other modes: the uplink's flows pass
// on only the container's unicast (and every broadcast, for ARP), so other modes' traffic is not
// flooded into the container.
Result<void> OvsSwitch::addBridge(const std::string& name, const std::string& uplink,
                                  const std::string& port, const std::string& portMac) const {
    // One transaction: the bridge exists with both ports or not at all.
    if (auto done = vsctl({"add-br", name, "--", "set", "bridge", name, "datapath_type=netdev",
                           "--", "add-port", name, uplink, "--", "add-port", name, port});
        !done)
        return done;
    for (const std::string& flow :
         {"priority=20,in_port=" + uplink + ",dl_dst=" + portMac + ",actions=NORMAL",
          "priority=10,in_port=" + uplink +
              ",dl_dst=00:00:00:00:00:00/01:00:00:00:00:00,actions=drop"}) {
        if (auto added = ofctl(name, {"add-flow", flow}); !added)
            return added;
    }
    return {};
}

Result<void> OvsSwitch::vsctl(std::vector<std::string> arguments) const {
    arguments.insert(arguments.begin(),
                     {"ovs-vsctl", "--db=unix:" + m_dir + "/db.sock", "--timeout=5"});
    auto ran = runInNetns(m_netns, std::move(arguments));
    if (!ran)
        return ran.error();
    return {};
}

Result<void> OvsSwitch::ofctl(const std::string& bridge, std::vector<std::string> arguments) const {
    arguments.insert(arguments.begin(), {"ovs-ofctl", "--timeout=5"});
    arguments.insert(arguments.begin() + 3, "unix:" + m_dir + "/" + bridge + ".mgmt");
    auto ran = runInNetns(m_netns, std::move(arguments));
    if (!ran)
        return ran.error();
    return {};
}

} // namespace loadscope::app::lab
