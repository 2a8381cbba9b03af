#pragma once

#include "engine/protocol.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace loadscope::engine {

// netperf TCP_RR / TCP_CRR: send requestSize bytes, wait for exactly
// responseSize bytes, repeat.
struct TcpRrSpec {
    uint32_t requestSize = 1;
    uint32_t responseSize = 1;
    // TCP_CRR: a new connection for every transaction.
    bool connectPerTransaction = false;
};

// Largest request or response accepted: far above any netperf test size, low
// enough that a request buffer is never a memory problem.
inline constexpr uint32_t kMaxTcpMessageBytes = 64u << 20;

std::optional<std::string> validateTcpRrSpec(const TcpRrSpec& spec);

// A response is Complete after exactly responseSize bytes. Bytes beyond the
// responses of all outstanding requests belong to no request and are
// Malformed ("peer sent more than S bytes"); so is EOF while a request is
// outstanding, with or without part of its response.
class TcpRrProtocol final : public Protocol {
public:
    explicit TcpRrProtocol(TcpRrSpec spec);

    std::unique_ptr<ProtocolSession> newSession(uint32_t connectionIndex,
                                                uint64_t seed) const override;
    std::vector<std::string> operationNames() const override { return {"transaction"}; }
    bool keepAlive() const override { return !m_spec.connectPerTransaction; }

    const TcpRrSpec& spec() const { return m_spec; }
    const std::string& requestBytes() const { return *m_request; }

private:
    TcpRrSpec m_spec;
    std::shared_ptr<const std::string> m_request; // shared by every session
};

// netperf TCP_STREAM: the engine writes streamChunk() back to back for the
// whole run and expects nothing back.
struct TcpStreamSpec {
    uint32_t chunkSize = 16 * 1024;
};

std::optional<std::string> validateTcpStreamSpec(const TcpStreamSpec& spec);

// Sessions exist only to satisfy the engine's interface: any bytes the peer
// sends are consumed and ignored, and EOF is never an error.
class TcpStreamProtocol final : public Protocol {
public:
    explicit TcpStreamProtocol(TcpStreamSpec spec);

    std::unique_ptr<ProtocolSession> newSession(uint32_t connectionIndex,
                                                uint64_t seed) const override;
    bool isStream() const override { return true; }
    std::string_view streamChunk() const override { return *m_chunk; }

    const TcpStreamSpec& spec() const { return m_spec; }

private:
    TcpStreamSpec m_spec;
    std::shared_ptr<const std::string> m_chunk; // shared by every session
};

} // namespace loadscope::engine
