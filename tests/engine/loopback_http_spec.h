#pragma once

#include "engine/http_protocol.h"
#include "engine/load_run.h"
#include "engine/load_spec.h"

#include <chrono>
#include <memory>
#include <string>

namespace loadscope::testing {

// A GET of "/" on 127.0.0.1:port (kept alive unless told), `concurrency`
// connections on one thread, with a 5 s request timeout: the run of the suites
// that check the engine's figures against a loopback server. Suites set the
// threads, the count and the rest on the copy they get.
inline engine::LoadSpec loopbackHttpSpec(uint16_t port, uint32_t concurrency,
                                         bool keepAlive = true) {
    engine::HttpRequestSpec request;
    request.host = "127.0.0.1:" + std::to_string(port);
    request.keepAlive = keepAlive;
    engine::LoadSpec spec;
    spec.protocol = std::make_shared<engine::HttpProtocol>(request);
    spec.target = *engine::SocketAddress::fromNumeric("127.0.0.1", port);
    spec.concurrency = concurrency;
    spec.threads = 1;
    spec.requestTimeout = std::chrono::seconds(5);
    return spec;
}

// Starts the run and waits for its result.
inline engine::RunResult runToEnd(const engine::LoadSpec& spec) {
    engine::LoadRun run(spec);
    run.start();
    return run.wait();
}

} // namespace loadscope::testing
