#include "engine/memcache_reply_parser.h"

#include <algorithm>
#include <charconv>

namespace loadscope::engine {

namespace {

using namespace std::string_view_literals;

// A short, printable piece of an offending line for the report; a hostile or
// confused peer must not be able to put control bytes or megabytes in it.
std::string excerpt(std::string_view line) {
    constexpr size_t kMaxExcerpt = 48;
    std::string out;
    out.reserve(kMaxExcerpt + 5);
    out.push_back('"');
    for (size_t i = 0; i < line.size() && i < kMaxExcerpt; ++i) {
        const auto c = static_cast<unsigned char>(line[i]);
        out.push_back(c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?');
    }
    if (line.size() > kMaxExcerpt)
        out.append("...");
    out.push_back('"');
    return out;
}

// Plain unsigned decimal: digits only, no sign, no blanks, no overflow.
template <typename T> bool parseDecimal(std::string_view text, T& value) {
    if (text.empty() || text.front() < '0' || text.front() > '9')
        return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

// A key as memcached sends it back: no blanks or control bytes.
bool isValidKey(std::string_view key) {
    if (key.empty())
        return false;
    return std::all_of(key.begin(), key.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c > 0x20 && c != 0x7f;
    });
}

// "WORD" or "WORD <message>".
bool isStatusWithMessage(std::string_view line, std::string_view word) {
    if (!line.starts_with(word))
        return false;
    return line.size() == word.size() || line[word.size()] == ' ';
}

} // namespace

void MemcacheReplyParser::begin(MemcacheCommandKind kind) {
    m_command = kind;
    m_state = State::Line;
    m_kind = MemcacheReplyKind::None;
    m_values = 0;
    m_valueBytes = 0;
    m_remaining = 0;
    m_replyBytes = 0;
    m_line.clear();
}

void MemcacheReplyParser::reset() {
    m_state = State::Idle;
    m_kind = MemcacheReplyKind::None;
    m_values = 0;
    m_valueBytes = 0;
    m_remaining = 0;
    m_replyBytes = 0;
    m_line.clear();
}

FeedResult MemcacheReplyParser::malformed(size_t consumed, std::string message) {
    m_error = std::move(message);
    m_state = State::Idle;
    m_line.clear();
    FeedResult r;
    r.status = FeedResult::Status::Malformed;
    r.consumed = consumed;
    return r;
}

FeedResult MemcacheReplyParser::completed(size_t consumed) const {
    FeedResult r;
    r.status = FeedResult::Status::Complete;
    r.consumed = consumed;
    r.info.bodyBytes = m_valueBytes;
    r.info.keepAlive = true;
    switch (m_kind) {
    case MemcacheReplyKind::Error:
    case MemcacheReplyKind::ClientError:
    case MemcacheReplyKind::ServerError:
        r.info.errorReply = true;
        break;
    case MemcacheReplyKind::End:
        r.info.hit = m_values > 0 ? 1 : 0;
        break;
    default:
        break;
    }
    return r;
}

FeedResult MemcacheReplyParser::feed(std::string_view data) {
    if (data.empty())
        return {};
    if (m_state == State::Idle)
        return malformed(0, "reply bytes with no command outstanding");

    size_t pos = 0;
    while (pos < data.size()) {
        switch (m_state) {
        case State::Idle:
            // Unreachable: a completed reply returns at once.
            return malformed(pos, "reply bytes with no command outstanding");
        case State::Line: {
            const std::string_view rest = data.substr(pos);
            const size_t newline = rest.find('\n');
            if (newline == std::string_view::npos) {
                // +1: the CR of a line of the maximum length may already be here.
                if (m_line.size() + rest.size() > kMaxLineBytes + 1)
                    return malformed(data.size(), "reply line longer than " +
                                                      std::to_string(kMaxLineBytes) + " bytes");
                if (m_line.capacity() < kMaxLineBytes + 1)
                    m_line.reserve(kMaxLineBytes + 1);
                m_line.append(rest);
                m_replyBytes += rest.size();
                return {FeedResult::Status::NeedMore, data.size(), {}};
            }
            pos += newline + 1;
            m_replyBytes += newline + 1;
            // Checked before joining, so that a flood without LF is never copied.
            if (m_line.size() + newline > kMaxLineBytes + 1)
                return malformed(pos, "reply line longer than " + std::to_string(kMaxLineBytes) +
                                          " bytes");
            std::string_view line = rest.substr(0, newline);
            if (!m_line.empty()) {
                m_line.append(line);
                line = m_line;
            }
            if (line.empty() || line.back() != '\r')
                return malformed(pos, "reply line not ended by CRLF: " + excerpt(line));
            line.remove_suffix(1);
            bool complete = false;
            FeedResult r = handleLine(line, pos, complete);
            m_line.clear();
            if (complete || r.status == FeedResult::Status::Malformed)
                return r;
            break;
        }
        case State::Data: {
            const uint64_t take = std::min<uint64_t>(m_remaining, data.size() - pos);
            pos += static_cast<size_t>(take);
            m_remaining -= take;
            m_valueBytes += take;
            m_replyBytes += take;
            if (m_remaining == 0)
                m_state = State::DataCr;
            break;
        }
        case State::DataCr:
        case State::DataLf: {
            const char expected = m_state == State::DataCr ? '\r' : '\n';
            if (data[pos] != expected)
                return malformed(pos, "value data not followed by CRLF after the " +
                                          std::to_string(m_announced) + " bytes announced");
            ++pos;
            ++m_replyBytes;
            m_state = m_state == State::DataCr ? State::DataLf : State::Line;
            break;
        }
        }
    }
    return {FeedResult::Status::NeedMore, data.size(), {}};
}

FeedResult MemcacheReplyParser::handleLine(std::string_view line, size_t consumed, bool& complete) {
    const bool retrieval = m_command == MemcacheCommandKind::Retrieval;
    auto finish = [&](MemcacheReplyKind kind) {
        m_kind = kind;
        m_state = State::Idle;
        complete = true;
        return completed(consumed);
    };

    if (line.starts_with("VALUE "sv)) {
        if (!retrieval)
            return malformed(consumed, "VALUE in reply to a set: " + excerpt(line));
        if (!parseValueLine(line.substr(6)))
            return malformed(consumed, m_error);
        ++m_values;
        m_state = m_remaining > 0 ? State::Data : State::DataCr;
        return {FeedResult::Status::NeedMore, consumed, {}};
    }
    if (line == "END"sv) {
        if (!retrieval)
            return malformed(consumed, "END in reply to a set");
        return finish(MemcacheReplyKind::End);
    }

    struct Status {
        std::string_view text;
        MemcacheReplyKind kind;
    };
    static constexpr Status kStorageStatuses[] = {
        {"STORED"sv, MemcacheReplyKind::Stored},
        {"NOT_STORED"sv, MemcacheReplyKind::NotStored},
        {"EXISTS"sv, MemcacheReplyKind::Exists},
        {"NOT_FOUND"sv, MemcacheReplyKind::NotFound},
    };
    for (const Status& status : kStorageStatuses) {
        if (line != status.text)
            continue;
        if (retrieval)
            return malformed(consumed, std::string(status.text) + " in reply to a get");
        return finish(status.kind);
    }

    // Error lines may answer any command, even after values of a get.
    static constexpr Status kErrorStatuses[] = {
        {"ERROR"sv, MemcacheReplyKind::Error},
        {"CLIENT_ERROR"sv, MemcacheReplyKind::ClientError},
        {"SERVER_ERROR"sv, MemcacheReplyKind::ServerError},
    };
    for (const Status& status : kErrorStatuses) {
        if (!isStatusWithMessage(line, status.text))
            continue;
        m_error.assign(line.data(), line.size());
        return finish(status.kind);
    }
    return malformed(consumed, "unexpected reply line " + excerpt(line));
}

bool MemcacheReplyParser::parseValueLine(std::string_view fields) {
    // <key> <flags> <bytes> [<cas>], single spaces as memcached writes them.
    const std::string_view whole = fields;
    std::string_view tokens[4];
    size_t count = 0;
    while (true) {
        const size_t space = fields.find(' ');
        const std::string_view token = fields.substr(0, space);
        if (token.empty() || count == 4) {
            m_error = "malformed VALUE line: " + excerpt(whole);
            return false;
        }
        tokens[count++] = token;
        if (space == std::string_view::npos)
            break;
        fields.remove_prefix(space + 1);
    }
    uint32_t flags = 0;
    uint64_t bytes = 0;
    uint64_t cas = 0;
    if (count < 3 || !isValidKey(tokens[0]) || !parseDecimal(tokens[1], flags) ||
        !parseDecimal(tokens[2], bytes) || (count == 4 && !parseDecimal(tokens[3], cas))) {
        m_error = "malformed VALUE line: " + excerpt(whole);
        return false;
    }
    if (bytes > kMaxValueBytes) {
        m_error = "VALUE of " + std::to_string(bytes) + " bytes is above the limit of " +
                  std::to_string(kMaxValueBytes);
        return false;
    }
    m_remaining = bytes;
    m_announced = bytes;
    return true;
}

FeedResult MemcacheReplyParser::finishAtEof() {
    if (m_state == State::Idle)
        return {};
    if (m_replyBytes == 0)
        return malformed(0, "connection closed before the reply");
    return malformed(0, "connection closed in the middle of a reply (" +
                            std::to_string(m_replyBytes) + " bytes received)");
}

} // namespace loadscope::engine
