#pragma once

#include <cstdint>
#include <netinet/in.h>
#include <optional>
#include <string>
#include <string_view>
#include <sys/socket.h>

namespace loadscope::engine {

// A resolved IPv4 or IPv6 endpoint.
struct SocketAddress {
    sockaddr_storage storage{};
    socklen_t length = 0;

    const sockaddr* data() const { return reinterpret_cast<const sockaddr*>(&storage); }
    int family() const { return storage.ss_family; }
    uint16_t port() const;
    std::string toString() const; // "127.0.0.1:8080", "[::1]:8080"

    // Numeric addresses only; no name lookup.
    static std::optional<SocketAddress> fromNumeric(std::string_view host, uint16_t port);
};

// Blocking name lookup (getaddrinfo); for command-line use, never on a GUI thread.
// On failure returns nullopt and sets `error` to one line.
std::optional<SocketAddress> resolveAddress(const std::string& host, uint16_t port,
                                            std::string* error);

} // namespace loadscope::engine
