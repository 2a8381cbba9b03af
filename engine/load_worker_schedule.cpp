// LoadWorker: claiming requests (the -n budget, and at a fixed rate the
// schedule), and the fixed-rate machinery: the schedule's timer, connections
// idle until a request is due, the backlog and whether the client kept up.
#include "engine/load_worker.h"
#include "engine/load_worker_connection.h"

#include <algorithm>
#include <ctime>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>

namespace loadscope::engine::detail {

namespace {

// A due request sent this late from a connection that was idle waiting for
// it was held up by the client's own loop, not by the server.
constexpr int64_t kLateDispatchNs = 1'000'000;
// The client could not keep the schedule when more than this share of those
// sends was late, or its thread was on CPU nearly all the time.
constexpr double kLateShareSaturated = 0.01;
constexpr double kCpuLoadSaturated = 0.95;
// Or when its loop was held up, one pass over its events taking more than
// kLateDispatchNs, for this share of the time: a slow server leaves the loop
// waiting in epoll_wait, a client that is slow (or not given the CPU) holds it.
constexpr double kHeldShareSaturated = 0.10;
constexpr uint64_t kDispatchesToJudge = 100;

} // namespace

LoadWorker::Claim LoadWorker::claimRequest(int64_t now, InFlight& request) {
    if (now >= m_shared.deadlineNs)
        return Claim::Never;
    if (m_schedule) {
        // Up to the timer slack early, never for a time past the deadline.
        if (!m_schedule->due(std::min(now + m_spec.timerSlack.count(), m_shared.deadlineNs)))
            return Claim::NotYet;
        if (m_budgetExhausted)
            return Claim::Never; // the schedule's next time stays untaken
    }
    request.budgeted = false;
    if (m_spec.requests > 0 && now >= m_shared.measureStartNs) {
        request.budgeted = drawBudget();
        if (!request.budgeted)
            return Claim::Never;
    } // else: timed runs and warm-up requests draw on no budget
    if (m_schedule)
        request.intendedNs = m_schedule->take();
    return Claim::Claimed;
}

bool LoadWorker::drawBudget() {
    if (m_budgetExhausted)
        return false;
    if (m_shared.remaining.fetch_sub(1, std::memory_order_relaxed) > 0)
        return true;
    m_budgetExhausted = true;
    return false;
}

bool LoadWorker::counts(bool budgeted, int64_t now) {
    // The counting window: a request counts when it ends inside [measure
    // start, deadline], whenever it was claimed. In a counted run it must
    // also be one of the -n: one claimed in warm-up draws on the budget now,
    // and is not counted once the budget is spent, so that exactly -n count.
    if (now < m_shared.measureStartNs || now > m_shared.deadlineNs)
        return false;
    return m_spec.requests == 0 || budgeted || drawBudget();
}

bool LoadWorker::takeClaimed(Connection& c, InFlight& request) {
    if (c.retries > 0) {
        // Which retry is sent first does not matter: each drew or did not draw
        // on the budget once, and that is all the count needs. At a fixed
        // rate each keeps its intended start: sent again, it is later still.
        --c.retries;
        --m_heldClaims;
        request.budgeted = c.retriesBudgeted > 0;
        if (request.budgeted)
            --c.retriesBudgeted;
        if (!c.retryIntended.empty()) {
            request.intendedNs = c.retryIntended.front();
            c.retryIntended.pop_front();
        }
        return true;
    }
    if (c.reserved) {
        c.reserved = false;
        --m_heldClaims;
        request.budgeted = c.reservedBudgeted;
        request.intendedNs = c.reservedIntendedNs;
        return true;
    }
    return false;
}

void LoadWorker::startSchedule() {
    // This worker's share of the rate goes with its share of the connections.
    const uint32_t workers = std::min(m_spec.threads, m_spec.concurrency);
    m_rate = m_spec.rate * double(m_connectionCount) / double(m_spec.concurrency);
    // Workers that start together would send in step; each is offset by its
    // share of one gap, as wrk2 offsets each connection's schedule.
    const auto offset = int64_t(1e9 / m_rate * double(m_index) / double(workers));
    // From the run's start, not this thread's: however late a thread starts,
    // the run offers rate x time, and what it sent late shows as such.
    const int64_t runStartNs = m_shared.measureStartNs - m_spec.warmup.count();
    m_schedule.emplace(m_spec.arrival, m_rate, runStartNs + offset,
                       m_spec.seed * 0x9E3779B97F4A7C15ull + m_index);
    // The default 50 us timer slack would be added to every request's start.
    ::prctl(PR_SET_TIMERSLACK, 1UL);
    m_scheduleTimer = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    // Edge-triggered, so that the loop need not read the expiry count: a
    // read per request would be a system call per request.
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLET;
    ev.data.ptr = &m_scheduleTimer; // no connection is there either
    if (m_scheduleTimer >= 0 && ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_scheduleTimer, &ev) != 0) {
        ::close(m_scheduleTimer);
        m_scheduleTimer = -1; // the tick timer still brings the loop round, 10 ms late
    }
    // The schedule's timer is the loop's tick too (armScheduleTimer): the
    // periodic tick timer would add a wake-up and a read every kWaitMs,
    // 100 a second, to the wake-ups at the due times.
    if (m_scheduleTimer >= 0 && m_tickTimer >= 0) {
        ::close(m_tickTimer); // which also takes it out of the epoll set
        m_tickTimer = -1;
    }
}

void LoadWorker::waitForSchedule(Connection& c) {
    if (!c.idle) {
        c.idle = true;
        m_idle.push_back(&c);
    }
}

void LoadWorker::dispatchDue(int64_t now) {
    // Of the measured time only: a wake-up after the run's end finds starts due that no
    // request will ever have.
    const uint64_t backlog = m_schedule->backlog(std::min(now, m_shared.deadlineNs));
    if (m_measuring)
        m_maxBacklog = std::max(m_maxBacklog, backlog);
    // Oldest idle first, so the connections take turns as each has its own
    // schedule; requests due within the timer slack go now (claimRequest).
    const int64_t horizon = std::min(now + m_spec.timerSlack.count(), m_shared.deadlineNs);
    while (!m_idle.empty() && m_schedule->due(horizon)) {
        Connection& c = *m_idle.front();
        m_idle.pop_front();
        c.idle = false;
        if (c.state != Connection::State::Open || c.count >= c.ring.size())
            continue;
        // The connection waited for this request since before it was due, so
        // however late it goes out is the client's own delay.
        if (m_measuring) {
            ++m_dispatched;
            m_lateDispatches += now - m_schedule->nextNs() > kLateDispatchNs ? 1 : 0;
        } // (early ones, within the slack, are not late)
        issueRequests(c, now);
    }
    planScheduleWake(now);
}

void LoadWorker::planScheduleWake(int64_t now) {
    // Sleeping through responses delays reading them, not their times
    // (stamped reads), and nothing else needs them sooner while a
    // connection already waits for the next due time. A connect, a
    // handshake or a refused send does: those wait in epoll_wait, as does a
    // due request with no connection free, which the next response frees.
    const int64_t at = m_schedule->nextNs();
    if (m_stampedReceives && at > now && !m_idle.empty() && m_toOpen.empty() && m_settingUp == 0 &&
        m_blockedSends == 0) {
        // The requests due within LoadSpec::timerSlack after it go with it
        // (dispatchDue). The loop's tick still comes round (kWaitMs), and
        // the measured stretch's bounds are kept to the moment.
        int64_t until = std::min(at, now + int64_t(kWaitMs) * 1'000'000);
        for (const int64_t bound : {m_shared.measureStartNs, m_shared.deadlineNs})
            if (bound > now)
                until = std::min(until, bound);
        m_sleepUntilNs = until;
        return;
    }
    m_sleepUntilNs = 0;
    armScheduleTimer(now);
}

void LoadWorker::armScheduleTimer(int64_t now) {
    if (m_scheduleTimer < 0)
        return;
    // The timer is also the loop's tick (startSchedule): it is armed no
    // later than kWaitMs ahead, at the next due time when that is sooner
    // (a due time already past would fire at once, again and again). What
    // is armed stays when it is still right: a system call per due time at
    // most, none at a tick. Never before a due time that a connection
    // waits for: such a wake-up would find nothing to send.
    const int64_t at = m_schedule->nextNs();
    const int64_t tickAt = now + int64_t(kWaitMs) * 1'000'000;
    const bool waiting = at > now && !(m_idle.empty() && m_toOpen.empty());
    int64_t target = tickAt;
    if (waiting && at <= tickAt) {
        if (at == m_scheduleTimerAtNs)
            return;
        target = at;
    } else if (m_scheduleTimerAtNs > now && m_scheduleTimerAtNs <= tickAt) {
        return; // it fires soon enough, and at worst early for a due time: the loop looks again
    } else if (at > now && at <= tickAt) {
        target = at; // no connection waits for it yet: one may when it comes
    }
    itimerspec when{};
    when.it_value.tv_sec = target / 1'000'000'000;
    when.it_value.tv_nsec = target % 1'000'000'000;
    if (::timerfd_settime(m_scheduleTimer, TFD_TIMER_ABSTIME, &when, nullptr) == 0)
        m_scheduleTimerAtNs = target;
}

int LoadWorker::waitForEvents(epoll_event* events, int maxEvents, int timeoutMs) {
    if (!m_schedule || !m_measuring)
        return waitOnce(events, maxEvents, timeoutMs);
    const int64_t from = readClock();
    if (m_lastWokeNs > 0 && from - m_lastWokeNs > kLateDispatchNs)
        m_heldNs += from - m_lastWokeNs;
    const int n = waitOnce(events, maxEvents, timeoutMs);
    m_lastWokeNs = readClock();
    return n;
}

int LoadWorker::waitOnce(epoll_event* events, int maxEvents, int timeoutMs) {
    if (m_sleepUntilNs == 0)
        return waitAfterPause(events, maxEvents, timeoutMs);
    // One system call arms the wake-up and sleeps (the timerfd would take
    // two); then what the sockets got meanwhile, without blocking. A
    // signal's early return only makes the loop look again sooner.
    const timespec until{time_t(m_sleepUntilNs / 1'000'000'000),
                         long(m_sleepUntilNs % 1'000'000'000)};
    ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
    return ::epoll_wait(m_epoll, events, maxEvents, 0);
}

void LoadWorker::finishSchedule(int64_t now) {
    RunResult& r = m_recorder.result();
    r.offeredRate = m_rate;
    r.maxBacklog = m_maxBacklog;
    const double wallSeconds =
        double(std::min(now, m_shared.deadlineNs) - m_shared.measureStartNs) / 1e9;
    const bool late = m_dispatched >= kDispatchesToJudge &&
                      double(m_lateDispatches) > kLateShareSaturated * double(m_dispatched);
    const bool busy = wallSeconds > 0 && r.clientCpuSeconds >= kCpuLoadSaturated * wallSeconds;
    const bool held = wallSeconds > 0 && double(m_heldNs) / 1e9 > kHeldShareSaturated * wallSeconds;
    r.clientSaturated = late || busy || held;
}

} // namespace loadscope::engine::detail
