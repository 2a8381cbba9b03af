#include "engine/resp_reply_parser.h"

#include <algorithm>
#include <charconv>

namespace loadscope::engine {

namespace {

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

// A plain decimal, optionally negative: no '+', no blanks, no overflow.
bool parseInteger(std::string_view text, int64_t& value) {
    if (text.empty())
        return false;
    const size_t digitsFrom = text.front() == '-' ? 1 : 0;
    if (digitsFrom == text.size() || text[digitsFrom] < '0' || text[digitsFrom] > '9')
        return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

bool isBigNumber(std::string_view text) {
    if (!text.empty() && text.front() == '-')
        text.remove_prefix(1);
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool isCodeCharacter(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// Elements of an aggregate beyond this would be a count no server sends; the
// bound keeps a map's doubled count far from overflow.
constexpr int64_t kMaxElements = int64_t(1) << 40;

} // namespace

void RespReplyParser::begin() {
    m_state = State::Line;
    m_type = RespReplyType::None;
    m_typeKnown = false;
    m_blobError = false;
    m_depth = 0;
    m_payloadRemaining = 0;
    m_payloadBytes = 0;
    m_replyBytes = 0;
    m_line.clear();
}

void RespReplyParser::reset() {
    begin();
    m_state = State::Idle;
}

FeedResult RespReplyParser::malformed(size_t consumed, std::string message) {
    m_error = std::move(message);
    m_errorCode.clear();
    m_state = State::Idle;
    m_line.clear();
    FeedResult r;
    r.status = FeedResult::Status::Malformed;
    r.consumed = consumed;
    return r;
}

FeedResult RespReplyParser::completed(size_t consumed) const {
    FeedResult r;
    r.status = FeedResult::Status::Complete;
    r.consumed = consumed;
    r.info.bodyBytes = m_payloadBytes;
    r.info.keepAlive = true;
    r.info.errorReply = m_type == RespReplyType::Error;
    return r;
}

void RespReplyParser::keepError(std::string_view text) {
    m_error.assign(text.substr(0, kMaxErrorBytes));
    const std::string_view word = text.substr(0, text.find(' '));
    if (!word.empty() && word.size() <= 32 &&
        std::all_of(word.begin(), word.end(), isCodeCharacter))
        m_errorCode.assign(word);
    else
        m_errorCode.assign("OTHER");
}

bool RespReplyParser::valueEnded() {
    while (m_depth > 0) {
        if (--m_remaining[m_depth - 1] > 0)
            return false;
        const Frame frame = m_frames[m_depth - 1];
        --m_depth;
        if (frame == Frame::Attribute)
            return false; // the value it describes is still to come
        if (frame == Frame::Push) {
            m_typeKnown = false; // out of band: the reply has not begun
            m_type = RespReplyType::None;
            return false;
        }
    }
    return true;
}

bool RespReplyParser::openAggregate(char type, int64_t count, size_t consumed,
                                    FeedResult& failure) {
    if (count < -1 || count > kMaxElements || (count == -1 && type != '*')) {
        failure = malformed(consumed, "aggregate of " + std::to_string(count) + " elements");
        return false;
    }
    uint64_t elements = count < 0 ? 0 : uint64_t(count);
    if (type == '%' || type == '|')
        elements *= 2; // key and value
    const bool topLevel = m_depth == 0 && !m_typeKnown;
    const Frame frame = type == '|'               ? Frame::Attribute
                        : type == '>' && topLevel ? Frame::Push
                                                  : Frame::Value;
    if (elements == 0)
        return true;
    if (m_depth == kMaxDepth) {
        failure = malformed(consumed,
                            "reply nested deeper than " + std::to_string(kMaxDepth) + " levels");
        return false;
    }
    m_remaining[m_depth] = elements;
    m_frames[m_depth] = frame;
    ++m_depth;
    return true;
}

FeedResult RespReplyParser::feed(std::string_view data) {
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
        case State::Payload: {
            const uint64_t take = std::min<uint64_t>(m_payloadRemaining, data.size() - pos);
            if (m_blobError && m_error.size() < kMaxErrorBytes)
                m_error.append(
                    data.substr(pos, std::min<uint64_t>(take, kMaxErrorBytes - m_error.size())));
            else if (!m_blobError)
                m_payloadBytes += take;
            pos += static_cast<size_t>(take);
            m_payloadRemaining -= take;
            m_replyBytes += take;
            if (m_payloadRemaining == 0)
                m_state = State::PayloadCr;
            break;
        }
        case State::PayloadCr:
        case State::PayloadLf: {
            const char expected = m_state == State::PayloadCr ? '\r' : '\n';
            if (data[pos] != expected)
                return malformed(pos, "bulk string not followed by CRLF where its length said");
            ++pos;
            ++m_replyBytes;
            if (m_state == State::PayloadCr) {
                m_state = State::PayloadLf;
                break;
            }
            m_state = State::Line;
            if (m_blobError) {
                keepError(std::string(m_error));
                m_blobError = false;
            }
            if (valueEnded()) {
                m_state = State::Idle;
                return completed(pos);
            }
            break;
        }
        }
    }
    return {FeedResult::Status::NeedMore, data.size(), {}};
}

FeedResult RespReplyParser::handleLine(std::string_view line, size_t consumed, bool& complete) {
    if (line.empty())
        return malformed(consumed, "empty reply line");
    const char type = line.front();
    const std::string_view rest = line.substr(1);
    const bool outermost = m_depth == 0 && type != '|' && type != '>';
    auto scalar = [&](RespReplyType kind) {
        if (outermost) {
            m_type = kind;
            m_typeKnown = true;
        }
        if (valueEnded()) {
            m_state = State::Idle;
            complete = true;
            return completed(consumed);
        }
        return FeedResult{FeedResult::Status::NeedMore, consumed, {}};
    };

    int64_t number = 0;
    switch (type) {
    case '+':
        return scalar(RespReplyType::SimpleString);
    case '-':
        if (outermost)
            keepError(rest);
        return scalar(RespReplyType::Error);
    case ':':
        if (!parseInteger(rest, number))
            return malformed(consumed, "integer reply is not a number: " + excerpt(line));
        return scalar(RespReplyType::Integer);
    case '_':
        if (!rest.empty())
            return malformed(consumed, "null reply with text: " + excerpt(line));
        return scalar(RespReplyType::Null);
    case '#':
        if (rest != "t" && rest != "f")
            return malformed(consumed, "boolean reply is neither t nor f: " + excerpt(line));
        return scalar(RespReplyType::Boolean);
    case ',':
        if (rest.empty() || rest.find(' ') != std::string_view::npos)
            return malformed(consumed, "double reply is not a number: " + excerpt(line));
        return scalar(RespReplyType::Double);
    case '(':
        if (!isBigNumber(rest))
            return malformed(consumed, "big number reply is not a number: " + excerpt(line));
        return scalar(RespReplyType::BigNumber);
    case '$':
    case '=':
    case '!': {
        if (rest == "?")
            return malformed(consumed, "streamed strings are not supported");
        if (!parseInteger(rest, number) || number < -1 || number > kMaxBulkBytes ||
            (number == -1 && type != '$'))
            return malformed(consumed, "bulk length is not one: " + excerpt(line));
        if (number == -1)
            return scalar(RespReplyType::NullBulk);
        if (outermost) {
            m_type = type == '!' ? RespReplyType::Error : RespReplyType::Bulk;
            m_typeKnown = true;
            if (type == '!')
                m_error.clear();
        }
        m_blobError = type == '!' && outermost;
        m_payloadRemaining = uint64_t(number);
        m_state = number > 0 ? State::Payload : State::PayloadCr;
        return {FeedResult::Status::NeedMore, consumed, {}};
    }
    case '*':
    case '%':
    case '~':
    case '|':
    case '>': {
        if (rest == "?")
            return malformed(consumed, "streamed aggregates are not supported");
        if (!parseInteger(rest, number))
            return malformed(consumed, "aggregate count is not a number: " + excerpt(line));
        FeedResult failure;
        const size_t depthBefore = m_depth;
        if (!openAggregate(type, number, consumed, failure))
            return failure;
        if (outermost) {
            m_type = number < 0 ? RespReplyType::NullArray : RespReplyType::Array;
            m_typeKnown = true;
        }
        if (m_depth > depthBefore || type == '|' || type == '>')
            return {FeedResult::Status::NeedMore, consumed, {}}; // elements follow, or nothing
        // Empty or null: the aggregate is a whole value.
        if (valueEnded()) {
            m_state = State::Idle;
            complete = true;
            return completed(consumed);
        }
        return {FeedResult::Status::NeedMore, consumed, {}};
    }
    default:
        return malformed(consumed, "unexpected reply line " + excerpt(line));
    }
}

FeedResult RespReplyParser::finishAtEof() {
    if (m_state == State::Idle)
        return {};
    if (m_replyBytes == 0)
        return malformed(0, "connection closed before the reply");
    return malformed(0, "connection closed in the middle of a reply (" +
                            std::to_string(m_replyBytes) + " bytes received)");
}

} // namespace loadscope::engine
