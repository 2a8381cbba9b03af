#include "engine/load_worker.h"

#include "engine/load_worker_connection.h"
#include "engine/vector_state.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

namespace loadscope::engine::detail {

namespace {

constexpr int kMaxEvents = 256;
constexpr int64_t kPublishPeriodNs = 25'000'000;
constexpr int64_t kTimeoutScanPeriodNs = 20'000'000;
constexpr int64_t kShortestTimeoutScanNs = 1'000'000;
int64_t threadCpuNs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

} // namespace

int64_t monotonicNs() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

LoadWorker::LoadWorker(SharedRunState& shared, uint32_t index, uint32_t firstConnection,
                       uint32_t connectionCount)
    : m_shared(shared)
    , m_spec(shared.spec)
    , m_protocol(*shared.spec.protocol)
    , m_index(index)
    , m_firstConnection(firstConnection)
    , m_connectionCount(connectionCount)
    , m_isStream(m_protocol.isStream())
    , m_keepAlive(m_protocol.keepAlive())
    , m_datagrams(m_protocol.datagrams())
    , m_timeoutScanPeriodNs(std::clamp<int64_t>(m_spec.requestTimeout.count() / 8,
                                                kShortestTimeoutScanNs, kTimeoutScanPeriodNs))
    // A fixed rate sleeps to its due times instead (planScheduleWake).
    , m_coalescer(m_spec.wakeCoalescing && m_spec.rate <= 0)
    , m_recorder(shared, m_protocol) {}

void LoadWorker::createConnections() {
    // Allocated here rather than by the thread that starts the run: the hot
    // buffers then come from this thread's malloc arena and its memory, not
    // from wherever the caller's heap happens to have room.
    // Not zeroed: recv writes what is read, and untouched pages stay unbacked.
    m_readBuffer.reset(new char[kReadBufferBytes]);
    m_discardBuffer.reset(new char[kDiscardBytes]);
    m_connections.reserve(m_connectionCount);
    for (uint32_t i = 0; i < m_connectionCount; ++i) {
        auto c = std::make_unique<Connection>();
        c->index = m_firstConnection + i;
        c->session =
            m_protocol.newSession(c->index, m_spec.seed * 0x9E3779B97F4A7C15ull + c->index);
        c->mux = c->session->multiplexed();
        if (m_datagrams) {
            c->datagram = std::make_unique<DatagramState>();
            c->datagram->payload = std::string(m_datagrams->payload);
            if (!m_isStream)
                c->datagram->history.assign(DatagramState::kHistory, SequenceFate::Unknown);
        }
        c->ring.resize(m_isStream ? 1 : m_spec.pipeline);
        m_connections.push_back(std::move(c));
    }
    // Not at a fixed rate: a blocking recv would sleep through the schedule's
    // timer. A TLS connection's reads go through OpenSSL, never a blocking recv.
    if (m_connectionCount == 1 && m_keepAlive && !m_isStream && m_spec.rate <= 0 &&
        !m_spec.tls.enabled && !m_connections.front()->mux)
        m_soleConnection = m_connections.front().get();
}

LoadWorker::~LoadWorker() {
    for (auto& c : m_connections)
        if (c->fd >= 0)
            ::close(c->fd);
    for (int timer : {m_tickTimer, m_scheduleTimer})
        if (timer >= 0)
            ::close(timer);
    if (m_epoll >= 0)
        ::close(m_epoll);
}

void LoadWorker::issueRequests(Connection& c, int64_t now) {
    if (c.datagram) {
        issueDatagrams(c, now);
        return;
    }
    const bool perConnection = !m_keepAlive;
    Claim claim = Claim::Claimed;
    bool streamsRefused = false;
    while (c.count < c.ring.size()) {
        if (perConnection && c.responses + c.count > 0)
            break; // one request per connection
        if (c.mux && !c.mux->canOpenStream(c.count)) {
            streamsRefused = true;
            break; // the server's stream limit, or its GOAWAY
        }
        InFlight request;
        if (!takeClaimed(c, request) && (claim = claimRequest(now, request)) != Claim::Claimed)
            break;
        request.startNs = now; // until flush() reads the clock of its send
        if (!c.connectCharged) {
            // As ab: the first request on a connection carries its connect time,
            // unless it came due after the connection was up (fixed rate).
            c.connectCharged = true;
            // The set-up it waited for: the connect first, then the handshake.
            const int64_t connectedNs = c.connectStartNs + c.connectNs + c.tlsNs;
            if (request.intendedNs < connectedNs) {
                request.startNs = std::max(c.connectStartNs, request.intendedNs);
                const int64_t waited = connectedNs - request.startNs;
                request.tlsNs = std::min(c.tlsNs, waited);
                request.connectNs = waited - request.tlsNs;
                request.startsAtSend = false;
            }
        }
        const size_t before = c.out.queuedBytes();
        c.session->queueRequest(c.out);
        request.requestBytes = uint32_t(c.out.queuedBytes() - before);
        if (c.mux)
            request.stream = c.mux->lastStream();
        c.push(request);
        ++c.unsent;
        ++m_inFlight;
    }
    if (claim == Claim::NotYet)
        waitForSchedule(c);
    if (c.mux)
        c.mux->produce(c.out); // frames owed without a request: acks, WINDOW_UPDATEs
    if (streamsRefused && c.count == 0 && !c.mux->goawayReceived() && !c.mux->over()) {
        // Nothing in flight, so no request timeout would end the wait: the
        // server may raise its limit, but only within that timeout.
        if (c.streamsRefusedSinceNs == 0)
            c.streamsRefusedSinceNs = now;
        if (!c.out.empty())
            flush(c, now);
        return;
    }
    c.streamsRefusedSinceNs = 0;
    if (c.count == 0 && c.out.empty()) {
        // Nothing left to send: the budget is spent or the deadline passed.
        if (claim != Claim::NotYet)
            dropConnection(c, now, false);
        return;
    }
    flush(c, now);
}

void LoadWorker::flush(Connection& c, int64_t now) {
    if (c.datagram) {
        flushDatagrams(c);
        return;
    }
    // The requests start when the send that writes their last byte begins (as
    // wrk: before the write), so no request starts after the server has it.
    int64_t sent = now;
    while (!c.out.empty()) {
        sent = readClock();
        const ssize_t n = c.tls ? c.tls->send(c.out) : c.out.sendTo(c.fd);
        if (n > 0)
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            setWriteInterest(c, true);
            return;
        }
        const bool reusedConnection = c.responses > 0;
        if (reusedConnection) {
            // The server closed an idle keep-alive connection as we reused it.
            dropConnection(c, sent, true);
        } else {
            failHead(c, ErrorClass::Write, sent, std::string("send: ") + std::strerror(errno));
        }
        return;
    }
    for (size_t i = c.count - c.unsent; i < c.count; ++i) {
        InFlight& request = c.at(i);
        request.sentNs = sent;
        if (request.startsAtSend)
            request.startNs = sent;
    }
    c.unsent = 0; // the queue cleared itself when its last byte went out
    setWriteInterest(c, false);
}

void LoadWorker::setWriteInterest(Connection& c, bool wanted) {
    if (c.wantWrite == wanted || c.fd < 0)
        return;
    c.wantWrite = wanted;
    if (c.state == Connection::State::Open)
        m_blockedSends += wanted ? 1 : -1;
    // An unwatched connection gets the new events when setWatched adds it back.
    if (c.watched)
        controlEpoll(c, EPOLL_CTL_MOD);
}

void LoadWorker::setState(Connection& c, Connection::State state) {
    using State = Connection::State;
    const auto settingUp = [](State s) {
        return s == State::Connecting || s == State::Handshaking;
    };
    m_settingUp += int(settingUp(state)) - int(settingUp(c.state));
    // An open connection that wants to write has a send the socket refused.
    if (c.wantWrite)
        m_blockedSends += int(state == State::Open) - int(c.state == State::Open);
    c.state = state;
}

void LoadWorker::setWatched(Connection& c, bool watched) {
    if (c.watched != watched && c.fd >= 0 &&
        controlEpoll(c, watched ? EPOLL_CTL_ADD : EPOLL_CTL_DEL))
        c.watched = watched;
}

bool LoadWorker::controlEpoll(Connection& c, int operation) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | (c.wantWrite ? EPOLLOUT : 0u);
    // Edge-triggered for requests and responses: onReadable reads until the
    // socket is drained and flush writes until it would block, so a level
    // would add nothing but the kernel's second poll of every socket it
    // reported (once more at the next epoll_wait, to find it empty). A
    // stream's writes stop after a bounded burst with room left, so it keeps
    // the level that brings it back.
    if (!m_isStream)
        ev.events |= EPOLLET;
    ev.data.ptr = &c;
    return ::epoll_ctl(m_epoll, operation, c.fd, &ev) == 0;
}

void LoadWorker::checkTimeouts(int64_t now) {
    for (auto& owned : m_connections) {
        Connection& c = *owned;
        if (c.state == Connection::State::Connecting &&
            now - c.connectStartNs > m_spec.connectTimeout.count()) {
            failConnect(c, now, ETIMEDOUT);
        } else if (c.state == Connection::State::Handshaking &&
                   now - c.connectStartNs > m_spec.connectTimeout.count()) {
            failHandshake(c, now, "not finished within the connect timeout");
        } else if (c.state == Connection::State::Open && c.datagram) {
            expireDatagrams(c, now);
        } else if (c.state == Connection::State::Open && c.count > 0 &&
                   now - c.front().startNs > m_spec.requestTimeout.count()) {
            failHead(c, ErrorClass::Timeout, now, "no response within the request timeout");
        } else if (c.state == Connection::State::Open && c.streamsRefusedSinceNs > 0 &&
                   now - c.streamsRefusedSinceNs > m_spec.requestTimeout.count()) {
            failRefusedStreams(c, now);
        }
    }
}

void LoadWorker::failRefusedStreams(Connection& c, int64_t now) {
    // As a GOAWAY that refuses a stream: the server took no request. One
    // request is counted for each such wait, as a timeout counts one.
    InFlight request;
    if ((takeClaimed(c, request) || claimRequest(now, request) == Claim::Claimed) &&
        counts(request.budgeted, now))
        m_recorder.failure(ErrorClass::Goaway,
                           "HTTP/2: the server allowed no stream "
                           "(SETTINGS_MAX_CONCURRENT_STREAMS 0) within the request timeout");
    dropConnection(c, now, false);
}

bool LoadWorker::finished(int64_t now) {
    if (m_shared.stop.load(std::memory_order_relaxed)) {
        if (m_isStream && m_measuring && !m_datagrams) {
            // Cancelled: what is still queued was not delivered.
            uint64_t& sent = m_recorder.result().bytesSent;
            for (auto& c : m_connections)
                if (c->state == Connection::State::Open)
                    sent -= std::min(sent, unacknowledgedBytes(c->fd));
        }
        return true;
    }
    if (now >= m_shared.deadlineNs)
        return !m_isStream || (m_datagrams ? drainDatagramStreams(now) : drainStreams(now));
    // A counted run whose budget is spent has nothing left to send or count,
    // whether or not this worker found it so by a claim: at a fixed rate the
    // next claim may be a schedule's gap away (-R 0.2 -n 1: 5 s after the
    // answer).
    return budgetSpent() && m_inFlight == 0 && m_heldClaims == 0;
}

bool LoadWorker::budgetSpent() const {
    return m_spec.requests > 0 &&
           (m_budgetExhausted || m_shared.remaining.load(std::memory_order_relaxed) <= 0);
}

void LoadWorker::tick(int64_t now) {
    if (!m_measuring && now >= m_shared.measureStartNs) {
        m_measuring = true;
        m_cpuAtMeasureStartNs = threadCpuNs();
        if (m_isStream && !m_datagrams) {
            // Written in warm-up and still queued: delivered inside the measured stretch.
            for (auto& c : m_connections)
                if (c->state == Connection::State::Open)
                    m_recorder.result().bytesSent += unacknowledgedBytes(c->fd);
        }
    }
    if (now >= m_nextTimeoutScanNs) {
        m_nextTimeoutScanNs = now + m_timeoutScanPeriodNs;
        checkTimeouts(now);
    }
    if (!m_toOpen.empty())
        openQueued(now);
    if (m_schedule)
        dispatchDue(now);
    if (now >= m_nextPublishNs) {
        m_nextPublishNs = now + kPublishPeriodNs;
        m_recorder.publish();
        m_coalescer.update(now);
    }
}

int LoadWorker::waitAfterPause(epoll_event* events, int maxEvents, int timeoutMs) {
    // A busy server's responses gather while the worker sleeps on its own
    // timer (WakeCoalescer); then it takes them without blocking, and waits
    // only when none came. A read without its stamp would time the pause too.
    const int64_t pause = m_stampedReceives ? m_coalescer.pauseNs() : 0;
    if (pause > 0) {
        const timespec span{0, long(pause)};
        ::clock_nanosleep(CLOCK_MONOTONIC, 0, &span, nullptr);
        if (const int n = ::epoll_wait(m_epoll, events, maxEvents, 0); n != 0)
            return n;
    }
    return ::epoll_wait(m_epoll, events, maxEvents, timeoutMs);
}

void LoadWorker::startTickTimer() {
    // The loop's wake-up when nothing happens, as a periodic timer in the
    // epoll set: epoll_wait then blocks without a timeout, which saves the
    // kernel reading the clock and arming and cancelling a timer on every
    // wait, once per one or two responses under load. Without a timerfd the
    // loop falls back to epoll_wait's own timeout.
    m_tickTimer = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (m_tickTimer < 0)
        return;
    constexpr long kPeriodNs = long(kWaitMs) * 1'000'000;
    const itimerspec period{{0, kPeriodNs}, {0, kPeriodNs}};
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr; // no connection is at nullptr
    if (::timerfd_settime(m_tickTimer, 0, &period, nullptr) != 0 ||
        ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_tickTimer, &ev) != 0) {
        ::close(m_tickTimer);
        m_tickTimer = -1;
    }
}

bool LoadWorker::prepare() {
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    if (m_epoll < 0) {
        m_recorder.failure(ErrorClass::Exception, std::string("epoll: ") + std::strerror(errno));
        return false;
    }
    // Before the first tick takes the CPU baseline: allocating would
    // otherwise show as client CPU load in a short run.
    m_recorder.reserveHistograms(m_spec.rate > 0);
    if (m_spec.tls.enabled) {
        std::string problem;
        m_tls = TlsContext::create(m_spec.tls, &problem);
        if (!m_tls) {
            m_recorder.failure(ErrorClass::Tls, problem);
            return false;
        }
    }
    // A response's time is when the kernel received its last byte, however
    // late in a batch of events the loop reads it (SO_TIMESTAMPNS; through
    // TLS, that of the recv that took its last record). A stream's sink
    // reads nothing that is timed; a connection per request would pay a
    // system call per request to ask for it.
    m_stampedReceives = m_keepAlive && !m_isStream;
    // The pause's bound holds with this slack whatever the thread inherited.
    if (m_coalescer.enabled() && m_stampedReceives)
        ::prctl(PR_SET_TIMERSLACK, WakeCoalescer::kPauseSlackNs);
    startTickTimer();
    createConnections();
    return true;
}

void LoadWorker::run() {
    // The registers were copied from the thread that started the run, which
    // may have left the upper vector halves in use (see vector_state.h).
    clearUpperVectorState();
    if (!m_spec.cpus.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(m_spec.cpus[m_index % m_spec.cpus.size()], &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    // Set-up comes before the run's clock starts (every worker is ready
    // first), so none of it is measured time or a late schedule.
    const bool prepared = prepare();
    m_shared.workerReady();
    if (!prepared)
        return;
    int64_t now = readClock();
    if (m_spec.rate > 0)
        startSchedule();
    for (auto& c : m_connections)
        queueOpen(*c, now);
    tick(now);
    epoll_event events[kMaxEvents];
    while (!finished(now)) {
        if (awaitingSoleResponse()) {
            // Out of the epoll set while it waits in recv: a watched socket
            // runs epoll's wake-up callback for every packet the server sends,
            // which cost 1-2 % of a one-connection TCP_RR rate on one CPU.
            setWatched(*m_soleConnection, false);
            now = awaitSoleResponse();
            tick(now);
            continue;
        }
        if (m_soleConnection)
            setWatched(*m_soleConnection, true); // no-op unless it left the set above
        // Taken before the wait: at a fixed rate the wait reads the clock as
        // it returns, and a wake-up with no connection event (the schedule's
        // timer) then needs no second read below.
        const int64_t clockBefore = m_clockNs;
        const bool timerTicks = m_tickTimer >= 0 || m_scheduleTimer >= 0;
        // With bytes left to read from the last pass the loop only looks
        // for events: it neither waits nor pauses, and reads those first.
        const bool deferred = !m_unread.empty();
        const int n = deferred ? ::epoll_wait(m_epoll, events, kMaxEvents, 0)
                               : waitForEvents(events, kMaxEvents, timerTicks ? -1 : kWaitMs);
        if (deferred)
            readDeferred();
        for (int i = 0; i < n; ++i) {
            if (events[i].data.ptr == &m_scheduleTimer)
                continue; // edge-triggered: each expiry is an event, unread
            if (events[i].data.ptr == nullptr) {
                uint64_t expirations = 0;
                [[maybe_unused]] const ssize_t r =
                    ::read(m_tickTimer, &expirations, sizeof expirations);
                continue;
            }
            auto& c = *static_cast<Connection*>(events[i].data.ptr);
            if (c.fd < 0)
                continue;
            const uint32_t flags = events[i].events;
            if (c.state == Connection::State::Connecting) {
                if (flags & (EPOLLOUT | EPOLLERR | EPOLLHUP))
                    onConnected(c, readClock());
                continue;
            }
            const bool peerClosing = flags & (EPOLLRDHUP | EPOLLHUP | EPOLLERR);
            if (c.tls && ((flags & EPOLLIN) || peerClosing))
                c.tls->expectInput(peerClosing); // bytes or a close may be queued
            if (c.state == Connection::State::Handshaking) {
                continueHandshake(c, readClock());
                continue;
            }
            if ((flags & EPOLLIN) || peerClosing)
                onReadable(c, peerClosing);
            if (c.fd >= 0 && (flags & EPOLLOUT)) {
                if (m_isStream)
                    streamWrite(c);
                else
                    flush(c, m_clockNs);
            }
        }
        // The batch's last event (or the wait) read the clock a moment ago;
        // the loop's bookkeeping needs no read of its own then.
        now = m_clockNs != clockBefore ? m_clockNs : readClock();
        tick(now);
    }
    m_recorder.finish();
    m_recorder.result().threads = 1;
    m_recorder.result().threadCpus.push_back(sched_getcpu());
    m_recorder.result().serverSoftware = m_serverSoftware;
    if (m_measuring)
        m_recorder.result().clientCpuSeconds = double(threadCpuNs() - m_cpuAtMeasureStartNs) / 1e9;
    if (m_schedule)
        finishSchedule(now);
}

} // namespace loadscope::engine::detail
