#include "engine/tcp_protocol.h"

#include "engine/available_memory.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace loadscope::engine {

namespace {

// Printable, and a pattern rather than zeros so that a relay that mangles or
// reorders bytes is visible in a capture.
std::string patternBytes(size_t size) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<char>('A' + i % 26);
    return bytes;
}

FeedResult malformedResult(size_t consumed) {
    FeedResult r;
    r.status = FeedResult::Status::Malformed;
    r.consumed = consumed;
    return r;
}

class TcpRrSession final : public ProtocolSession {
public:
    TcpRrSession(std::shared_ptr<const std::string> request, uint32_t responseSize)
        : m_request(std::move(request))
        , m_responseSize(responseSize) {}

    void queueRequest(RequestQueue& out) override {
        out.appendShared(*m_request);
        ++m_outstanding;
    }

    FeedResult feed(std::string_view data) override {
        if (data.empty())
            return {};
        if (m_outstanding == 0) {
            m_error = "peer sent more than " + std::to_string(m_responseSize) +
                      " bytes in response to a request";
            return malformedResult(0);
        }
        const size_t take = std::min<size_t>(m_responseSize - m_received, data.size());
        m_received += static_cast<uint32_t>(take);
        if (m_received < m_responseSize)
            return {FeedResult::Status::NeedMore, data.size(), {}};
        --m_outstanding;
        m_received = 0;
        FeedResult r;
        r.status = FeedResult::Status::Complete;
        r.consumed = take;
        r.info.bodyBytes = m_responseSize;
        return r;
    }

    FeedResult finishAtEof() override {
        if (m_outstanding == 0)
            return {};
        if (m_received == 0)
            m_error = "connection closed before the response";
        else
            m_error = "connection closed after " + std::to_string(m_received) + " of " +
                      std::to_string(m_responseSize) + " response bytes";
        m_outstanding = 0;
        m_received = 0;
        return malformedResult(0);
    }

    void resetConnection() override {
        m_outstanding = 0;
        m_received = 0;
    }

    std::string_view lastError() const override { return m_error; }

private:
    std::shared_ptr<const std::string> m_request;
    uint32_t m_responseSize;
    uint64_t m_outstanding = 0;
    uint32_t m_received = 0; // bytes of the oldest outstanding response
    std::string m_error;
};

class TcpStreamSession final : public ProtocolSession {
public:
    explicit TcpStreamSession(std::shared_ptr<const std::string> chunk)
        : m_chunk(std::move(chunk)) {}

    void queueRequest(RequestQueue& out) override { out.appendShared(*m_chunk); }
    FeedResult feed(std::string_view data) override {
        return {FeedResult::Status::NeedMore, data.size(), {}};
    }
    FeedResult finishAtEof() override { return {}; }
    void resetConnection() override {}

private:
    std::shared_ptr<const std::string> m_chunk;
};

} // namespace

std::optional<std::string> validateTcpRrSpec(const TcpRrSpec& spec) {
    if (spec.requestSize == 0 || spec.responseSize == 0)
        return "request and response sizes must be at least 1 byte";
    if (spec.requestSize > kMaxTcpMessageBytes || spec.responseSize > kMaxTcpMessageBytes)
        return "request and response sizes must be at most " + std::to_string(kMaxTcpMessageBytes) +
               " bytes";
    // The request is built once per run and shared by every connection; a
    // response is counted as it arrives, never held.
    if (auto problem = requestMemoryProblem(
            spec.requestSize, "a request of " + std::to_string(spec.requestSize) + " bytes"))
        return problem;
    return std::nullopt;
}

std::optional<std::string> validateTcpStreamSpec(const TcpStreamSpec& spec) {
    if (spec.chunkSize == 0 || spec.chunkSize > kMaxTcpMessageBytes)
        return "the send size must be between 1 and " + std::to_string(kMaxTcpMessageBytes) +
               " bytes";
    return std::nullopt;
}

TcpRrProtocol::TcpRrProtocol(TcpRrSpec spec)
    : m_spec(spec)
    , m_request(std::make_shared<const std::string>(patternBytes(spec.requestSize))) {}

std::unique_ptr<ProtocolSession> TcpRrProtocol::newSession(uint32_t, uint64_t) const {
    return std::make_unique<TcpRrSession>(m_request, m_spec.responseSize);
}

TcpStreamProtocol::TcpStreamProtocol(TcpStreamSpec spec)
    : m_spec(spec)
    , m_chunk(std::make_shared<const std::string>(patternBytes(spec.chunkSize))) {}

std::unique_ptr<ProtocolSession> TcpStreamProtocol::newSession(uint32_t, uint64_t) const {
    return std::make_unique<TcpStreamSession>(m_chunk);
}

} // namespace loadscope::engine
