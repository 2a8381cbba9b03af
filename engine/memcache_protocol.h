#pragma once

#include "engine/key_pattern.h"
#include "engine/protocol.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace loadscope::engine {

// Indexes into MemcacheProtocol::operationNames(), as ResponseInfo::operation
// reports them.
inline constexpr uint8_t kMemcacheSetOperation = 0;
inline constexpr uint8_t kMemcacheGetOperation = 1;

// A memtier_benchmark-style memcached workload (text protocol, get and set).
struct MemcacheSpec {
    // --ratio=SETS:GETS. Spread evenly: 1:10 is one set then ten gets, 3:7
    // mixes the three sets among the gets; each connection follows the same
    // cycle from its first command.
    uint32_t setRatio = 1;
    uint32_t getRatio = 10;
    // --key-pattern=SET:GET.
    KeyPattern setKeyPattern = KeyPattern::Random;
    KeyPattern getKeyPattern = KeyPattern::Random;
    uint64_t keyMinimum = 0;
    uint64_t keyMaximum = 10'000'000;
    double keyStddev = 0;            // Gaussian; <= 0: range / 6
    std::optional<double> keyMedian; // Gaussian; nullopt: the middle of the range
    std::string keyPrefix = "memtier-";
    uint32_t valueSize = 32; // -d
    uint32_t expiry = 0;     // exptime of every set
    uint32_t flags = 0;      // client flags of every set
    // Connections of the run in total, when known: sequential walks then start
    // evenly spaced over the range (else spread by the golden ratio).
    uint32_t connections = 0;

    KeyPatternSpec keyPatternSpec(KeyPattern pattern) const;
};

// One line describing what is wrong with `spec`, or nullopt.
std::optional<std::string> validateMemcacheSpec(const MemcacheSpec& spec);
// memtier's option syntax: "1:10" and "S:R". false on anything else.
bool parseMemcacheRatio(std::string_view text, uint32_t& sets, uint32_t& gets);
bool parseMemcacheKeyPatterns(std::string_view text, KeyPattern& set, KeyPattern& get);

// Byte layout of requests, built once and shared by every session.
struct MemcacheRequestParts;

// The measured workload: each connection interleaves sets and gets by the
// ratio and draws keys from its own generators, seeded from (seed, connection),
// so a run is reproducible connection by connection.
class MemcacheProtocol final : public Protocol {
public:
    explicit MemcacheProtocol(MemcacheSpec spec);
    ~MemcacheProtocol() override;

    std::unique_ptr<ProtocolSession> newSession(uint32_t connectionIndex,
                                                uint64_t seed) const override;
    std::vector<std::string> operationNames() const override { return {"set", "get"}; }

    const MemcacheSpec& spec() const { return m_spec; }

private:
    MemcacheSpec m_spec;
    std::shared_ptr<const MemcacheRequestParts> m_parts;
};

// The unmeasured preload step: a run of keyCount() requests sets every key of
// the range exactly once, whatever the number of connections and however the
// engine spreads the requests over them (the sessions share one key cursor; a
// request sent again after a dropped connection takes the next key, so a
// preload against a server that drops connections may miss a few keys).
// Further requests start the range again. Every reply is operation 0 ("set").
class MemcachePreloadProtocol final : public Protocol {
public:
    explicit MemcachePreloadProtocol(MemcacheSpec spec);
    ~MemcachePreloadProtocol() override;

    std::unique_ptr<ProtocolSession> newSession(uint32_t connectionIndex,
                                                uint64_t seed) const override;
    std::vector<std::string> operationNames() const override { return {"set"}; }

    // keyMaximum - keyMinimum + 1, saturated at 2^64 - 1.
    uint64_t keyCount() const;
    const MemcacheSpec& spec() const { return m_spec; }

private:
    MemcacheSpec m_spec;
    std::shared_ptr<const MemcacheRequestParts> m_parts;
    std::shared_ptr<std::atomic<uint64_t>> m_cursor; // next key, shared by every session
};

} // namespace loadscope::engine
