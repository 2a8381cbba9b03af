#include "app/remote/multi_agent_point_run.h"

#include "app/sweep/agent_client.h"

#include <QCoroSignal>
#include <algorithm>
#include <cmath>
#include <ctime>

namespace loadscope::app {

namespace {

// Enough for a run request to be read, its spec built and its name resolved
// on a host: the agents start at once when they are later than this.
constexpr int64_t kStartLeadUs = 300'000;
// The merged snapshot goes out at most this often (each part publishes ten a second).
constexpr std::chrono::milliseconds kProgressEvery{90};

int64_t realtimeUs() {
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    return int64_t(now.tv_sec) * 1'000'000 + now.tv_nsec / 1000;
}

QString namedFailure(const QString& host, const QString& why) {
    const QString prefix = QStringLiteral("host '%1'").arg(host);
    return why.startsWith(prefix) ? why : prefix + QStringLiteral(": ") + why;
}

} // namespace

int64_t commonStartUs(const std::vector<HostLoad>& loads) {
    double slowestRoundTripMs = 0;
    for (const HostLoad& load : loads)
        slowestRoundTripMs = std::max(slowestRoundTripMs, load.clock.roundTripMs);
    return realtimeUs() + kStartLeadUs + int64_t(2 * slowestRoundTripMs * 1000.0);
}

MultiAgentPointRun::MultiAgentPointRun(std::vector<HostLoad> loads, int64_t startUs,
                                       std::shared_ptr<std::vector<HostPartOutcome>> outcome)
    : m_loads(std::move(loads))
    , m_startUs(startUs)
    , m_outcome(std::move(outcome)) {
    m_done.assign(m_loads.size(), false);
    m_latest.resize(m_loads.size());
    m_outcome->clear();
    for (const HostLoad& load : m_loads) {
        HostPartOutcome part;
        part.host = load.host;
        part.clock = load.clock;
        if (load.agent)
            part.software = load.agent->hello().software;
        m_outcome->push_back(std::move(part));
    }
}

MultiAgentPointRun::~MultiAgentPointRun() {
    if (!m_finished)
        cancel();
    for (const QPointer<AgentPointRun>& run : m_runs)
        delete run.data();
}

void MultiAgentPointRun::start() {
    if (m_started)
        return;
    m_started = true;
    for (size_t i = 0; i < m_loads.size(); ++i) {
        HostLoad& load = m_loads[i];
        if (!load.agent) {
            partFinished(i, makeError(ErrorCode::Unreachable, QStringLiteral("its agent is gone")));
            continue;
        }
        AgentRunRequest request = load.request;
        // The common moment on that host's clock.
        request.startAtUs = m_startUs + int64_t(std::llround(load.clock.offsetMs * 1000.0));
        AgentPointRun* run = load.agent->newRun(std::move(request));
        m_runs.push_back(run);
        connect(run, &PointRun::progressAvailable, this,
                [this, i](std::shared_ptr<const engine::Progress> progress) {
                    partProgress(i, std::move(progress));
                });
        run->start();
        QCoro::connect(run->result(), this, [this, i](Result<engine::RunResult> ran) {
            partFinished(i, std::move(ran));
        });
    }
}

void MultiAgentPointRun::cancel() noexcept {
    for (const QPointer<AgentPointRun>& run : m_runs) {
        if (run)
            run->cancel();
    }
}

QCoro::Task<Result<engine::RunResult>> MultiAgentPointRun::result() {
    QPointer<MultiAgentPointRun> alive(this);
    if (!m_finished)
        co_await qCoro(static_cast<PointRun*>(this), &PointRun::runFinished);
    if (!alive)
        co_return makeError(ErrorCode::Cancelled, QStringLiteral("the run was deleted"));
    co_return *m_result;
}

void MultiAgentPointRun::partProgress(size_t index,
                                      std::shared_ptr<const engine::Progress> progress) {
    m_latest[index] = std::move(progress);
    const auto now = std::chrono::steady_clock::now();
    if (now - m_lastProgress < kProgressEvery)
        return;
    m_lastProgress = now;
    const double intervalSeconds = m_latest[index]->intervalSeconds;
    auto merged = std::make_shared<engine::Progress>();
    merged->warmingUp = true;
    merged->elapsedSeconds = -1e9;
    merged->intervalSeconds = intervalSeconds;
    double intervalRate = 0;
    for (const auto& latest : m_latest) {
        if (!latest)
            continue;
        merged->elapsedSeconds = std::max(merged->elapsedSeconds, latest->elapsedSeconds);
        merged->warmingUp = merged->warmingUp && latest->warmingUp;
        merged->complete += latest->complete;
        merged->failed += latest->failed;
        merged->bytesReceived += latest->bytesReceived;
        merged->bytesSent += latest->bytesSent;
        merged->target += latest->target;
        merged->targetSeconds = std::max(merged->targetSeconds, latest->targetSeconds);
        intervalRate += latest->intervalRequestsPerSecond();
        merged->intervalLatency.merge(latest->intervalLatency);
    }
    // Each part's last interval rate, over the interval just published.
    merged->intervalComplete = uint64_t(std::llround(intervalRate * intervalSeconds));
    Q_EMIT progressAvailable(std::move(merged));
}

void MultiAgentPointRun::partFinished(size_t index, Result<engine::RunResult> ran) {
    if (m_done[index])
        return;
    m_done[index] = true;
    HostPartOutcome& part = (*m_outcome)[index];
    if (index < m_runs.size() && m_runs[index])
        part.measuredFromUs = m_runs[index]->measuredFromUs();
    QString why;
    if (!ran) {
        why = ran.error().message;
    } else {
        if (ran->unreachable)
            why = ran->firstError.empty() ? QStringLiteral("no connection could be established")
                                          : QString::fromStdString(ran->firstError);
        part.run = std::move(*ran);
    }
    if (!why.isEmpty()) {
        part.error = namedFailure(part.host, why);
        if (m_failure.isEmpty()) {
            m_failure = part.error;
            cancel(); // the point has failed: the others stop, what they measured is kept
        }
    }
    finishIfDone();
}

void MultiAgentPointRun::finishIfDone() {
    if (m_finished || std::find(m_done.begin(), m_done.end(), false) != m_done.end())
        return;
    m_finished = true;
    std::vector<AgentRunPart> parts;
    for (HostPartOutcome& part : *m_outcome) {
        if (!part.run)
            continue;
        parts.push_back({*part.run, part.measuredFromUs, part.clock.offsetMs});
    }
    std::vector<PartSpan> spans;
    engine::RunResult merged = mergeAgentRuns(parts, &spans);
    size_t k = 0;
    for (HostPartOutcome& part : *m_outcome) {
        if (part.run && k < spans.size())
            part.span = spans[k++];
    }
    if (!m_failure.isEmpty())
        m_result = makeError(ErrorCode::Unreachable, m_failure);
    else
        m_result = std::move(merged);
    // Queued: this may run inside an agent's read loop or start().
    QMetaObject::invokeMethod(
        this, [this] { Q_EMIT runFinished(); }, Qt::QueuedConnection);
}

} // namespace loadscope::app
