// The head stage of HttpResponseParser: the status line, the header fields
// that frame the body and how the body is framed once the block ends. The
// byte-level driver and the chunked body are in http_response_parser.cpp.
#include "engine/http_field_text.h"
#include "engine/http_response_parser.h"

#include <cstdint>
#include <cstring>
#include <limits>

namespace loadscope::engine {

using detail::fieldNameEnd;
using detail::isOws;

namespace {

constexpr char toLowerAscii(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

uint64_t load8(const char* p) {
    uint64_t word;
    std::memcpy(&word, p, sizeof word);
    return word;
}

uint32_t load4(const char* p) {
    uint32_t word;
    std::memcpy(&word, p, sizeof word);
    return word;
}

// toLowerAscii on each byte of `word` at once: a byte below 0x80 whose low
// seven bits are in 'A'..'Z' gains 0x20; every other byte is left as it is.
constexpr uint64_t toLowerAscii8(uint64_t word) {
    constexpr uint64_t kOnes = 0x0101010101010101u;
    const uint64_t low7 = word & (0x7f * kOnes);
    const uint64_t aboveZ = low7 + (0x7f - 'Z') * kOnes; // high bit set where low7 > 'Z'
    const uint64_t fromA = low7 + (0x80 - 'A') * kOnes;  // high bit set where low7 >= 'A'
    const uint64_t upper = (fromA ^ aboveZ) & ~word & (0x80 * kOnes);
    return word | (upper >> 2);
}

// `lower` must already be lower case. Eight bytes a step (the last step
// overlapping the one before), as the names and options compared per
// response are 5-17 bytes long.
bool equalsIgnoreCase(std::string_view text, std::string_view lower) {
    const size_t n = text.size();
    if (n != lower.size())
        return false;
    const char* const t = text.data();
    const char* const l = lower.data();
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            if (toLowerAscii8(load8(t + i)) != load8(l + i))
                return false;
        }
        return toLowerAscii8(load8(t + n - 8)) == load8(l + n - 8);
    }
    if (n >= 4) {
        return toLowerAscii8(load4(t)) == load4(l) &&
               toLowerAscii8(load4(t + n - 4)) == load4(l + n - 4);
    }
    for (size_t i = 0; i < n; ++i) {
        if (toLowerAscii(t[i]) != l[i])
            return false;
    }
    return true;
}

constexpr std::string_view trimOws(std::string_view v) {
    while (!v.empty() && isOws(v.front()))
        v.remove_prefix(1);
    while (!v.empty() && isOws(v.back()))
        v.remove_suffix(1);
    return v;
}

// Calls `fn` with each trimmed, non-empty element of a comma-separated list.
template <typename Fn> void forEachListElement(std::string_view value, Fn&& fn) {
    while (!value.empty()) {
        const size_t comma = value.find(',');
        const std::string_view element = trimOws(value.substr(0, comma));
        if (!element.empty())
            fn(element);
        if (comma == std::string_view::npos)
            break;
        value.remove_prefix(comma + 1);
    }
}

} // namespace

void HttpResponseParser::forgetHeaderFields() {
    m_connectionClose = false;
    m_connectionKeepAlive = false;
    m_chunked = false;
    m_transferEncoding = false;
    m_lastField = Field::Other;
    m_contentLength = -1;
    m_server.clear();
}

HttpResponseParser::Step HttpResponseParser::parseStatusLine(std::string_view line) {
    // HTTP/1.x SP 3DIGIT [SP reason]; the reason phrase may be empty or absent.
    constexpr size_t kMinLength = 12; // "HTTP/1.1 200"
    const auto digit = [](char c) {
        return c >= '0' && c <= '9';
    };
    if (line.size() < kMinLength || line.substr(0, 7) != "HTTP/1." || !digit(line[7]) ||
        line[8] != ' ' || !digit(line[9]) || !digit(line[10]) || !digit(line[11]) ||
        (line.size() > kMinLength && line[12] != ' ')) {
        return fail("malformed status line");
    }
    m_status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
    if (m_status < 100)
        return fail("malformed status line");

    m_http10 = line[7] == '0';
    forgetHeaderFields();
    m_state = State::Headers;
    return Step::Continue;
}

HttpResponseParser::Step HttpResponseParser::parseHeaderLine(std::string_view line) {
    if (isOws(line.front())) {
        // Obsolete line folding continues the previous field. Harmless for
        // fields we ignore; for the ones that frame the body it is ambiguous.
        if (m_lastField != Field::Other)
            return fail("folded header line");
        return Step::Continue;
    }
    const size_t colon = fieldNameEnd(line);
    if (colon == std::string_view::npos)
        return fail("malformed header line");
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = trimOws(line.substr(colon + 1));

    m_lastField = Field::Other;
    switch (name.size()) {
    case 6:
        if (equalsIgnoreCase(name, "server"))
            m_server.assign(value);
        break;
    case 10:
        if (equalsIgnoreCase(name, "connection")) {
            m_lastField = Field::Connection;
            parseConnection(value);
        }
        break;
    case 14:
        if (equalsIgnoreCase(name, "content-length")) {
            m_lastField = Field::ContentLength;
            return parseContentLength(value);
        }
        break;
    case 17:
        if (equalsIgnoreCase(name, "transfer-encoding")) {
            m_lastField = Field::TransferEncoding;
            parseTransferEncoding(value);
        }
        break;
    default:
        break;
    }
    return Step::Continue;
}

HttpResponseParser::Step HttpResponseParser::parseContentLength(std::string_view value) {
    // A list of identical values ("42, 42") is what some proxies produce when
    // merging; anything else that disagrees cannot be framed safely.
    if (value.empty())
        return fail("invalid Content-Length");
    // The usual single value of up to 18 digits cannot overflow: no list to
    // split, no bound to check per digit.
    if (value.size() <= 18) {
        int64_t length = 0;
        size_t i = 0;
        for (; i < value.size() && value[i] >= '0' && value[i] <= '9'; ++i)
            length = length * 10 + (value[i] - '0');
        if (i == value.size()) {
            if (m_contentLength >= 0 && m_contentLength != length)
                return fail("conflicting Content-Length");
            m_contentLength = length;
            return Step::Continue;
        }
    }
    while (true) {
        const size_t comma = value.find(',');
        const std::string_view element = trimOws(value.substr(0, comma));
        if (element.empty())
            return fail("invalid Content-Length");
        int64_t length = 0;
        for (char c : element) {
            if (c < '0' || c > '9')
                return fail("invalid Content-Length");
            if (length > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10)
                return fail("invalid Content-Length");
            length = length * 10 + (c - '0');
        }
        if (m_contentLength >= 0 && m_contentLength != length)
            return fail("conflicting Content-Length");
        m_contentLength = length;
        if (comma == std::string_view::npos)
            return Step::Continue;
        value.remove_prefix(comma + 1);
    }
}

void HttpResponseParser::parseTransferEncoding(std::string_view value) {
    // Only the final coding matters: chunked there frames the body, anything
    // else means the body runs until the server closes.
    m_transferEncoding = true;
    forEachListElement(value, [this](std::string_view coding) {
        m_chunked = equalsIgnoreCase(coding, "chunked");
    });
}

void HttpResponseParser::parseConnection(std::string_view value) {
    // The one option most servers send (`value` is trimmed): no list to split.
    if (equalsIgnoreCase(value, "keep-alive")) {
        m_connectionKeepAlive = true;
        return;
    }
    forEachListElement(value, [this](std::string_view option) {
        if (equalsIgnoreCase(option, "close"))
            m_connectionClose = true;
        else if (equalsIgnoreCase(option, "keep-alive"))
            m_connectionKeepAlive = true;
    });
}

HttpResponseParser::Step HttpResponseParser::endOfHeaders() {
    m_headerBytes = m_blockBytes;
    m_blockBytes = 0;
    if (m_status < 200) {
        // We never ask to upgrade, so a switch leaves a stream we cannot read.
        if (m_status == 101)
            return fail("unexpected 101 Switching Protocols");
        m_state = State::StatusLine; // interim response: the final one follows
        return Step::Continue;
    }
    m_keepAlive = !m_connectionClose && (!m_http10 || m_connectionKeepAlive);
    if (m_bodiless || m_status == 204 || m_status == 304)
        return complete();
    if (m_transferEncoding) {
        if (m_chunked) {
            m_state = State::ChunkSize;
            return Step::Continue;
        }
    } else if (m_contentLength >= 0) {
        if (m_contentLength == 0)
            return complete();
        m_remaining = static_cast<uint64_t>(m_contentLength);
        m_state = State::Body;
        return Step::Continue;
    }
    m_keepAlive = false; // only the close can end this body
    m_state = State::UntilClose;
    return Step::Continue;
}

} // namespace loadscope::engine
