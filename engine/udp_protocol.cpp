#include "engine/udp_protocol.h"

#include "engine/udp_datagram.h"

#include <utility>

namespace loadscope::engine {

namespace {

// The worker reads, sends and matches datagrams itself (load_worker_datagram.cpp); a session
// is what the engine's interface asks every connection to have, and the text form of a
// request for whoever wants one.
class DatagramSession final : public ProtocolSession {
public:
    explicit DatagramSession(std::string_view payload)
        : m_payload(payload) {}

    void queueRequest(RequestQueue& out) override { out.appendShared(m_payload); }
    FeedResult feed(std::string_view data) override {
        return {FeedResult::Status::NeedMore, data.size(), {}};
    }
    FeedResult finishAtEof() override { return {}; }
    void resetConnection() override {}

private:
    std::string_view m_payload;
};

std::optional<std::string> sizeProblem(uint32_t size, const char* what) {
    if (size == 0 || size > udp::kMaxDatagramBytes)
        return std::string(what) + " must be from 1 to " + std::to_string(udp::kMaxDatagramBytes) +
               " bytes (a UDP datagram)";
    return std::nullopt;
}

} // namespace

std::optional<std::string> validateUdpRrSpec(const UdpRrSpec& spec) {
    if (auto problem = sizeProblem(spec.requestSize, "the request size"))
        return problem;
    return sizeProblem(spec.responseSize, "the response size");
}

std::optional<std::string> validateUdpStreamSpec(const UdpStreamSpec& spec) {
    return sizeProblem(spec.messageSize, "the message size");
}

UdpRrProtocol::UdpRrProtocol(UdpRrSpec spec)
    : m_spec(spec)
    , m_request(spec.requestSize, 'q') {
    m_shape.payload = m_request;
    m_shape.answerBytes = spec.responseSize;
    m_shape.sequenced =
        spec.requestSize >= udp::kSequenceBytes && spec.responseSize >= udp::kSequenceBytes;
}

std::unique_ptr<ProtocolSession> UdpRrProtocol::newSession(uint32_t, uint64_t) const {
    return std::make_unique<DatagramSession>(m_request);
}

UdpStreamProtocol::UdpStreamProtocol(UdpStreamSpec spec)
    : m_spec(spec)
    , m_message(spec.messageSize, 's') {
    m_shape.payload = m_message;
    m_shape.sequenced = spec.messageSize >= udp::kStreamHeaderBytes;
}

std::unique_ptr<ProtocolSession> UdpStreamProtocol::newSession(uint32_t, uint64_t) const {
    return std::make_unique<DatagramSession>(m_message);
}

} // namespace loadscope::engine
