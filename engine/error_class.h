#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loadscope::engine {

// Why a request failed. The first four are ab's "Failed requests" split.
enum class ErrorClass : uint8_t {
    Connect,   // connect refused, unreachable or timed out
    Receive,   // reset or closed by the peer in the middle of a response
    Length,    // body length differs from the first response's (ab's check)
    Exception, // malformed response (protocol violation) or error reply
    Write,     // the request could not be sent
    Timeout,   // no complete response within the request timeout
    Tls,       // the TLS handshake failed (verification, protocol, stall) or a record was bad
    RstStream, // HTTP/2: the server reset the stream (RST_STREAM) before its response ended
    Goaway,    // HTTP/2: the request was refused or lost to the server's GOAWAY
    Lost,      // UDP: no answer within the request timeout (the request or its answer was lost)
};
inline constexpr size_t kErrorClassCount = 10;

constexpr std::string_view errorClassName(ErrorClass c) {
    constexpr std::array<std::string_view, kErrorClassCount> names{
        "connect", "receive", "length",     "exceptions", "write",
        "timeout", "tls",     "rst_stream", "goaway",     "lost"};
    return names[static_cast<size_t>(c)];
}

using ErrorCounts = std::array<uint64_t, kErrorClassCount>;

} // namespace loadscope::engine
