// Feeds arbitrary bytes to the HTTP/2 session glue as the server's side of a
// connection, cut into random pieces, the way the load engine drives it:
// open some streams (queueRequest), then receive() each piece and produce()
// what the session owes the server, until the session is over. Input layout:
// byte 0 = flags (bits 0-2: streams to open less one, bit 3: a POST with a
// body), byte 1 = seed for the cut points, then the server's bytes.
//
// Besides the sanitizers' checks it asserts the multiplexed contract: every
// event names a stream that was opened, no stream ends twice, a stream's
// bytes and body are bounded by what was fed, and canOpenStream is false once
// the session is over.

#include "engine/http2_protocol.h"
#include "engine/http2_session.h"
#include "engine/request_queue.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string_view>
#include <vector>

using namespace loadscope::engine;

namespace {

void check(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "contract violated: %s\n", what);
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2)
        return 0;
    const size_t streams = (data[0] & 7) + 1;
    const bool post = data[0] & 8;
    uint32_t seed = data[1] * 2654435761u + 1;
    std::string_view input(reinterpret_cast<const char*>(data + 2), size - 2);

    HttpRequestSpec spec;
    spec.host = "127.0.0.1";
    if (post) {
        spec.method = "POST";
        spec.body = "fuzzed request body";
    }
    const Http2Protocol protocol(spec, Http2Settings{});
    auto session = protocol.newSession(0, 1);
    MultiplexedSession* mux = session->multiplexed();
    check(mux != nullptr, "an HTTP/2 session is multiplexed");

    RequestQueue out;
    std::set<int32_t> open;
    for (size_t i = 0; i < streams; ++i) {
        session->queueRequest(out);
        check(mux->lastStream() > 0 && mux->lastStream() % 2 == 1, "client streams are odd");
        check(open.insert(mux->lastStream()).second, "a stream id is used once");
    }
    check(!out.empty(), "the preface and the requests are queued");
    out.clear();

    std::vector<StreamEvent> events;
    const size_t fed = input.size();
    while (!input.empty() && !mux->over()) {
        seed = seed * 1103515245u + 12345u;
        const size_t piece = std::min<size_t>(input.size(), 1 + (seed >> 16) % 64);
        events.clear();
        const bool usable = mux->receive(input.substr(0, piece), 1, events);
        input.remove_prefix(piece);
        for (const StreamEvent& e : events) {
            check(open.erase(e.stream) == 1, "an event names an open stream, once");
            check(e.bytes <= fed && e.info.bodyBytes <= fed, "bytes are bounded by the input");
            if (e.kind != StreamEvent::Kind::Complete)
                check(!e.message.empty(), "a failed stream says why");
        }
        mux->produce(out);
        out.clear();
        if (!usable) {
            check(!session->lastError().empty(), "an unusable session says why");
            break;
        }
    }
    if (mux->over())
        check(!mux->canOpenStream(0), "no stream opens on a session that is over");
    session->finishAtEof();
    session->resetConnection();
    session->queueRequest(out); // a fresh connection works again
    check(mux->lastStream() == 1, "a new connection starts at stream 1");
    return 0;
}
