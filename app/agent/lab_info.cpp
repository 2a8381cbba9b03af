#include "app/agent/lab_info.h"

#include "app/session/json_reader.h"
#include "app/session/point_result.h"
#include "app/session/target.h"
#include "app/session/target_rules.h"

#include <QJsonDocument>

namespace loadscope::app {

const LabModeEndpoint* LabInfo::find(const QString& mode) const {
    for (const LabModeEndpoint& endpoint : modes) {
        if (endpoint.mode == mode)
            return &endpoint;
    }
    return nullptr;
}

void recordLabEnvironment(RunEnvironment& environment, const LabInfo& lab, const QString& mode) {
    environment.labMtu = lab.mtu;
    const LabModeEndpoint* endpoint = lab.find(mode);
    environment.labPath = endpoint ? endpoint->path : QString();
    environment.labClient = lab.clientPlacement;
    QStringList versions;
    for (auto it = lab.versions.begin(); it != lab.versions.end(); ++it)
        versions << it.key() + QLatin1Char(' ') + it.value().toString();
    environment.labVersions = versions.join(QStringLiteral(", "));
}

namespace {

QJsonObject objectOf(QByteArrayView line) {
    return QJsonDocument::fromJson(line.toByteArray()).object();
}

} // namespace

bool isLabLine(QByteArrayView line) {
    return objectOf(line).contains(QStringLiteral("lab"));
}

Result<LabInfo> labInfoFromLine(QByteArrayView line) {
    const QJsonObject root = objectOf(line);
    if (!root.contains(QStringLiteral("lab")))
        return makeError(ErrorCode::Format, QStringLiteral("not a lab line"));
    const JsonReader json(root);
    const JsonReader lab = json.object(u"lab");
    LabInfo info;
    info.mtu = int(lab.integer(u"mtu", 68, 65535));
    const JsonArrayReader modes = lab.array(u"modes");
    for (qsizetype i = 0; i < modes.size() && json.ok(); ++i) {
        const JsonReader mode = modes.objectAt(i);
        LabModeEndpoint endpoint;
        endpoint.mode = mode.string(u"mode");
        endpoint.label = mode.string(u"label", endpoint.mode);
        endpoint.address = mode.string(u"address");
        endpoint.port = uint16_t(mode.integer(u"port", 1, 65535));
        endpoint.path = mode.string(u"path", {});
        endpoint.serverPid = int(mode.integer(u"serverPid", 1, kMaxPid, 0));
        info.modes.push_back(std::move(endpoint));
    }
    if (const auto versions = lab.optionalObject(u"versions"))
        info.versions = versions->json();
    info.hostNetns = lab.count(u"hostNetns", 0);
    info.clientPlacement =
        lab.string(u"clientPlacement", labClientPlacementId(LabClientPlacement::Wire));
    if (json.ok() && !labClientPlacementFromId(info.clientPlacement))
        lab.failUnknownValue(u"clientPlacement", info.clientPlacement);
    info.json = lab.json();
    return json.result(std::move(info));
}

} // namespace loadscope::app
