#include "engine/redis_protocol.h"

#include "engine/available_memory.h"
#include "engine/memcache_reply_parser.h"
#include "engine/operation_queue.h"
#include "engine/resp_reply_parser.h"

#include <algorithm>
#include <charconv>
#include <utility>

namespace loadscope::engine {

namespace {

using namespace std::string_view_literals;

constexpr std::string_view kKeyPlaceholder = "__key__"sv;
constexpr std::string_view kDataPlaceholder = "__data__"sv;

// Streams of deriveSeed(): the set and get keys as MemcacheProtocol's, then
// one per arbitrary command.
constexpr uint64_t kSetKeyStream = 1;
constexpr uint64_t kGetKeyStream = 2;
constexpr uint64_t kFirstCommandStream = 16;

// Operation indexes can only go this high (ResponseInfo::operation).
constexpr size_t kMaxOperations = 255;

// A bulk string's header, "$<length>\r\n".
std::string bulkHeader(size_t length) {
    return '$' + std::to_string(length) + "\r\n";
}

std::string bulkString(std::string_view text) {
    return bulkHeader(text.size()) + std::string(text) + "\r\n";
}

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// The words of `text` with memtier's (redis-cli's) quoting; nullopt when a
// quote is not closed or a closing quote does not end its word.
std::optional<std::vector<std::string>> splitWords(std::string_view text) {
    std::vector<std::string> words;
    size_t i = 0;
    while (true) {
        while (i < text.size() && isBlank(text[i]))
            ++i;
        if (i == text.size())
            return words;
        std::string word;
        bool inDouble = false;
        bool inSingle = false;
        while (true) {
            if (inDouble) {
                if (i == text.size())
                    return std::nullopt;
                if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] == 'x' &&
                    hexValue(text[i + 2]) >= 0 && hexValue(text[i + 3]) >= 0) {
                    word.push_back(
                        static_cast<char>(hexValue(text[i + 2]) * 16 + hexValue(text[i + 3])));
                    i += 4;
                } else if (text[i] == '\\' && i + 1 < text.size()) {
                    const char escaped = text[i + 1];
                    switch (escaped) {
                    case 'n':
                        word.push_back('\n');
                        break;
                    case 'r':
                        word.push_back('\r');
                        break;
                    case 't':
                        word.push_back('\t');
                        break;
                    case 'b':
                        word.push_back('\b');
                        break;
                    case 'a':
                        word.push_back('\a');
                        break;
                    default:
                        word.push_back(escaped);
                        break;
                    }
                    i += 2;
                } else if (text[i] == '"') {
                    ++i;
                    if (i < text.size() && !isBlank(text[i]))
                        return std::nullopt; // the closing quote must end the word
                    break;
                } else {
                    word.push_back(text[i++]);
                }
            } else if (inSingle) {
                if (i == text.size())
                    return std::nullopt;
                if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\'') {
                    word.push_back('\'');
                    i += 2;
                } else if (text[i] == '\'') {
                    ++i;
                    if (i < text.size() && !isBlank(text[i]))
                        return std::nullopt;
                    break;
                } else {
                    word.push_back(text[i++]);
                }
            } else {
                if (i == text.size() || isBlank(text[i]))
                    break;
                if (text[i] == '"')
                    inDouble = true;
                else if (text[i] == '\'')
                    inSingle = true;
                else
                    word.push_back(text[i]);
                ++i;
            }
        }
        words.push_back(std::move(word));
    }
}

} // namespace

std::string RedisCommandSpec::name() const {
    std::string name = arguments.empty() ? std::string() : arguments.front().text;
    std::transform(name.begin(), name.end(), name.begin(), [](char c) {
        return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    });
    return name;
}

std::optional<std::string> parseRedisCommand(std::string_view text,
                                             std::vector<RedisCommandArgument>& arguments) {
    const auto words = splitWords(text);
    if (!words)
        return "unbalanced quotes in the command";
    if (words->empty())
        return "the command is empty";
    std::vector<RedisCommandArgument> parsed;
    for (const std::string& word : *words) {
        RedisCommandArgument argument;
        const size_t key = word.find(kKeyPlaceholder);
        if (key != std::string::npos) {
            argument.kind = RedisCommandArgument::Kind::Key;
            argument.text = word.substr(0, key);
            argument.suffix = word.substr(key + kKeyPlaceholder.size());
        } else if (word.find(kDataPlaceholder) != std::string::npos) {
            if (word != kDataPlaceholder)
                return "__data__ must be a whole word of the command";
            argument.kind = RedisCommandArgument::Kind::Data;
        } else {
            argument.text = word;
        }
        parsed.push_back(std::move(argument));
    }
    if (parsed.front().kind != RedisCommandArgument::Kind::Text || parsed.front().text.empty())
        return "the command's first word must be its name";
    arguments = std::move(parsed);
    return std::nullopt;
}

std::optional<std::string> validateRedisSpec(const RedisSpec& spec) {
    const MemcacheSpec& w = spec.workload;
    if (spec.commands.empty() && w.setRatio == 0 && w.getRatio == 0)
        return "the set:get ratio must have at least one non-zero side";
    if (auto error = validateKeyPatternSpec(w.keyPatternSpec(w.setKeyPattern)))
        return error;
    if (w.valueSize < 1 || w.valueSize > MemcacheReplyParser::kMaxValueBytes)
        return "the value size must be 1 to " +
               std::to_string(MemcacheReplyParser::kMaxValueBytes) + " bytes";
    for (const RedisCommandSpec& command : spec.commands) {
        if (command.arguments.empty() ||
            command.arguments.front().kind != RedisCommandArgument::Kind::Text ||
            command.arguments.front().text.empty())
            return "a command has no name";
        if (command.ratio < 1)
            return "the ratio of command " + command.name() + " must be at least 1";
    }
    if (spec.commands.size() > kMaxOperations)
        return "at most " + std::to_string(kMaxOperations) + " commands";
    // The value is built once per run and shared by every connection.
    if (auto problem = requestMemoryProblem(w.valueSize,
                                            "a value of " + std::to_string(w.valueSize) + " bytes"))
        return problem;
    return std::nullopt;
}

// Byte layout of requests, built once and shared by every session.
struct RedisRequestParts {
    // A command's bytes in order: fixed text (the array header and every Text
    // word, already framed), then a key or the value.
    struct Segment {
        RedisCommandArgument::Kind kind = RedisCommandArgument::Kind::Text;
        std::string text;   // Text: bytes to send; Key: before the key
        std::string suffix; // Key: after the key
    };
    struct Command {
        std::vector<Segment> segments;
        uint32_t ratio = 1;
        uint8_t operation = 0;
    };

    explicit RedisRequestParts(const RedisSpec& spec)
        : keys(spec.workload.keyPrefix) {
        const uint32_t size = spec.workload.valueSize;
        std::string data(size, '\0');
        // Printable and recognisable in a packet capture, so that a desync shows.
        for (size_t i = 0; i < size; ++i)
            data[i] = static_cast<char>('a' + i % 26);
        value = bulkString(data);
        if (spec.handshake != RedisHandshake::None) {
            const std::string version = spec.handshake == RedisHandshake::Resp3 ? "3" : "2";
            hello = std::string("*2\r\n") + bulkString("HELLO") + bulkString(version);
            helloName = "HELLO " + version;
        }
        for (const RedisCommandSpec& given : spec.commands) {
            Command command;
            command.ratio = std::max<uint32_t>(given.ratio, 1);
            const std::string name = given.name();
            const auto known = std::find(operationNames.begin(), operationNames.end(), name);
            command.operation = static_cast<uint8_t>(known - operationNames.begin());
            if (known == operationNames.end())
                operationNames.push_back(name);
            std::string fixed = '*' + std::to_string(given.arguments.size()) + "\r\n";
            for (const RedisCommandArgument& argument : given.arguments) {
                if (argument.kind == RedisCommandArgument::Kind::Text) {
                    fixed += bulkString(argument.text);
                    continue;
                }
                command.segments.push_back({RedisCommandArgument::Kind::Text, fixed, {}});
                fixed.clear();
                command.segments.push_back({argument.kind, argument.text, argument.suffix});
            }
            if (!fixed.empty())
                command.segments.push_back({RedisCommandArgument::Kind::Text, fixed, {}});
            commands.push_back(std::move(command));
        }
        if (commands.empty())
            operationNames = {"set", "get"};
    }

    // "$<length>\r\n<before><prefix><number><after>\r\n", in one append when it fits.
    template <typename Out>
    void appendKey(Out& out, uint64_t key, std::string_view before = {},
                   std::string_view after = {}) const {
        char digits[KeyFormatter::kMaxDigits];
        const auto digitsEnd = std::to_chars(digits, digits + sizeof digits, key).ptr;
        const std::string_view number(digits, static_cast<size_t>(digitsEnd - digits));
        const std::string_view prefix = keys.prefix();
        const size_t length = before.size() + prefix.size() + number.size() + after.size();
        char buffer[512];
        char* at = buffer;
        *at++ = '$';
        at = std::to_chars(at, buffer + 32, length).ptr;
        *at++ = '\r';
        *at++ = '\n';
        if (size_t(at - buffer) + length + 2 <= sizeof buffer) {
            for (std::string_view part : {before, prefix, number, after}) {
                std::copy(part.begin(), part.end(), at);
                at += part.size();
            }
            *at++ = '\r';
            *at++ = '\n';
            out.append(std::string_view(buffer, static_cast<size_t>(at - buffer)));
            return;
        }
        out.append(std::string_view(buffer, static_cast<size_t>(at - buffer)));
        for (std::string_view part : {before, prefix, number, after})
            out.append(part);
        out.append("\r\n"sv);
    }

    KeyFormatter keys;
    std::string value;     // the value as a bulk string, "$<d>\r\n<d bytes>\r\n"
    std::string hello;     // HELLO 2 or HELLO 3 as sent; empty for plain RESP2
    std::string helloName; // "HELLO 3", for the report
    std::vector<Command> commands;
    std::vector<std::string> operationNames;

    static constexpr std::string_view kSetHead = "*3\r\n$3\r\nSET\r\n"sv;
    static constexpr std::string_view kGetHead = "*2\r\n$3\r\nGET\r\n"sv;
};

namespace {

constexpr uint8_t kSetOperation = 0;
constexpr uint8_t kGetOperation = 1;

// Parsing, the request FIFO and the HELLO that opens each connection, common to
// the measured workload and the preload.
class RedisSessionBase : public ProtocolSession {
public:
    RedisSessionBase(std::shared_ptr<const RedisRequestParts> parts, bool countsHits)
        : m_parts(std::move(parts))
        , m_countsHits(countsHits) {}

    FeedResult feed(std::string_view data) override {
        size_t before = 0; // bytes of this feed that HELLO's reply took
        while (true) {
            FeedResult r = m_parser.feed(data);
            if (m_awaitingHello) {
                if (r.status != FeedResult::Status::Complete) {
                    r.consumed += before;
                    return r;
                }
                if (r.info.errorReply) {
                    m_sessionError = "the server refused " + m_parts->helloName + ": " +
                                     std::string(m_parser.error());
                    return {FeedResult::Status::Malformed, before + r.consumed, {}};
                }
                m_awaitingHello = false;
                before += r.consumed;
                data.remove_prefix(r.consumed);
                if (!m_outstanding.empty())
                    m_parser.begin();
                if (data.empty())
                    return {FeedResult::Status::NeedMore, before, {}};
                continue;
            }
            r.consumed += before;
            if (r.status != FeedResult::Status::Complete)
                return r;
            const uint8_t operation = m_outstanding.front();
            r.info.operation = operation;
            if (m_countsHits && operation == kGetOperation && !r.info.errorReply)
                r.info.hit = m_parser.type() == RespReplyType::Bulk ? 1 : 0;
            m_outstanding.pop();
            if (!m_outstanding.empty())
                m_parser.begin();
            return r;
        }
    }

    FeedResult finishAtEof() override { return m_parser.finishAtEof(); }

    void resetConnection() override {
        m_outstanding.clear();
        m_parser.reset();
        m_helloSent = false;
        m_awaitingHello = false;
        m_sessionError.clear();
    }

    std::string_view lastError() const override {
        return m_sessionError.empty() ? m_parser.error() : std::string_view(m_sessionError);
    }
    std::string_view errorReplyCode() const override { return m_parser.errorCode(); }

protected:
    // The first request on a connection opens it with HELLO, when asked.
    void startRequest(RequestQueue& out) {
        if (m_helloSent || m_parts->hello.empty())
            return;
        m_helloSent = true;
        m_awaitingHello = true;
        out.append(m_parts->hello);
        if (!m_parser.inProgress())
            m_parser.begin();
    }

    void appendSet(RequestQueue& out, uint64_t key) {
        startRequest(out);
        out.append(RedisRequestParts::kSetHead);
        m_parts->appendKey(out, key);
        out.appendShared(m_parts->value);
        enqueue(kSetOperation);
    }

    void appendGet(RequestQueue& out, uint64_t key) {
        startRequest(out);
        out.append(RedisRequestParts::kGetHead);
        m_parts->appendKey(out, key);
        enqueue(kGetOperation);
    }

    void enqueue(uint8_t operation) {
        m_outstanding.push(operation);
        if (!m_parser.inProgress())
            m_parser.begin();
    }

    const RedisRequestParts& parts() const { return *m_parts; }

private:
    std::shared_ptr<const RedisRequestParts> m_parts;
    const bool m_countsHits;
    RespReplyParser m_parser;
    OperationQueue m_outstanding;
    bool m_helloSent = false;
    bool m_awaitingHello = false;
    std::string m_sessionError;
};

uint64_t startOffset(const MemcacheSpec& spec, uint32_t connectionIndex) {
    return sequentialStartOffset(connectionIndex, spec.connections,
                                 spec.keyMaximum - spec.keyMinimum + 1);
}

class RedisSession final : public RedisSessionBase {
public:
    RedisSession(const RedisSpec& spec, std::shared_ptr<const RedisRequestParts> parts,
                 uint32_t connectionIndex, uint64_t seed)
        : RedisSessionBase(std::move(parts), spec.commands.empty())
        , m_setRatio(spec.workload.setRatio)
        , m_cycleLength(uint64_t(spec.workload.setRatio) + spec.workload.getRatio) {
        const MemcacheSpec& w = spec.workload;
        const uint64_t offset = startOffset(w, connectionIndex);
        if (spec.commands.empty()) {
            m_keys.emplace_back(w.keyPatternSpec(w.setKeyPattern),
                                deriveSeed(seed, connectionIndex, kSetKeyStream), offset);
            m_keys.emplace_back(w.keyPatternSpec(w.getKeyPattern),
                                deriveSeed(seed, connectionIndex, kGetKeyStream), offset);
            return;
        }
        for (size_t i = 0; i < spec.commands.size(); ++i)
            m_keys.emplace_back(w.keyPatternSpec(spec.commands[i].keyPattern),
                                deriveSeed(seed, connectionIndex, kFirstCommandStream + i), offset);
    }

    void queueRequest(RequestQueue& out) override {
        if (parts().commands.empty()) {
            // As MemcacheSession: exactly `sets` per cycle, spread evenly, set first.
            const bool isSet = m_accumulator < m_setRatio;
            m_accumulator += m_setRatio;
            if (m_accumulator >= m_cycleLength)
                m_accumulator -= m_cycleLength;
            if (isSet)
                appendSet(out, m_keys[0].next());
            else
                appendGet(out, m_keys[1].next());
            return;
        }
        const auto& command = parts().commands[m_command];
        KeyGenerator& keys = m_keys[m_command];
        if (++m_repeat >= command.ratio) {
            m_repeat = 0;
            m_command = (m_command + 1) % parts().commands.size();
        }
        startRequest(out);
        for (const auto& segment : command.segments) {
            switch (segment.kind) {
            case RedisCommandArgument::Kind::Text:
                out.append(segment.text);
                break;
            case RedisCommandArgument::Kind::Key:
                parts().appendKey(out, keys.next(), segment.text, segment.suffix);
                break;
            case RedisCommandArgument::Kind::Data:
                out.appendShared(parts().value);
                break;
            }
        }
        enqueue(command.operation);
    }

private:
    uint64_t m_setRatio;
    uint64_t m_cycleLength;
    uint64_t m_accumulator = 0;
    size_t m_command = 0;
    uint32_t m_repeat = 0;
    std::vector<KeyGenerator> m_keys;
};

class RedisPreloadSession final : public RedisSessionBase {
public:
    RedisPreloadSession(const MemcacheSpec& spec, std::shared_ptr<const RedisRequestParts> parts,
                        std::shared_ptr<std::atomic<uint64_t>> cursor, uint64_t keyCount)
        : RedisSessionBase(std::move(parts), false)
        , m_minimum(spec.keyMinimum)
        , m_keyCount(std::max<uint64_t>(keyCount, 1))
        , m_cursor(std::move(cursor)) {}

    void queueRequest(RequestQueue& out) override {
        const uint64_t next = m_cursor->fetch_add(1, std::memory_order_relaxed);
        appendSet(out, m_minimum + next % m_keyCount);
    }

private:
    uint64_t m_minimum;
    uint64_t m_keyCount;
    std::shared_ptr<std::atomic<uint64_t>> m_cursor;
};

// The preload sets keys whatever commands the measured run sends.
RedisSpec withoutCommands(RedisSpec spec) {
    spec.commands.clear();
    return spec;
}

} // namespace

RedisProtocol::RedisProtocol(RedisSpec spec)
    : m_spec(std::move(spec))
    , m_parts(std::make_shared<const RedisRequestParts>(m_spec)) {}

RedisProtocol::~RedisProtocol() = default;

std::unique_ptr<ProtocolSession> RedisProtocol::newSession(uint32_t connectionIndex,
                                                           uint64_t seed) const {
    return std::make_unique<RedisSession>(m_spec, m_parts, connectionIndex, seed);
}

std::vector<std::string> RedisProtocol::operationNames() const {
    return m_parts->operationNames;
}

RedisPreloadProtocol::RedisPreloadProtocol(RedisSpec spec)
    : m_spec(withoutCommands(std::move(spec)))
    , m_parts(std::make_shared<const RedisRequestParts>(m_spec))
    , m_cursor(std::make_shared<std::atomic<uint64_t>>(0)) {}

RedisPreloadProtocol::~RedisPreloadProtocol() = default;

std::unique_ptr<ProtocolSession> RedisPreloadProtocol::newSession(uint32_t, uint64_t) const {
    return std::make_unique<RedisPreloadSession>(m_spec.workload, m_parts, m_cursor, keyCount());
}

uint64_t RedisPreloadProtocol::keyCount() const {
    const uint64_t span = m_spec.workload.keyMaximum - m_spec.workload.keyMinimum;
    return span == UINT64_MAX ? UINT64_MAX : span + 1;
}

} // namespace loadscope::engine
