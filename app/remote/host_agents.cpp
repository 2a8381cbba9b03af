#include "app/remote/host_agents.h"

#include "app/sweep/agent_client.h"

#include <cmath>

namespace loadscope::app {

namespace {

using std::chrono::milliseconds;

constexpr milliseconds kPingTimeout{5000};

QString named(const Host& host, const QString& why) {
    const QString prefix = QStringLiteral("host '%1'").arg(host.name);
    return why.startsWith(prefix)
               ? why
               : QStringLiteral("%1 (%2): %3").arg(prefix, host.destination, why);
}

} // namespace

QCoro::Task<Result<ClockOffset>> measureClockOffset(AgentClient* agent, int pings) {
    QPointer<AgentClient> alive(agent);
    std::vector<ClockReading> readings;
    for (int i = 0; i < pings; ++i) {
        Result<ClockReading> reading = co_await agent->ping(kPingTimeout);
        if (!alive)
            co_return makeError(ErrorCode::Cancelled, QStringLiteral("the agent went away"));
        if (!reading)
            co_return reading.error();
        readings.push_back(*reading);
    }
    const auto offset = clockOffsetOf(readings);
    if (!offset)
        co_return makeError(ErrorCode::Unreachable,
                            QStringLiteral("this machine's clock went back during every ping"));
    co_return *offset;
}

HostAgents::HostAgents(SshOptions ssh, QObject* parent)
    : QObject(parent)
    , m_ssh(std::move(ssh)) {}

HostAgents::~HostAgents() {
    for (Opened& opened : m_hosts)
        delete opened.agent.data(); // kills a process still running
}

Result<void> HostAgents::checkOffset(const Host& host, const ClockOffset& clock) const {
    if (std::abs(clock.offsetMs) <= m_maxClockOffsetMs)
        return {};
    return makeError(
        ErrorCode::InvalidInput,
        named(host,
              QStringLiteral("its clock is %1 ms %2 this machine's (+/- %3 ms), more than "
                             "the %4 ms hosts may differ to start together: synchronise "
                             "its clock (NTP, chrony) or allow more with "
                             "--max-clock-offset")
                  .arg(std::abs(clock.offsetMs), 0, 'f', 1)
                  .arg(clock.offsetMs > 0 ? QStringLiteral("ahead of") : QStringLiteral("behind"))
                  .arg(clock.uncertaintyMs, 0, 'f', 2)
                  .arg(m_maxClockOffsetMs)));
}

QCoro::Task<Result<void>> HostAgents::open(const std::vector<Host>& hosts, milliseconds timeout) {
    QPointer<HostAgents> alive(this);
    std::vector<QCoro::Task<Result<void>>> opening;
    for (const Host& host : hosts) {
        auto* agent = new AgentClient(sshAgentCommand(host, m_ssh), this);
        agent->setExitDescriber([host](int exitCode, bool crashed, const QString& lastLine) {
            return describeSshExit(host, exitCode, crashed, lastLine);
        });
        m_hosts.push_back({host, agent, {}});
        // Eager: each starts its ssh now, so that the hosts connect side by side.
        opening.push_back(agent->open(timeout));
    }
    std::optional<Error> failure;
    for (size_t i = 0; i < opening.size(); ++i) {
        Result<void> opened = co_await opening[i];
        if (!alive)
            co_return makeError(ErrorCode::Cancelled, QStringLiteral("cancelled"));
        if (!opened && !failure) {
            failure = opened.error();
            failure->message = named(m_hosts[i].host, failure->message);
            abort(); // the other connections are not waited for
        }
    }
    if (failure)
        co_return *failure;
    for (Opened& opened : m_hosts) {
        const Result<ClockOffset> clock = co_await measureClockOffset(opened.agent);
        if (!alive)
            co_return makeError(ErrorCode::Cancelled, QStringLiteral("cancelled"));
        if (!clock)
            co_return makeError(clock.error().code, named(opened.host, clock.error().message));
        opened.clock = *clock;
        if (auto checked = checkOffset(opened.host, opened.clock); !checked)
            co_return checked.error();
    }
    co_return {};
}

QCoro::Task<Result<ClockOffset>> HostAgents::remeasure(const QString& name) {
    QPointer<HostAgents> alive(this);
    for (Opened& opened : m_hosts) {
        if (opened.host.name != name)
            continue;
        if (!opened.agent)
            co_return makeError(ErrorCode::Unreachable,
                                named(opened.host, QStringLiteral("its agent is gone")));
        const Host host = opened.host;
        const Result<ClockOffset> clock = co_await measureClockOffset(opened.agent);
        if (!alive)
            co_return makeError(ErrorCode::Cancelled, QStringLiteral("cancelled"));
        if (!clock)
            co_return makeError(clock.error().code, named(host, clock.error().message));
        if (auto checked = checkOffset(host, *clock); !checked)
            co_return checked.error();
        for (Opened& again : m_hosts) {
            if (again.host.name == name)
                again.clock = *clock;
        }
        co_return *clock;
    }
    co_return makeError(ErrorCode::Internal, QStringLiteral("host '%1' was not opened").arg(name));
}

AgentClient* HostAgents::agent(const QString& name) const {
    for (const Opened& opened : m_hosts) {
        if (opened.host.name == name)
            return opened.agent;
    }
    return nullptr;
}

ClockOffset HostAgents::clock(const QString& name) const {
    for (const Opened& opened : m_hosts) {
        if (opened.host.name == name)
            return opened.clock;
    }
    return {};
}

const Host* HostAgents::host(const QString& name) const {
    for (const Opened& opened : m_hosts) {
        if (opened.host.name == name)
            return &opened.host;
    }
    return nullptr;
}

QStringList HostAgents::versionSkew() const {
    QStringList lines;
    for (const Opened& opened : m_hosts) {
        if (!opened.agent)
            continue;
        const QString skew = versionSkewLine(opened.agent->hello().software);
        if (!skew.isEmpty())
            lines << QStringLiteral("host '%1': %2").arg(opened.host.name, skew);
    }
    return lines;
}

void HostAgents::abort() {
    for (Opened& opened : m_hosts) {
        if (opened.agent)
            opened.agent->abort();
    }
}

QCoro::Task<> HostAgents::close() {
    QPointer<HostAgents> alive(this);
    // Each agent's stdin closed at once; then each awaited (its grace runs meanwhile).
    std::vector<QCoro::Task<>> closing;
    for (Opened& opened : m_hosts) {
        if (opened.agent)
            closing.push_back(opened.agent->close(milliseconds(3000)));
    }
    for (auto& task : closing)
        co_await task;
}

} // namespace loadscope::app
