#pragma once

#include "engine/arrival_schedule.h"
#include "engine/load_spec.h"
#include "engine/multiplexed_session.h"
#include "engine/run_result.h"
#include "engine/run_state.h"
#include "engine/tls_context.h"
#include "engine/wait_method_chooser.h"
#include "engine/wake_coalescer.h"
#include "engine/worker_recorder.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>

struct epoll_event;
#include <vector>

namespace loadscope::engine::detail {

enum class ConnectionState : uint8_t; // LoadWorker::Connection::State

// One worker thread: an epoll loop over a fixed share of the connections.
class LoadWorker {
public:
    LoadWorker(SharedRunState& shared, uint32_t index, uint32_t firstConnection,
               uint32_t connectionCount);
    ~LoadWorker();
    LoadWorker(const LoadWorker&) = delete;
    LoadWorker& operator=(const LoadWorker&) = delete;

    void run(); // returns when the run is over for this worker

    WorkerMailbox& mailbox() { return m_recorder.mailbox(); }
    // Valid after run() returned.
    RunResult& result() { return m_recorder.result(); }
    int64_t lastCompletionNs() const { return m_recorder.lastCompletionNs(); }

private:
    struct Connection;

    // The worker's set-up before the run's clock starts; false when it cannot run.
    bool prepare();

    // The worker's one way to read the clock: remembers the reading, so that
    // the loop's bookkeeping after a batch of events can use the last one.
    int64_t readClock() { return m_clockNs = monotonicNs(); }
    void startTickTimer();
    // Claimed: `request` holds a request to send (budgeted, intendedNs set).
    // NotYet: a fixed-rate run has no request due yet. Never: the budget is
    // spent or the deadline passed.
    enum class Claim : uint8_t { Claimed, NotYet, Never };
    // `now` is the clock of the event being handled: read when a send or a
    // recv returned, or the loop's clock for timers and bookkeeping.
    Claim claimRequest(int64_t now, InFlight& request);
    bool drawBudget();
    // A counted run whose budget is spent, whether or not this worker found it so by a claim.
    bool budgetSpent() const;
    // Whether a request that ended at `now` counts (see the definition).
    bool counts(bool budgeted, int64_t now);
    bool takeClaimed(Connection& c, InFlight& request);
    // Fixed rate (load_worker_schedule.cpp): the worker's schedule and its
    // timer, connections idle until a request is due, and what the run's
    // result says about keeping the schedule.
    void startSchedule();
    void waitForSchedule(Connection& c);
    void dispatchDue(int64_t now);
    void armScheduleTimer(int64_t now);
    // After dispatchDue: whether the next wait sleeps to the schedule's next
    // due time through any responses (m_sleepUntilNs), or waits in epoll_wait.
    void planScheduleWake(int64_t now);
    void finishSchedule(int64_t now);
    // epoll_wait; at a fixed rate, also the time the loop spent in it.
    int waitForEvents(epoll_event* events, int maxEvents, int timeoutMs);
    int waitOnce(epoll_event* events, int maxEvents, int timeoutMs);
    // The closed loop's epoll_wait, after the coalescer's pause if it has one.
    int waitAfterPause(epoll_event* events, int maxEvents, int timeoutMs);
    void openConnection(Connection& c, int64_t now);
    void onConnected(Connection& c, int64_t now);
    // The connection is ready for requests (connected, and TLS done when used).
    void startRequests(Connection& c, int64_t now);
    // TLS (load_worker_tls.cpp): the handshake after the TCP connect, as far as
    // the socket allows; a failure is a counted ErrorClass::Tls request.
    void startHandshake(Connection& c, int64_t now);
    void continueHandshake(Connection& c, int64_t now);
    void failHandshake(Connection& c, int64_t now, const std::string& reason);
    void issueRequests(Connection& c, int64_t now);
    void flush(Connection& c, int64_t now);
    // One read of the connection into m_readBuffer (recv `flags`): its
    // result and errno, and the time of the bytes read: when the kernel
    // received them (a stamped read), else the clock as the read returned.
    struct Received {
        ssize_t n = 0;
        int error = 0;
        int64_t atNs = 0;
    };
    // `length`: at most that many bytes (kReadBufferBytes, the buffer's size,
    // for a read that keeps them); with MSG_TRUNC in `flags` they are
    // taken from the socket without being copied anywhere (TCP), up to
    // kDiscardBytes, the size of the buffer such a read names.
    Received receive(Connection& c, int flags, size_t length);
    // Reads until the socket is drained, or kReadsPerPass times, leaving the
    // rest for the loop's next pass (deferRead); `peerClosing`: the event said
    // the peer closed or failed, so it reads on to the end of the stream.
    void onReadable(Connection& c, bool peerClosing);
    void deferRead(Connection& c, bool peerClosing);
    // The reads deferRead left, each again at most kReadsPerPass.
    void readDeferred();
    // Bytes of the response in progress that the next read may take without
    // copying them (ProtocolSession::skippableBytes), when there are enough to
    // be worth a read of their own; 0 otherwise.
    uint64_t discardable(const Connection& c) const;
    // Handles the result `n` of a read that discarded as many bytes; as onReceived.
    bool onDiscarded(Connection& c, ssize_t n, int error, int64_t now);
    // When the data of a stamped read arrived, on the loop's clock: the
    // kernel's receive time `arrivedRealNs` (wall clock), aged by the wall
    // clock `realNow` at the loop's `now`; no later than `now`.
    static int64_t arrivalNs(Connection& c, int64_t now, int64_t realNow, int64_t arrivedRealNs);
    // The wall clock at the loop's `now`, from an offset between the clocks read every
    // kRealtimeOffsetRefreshNs.
    int64_t realtimeAt(int64_t now);
    // Handles the result `n` of one recv into m_readBuffer; false when the
    // connection has nothing more to read now (drained, closed or failed).
    bool onReceived(Connection& c, ssize_t n, int error, int64_t now);
    void makeReadsBlocking(Connection& c);
    bool awaitingSoleResponse() const;
    // The sole connection completed a transaction: the wait chooser's turn, and before its
    // probe whether the answers wake this thread from its own CPU (SO_INCOMING_CPU).
    void soleTransactionCompleted(Connection& c, int64_t now);
    int64_t awaitSoleResponse(); // returns the clock after the wait
    void onEndOfStream(Connection& c, int64_t now, bool reset);
    void completeHead(Connection& c, const ResponseInfo& info, int64_t now);
    // HTTP/2 (load_worker_h2.cpp): a multiplexed connection's reads, its
    // streams ending in any order, its end of stream, and ALPN's answer.
    bool receiveStreams(Connection& c, std::string_view data, int64_t now);
    void endStream(Connection& c, const StreamEvent& event, int64_t now);
    void onStreamsEnd(Connection& c, int64_t now, bool reset);
    bool alpnRefused(Connection& c, int64_t now);
    void failHead(Connection& c, ErrorClass error, int64_t now, std::string_view message);
    void failConnect(Connection& c, int64_t now, int error);
    void dropConnection(Connection& c, int64_t now, bool retryInFlight);
    void streamWrite(Connection& c);
    // TCP_STREAM's end, as netperf: shut down for writing and wait for the
    // sink to close; true when every stream connection is done.
    bool drainStreams(int64_t now);
    void endDrain(Connection& c, int64_t deliveredNs);
    // Bytes written to the socket that its peer has not acknowledged (SIOCOUTQ).
    static uint64_t unacknowledgedBytes(int fd);
    // UDP (load_worker_datagram.cpp): each connection a connected datagram
    // socket, each request one datagram, answers matched by their sequence;
    // a request unanswered within the request timeout is lost, never resent.
    void openDatagramSocket(Connection& c, int64_t now);
    void issueDatagrams(Connection& c, int64_t now);
    void flushDatagrams(Connection& c);
    // onReceived for a datagram socket: one datagram (or error) read at `now`.
    bool onDatagramReceived(Connection& c, ssize_t n, int error, int64_t now);
    void onAnswer(Connection& c, std::string_view data, int64_t now);
    void completeAnswer(Connection& c, size_t index, uint64_t sequence, size_t bytes, int64_t now);
    void expireDatagrams(Connection& c, int64_t now);
    // The peer's port was refused (ICMP), reported by a send or a read.
    void datagramRefused(Connection& c, int64_t now);
    // udp-stream: messages back to back, the sink's count asked at the start
    // (whether a Loadscope sink is there) and at the end (what it received).
    void streamDatagrams(Connection& c);
    // `newQuestion`: a new nonce; else the outstanding query is asked again.
    void sendCountQuery(Connection& c, int64_t now, bool end, bool newQuestion);
    void onCountAnswer(Connection& c, std::string_view data, int64_t now);
    bool drainDatagramStreams(int64_t now);
    uint32_t newStreamId();
    bool inCountingWindow(int64_t now) const {
        return now >= m_shared.measureStartNs && now <= m_shared.deadlineNs;
    }
    void setWriteInterest(Connection& c, bool wanted);
    // Adds the connection to the epoll set or removes it (while it waits in recv).
    void setWatched(Connection& c, bool watched);
    // epoll_ctl with the connection's current events; true when it succeeded.
    bool controlEpoll(Connection& c, int operation);
    void setState(Connection& c, ConnectionState state);
    void closeSocket(Connection& c); // and marks the connection Closed
    void queueOpen(Connection& c, int64_t at);
    void openQueued(int64_t now);
    void tick(int64_t now);
    void checkTimeouts(int64_t now);
    // HTTP/2: a connection that could open no stream for the request timeout
    // (see Connection::streamsRefusedSinceNs) fails the request it would
    // have sent, and closes.
    void failRefusedStreams(Connection& c, int64_t now);
    bool finished(int64_t now);
    void createConnections(); // on the worker's own thread, from its own malloc arena

    SharedRunState& m_shared;
    const LoadSpec& m_spec;
    const Protocol& m_protocol;
    uint32_t m_index;
    uint32_t m_firstConnection;
    uint32_t m_connectionCount;
    // The protocol's traits, read once: the hot path makes no virtual call for them.
    const bool m_isStream;
    const bool m_keepAlive;
    const DatagramShape* const m_datagrams; // non-null for UDP
    // How often requests are looked at for their timeout: a UDP loss is
    // counted that late at most, so short timeouts are looked at sooner.
    const int64_t m_timeoutScanPeriodNs;
    uint64_t m_streamIdState = 0; // udp-stream: where new stream ids come from
    int m_epoll = -1;
    int m_tickTimer = -1; // periodic, in the epoll set (startTickTimer)
    // Fixed rate: the intended start times of this worker's share of the
    // rate, and a one-shot timer at the next one (absolute CLOCK_MONOTONIC,
    // nanosecond resolution: an epoll_wait timeout rounds to milliseconds).
    std::optional<ArrivalSchedule> m_schedule;
    double m_rate = 0; // this worker's share of spec.rate
    int m_scheduleTimer = -1;
    int64_t m_scheduleTimerAtNs = 0; // what it was last armed for
    // Kept-alive connections read with SO_TIMESTAMPNS: a response's
    // time is when the kernel received it, however much later it is read
    // (prepare). So at a fixed rate, while a connection waits idle for the
    // next due time, the loop sleeps until then (m_sleepUntilNs, 0 when it
    // does not) and reads what arrived meanwhile as it wakes: one wake-up
    // per due time instead of another for every response (planScheduleWake).
    bool m_stampedReceives = false;
    int64_t m_sleepUntilNs = 0;
    int32_t m_settingUp = 0;           // connections Connecting or Handshaking
    int32_t m_blockedSends = 0;        // open connections waiting to write (EAGAIN)
    std::deque<Connection*> m_idle;    // open, with room for a request, none due
    uint64_t m_maxBacklog = 0;         // inside the measured stretch
    uint64_t m_dispatched = 0;         // due requests sent from idle connections, measured
    uint64_t m_lateDispatches = 0;     // of those, sent more than kLateDispatchNs late
    int64_t m_lastWokeNs = 0;          // when epoll_wait last returned (measured stretch)
    int64_t m_heldNs = 0;              // in passes over events longer than kLateDispatchNs
    int64_t m_clockNs = 0;             // the last readClock()
    std::unique_ptr<TlsContext> m_tls; // https: this thread's context and session cache

    // realtimeAt(): the offset, read again after this long; reads that took longer than
    // kRealtimeOffsetReadNs were preempted and are not taken.
    static constexpr int64_t kNever = INT64_MIN / 2;
    static constexpr int64_t kRealtimeOffsetRefreshNs = 1'000'000;
    static constexpr int64_t kRealtimeOffsetReadNs = 20'000;
    int64_t m_realtimeMinusMonotonicNs = 0;
    int64_t m_realtimeOffsetAtNs = kNever;

    std::vector<std::unique_ptr<Connection>> m_connections;
    // A worker with one kept-alive request/response connection may wait in
    // recv on it rather than in epoll_wait (see awaitSoleResponse); the
    // chooser says which of the two is faster here.
    Connection* m_soleConnection = nullptr;
    WaitMethodChooser m_waitChooser;
    // A closed loop on stamped reads pauses before it waits (waitAfterPause).
    WakeCoalescer m_coalescer;
    std::vector<Connection*> m_toOpen; // closed connections waiting to (re)connect
    // Connections with bytes left to read (Connection::unread), and the
    // batch readDeferred is going through: two, so that neither allocates.
    std::vector<Connection*> m_unread;
    std::vector<Connection*> m_unreadBatch;
    std::unique_ptr<char[]> m_readBuffer; // 64 KiB (kReadBufferBytes)
    // What a read with MSG_TRUNC names as its buffer (kDiscardBytes): the kernel copies
    // nothing into it, so its pages are never touched, but a read never names more memory
    // than it has (a sanitizer's recv interceptor marks the whole length as written).
    std::unique_ptr<char[]> m_discardBuffer;
    bool m_budgetExhausted = false;
    bool m_measuring = false;
    bool m_draining = false; // a stream run past its deadline, waiting for the sinks
    uint32_t m_streamsDraining = 0;
    int64_t m_drainUntilNs = 0; // bound on that wait: the request timeout
    uint64_t m_inFlight = 0;
    uint64_t m_heldClaims = 0; // claimed requests waiting for a connection (reserved or retried)
    uint32_t m_slotsFailedBeforeAnyConnect = 0;
    int64_t m_nextPublishNs = 0;
    int64_t m_nextTimeoutScanNs = 0;
    int64_t m_cpuAtMeasureStartNs = 0;
    std::string m_serverSoftware;
    std::vector<StreamEvent> m_streamEvents; // of one read on a multiplexed connection
    WorkerRecorder m_recorder;               // owned by this thread alone, as everything above
};

} // namespace loadscope::engine::detail
