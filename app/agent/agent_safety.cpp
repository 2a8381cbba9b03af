#include "app/agent/agent_safety.h"

#include "app/lab/lab_topology.h"

#include <QFile>
#include <QHostAddress>
#include <QList>
#include <algorithm>
#include <arpa/inet.h>
#include <cstring>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/stat.h>

namespace loadscope::app {

namespace {

std::optional<uint64_t> netnsInode(const char* path) {
    struct stat status {};
    if (::stat(path, &status) != 0)
        return std::nullopt;
    return uint64_t(status.st_ino);
}

} // namespace

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
    env.ownNetns = netnsInode("/proc/self/ns/net").value_or(0);
    env.initNetns = netnsInode("/proc/1/ns/net");
    // The links' addresses, from the kernel of this network namespace.
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) == 0) {
        for (const ifaddrs* entry = list; entry; entry = entry->ifa_next) {
            if (!entry->ifa_addr || entry->ifa_addr->sa_family != AF_INET || !entry->ifa_name)
                continue;
            sockaddr_in address{};
            std::memcpy(&address, entry->ifa_addr, sizeof address);
            env.linkAddresses.push_back(
                {QString::fromLocal8Bit(entry->ifa_name), ntohl(address.sin_addr.s_addr)});
        }
        ::freeifaddrs(list);
    }
    // /proc/self/net is the reading process's network namespace, whatever /proc
    // was mounted from; an unreadable table leaves no route, so nothing passes.
    QFile table(QStringLiteral("/proc/self/net/route"));
    if (table.open(QIODevice::ReadOnly))
        env.routes = parseRouteTable(table.readAll());
    return env;
}

std::vector<AgentRoute> parseRouteTable(const QByteArray& table) {
    constexpr unsigned kRouteUp = 0x1; // RTF_UP
    std::vector<AgentRoute> routes;
    const QList<QByteArray> lines = table.split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) { // line 0 names the columns
        const QList<QByteArray> fields = lines.at(i).simplified().split(' ');
        if (fields.size() < 8)
            continue;
        bool destinationOk = false, flagsOk = false, maskOk = false;
        // The kernel prints addresses as the hex of their bytes in memory.
        const uint32_t destination = fields.at(1).toUInt(&destinationOk, 16);
        const unsigned flags = fields.at(3).toUInt(&flagsOk, 16);
        const uint32_t mask = fields.at(7).toUInt(&maskOk, 16);
        if (!destinationOk || !flagsOk || !maskOk || (flags & kRouteUp) == 0)
            continue;
        routes.push_back({QString::fromLatin1(fields.at(0)), ntohl(destination), ntohl(mask)});
    }
    return routes;
}

namespace {

// The route the kernel would take to `address`: the longest matching prefix.
const AgentRoute* routeTo(uint32_t address, const std::vector<AgentRoute>& routes) {
    const AgentRoute* best = nullptr;
    for (const AgentRoute& route : routes) {
        if ((address & route.mask) == (route.destination & route.mask) &&
            (!best || route.mask > best->mask))
            best = &route;
    }
    return best;
}

} // namespace

bool endpointAllowed(const Endpoint& endpoint, const QStringList& allow) {
    for (const QString& text : allow) {
        const auto allowed = parseEndpoint(text);
        if (allowed && allowed->port == endpoint.port &&
            allowed->host.compare(endpoint.host, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

Result<void> checkAgentTarget(const engine::SocketAddress& address, const AgentEnvironment& env,
                              bool allowedByRequest) {
    QHostAddress host(address.data());
    if (host.isLoopback())
        return {};
    const QString where = QString::fromStdString(address.toString());
    const auto refuse = [&](const QString& why) {
        return makeError(ErrorCode::InvalidInput,
                         QStringLiteral("refusing to send load to %1: %2").arg(where, why));
    };
    if (!env.labHostNetns) {
        if (!allowedByRequest)
            return refuse(QStringLiteral(
                "outside the lab (LOADSCOPE_LAB_HOST_NETNS is not set) the agent sends load only "
                "to 127.0.0.0/8 or ::1, and to an endpoint its run request allows"));
        if (host.isNull() || host == QHostAddress::AnyIPv4 || host == QHostAddress::AnyIPv6 ||
            host.isMulticast() || host.isBroadcast())
            return refuse(QStringLiteral("not one host's address"));
        return {};
    }
    if (env.ownNetns == 0 || env.ownNetns == *env.labHostNetns ||
        (env.initNetns && *env.initNetns == env.ownNetns))
        return refuse(QStringLiteral("the agent runs in the machine's own network namespace "
                                     "(inode %1), not inside the lab")
                          .arg(env.ownNetns));
    // The lab is what the lab built, which no variable can claim: its client
    // namespace holds the client's end of the wire with the client's address;
    // the server host's (a client placed there) holds the other end, or the
    // bridge over it, with the server host's address.
    const QString clientLink = QLatin1String(lab::kClientLink);
    const QHostAddress clientAddress{QLatin1String(lab::kClientAddress)};
    const QHostAddress serverHostAddress{QLatin1String(lab::kServerHostAddress)};
    const auto holds = [&](const QStringList& devices, const QHostAddress& linkAddress) {
        return std::any_of(
            env.linkAddresses.begin(), env.linkAddresses.end(), [&](const auto& link) {
                return devices.contains(link.device) && link.address == linkAddress.toIPv4Address();
            });
    };
    const bool labClient = holds({clientLink}, clientAddress);
    const bool labServerHost =
        !labClient && holds({QLatin1String(lab::kServerHostLink), QLatin1String(lab::kWireBridge)},
                            serverHostAddress);
    if (!labClient && !labServerHost)
        return refuse(QStringLiteral("this network namespace is not the lab's client namespace "
                                     "(no link %1 with %2) nor its server host's (no link %3 or "
                                     "%4 with %5), whatever LOADSCOPE_LAB_HOST_NETNS says")
                          .arg(clientLink, clientAddress.toString(),
                               QLatin1String(lab::kServerHostLink), QLatin1String(lab::kWireBridge),
                               serverHostAddress.toString()));
    // The lab's range is the lab's constant; the variable may only narrow it.
    const auto labRange = QHostAddress::parseSubnet(QLatin1String(lab::kLabRange));
    auto range = labRange;
    if (!env.labRange.isEmpty()) {
        range = QHostAddress::parseSubnet(env.labRange);
        if (range.first.isNull())
            return refuse(QStringLiteral("LOADSCOPE_LAB_RANGE \"%1\" is not an address range")
                              .arg(env.labRange));
        if (range.first.protocol() != QAbstractSocket::IPv4Protocol ||
            range.second < labRange.second || !range.first.isInSubnet(labRange))
            return refuse(QStringLiteral("LOADSCOPE_LAB_RANGE %1 is not inside the lab's range "
                                         "%2: it may narrow the range, never widen it")
                              .arg(env.labRange, QLatin1String(lab::kLabRange)));
    }
    const QString rangeText = QStringLiteral("%1/%2").arg(range.first.toString()).arg(range.second);
    if (!host.isInSubnet(range))
        return refuse(QStringLiteral("not in the lab's range %1").arg(rangeText));
    const AgentRoute* route = routeTo(host.toIPv4Address(), env.routes);
    if (!route)
        return refuse(QStringLiteral("no route to it in the agent's network namespace"));
    // The client's links the lab builds: the wire, and its link on the pod bridge (pod-bridge).
    // and its VXLAN device (overlay-vxlan), whose packets leave by the wire. On the server
    // host: its end of the wire (or the bridge over it) and the lab's container and pod bridges.
    const QStringList labLinks =
        labClient
            ? QStringList{clientLink, QLatin1String(lab::kClientPodLink),
                          QLatin1String(lab::kClientOverlayLink)}
            : QStringList{QLatin1String(lab::kServerHostLink), QLatin1String(lab::kWireBridge),
                          QLatin1String(lab::kDockerBridge), QLatin1String(lab::kPodBridge)};
    if (!labLinks.contains(route->device))
        return refuse(QStringLiteral("its route leaves by %1, not by the lab's link %2")
                          .arg(route->device, labLinks.join(QStringLiteral(", "))));
    return {};
}

Result<void> checkConnection(const Target& target, Connector connector,
                             const engine::SocketAddress* address,
                             const AgentEnvironment* environment, bool allowedByRequest) {
    switch (connector) {
    case Connector::ThisProcess:
        if (target.lab)
            return makeError(
                ErrorCode::InvalidInput,
                QStringLiteral("lab target '%1' is reached inside its lab: run the sweep")
                    .arg(target.displayName()));
        return {};
    case Connector::LoadAgent:
        if (!address || !environment)
            return makeError(ErrorCode::Internal,
                             QStringLiteral("refusing to send load for target '%1': its address "
                                            "was not checked")
                                 .arg(target.displayName()));
        return checkAgentTarget(*address, *environment, allowedByRequest);
    }
    return makeError(ErrorCode::Internal, QStringLiteral("unknown connector"));
}

} // namespace loadscope::app
