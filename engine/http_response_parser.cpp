// HttpResponseParser's driver: lines and body bytes as they arrive, the
// chunked body and its trailers, the end of a response. The head (status
// line, header fields, how the body is framed) is http_response_head.cpp.
#include "engine/http_response_parser.h"

#include "engine/http_field_text.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace loadscope::engine {

using detail::fieldNameEnd;
using detail::isOws;

namespace {

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

constexpr std::string_view kHttpPrefix = "HTTP/";

} // namespace

void HttpResponseParser::begin(bool bodiless) {
    m_state = State::StatusLine;
    m_bodiless = bodiless;
    m_status = 0;
    m_keepAlive = true;
    m_http10 = false;
    forgetHeaderFields();
    m_remaining = 0;
    m_headerBytes = 0;
    m_blockBytes = 0;
    m_bodyBytes = 0;
    m_bytesThisResponse = 0;
    releaseLine();
    m_error.clear();
}

FeedResult HttpResponseParser::feed(std::string_view data) {
    if (m_state == State::Failed)
        return result(Step::Failed, 0);
    if (m_state == State::Idle || m_state == State::Done)
        begin(m_bodiless);

    size_t pos = 0;
    size_t skipped = 0; // blank lines before a status line: not part of any response
    Step step = Step::Continue;
    while (step == Step::Continue && pos < data.size()) {
        // A chunked body counts as it came, framing included: ab 2.3 does not
        // decode chunked and counts every byte after the header block.
        const bool chunkFraming = m_state == State::ChunkSize || m_state == State::Trailers ||
                                  m_state == State::ChunkDataCR || m_state == State::ChunkDataLF;
        const size_t from = pos;
        switch (m_state) {
        case State::StatusLine:
            if (m_line.empty() && (data[pos] == '\r' || data[pos] == '\n')) {
                ++pos;
                ++skipped;
                break;
            }
            [[fallthrough]];
        case State::Headers:
        case State::ChunkSize:
        case State::Trailers: {
            if ((m_state == State::Headers || m_state == State::StatusLine) && m_line.empty()) {
                bool handOver = false;
                step = takeWholeHeaderLines(data, pos, handOver);
                if (!handOver)
                    break;
                // Left: a partial line, or one past the size limit; takeLine
                // buffers the one and reports the other.
            }
            std::string_view line;
            const LineStatus status = takeLine(data, pos, line);
            if (status == LineStatus::Failed) {
                step = Step::Failed;
            } else if (status == LineStatus::Complete) {
                step = processLine(line);
                releaseLine(); // `line` may point into m_line
            }
            break;
        }
        case State::Body:
        case State::ChunkData: {
            const uint64_t n = std::min<uint64_t>(m_remaining, data.size() - pos);
            m_bodyBytes += n;
            m_remaining -= n;
            pos += n;
            if (m_remaining == 0) {
                if (m_state == State::Body)
                    step = complete();
                else
                    m_state = State::ChunkDataCR;
            }
            break;
        }
        case State::ChunkDataCR:
        case State::ChunkDataLF: {
            const char c = data[pos++];
            if (c == '\r' && m_state == State::ChunkDataCR) {
                m_state = State::ChunkDataLF;
            } else if (c == '\n') {
                m_state = State::ChunkSize;
                m_blockBytes = 0;
            } else {
                step = fail("missing CRLF after chunk data");
            }
            break;
        }
        case State::UntilClose:
            m_bodyBytes += data.size() - pos;
            pos = data.size();
            break;
        case State::Idle:
        case State::Done:
        case State::Failed:
            // Unreachable: feed() begins a response first and the loop stops on
            // completion or failure.
            step = fail("internal parser state");
            break;
        }
        if (chunkFraming)
            m_bodyBytes += pos - from;
    }
    m_bytesThisResponse += pos - skipped;
    return result(step, pos);
}

uint64_t HttpResponseParser::skippableBytes() const {
    switch (m_state) {
    case State::Body:
    case State::ChunkData:
        return m_remaining;
    case State::UntilClose:
        return std::numeric_limits<uint64_t>::max();
    default:
        return 0;
    }
}

FeedResult HttpResponseParser::skip(uint64_t n) {
    Step step = Step::Continue;
    n = std::min(n, skippableBytes());
    m_bodyBytes += n;
    m_bytesThisResponse += n;
    if (m_state != State::UntilClose) {
        m_remaining -= n;
        if (m_remaining == 0) {
            if (m_state == State::Body)
                step = complete();
            else
                m_state = State::ChunkDataCR;
        }
    }
    return result(step, size_t(n));
}

FeedResult HttpResponseParser::finishAtEof() {
    Step step = Step::Failed;
    switch (m_state) {
    case State::Idle:
    case State::Done:
        return result(Step::Continue, 0);
    case State::Failed:
        return result(Step::Failed, 0);
    case State::StatusLine:
        if (m_bytesThisResponse == 0)
            return result(Step::Continue, 0);
        step = fail(m_line.empty() ? "connection closed before the final response"
                                   : "connection closed in headers");
        break;
    case State::Headers:
        step = fail("connection closed in headers");
        break;
    case State::Body:
        step = fail("connection closed after " + std::to_string(m_bodyBytes) + " of " +
                    std::to_string(m_contentLength) + " body bytes");
        break;
    case State::ChunkSize:
    case State::ChunkData:
    case State::ChunkDataCR:
    case State::ChunkDataLF:
        step = fail("connection closed in chunked body after " + std::to_string(m_bodyBytes) +
                    " body bytes");
        break;
    case State::Trailers:
        step = fail("connection closed in trailers");
        break;
    case State::UntilClose:
        m_keepAlive = false;
        step = complete();
        break;
    }
    return result(step, 0);
}

HttpResponseParser::LineStatus HttpResponseParser::takeLine(std::string_view data, size_t& pos,
                                                            std::string_view& line) {
    const std::string_view rest = data.substr(pos);
    const size_t newline = rest.find('\n');
    const std::string_view piece = rest.substr(0, newline);
    const bool whole = newline != std::string_view::npos;

    // Garbage instead of a status line fails at once rather than after 64 KiB.
    // Checked before the size limit, and on partial lines as on whole ones, so
    // that the verdict never depends on where the input was split.
    if (m_state == State::StatusLine) {
        const size_t have = std::min(kHttpPrefix.size(), m_line.size() + piece.size());
        for (size_t i = 0; i < have; ++i) {
            const char c = i < m_line.size() ? m_line[i] : piece[i - m_line.size()];
            if (c != kHttpPrefix[i]) {
                fail("malformed status line");
                return LineStatus::Failed;
            }
        }
    }
    const uint64_t lineBytes = m_line.size() + piece.size() + (whole ? 1 : 0);
    if (m_blockBytes + lineBytes > kMaxHeaderBytes) {
        switch (m_state) {
        case State::ChunkSize:
            fail("chunk size line over 64 KiB");
            break;
        case State::Trailers:
            fail("trailers over 64 KiB");
            break;
        default:
            fail("headers over 64 KiB");
            break;
        }
        return LineStatus::Failed;
    }
    if (!whole) {
        m_line.append(piece);
        pos = data.size();
        return LineStatus::Partial;
    }

    m_blockBytes += lineBytes;
    pos += newline + 1;
    if (m_line.empty()) {
        line = piece; // the common case: no copy
    } else {
        m_line.append(piece);
        line = m_line;
    }
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    return LineStatus::Complete;
}

HttpResponseParser::Step HttpResponseParser::takeWholeHeaderLines(std::string_view data,
                                                                  size_t& pos, bool& handOver) {
    // The common case of a head that arrived in one read: every line is whole
    // and nothing is buffered, so takeLine's partial-line work and the
    // driver's per-state dispatch are skipped line by line. The checks are
    // takeLine's, in the same order, so the verdict does not depend on the path.
    const char* const begin = data.data();
    const size_t size = data.size();
    while (pos < size) {
        const auto* const newline =
            static_cast<const char*>(std::memchr(begin + pos, '\n', size - pos));
        if (newline == nullptr) {
            handOver = true;
            return Step::Continue;
        }
        const size_t end = static_cast<size_t>(newline - begin);
        const uint64_t lineBytes = end + 1 - pos;
        std::string_view line(begin + pos, end - pos);
        if (m_blockBytes + lineBytes > kMaxHeaderBytes) {
            handOver = true; // takeLine fails it with its message
            return Step::Continue;
        }
        m_blockBytes += lineBytes;
        pos = end + 1;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        Step step;
        if (m_state == State::Headers) {
            step = line.empty() ? endOfHeaders() : parseHeaderLine(line);
        } else {
            // A status line that does not start as "HTTP/" does: takeLine
            // fails it without consuming it, so it is given back.
            if (std::string_view(begin + pos - lineBytes, lineBytes - 1).substr(0, 5) !=
                kHttpPrefix.substr(0, lineBytes - 1)) {
                m_blockBytes -= lineBytes;
                pos -= lineBytes;
                handOver = true;
                return Step::Continue;
            }
            step = parseStatusLine(line);
        }
        if (step != Step::Continue || m_state != State::Headers)
            return step;
    }
    return Step::Continue;
}

void HttpResponseParser::releaseLine() {
    // A hostile server can make one connection buffer 64 KiB; do not let every
    // connection keep that much for good.
    if (m_line.capacity() > 4096)
        std::string().swap(m_line);
    else
        m_line.clear();
}

HttpResponseParser::Step HttpResponseParser::processLine(std::string_view line) {
    switch (m_state) {
    case State::StatusLine:
        return parseStatusLine(line);
    case State::Headers:
        return line.empty() ? endOfHeaders() : parseHeaderLine(line);
    case State::ChunkSize:
        return parseChunkSize(line);
    case State::Trailers:
        return line.empty() ? complete() : parseTrailerLine(line);
    default:
        return fail("internal parser state");
    }
}

HttpResponseParser::Step HttpResponseParser::parseChunkSize(std::string_view line) {
    // chunk-size [BWS] [; extensions]
    uint64_t size = 0;
    size_t i = 0;
    for (; i < line.size(); ++i) {
        const int digit = hexValue(line[i]);
        if (digit < 0)
            break;
        if (size > (std::numeric_limits<uint64_t>::max() >> 4))
            return fail("chunk size overflow");
        size = (size << 4) | static_cast<uint64_t>(digit);
    }
    if (i == 0)
        return fail("invalid chunk size");
    while (i < line.size() && isOws(line[i]))
        ++i;
    if (i < line.size() && line[i] != ';')
        return fail("invalid chunk size");

    m_blockBytes = 0;
    if (size == 0) {
        m_state = State::Trailers;
    } else {
        m_remaining = size;
        m_state = State::ChunkData;
    }
    return Step::Continue;
}

HttpResponseParser::Step HttpResponseParser::parseTrailerLine(std::string_view line) {
    if (isOws(line.front()))
        return Step::Continue; // folded continuation of a trailer we ignore anyway
    if (fieldNameEnd(line) == std::string_view::npos)
        return fail("malformed trailer line");
    return Step::Continue;
}

HttpResponseParser::Step HttpResponseParser::complete() {
    m_state = State::Done;
    return Step::Completed;
}

HttpResponseParser::Step HttpResponseParser::fail(std::string_view message) {
    m_error.assign(message);
    m_state = State::Failed;
    return Step::Failed;
}

FeedResult HttpResponseParser::result(Step step, size_t consumed) const {
    FeedResult r;
    r.consumed = consumed;
    switch (step) {
    case Step::Continue:
        r.status = FeedResult::Status::NeedMore;
        break;
    case Step::Completed:
        r.status = FeedResult::Status::Complete;
        r.info.statusCode = m_status;
        r.info.bodyBytes = m_bodyBytes;
        r.info.keepAlive = m_keepAlive;
        break;
    case Step::Failed:
        r.status = FeedResult::Status::Malformed;
        break;
    }
    return r;
}

} // namespace loadscope::engine
