// Feeds arbitrary bytes to the HTTP response parser, whole and cut into
// random pieces, directly and through an HttpProtocol session, the way the
// load engine drives them (leftovers after Complete fed again, finishAtEof at
// the end). Input layout: byte 0 = flags (bit 0: HEAD request), byte 1 = seed
// for the cut points, then the server's bytes.
//
// Besides the sanitizers' checks it asserts the feed contract and that where
// the input was cut never changes what was parsed.

#include "engine/http_protocol.h"
#include "engine/http_response_parser.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

using namespace loadscope::engine;

namespace {

struct Outcome {
    std::vector<uint64_t> responses; // status, body, keep-alive, end offset; four per response
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

// Adapts a raw parser and a session to one interface for the driver.
struct ParserDriver {
    explicit ParserDriver(bool head)
        : m_head(head) {
        m_parser.begin(head);
    }
    FeedResult feed(std::string_view data) {
        FeedResult r = m_parser.feed(data);
        if (r.status == FeedResult::Status::Complete) {
            check(r.info.statusCode == m_parser.statusCode(), "status mismatch");
            check(r.info.bodyBytes == m_parser.bodyBytes(), "body mismatch");
            m_parser.begin(m_head);
        }
        return r;
    }
    FeedResult finishAtEof() { return m_parser.finishAtEof(); }
    std::string error() const { return std::string(m_parser.error()); }

    bool m_head;
    HttpResponseParser m_parser;
};

struct SessionDriver {
    explicit SessionDriver(const HttpProtocol& protocol)
        : m_session(protocol.newSession(0, 1)) {}
    FeedResult feed(std::string_view data) { return m_session->feed(data); }
    FeedResult finishAtEof() { return m_session->finishAtEof(); }
    std::string error() const { return std::string(m_session->lastError()); }

    std::unique_ptr<ProtocolSession> m_session;
};

template <typename Driver>
Outcome run(Driver& driver, std::string_view input, const std::vector<size_t>& cuts) {
    Outcome out;
    size_t pieceStart = 0;
    size_t responseStart = 0;
    const auto record = [&](const FeedResult& r, size_t end) {
        check(r.info.statusCode >= 200 && r.info.statusCode <= 999, "status out of range");
        check(r.info.bodyBytes <= end - responseStart, "more body than bytes");
        out.responses.insert(out.responses.end(),
                             {static_cast<uint64_t>(r.info.statusCode), r.info.bodyBytes,
                              r.info.keepAlive ? 1u : 0u, end});
        responseStart = end;
    };
    for (size_t i = 0; i <= cuts.size(); ++i) {
        const size_t pieceEnd = i < cuts.size() ? cuts[i] : input.size();
        std::string_view piece = input.substr(pieceStart, pieceEnd - pieceStart);
        size_t offset = pieceStart;
        pieceStart = pieceEnd;
        while (true) {
            const FeedResult r = driver.feed(piece);
            check(r.consumed <= piece.size(), "consumed past the input");
            if (r.status == FeedResult::Status::Malformed) {
                out.last = r.status;
                out.error = driver.error();
                check(!out.error.empty(), "Malformed without an error text");
                return out;
            }
            if (r.status == FeedResult::Status::NeedMore) {
                check(r.consumed == piece.size(), "NeedMore left bytes unconsumed");
                break;
            }
            check(r.consumed > 0, "Complete without consuming");
            offset += r.consumed;
            record(r, offset);
            piece.remove_prefix(r.consumed);
            if (piece.empty())
                break;
        }
    }
    const FeedResult eof = driver.finishAtEof();
    check(eof.consumed == 0, "finishAtEof consumed bytes");
    out.last = eof.status;
    if (eof.status == FeedResult::Status::Complete) {
        check(!eof.info.keepAlive, "close-delimited response says keep-alive");
        record(eof, input.size());
    } else if (eof.status == FeedResult::Status::Malformed) {
        out.error = driver.error();
        check(!out.error.empty(), "Malformed without an error text");
    }
    return out;
}

std::vector<size_t> randomCuts(size_t size, uint32_t seed) {
    std::vector<size_t> cuts;
    if (size < 2)
        return cuts;
    uint32_t state = seed * 2654435761u + static_cast<uint32_t>(size) + 1;
    const auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return state;
    };
    size_t pos = 0;
    const uint32_t count = 1 + next() % 24;
    for (uint32_t i = 0; i < count && pos + 1 < size; ++i) {
        // Mostly short pieces, so that lines and CRLFs get cut everywhere.
        const size_t step = 1 + next() % ((next() & 3) == 0 ? size : 16);
        pos += step;
        if (pos >= size)
            break;
        cuts.push_back(pos);
    }
    return cuts;
}

HttpRequestSpec specFor(const char* method) {
    HttpRequestSpec spec;
    spec.method = method;
    spec.host = "fuzz";
    return spec;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2)
        return 0;
    static const HttpProtocol getProtocol(specFor("GET"));
    static const HttpProtocol headProtocol(specFor("HEAD"));

    const bool head = (data[0] & 1) != 0;
    const uint32_t seed = data[1];
    const std::string_view input(reinterpret_cast<const char*>(data + 2), size - 2);

    ParserDriver whole(head);
    const Outcome expected = run(whole, input, {});

    const std::vector<size_t> cuts = randomCuts(input.size(), seed);
    ParserDriver split(head);
    check(run(split, input, cuts) == expected, "split input parsed differently");

    if (input.size() <= 4096) {
        std::vector<size_t> everyByte;
        for (size_t i = 1; i < input.size(); ++i)
            everyByte.push_back(i);
        ParserDriver bytewise(head);
        check(run(bytewise, input, everyByte) == expected, "byte-by-byte parsed differently");
    }

    SessionDriver session(head ? headProtocol : getProtocol);
    check(run(session, input, cuts) == expected, "session parsed differently");
    return 0;
}
