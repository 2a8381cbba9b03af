// SweepRunner's steps before the first point: the lab's agent (and where
// each lab target then is), every target's spec and address, the idle
// machine, and a probe of each target the sweep can reach.
#include "app/agent/agent_safety.h"
#include "app/common/background_job.h"
#include "app/remote/ssh_command.h"
#include "app/session/statistics_precision.h"
#include "app/sweep/lab_sandbox_command.h"
#include "app/sweep/local_server_cpu.h"
#include "app/sweep/sweep_runner_detail.h"
#include "app/sweep/target_probe.h"

#include <QProcess>
#include <QUrl>
#include <algorithm>
#include <iterator>

namespace loadscope::app {

using namespace sweep_detail;

namespace {

// `local` (CLI lab sandbox ... -- CLI lab agent, with the host's command as
// CLI) run on `host` over ssh: the command after "--" split into the words
// the sandbox runs.
QStringList remoteLabCommand(const Host& host, const SshOptions& ssh, const QStringList& local) {
    QStringList arguments = local.mid(1);
    const qsizetype separator = arguments.indexOf(QStringLiteral("--"));
    if (separator >= 0 && separator + 1 < arguments.size()) {
        const QStringList inner = arguments.mid(separator + 2);
        arguments = arguments.mid(0, separator + 1) + QProcess::splitCommand(host.command) + inner;
    }
    return sshCommand(host, ssh, arguments);
}

// A lab target pointed at where the lab serves its mode: the address, and
// for http the URL's host (its path stays the target's).
void placeInLab(Target& target, const LabModeEndpoint& endpoint) {
    const bool v6 = endpoint.address.contains(QLatin1Char(':'));
    const QString host = v6 ? QStringLiteral("[%1]").arg(endpoint.address) : endpoint.address;
    target.address = QStringLiteral("%1:%2").arg(host).arg(endpoint.port);
    if (target.protocol == TargetProtocol::Http) {
        QUrl url(target.http.url.trimmed());
        if (url.path().isEmpty())
            url.setPath(QStringLiteral("/"));
        target.http.url =
            QStringLiteral("http://%1%2")
                .arg(target.address,
                     url.path(QUrl::FullyEncoded) +
                         (url.hasQuery() ? QLatin1Char('?') + url.query(QUrl::FullyEncoded)
                                         : QString()));
    }
}

} // namespace

Result<QString> SweepRunner::labCli() const {
    if (!m_cliPath.isEmpty())
        return m_cliPath;
    return findCli();
}

QCoro::Task<SweepRunner::Ended> SweepRunner::openAgent(Sweep& sweep) {
    std::vector<Target*> labTargets;
    for (const Target* target : sweep.targets) {
        if (target->lab)
            labTargets.push_back(sweep.session.findTarget(target->id));
    }
    if (labTargets.empty())
        co_return std::nullopt;
    QStringList command = m_agentCommand;
    // The lab on one of the session's hosts: the same sandbox and agent, over ssh.
    const QString labHostName = sweep.session.lab ? sweep.session.lab->host : QString();
    const Host* labHost = labHostName.isEmpty() ? nullptr : sweep.session.findHost(labHostName);
    if (!labHostName.isEmpty() && !labHost)
        co_return failed(
            sweep.outcome,
            QStringLiteral("lab: its host '%1' is not among the session's hosts").arg(labHostName));
    if (command.isEmpty()) {
        QString cli;
        if (labHost) {
            cli = labHost->command;
        } else {
            const Result<QString> local = labCli();
            if (!local)
                co_return failed(sweep.outcome,
                                 QStringLiteral("lab: %1").arg(local.error().message));
            cli = *local;
        }
        auto built = labSandboxCommand(
            cli, sweep.session, std::vector<const Target*>(labTargets.begin(), labTargets.end()));
        if (!built)
            co_return failed(sweep.outcome, QStringLiteral("lab: %1").arg(built.error().message));
        command = std::move(*built);
        if (labHost)
            command = remoteLabCommand(*labHost, m_ssh, command);
    }
    Q_EMIT statusChanged(
        m_agentCommand.isEmpty()
            ? (labHost ? QStringLiteral("building the lab on host '%1'").arg(labHost->name)
                       : QStringLiteral("building the lab"))
            : QStringLiteral("starting the load agent"));
    auto* agent = new AgentClient(command);
    if (labHost && m_agentCommand.isEmpty()) {
        agent->setExitDescriber(
            [host = *labHost](int exitCode, bool crashed, const QString& lastLine) {
                return describeSshExit(host, exitCode, crashed, lastLine);
            });
    }
    sweep.agent = agent;
    m_opening = agent;
    const Result<void> opened = co_await agent->open(m_agentOpenTimeout);
    if (auto ended = interrupted(sweep))
        co_return ended;
    m_opening = nullptr;
    if (!opened)
        co_return unreachable(sweep.outcome, QStringLiteral("lab: %1").arg(opened.error().message));
    if (!agent->lab())
        co_return std::nullopt; // an agent started alone: the targets' own addresses
    for (Target* target : labTargets) {
        const LabModeEndpoint* endpoint = agent->lab()->find(target->lab->mode);
        if (!endpoint)
            co_return failed(sweep.outcome, QStringLiteral("%1: the lab did not build mode %2")
                                                .arg(targetLabel(*target), target->lab->mode));
        placeInLab(*target, *endpoint);
        if (endpoint->serverPid > 0) {
            engine::ServerCpuSource server;
            server.pid = endpoint->serverPid;
            server.withChildren = true; // a master's workers, a container's inner server
            sweep.serverCpu.insert(target->id, server);
        }
    }
    co_return std::nullopt;
}

QCoro::Task<SweepRunner::Ended> SweepRunner::checkTargets(Sweep& sweep) {
    // Every target still to run must build a spec at every level it runs at
    // and resolve, before the first point costs any time.
    for (const Target* target : sweep.targets) {
        Q_EMIT statusChanged(QStringLiteral("checking %1").arg(target->displayName()));
        std::vector<SweepPoint> points;
        std::copy_if(sweep.missing.begin(), sweep.missing.end(), std::back_inserter(points),
                     [&](const SweepPoint& p) { return p.targetId == target->id; });
        // With none missing it is here for the rounds a loose level may add (tighten()).
        if (points.empty()) {
            for (int level : sweep.session.plan.concurrencyLevels)
                points.push_back(SweepPoint{0, target->id, level, 0, 0});
        }
        std::optional<LoadSpecDraft> draft;
        for (const SweepPoint& point : points) {
            auto specs = pointSpecs(*target, point, sweep.session.plan, nullptr);
            if (!specs)
                co_return failed(sweep.outcome, QStringLiteral("%1: %2").arg(
                                                    targetLabel(*target), specs.error().message));
            draft = std::move(specs->draft);
        }
        // Load from other hosts goes where their names resolve, from where
        // they are: nothing of it is this machine's to resolve or probe.
        if (!target->loadFrom.empty())
            continue;
        const Result<engine::SocketAddress> resolved = co_await resolveEndpoint(draft->endpoint);
        if (auto ended = interrupted(sweep))
            co_return ended;
        if (!resolved)
            co_return unreachable(
                sweep.outcome,
                QStringLiteral("%1: %2").arg(targetLabel(*target), resolved.error().message));
        sweep.addresses.insert(target->id, *resolved);
        if (target->lab || !target->serverHost.isEmpty())
            continue; // its server is the lab's (openAgent()) or on a host (sweep_hosts.cpp)
        // /proc is walked off this thread: it may be the GUI's.
        const engine::SocketAddress address = *resolved;
        // Only trivial captures: GCC destroys a co_await operand's temporaries twice. The
        // target stays in sweep.session, unchanged, until the sweep ends.
        const LocalServerCpu local = co_await runOnWorkerThread(
            [target, address] { return localServerCpu(*target, address); });
        if (auto ended = interrupted(sweep))
            co_return ended;
        if (!local.warning.isEmpty())
            Q_EMIT statusChanged(QStringLiteral("%1: %2").arg(targetLabel(*target), local.warning));
        if (!local.source.empty())
            sweep.serverCpu.insert(target->id, local.source);
    }
    co_return std::nullopt;
}

QCoro::Task<SweepRunner::Ended> SweepRunner::idleCheck(Sweep& sweep) {
    Q_EMIT statusChanged(
        QStringLiteral("watching the idle machine for %1 s").arg(m_idleCheckSeconds));
    const engine::CpuSampler sampler;
    const engine::CpuSample before = sampler.sample();
    co_await pause(m_idleCheckSeconds);
    if (auto ended = interrupted(sweep))
        co_return ended;
    const engine::CpuWindow w =
        engine::cpuWindow(before, sampler.sample(), engine::CpuSampler::ticksPerSecond());
    if (!w.valid || w.total() <= 0)
        co_return std::nullopt; // no /proc/stat: nothing to say
    const double busy = 100.0 * (w.total() - w.idle) / w.total();
    const double steal = 100.0 * w.steal / w.total();
    QString message = QStringLiteral("before the sweep the idle machine was %1 % busy over %2 s")
                          .arg(busy, 0, 'f', 1)
                          .arg(w.wallSeconds, 0, 'f', 1);
    if (steal > kStealNoisePercent)
        message += QStringLiteral(", steal %1 %").arg(steal, 0, 'f', 1);
    if (busy > sweep.session.plan.noiseThresholdPercent)
        message += QStringLiteral(": expect noisy points (threshold %1 %)")
                       .arg(sweep.session.plan.noiseThresholdPercent);
    Q_EMIT statusChanged(message);
    Q_EMIT idleCheckFinished(busy, message);
    co_return std::nullopt;
}

QCoro::Task<SweepRunner::Ended> SweepRunner::probeTargets(Sweep& sweep) {
    for (const Target* target : sweep.targets) {
        // A lab target is reached only inside its lab (its points go to the agent there); a
        // target loaded from other hosts is not loaded from here.
        if (!target->loadFrom.empty() || !checkConnection(*target, Connector::ThisProcess))
            continue;
        Q_EMIT statusChanged(
            QStringLiteral("probing %1 (%2)").arg(target->displayName(), target->endpoint()));
        // Not a child, as the bridge in runEngine().
        auto* probe = new TargetProbe;
        m_probe = probe;
        const ProbeResult probed = co_await probe->probe(*target);
        probe->deleteLater();
        if (auto ended = interrupted(sweep))
            co_return ended;
        Q_EMIT probeFinished(target->id, probed);
        if (!probed.ok)
            co_return unreachable(sweep.outcome,
                                  QStringLiteral("%1 (%2) did not answer the probe: %3")
                                      .arg(targetLabel(*target), target->endpoint(), probed.error));
    }
    co_return std::nullopt;
}

} // namespace loadscope::app
