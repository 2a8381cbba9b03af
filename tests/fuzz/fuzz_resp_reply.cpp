// Feeds arbitrary bytes to the Redis reply parser, whole, cut into random
// pieces and byte by byte, directly and through a RedisProtocol session, the
// way the load engine drives them (leftovers after Complete fed again,
// finishAtEof at the end). Input layout: byte 0 = the session's workload (low
// nibble and next bit: the set:get ratio; bits 5-6: none, HELLO 2, HELLO 3;
// bit 7: arbitrary commands instead of SET and GET), byte 1 = seed for the cut
// points, then the server's bytes.
//
// Besides the sanitizers' checks it asserts the feed contract, that a reply's
// payload never exceeds its bytes, that an error reply always has a class, and
// that where the input was cut never changes what was parsed.

#include "engine/redis_protocol.h"
#include "engine/resp_reply_parser.h"

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
    // Per reply: end offset, payload bytes, hit, error flag, operation; then the class.
    std::vector<uint64_t> replies;
    std::vector<std::string> codes;
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

// The raw parser, one reply after another.
class ParserDriver {
public:
    ParserDriver() { m_parser.begin(); }
    FeedResult feed(std::string_view data) {
        const FeedResult r = m_parser.feed(data);
        if (r.status == FeedResult::Status::Complete) {
            check(m_parser.type() != RespReplyType::None, "complete reply without a type");
            check(r.info.errorReply == (m_parser.type() == RespReplyType::Error),
                  "error flag disagrees with the type");
            check(r.info.bodyBytes <= m_parser.replyBytes(), "more payload than reply bytes");
            check(!r.info.errorReply || !m_parser.errorCode().empty(), "error without a class");
            check(m_parser.error().size() <= RespReplyParser::kMaxErrorBytes || !r.info.errorReply,
                  "error text beyond its bound");
            m_parser.begin();
        }
        return r;
    }
    FeedResult finishAtEof() { return m_parser.finishAtEof(); }
    std::string_view error() const { return m_parser.error(); }
    std::string_view code() const { return m_parser.errorCode(); }

private:
    RespReplyParser m_parser;
};

// A session with a few requests pipelined, topped up after every reply.
class SessionDriver {
public:
    explicit SessionDriver(const RedisProtocol& protocol)
        : m_session(protocol.newSession(0, 1))
        , m_operations(protocol.operationNames().size()) {
        for (int i = 0; i < kDepth; ++i)
            m_session->appendRequest(m_requests);
    }
    FeedResult feed(std::string_view data) {
        const FeedResult r = m_session->feed(data);
        if (r.status == FeedResult::Status::Complete) {
            check(r.info.operation < m_operations, "operation out of range");
            check(!r.info.errorReply || !m_session->errorReplyCode().empty(),
                  "error without a class");
            m_requests.clear();
            m_session->appendRequest(m_requests);
        }
        return r;
    }
    FeedResult finishAtEof() { return m_session->finishAtEof(); }
    std::string_view error() const { return m_session->lastError(); }
    std::string_view code() const { return m_session->errorReplyCode(); }

private:
    static constexpr int kDepth = 4;
    std::unique_ptr<ProtocolSession> m_session;
    size_t m_operations;
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
                if (r.info.errorReply)
                    out.codes.emplace_back(driver.code());
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
    check(eof.status != FeedResult::Status::Complete, "EOF completed a Redis reply");
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
    const uint8_t workload = data[0];
    const uint8_t cutSeed = data[1];
    const std::string_view stream(reinterpret_cast<const char*>(data + 2), size - 2);

    compareCuts([] { return std::make_unique<ParserDriver>(); }, stream, cutSeed);

    RedisSpec spec;
    spec.workload.setRatio = workload & 0x0f;
    spec.workload.getRatio = (workload >> 4) & 0x01;
    if (spec.workload.setRatio == 0 && spec.workload.getRatio == 0)
        spec.workload.setRatio = spec.workload.getRatio = 1;
    spec.workload.keyMaximum = 1000;
    const unsigned hello = (workload >> 5) & 0x03;
    spec.handshake = hello == 1   ? RedisHandshake::Resp2
                     : hello >= 2 ? RedisHandshake::Resp3
                                  : RedisHandshake::None;
    if (workload & 0x80) {
        for (const char* text : {"HSET h:__key__ f __data__", "HGETALL h:__key__", "PING"}) {
            RedisCommandSpec command;
            parseRedisCommand(text, command.arguments);
            command.ratio = 2;
            spec.commands.push_back(std::move(command));
        }
    }
    const RedisProtocol protocol(spec);
    compareCuts([&] { return std::make_unique<SessionDriver>(protocol); }, stream, cutSeed);
    return 0;
}
