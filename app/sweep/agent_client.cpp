#include "app/sweep/agent_client.h"

#include <QCoroProcess>
#include <QCoroSignal>
#include <QProcess>
#include <QTimer>
#include <ctime>

namespace loadscope::app {

namespace {

using std::chrono::milliseconds;

// A cancelled point's result is due within the engine's 100 ms stop; an
// agent that takes longer than this is stuck.
constexpr milliseconds kCancelGrace{3000};
constexpr qsizetype kMaxErrorLine = 4096;

Error agentError(QString message) {
    return makeError(ErrorCode::Unreachable, std::move(message));
}

int64_t realtimeUs() {
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    return int64_t(now.tv_sec) * 1'000'000 + now.tv_nsec / 1000;
}

} // namespace

AgentClient::AgentClient(QStringList command, QObject* parent)
    : QObject(parent)
    , m_command(std::move(command))
    , m_process(new QProcess(this)) {
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &AgentClient::readLines);
    connect(m_process, &QProcess::readyReadStandardError, this, &AgentClient::readErrors);
    connect(m_process, &QProcess::finished, this, &AgentClient::processEnded);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            fail(QStringLiteral("the load agent could not be started (%1): %2")
                     .arg(m_command.value(0), m_process->errorString()));
    });
}

AgentClient::~AgentClient() {
    if (m_process->state() != QProcess::NotRunning) {
        // SIGKILL, then reaping it is immediate: no wait worth the name here.
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

QCoro::Task<Result<void>> AgentClient::open(milliseconds timeout) {
    if (m_command.isEmpty())
        co_return agentError(QStringLiteral("no load agent command"));
    QPointer<AgentClient> alive(this);
    m_process->start(m_command.value(0), m_command.mid(1));
    send(clientHello());
    QTimer deadline;
    deadline.setSingleShot(true);
    connect(&deadline, &QTimer::timeout, this, [this, timeout] {
        fail(QStringLiteral("the load agent did not answer within %1 s")
                 .arg(double(timeout.count()) / 1000.0));
    });
    deadline.start(timeout);
    while (alive && !m_greeted && m_failure.isEmpty())
        co_await qCoro(this, &AgentClient::stateChanged);
    if (!alive)
        co_return agentError(QStringLiteral("the load agent's client was deleted"));
    if (!m_failure.isEmpty())
        co_return agentError(m_failure);
    co_return {};
}

AgentPointRun* AgentClient::newRun(AgentRunRequest request) {
    return new AgentPointRun(this, std::move(request));
}

AgentWatch* AgentClient::newWatch(AgentWatchRequest request) {
    return new AgentWatch(this, std::move(request));
}

QCoro::Task<Result<ClockReading>> AgentClient::ping(milliseconds timeout) {
    QPointer<AgentClient> alive(this);
    if (!m_failure.isEmpty())
        co_return agentError(m_failure);
    const uint64_t id = m_nextId++;
    AgentMessage ping;
    ping.type = AgentMessage::Type::Ping;
    ping.id = id;
    ClockReading reading;
    reading.sentUs = realtimeUs();
    send(ping);
    QTimer deadline;
    deadline.setSingleShot(true);
    bool late = false;
    connect(&deadline, &QTimer::timeout, this, [this, &late] {
        late = true;
        Q_EMIT stateChanged();
    });
    deadline.start(timeout);
    while (alive && !m_pongs.count(id) && m_failure.isEmpty() && !late)
        co_await qCoro(this, &AgentClient::stateChanged);
    if (!alive)
        co_return agentError(QStringLiteral("the load agent's client was deleted"));
    if (!m_failure.isEmpty())
        co_return agentError(m_failure);
    if (!m_pongs.count(id))
        co_return agentError(QStringLiteral("the load agent did not answer a ping within %1 s")
                                 .arg(double(timeout.count()) / 1000.0));
    reading.receivedUs = realtimeUs();
    reading.agentUs = m_pongs[id];
    m_pongs.erase(id);
    co_return reading;
}

QCoro::Task<> AgentClient::close(milliseconds grace) {
    QPointer<AgentClient> alive(this);
    if (m_process->state() == QProcess::NotRunning)
        co_return;
    m_process->closeWriteChannel();
    if (co_await qCoro(m_process).waitForFinished(grace) || !alive)
        co_return;
    m_process->terminate();
    if (co_await qCoro(m_process).waitForFinished(milliseconds(2000)) || !alive)
        co_return;
    m_process->kill();
    co_await qCoro(m_process).waitForFinished(milliseconds(2000));
}

void AgentClient::send(const AgentMessage& message) {
    if (m_process->state() != QProcess::NotRunning)
        m_process->write(encodeAgentMessage(message));
}

void AgentClient::readLines() {
    while (m_process->canReadLine()) {
        const QByteArray line = m_process->readLine(kMaxAgentLineBytes + 1);
        handleLine(line);
        if (!m_failure.isEmpty())
            return;
    }
    if (m_process->bytesAvailable() > kMaxAgentLineBytes)
        fail(QStringLiteral("the load agent sent a line longer than %1 bytes")
                 .arg(kMaxAgentLineBytes));
}

void AgentClient::readErrors() {
    m_partialError += m_process->readAllStandardError();
    qsizetype end;
    while ((end = m_partialError.indexOf('\n')) >= 0) {
        const QByteArray line = m_partialError.left(end).trimmed();
        if (!line.isEmpty())
            m_lastErrorLine = line.left(kMaxErrorLine);
        m_partialError.remove(0, end + 1);
    }
    if (m_partialError.size() > kMaxErrorLine)
        m_partialError = m_partialError.right(kMaxErrorLine);
}

void AgentClient::handleLine(const QByteArray& line) {
    if (!m_failure.isEmpty())
        return;
    const bool first = !m_linesSeen;
    m_linesSeen = true;
    if (first && isLabLine(line)) {
        auto lab = labInfoFromLine(line);
        if (!lab)
            return fail(
                QStringLiteral("the lab's description is malformed: %1").arg(lab.error().message));
        m_lab = std::move(*lab);
        return;
    }
    auto decoded = decodeAgentMessage(line);
    if (!decoded)
        return fail(QStringLiteral("the load agent sent a malformed line: %1")
                        .arg(decoded.error().message));
    const AgentMessage& m = *decoded;
    if (!m_greeted) {
        if (m.type == AgentMessage::Type::Hello && m.protocol == kAgentProtocolVersion) {
            m_greeted = true;
            m_hello = m;
            Q_EMIT stateChanged();
            return;
        }
        if (m.type == AgentMessage::Type::Error) {
            QString why = QStringLiteral("the load agent refused: %1").arg(m.message);
            // An older agent's refusal does not say what to do about it.
            if (!m.message.contains(QLatin1String("install the same")))
                why += QStringLiteral("; install the same Loadscope version at both ends (this "
                                      "end runs %1, agent protocol version %2)")
                           .arg(clientHello().software)
                           .arg(kAgentProtocolVersion);
            return fail(why);
        }
        if (m.type == AgentMessage::Type::Hello)
            return fail(
                QStringLiteral("the load agent (%1) speaks agent protocol version %2, this "
                               "end (%3) version %4: install the same Loadscope version "
                               "at both ends")
                    .arg(m.software.isEmpty() ? QStringLiteral("an unnamed version") : m.software)
                    .arg(m.protocol)
                    .arg(clientHello().software)
                    .arg(kAgentProtocolVersion));
        return fail(QStringLiteral("the load agent did not answer hello with protocol version %1")
                        .arg(kAgentProtocolVersion));
    }
    if (m.type == AgentMessage::Type::Pong) {
        m_pongs[m.id] = m.clockUs;
        Q_EMIT stateChanged();
        return;
    }
    if (const auto watch = m_watches.find(m.id); watch != m_watches.end()) {
        if (watch->second)
            watch->second->handle(m);
        return;
    }
    // Anything about another run (a result that crossed a cancel) is stale.
    if (m_active && (m.id == m_active->m_id || (m.id == 0 && m.type == AgentMessage::Type::Error)))
        m_active->handle(m);
}

void AgentClient::fail(const QString& why) {
    if (!m_failure.isEmpty())
        return;
    m_failure = why;
    if (m_active)
        m_active->finish(agentError(why));
    for (auto& [id, watch] : m_watches) {
        if (watch)
            watch->finish(agentError(why));
    }
    // A failed agent is not trusted to end by itself.
    if (m_process->state() != QProcess::NotRunning)
        m_process->kill();
    Q_EMIT stateChanged();
}

void AgentClient::processEnded() {
    readLines();
    readErrors();
    if (!m_partialError.trimmed().isEmpty())
        m_lastErrorLine = m_partialError.trimmed().left(kMaxErrorLine);
    const bool crashed = m_process->exitStatus() == QProcess::CrashExit;
    if (m_describeExit)
        return fail(
            m_describeExit(m_process->exitCode(), crashed, QString::fromUtf8(m_lastErrorLine)));
    const QString how = crashed
                            ? QStringLiteral("was killed")
                            : QStringLiteral("exited with status %1").arg(m_process->exitCode());
    QString why = QStringLiteral("the load agent %1").arg(how);
    if (!m_lastErrorLine.isEmpty())
        why += QStringLiteral(": ") + QString::fromUtf8(m_lastErrorLine);
    fail(why);
}

AgentPointRun::AgentPointRun(AgentClient* client, AgentRunRequest request)
    : m_client(client)
    , m_request(std::move(request))
    , m_watchdog(new QTimer(this)) {
    m_watchdog->setSingleShot(true);
    connect(m_watchdog, &QTimer::timeout, this, [this] {
        const QString why = QStringLiteral("the load agent fell silent for %1 s during a run")
                                .arg(double(m_watchdog->interval()) / 1000.0);
        if (m_client)
            m_client->fail(why); // reaches this run too
        finish(agentError(why));
    });
}

AgentPointRun::~AgentPointRun() {
    if (!m_finished)
        cancel();
}

void AgentPointRun::start() {
    if (m_started)
        return;
    m_started = true;
    if (!m_client)
        return finish(agentError(QStringLiteral("the load agent is gone")));
    if (!m_client->failure().isEmpty())
        return finish(agentError(m_client->failure()));
    if (m_client->m_active && !m_client->m_active->m_finished)
        return finish(agentError(QStringLiteral("the load agent is running another point")));
    m_id = m_client->m_nextId++;
    m_client->m_active = this;
    AgentMessage run;
    run.type = AgentMessage::Type::Run;
    run.id = m_id;
    run.run = m_request;
    m_client->send(run);
    m_watchdog->start(m_client->silenceTimeout());
}

void AgentPointRun::cancel() noexcept {
    if (!m_started || m_finished || !m_client)
        return;
    AgentMessage cancel;
    cancel.type = AgentMessage::Type::Cancel;
    cancel.id = m_id;
    m_client->send(cancel);
    if (!m_cancelling)
        m_watchdog->start(kCancelGrace);
    m_cancelling = true;
}

QCoro::Task<Result<engine::RunResult>> AgentPointRun::result() {
    if (!m_finished)
        co_await qCoro(static_cast<PointRun*>(this), &PointRun::runFinished);
    co_return *m_result;
}

void AgentPointRun::handle(const AgentMessage& message) {
    if (m_finished)
        return;
    switch (message.type) {
    case AgentMessage::Type::Progress:
        if (!m_cancelling)
            m_watchdog->start();
        Q_EMIT progressAvailable(message.progress);
        return;
    case AgentMessage::Type::Result:
        m_measuredFromUs = message.measuredFromUs;
        finish(*message.result);
        return;
    case AgentMessage::Type::Error:
        finish(agentError(message.message));
        return;
    default:
        finish(
            agentError(QStringLiteral("the load agent answered a run with an unexpected message")));
        return;
    }
}

void AgentPointRun::finish(Result<engine::RunResult> result) {
    if (m_finished)
        return;
    m_finished = true;
    m_watchdog->stop();
    m_result = std::move(result);
    if (m_client && m_client->m_active == this)
        m_client->m_active = nullptr;
    // Queued: finish() may run inside the client's read loop or the caller's start().
    QMetaObject::invokeMethod(
        this, [this] { Q_EMIT runFinished(); }, Qt::QueuedConnection);
}

} // namespace loadscope::app

namespace loadscope::app {

AgentWatch::AgentWatch(AgentClient* client, AgentWatchRequest request)
    : m_client(client)
    , m_request(std::move(request)) {}

AgentWatch::~AgentWatch() {
    if (m_client)
        m_client->m_watches.erase(m_id);
}

void AgentWatch::start() {
    if (m_started)
        return;
    m_started = true;
    if (!m_client)
        return finish(agentError(QStringLiteral("the load agent is gone")));
    if (!m_client->failure().isEmpty())
        return finish(agentError(m_client->failure()));
    m_id = m_client->m_nextId++;
    m_client->m_watches[m_id] = this;
    AgentMessage watch;
    watch.type = AgentMessage::Type::Watch;
    watch.id = m_id;
    watch.watch = m_request;
    m_client->send(watch);
}

QCoro::Task<Result<AgentWindow>> AgentWatch::end(milliseconds timeout) {
    QPointer<AgentWatch> alive(this);
    if (!m_window && m_client && m_started) {
        AgentMessage unwatch;
        unwatch.type = AgentMessage::Type::Unwatch;
        unwatch.id = m_id;
        m_client->send(unwatch);
        QTimer deadline;
        deadline.setSingleShot(true);
        connect(&deadline, &QTimer::timeout, this, [this, timeout] {
            finish(agentError(QStringLiteral("the load agent sent no window within %1 s")
                                  .arg(double(timeout.count()) / 1000.0)));
        });
        deadline.start(timeout);
        while (alive && !m_window)
            co_await qCoro(this, &AgentWatch::windowArrived);
    }
    if (!alive)
        co_return agentError(QStringLiteral("the watch was deleted"));
    if (!m_window)
        co_return agentError(QStringLiteral("the watch was never started"));
    co_return *m_window;
}

void AgentWatch::handle(const AgentMessage& message) {
    if (message.type == AgentMessage::Type::Window && message.window)
        return finish(*message.window);
    if (message.type == AgentMessage::Type::Error)
        return finish(agentError(message.message));
    finish(
        agentError(QStringLiteral("the load agent answered a watch with an unexpected message")));
}

void AgentWatch::finish(Result<AgentWindow> window) {
    if (m_window)
        return;
    m_window = std::move(window);
    // Queued: finish() may run inside the client's read loop.
    QMetaObject::invokeMethod(
        this, [this] { Q_EMIT windowArrived(); }, Qt::QueuedConnection);
}

} // namespace loadscope::app
