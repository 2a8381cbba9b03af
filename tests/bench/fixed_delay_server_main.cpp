// The fixed-delay HTTP server of the engine tests as a program, for
// latency_accuracy.sh: answers each request exactly --delay-us after it
// arrived, on 127.0.0.1; with --workers K, serves at most K at a time (a
// server of capacity K / delay, for --find-capacity by hand). Prints "port N"
// once listening; on SIGTERM or SIGINT prints how late its answers went out
// and exits.
#include "fixed_delay_server.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>

int main(int argc, char** argv) {
    long delayUs = 2000;
    long port = 0;
    long workers = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--delay-us") == 0)
            delayUs = std::strtol(argv[i + 1], nullptr, 10);
        else if (std::strcmp(argv[i], "--port") == 0)
            port = std::strtol(argv[i + 1], nullptr, 10);
        else if (std::strcmp(argv[i], "--workers") == 0)
            workers = std::strtol(argv[i + 1], nullptr, 10);
    }
    if (delayUs < 0 || port < 0 || port > 65535 || workers < 0 || workers > 1 << 20) {
        std::fprintf(stderr, "usage: fixed_delay_server [--delay-us N] [--port P] [--workers K]\n");
        return 2;
    }
    // Blocked before the server's thread starts, so only sigwait sees them.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    loadscope::testing::FixedDelayServer::Options options;
    options.delay = std::chrono::microseconds(delayUs);
    options.port = uint16_t(port);
    options.workers = uint32_t(workers);
    loadscope::testing::FixedDelayServer server(options);
    if (!server.isListening()) {
        std::fprintf(stderr, "fixed_delay_server: cannot listen on 127.0.0.1:%ld\n", port);
        return 1;
    }
    std::printf("port %u\n", unsigned(server.port()));
    std::fflush(stdout);
    int signal = 0;
    sigwait(&stop, &signal);
    std::printf("answered %llu late_p50_us %.1f late_p99_us %.1f\n",
                static_cast<unsigned long long>(server.answered()),
                double(server.latenessPercentile(50)) / 1e3,
                double(server.latenessPercentile(99)) / 1e3);
    return 0;
}
