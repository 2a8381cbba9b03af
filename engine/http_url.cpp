#include "engine/http_protocol.h"

#include <algorithm>

namespace loadscope::engine {

namespace {

char toLowerAscii(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool isAlnum(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool isControlOrSpace(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f;
}

// The error must stay one line even when the URL itself is garbage, and
// show the URL as typed: a space stays a space, a control character becomes
// "\x0D" ('?' would read as the start of a query).
std::string printable(std::string_view text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            out += "\\x";
            out.push_back(kHex[u >> 4]);
            out.push_back(kHex[u & 0xf]);
        } else {
            out.push_back(c);
        }
    }
    return out;
}

bool fail(std::string* error, std::string message) {
    if (error)
        *error = std::move(message);
    return false;
}

bool validRegName(std::string_view host) {
    return !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
        return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '%';
    });
}

bool validIpv6Literal(std::string_view host) {
    // Hex groups, colons, an embedded IPv4 tail and a %zone; the resolver
    // has the final word.
    return host.find(':') != std::string_view::npos &&
           std::all_of(host.begin(), host.end(), [](char c) {
               return isAlnum(c) || c == ':' || c == '.' || c == '%' || c == '-' || c == '_';
           });
}

// Raw UTF-8 is not allowed on a request line; the server gets it escaped.
std::string encodePath(std::string_view path) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(path.size());
    for (char c : path) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x80) {
            out.push_back('%');
            out.push_back(kHex[u >> 4]);
            out.push_back(kHex[u & 0xf]);
        } else {
            out.push_back(c);
        }
    }
    return out;
}

} // namespace

std::optional<HttpUrl> parseHttpUrl(std::string_view url, std::string* error) {
    const std::string malformed = "malformed URL '" + printable(url) + "'";

    const size_t schemeEnd = url.find("://");
    if (schemeEnd == std::string_view::npos || schemeEnd == 0) {
        fail(error, malformed);
        return std::nullopt;
    }
    std::string scheme(url.substr(0, schemeEnd));
    std::transform(scheme.begin(), scheme.end(), scheme.begin(), toLowerAscii);
    if (!std::all_of(scheme.begin(), scheme.end(),
                     [](char c) { return isAlnum(c) || c == '+' || c == '-' || c == '.'; })) {
        fail(error, malformed);
        return std::nullopt;
    }
    if (scheme != "http" && scheme != "https") {
        fail(error, "unsupported scheme '" + scheme + "': only http:// and https:// are supported");
        return std::nullopt;
    }

    std::string_view rest = url.substr(schemeEnd + 3);
    if (const size_t hash = rest.find('#'); hash != std::string_view::npos)
        rest = rest.substr(0, hash);
    const size_t authorityEnd = rest.find_first_of("/?");
    const std::string_view authority = rest.substr(0, authorityEnd);
    const std::string_view path =
        authorityEnd == std::string_view::npos ? std::string_view{} : rest.substr(authorityEnd);

    // userinfo ("user:pass@host") is not supported: it would be silently lost.
    if (authority.find('@') != std::string_view::npos) {
        fail(error, malformed);
        return std::nullopt;
    }

    HttpUrl out;
    out.tls = scheme == "https";
    out.port = out.tls ? 443 : 80;
    std::string_view portText;
    bool hasPort = false;
    if (!authority.empty() && authority.front() == '[') {
        const size_t close = authority.find(']');
        if (close == std::string_view::npos) {
            fail(error, malformed);
            return std::nullopt;
        }
        const std::string_view host = authority.substr(1, close - 1);
        const std::string_view after = authority.substr(close + 1);
        if (!validIpv6Literal(host) || (!after.empty() && after.front() != ':')) {
            fail(error, malformed);
            return std::nullopt;
        }
        out.host = host;
        // A zone is written "%25eth0" in a URL; the resolver wants "%eth0".
        if (const size_t zone = out.host.find("%25"); zone != std::string::npos)
            out.host.erase(zone + 1, 2);
        hasPort = !after.empty();
        if (hasPort)
            portText = after.substr(1);
    } else {
        const size_t colon = authority.find(':');
        const std::string_view host = authority.substr(0, colon);
        if (!validRegName(host)) {
            fail(error, malformed);
            return std::nullopt;
        }
        out.host = host;
        hasPort = colon != std::string_view::npos;
        if (hasPort)
            portText = authority.substr(colon + 1);
    }

    // "host:" with nothing after the colon means the default port (RFC 3986).
    if (hasPort && !portText.empty()) {
        uint32_t port = 0;
        const bool digits =
            portText.size() <= 5 && std::all_of(portText.begin(), portText.end(),
                                                [](char c) { return c >= '0' && c <= '9'; });
        if (digits) {
            for (char c : portText)
                port = port * 10 + static_cast<uint32_t>(c - '0');
        }
        if (!digits || port == 0 || port > 65535) {
            fail(error, "invalid port '" + printable(portText) + "'");
            return std::nullopt;
        }
        out.port = static_cast<uint16_t>(port);
    }

    // Sent as typed, a space would end the request target and a CR or LF the
    // request line; the user writes %20 where a space is meant.
    if (std::any_of(path.begin(), path.end(), isControlOrSpace)) {
        fail(error, malformed + ": a space or control character in the path or query (write a "
                                "space as %20)");
        return std::nullopt;
    }
    out.pathAndQuery = path.empty() ? "/" : encodePath(path);
    if (out.pathAndQuery.front() == '?')
        out.pathAndQuery.insert(0, "/");

    const bool ipv6 = out.host.find(':') != std::string::npos;
    // A zone only means something to this machine and is never sent (RFC 6874).
    out.hostHeader = ipv6 ? "[" + out.host.substr(0, out.host.find('%')) + "]" : out.host;
    if (out.port != (out.tls ? 443 : 80))
        out.hostHeader += ":" + std::to_string(out.port);
    return out;
}

} // namespace loadscope::engine
