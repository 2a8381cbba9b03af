// A run holds its request once, however many connections send it: peak
// resident memory against a peer that discards what it reads, with requests
// (HTTP bodies, TCP_RR requests) and responses large enough that a copy per
// connection would show many times over. The peer's byte count is the truth
// that every request still went out whole.
#include "discarding_peer.h"
#include "engine/http_protocol.h"
#include "engine/load_run.h"
#include "engine/request_queue.h"
#include "engine/tcp_protocol.h"
#include "loopback_http_spec.h"

#include <QTest>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

using namespace loadscope::engine;
using loadscope::testing::DiscardingPeer;
using loadscope::testing::runToEnd;
using namespace std::chrono_literals;

namespace {

constexpr uint64_t kLarge = 8u << 20;
constexpr uint32_t kConnections = 200;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// The sanitizers' shadow memory and quarantine of freed blocks (256 MiB for
// ASan) dwarf what is measured: the peak says nothing about the engine there.
constexpr bool kInstrumented = true;
#else
constexpr bool kInstrumented = false;
#endif

// Peak resident set of this process so far (VmHWM), in bytes.
uint64_t peakResidentBytes() {
    std::FILE* file = std::fopen("/proc/self/status", "re");
    if (!file)
        return 0;
    char line[256];
    unsigned long long kib = 0;
    while (std::fgets(line, sizeof line, file))
        if (std::sscanf(line, "VmHWM: %llu kB", &kib) == 1)
            break;
    std::fclose(file);
    return uint64_t(kib) * 1024;
}

LoadSpec specFor(std::shared_ptr<const Protocol> protocol, uint16_t port, uint32_t connections,
                 uint64_t requests, uint32_t pipeline = 1) {
    LoadSpec spec;
    spec.protocol = std::move(protocol);
    spec.target = *SocketAddress::fromNumeric("127.0.0.1", port);
    spec.concurrency = connections;
    spec.threads = 2;
    spec.pipeline = pipeline;
    spec.requests = requests;
    spec.requestTimeout = 60s;
    spec.duration = 120s; // a bound, never reached when the run works
    return spec;
}

} // namespace

class TestRequestMemory : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void httpBodySharedByConnections_data() {
        QTest::addColumn<int>("connections");
        QTest::addColumn<int>("pipeline");
        QTest::newRow("c200") << int(kConnections) << 1;
        QTest::newRow("c50 pipelined x4") << 50 << 4;
    }

    void httpBodySharedByConnections() {
        QFETCH(int, connections);
        QFETCH(int, pipeline);
        DiscardingPeer peer(DiscardingPeer::Mode::Http);
        QVERIFY(peer.isListening());
        HttpRequestSpec request;
        request.method = "POST";
        request.host = "127.0.0.1:" + std::to_string(peer.port());
        request.body.assign(kLarge, 'b');
        auto protocol = std::make_shared<const HttpProtocol>(std::move(request));
        const uint64_t requestBytes = protocol->requestBytes().size();
        const uint64_t requests = kConnections;
        const RunResult r = runToEnd(
            specFor(protocol, peer.port(), uint32_t(connections), requests, uint32_t(pipeline)));
        QCOMPARE(r.complete, requests);
        QCOMPARE(r.failed, uint64_t(0));
        // A counted run sends exactly -n: the peer read n whole requests.
        QCOMPARE(peer.bytesRead(), requests * requestBytes);
        const uint64_t peak = peakResidentBytes();
        QVERIFY2(
            kInstrumented || peak < 10 * kLarge,
            qPrintable(
                QStringLiteral("peak RSS %1 MiB, body %2 MiB").arg(peak >> 20).arg(kLarge >> 20)));
    }

    void tcpRrSizes_data() {
        QTest::addColumn<qulonglong>("requestSize");
        QTest::addColumn<qulonglong>("responseSize");
        QTest::newRow("large request") << qulonglong(kLarge) << qulonglong(1);
        QTest::newRow("large response") << qulonglong(1) << qulonglong(kLarge);
    }

    void tcpRrSizes() {
        QFETCH(qulonglong, requestSize);
        QFETCH(qulonglong, responseSize);
        DiscardingPeer peer(DiscardingPeer::Mode::TcpRr, requestSize, responseSize);
        QVERIFY(peer.isListening());
        TcpRrSpec rr;
        rr.requestSize = uint32_t(requestSize);
        rr.responseSize = uint32_t(responseSize);
        const uint64_t requests = kConnections;
        const RunResult r = runToEnd(specFor(std::make_shared<const TcpRrProtocol>(rr), peer.port(),
                                             kConnections, requests));
        QCOMPARE(r.complete, requests);
        QCOMPARE(r.failed, uint64_t(0));
        QCOMPARE(peer.bytesRead(), requests * requestSize);
        // The peer counts an answer once its last send() returns, which can be
        // after the client has read it: wait for the peer's thread to catch up.
        QTRY_COMPARE(peer.answered(), requests);
        const uint64_t peak = peakResidentBytes();
        QVERIFY2(kInstrumented || peak < 10 * kLarge,
                 qPrintable(QStringLiteral("peak RSS %1 MiB, message %2 MiB")
                                .arg(peak >> 20)
                                .arg(kLarge >> 20)));
    }

    // Shared and copied parts interleaved, sent through a socket that takes
    // a few KiB at a time: the bytes arrive whole and in order.
    void queueSendsPartsInOrder() {
        int pair[2];
        QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
        const int small = 4096;
        ::setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
        const std::string shared(300'000, 's');
        std::string expected;
        RequestQueue queue;
        for (int i = 0; i < 100; ++i) { // more parts than one sendmsg takes
            const std::string line = "set key" + std::to_string(i) + "\r\n";
            queue.append(line);
            queue.appendShared(shared);
            expected += line + shared;
        }
        QCOMPARE(queue.queuedBytes(), expected.size());
        std::string received;
        std::vector<char> buffer(65536);
        for (int rounds = 0; !queue.empty() && rounds < 100'000; ++rounds) {
            if (queue.sendTo(pair[0]) < 0)
                QVERIFY(errno == EAGAIN || errno == EWOULDBLOCK);
            const ssize_t n = ::recv(pair[1], buffer.data(), buffer.size(), MSG_DONTWAIT);
            if (n > 0)
                received.append(buffer.data(), size_t(n));
        }
        QVERIFY(queue.empty());
        for (ssize_t n; (n = ::recv(pair[1], buffer.data(), buffer.size(), MSG_DONTWAIT)) > 0;)
            received.append(buffer.data(), size_t(n));
        ::close(pair[0]);
        ::close(pair[1]);
        QCOMPARE(received.size(), expected.size());
        QVERIFY(received == expected);
    }
};

QTEST_GUILESS_MAIN(TestRequestMemory)
#include "tst_request_memory.moc"
