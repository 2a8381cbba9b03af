// tcp_rr_bench.sh's third client: the load engine alone, with none of
// loadscope-cli around it (no Qt, no option parsing, no report), running the
// same one-connection TCP_RR. Comparing it with `loadscope-cli tcp-rr` tells
// the engine's share of a gap to the blocking loop from the program's share.
//
//   engine_rr_client PORT SECONDS CPU [REQUEST_BYTES RESPONSE_BYTES]
//
// Prints "transactions N seconds S rate R" on stdout, as blocking_rr_client.
#include "engine/load_run.h"
#include "engine/tcp_protocol.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

using namespace loadscope::engine;

int main(int argc, char* argv[]) {
    if (argc != 4 && argc != 6) {
        std::fprintf(stderr, "usage: %s PORT SECONDS CPU [REQUEST_BYTES RESPONSE_BYTES]\n",
                     argv[0]);
        return 2;
    }
    const int port = std::atoi(argv[1]);
    const double seconds = std::atof(argv[2]);
    const int cpu = std::atoi(argv[3]);
    TcpRrSpec rr;
    if (argc == 6) {
        rr.requestSize = uint32_t(std::atol(argv[4]));
        rr.responseSize = uint32_t(std::atol(argv[5]));
    }
    if (port <= 0 || port > 65535 || seconds <= 0 || seconds > 3600 || cpu < 0 ||
        validateTcpRrSpec(rr)) {
        std::fprintf(stderr, "%s: bad arguments\n", argv[0]);
        return 2;
    }
    LoadSpec spec;
    spec.protocol = std::make_shared<TcpRrProtocol>(rr);
    spec.target = *SocketAddress::fromNumeric("127.0.0.1", uint16_t(port));
    spec.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double>(seconds));
    spec.cpus = {cpu};
    LoadRun run(spec);
    run.start();
    const RunResult r = run.wait();
    if (r.complete == 0 || r.failed > 0) {
        std::fprintf(stderr, "%s: %llu failed: %s\n", argv[0],
                     static_cast<unsigned long long>(r.failed), r.firstError.c_str());
        return 1;
    }
    std::printf("transactions %llu seconds %.3f rate %.2f\n",
                static_cast<unsigned long long>(r.complete), r.durationSeconds,
                double(r.complete) / r.durationSeconds);
    return 0;
}
