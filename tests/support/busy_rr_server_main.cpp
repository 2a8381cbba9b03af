// The busy request/response server as a program of its own, so that a test
// can measure a server that is another process: prints its port, answers
// until stdin closes or it is killed.
#include "busy_rr_server.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

int main(int argc, char** argv) {
    loadscope::testing::BusyRrServer::Options options;
    if (argc > 1)
        options.cpuPerRequest = std::chrono::microseconds(std::atoll(argv[1]));
    loadscope::testing::BusyRrServer server(options);
    if (!server.isListening())
        return 1;
    std::printf("%u\n", unsigned(server.port()));
    std::fflush(stdout);
    char byte = 0;
    while (read(0, &byte, 1) > 0) {
    }
    return 0;
}
