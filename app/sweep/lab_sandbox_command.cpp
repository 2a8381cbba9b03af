#include "app/sweep/lab_sandbox_command.h"

#include "app/session/target_rules.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace loadscope::app {

Result<QString> findCli() {
    const QString name = QStringLiteral("loadscope-cli");
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(name);
    const QFileInfo besideInfo(beside);
    if (besideInfo.isFile() && besideInfo.isExecutable())
        return beside;
    const QString onPath = QStandardPaths::findExecutable(name);
    if (!onPath.isEmpty())
        return onPath;
    const QString path = qEnvironmentVariable("PATH");
    return makeError(ErrorCode::Io,
                     QStringLiteral("%1 is not beside this program (%2) nor on PATH (%3)")
                         .arg(name, beside, path.isEmpty() ? QStringLiteral("empty") : path));
}

Result<QStringList> labSandboxCommand(const QString& cli, const Session& session,
                                      const std::vector<const Target*>& labTargets) {
    if (labTargets.empty())
        return invalidInput(QStringLiteral("no lab targets"));
    const LabSetup setup = session.lab.value_or(LabSetup{});
    const Target& first = *labTargets.front();
    QStringList modes;
    for (const Target* target : labTargets) {
        if (target->lab->server != first.lab->server ||
            target->lab->serverOptions != first.lab->serverOptions)
            return invalidInput(
                QStringLiteral("lab targets '%1' and '%2' ask for different servers or server "
                               "options: one lab runs one server")
                    .arg(first.displayName(), target->displayName()));
        if (!modes.contains(target->lab->mode))
            modes << target->lab->mode;
    }
    // Refused before the sandbox is asked, as `lab sandbox` would refuse it.
    if (auto placed =
            checkLabClientPlacement(setup.client, std::vector<QString>(modes.begin(), modes.end()));
        !placed)
        return placed.error();
    QStringList command{cli, QStringLiteral("lab"), QStringLiteral("sandbox"),
                        QStringLiteral("--mtu"), QString::number(setup.mtu)};
    if (setup.client != LabClientPlacement::Wire)
        command << QStringLiteral("--client-placement") << labClientPlacementId(setup.client);
    if (!setup.clientCpus.isEmpty())
        command << QStringLiteral("--client-cpus") << setup.clientCpus;
    if (!setup.serverCpus.isEmpty())
        command << QStringLiteral("--server-cpus") << setup.serverCpus;
    command << QStringLiteral("--modes") << modes.join(QLatin1Char(','))
            << QStringLiteral("--server") << first.lab->server;
    for (const auto& [key, value] : first.lab->serverOptions)
        command << QStringLiteral("--server-opt") << key + QLatin1Char('=') + value;
    command << QStringLiteral("--") << cli << QStringLiteral("lab") << QStringLiteral("agent");
    return command;
}

} // namespace loadscope::app
