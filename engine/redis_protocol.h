#pragma once

#include "engine/key_pattern.h"
#include "engine/memcache_protocol.h"
#include "engine/protocol.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loadscope::engine {

// memtier_benchmark's -P for Redis: "redis" speaks RESP2 without a word about
// it (any Redis answers); "resp2" and "resp3" open every connection with
// HELLO 2 or HELLO 3, so the server speaks that version from then on.
enum class RedisHandshake : uint8_t { None, Resp2, Resp3 };

// One word of an arbitrary command (memtier's --command): text sent as it is,
// a key of the workload's range (memtier's __key__, with any text around it),
// or the workload's value (__data__, a whole word).
struct RedisCommandArgument {
    enum class Kind : uint8_t { Text, Key, Data };
    Kind kind = Kind::Text;
    std::string text;   // Text: the word; Key: what comes before __key__
    std::string suffix; // Key: what comes after __key__

    friend bool operator==(const RedisCommandArgument&, const RedisCommandArgument&) = default;
};

// One --command with its --command-ratio and --command-key-pattern.
struct RedisCommandSpec {
    std::vector<RedisCommandArgument> arguments; // the first is the command's name, as text
    uint32_t ratio = 1;                          // sent this many times in a row
    KeyPattern keyPattern = KeyPattern::Random;  // of its __key__ words

    // The command's name in lower case ("hset"): the operation its replies count under.
    std::string name() const;
};

// Splits a command as memtier (and redis-cli) do: words separated by blanks,
// "double quotes" with \n \r \t \b \a \\ \" and \xHH escapes, 'single quotes'
// with \' only; a closing quote must end its word. Each word holding __key__
// is a Key, a word that is exactly __data__ is Data. One line saying what is
// wrong: unbalanced quotes, no words, __data__ inside a longer word, a command
// name that is a placeholder.
std::optional<std::string> parseRedisCommand(std::string_view text,
                                             std::vector<RedisCommandArgument>& arguments);

// A memtier_benchmark-style Redis workload: SET and GET by the memcache
// workload's ratio, key patterns, key range, prefix and value size, or the
// arbitrary commands when any are given.
struct RedisSpec {
    MemcacheSpec workload; // flags and expiry are memcached's: unused here
    RedisHandshake handshake = RedisHandshake::None;
    std::vector<RedisCommandSpec> commands;
};

// One line describing what is wrong with `spec`, or nullopt.
std::optional<std::string> validateRedisSpec(const RedisSpec& spec);

struct RedisRequestParts;

// The measured workload. Without commands each connection interleaves SET and
// GET as MemcacheProtocol does (operations "set" and "get"; a GET answered by a
// string is a hit, by a null a miss). With commands it sends each command
// `ratio` times in a row, then the next, cycling from the first, as memtier
// does; their replies count under each command's name (commands of one name
// share it), with no hits or misses. Keys come from one generator per
// command kind, seeded from (seed, connection). An error reply is a counted
// error reply whose class is its first word (RespReplyParser::errorCode()).
class RedisProtocol final : public Protocol {
public:
    explicit RedisProtocol(RedisSpec spec);
    ~RedisProtocol() override;

    std::unique_ptr<ProtocolSession> newSession(uint32_t connectionIndex,
                                                uint64_t seed) const override;
    std::vector<std::string> operationNames() const override;

    const RedisSpec& spec() const { return m_spec; }

private:
    RedisSpec m_spec;
    std::shared_ptr<const RedisRequestParts> m_parts;
};

// The unmeasured preload: a run of keyCount() requests SETs every key of the
// range exactly once, as MemcachePreloadProtocol does for memcached.
class RedisPreloadProtocol final : public Protocol {
public:
    explicit RedisPreloadProtocol(RedisSpec spec);
    ~RedisPreloadProtocol() override;

    std::unique_ptr<ProtocolSession> newSession(uint32_t connectionIndex,
                                                uint64_t seed) const override;
    std::vector<std::string> operationNames() const override { return {"set"}; }

    uint64_t keyCount() const;

private:
    RedisSpec m_spec;
    std::shared_ptr<const RedisRequestParts> m_parts;
    std::shared_ptr<std::atomic<uint64_t>> m_cursor;
};

} // namespace loadscope::engine
