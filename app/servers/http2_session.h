#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

using nghttp2_session = struct nghttp2_session;

namespace loadscope::app {

class ServerLoop;

// The HTTP/2 side of one embedded HTTP server connection, on nghttp2's server session: it takes
// the bytes the client sent (the connection preface first) and gives the bytes to write back,
// and never touches the socket, so cleartext (h2c) and TLS (ALPN "h2") connections share it.
// Every stream gets the server's one document, as HTTP/1.1 requests do (HEAD: headers only);
// nghttp2 keeps both directions' flow control, so a stream's DATA goes out as far as the
// client's windows let it, interleaved with the other streams'.
class Http2Session {
public:
    // At most this many streams open at once, announced in the server's SETTINGS.
    static constexpr uint32_t kMaxConcurrentStreams = 256;
    // The client connection preface, which tells h2c with prior knowledge from HTTP/1.1.
    static constexpr std::string_view kClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

    // `document` is served to every stream and outlives the session; responses and protocol
    // errors are counted on `loop`. nullptr when nghttp2 is out of memory.
    static std::unique_ptr<Http2Session> create(ServerLoop& loop, std::string_view document);
    ~Http2Session();
    Http2Session(const Http2Session&) = delete;
    Http2Session& operator=(const Http2Session&) = delete;

    // Bytes read from the client. A client that breaks the protocol is sent a GOAWAY (queued in
    // output()), and finished() turns true once it is written.
    void receive(std::span<const char> bytes);
    // What to write next; empty when nothing is due until more is received or a window opens.
    std::string_view output();
    // `bytes` of output() were written.
    void sent(size_t bytes) { m_outputOffset += bytes; }
    // Nothing more to read nor to write: the connection can close.
    bool finished() const;

private:
    struct Stream {
        bool head = false; // HEAD: headers only
        bool answered = false;
        size_t offset = 0; // body bytes already handed to nghttp2
    };

    friend struct Http2Callbacks; // nghttp2's C callbacks, in the .cpp

    Http2Session(ServerLoop& loop, std::string_view document);
    void fail(); // a fatal error: GOAWAY if the session can still send it, then close
    bool respond(int32_t streamId);

    ServerLoop& m_loop;
    const std::string_view m_document;
    const std::string m_contentLength;
    nghttp2_session* m_session = nullptr;
    std::unordered_map<int32_t, Stream> m_streams;
    std::string m_output; // frames nghttp2 gave, joined, so that one write sends many
    size_t m_outputOffset = 0;
    bool m_broken = false; // nghttp2 can no longer be driven
};

} // namespace loadscope::app
