#pragma once

#include "engine/load_spec.h"
#include "engine/run_result.h"
#include "engine/wait_method_chooser.h"

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <sys/types.h>
#include <vector>

namespace loadscope::engine::detail {

int64_t monotonicNs() noexcept;

// State every worker of one run reads; written rarely (stop, first document length).
struct SharedRunState {
    explicit SharedRunState(const LoadSpec& s)
        : spec(s) {}

    const LoadSpec& spec;
    int64_t measureStartNs = 0; // end of warm-up
    int64_t deadlineNs = std::numeric_limits<int64_t>::max();

    std::atomic<bool> stop{false};
    std::atomic<bool> everConnected{false};
    std::atomic<bool> unreachable{false};
    // Requests left to start in a counted run; claimed one at a time, so the
    // run ends after exactly spec.requests, however the threads race.
    std::atomic<int64_t> remaining{0};
    std::atomic<int64_t> documentLength{-1};
};

// What a worker hands the monitor about every 25 ms. Guarded by `mutex`, which
// only the worker's publish step and the monitor take: never the hot path.
struct WorkerMailbox {
    std::mutex mutex;
    Histogram interval;
    uint64_t intervalComplete = 0;
    uint64_t complete = 0;
    uint64_t failed = 0;
    uint64_t bytesReceived = 0;
    uint64_t bytesSent = 0;
};

// One worker thread: an epoll loop over a fixed share of the connections.
class LoadWorker {
public:
    LoadWorker(SharedRunState& shared, uint32_t index, uint32_t firstConnection,
               uint32_t connectionCount);
    ~LoadWorker();
    LoadWorker(const LoadWorker&) = delete;
    LoadWorker& operator=(const LoadWorker&) = delete;

    void run(); // returns when the run is over for this worker

    WorkerMailbox& mailbox() { return m_mailbox; }
    // Valid after run() returned.
    RunResult& result() { return m_result; }
    int64_t lastCompletionNs() const { return m_lastCompletionNs; }

private:
    struct InFlight {
        int64_t startNs = 0;
        int64_t connectNs = 0; // connect time charged to this request (first on a connection)
        int64_t sentNs = 0;
        int64_t firstByteNs = 0;
        bool measured = false;
    };
    struct Connection;

    // `now` is the event loop's clock of this iteration: no clock read per request.
    bool claimRequest(int64_t now, bool& measured);
    bool takeClaimed(Connection& c, bool& measured);
    void openConnection(Connection& c, int64_t now);
    void onConnected(Connection& c, int64_t now);
    void issueRequests(Connection& c, int64_t now);
    void flush(Connection& c, int64_t now);
    void onReadable(Connection& c, int64_t now);
    // Handles the result `n` of one recv into m_readBuffer; false when the
    // connection has nothing more to read now (drained, closed or failed).
    bool onReceived(Connection& c, ssize_t n, int error, int64_t now);
    void makeReadsBlocking(Connection& c);
    bool awaitingSoleResponse() const;
    int64_t awaitSoleResponse(); // returns the clock after the wait
    void onEndOfStream(Connection& c, int64_t now, bool reset);
    void completeHead(Connection& c, const ResponseInfo& info, int64_t now);
    void recordResponse(const ProtocolSession& session, const InFlight& request,
                        const ResponseInfo& info, int64_t now);
    void failHead(Connection& c, ErrorClass error, int64_t now, std::string_view message);
    void failConnect(Connection& c, int64_t now, int error);
    void dropConnection(Connection& c, int64_t now, bool retryInFlight);
    void streamWrite(Connection& c, int64_t now);
    void setWriteInterest(Connection& c, bool wanted);
    void queueOpen(Connection& c, int64_t at);
    void openQueued(int64_t now);
    void tick(int64_t now);
    void checkTimeouts(int64_t now);
    void publish();
    void recordFailure(ErrorClass error, bool measured, std::string_view message);
    bool finished(int64_t now) const;

    SharedRunState& m_shared;
    const LoadSpec& m_spec;
    const Protocol& m_protocol;
    uint32_t m_index;
    // The protocol's traits, read once: the hot path makes no virtual call for them.
    const bool m_isStream;
    const bool m_keepAlive;
    const bool m_checksDocumentLength;
    int m_epoll = -1;
    std::vector<std::unique_ptr<Connection>> m_connections;
    // A worker with one kept-alive request/response connection may wait in
    // recv on it rather than in epoll_wait (see awaitSoleResponse); the
    // chooser says which of the two is faster here.
    Connection* m_soleConnection = nullptr;
    WaitMethodChooser m_waitChooser;
    std::vector<Connection*> m_toOpen; // closed connections waiting to (re)connect
    std::string m_readBuffer;
    bool m_budgetExhausted = false;
    bool m_measuring = false;
    uint64_t m_inFlight = 0;
    uint64_t m_heldClaims = 0; // claimed requests waiting for a connection (reserved or retried)
    uint32_t m_slotsFailedBeforeAnyConnect = 0;
    int64_t m_nextPublishNs = 0;
    int64_t m_nextTimeoutScanNs = 0;
    int64_t m_lastCompletionNs = 0;
    int64_t m_cpuAtMeasureStartNs = 0;
    std::string m_serverSoftware;
    size_t m_operationCount = 1;

    // Hot-path state, owned by this thread alone.
    RunResult m_result;
    Histogram m_interval;
    uint64_t m_intervalComplete = 0;
    WorkerMailbox m_mailbox;
};

} // namespace loadscope::engine::detail
