#include "app/report/error_reply_counting_protocol.h"

#include <array>
#include <string>
#include <string_view>

namespace loadscope::app {

namespace {

using namespace std::string_view_literals;

constexpr size_t kKinds = 3;
constexpr std::array<std::string_view, kKinds> kKindNames{"ERROR"sv, "CLIENT_ERROR"sv,
                                                          "SERVER_ERROR"sv};

// The reply line is the session's lastError() right after an error reply.
size_t kindOf(std::string_view line) {
    if (line.starts_with(kKindNames[2]))
        return 2;
    if (line.starts_with(kKindNames[1]))
        return 1;
    return 0;
}

class CountingSession final : public engine::ProtocolSession {
public:
    CountingSession(std::unique_ptr<engine::ProtocolSession> inner, size_t innerOperations)
        : m_inner(std::move(inner))
        , m_innerOperations(innerOperations) {}

    void queueRequest(engine::RequestQueue& out) override { m_inner->queueRequest(out); }
    engine::FeedResult feed(std::string_view data) override { return relabel(m_inner->feed(data)); }
    engine::FeedResult finishAtEof() override { return relabel(m_inner->finishAtEof()); }
    void resetConnection() override { m_inner->resetConnection(); }
    std::string_view serverSoftware() const override { return m_inner->serverSoftware(); }
    std::string_view lastError() const override { return m_inner->lastError(); }

private:
    engine::FeedResult relabel(engine::FeedResult r) const {
        if (r.status == engine::FeedResult::Status::Complete && r.info.errorReply &&
            r.info.operation < m_innerOperations) {
            const size_t index = m_innerOperations + size_t(r.info.operation) * kKinds +
                                 kindOf(m_inner->lastError());
            r.info.operation = static_cast<uint8_t>(index);
        }
        return r;
    }

    std::unique_ptr<engine::ProtocolSession> m_inner;
    size_t m_innerOperations;
};

} // namespace

ErrorReplyCountingProtocol::ErrorReplyCountingProtocol(
    std::shared_ptr<const engine::Protocol> inner)
    : m_inner(std::move(inner))
    , m_innerOperations(m_inner->operationNames().size()) {}

std::unique_ptr<engine::ProtocolSession>
ErrorReplyCountingProtocol::newSession(uint32_t connectionIndex, uint64_t seed) const {
    return std::make_unique<CountingSession>(m_inner->newSession(connectionIndex, seed),
                                             m_innerOperations);
}

std::vector<std::string> ErrorReplyCountingProtocol::operationNames() const {
    std::vector<std::string> names = m_inner->operationNames();
    const size_t inner = names.size();
    for (size_t i = 0; i < inner; ++i)
        for (std::string_view kind : kKindNames)
            names.push_back(names[i] + ' ' + std::string(kind));
    return names;
}

ErrorReplyCounts foldErrorReplies(engine::RunResult& result) {
    ErrorReplyCounts counts;
    auto& ops = result.operations;
    if (ops.empty() || ops.size() % (1 + kKinds) != 0)
        return counts;
    const size_t inner = ops.size() / (1 + kKinds);
    for (size_t op = 0; op < inner; ++op)
        for (size_t kind = 0; kind < kKinds; ++kind)
            if (ops[inner + op * kKinds + kind].name !=
                ops[op].name + ' ' + std::string(kKindNames[kind]))
                return counts;
    uint64_t* const slots[kKinds] = {&counts.error, &counts.clientError, &counts.serverError};
    for (size_t op = 0; op < inner; ++op) {
        for (size_t kind = 0; kind < kKinds; ++kind) {
            const engine::OperationStats& extra = ops[inner + op * kKinds + kind];
            engine::OperationStats& into = ops[op];
            // An error reply is a failure: it adds to the operation's latency
            // (of every reply) but not to its count (of successful replies),
            // so each kind's count is its latency histogram's.
            into.hits += extra.hits;
            into.misses += extra.misses;
            into.latency.merge(extra.latency);
            *slots[kind] += extra.latency.count();
        }
    }
    ops.resize(inner);
    return counts;
}

engine::RunResult withErrorRepliesFolded(engine::RunResult result) {
    foldErrorReplies(result);
    return result;
}

} // namespace loadscope::app
