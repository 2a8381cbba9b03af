#include "app/session/session_file_split.h"

#include "app/common/base64.h"

#include <algorithm>
#include <cstring>

namespace loadscope::app {

namespace {

// Deeper than this, a result read alone could parse where the whole file
// would not (Qt refuses nesting past 1024 levels): such a file is read whole.
constexpr int kMaxResultDepth = 1000;

class Scanner {
public:
    explicit Scanner(QByteArrayView bytes)
        : m_begin(bytes.data())
        , m_end(bytes.data() + bytes.size())
        , m_at(bytes.data()) {}

    qsizetype offset() const { return m_at - m_begin; }
    bool atEnd() const { return m_at >= m_end; }
    char peek() const { return atEnd() ? '\0' : *m_at; }
    void advance() { ++m_at; }

    // The whitespace of RFC 8259, as Qt's parser skips it.
    void skipSpace() {
        while (m_at < m_end && (*m_at == ' ' || *m_at == '\t' || *m_at == '\n' || *m_at == '\r'))
            ++m_at;
    }
    bool eat(char c) {
        if (peek() != c)
            return false;
        ++m_at;
        return true;
    }
    void skipBom() {
        if (m_end - m_at >= 3 && std::memcmp(m_at, "\xEF\xBB\xBF", 3) == 0)
            m_at += 3;
    }

    // From an opening quote to past the closing one; `escaped` tells whether
    // the string held a backslash. False when the bytes end first.
    bool skipString(bool* escaped) {
        *escaped = false;
        ++m_at;
        for (;;) {
            // Base64 histograms are most of a file's bytes: memchr() crosses them fast.
            const auto* quote =
                static_cast<const char*>(std::memchr(m_at, '"', size_t(m_end - m_at)));
            if (!quote)
                return false;
            const auto* backslash =
                static_cast<const char*>(std::memchr(m_at, '\\', size_t(quote - m_at)));
            if (!backslash) {
                m_at = quote + 1;
                return true;
            }
            *escaped = true;
            m_at = backslash + 2; // the escaped character, whatever it is
            if (m_at > m_end)
                return false;
        }
    }

    // An object or array from its opening bracket to past its closing one.
    // Brackets are only counted, not matched: a mismatch fails Qt's parse of
    // the piece later.
    bool skipContainer() {
        int depth = 0;
        bool escaped = false;
        while (m_at < m_end) {
            switch (*m_at) {
            case '"':
                if (!skipString(&escaped))
                    return false;
                continue;
            case '{':
            case '[':
                if (++depth > kMaxResultDepth)
                    return false;
                break;
            case '}':
            case ']':
                if (--depth == 0) {
                    ++m_at;
                    return true;
                }
                break;
            default:
                break;
            }
            ++m_at;
        }
        return false;
    }

    // Any value: a string, a container, or a scalar up to what ends it.
    bool skipValue() {
        bool escaped = false;
        switch (peek()) {
        case '"':
            return skipString(&escaped);
        case '{':
        case '[':
            return skipContainer();
        default:
            while (m_at < m_end && !std::strchr(",}] \t\n\r", *m_at))
                ++m_at;
            return true;
        }
    }

    QByteArrayView since(const char* start) const { return {start, m_at - start}; }
    const char* position() const { return m_at; }

private:
    const char* m_begin;
    const char* m_end;
    const char* m_at;
};

} // namespace

std::optional<SessionFileSplit> splitSessionFile(QByteArrayView bytes) {
    Scanner scan(bytes);
    scan.skipBom();
    scan.skipSpace();
    if (!scan.eat('{'))
        return std::nullopt;
    SessionFileSplit split;
    qsizetype arrayOpen = -1;  // just past the results' '['
    qsizetype arrayClose = -1; // at their ']'
    scan.skipSpace();
    if (scan.peek() == '}')
        return std::nullopt;
    for (;;) {
        if (scan.peek() != '"')
            return std::nullopt;
        const char* keyStart = scan.position();
        bool escaped = false;
        if (!scan.skipString(&escaped) || escaped)
            return std::nullopt;
        const bool isResults = scan.since(keyStart) == QByteArrayView("\"results\"");
        scan.skipSpace();
        if (!scan.eat(':'))
            return std::nullopt;
        scan.skipSpace();
        if (isResults) {
            if (arrayOpen >= 0 || !scan.eat('['))
                return std::nullopt;
            arrayOpen = scan.offset();
            scan.skipSpace();
            while (scan.peek() != ']') {
                if (scan.peek() != '{')
                    return std::nullopt;
                const char* start = scan.position();
                if (!scan.skipContainer())
                    return std::nullopt;
                split.results.push_back(scan.since(start));
                scan.skipSpace();
                if (scan.eat(',')) {
                    scan.skipSpace();
                    if (scan.peek() == ']')
                        return std::nullopt; // a trailing comma: Qt's error to report
                } else if (scan.peek() != ']') {
                    return std::nullopt;
                }
            }
            arrayClose = scan.offset();
            scan.advance();
        } else if (!scan.skipValue()) {
            return std::nullopt;
        }
        scan.skipSpace();
        if (scan.eat(',')) {
            scan.skipSpace();
            continue;
        }
        if (scan.peek() == '}')
            break;
        return std::nullopt;
    }
    if (split.results.empty())
        return std::nullopt; // nothing to gain
    split.rest.reserve(bytes.size() - (arrayClose - arrayOpen));
    split.rest.append(bytes.first(arrayOpen));
    split.rest.append(bytes.sliced(arrayClose));
    return split;
}

namespace {

// Where the scan of one result is: each open object or array, and in an
// object the key whose value is being read.
struct Frame {
    bool object = false;
    bool expectingKey = false;
    QByteArrayView key;
};

bool isGroup(QByteArrayView key) {
    return key == QByteArrayView("latency") || key == QByteArrayView("operations");
}

// A string read at `frames` is a "histogram" value of a distribution.
bool isHistogramValue(const std::vector<Frame>& frames) {
    return frames.size() == 3 && frames[0].object && isGroup(frames[0].key) && frames[1].object &&
           frames[2].object && !frames[2].expectingKey &&
           frames[2].key == QByteArrayView("histogram");
}

// False when `key` is among `seen`; otherwise adds it.
bool firstTime(std::vector<QByteArrayView>& seen, QByteArrayView key) {
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
        return false;
    seen.push_back(key);
    return true;
}

} // namespace

std::optional<ResultWithoutHistograms> cutHistograms(QByteArrayView result) {
    const char* const end = result.data() + result.size();
    if (std::memchr(result.data(), '\\', size_t(result.size())))
        return std::nullopt;
    ResultWithoutHistograms cut;
    std::vector<QByteArrayView> removed;
    std::vector<Frame> frames;
    frames.reserve(8);
    std::vector<QByteArrayView> groupsSeen;
    std::vector<QByteArrayView> distributionsSeen; // in the group being read
    int histogramKeys = 0;                         // in the distribution being read
    for (const char* at = result.data(); at < end; ++at) {
        switch (*at) {
        case '{':
        case '[':
            frames.push_back({*at == '{', *at == '{', {}});
            if (frames.size() == 2)
                distributionsSeen.clear();
            else if (frames.size() == 3)
                histogramKeys = 0;
            break;
        case '}':
        case ']':
            if (frames.empty())
                return std::nullopt; // not one value: Qt's to refuse
            frames.pop_back();
            break;
        case ',':
            if (!frames.empty() && frames.back().object)
                frames.back().expectingKey = true;
            break;
        case '"': {
            const auto* close =
                static_cast<const char*>(std::memchr(at + 1, '"', size_t(end - at - 1)));
            if (!close)
                return std::nullopt;
            const QByteArrayView text(at + 1, close - at - 1);
            at = close;
            if (!frames.empty() && frames.back().expectingKey) {
                frames.back().key = text;
                frames.back().expectingKey = false;
                const size_t depth = frames.size();
                if (depth == 1)
                    cut.keys.push_back(text);
                if (depth == 1 && isGroup(text) && !firstTime(groupsSeen, text))
                    return std::nullopt;
                if (depth == 2 && isGroup(frames[0].key) && !firstTime(distributionsSeen, text))
                    return std::nullopt;
                if (depth == 3 && isGroup(frames[0].key) && frames[1].object &&
                    text == QByteArrayView("histogram") && ++histogramKeys > 1)
                    return std::nullopt;
            } else if (isHistogramValue(frames)) {
                if (std::optional<QByteArray> bytes = decodeCanonicalBase64(text)) {
                    cut.histograms.push_back({frames[0].key == QByteArrayView("operations"),
                                              QString::fromUtf8(frames[1].key), std::move(*bytes)});
                    removed.push_back(text);
                }
            }
            break;
        }
        default:
            break;
        }
    }
    if (removed.empty())
        return std::nullopt; // nothing to gain
    qsizetype removedBytes = 0;
    for (QByteArrayView text : removed)
        removedBytes += text.size();
    cut.json.reserve(result.size() - removedBytes);
    const char* from = result.data();
    for (QByteArrayView text : removed) {
        cut.json.append(QByteArrayView(from, text.data()));
        from = text.data() + text.size();
    }
    cut.json.append(QByteArrayView(from, end));
    return cut;
}

} // namespace loadscope::app
