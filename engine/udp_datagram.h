#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

// What Loadscope's UDP datagrams carry, shared by the client (udp_protocol.h,
// the worker) and the embedded UDP echo and sink servers. Every number is
// little-endian whatever the machine.
//
// udp-rr: a request of 8 bytes or more starts with its sequence number on its
// socket (u64); the echo server answers with the request's first bytes (up to
// the answer's size) and filler after them, so an answer of 8 bytes or more
// carries the sequence of the request it answers. Smaller requests or answers
// carry none, and answers are then taken in the order they come.
//
// udp-stream: a message of kStreamHeaderBytes or more starts with the stream
// header: "LSUS", the stream's id (u32) and the message's sequence on that
// stream (u64). The sink counts what arrives per stream id, and answers a
// count query ("LSUQ", the stream id, a nonce, padding) with its count
// ("LSUA", id, nonce, datagrams, bytes, out of order, duplicates). A query is
// as long as its answer, so that the sink never sends more than it is sent.
namespace loadscope::engine::udp {

// The largest UDP payload over IPv4 (65535 - 8 - 20); what netperf caps -m at.
inline constexpr uint32_t kMaxDatagramBytes = 65507;
inline constexpr size_t kSequenceBytes = 8;
inline constexpr size_t kStreamHeaderBytes = 16;
inline constexpr size_t kCountBytes = 48; // a query and its answer

inline void putU32(char* out, uint32_t value) {
    for (int i = 0; i < 4; ++i)
        out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}
inline void putU64(char* out, uint64_t value) {
    for (int i = 0; i < 8; ++i)
        out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}
inline uint32_t getU32(const char* in) {
    uint32_t value = 0;
    for (int i = 3; i >= 0; --i)
        value = (value << 8) | static_cast<unsigned char>(in[i]);
    return value;
}
inline uint64_t getU64(const char* in) {
    uint64_t value = 0;
    for (int i = 7; i >= 0; --i)
        value = (value << 8) | static_cast<unsigned char>(in[i]);
    return value;
}

// The sequence number at the start of a udp-rr request or answer, when it has one.
inline std::optional<uint64_t> readSequence(std::string_view datagram) {
    if (datagram.size() < kSequenceBytes)
        return std::nullopt;
    return getU64(datagram.data());
}

struct StreamHeader {
    uint32_t streamId = 0;
    uint64_t sequence = 0;
};

inline void writeStreamHeader(char* out, const StreamHeader& header) {
    out[0] = 'L';
    out[1] = 'S';
    out[2] = 'U';
    out[3] = 'S';
    putU32(out + 4, header.streamId);
    putU64(out + 8, header.sequence);
}

inline bool hasMagic(std::string_view datagram, char last) {
    return datagram.size() >= 4 && datagram[0] == 'L' && datagram[1] == 'S' && datagram[2] == 'U' &&
           datagram[3] == last;
}

inline std::optional<StreamHeader> readStreamHeader(std::string_view datagram) {
    if (datagram.size() < kStreamHeaderBytes || !hasMagic(datagram, 'S'))
        return std::nullopt;
    return StreamHeader{getU32(datagram.data() + 4), getU64(datagram.data() + 8)};
}

// What a sink counted of one stream.
struct SinkCounts {
    uint64_t datagrams = 0;
    uint64_t bytes = 0;
    uint64_t outOfOrder = 0; // arrived after a message of a higher sequence
    uint64_t duplicates = 0; // a sequence that had arrived already (within the sink's window)
};

struct CountQuery {
    uint32_t streamId = 0;
    uint64_t nonce = 0;
};

// `out` holds kCountBytes.
inline void writeCountQuery(char* out, const CountQuery& query) {
    for (size_t i = 0; i < kCountBytes; ++i)
        out[i] = 0;
    out[0] = 'L';
    out[1] = 'S';
    out[2] = 'U';
    out[3] = 'Q';
    putU32(out + 4, query.streamId);
    putU64(out + 8, query.nonce);
}

inline std::optional<CountQuery> readCountQuery(std::string_view datagram) {
    if (datagram.size() != kCountBytes || !hasMagic(datagram, 'Q'))
        return std::nullopt;
    return CountQuery{getU32(datagram.data() + 4), getU64(datagram.data() + 8)};
}

struct CountAnswer {
    CountQuery query;
    SinkCounts counts;
};

// `out` holds kCountBytes.
inline void writeCountAnswer(char* out, const CountAnswer& answer) {
    out[0] = 'L';
    out[1] = 'S';
    out[2] = 'U';
    out[3] = 'A';
    putU32(out + 4, answer.query.streamId);
    putU64(out + 8, answer.query.nonce);
    putU64(out + 16, answer.counts.datagrams);
    putU64(out + 24, answer.counts.bytes);
    putU64(out + 32, answer.counts.outOfOrder);
    putU64(out + 40, answer.counts.duplicates);
}

inline std::optional<CountAnswer> readCountAnswer(std::string_view datagram) {
    if (datagram.size() != kCountBytes || !hasMagic(datagram, 'A'))
        return std::nullopt;
    const char* d = datagram.data();
    return CountAnswer{{getU32(d + 4), getU64(d + 8)},
                       {getU64(d + 16), getU64(d + 24), getU64(d + 32), getU64(d + 40)}};
}

} // namespace loadscope::engine::udp
