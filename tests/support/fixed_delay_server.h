#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace loadscope::testing {

// An HTTP server that answers each request exactly `delay` after it arrived:
// the known truth a latency figure is checked against. With workers or a
// delay that grows with the load (Options), a server of known capacity. One epoll thread on
// 127.0.0.1; the arrival is the clock when the read that completed the
// request returned, and a timerfd at that time plus the delay (timer slack
// 1 ns) sends the answer. What the kernel adds to the delay is measured per
// response (lateness), and so is each connection's cycle as the server sees
// it: from one request's arrival to the next one's on the same connection,
// that is the delay, the lateness and the client's turnaround. A closed-loop
// client's latency is that cycle less its own work between a response and the
// next send; c connections complete c / mean cycle requests a second.
// Each request's residence is also measured on the kernel's clocks: from the
// moment its last byte reached the server's socket (SO_TIMESTAMPNS) to the
// send of its answer. A client that times each response by its arrival has
// a latency of that residence and the loopback both ways, whatever its own
// wake-ups and work cost.
// Plain C++ and Linux: usable without Qt.
class FixedDelayServer {
public:
    struct Options {
        std::chrono::nanoseconds delay{std::chrono::milliseconds(2)};
        size_t bodyBytes = 100;
        // Spreads the connections' phases: the first answer on the k-th
        // accepted connection comes (k % staggerConnections) / staggerConnections
        // of a delay later. 0: no spread. Closed-loop clients that start
        // together otherwise stay in step, and a window then counts whole rounds.
        uint32_t staggerConnections = 0;
        uint16_t port = 0; // 0: a free port
        // Every failEvery-th request the server reads (over all connections)
        // is answered at once with a malformed status line and a close: a
        // known share of requests that fail fast. 0: none fails.
        uint32_t failEvery = 0;
        // Every stallPeriod from the server's start, it sends nothing for
        // stallLength (the first stall begins after one period less its
        // length): a server that stops the world now and then, as a
        // garbage collection would. Answers due in a stall go out at its end.
        // 0: never stalls.
        std::chrono::nanoseconds stallPeriod{0};
        std::chrono::nanoseconds stallLength{0};
        // A server of known capacity: at most `workers` requests are served
        // at once, first come first served (in the order they were read),
        // each for `delay`; a request that finds them all busy waits for the
        // first to be free. Its capacity is workers / delay requests a
        // second: below it, constant arrivals are each answered after
        // `delay`; above it, the queue and the latency grow without bound.
        // A waiting request whose connection closed is dropped, not served:
        // a run that ended above the capacity leaves no backlog behind.
        // 0: no limit (every request is answered `delay` after it arrived).
        uint32_t workers = 0;
        // A server whose latency grows with its load in a known way: a
        // request's delay is `delay` + delayGrowth x (r - growthAboveRate)
        // when r, its arrival rate (all connections), exceeds
        // growthAboveRate; `delay` below it. r is an exponentially weighted
        // mean with time constant loadWindow: a stall that holds requests
        // back and then lets them come at once moves it little (the gap takes
        // away about what the burst adds), where a count over a sliding
        // window would jump as the gap left it. At a constant offered rate r
        // (steady for a few loadWindows) the latency is that delay, so the
        // highest rate whose latency stays within a bound B is the rate whose
        // weighted mean is growthAboveRate + (B - delay) / delayGrowth
        // (capacityWithin: constant arrivals put the mean, read just after
        // each one, about 1/(2 loadWindow) above the rate). 0: no growth.
        double growthAboveRate = 0;
        std::chrono::nanoseconds delayGrowth{0}; // per request a second above the rate
        std::chrono::nanoseconds loadWindow{std::chrono::milliseconds(100)};
        // The IPv4 address it listens on, in host byte order: 127.0.0.1
        // unless a test serves inside a network namespace of its own. Last, so
        // that the tests' positional initialisers above keep their meaning.
        uint32_t address = 0x7f000001;
        // Paces each connection to at most one answer per `cycle`: an answer
        // goes out at the first instant of its connection's grid (the
        // connection's phase plus whole cycles from the server's start) at or
        // after its arrival plus `delay`; the phases are spread as the stagger
        // above spreads first answers (the k-th accepted connection's is
        // (k % staggerConnections) / staggerConnections of a cycle). A closed
        // loop whose turnaround, from an answer to the next request's arrival,
        // stays under cycle - delay then completes exactly one request per
        // cycle on each connection, however fast or slow it is: c connections
        // make c / cycle requests a second, a rate set by the server's clock
        // (Little's law on a cycle the client cannot stretch), not by anyone's
        // CPU. A turnaround beyond that loses the connection whole slots
        // (missedCycles() counts them); workers and delayGrowth do not apply
        // to a paced server. 0: no grid, every answer at arrival + delay.
        std::chrono::nanoseconds cycle{0};
    };

    explicit FixedDelayServer(Options options);
    ~FixedDelayServer();
    FixedDelayServer(const FixedDelayServer&) = delete;
    FixedDelayServer& operator=(const FixedDelayServer&) = delete;

    bool isListening() const { return m_port != 0; }
    uint16_t port() const { return m_port; }
    std::chrono::nanoseconds delay() const { return m_options.delay; }
    uint64_t answered() const { return m_answered.load(); }
    // Connections accepted so far.
    uint64_t accepted() const { return m_acceptedCount.load(); }
    // Requests answered with the malformed status line (failEvery).
    uint64_t failedOnPurpose() const { return m_failed.load(); }
    // Bytes of one answer, headers included.
    size_t responseBytes() const { return m_response.size(); }
    // How late the answers went out after their intended time, in ns (the
    // stagger excluded): a percentile and the mean over every answer so far.
    int64_t latenessPercentile(double percentile) const;
    double meanLatenessNs() const;
    // The cycles between consecutive requests of one connection (the first
    // cycle of each, which holds the stagger, left out); ns.
    int64_t cyclePercentile(double percentile) const;
    double meanCycleNs() const;
    // From each request's arrival in the server's socket (the kernel's
    // receive time) to the send of its answer: the delay, the lateness and
    // the server's own wake-up; ns.
    int64_t residencePercentile(double percentile) const;
    // The capacity at which a latency bound is still met, as Options
    // define it (workers / delay, or the growth's); requests/s, 0 when the
    // server has no limit.
    double capacityWithin(std::chrono::nanoseconds bound) const;
    // The gaps between consecutive requests over every connection, as they
    // arrived (the arrival pattern a fixed-rate client offers); ns.
    int64_t arrivalGapPercentile(double percentile) const;
    // From the first request's arrival to the last one's since the server
    // started, ns: how long clients that start together sent for.
    int64_t arrivalSpanNs() const;
    // With a cycle: the slots a connection let go by with no request due,
    // from its first slot after its accept (and 2 ms of grace) to its last
    // request: a client that was late for them, at its start or in a stall.
    // Each is one answer fewer than the pace sets; a truth that says by how
    // much a rate fell short of c / cycle, and why. (Slots after the last
    // request are not counted: the server cannot tell a client that stalled
    // before its end from one that ended.)
    uint64_t missedCycles() const { return m_missedCycles.load(); }
    // Forgets the lateness and cycles seen so far (say, those of a warm-up).
    void resetFigures();

private:
    struct Connection;
    struct Due;
    struct Waiting;
    void loop();
    void accept();
    void read(int fd);
    void sendDue(int64_t now);
    void armTimer();
    // Schedules the answer to a request read at `readNs` and received by the
    // kernel at `receivedNs` (Options: delay, workers, growth), `extraNs`
    // (the stagger) later; with every worker busy, it waits for one.
    void schedule(int64_t readNs, int64_t receivedNs, int64_t extraNs, int64_t arrivedRealNs,
                  int fd, uint64_t connection);
    // A worker is free from `freeNs`: it serves the first waiting request.
    void releaseWorker(int64_t freeNs);
    // The end of the stall `atNs` falls in, or `atNs` when it falls in none.
    int64_t releasedAt(int64_t atNs) const;
    void closeConnection(int fd);

    Options m_options;
    std::string m_response;
    int m_listen = -1;
    int m_epoll = -1;
    int m_timer = -1;
    int m_wake = -1;
    uint16_t m_port = 0;
    int64_t m_startNs = 0;
    std::atomic<uint64_t> m_answered{0};
    std::atomic<uint64_t> m_acceptedCount{0};
    std::atomic<uint64_t> m_failed{0};
    std::atomic<uint64_t> m_missedCycles{0};
    mutable std::mutex m_latenessMutex;
    std::vector<int64_t> m_lateness;
    std::vector<int64_t> m_cycles;
    std::vector<int64_t> m_residences;
    std::vector<int64_t> m_arrivalGaps;
    std::thread m_thread;
    struct State;
    State* m_state = nullptr; // owned; touched by the server thread alone
};

} // namespace loadscope::testing
