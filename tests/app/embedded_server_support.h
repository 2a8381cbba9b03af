#pragma once

// Helpers of the embedded-server suites (tst_http_server, tst_embedded_servers).
#include "app/servers/http_server.h"
#include "app/servers/tcp_proxy.h"

#include <QtGlobal>
#include <string>
#include <string_view>

namespace loadscope::testing {

using app::HttpServerConfig;
using app::TcpProxyConfig;

// The head `serve http` answers with for a body of `bodySize` bytes.
inline std::string expectedHead(size_t bodySize, bool keepAlive) {
    return "HTTP/1.1 200 OK\r\nServer: loadscope\r\nContent-Type: text/html\r\nContent-Length: " +
           std::to_string(bodySize) + "\r\nConnection: " + (keepAlive ? "keep-alive" : "close") +
           "\r\n\r\n";
}

// A whole HTTP/1.1 GET of "/", and the keep-alive answer to it with a body of `bodySize` bytes.
inline constexpr std::string_view kGetRequest = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
inline std::string expectedResponse(size_t bodySize) {
    return expectedHead(bodySize, true) + app::HttpServer::makeDocument(bodySize);
}

template <typename Server> bool startServer(Server& server) {
    const auto started = server.start();
    if (!started)
        qWarning("start failed: %s", qPrintable(started.error().toString()));
    return started.ok();
}

inline HttpServerConfig httpConfig(size_t documentSize = 4897, uint32_t threads = 1) {
    HttpServerConfig config;
    config.documentSize = documentSize;
    config.threads = threads;
    return config;
}

inline TcpProxyConfig proxyConfig(uint16_t upstreamPort, uint32_t threads = 1) {
    TcpProxyConfig config;
    config.upstreamPort = upstreamPort;
    config.threads = threads;
    return config;
}

} // namespace loadscope::testing
