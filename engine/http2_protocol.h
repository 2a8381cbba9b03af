#pragma once

#include "engine/http_protocol.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loadscope::engine {

// What an HTTP/2 client announces, as h2load's options name it. Streams per
// connection are LoadSpec::pipeline (h2load -m): the requests a connection
// has outstanding at once.
struct Http2Settings {
    int windowBits = 30;           // h2load -w: stream window (2^bits)-1, 0..30
    int connectionWindowBits = 30; // h2load -W: connection window (2^bits)-1, 0..30
    bool tls = false;              // :scheme https (h2 by ALPN) rather than http (h2c)
};

// The request of an HttpRequestSpec as HTTP/2 header fields, built once: a
// name/value list the sessions hand to nghttp2 without copying.
struct Http2Request {
    std::vector<std::pair<std::string, std::string>> fields; // pseudo-headers first, lowercase
    std::string body;
};
Http2Request buildHttp2Request(const HttpRequestSpec& spec, bool tls);

// One HTTP/2 target: h2c with prior knowledge on http://, h2 by ALPN on
// https://. Framing, HPACK and flow control are nghttp2's (http2_session.h).
class Http2Protocol final : public Protocol {
public:
    Http2Protocol(HttpRequestSpec spec, Http2Settings settings);

    std::unique_ptr<ProtocolSession> newSession(uint32_t connectionIndex,
                                                uint64_t seed) const override;
    bool checksDocumentLength() const override { return !m_spec.acceptVariableLength; }

    const HttpRequestSpec& spec() const { return m_spec; }
    const Http2Settings& settings() const { return m_settings; }
    const Http2Request& request() const { return m_request; }

private:
    HttpRequestSpec m_spec;
    Http2Settings m_settings;
    Http2Request m_request;
};

// ALPN's name of HTTP/2 over TLS.
inline constexpr const char* kAlpnHttp2 = "h2";

} // namespace loadscope::engine
