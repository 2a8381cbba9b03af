#pragma once

#include "engine/protocol.h"
#include "engine/run_result.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace loadscope::app {

// memcached's three error replies, counted apart.
struct ErrorReplyCounts {
    uint64_t error = 0;       // "ERROR": the server did not know the command
    uint64_t clientError = 0; // "CLIENT_ERROR <message>": the request was malformed
    uint64_t serverError = 0; // "SERVER_ERROR <message>": e.g. out of memory storing object

    uint64_t total() const { return error + clientError + serverError; }
};

// The engine counts every error reply as one Exception failure and keeps the
// first reply's text. To tell the three kinds apart without touching the hot
// path, this wrapper reports an error reply to operation k under an extra
// operation index of its own (one per operation and kind). The engine's
// per-operation counters then count each kind exactly, within the measured
// window only (an error reply is recorded in an operation's latency, not its
// count of successful replies); foldErrorReplies() gives the result back the
// inner protocol's operations, each latency including its error replies.
class ErrorReplyCountingProtocol final : public engine::Protocol {
public:
    explicit ErrorReplyCountingProtocol(std::shared_ptr<const engine::Protocol> inner);

    std::unique_ptr<engine::ProtocolSession> newSession(uint32_t connectionIndex,
                                                        uint64_t seed) const override;
    // The inner names, then "<name> ERROR", "<name> CLIENT_ERROR", "<name> SERVER_ERROR" for each.
    std::vector<std::string> operationNames() const override;
    bool keepAlive() const override { return m_inner->keepAlive(); }
    bool checksDocumentLength() const override { return m_inner->checksDocumentLength(); }
    bool isStream() const override { return m_inner->isStream(); }
    std::string_view streamChunk() const override { return m_inner->streamChunk(); }

    size_t innerOperationCount() const { return m_innerOperations; }

private:
    std::shared_ptr<const engine::Protocol> m_inner;
    size_t m_innerOperations;
};

// Folds the extra operations of a run of ErrorReplyCountingProtocol back into
// the inner ones (latency histograms add up; the counts stay the successful
// replies') and returns the
// error replies by kind. The extra operations are recognised by their names,
// so a result of any other protocol is left as is.
ErrorReplyCounts foldErrorReplies(engine::RunResult& result);
// The same for a caller that only needs the result as the inner protocol's
// (a sweep point).
engine::RunResult withErrorRepliesFolded(engine::RunResult result);

} // namespace loadscope::app
