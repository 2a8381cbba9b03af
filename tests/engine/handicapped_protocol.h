#pragma once

#include "engine/protocol.h"

#include <chrono>
#include <memory>
#include <thread>

namespace loadscope::testing {

// Another protocol's workload, with a known client-side cost: connection 0's
// session holds the worker's thread for `handicap` each time it completes a
// response, before the worker sends that connection's next request. Its
// responses are reported as operation 0 ("handicapped"), every other
// connection's as operation 1, so that each has a latency histogram of its own.
//
// A worker that reads the clock when each event happens starts the next
// request when its send begins, after the handicap; one that takes the time
// once per epoll_wait batch (or once per read) starts it before, and adds the
// handicap to its latency.
class HandicappedProtocol final : public engine::Protocol {
public:
    HandicappedProtocol(std::shared_ptr<const engine::Protocol> inner,
                        std::chrono::nanoseconds handicap)
        : m_inner(std::move(inner))
        , m_handicap(handicap) {}

    std::unique_ptr<engine::ProtocolSession> newSession(uint32_t connectionIndex,
                                                        uint64_t seed) const override {
        return std::make_unique<Session>(m_inner->newSession(connectionIndex, seed),
                                         connectionIndex == 0 ? m_handicap
                                                              : std::chrono::nanoseconds(0));
    }
    std::vector<std::string> operationNames() const override { return {"handicapped", "other"}; }
    bool keepAlive() const override { return m_inner->keepAlive(); }
    bool checksDocumentLength() const override { return m_inner->checksDocumentLength(); }

private:
    class Session final : public engine::ProtocolSession {
    public:
        Session(std::unique_ptr<engine::ProtocolSession> inner, std::chrono::nanoseconds handicap)
            : m_inner(std::move(inner))
            , m_handicap(handicap) {}

        void queueRequest(engine::RequestQueue& out) override { m_inner->queueRequest(out); }
        engine::FeedResult feed(std::string_view data) override {
            engine::FeedResult r = m_inner->feed(data);
            if (r.status == engine::FeedResult::Status::Complete) {
                r.info.operation = m_handicap.count() > 0 ? 0 : 1;
                // Sleeping holds the worker's loop as busy work would, without
                // taking a CPU from the server on a small machine.
                if (m_handicap.count() > 0)
                    std::this_thread::sleep_for(m_handicap);
            }
            return r;
        }
        engine::FeedResult finishAtEof() override { return m_inner->finishAtEof(); }
        void resetConnection() override { m_inner->resetConnection(); }
        std::string_view serverSoftware() const override { return m_inner->serverSoftware(); }
        std::string_view lastError() const override { return m_inner->lastError(); }

    private:
        std::unique_ptr<engine::ProtocolSession> m_inner;
        std::chrono::nanoseconds m_handicap;
    };

    std::shared_ptr<const engine::Protocol> m_inner;
    std::chrono::nanoseconds m_handicap;
};

} // namespace loadscope::testing
