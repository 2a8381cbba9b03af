#include "fixed_delay_server.h"

#include "loopback_listener.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cmath>
#include <cstring>
#include <ctime>
#include <deque>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <numeric>
#include <queue>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>
#include <unordered_map>

namespace loadscope::testing {

namespace {
// With a cycle: how long after its accept a connection's first request may
// take before the slots it lets go by count as missed.
constexpr int64_t kFirstRequestGraceNs = 2'000'000;
} // namespace

struct FixedDelayServer::Connection {
    uint64_t id = 0;
    uint64_t answersOwed = 0;
    uint64_t requests = 0;
    int64_t lastArrivalNs = 0;
    bool answeredOnce = false;
    int64_t extraFirst = 0; // the stagger of the first answer
    int64_t phaseNs = 0;    // with a cycle: its grid's offset from the server's start
    int64_t lastSlotNs = 0; // with a cycle: the grid instant of its last answer (before
                            // the first: the instant before its first slot)
    bool closeAfterOwed = false;
    std::string in;
};

struct FixedDelayServer::Due {
    int64_t atNs;          // arrival + delay (+ the stagger of a first answer)
    int64_t arrivedRealNs; // the kernel's receive time of the request
    int fd;
    uint64_t connection;
    // Options::workers: when the worker serving it is free again (its
    // arrival or its turn, plus the delay); -1 without workers.
    int64_t workerFreeNs = -1;
    bool operator>(const Due& other) const { return atNs > other.atNs; }
};

// Options::workers: a request read while every worker was busy.
struct FixedDelayServer::Waiting {
    int64_t arrivedNs;     // the kernel's receive time, monotonic
    int64_t delayNs;       // its delay, fixed at its arrival (delayGrowth)
    int64_t extraNs;       // the stagger of a first answer
    int64_t arrivedRealNs; // as Due
    int fd;
    uint64_t connection;
};

struct FixedDelayServer::State {
    std::unordered_map<int, Connection> connections;
    std::priority_queue<Due, std::vector<Due>, std::greater<>> due;
    // Options::workers: since when each idle worker is free (monotonic ns),
    // and the requests waiting for one, first come first served.
    std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> workerFreeAt;
    std::deque<Waiting> waiting;
    // Options::growthAboveRate: the arrival rate, exponentially weighted, and when it was last
    // moved.
    double loadRate = 0;
    int64_t lastLoadArrivalNs = 0;
    uint64_t accepted = 0;
    uint64_t requests = 0;     // over every connection, for failEvery
    int64_t lastArrivalNs = 0; // over every connection
};

FixedDelayServer::FixedDelayServer(Options options)
    : m_options(options)
    , m_state(new State) {
    const std::string body(m_options.bodyBytes, 'd');
    m_response =
        "HTTP/1.1 200 OK\r\nServer: fixed-delay\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\n\r\n" + body;
    uint16_t port = 0;
    m_listen = listenOnLoopback(m_options.port, 4096, port, m_options.address);
    if (m_listen < 0)
        return;
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    m_timer = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    m_wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    for (int fd : {m_listen, m_timer, m_wake}) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &ev);
    }
    for (uint32_t i = 0; i < m_options.workers; ++i)
        m_state->workerFreeAt.push(0);
    m_lateness.reserve(1 << 20);
    m_cycles.reserve(1 << 20);
    m_residences.reserve(1 << 20);
    m_arrivalGaps.reserve(1 << 20);
    m_port = port;
    m_startNs = monotonicNowNs();
    m_thread = std::thread([this] { loop(); });
}

FixedDelayServer::~FixedDelayServer() {
    if (m_thread.joinable()) {
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = ::write(m_wake, &one, sizeof one);
        m_thread.join();
    }
    for (auto& [fd, _] : m_state->connections)
        ::close(fd);
    for (int fd : {m_listen, m_epoll, m_timer, m_wake})
        if (fd >= 0)
            ::close(fd);
    delete m_state;
}

namespace {

int64_t percentileOf(std::vector<int64_t> values, double percentile) {
    if (values.empty())
        return 0;
    const auto rank = size_t(std::ceil(percentile / 100.0 * double(values.size())));
    const size_t index = std::min(values.size() - 1, rank > 0 ? rank - 1 : 0);
    std::nth_element(values.begin(), values.begin() + long(index), values.end());
    return values[index];
}

// recv that also gives the kernel's receive time of what it read (the socket
// has SO_TIMESTAMPNS); the clock now when the read carried no stamp. The
// truth reads its stamps itself, not through the engine it checks.
ssize_t receiveWithArrival(int fd, char* buffer, size_t size, int64_t& arrivedRealNs) {
    iovec io{buffer, size};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    msghdr message{};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd, &message, MSG_DONTWAIT);
    arrivedRealNs = realtimeNowNs();
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); n > 0 && c; c = CMSG_NXTHDR(&message, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            timespec ts{};
            std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
            arrivedRealNs = int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
        }
    return n;
}

double meanOf(const std::vector<int64_t>& values) {
    if (values.empty())
        return 0;
    return double(std::accumulate(values.begin(), values.end(), int64_t(0))) /
           double(values.size());
}

} // namespace

int64_t FixedDelayServer::latenessPercentile(double percentile) const {
    std::lock_guard lock(m_latenessMutex);
    return percentileOf(m_lateness, percentile);
}

double FixedDelayServer::meanLatenessNs() const {
    std::lock_guard lock(m_latenessMutex);
    return meanOf(m_lateness);
}

int64_t FixedDelayServer::cyclePercentile(double percentile) const {
    std::lock_guard lock(m_latenessMutex);
    return percentileOf(m_cycles, percentile);
}

double FixedDelayServer::meanCycleNs() const {
    std::lock_guard lock(m_latenessMutex);
    return meanOf(m_cycles);
}

int64_t FixedDelayServer::residencePercentile(double percentile) const {
    std::lock_guard lock(m_latenessMutex);
    return percentileOf(m_residences, percentile);
}

int64_t FixedDelayServer::arrivalGapPercentile(double percentile) const {
    std::lock_guard lock(m_latenessMutex);
    return percentileOf(m_arrivalGaps, percentile);
}

int64_t FixedDelayServer::arrivalSpanNs() const {
    std::lock_guard lock(m_latenessMutex);
    int64_t span = 0;
    for (const int64_t gap : m_arrivalGaps)
        span += gap;
    return span;
}

void FixedDelayServer::resetFigures() {
    std::lock_guard lock(m_latenessMutex);
    m_lateness.clear();
    m_cycles.clear();
    m_residences.clear();
    m_arrivalGaps.clear();
}

void FixedDelayServer::loop() {
    // The default 50 us slack would be most of what a latency test may miss by.
    ::prctl(PR_SET_TIMERSLACK, 1UL);
    epoll_event events[256];
    for (;;) {
        const int n = ::epoll_wait(m_epoll, events, 256, 1000);
        for (int i = 0; i < n; ++i) {
            const int fd = events[i].data.fd;
            if (fd == m_wake)
                return;
            if (fd == m_listen)
                accept();
            else if (fd == m_timer) {
                uint64_t expirations = 0;
                [[maybe_unused]] const ssize_t r =
                    ::read(m_timer, &expirations, sizeof expirations);
            } else
                read(fd);
        }
        sendDue(monotonicNowNs());
        armTimer();
    }
}

void FixedDelayServer::accept() {
    for (;;) {
        const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        const int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
        Connection& c = m_state->connections[fd];
        c = Connection{};
        c.id = ++m_state->accepted;
        ++m_acceptedCount;
        if (m_options.staggerConnections > 0) {
            const int64_t spread =
                m_options.cycle.count() > 0 ? m_options.cycle.count() : m_options.delay.count();
            const int64_t share = spread * int64_t(c.id % m_options.staggerConnections) /
                                  int64_t(m_options.staggerConnections);
            if (m_options.cycle.count() > 0)
                c.phaseNs = share;
            else
                c.extraFirst = share;
        }
        if (const int64_t cycle = m_options.cycle.count(); cycle > 0) {
            // Its slots count from its first grid instant after a request could
            // have come (the accept and a round trip's grace): a client slow to
            // send its first request misses slots as a stalled one does later.
            const int64_t origin = m_startNs + c.phaseNs;
            const int64_t ready = monotonicNowNs() + kFirstRequestGraceNs;
            c.lastSlotNs =
                origin + (std::max<int64_t>(ready - origin, 0) + cycle - 1) / cycle * cycle - cycle;
        }
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &ev);
    }
}

void FixedDelayServer::read(int fd) {
    auto it = m_state->connections.find(fd);
    if (it == m_state->connections.end())
        return;
    Connection& c = it->second;
    char buffer[16384];
    int64_t arrivedRealNs = 0;
    const ssize_t n = receiveWithArrival(fd, buffer, sizeof buffer, arrivedRealNs);
    const int64_t arrived = monotonicNowNs();
    // The kernel's receive time on the monotonic clock: how long the request
    // waited in the socket before this thread read it is taken off the time
    // it was read. The known-capacity queue (workers, delayGrowth) runs on
    // it, so that a moment in which other load keeps this thread from its
    // CPU delays answers but takes nothing from the capacity: the workers'
    // time is the kernel's, not this thread's.
    const int64_t received = arrived - std::max<int64_t>(0, realtimeNowNs() - arrivedRealNs);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        closeConnection(fd);
        return;
    }
    if (n < 0)
        return;
    c.in.append(buffer, size_t(n));
    for (;;) {
        const size_t end = c.in.find("\r\n\r\n");
        if (end == std::string::npos)
            break;
        const std::string_view head(c.in.data(), end);
        const bool closing = head.find("Connection: close") != std::string_view::npos ||
                             (head.find("HTTP/1.0") != std::string_view::npos &&
                              head.find("Keep-Alive") == std::string_view::npos);
        c.in.erase(0, end + 4);
        if (m_options.failEvery > 0 && ++m_state->requests % m_options.failEvery == 0) {
            static constexpr std::string_view malformed = "HTTP/1.1 abc\r\n\r\n";
            [[maybe_unused]] const ssize_t sent =
                ::send(fd, malformed.data(), malformed.size(), MSG_NOSIGNAL);
            ++m_failed;
            closeConnection(fd);
            return;
        }
        {
            std::lock_guard lock(m_latenessMutex);
            if (++c.requests > 2)
                m_cycles.push_back(arrived - c.lastArrivalNs);
            if (m_state->lastArrivalNs != 0)
                m_arrivalGaps.push_back(arrived - m_state->lastArrivalNs);
        }
        c.lastArrivalNs = arrived;
        m_state->lastArrivalNs = arrived;
        int64_t extra = 0;
        if (!c.answeredOnce) {
            c.answeredOnce = true;
            extra = c.extraFirst;
        }
        if (const int64_t cycle = m_options.cycle.count(); cycle > 0) {
            // A paced server answers on its connection's grid: the first
            // instant of it at or after the due time, and never the slot of
            // an answer it already has coming.
            const int64_t dueNs = arrived + m_options.delay.count() + extra;
            const int64_t origin = m_startNs + c.phaseNs;
            int64_t slot =
                origin + (std::max<int64_t>(dueNs - origin, 0) + cycle - 1) / cycle * cycle;
            slot = std::max(slot, c.lastSlotNs + cycle);
            m_missedCycles += uint64_t((slot - c.lastSlotNs) / cycle - 1);
            c.lastSlotNs = slot;
            m_state->due.push(Due{slot, arrivedRealNs, fd, c.id});
        } else {
            schedule(arrived, received, extra, arrivedRealNs, fd, c.id);
        }
        ++c.answersOwed;
        if (closing) {
            c.closeAfterOwed = true;
            break;
        }
    }
}

void FixedDelayServer::schedule(int64_t readNs, int64_t receivedNs, int64_t extraNs,
                                int64_t arrivedRealNs, int fd, uint64_t connection) {
    int64_t delay = m_options.delay.count();
    const bool growing = m_options.growthAboveRate > 0 && m_options.delayGrowth.count() > 0;
    if (m_options.workers == 0 && !growing) {
        m_state->due.push(Due{readNs + delay + extraNs, arrivedRealNs, fd, connection});
        return;
    }
    // A server of known capacity: its time is the kernel's (see read()); the
    // two clocks read apart cannot put the receipt after the read.
    const int64_t arrivedNs = std::min(receivedNs, readNs);
    if (growing) {
        // Each arrival adds 1/tau to a rate that decays by e^(-t/tau): at a
        // constant rate r it settles at r (within 1/(2 tau)).
        const double tau = double(m_options.loadWindow.count()) / 1e9;
        const double since = double(arrivedNs - m_state->lastLoadArrivalNs) / 1e9;
        m_state->loadRate = m_state->loadRate * std::exp(-since / tau) + 1 / tau;
        m_state->lastLoadArrivalNs = arrivedNs;
        const double rate = m_state->loadRate;
        if (rate > m_options.growthAboveRate)
            delay +=
                int64_t((rate - m_options.growthAboveRate) * double(m_options.delayGrowth.count()));
    }
    if (m_options.workers == 0) {
        m_state->due.push(Due{arrivedNs + delay + extraNs, arrivedRealNs, fd, connection});
        return;
    }
    // An idle worker serves it once it has arrived; with none, it waits.
    auto& free = m_state->workerFreeAt;
    if (free.empty()) {
        m_state->waiting.push_back(
            Waiting{arrivedNs, delay, extraNs, arrivedRealNs, fd, connection});
        return;
    }
    const int64_t start = std::max(arrivedNs, free.top());
    free.pop();
    m_state->due.push(Due{start + delay + extraNs, arrivedRealNs, fd, connection, start + delay});
}

void FixedDelayServer::releaseWorker(int64_t freeNs) {
    // The first waiting request whose client is still there is next; one
    // whose connection closed is dropped, its answer would go nowhere.
    auto& waiting = m_state->waiting;
    while (!waiting.empty()) {
        const Waiting next = waiting.front();
        waiting.pop_front();
        const auto it = m_state->connections.find(next.fd);
        if (it == m_state->connections.end() || it->second.id != next.connection)
            continue;
        const int64_t start = std::max(next.arrivedNs, freeNs);
        m_state->due.push(Due{start + next.delayNs + next.extraNs, next.arrivedRealNs, next.fd,
                              next.connection, start + next.delayNs});
        return;
    }
    m_state->workerFreeAt.push(freeNs);
}

double FixedDelayServer::capacityWithin(std::chrono::nanoseconds bound) const {
    const double delay = double(m_options.delay.count());
    if (double(bound.count()) < delay)
        return 0;
    if (m_options.workers > 0)
        return double(m_options.workers) * 1e9 / delay;
    if (m_options.growthAboveRate > 0 && m_options.delayGrowth.count() > 0) {
        // The weighted rate a request sees at the bound's delay...
        const double atBound =
            m_options.growthAboveRate +
            (double(bound.count()) - delay) / double(m_options.delayGrowth.count());
        // ...is, just after each of constant arrivals r apart 1/r, (1/tau) /
        // (1 - e^(-1/(r tau))) (about r + 1/(2 tau)): r from it.
        const double tau = double(m_options.loadWindow.count()) / 1e9;
        if (tau <= 0 || tau * atBound <= 1)
            return atBound;
        return -1 / (tau * std::log(1 - 1 / (tau * atBound)));
    }
    return 0;
}

int64_t FixedDelayServer::releasedAt(int64_t atNs) const {
    const int64_t period = m_options.stallPeriod.count();
    const int64_t length = m_options.stallLength.count();
    if (period <= 0 || length <= 0)
        return atNs;
    const int64_t sincePeriodStart = (atNs - m_startNs) % period;
    const int64_t stallStart = period - length;
    return sincePeriodStart >= stallStart ? atNs + (period - sincePeriodStart) : atNs;
}

void FixedDelayServer::sendDue(int64_t now) {
    auto& due = m_state->due;
    if (releasedAt(now) != now)
        return; // stalled: armTimer wakes the loop at the stall's end
    while (!due.empty() && due.top().atNs <= now) {
        const Due d = due.top();
        due.pop();
        // Its worker is free from when the answer was due, on the same
        // clock as the arrivals: whenever this thread got to it.
        if (d.workerFreeNs >= 0)
            releaseWorker(d.workerFreeNs);
        auto it = m_state->connections.find(d.fd);
        if (it == m_state->connections.end() || it->second.id != d.connection)
            continue; // the client went away before its answer was due
        const int64_t sendingRealNs = realtimeNowNs();
        size_t sent = 0;
        while (sent < m_response.size()) {
            const ssize_t n =
                ::send(d.fd, m_response.data() + sent, m_response.size() - sent, MSG_NOSIGNAL);
            if (n <= 0)
                break;
            sent += size_t(n);
        }
        const int64_t late = monotonicNowNs() - d.atNs;
        {
            std::lock_guard lock(m_latenessMutex);
            m_lateness.push_back(late);
            m_residences.push_back(sendingRealNs - d.arrivedRealNs);
        }
        ++m_answered;
        Connection& c = it->second;
        if (--c.answersOwed == 0 && c.closeAfterOwed)
            closeConnection(d.fd);
    }
}

void FixedDelayServer::armTimer() {
    if (m_state->due.empty())
        return;
    // An answer already late when a stall began waits for its end too.
    const int64_t at = releasedAt(std::max(m_state->due.top().atNs, monotonicNowNs()));
    itimerspec spec{};
    spec.it_value.tv_sec = at / 1'000'000'000;
    spec.it_value.tv_nsec = at % 1'000'000'000;
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0)
        spec.it_value.tv_nsec = 1; // zero would disarm it
    ::timerfd_settime(m_timer, TFD_TIMER_ABSTIME, &spec, nullptr);
}

void FixedDelayServer::closeConnection(int fd) {
    m_state->connections.erase(fd);
    ::close(fd);
}

} // namespace loadscope::testing
