#include "app/cli/one_shot_runner.h"

#include "app/remote/host_agents.h"
#include "app/remote/load_split.h"
#include "app/report/progress_printer.h"
#include "app/sweep/agent_client.h"
#include "app/sweep/load_run_bridge.h"
#include "app/sweep/load_spec_builder.h"
#include "app/sweep/point_steps.h"

#include <QCoroTask>
#include <QEventLoop>
#include <optional>

namespace loadscope::cli {

namespace {

// Runs `task` to its end on a loop of this thread.
template <typename T> T runToEnd(QCoro::Task<T> task) {
    std::optional<T> value;
    QEventLoop loop;
    QCoro::connect(std::move(task), &loop, [&](T result) {
        value = std::move(result);
        loop.quit();
    });
    if (!value)
        loop.exec();
    return std::move(*value);
}

engine::RunResult unreachable(const QString& why) {
    engine::RunResult failed;
    failed.unreachable = true;
    failed.firstError = why.toStdString();
    return failed;
}

} // namespace

OneShotRunner::OneShotRunner(const CliIo& io, std::optional<RemoteLoad> remote)
    : m_io(io)
    , m_signals([this] {
        if (m_running)
            m_running->cancel();
        if (m_hosts)
            m_hosts->abort();
    })
    , m_remote(std::move(remote)) {}

OneShotRunner::~OneShotRunner() {
    if (!m_hosts)
        return;
    // Each agent's stdin closed, so that it ends and its ssh with it.
    bool closed = false;
    QEventLoop loop;
    QCoro::connect(m_hosts->close(), &loop, [&] {
        closed = true;
        loop.quit();
    });
    if (!closed) // the agents may all have ended already
        loop.exec();
}

engine::RunResult OneShotRunner::run(engine::LoadSpec spec, bool quiet, bool preload) {
    if (interruptingSignal() != 0) {
        // Interrupted already, say during the preload: nothing more runs.
        engine::RunResult nothing;
        nothing.cancelled = true;
        return nothing;
    }
    if (m_remote)
        return runOnHosts(spec, quiet, preload);
    app::ProgressPrinter printer(spec.requests, double(spec.duration.count()) / 1e9, quiet,
                                 m_io.err);
    app::LoadRunBridge run(std::move(spec));
    QObject::connect(&run, &app::PointRun::progressAvailable, &run,
                     [&printer](const std::shared_ptr<const engine::Progress>& progress) {
                         printer.update(progress);
                     });
    run.start();
    m_running = &run;
    std::optional<engine::RunResult> result;
    QEventLoop loop;
    QCoro::connect(run.result(), &run, [&](const app::Result<engine::RunResult>& ran) {
        result = *ran; // the bridge's result is never an error
        loop.quit();
    });
    if (!result)
        loop.exec();
    m_running = nullptr;
    if (!result->unreachable)
        printer.finish(result->complete);
    return std::move(*result);
}

std::vector<app::AgentShare> OneShotRunner::hostShares() const {
    std::vector<app::AgentShare> shares;
    if (!m_remote)
        return shares;
    for (const app::HostPartOutcome& part : m_parts) {
        app::AgentShare share;
        share.host = part.host;
        share.software = part.software;
        share.clockOffsetMs = part.clock.offsetMs;
        share.clockUncertaintyMs = part.clock.uncertaintyMs;
        share.startMs = part.span.startMs;
        share.endMs = part.span.endMs;
        share.error = part.error;
        if (part.run) {
            share.result.push_back(app::measuredPointResult(*part.run, m_remote->shot.point(),
                                                            m_remote->shot.plan, {}));
            share.result.back().concurrency = int(part.run->concurrency);
        }
        shares.push_back(std::move(share));
    }
    return shares;
}

engine::RunResult OneShotRunner::runOnHosts(const engine::LoadSpec& spec, bool quiet,
                                            bool preload) {
    const RemoteLoad& remote = *m_remote;
    if (m_hostsFailed)
        return unreachable(m_hostsFailed->message);
    if (!m_hosts) {
        m_hosts = std::make_unique<app::HostAgents>(remote.options.ssh);
        m_hosts->setMaxClockOffsetMs(remote.options.maxClockOffsetMs);
        const app::Result<void> opened =
            runToEnd(m_hosts->open(remote.hosts, std::chrono::seconds(30)));
        if (!opened) {
            m_hostsFailed = opened.error();
            return unreachable(opened.error().message);
        }
        for (const QString& skew : m_hosts->versionSkew())
            std::fprintf(m_io.err, "%s\n", qPrintable(skew));
    }
    const OneShot& shot = remote.shot;
    auto draft = app::draftLoadSpec(shot.target, shot.concurrency(), shot.plan, shot.rate);
    if (!draft)
        return unreachable(draft.error().message);
    const QStringList allow{app::endpointText(draft->endpoint)};
    if (preload) {
        app::AgentClient* first = m_hosts->agent(remote.hosts.front().name);
        app::PointRun* run =
            first->newRun({shot.target, shot.plan, shot.concurrency(), 0, true, {}, 0, allow});
        m_running = run;
        run->start();
        const app::Result<engine::RunResult> loaded = runToEnd(run->result());
        m_running = nullptr;
        delete run;
        return loaded ? *loaded : unreachable(loaded.error().message);
    }
    const uint64_t requests = shot.plan.limit == app::PointLimit::Requests ? spec.requests : 0;
    const auto shares =
        app::splitLoad(shot.concurrency(), shot.rate, requests, int(remote.hosts.size()));
    if (!shares)
        return unreachable(shares.error().message);
    std::vector<app::HostLoad> loads;
    for (size_t i = 0; i < remote.hosts.size(); ++i) {
        const QString& name = remote.hosts[i].name;
        const app::Result<app::ClockOffset> clock = runToEnd(m_hosts->remeasure(name));
        if (!clock)
            return unreachable(clock.error().message);
        app::SweepPlan share = shot.plan;
        if (requests > 0)
            share.requestsPerPoint = (*shares)[i].requests;
        loads.push_back({name,
                         m_hosts->agent(name),
                         *clock,
                         {shot.target,
                          share,
                          (*shares)[i].concurrency,
                          (*shares)[i].rate,
                          false,
                          {},
                          0,
                          allow}});
    }
    auto outcome = std::make_shared<std::vector<app::HostPartOutcome>>();
    app::ProgressPrinter printer(spec.requests, double(spec.duration.count()) / 1e9, quiet,
                                 m_io.err);
    const int64_t startUs = app::commonStartUs(loads);
    app::MultiAgentPointRun run(std::move(loads), startUs, outcome);
    QObject::connect(&run, &app::PointRun::progressAvailable, &run,
                     [&printer](const std::shared_ptr<const engine::Progress>& progress) {
                         printer.update(progress);
                     });
    m_running = &run;
    run.start();
    const app::Result<engine::RunResult> ran = runToEnd(run.result());
    m_running = nullptr;
    m_parts = *outcome;
    if (!ran)
        return unreachable(ran.error().message);
    printer.finish(ran->complete);
    return *ran;
}

} // namespace loadscope::cli
