// Upper vector state: clearUpperVectorState() releases it, and load workers
// start without the state of the thread that started the run.
#include "engine/http_protocol.h"
#include "engine/load_run.h"
#include "engine/vector_state.h"
#include "scripted_http_server.h"

#include <QTest>
#include <atomic>
#include <chrono>
#include <thread>

using namespace loadscope::engine;
using namespace std::chrono_literals;

namespace {

// Writes all 256 bits of YMM0, so the AVX component is in use afterwards.
void dirtyUpperHalves() {
    asm volatile("vpcmpeqd %%ymm0, %%ymm0, %%ymm0" ::: "xmm0");
}

// Delegates to HTTP and records, on the worker thread, the state each
// session's connection was created with.
class StateProbingProtocol final : public Protocol {
public:
    explicit StateProbingProtocol(HttpRequestSpec request)
        : m_http(std::move(request)) {}

    std::unique_ptr<ProtocolSession> newSession(uint32_t connectionIndex,
                                                uint64_t seed) const override {
        ++m_sessions;
        if (upperVectorStateInUse().value_or(false))
            ++m_sessionsWithStateInUse;
        return m_http.newSession(connectionIndex, seed);
    }

    int sessions() const { return m_sessions.load(); }
    int sessionsWithStateInUse() const { return m_sessionsWithStateInUse.load(); }

private:
    HttpProtocol m_http;
    mutable std::atomic<int> m_sessions{0};
    mutable std::atomic<int> m_sessionsWithStateInUse{0};
};

} // namespace

class TestVectorState : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() {
        if (!upperVectorStateInUse())
            QSKIP("this processor cannot report its vector state in use (no XGETBV 1)");
    }

    void clearingReleasesTheUpperHalves() {
        dirtyUpperHalves();
        QCOMPARE(upperVectorStateInUse(), std::optional<bool>(true));
        clearUpperVectorState();
        QCOMPARE(upperVectorStateInUse(), std::optional<bool>(false));
    }

    void workersStartWithTheUpperHalvesReleased() {
        // The premise: a new thread inherits its creator's state here.
        std::optional<bool> inherited;
        dirtyUpperHalves();
        std::thread([&inherited] { inherited = upperVectorStateInUse(); }).join();
        if (inherited != std::optional<bool>(true))
            QSKIP("new threads do not start with their creator's vector state here");

        ScriptedHttpServer server(ScriptedHttpServer::Behaviour::KeepAlive);
        HttpRequestSpec request;
        request.host = "127.0.0.1:" + std::to_string(server.port());
        auto protocol = std::make_shared<StateProbingProtocol>(request);
        LoadSpec spec;
        spec.protocol = protocol;
        spec.target = *SocketAddress::fromNumeric("127.0.0.1", server.port());
        spec.concurrency = 4;
        spec.threads = 2;
        spec.requests = 100;
        spec.requestTimeout = 5s;
        LoadRun run(spec);
        dirtyUpperHalves();
        run.start();
        const RunResult result = run.wait();
        QCOMPARE(result.complete, 100u);
        QCOMPARE(protocol->sessions(), 4);
        QCOMPARE(protocol->sessionsWithStateInUse(), 0);
    }
};

QTEST_GUILESS_MAIN(TestVectorState)
#include "tst_vector_state.moc"
