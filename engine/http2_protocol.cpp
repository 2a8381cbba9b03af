#include "engine/http2_protocol.h"

#include "engine/http2_session.h"

#include <algorithm>
#include <cctype>

namespace loadscope::engine {

namespace {

std::string lowercase(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

// Fields HTTP/2 forbids (RFC 9113 8.2.2) or carries as a pseudo-header:
// a user's Host becomes :authority, the rest are HTTP/1's connection framing.
bool connectionSpecific(std::string_view name) {
    return name == "connection" || name == "keep-alive" || name == "proxy-connection" ||
           name == "transfer-encoding" || name == "upgrade" || name == "host" ||
           name == "content-length";
}

} // namespace

Http2Request buildHttp2Request(const HttpRequestSpec& spec, bool tls) {
    Http2Request r;
    std::string authority = spec.host;
    for (const auto& [name, value] : spec.headers)
        if (lowercase(name) == "host")
            authority = value;
    r.fields = {{":method", spec.method},
                {":scheme", tls ? "https" : "http"},
                {":authority", authority},
                {":path", spec.pathAndQuery.empty() ? std::string("/") : spec.pathAndQuery}};
    std::vector<std::pair<std::string, std::string>> regular = {{"user-agent", "Loadscope"},
                                                                {"accept", "*/*"}};
    const bool sendsLength = !spec.body.empty() || spec.method == "POST" || spec.method == "PUT" ||
                             spec.method == "PATCH";
    if (!spec.body.empty() && !spec.contentType.empty())
        regular.emplace_back("content-type", spec.contentType);
    if (sendsLength)
        regular.emplace_back("content-length", std::to_string(spec.body.size()));
    // As HTTP/1: the first user field of a default's name takes its place.
    std::vector<bool> replaced(regular.size(), false);
    for (const auto& [name, value] : spec.headers) {
        const std::string lower = lowercase(name);
        if (connectionSpecific(lower))
            continue;
        const auto it = std::find_if(regular.begin(), regular.end(),
                                     [&](const auto& f) { return f.first == lower; });
        const size_t at = size_t(it - regular.begin());
        if (it != regular.end() && !replaced[at]) {
            it->second = value;
            replaced[at] = true;
        } else {
            regular.emplace_back(lower, value);
            replaced.push_back(true);
        }
    }
    r.fields.insert(r.fields.end(), regular.begin(), regular.end());
    r.body = spec.body;
    return r;
}

Http2Protocol::Http2Protocol(HttpRequestSpec spec, Http2Settings settings)
    : m_spec(std::move(spec))
    , m_settings(settings)
    , m_request(buildHttp2Request(m_spec, settings.tls)) {
    m_settings.windowBits = std::clamp(m_settings.windowBits, 0, 30);
    m_settings.connectionWindowBits = std::clamp(m_settings.connectionWindowBits, 0, 30);
}

std::unique_ptr<ProtocolSession> Http2Protocol::newSession(uint32_t /*connectionIndex*/,
                                                           uint64_t /*seed*/) const {
    return std::make_unique<Http2Session>(m_request, m_settings);
}

} // namespace loadscope::engine
