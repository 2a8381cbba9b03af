#include "app/lab/lab_targets.h"

#include "app/lab/lab_topology.h"
#include "app/session/target_rules.h"

#include <QStringList>
#include <algorithm>

namespace loadscope::app::lab {

TargetProtocol labServerProtocol(LabServerKind kind) {
    switch (kind) {
    case LabServerKind::Http:
    case LabServerKind::Nginx:
    case LabServerKind::Apache:
        return TargetProtocol::Http;
    case LabServerKind::Memcached:
        return TargetProtocol::Memcache;
    case LabServerKind::Redis:
        return TargetProtocol::Redis;
    case LabServerKind::Echo:
        return TargetProtocol::TcpRr;
    case LabServerKind::Sink:
        return TargetProtocol::TcpStream;
    case LabServerKind::UdpEcho:
        return TargetProtocol::UdpRr;
    case LabServerKind::UdpSink:
        return TargetProtocol::UdpStream;
    }
    return TargetProtocol::Http;
}

const Target* labTargetOf(const Session& session, LabMode mode) {
    const QString id = labModeId(mode);
    for (const Target& target : session.targets) {
        if (target.lab && target.lab->mode == id)
            return &target;
    }
    return nullptr;
}

Result<LabTargetsEdit> labTargets(const Session& session, const LabTargetChoice& choice) {
    if (choice.modes.empty())
        return invalidInput(QStringLiteral("no lab modes chosen"));
    if (choice.mtu < kMinLabMtu || choice.mtu > kMaxLabMtu)
        return invalidInput(QStringLiteral("MTU %1 is outside %2..%3")
                                .arg(choice.mtu)
                                .arg(kMinLabMtu)
                                .arg(kMaxLabMtu));
    const QString server = labServerKindId(choice.server);
    for (const Target& existing : session.targets) {
        // The sweep refuses a lab of two servers; better said here than at the first point.
        if (existing.lab && existing.lab->server != server)
            return invalidInput(
                QStringLiteral("the session's lab targets run %1 (\u201c%2\u201d): one lab runs "
                               "one server")
                    .arg(existing.lab->server, existing.displayName()));
    }

    LabTargetsEdit edit;
    edit.lab = session.lab.value_or(LabSetup{});
    edit.lab.mtu = choice.mtu;
    edit.lab.client = choice.client;
    edit.plan = session.plan;
    edit.plan.profile = true;
    std::vector<LabMode> modes;
    QStringList present;
    for (LabMode mode : choice.modes) {
        if (std::find(modes.begin(), modes.end(), mode) != modes.end())
            continue;
        // A mode the session's lab already builds keeps its one target: a second would
        // measure the same path again under another name.
        if (const Target* existing = labTargetOf(session, mode)) {
            present << QStringLiteral("%1 (\u201c%2\u201d)")
                           .arg(labModeId(mode), existing->displayName());
            continue;
        }
        modes.push_back(mode);
    }
    if (modes.empty())
        return invalidInput(QStringLiteral("the session has a lab target for every chosen mode "
                                           "already: %1")
                                .arg(present.join(QStringLiteral(", "))));
    // Where the lab serves; the sweep replaces it with the address the lab reports for the
    // mode, but the target is complete (and valid in the editor) before then.
    const QString address =
        QStringLiteral("%1:%2").arg(QLatin1String(kServerHostAddress)).arg(kServicePort);
    int index = int(session.targets.size());
    for (LabMode mode : modes) {
        const QString id = labModeId(mode);
        const std::optional<DeploymentMode> deployment = deploymentModeOf(mode);
        Target target = makeTarget(id, deployment.value_or(DeploymentMode::Custom), index++);
        if (!deployment)
            target.customMode = id;
        target.protocol = labServerProtocol(choice.server);
        if (servesDatagrams(choice.server))
            target.responseTimeoutSeconds = kDefaultUdpTimeoutSeconds;
        if (target.protocol == TargetProtocol::Http)
            target.http.url = QStringLiteral("http://%1/").arg(address);
        else
            target.address = address;
        target.lab = LabPlacement{id, server, {}};
        edit.targets.push_back(std::move(target));
        if (std::find(edit.lab.modes.begin(), edit.lab.modes.end(), id) == edit.lab.modes.end())
            edit.lab.modes.push_back(id);
    }
    if (auto placed = checkLabClientPlacement(edit.lab.client, edit.lab.modes); !placed)
        return placed.error();
    return edit;
}

} // namespace loadscope::app::lab
