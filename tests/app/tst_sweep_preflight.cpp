// What a sweep checks before its first point: the probe of each target against
// the embedded HTTP server and userland proxy, and the specs built from targets.
#include "app/servers/echo_server.h"
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "app/sweep/load_spec_builder.h"
#include "app/sweep/sweep_runner.h"
#include "engine/http_protocol.h"
#include "local_peers.h"
#include "required_here.h"
#include "sweep_test_session.h"
#include "tests/app/result_message.h"
#include "tsan_fork_options.h"

#include <QCoroTask>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <optional>

using namespace loadscope;
using app::SweepOutcome;
using app::SweepPoint;

class TestSweepPreflight : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void probe_data();
    void probe();
    void loadSpecFromTargets();

private:
    std::unique_ptr<test::HttpPair> m_servers;
};

void TestSweepPreflight::initTestCase() {
    m_servers = std::make_unique<test::HttpPair>();
    QVERIFY2(m_servers->isRunning(), qPrintable(m_servers->error()));
}

void TestSweepPreflight::cleanupTestCase() {
    m_servers.reset();
}

void TestSweepPreflight::probe_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("expected"); // in the summary
    QTest::newRow("http") << QStringLiteral("http") << true << QStringLiteral("HTTP 200");
    QTest::newRow("http through proxy")
        << QStringLiteral("http-proxy") << true << QStringLiteral("4897 bytes");
    QTest::newRow("http 404 is not a target")
        << QStringLiteral("http-404") << false << QStringLiteral("HTTP 404");
    QTest::newRow("http refused") << QStringLiteral("http-refused") << false
                                  << QStringLiteral("connection refused by 127.0.0.1:");
    QTest::newRow("tcp connect") << QStringLiteral("tcp") << true << QStringLiteral("connected");
    QTest::newRow("tcp refused") << QStringLiteral("tcp-refused") << false
                                 << QStringLiteral("connection refused by 127.0.0.1:");
    QTest::newRow("memcache against http")
        << QStringLiteral("memcache-http") << false << QStringLiteral("not a memcached server");
}

void TestSweepPreflight::probe() {
    QFETCH(QString, kind);
    QFETCH(bool, ok);
    QFETCH(QString, expected);
    const QString refused = QStringLiteral("127.0.0.1:%1").arg(test::refusedPort());
    app::Target target =
        test::httpTarget(QStringLiteral("t"), app::DeploymentMode::Host, 0, m_servers->url());
    if (kind == u"http-proxy")
        target.address = m_servers->proxyAddress();
    if (kind == u"http-404")
        target.http.url = m_servers->url(); // the embedded server answers everything...
    if (kind == u"http-refused")
        target.address = refused;
    if (kind.startsWith(u"tcp")) {
        target.protocol = app::TargetProtocol::TcpRr;
        target.address = kind == u"tcp" ? m_servers->proxyAddress() : refused;
    }
    if (kind == u"memcache-http") {
        target.protocol = app::TargetProtocol::Memcache;
        target.address = QStringLiteral("127.0.0.1:%1").arg(m_servers->httpPort());
    }
    std::optional<testing::NginxPeer> nginx;
    if (kind == u"http-404") {
        // ...so a 404 comes from nginx, which serves only "/".
        nginx.emplace();
        if (!nginx->isRunning())
            LOADSCOPE_SKIP_UNLESS_REQUIRED(QStringLiteral("server:nginx"),
                                           QStringLiteral("no nginx: ") + nginx->error());
        target.http.url = nginx->url() + QStringLiteral("no-such-page");
    }

    QElapsedTimer clock;
    clock.start();
    const app::ProbeResult result = QCoro::waitFor(app::probeTarget(target));
    QCOMPARE(result.ok, ok);
    QVERIFY2(result.summary().contains(expected), qPrintable(result.summary()));
    QVERIFY(clock.elapsed() < 5000);
    if (kind == u"http") {
        QCOMPARE(result.serverSoftware, QStringLiteral("loadscope"));
        QCOMPARE(result.documentLength, qint64(4897));
    }
}

void TestSweepPreflight::loadSpecFromTargets() {
    app::SweepPlan plan;
    plan.limit = app::PointLimit::Requests;
    plan.requestsPerPoint = 1000;
    plan.threads = 3;
    plan.warmupSeconds = 0.5;
    plan.cpus = {0};
    // The URL gives Host and path; the address is where the connections go.
    app::Target http = test::httpTarget(QStringLiteral("t"), app::DeploymentMode::ContainerNat, 0,
                                        QStringLiteral("http://example.test:8080/a?b=1"),
                                        QStringLiteral("127.0.0.1:9000"));
    http.http.headers = {{QStringLiteral("X-Trace"), QStringLiteral("1")}};
    http.http.keepAlive = false;
    http.http.method = QStringLiteral("head");
    auto draft = app::draftLoadSpec(http, 10, plan);
    QVERIFY2(draft, qPrintable(loadscope::testing::failureOf(draft)));
    QCOMPARE(draft->endpoint.host, QStringLiteral("127.0.0.1"));
    QCOMPARE(draft->endpoint.port, quint16(9000));
    const engine::LoadSpec& spec = draft->spec;
    QCOMPARE(spec.concurrency, 10u);
    QCOMPARE(spec.threads, 3u);
    QCOMPARE(spec.requests, uint64_t(1000));
    QCOMPARE(spec.duration.count(), 0);
    QCOMPARE(spec.warmup, std::chrono::milliseconds(500));
    QCOMPARE(spec.cpus, std::vector<int>{0});
    const auto* protocol = dynamic_cast<const engine::HttpProtocol*>(spec.protocol.get());
    QVERIFY(protocol);
    const QByteArray request = QByteArray::fromStdString(protocol->requestBytes());
    QVERIFY2(request.startsWith("HEAD /a?b=1 HTTP/1.1\r\n"), request.constData());
    QVERIFY(request.contains("Host: example.test:8080\r\n"));
    QVERIFY(request.contains("X-Trace: 1\r\n"));
    QVERIFY(request.contains("Connection: close\r\n"));
    QVERIFY(!protocol->keepAlive());

    // Names resolve without blocking; numeric hosts need no lookup at all.
    // (A Result has no empty state, so it is awaited into an optional.)
    std::optional<app::Result<engine::SocketAddress>> local;
    QCoro::waitFor([&]() -> QCoro::Task<> {
        local.emplace(co_await app::resolveEndpoint({QStringLiteral("localhost"), 80}));
    }());
    QVERIFY2(*local, qPrintable(loadscope::testing::failureOf(*local)));
    QCOMPARE((*local)->toString(), std::string("127.0.0.1:80"));

    plan.threads = 2;
    app::Target stream = app::makeTarget(QStringLiteral("s"), app::DeploymentMode::Host, 0);
    stream.protocol = app::TargetProtocol::TcpStream;
    stream.address = QStringLiteral("127.0.0.1:9");
    const auto refused = [&](const app::Target& target, int concurrency) {
        const auto built = app::draftLoadSpec(target, concurrency, plan);
        return built ? QString() : built.error().message;
    };
    QString error = refused(stream, 1);
    QVERIFY2(error.contains(QStringLiteral("duration")), qPrintable(error));
    error = refused(http, 2000); // fewer requests than connections
    QVERIFY2(error.contains(QStringLiteral("concurrency level (2000) greater than the number of "
                                           "requests (1000)")),
             qPrintable(error));
    http.http.headers = {{QStringLiteral("X Trace"), QStringLiteral("1")}};
    error = refused(http, 10); // a header name the server would not take
    QVERIFY2(error.contains(QStringLiteral("'X Trace'")), qPrintable(error));

    app::Target memcache = app::makeTarget(QStringLiteral("m"), app::DeploymentMode::Host, 0);
    memcache.protocol = app::TargetProtocol::Memcache;
    memcache.address = QStringLiteral("127.0.0.1:11211");
    memcache.memcache.keyPattern = QStringLiteral("R:Q");
    error = refused(memcache, 1);
    QVERIFY2(error.contains(QStringLiteral("R:Q")), qPrintable(error));
    memcache.memcache.keyPattern = QStringLiteral("S:G");
    memcache.memcache.keyMinimum = 1;
    memcache.memcache.keyMaximum = 100;
    memcache.memcache.preload = true;
    draft = app::draftLoadSpec(memcache, 4, plan);
    QVERIFY2(draft, qPrintable(loadscope::testing::failureOf(draft)));
    const auto preload = app::memcachePreloadSpec(memcache, draft->spec);
    QVERIFY2(preload && *preload, qPrintable(loadscope::testing::failureOf(preload)));
    QCOMPARE((*preload)->requests, uint64_t(100)); // every key once
    QCOMPARE((*preload)->concurrency, 8u);         // four connections per thread
    QCOMPARE((*preload)->threads, 2u);
    const auto none = app::memcachePreloadSpec(http, draft->spec);
    QVERIFY(none && !*none);
}

QTEST_GUILESS_MAIN(TestSweepPreflight)
#include "tst_sweep_preflight.moc"
