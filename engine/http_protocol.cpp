#include "engine/http_protocol.h"

#include "engine/http_response_parser.h"

#include <algorithm>

namespace loadscope::engine {

namespace {

bool sameFieldName(std::string_view a, std::string_view b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        const auto lower = [](char c) {
            return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        };
        return lower(x) == lower(y);
    });
}

// Methods whose requests carry content by definition: servers such as nginx
// answer them with 411 Length Required unless a length is given, even zero.
bool methodExpectsContent(std::string_view method) {
    return method == "POST" || method == "PUT" || method == "PATCH";
}

class HttpSession final : public ProtocolSession {
public:
    HttpSession(const std::string& request, bool head)
        : m_request(request)
        , m_head(head) {
        m_parser.begin(m_head);
    }

    void queueRequest(RequestQueue& out) override { out.appendShared(m_request); }

    FeedResult feed(std::string_view data) override { return settle(m_parser.feed(data)); }

    FeedResult finishAtEof() override { return settle(m_parser.finishAtEof()); }

    uint64_t skippableBytes() const override { return m_parser.skippableBytes(); }
    FeedResult skip(uint64_t n) override { return settle(m_parser.skip(n)); }

    void resetConnection() override { m_parser.begin(m_head); }

    std::string_view serverSoftware() const override { return m_server; }
    std::string_view lastError() const override { return m_lastError; }

private:
    FeedResult settle(FeedResult r) {
        switch (r.status) {
        case FeedResult::Status::Complete:
            if (!m_sawResponse) {
                m_sawResponse = true;
                m_server.assign(m_parser.server());
            }
            // Every response of a target answers the same request, so the
            // next one is framed the same way.
            m_parser.begin(m_head);
            break;
        case FeedResult::Status::Malformed:
            m_lastError.assign(m_parser.error());
            break;
        case FeedResult::Status::NeedMore:
            break;
        }
        return r;
    }

    const std::string& m_request; // owned by the HttpProtocol, which outlives its sessions
    const bool m_head;
    HttpResponseParser m_parser;
    bool m_sawResponse = false;
    std::string m_server;
    std::string m_lastError;
};

} // namespace

std::string buildHttpRequest(const HttpRequestSpec& spec) {
    struct Field {
        std::string_view name;
        std::string value;
        bool fromUser;
    };
    std::vector<Field> fields;
    fields.reserve(6 + spec.headers.size());
    const bool sendsLength = !spec.body.empty() || methodExpectsContent(spec.method);
    if (spec.http10) {
        // ab 2.3's order: connection, content, then Host, User-Agent, Accept.
        if (spec.keepAlive)
            fields.push_back({"Connection", "Keep-Alive", false});
        if (sendsLength)
            fields.push_back({"Content-Length", std::to_string(spec.body.size()), false});
        if (!spec.body.empty() && !spec.contentType.empty())
            fields.push_back({"Content-Type", spec.contentType, false});
    }
    fields.push_back({"Host", spec.host, false});
    fields.push_back({"User-Agent", "Loadscope", false});
    fields.push_back({"Accept", "*/*", false});
    if (!spec.http10) {
        if (!spec.keepAlive)
            fields.push_back({"Connection", "close", false});
        if (!spec.body.empty() && !spec.contentType.empty())
            fields.push_back({"Content-Type", spec.contentType, false});
        if (sendsLength)
            fields.push_back({"Content-Length", std::to_string(spec.body.size()), false});
    }

    for (const auto& header : spec.headers) {
        const std::string& name = header.first;
        const std::string& value = header.second;
        // The first user header of a default's name takes the default's place;
        // further ones (a second Cookie, say) are sent as well.
        const auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) {
            return !f.fromUser && sameFieldName(f.name, name);
        });
        if (it != fields.end())
            *it = Field{name, value, true};
        else
            fields.push_back({name, value, true});
    }

    std::string out;
    out.reserve(64 + spec.pathAndQuery.size() + spec.body.size() + 32 * fields.size());
    out.append(spec.method)
        .append(" ")
        .append(spec.pathAndQuery)
        .append(spec.http10 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
    for (const Field& f : fields) {
        out.append(f.name).append(":");
        if (!f.value.empty())
            out.append(" ").append(f.value);
        out.append("\r\n");
    }
    out.append("\r\n");
    out.append(spec.body);
    return out;
}

HttpProtocol::HttpProtocol(HttpRequestSpec spec)
    : m_spec(std::move(spec))
    , m_request(buildHttpRequest(m_spec))
    , m_head(m_spec.method == "HEAD") {}

std::unique_ptr<ProtocolSession> HttpProtocol::newSession(uint32_t /*connectionIndex*/,
                                                          uint64_t /*seed*/) const {
    return std::make_unique<HttpSession>(m_request, m_head);
}

} // namespace loadscope::engine
