// Feeds arbitrary bytes to the memcached reply parser, whole, cut into random
// pieces and byte by byte, directly and through a MemcacheProtocol session,
// the way the load engine drives them (leftovers after Complete fed again,
// finishAtEof at the end). Input layout: byte 0 = which commands the replies
// answer (bit n % 8 set: command n was a set, else a get; for the session the
// low and high nibbles are the set:get ratio), byte 1 = seed for the cut
// points, then the server's bytes.
//
// Besides the sanitizers' checks it asserts the feed contract and that where
// the input was cut never changes what was parsed.

#include "engine/memcache_protocol.h"
#include "engine/memcache_reply_parser.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

using namespace loadscope::engine;

namespace {

struct Outcome {
    // Per reply: end offset, value bytes, hit, error flag, operation.
    std::vector<uint64_t> replies;
    FeedResult::Status last = FeedResult::Status::NeedMore;
    std::string error;

    bool operator==(const Outcome&) const = default;
};

[[noreturn]] void violated(const char* what) {
    std::fprintf(stderr, "contract violated: %s\n", what);
    std::abort();
}

void check(bool ok, const char* what) {
    if (!ok)
        violated(what);
}

MemcacheCommandKind commandKind(uint8_t pattern, size_t n) {
    return (pattern >> (n % 8)) & 1 ? MemcacheCommandKind::Storage : MemcacheCommandKind::Retrieval;
}

// The raw parser, one reply per command of the pattern.
class ParserDriver {
public:
    explicit ParserDriver(uint8_t pattern)
        : m_pattern(pattern) {
        m_parser.begin(commandKind(m_pattern, 0));
    }
    FeedResult feed(std::string_view data) {
        const FeedResult r = m_parser.feed(data);
        if (r.status == FeedResult::Status::Complete) {
            check(m_parser.kind() != MemcacheReplyKind::None, "complete reply without a kind");
            if (m_parser.kind() == MemcacheReplyKind::End)
                check(r.info.hit == (m_parser.values() > 0 ? 1 : 0), "hit disagrees with values");
            else
                check(r.info.hit == -1, "hit set on a reply that is no get result");
            check(r.info.bodyBytes == m_parser.valueBytes(), "body bytes disagree");
            check(r.info.bodyBytes <= m_parser.replyBytes(), "more value bytes than reply bytes");
            m_parser.begin(commandKind(m_pattern, ++m_replies));
        }
        return r;
    }
    FeedResult finishAtEof() { return m_parser.finishAtEof(); }
    std::string_view error() const { return m_parser.error(); }

private:
    uint8_t m_pattern;
    size_t m_replies = 0;
    MemcacheReplyParser m_parser;
};

// A session with a few requests pipelined, topped up after every reply.
class SessionDriver {
public:
    explicit SessionDriver(const MemcacheProtocol& protocol)
        : m_session(protocol.newSession(0, 1)) {
        for (int i = 0; i < kDepth; ++i)
            m_session->appendRequest(m_requests);
    }
    FeedResult feed(std::string_view data) {
        const FeedResult r = m_session->feed(data);
        if (r.status == FeedResult::Status::Complete) {
            check(r.info.operation <= kMemcacheGetOperation, "operation out of range");
            m_requests.clear();
            m_session->appendRequest(m_requests);
        }
        return r;
    }
    FeedResult finishAtEof() { return m_session->finishAtEof(); }
    std::string_view error() const { return m_session->lastError(); }

private:
    static constexpr int kDepth = 4;
    std::unique_ptr<ProtocolSession> m_session;
    std::string m_requests;
};

// Feeds `stream` in pieces ending at `cuts`, as the engine does.
template <typename Driver>
Outcome drive(Driver& driver, std::string_view stream, const std::vector<size_t>& cuts) {
    Outcome out;
    size_t begin = 0;
    auto step = [&](size_t end) -> bool {
        std::string_view piece = stream.substr(begin, end - begin);
        size_t base = begin;
        begin = end;
        while (!piece.empty()) {
            const FeedResult r = driver.feed(piece);
            check(r.consumed <= piece.size(), "consumed more than given");
            switch (r.status) {
            case FeedResult::Status::NeedMore:
                check(r.consumed == piece.size(), "NeedMore left bytes unconsumed");
                return true;
            case FeedResult::Status::Malformed:
                check(!driver.error().empty(), "Malformed without an explanation");
                out.last = r.status;
                out.error = std::string(driver.error());
                return false;
            case FeedResult::Status::Complete:
                check(r.consumed > 0, "Complete without consuming a byte");
                base += r.consumed;
                out.replies.insert(out.replies.end(),
                                   {base, r.info.bodyBytes, uint64_t(int64_t(r.info.hit)),
                                    uint64_t(r.info.errorReply), r.info.operation});
                piece.remove_prefix(r.consumed);
                break;
            }
        }
        return true;
    };
    for (size_t cut : cuts)
        if (!step(cut))
            return out;
    if (!step(stream.size()))
        return out;
    const FeedResult eof = driver.finishAtEof();
    check(eof.status != FeedResult::Status::Complete, "EOF completed a memcached reply");
    out.last = eof.status;
    if (eof.status == FeedResult::Status::Malformed)
        out.error = std::string(driver.error());
    return out;
}

std::vector<size_t> randomCuts(size_t size, uint32_t seed) {
    std::vector<size_t> cuts;
    uint32_t x = seed * 2654435761u + 1;
    size_t at = 0;
    while (size > 0) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        at += 1 + x % 16;
        if (at >= size)
            break;
        cuts.push_back(at);
    }
    return cuts;
}

template <typename MakeDriver>
void compareCuts(MakeDriver make, std::string_view stream, uint8_t cutSeed) {
    auto whole = make();
    const Outcome reference = drive(*whole, stream, {});

    auto random = make();
    check(drive(*random, stream, randomCuts(stream.size(), cutSeed)) == reference,
          "random cuts changed the result");

    if (stream.size() > 1) {
        auto halves = make();
        check(drive(*halves, stream, {stream.size() / 2}) == reference,
              "a cut in the middle changed the result");
    }
    // Byte by byte is quadratic in nothing but cheap per byte; keep it bounded anyway.
    if (stream.size() <= 64 * 1024) {
        std::vector<size_t> every;
        for (size_t i = 1; i < stream.size(); ++i)
            every.push_back(i);
        auto bytes = make();
        check(drive(*bytes, stream, every) == reference, "byte-by-byte changed the result");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2)
        return 0;
    const uint8_t pattern = data[0];
    const uint8_t cutSeed = data[1];
    const std::string_view stream(reinterpret_cast<const char*>(data + 2), size - 2);

    compareCuts([&] { return std::make_unique<ParserDriver>(pattern); }, stream, cutSeed);

    MemcacheSpec spec;
    spec.setRatio = pattern & 0x0f;
    spec.getRatio = pattern >> 4;
    if (spec.setRatio == 0 && spec.getRatio == 0)
        spec.setRatio = spec.getRatio = 1;
    spec.keyMaximum = 1000;
    const MemcacheProtocol protocol(spec);
    compareCuts([&] { return std::make_unique<SessionDriver>(protocol); }, stream, cutSeed);
    return 0;
}
