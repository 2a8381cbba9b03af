#pragma once

#include "engine/protocol.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace loadscope::engine {

// netperf UDP_RR: send a datagram of requestSize bytes, wait for an answer of
// responseSize bytes, repeat. A request of 8 bytes or more carries its
// sequence number and so does an answer of 8 bytes or more (udp_datagram.h),
// so that a late, repeated or reordered answer is told apart from the one
// awaited. A request whose answer does not come within the request timeout
// is lost (ErrorClass::Lost) and never sent again: a resend would have the
// server work twice for one transaction and hide the loss in the latency.
struct UdpRrSpec {
    uint32_t requestSize = 1;
    uint32_t responseSize = 1;
};

std::optional<std::string> validateUdpRrSpec(const UdpRrSpec& spec);

class UdpRrProtocol final : public Protocol {
public:
    explicit UdpRrProtocol(UdpRrSpec spec);

    std::unique_ptr<ProtocolSession> newSession(uint32_t connectionIndex,
                                                uint64_t seed) const override;
    std::vector<std::string> operationNames() const override { return {"transaction"}; }
    const DatagramShape* datagrams() const override { return &m_shape; }

    const UdpRrSpec& spec() const { return m_spec; }
    // Whether requests and answers carry their sequence number (both 8 bytes or more).
    bool sequenced() const { return m_shape.sequenced; }

private:
    UdpRrSpec m_spec;
    std::string m_request;
    DatagramShape m_shape;
};

// netperf UDP_STREAM: messageSize-byte datagrams sent back to back for the
// whole run, nothing answered. Messages of kStreamHeaderBytes or more carry
// the stream header, so that Loadscope's sink can say what arrived: at the
// end the worker asks it in the stream itself (udp_datagram.h).
struct UdpStreamSpec {
    uint32_t messageSize = 1472; // fills an Ethernet frame: netperf's advice for UDP_STREAM
};

std::optional<std::string> validateUdpStreamSpec(const UdpStreamSpec& spec);

class UdpStreamProtocol final : public Protocol {
public:
    explicit UdpStreamProtocol(UdpStreamSpec spec);

    std::unique_ptr<ProtocolSession> newSession(uint32_t connectionIndex,
                                                uint64_t seed) const override;
    bool isStream() const override { return true; }
    std::string_view streamChunk() const override { return m_message; }
    const DatagramShape* datagrams() const override { return &m_shape; }

    const UdpStreamSpec& spec() const { return m_spec; }

private:
    UdpStreamSpec m_spec;
    std::string m_message;
    DatagramShape m_shape;
};

} // namespace loadscope::engine
