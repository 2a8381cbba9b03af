#include "engine/memcache_protocol.h"

#include "engine/available_memory.h"
#include "engine/memcache_reply_parser.h"
#include "engine/operation_queue.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <utility>

namespace loadscope::engine {

struct MemcacheRequestParts {
    explicit MemcacheRequestParts(const MemcacheSpec& spec)
        : keys(spec.keyPrefix) {
        setTail = ' ' + std::to_string(spec.flags) + ' ' + std::to_string(spec.expiry) + ' ' +
                  std::to_string(spec.valueSize) + "\r\n";
        // Printable and recognisable in a packet capture, so that a desync shows.
        value.resize(size_t(spec.valueSize) + 2);
        for (size_t i = 0; i < spec.valueSize; ++i)
            value[i] = static_cast<char>('a' + i % 26);
        value[spec.valueSize] = '\r';
        value[size_t(spec.valueSize) + 1] = '\n';
    }

    KeyFormatter keys;
    std::string setTail; // " <flags> <exptime> <bytes>\r\n"
    std::string value;   // the data block with its CRLF
};

namespace {

using namespace std::string_view_literals;

__extension__ typedef unsigned __int128 Uint128;

// memcached refuses longer keys with CLIENT_ERROR.
constexpr size_t kMaxMemcacheKeyBytes = 250;

// Streams of deriveSeed(): one random generator per command kind.
constexpr uint64_t kSetKeyStream = 1;
constexpr uint64_t kGetKeyStream = 2;

MemcacheCommandKind commandKind(uint8_t operation) {
    return operation == kMemcacheGetOperation ? MemcacheCommandKind::Retrieval
                                              : MemcacheCommandKind::Storage;
}

// Parsing and the request FIFO, common to the measured workload and the preload.
class MemcacheSessionBase : public ProtocolSession {
public:
    explicit MemcacheSessionBase(std::shared_ptr<const MemcacheRequestParts> parts)
        : m_parts(std::move(parts)) {}

    FeedResult feed(std::string_view data) override {
        FeedResult r = m_parser.feed(data);
        if (r.status == FeedResult::Status::Complete) {
            r.info.operation = m_outstanding.front();
            m_outstanding.pop();
            if (!m_outstanding.empty())
                m_parser.begin(commandKind(m_outstanding.front()));
        }
        return r;
    }

    FeedResult finishAtEof() override { return m_parser.finishAtEof(); }

    void resetConnection() override {
        m_outstanding.clear();
        m_parser.reset();
    }

    std::string_view lastError() const override { return m_parser.error(); }

protected:
    void appendSet(RequestQueue& out, uint64_t key) {
        out.append("set "sv);
        m_parts->keys.append(out, key);
        out.append(m_parts->setTail);
        out.appendShared(m_parts->value);
        enqueue(kMemcacheSetOperation);
    }

    void appendGet(RequestQueue& out, uint64_t key) {
        out.append("get "sv);
        m_parts->keys.append(out, key);
        out.append("\r\n"sv);
        enqueue(kMemcacheGetOperation);
    }

private:
    void enqueue(uint8_t operation) {
        m_outstanding.push(operation);
        if (!m_parser.inProgress())
            m_parser.begin(commandKind(m_outstanding.front()));
    }

    std::shared_ptr<const MemcacheRequestParts> m_parts;
    MemcacheReplyParser m_parser;
    OperationQueue m_outstanding;
};

class MemcacheSession final : public MemcacheSessionBase {
public:
    MemcacheSession(const MemcacheSpec& spec, std::shared_ptr<const MemcacheRequestParts> parts,
                    uint32_t connectionIndex, uint64_t seed)
        : MemcacheSessionBase(std::move(parts))
        , m_setRatio(spec.setRatio)
        , m_cycleLength(uint64_t(spec.setRatio) + spec.getRatio)
        , m_setKeys(spec.keyPatternSpec(spec.setKeyPattern),
                    deriveSeed(seed, connectionIndex, kSetKeyStream),
                    startOffset(spec, connectionIndex))
        , m_getKeys(spec.keyPatternSpec(spec.getKeyPattern),
                    deriveSeed(seed, connectionIndex, kGetKeyStream),
                    startOffset(spec, connectionIndex)) {}

    void queueRequest(RequestQueue& out) override {
        // Command n is a set when (n * sets) mod (sets + gets) < sets: exactly
        // `sets` per cycle, spread as evenly as the ratio allows, set first.
        const bool isSet = m_accumulator < m_setRatio;
        m_accumulator += m_setRatio;
        if (m_accumulator >= m_cycleLength)
            m_accumulator -= m_cycleLength;
        if (isSet)
            appendSet(out, m_setKeys.next());
        else
            appendGet(out, m_getKeys.next());
    }

private:
    static uint64_t startOffset(const MemcacheSpec& spec, uint32_t connectionIndex) {
        return sequentialStartOffset(connectionIndex, spec.connections,
                                     spec.keyMaximum - spec.keyMinimum + 1);
    }

    uint64_t m_setRatio;
    uint64_t m_cycleLength;
    uint64_t m_accumulator = 0;
    KeyGenerator m_setKeys;
    KeyGenerator m_getKeys;
};

Uint128 rangeSize(const MemcacheSpec& spec) {
    return Uint128(spec.keyMaximum - spec.keyMinimum) + 1;
}

// Every set of a preload takes the next key of the range from one cursor
// shared by all connections, however the engine spreads the requests over
// them: a preload of keyCount() requests sets every key exactly once.
class MemcachePreloadSession final : public MemcacheSessionBase {
public:
    MemcachePreloadSession(const MemcacheSpec& spec,
                           std::shared_ptr<const MemcacheRequestParts> parts,
                           std::shared_ptr<std::atomic<uint64_t>> cursor, uint64_t keyCount)
        : MemcacheSessionBase(std::move(parts))
        , m_minimum(spec.keyMinimum)
        , m_keyCount(std::max<uint64_t>(keyCount, 1))
        , m_cursor(std::move(cursor)) {}

    void queueRequest(RequestQueue& out) override {
        const uint64_t next = m_cursor->fetch_add(1, std::memory_order_relaxed);
        appendSet(out, m_minimum + next % m_keyCount);
    }

private:
    uint64_t m_minimum;
    uint64_t m_keyCount;
    std::shared_ptr<std::atomic<uint64_t>> m_cursor;
};

} // namespace

KeyPatternSpec MemcacheSpec::keyPatternSpec(KeyPattern pattern) const {
    KeyPatternSpec k;
    k.pattern = pattern;
    k.minimum = keyMinimum;
    k.maximum = keyMaximum;
    k.stddev = keyStddev;
    k.median = keyMedian;
    return k;
}

std::optional<std::string> validateMemcacheSpec(const MemcacheSpec& spec) {
    if (spec.setRatio == 0 && spec.getRatio == 0)
        return "the set:get ratio must have at least one non-zero side";
    if (auto error = validateKeyPatternSpec(spec.keyPatternSpec(spec.setKeyPattern)))
        return error;
    for (char ch : spec.keyPrefix) {
        const auto c = static_cast<unsigned char>(ch);
        if (c <= 0x20 || c == 0x7f)
            return "the key prefix must not contain spaces or control characters";
    }
    char digits[KeyFormatter::kMaxDigits];
    const auto end = std::to_chars(digits, digits + sizeof digits, spec.keyMaximum).ptr;
    const size_t longestKey = spec.keyPrefix.size() + static_cast<size_t>(end - digits);
    if (longestKey > kMaxMemcacheKeyBytes)
        return "keys would be " + std::to_string(longestKey) + " bytes long; memcached allows " +
               std::to_string(kMaxMemcacheKeyBytes);
    if (spec.valueSize > MemcacheReplyParser::kMaxValueBytes)
        return "the value size must be at most " +
               std::to_string(MemcacheReplyParser::kMaxValueBytes) + " bytes";
    // The value is built once per run and shared by every connection.
    if (auto problem = requestMemoryProblem(
            spec.valueSize, "a value of " + std::to_string(spec.valueSize) + " bytes"))
        return problem;
    return std::nullopt;
}

namespace {

bool splitPair(std::string_view text, std::string_view& left, std::string_view& right) {
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos)
        return false;
    left = text.substr(0, colon);
    right = text.substr(colon + 1);
    return true;
}

bool parseCount(std::string_view text, uint32_t& value) {
    if (text.empty() || text.front() < '0' || text.front() > '9')
        return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

} // namespace

bool parseMemcacheRatio(std::string_view text, uint32_t& sets, uint32_t& gets) {
    std::string_view left;
    std::string_view right;
    uint32_t s = 0;
    uint32_t g = 0;
    if (!splitPair(text, left, right) || !parseCount(left, s) || !parseCount(right, g) ||
        (s == 0 && g == 0))
        return false;
    sets = s;
    gets = g;
    return true;
}

bool parseMemcacheKeyPatterns(std::string_view text, KeyPattern& set, KeyPattern& get) {
    std::string_view left;
    std::string_view right;
    if (!splitPair(text, left, right) || left.size() != 1 || right.size() != 1)
        return false;
    const auto s = keyPatternFromLetter(left.front());
    const auto g = keyPatternFromLetter(right.front());
    if (!s || !g)
        return false;
    set = *s;
    get = *g;
    return true;
}

MemcacheProtocol::MemcacheProtocol(MemcacheSpec spec)
    : m_spec(std::move(spec))
    , m_parts(std::make_shared<const MemcacheRequestParts>(m_spec)) {}

MemcacheProtocol::~MemcacheProtocol() = default;

std::unique_ptr<ProtocolSession> MemcacheProtocol::newSession(uint32_t connectionIndex,
                                                              uint64_t seed) const {
    return std::make_unique<MemcacheSession>(m_spec, m_parts, connectionIndex, seed);
}

MemcachePreloadProtocol::MemcachePreloadProtocol(MemcacheSpec spec)
    : m_spec(std::move(spec))
    , m_parts(std::make_shared<const MemcacheRequestParts>(m_spec))
    , m_cursor(std::make_shared<std::atomic<uint64_t>>(0)) {}

MemcachePreloadProtocol::~MemcachePreloadProtocol() = default;

std::unique_ptr<ProtocolSession> MemcachePreloadProtocol::newSession(uint32_t, uint64_t) const {
    return std::make_unique<MemcachePreloadSession>(m_spec, m_parts, m_cursor, keyCount());
}

uint64_t MemcachePreloadProtocol::keyCount() const {
    const Uint128 size = rangeSize(m_spec);
    return size > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(size);
}

} // namespace loadscope::engine
