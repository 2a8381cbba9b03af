#pragma once

#include "engine/http_protocol.h"
#include "engine/load_spec.h"

#include <chrono>
#include <memory>
#include <string>

namespace loadscope::testing {

// A kept-alive GET of "/" on 127.0.0.1:port, `concurrency` connections on one
// thread, with a 5 s request timeout: the run of the suites that check the
// engine's figures against a loopback server.
inline engine::LoadSpec loopbackHttpSpec(uint16_t port, uint32_t concurrency) {
    engine::HttpRequestSpec request;
    request.host = "127.0.0.1:" + std::to_string(port);
    engine::LoadSpec spec;
    spec.protocol = std::make_shared<engine::HttpProtocol>(request);
    spec.target = *engine::SocketAddress::fromNumeric("127.0.0.1", port);
    spec.concurrency = concurrency;
    spec.threads = 1;
    spec.requestTimeout = std::chrono::seconds(5);
    return spec;
}

} // namespace loadscope::testing
