// The reference for tcp_rr_bench.sh: the simplest TCP_RR client there is, one
// connection, a blocking send() of the request and recv() until the whole
// response is in, in a loop. Its rate is the ceiling an event-loop client on
// one connection is measured against.
//
//   blocking_rr_client HOST PORT SECONDS [REQUEST_BYTES RESPONSE_BYTES]
//
// Prints "transactions N seconds S rate R" on stdout.
#include <arpa/inet.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace {

bool sendAll(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        data += n;
        size -= size_t(n);
    }
    return true;
}

bool receiveAll(int fd, char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::recv(fd, data, size, 0);
        if (n <= 0)
            return false;
        data += n;
        size -= size_t(n);
    }
    return true;
}

} // namespace

int main(int argc, char* argv[]) {
    if (argc != 4 && argc != 6) {
        std::fprintf(stderr, "usage: %s HOST PORT SECONDS [REQUEST_BYTES RESPONSE_BYTES]\n",
                     argv[0]);
        return 2;
    }
    const double seconds = std::atof(argv[3]);
    const size_t requestSize = argc == 6 ? size_t(std::atol(argv[4])) : 1;
    const size_t responseSize = argc == 6 ? size_t(std::atol(argv[5])) : 1;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(uint16_t(std::atoi(argv[2])));
    if (seconds <= 0 || seconds > 3600 || requestSize == 0 || responseSize == 0 ||
        ::inet_pton(AF_INET, argv[1], &address.sin_addr) != 1) {
        std::fprintf(stderr, "%s: bad arguments\n", argv[0]);
        return 2;
    }
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); // as the engine does
    if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        std::perror("connect");
        return 3;
    }
    const std::string request(requestSize, 'A');
    std::vector<char> response(responseSize);
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    const Clock::time_point deadline =
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    unsigned long long transactions = 0;
    Clock::time_point now = start;
    while (now < deadline) {
        if (!sendAll(fd, request.data(), request.size()) ||
            !receiveAll(fd, response.data(), response.size())) {
            std::fprintf(stderr, "%s: connection failed after %llu transactions\n", argv[0],
                         transactions);
            return 1;
        }
        ++transactions;
        now = Clock::now();
    }
    ::close(fd);
    const double elapsed = std::chrono::duration<double>(now - start).count();
    std::printf("transactions %llu seconds %.3f rate %.2f\n", transactions, elapsed,
                double(transactions) / elapsed);
    return 0;
}
