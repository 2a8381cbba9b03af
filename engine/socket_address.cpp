#include "engine/socket_address.h"

#include <arpa/inet.h>
#include <cstring>
#include <netdb.h>

namespace loadscope::engine {

uint16_t SocketAddress::port() const {
    if (family() == AF_INET)
        return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
    if (family() == AF_INET6)
        return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
    return 0;
}

std::string SocketAddress::toString() const {
    char host[INET6_ADDRSTRLEN] = {};
    if (family() == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr, host,
                  sizeof host);
        return std::string(host) + ':' + std::to_string(port());
    }
    if (family() == AF_INET6) {
        inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_addr, host,
                  sizeof host);
        return '[' + std::string(host) + "]:" + std::to_string(port());
    }
    return "(no address)";
}

std::optional<SocketAddress> SocketAddress::fromNumeric(std::string_view host, uint16_t port) {
    const std::string text(host);
    SocketAddress address;
    auto* v4 = reinterpret_cast<sockaddr_in*>(&address.storage);
    if (inet_pton(AF_INET, text.c_str(), &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        address.length = sizeof(sockaddr_in);
        return address;
    }
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&address.storage);
    if (inet_pton(AF_INET6, text.c_str(), &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        address.length = sizeof(sockaddr_in6);
        return address;
    }
    return std::nullopt;
}

std::optional<SocketAddress> resolveAddress(const std::string& host, uint16_t port,
                                            std::string* error) {
    if (auto numeric = SocketAddress::fromNumeric(host, port))
        return numeric;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
    if (rc != 0 || !found) {
        if (error)
            *error = "cannot resolve host '" + host + "': " + gai_strerror(rc);
        return std::nullopt;
    }
    SocketAddress address;
    std::memcpy(&address.storage, found->ai_addr, found->ai_addrlen);
    address.length = found->ai_addrlen;
    freeaddrinfo(found);
    if (address.family() == AF_INET)
        reinterpret_cast<sockaddr_in*>(&address.storage)->sin_port = htons(port);
    else
        reinterpret_cast<sockaddr_in6*>(&address.storage)->sin6_port = htons(port);
    return address;
}

} // namespace loadscope::engine
