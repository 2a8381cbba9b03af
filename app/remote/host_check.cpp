#include "app/remote/host_check.h"

#include "app/remote/host_agents.h"
#include "app/sweep/agent_client.h"

#include <QCoroProcess>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QProcess>
#include <cmath>
#include <memory>

namespace loadscope::app {

namespace {

using std::chrono::milliseconds;

QString lastLine(const QByteArray& text) {
    const QList<QByteArray> lines = text.trimmed().split('\n');
    return QString::fromUtf8(lines.isEmpty() ? QByteArray() : lines.last().trimmed());
}

} // namespace

QCoro::Task<HostCheck> checkHostOverSsh(Host host, SshOptions ssh, bool withLab,
                                        double maxClockOffsetMs, milliseconds timeout) {
    HostCheck check;
    check.host = host;
    auto agent = std::make_unique<AgentClient>(sshAgentCommand(host, ssh));
    int exitCode = -1;
    QString exitLine;
    agent->setExitDescriber(
        [&host, &exitCode, &exitLine](int code, bool crashed, const QString& line) {
            exitCode = crashed ? -1 : code;
            exitLine = line;
            return describeSshExit(host, code, crashed, line);
        });
    const Result<void> opened = co_await agent->open(timeout);
    if (!opened) {
        check.error = opened.error().message;
        if (!check.error.startsWith(QStringLiteral("host '")))
            check.error =
                QStringLiteral("host '%1' (%2): %3").arg(host.name, host.destination, check.error);
        const SshStage stage = exitCode < 0 ? SshStage::Connected : sshStageOf(exitCode, exitLine);
        check.reachable = stage != SshStage::Unreachable;
        check.authenticated = stage == SshStage::Connected;
        co_await agent->close(milliseconds(1000));
        co_return check;
    }
    check.reachable = check.authenticated = check.agentAnswered = true;
    const AgentMessage& hello = agent->hello();
    check.software = hello.software;
    check.versionSkew = versionSkewLine(hello.software);
    check.hostName = hello.hostName;
    check.kernel = hello.kernel;
    check.cpus = hello.cpus;
    const Result<ClockOffset> clock = co_await measureClockOffset(agent.get());
    if (clock) {
        check.clock = *clock;
        check.clockTooFar = std::abs(clock->offsetMs) > maxClockOffsetMs;
        if (check.clockTooFar)
            check.error = QStringLiteral("host '%1' (%2): its clock is %3 ms off this machine's, "
                                         "more than the %4 ms hosts may differ to start together")
                              .arg(host.name, host.destination)
                              .arg(clock->offsetMs, 0, 'f', 1)
                              .arg(maxClockOffsetMs);
    } else {
        check.error = clock.error().message;
    }
    co_await agent->close(milliseconds(2000));
    if (!withLab)
        co_return check;
    // What the lab can build there: its own check, over a second connection.
    const QStringList command = sshCommand(
        host, ssh, {QStringLiteral("lab"), QStringLiteral("check"), QStringLiteral("--json")});
    QProcess process;
    process.start(command.value(0), command.mid(1));
    const bool finished = co_await qCoro(process).waitForFinished(milliseconds(60'000));
    if (!finished) {
        process.kill();
        co_await qCoro(process).waitForFinished(milliseconds(2000));
        check.labError = QStringLiteral("lab check did not finish within 60 s");
        co_return check;
    }
    const QJsonDocument json = QJsonDocument::fromJson(process.readAllStandardOutput());
    if (process.exitCode() == 0 && json.isObject())
        check.lab = json.object();
    else
        check.labError = lastLine(process.readAllStandardError());
    if (check.labError.isEmpty() && check.lab.isEmpty())
        check.labError = QStringLiteral("lab check exited with status %1").arg(process.exitCode());
    co_return check;
}

QString hostCheckLine(const HostCheck& check) {
    const QString who = QStringLiteral("%1 (%2)").arg(check.host.name, check.host.destination);
    if (!check.agentAnswered)
        return QStringLiteral("%1: %2, %3: %4")
            .arg(who, check.reachable ? QStringLiteral("reachable") : QStringLiteral("unreachable"),
                 check.authenticated ? QStringLiteral("authenticated")
                                     : QStringLiteral("not authenticated"),
                 check.error);
    QStringList parts{check.software};
    if (!check.hostName.isEmpty())
        parts << QStringLiteral("named %1").arg(check.hostName);
    parts << QStringLiteral("%1 CPUs").arg(check.cpus);
    if (!check.kernel.isEmpty())
        parts << QStringLiteral("kernel %1").arg(check.kernel);
    if (check.clock)
        parts << QStringLiteral("clock %1%2 ms (+/- %3 ms)%4")
                     .arg(check.clock->offsetMs >= 0 ? QStringLiteral("+") : QString())
                     .arg(check.clock->offsetMs, 0, 'f', 2)
                     .arg(check.clock->uncertaintyMs, 0, 'f', 2)
                     .arg(check.clockTooFar ? QStringLiteral(": too far to start together")
                                            : QString());
    QString line = QStringLiteral("%1: reachable, authenticated, %2")
                       .arg(who, parts.join(QStringLiteral(", ")));
    if (!check.versionSkew.isEmpty())
        line += QStringLiteral("; ") + check.versionSkew;
    if (!check.lab.isEmpty()) {
        QStringList modes;
        for (const QJsonValue& mode : check.lab.value(u"modes").toArray()) {
            if (mode[u"available"].toBool())
                modes << mode[u"mode"].toString();
        }
        line += QStringLiteral("; lab: %1")
                    .arg(modes.isEmpty() ? QStringLiteral("no mode")
                                         : modes.join(QStringLiteral(", ")));
    } else if (!check.labError.isEmpty()) {
        line += QStringLiteral("; lab: %1").arg(check.labError);
    }
    return line;
}

QJsonObject hostCheckJson(const HostCheck& check) {
    QJsonObject json{{QStringLiteral("name"), check.host.name},
                     {QStringLiteral("destination"), check.host.destination},
                     {QStringLiteral("reachable"), check.reachable},
                     {QStringLiteral("authenticated"), check.authenticated},
                     {QStringLiteral("agent"), check.agentAnswered},
                     {QStringLiteral("ok"), check.ok()}};
    if (!check.error.isEmpty())
        json.insert(QStringLiteral("error"), check.error);
    if (check.agentAnswered) {
        json.insert(QStringLiteral("software"), check.software);
        json.insert(QStringLiteral("hostName"), check.hostName);
        json.insert(QStringLiteral("kernel"), check.kernel);
        json.insert(QStringLiteral("cpus"), check.cpus);
    }
    if (!check.versionSkew.isEmpty())
        json.insert(QStringLiteral("versionSkew"), check.versionSkew);
    if (check.clock) {
        json.insert(QStringLiteral("clockOffsetMs"), check.clock->offsetMs);
        json.insert(QStringLiteral("clockUncertaintyMs"), check.clock->uncertaintyMs);
    }
    if (!check.lab.isEmpty())
        json.insert(QStringLiteral("lab"), check.lab);
    if (!check.labError.isEmpty())
        json.insert(QStringLiteral("labError"), check.labError);
    return json;
}

} // namespace loadscope::app
