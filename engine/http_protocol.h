#pragma once

#include "engine/protocol.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loadscope::engine {

// One HTTP target, as the user describes it. Built into bytes once.
struct HttpRequestSpec {
    std::string method = "GET"; // GET, HEAD, POST, PUT, DELETE, ...
    std::string host;           // Host header value (with :port when not 80)
    std::string pathAndQuery = "/";
    std::vector<std::pair<std::string, std::string>> headers; // extra headers; override defaults
    std::string body;                  // sent with Content-Length when non-empty (POST, PUT and
                                       // PATCH send Content-Length: 0 without one)
    std::string contentType;           // for the body
    bool keepAlive = true;             // false: "Connection: close", one request per connection
    bool acceptVariableLength = false; // ab -l: no Length failures
    // As ab: an "HTTP/1.0" request line, "Connection: Keep-Alive" only with
    // keep-alive (HTTP/1.0 closes by default), and ab's order of fields. A
    // server then answers without chunked coding, as it answers ab.
    bool http10 = false;
};

// The request bytes exactly as sent.
std::string buildHttpRequest(const HttpRequestSpec& spec);

class HttpProtocol final : public Protocol {
public:
    explicit HttpProtocol(HttpRequestSpec spec);

    std::unique_ptr<ProtocolSession> newSession(uint32_t connectionIndex,
                                                uint64_t seed) const override;
    bool keepAlive() const override { return m_spec.keepAlive; }
    bool checksDocumentLength() const override { return !m_spec.acceptVariableLength; }

    const HttpRequestSpec& spec() const { return m_spec; }
    const std::string& requestBytes() const { return m_request; }

private:
    HttpRequestSpec m_spec;
    std::string m_request;
    bool m_head;
};

// A parsed http:// or https:// URL. parseHttpUrl returns nullopt and a
// one-line `error` for anything else.
struct HttpUrl {
    std::string host; // without brackets for IPv6
    bool tls = false; // https: the port defaults to 443
    uint16_t port = 80;
    std::string pathAndQuery = "/";
    std::string hostHeader; // host[:port] as the Host header carries it
};
std::optional<HttpUrl> parseHttpUrl(std::string_view url, std::string* error);

} // namespace loadscope::engine
