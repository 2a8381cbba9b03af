// Feeds the HTTP/2 client session sequences of whole frames, as a server
// would send them, built from the input: where fuzz_http2_session's bytes
// must first learn the framing, each frame here is well framed and the
// input chooses its type (the ten of RFC 9113 and unknown ones), flags,
// stream (0, a stream the client opened, or any) and payload. It is driven
// as the load engine drives it (load_worker_h2.cpp): requests while
// canOpenStream allows, each frame received, what the session owes
// produced, then the streams that ended in produce() taken.
//
// Input layout: byte 0 = streams the client keeps open (1 to 8), then
// frames, each: type, flags, stream selector, payload length (one byte),
// payload.
//
// Besides the sanitizers' checks it asserts the multiplexed contract: every
// ended stream is one the client opened and ends once, through receive() or
// takeEvents() alike; a stream that fails says why; no stream opens once the
// session is over or has seen GOAWAY; the bytes a stream counts are bounded
// by what was fed.

#include "engine/http2_protocol.h"
#include "engine/http2_session.h"
#include "engine/request_queue.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

using namespace loadscope::engine;

namespace {

void check(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "contract violated: %s\n", what);
        std::abort();
    }
}

std::string frame(uint8_t type, uint8_t flags, uint32_t stream, const uint8_t* payload,
                  size_t length) {
    std::string out;
    out.push_back(char(length >> 16));
    out.push_back(char(length >> 8));
    out.push_back(char(length));
    out.push_back(char(type));
    out.push_back(char(flags));
    for (int shift = 24; shift >= 0; shift -= 8)
        out.push_back(char((stream >> shift) & 0xFF));
    out.append(reinterpret_cast<const char*>(payload), length);
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1)
        return 0;
    const size_t keepOpen = (data[0] & 7) + 1;
    HttpRequestSpec spec;
    spec.host = "127.0.0.1";
    const Http2Protocol protocol(spec, Http2Settings{});
    auto session = protocol.newSession(0, 1);
    MultiplexedSession* mux = session->multiplexed();
    check(mux != nullptr, "an HTTP/2 session is multiplexed");

    RequestQueue out;
    std::set<int32_t> open;
    std::vector<int32_t> opened;
    uint64_t fed = 0;
    std::vector<StreamEvent> events;
    const auto endStreams = [&] {
        for (const StreamEvent& e : events) {
            check(open.erase(e.stream) == 1, "an event names an open stream, once");
            check(e.bytes <= fed && e.info.bodyBytes <= fed, "bytes are bounded by the input");
            if (e.kind != StreamEvent::Kind::Complete)
                check(!e.message.empty(), "a stream that fails says why");
        }
        events.clear();
    };
    const auto issue = [&] {
        while (open.size() < keepOpen && mux->canOpenStream(open.size())) {
            check(!mux->over() && !mux->goawayReceived(), "no stream opens after the session");
            session->queueRequest(out);
            if (mux->lastStream() <= 0)
                break;
            check(open.insert(mux->lastStream()).second, "a stream id is used once");
            opened.push_back(mux->lastStream());
        }
        mux->produce(out);
        out.clear();
        mux->takeEvents(events);
        endStreams();
    };
    issue();

    size_t at = 1;
    while (at + 4 <= size && !mux->over()) {
        const uint8_t type =
            data[at] % 12 == 11 ? 0xFA : data[at] % 12; // 10: ORIGIN-like, 11: unknown
        const uint8_t flags = data[at + 1];
        const uint8_t selector = data[at + 2];
        const size_t length = std::min<size_t>(data[at + 3], size - at - 4);
        const uint32_t stream = selector < 32 ? 0
                                : selector < 192 && !opened.empty()
                                    ? uint32_t(opened[selector % opened.size()])
                                    : uint32_t(selector);
        const std::string bytes = frame(type, flags, stream, data + at + 4, length);
        at += 4 + length;
        fed += bytes.size();
        const bool usable = mux->receive(bytes, 1, events);
        endStreams();
        if (!usable) {
            check(!session->lastError().empty(), "an unusable session says why");
            break;
        }
        issue();
    }
    if (mux->over())
        check(!mux->canOpenStream(0), "no stream opens on a session that is over");
    session->finishAtEof();
    session->resetConnection();
    session->queueRequest(out);
    check(mux->lastStream() == 1, "a new connection starts at stream 1");
    return 0;
}
