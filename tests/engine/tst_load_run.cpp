// The load engine against a scripted in-test server: exact counts, byte
// totals, keep-alive accounting, every counted fault, limits and cancel.
#include "engine/http_protocol.h"
#include "engine/load_run.h"
#include "fixed_delay_server.h"
#include "loopback_http_spec.h"
#include "scripted_http_server.h"

#include <QElapsedTimer>
#include <QTest>
#include <atomic>
#include <chrono>

using namespace loadscope::engine;
using loadscope::testing::FixedDelayServer;
using loadscope::testing::runToEnd;
using namespace std::chrono_literals;
using Behaviour = ScriptedHttpServer::Behaviour;

namespace {

LoadSpec httpSpec(uint16_t port, bool keepAlive, uint32_t concurrency, uint64_t requests) {
    LoadSpec spec = loadscope::testing::loopbackHttpSpec(port, concurrency, keepAlive);
    spec.threads = 2;
    spec.requests = requests;
    return spec;
}

uint64_t errorsOf(const RunResult& r, ErrorClass c) {
    return r.errors[size_t(c)];
}

} // namespace

class TestLoadRun : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void exactCountsAndBytes_data() {
        QTest::addColumn<bool>("keepAlive");
        QTest::addColumn<int>("concurrency");
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("pipeline");
        QTest::addColumn<int>("requests");
        QTest::addColumn<int>("bodySize");
        QTest::newRow("keep-alive c10") << true << 10 << 2 << 1 << 1000 << 4897;
        QTest::newRow("keep-alive c1 one thread") << true << 1 << 1 << 1 << 1000 << 4897;
        QTest::newRow("no keep-alive c10") << false << 10 << 2 << 1 << 1000 << 4897;
        QTest::newRow("keep-alive c7 3 threads") << true << 7 << 3 << 1 << 1000 << 4897;
        QTest::newRow("pipelined x4") << true << 5 << 2 << 4 << 1000 << 4897;
        // One connection per worker reads in blocking recv or in epoll, as the
        // wait chooser decides; 3000 requests reach its second trial (epoll).
        QTest::newRow("c1 through both wait methods") << true << 1 << 1 << 1 << 3000 << 4897;
        QTest::newRow("c1 pipelined x4") << true << 1 << 1 << 4 << 3000 << 4897;
        QTest::newRow("c2 on 2 threads, no keep-alive") << false << 2 << 2 << 1 << 1000 << 4897;
        // Bodies the engine takes from the socket without copying them (MSG_TRUNC):
        // counted to the byte, the responses after them found where they start.
        QTest::newRow("300 kB, keep-alive, pipelined x4") << true << 4 << 2 << 4 << 200 << 300000;
        QTest::newRow("300 kB, no keep-alive") << false << 4 << 2 << 1 << 200 << 300000;
        QTest::newRow("300 kB, c1 through both wait methods")
            << true << 1 << 1 << 1 << 400 << 300000;
        QTest::newRow("just above a discard, pipelined x8") << true << 3 << 1 << 8 << 600 << 16385;
    }
    void exactCountsAndBytes() {
        QFETCH(bool, keepAlive);
        QFETCH(int, concurrency);
        QFETCH(int, threads);
        QFETCH(int, pipeline);
        QFETCH(int, requests);
        QFETCH(int, bodySize);
        const auto n = uint64_t(requests);
        ScriptedHttpServer server(Behaviour::KeepAlive, size_t(bodySize));
        LoadSpec spec = httpSpec(server.port(), keepAlive, uint32_t(concurrency), n);
        spec.threads = uint32_t(threads);
        spec.pipeline = uint32_t(pipeline);
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, n);
        QCOMPARE(r.failed, 0u);
        QCOMPARE(r.bytesBody, n * uint64_t(bodySize));
        QCOMPARE(r.bytesTotal, n * server.responseSize(!keepAlive));
        QCOMPARE(r.documentLength, bodySize);
        QCOMPARE(r.serverSoftware, std::string("scripted/1.0"));
        QCOMPARE(r.statusCodes.at(200), n);
        QCOMPARE(r.keepAlive, keepAlive ? n : 0u);
        QCOMPARE(r.total.count(), n);
        QCOMPARE(r.waiting.count(), n);
        QCOMPARE(server.requestsSeen(), n);
        QCOMPARE(r.threads, uint32_t(std::min(threads, concurrency)));
        if (!keepAlive)
            QCOMPARE(r.connectionsOpened, n);
        else
            QCOMPARE(r.connectionsOpened, uint64_t(concurrency));
        QVERIFY(r.durationSeconds > 0);
        QVERIFY(r.total.min() > 0);
        QVERIFY(r.total.max() >= r.total.valueAtPercentile(50));
    }

    void keepAliveCountsOnlyConnectionsTheServerKept() {
        // Every 100th response says "Connection: close": 990 of 1000 kept alive.
        ScriptedHttpServer server(Behaviour::CloseEveryNth, 4897, 100);
        const RunResult r = runToEnd(httpSpec(server.port(), true, 1, 1000));
        QCOMPARE(r.complete, 1000u);
        QCOMPARE(r.failed, 0u);
        QCOMPARE(r.keepAlive, 990u);
        QCOMPARE(r.connectionsOpened, 10u);
    }

    void serverClosingSilentlyIsNotAFailure() {
        // The next request on such a connection meets a closed socket; it is sent again.
        ScriptedHttpServer server(Behaviour::CloseSilently);
        const RunResult r = runToEnd(httpSpec(server.port(), true, 4, 400));
        QCOMPARE(r.complete, 400u);
        QCOMPARE(r.failed, 0u);
        QCOMPARE(r.bytesBody, 400u * 4897u);
    }

    void faultsAreCountedByClass_data() {
        QTest::addColumn<int>("behaviour");
        QTest::addColumn<int>("errorClass");
        QTest::addColumn<int>("bodySize");
        QTest::newRow("malformed status")
            << int(Behaviour::MalformedStatus) << int(ErrorClass::Exception) << 4897;
        QTest::newRow("reset mid-response")
            << int(Behaviour::ResetMidResponse) << int(ErrorClass::Receive) << 4897;
        // Reset in the middle of a body being discarded without a copy.
        QTest::newRow("reset mid-response, 1 MB body")
            << int(Behaviour::ResetMidResponse) << int(ErrorClass::Receive) << 1000000;
        QTest::newRow("short body then close")
            << int(Behaviour::ShortBody) << int(ErrorClass::Receive) << 4897;
        QTest::newRow("headers over 64 KiB")
            << int(Behaviour::HugeHeaders) << int(ErrorClass::Exception) << 4897;
        QTest::newRow("bad chunk size")
            << int(Behaviour::BadChunkSize) << int(ErrorClass::Exception) << 4897;
        QTest::newRow("varying length")
            << int(Behaviour::VaryingLength) << int(ErrorClass::Length) << 4897;
    }
    void faultsAreCountedByClass() {
        QFETCH(int, behaviour);
        QFETCH(int, errorClass);
        QFETCH(int, bodySize);
        ScriptedHttpServer server{Behaviour(behaviour), size_t(bodySize)};
        const RunResult r = runToEnd(httpSpec(server.port(), true, 2, 20));
        QCOMPARE(r.complete, 20u);
        const uint64_t expected = Behaviour(behaviour) == Behaviour::VaryingLength ? 10u : 20u;
        QCOMPARE(errorsOf(r, ErrorClass(errorClass)), expected);
        QCOMPARE(r.failed, expected);
        QVERIFY(!r.unreachable);
        QVERIFY(!r.firstError.empty() || ErrorClass(errorClass) == ErrorClass::Length);
    }

    void requestTimeoutEndsARunAgainstASilentServer() {
        ScriptedHttpServer server(Behaviour::NeverAnswer);
        LoadSpec spec = httpSpec(server.port(), true, 2, 4);
        spec.requestTimeout = 200ms;
        QElapsedTimer clock;
        clock.start();
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, 4u);
        QCOMPARE(errorsOf(r, ErrorClass::Timeout), 4u);
        QVERIFY2(clock.elapsed() < 5000, "a silent server must not hang the run");
    }

    void refusedPortIsUnreachable() {
        uint16_t port = 0;
        {
            ScriptedHttpServer probe(Behaviour::KeepAlive);
            port = probe.port(); // closed again when the probe goes away
        }
        LoadSpec spec = httpSpec(port, true, 3, 100);
        const RunResult r = runToEnd(spec);
        QVERIFY(r.unreachable);
        QVERIFY2(r.firstError.find("refused") != std::string::npos, r.firstError.c_str());
        QVERIFY(r.complete < 100);
    }

    void timedRunStopsAtItsDuration() {
        // A server answering 20 ms after each request, the connections' phases
        // spread: in 500 ms four connections complete 4 x 500 / 20 requests
        // (the cycle as the server saw it, a little over 20 ms) less the one
        // round the window starts without, give or take one per connection.
        constexpr uint32_t c = 4;
        FixedDelayServer server({20ms, 100, c, 0});
        LoadSpec spec = httpSpec(server.port(), true, c, 0);
        spec.duration = 500ms;
        QElapsedTimer clock;
        clock.start();
        const RunResult r = runToEnd(spec);
        QVERIFY(clock.elapsed() >= 500); // it cannot end before its duration
        QCOMPARE(r.failed, 0u);
        const double cycleMs = server.meanCycleNs() / 1e6; // 20 ms and what the machine adds
        const double expected = double(c) * (500.0 / cycleMs - 1.0);
        QVERIFY2(std::abs(double(r.complete) - expected) <= c,
                 qPrintable(QStringLiteral("%1 complete, %2 expected in 500 ms")
                                .arg(r.complete)
                                .arg(expected, 0, 'f', 1)));
        QVERIFY(server.answered() >= r.complete); // nothing counted that was not answered
    }

    void warmupIsNotCounted() {
        ScriptedHttpServer server(Behaviour::KeepAlive, 100);
        LoadSpec spec = httpSpec(server.port(), true, 2, 200);
        spec.warmup = 300ms;
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, 200u);
        QCOMPARE(r.total.count(), 200u);
        QVERIFY2(server.requestsSeen() > 200u, "warm-up requests reach the server too");
    }

    void cancelStopsPromptly_data() {
        QTest::addColumn<int>("behaviour");
        QTest::addColumn<int>("concurrency");
        QTest::addColumn<int>("threads");
        QTest::newRow("8 connections on 2 threads") << int(Behaviour::KeepAlive) << 8 << 2;
        QTest::newRow("one connection, answered") << int(Behaviour::KeepAlive) << 1 << 1;
        // The worker sits in a blocking recv or in epoll_wait, both bounded by 10 ms.
        QTest::newRow("one connection, silent server") << int(Behaviour::NeverAnswer) << 1 << 1;
    }
    void cancelStopsPromptly() {
        QFETCH(int, behaviour);
        QFETCH(int, concurrency);
        QFETCH(int, threads);
        ScriptedHttpServer server(Behaviour(behaviour), 100);
        LoadSpec spec = httpSpec(server.port(), true, uint32_t(concurrency), 0);
        spec.threads = uint32_t(threads);
        spec.duration = 60s;
        spec.requestTimeout = 60s;
        LoadRun run(spec);
        std::atomic<bool> finishedCalled{false};
        run.setFinishedCallback([&] { finishedCalled = true; });
        QElapsedTimer clock;
        clock.start();
        run.start();
        QTest::qWait(200);
        run.cancel();
        const double cancelledAfterMs = double(clock.nsecsElapsed()) / 1e6;
        const RunResult r = run.wait();
        // wait() returned, so the run did not go on towards its 60 s; its
        // workers have ended, and at most the one request each connection had
        // already sent can still reach the server.
        const uint64_t seen = server.requestsSeen();
        QTest::qWait(100);
        QVERIFY(server.requestsSeen() <= seen + uint64_t(concurrency));
        QVERIFY(r.cancelled);
        QVERIFY(finishedCalled.load());
        if (Behaviour(behaviour) == Behaviour::NeverAnswer)
            QCOMPARE(r.complete, 0u); // the one request in flight is neither done nor failed
        else
            QVERIFY(r.complete > 0);
        // Measured until the cancel: from when the workers were set up (a
        // little after start()) to before cancel() returned.
        QVERIFY2(r.durationSeconds >= 0.1 && r.durationSeconds * 1000 <= cancelledAfterMs,
                 qPrintable(QStringLiteral("%1 s, cancelled after %2 ms")
                                .arg(r.durationSeconds)
                                .arg(cancelledAfterMs)));
    }

    void progressIsPublishedAboutTenTimesASecond() {
        ScriptedHttpServer server(Behaviour::KeepAlive, 100);
        LoadSpec spec = httpSpec(server.port(), true, 2, 0);
        spec.duration = 1s;
        LoadRun run(spec);
        std::atomic<int> snapshots{0};
        std::atomic<uint64_t> intervalSum{0};
        run.setProgressCallback([&](std::shared_ptr<const Progress> p) {
            ++snapshots;
            intervalSum += p->intervalComplete;
        });
        QElapsedTimer clock;
        clock.start();
        run.start();
        const RunResult r = run.wait();
        // One snapshot per 100 ms waited at most, plus the final one; at least
        // one periodic and the final one in a 1 s run.
        const qint64 elapsedMs = clock.elapsed();
        QVERIFY2(snapshots >= 2 && snapshots <= elapsedMs / 100 + 1,
                 qPrintable(QStringLiteral("%1 snapshots in %2 ms").arg(snapshots).arg(elapsedMs)));
        // Every measured request shows up in exactly one interval.
        QCOMPARE(intervalSum.load(), r.complete);
        QVERIFY(run.latestProgress());
        QCOMPARE(run.latestProgress()->complete, r.complete);
    }

    void connectionsAreSpreadWithoutDroppingTheRemainder() {
        ScriptedHttpServer server(Behaviour::KeepAlive, 100);
        LoadSpec spec = httpSpec(server.port(), true, 5, 0);
        spec.threads = 2;
        spec.duration = 300ms;
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.connectionsOpened, 5u);
        QCOMPARE(server.peakOpenConnections(), 5);
        QCOMPARE(r.threads, 2u);
    }

    void invalidSpecsAreRefused_data() {
        QTest::addColumn<int>("concurrency");
        QTest::addColumn<int>("requests");
        QTest::addColumn<QString>("message");
        QTest::newRow("n < c") << 10 << 5 << QStringLiteral("fewer requests");
        QTest::newRow("c = 0") << 0 << 5 << QStringLiteral("concurrency");
        QTest::newRow("no limit") << 1 << 0 << QStringLiteral("request count or a duration");
    }
    void invalidSpecsAreRefused() {
        QFETCH(int, concurrency);
        QFETCH(int, requests);
        QFETCH(QString, message);
        LoadSpec spec = httpSpec(1, true, uint32_t(concurrency), uint64_t(requests));
        const auto problem = validateLoadSpec(spec);
        QVERIFY(problem.has_value());
        QVERIFY2(QString::fromStdString(*problem).contains(message), problem->c_str());
        const RunResult r = runToEnd(spec);
        QCOMPARE(r.complete, 0u);
        QCOMPARE(QString::fromStdString(r.firstError), QString::fromStdString(*problem));
    }
};

QTEST_GUILESS_MAIN(TestLoadRun)
#include "tst_load_run.moc"
