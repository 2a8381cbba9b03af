#include "ui/shell/target_field_checks.h"

#include "app/session/target_rules.h"
#include "app/sweep/load_spec_builder.h"
#include "engine/http_protocol.h"

#include <QFileInfo>

namespace loadscope::ui {

QString urlProblem(const QString& url) {
    if (url.trimmed().isEmpty())
        return QObject::tr("Enter the URL to load, e.g. http://127.0.0.1:8080/");
    std::string error;
    if (!engine::parseHttpUrl(url.trimmed().toStdString(), &error))
        return QString::fromStdString(error);
    return {};
}

QString addressProblem(const QString& address, bool required) {
    if (address.trimmed().isEmpty())
        return required ? QObject::tr("Enter HOST:PORT, e.g. 127.0.0.1:11211") : QString();
    const auto endpoint = app::parseEndpoint(address);
    return endpoint ? QString() : endpoint.error().message;
}

QString keyPatternProblem(const QString& pattern) {
    if (!app::checkKeyPattern(pattern))
        return QObject::tr("Use SET:GET with R (random), S (sequential) or G (Gaussian), "
                           "e.g. R:R");
    return {};
}

QString headerNameProblem(const QString& name) {
    const auto checked = app::checkHeaderName(name);
    return checked ? QString() : checked.error().message;
}

QString headerValueProblem(const QString& name, const QString& value) {
    const auto checked = app::checkHeaderValue(name, value);
    return checked ? QString() : checked.error().message;
}

QString unsignedNumberProblem(const QString& text) {
    bool ok = false;
    text.trimmed().toULongLong(&ok);
    return ok ? QString() : QObject::tr("'%1' is not a whole number of 0 or more").arg(text);
}

QString serverPidProblem(const QString& text) {
    if (text.trimmed().isEmpty())
        return {};
    const auto pid = app::parseServerPid(text);
    return pid ? QString() : pid.error().message;
}

QString serverCgroupProblem(const QString& path) {
    if (path.trimmed().isEmpty())
        return {};
    const auto checked = app::checkServerCgroup(path.trimmed());
    return checked ? QString() : checked.error().message;
}

QString serverCpuWarning(const app::Target& target) {
    if (!target.serverHost.isEmpty())
        return {}; // the PID and cgroup are the server host's, not this machine's
    QStringList missing;
    if (target.serverPid > 0 &&
        !QFileInfo::exists(QStringLiteral("/proc/%1/stat").arg(target.serverPid)))
        missing.append(QObject::tr("no process %1 runs on this machine now").arg(target.serverPid));
    if (!target.serverCgroup.isEmpty() &&
        !QFileInfo::exists(target.serverCgroup + QStringLiteral("/cpu.stat")) &&
        !QFileInfo::exists(target.serverCgroup + QStringLiteral("/cpuacct.usage")))
        missing.append(QObject::tr("%1 has no cpu.stat or cpuacct.usage").arg(target.serverCgroup));
    if (missing.isEmpty())
        return {};
    return QObject::tr("Warning: %1; a sweep here would record no server CPU for this target.")
        .arg(missing.join(QStringLiteral("; ")));
}

QString targetProblem(const app::Target& target) {
    if (target.protocol == app::TargetProtocol::Http)
        return {}; // its fields are checked one by one; a whole check would read the body file
    // A duration-limited plan: whether a stream may run by request count is a
    // question for the sweep page, not for the target.
    app::SweepPlan plan;
    plan.limit = app::PointLimit::Duration;
    const auto draft = app::draftLoadSpec(target, 1, plan);
    return draft ? QString() : draft.error().message;
}

} // namespace loadscope::ui
