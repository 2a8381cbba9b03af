// The example sessions as shipped: each opens by name and by path and is
// stored exactly as Loadscope writes it; the demo ones, swept in-process
// against the embedded servers their notes name, on free ports instead of the
// fixed ones: every point answers every request, and the HTTPS pair counts
// what TLS should cost.
#include "app/servers/http_server.h"
#include "app/servers/tcp_proxy.h"
#include "app/session/comparison.h"
#include "app/session/comparison_report.h"
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "session_mutation.h"
#include "sweep_run_to_end.h"

#include <QTest>
#include <QUrl>
#include <memory>

using namespace loadscope;

namespace {

// The session's targets point at `serverPort` (the host target) and
// `proxyPort` (the proxy target), everything else as shipped; points are
// counted rather than timed, so that counts can be checked exactly.
app::Session onPorts(app::Session session, quint16 serverPort, quint16 proxyPort,
                     uint64_t requests) {
    for (app::Target& target : session.targets) {
        QUrl url(target.http.url);
        url.setPort(target.mode == app::DeploymentMode::Host ? serverPort : proxyPort);
        target.http.url = url.toString();
    }
    session.plan.limit = app::PointLimit::Requests;
    session.plan.requestsPerPoint = requests;
    session.plan.repetitions = 1;
    session.plan.concurrencyLevels = {1, 4};
    session.plan.threads = 1;
    return session;
}

} // namespace

class TestDemoSessions : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void examplesLoadByNameAndPath();
    void examplesAreCanonical();
    void httpsPairSweepsOverTls();
};

void TestDemoSessions::httpsPairSweepsOverTls() {
    const app::Result<app::Session> demo = app::loadExampleSession(QStringLiteral("demo-https"));
    QVERIFY2(demo, demo ? "" : qPrintable(demo.error().toString()));
    QCOMPARE(demo->targets.size(), size_t(2));
    QCOMPARE(demo->targets[0].mode, app::DeploymentMode::Host);
    QCOMPARE(demo->targets[1].mode, app::DeploymentMode::UserlandProxy);

    app::HttpServerConfig serverConfig; // self-signed, as `serve http --tls` without --cert
    serverConfig.tls = true;
    app::HttpServer server(serverConfig);
    const auto serving = server.start();
    QVERIFY2(serving, serving ? "" : qPrintable(serving.error().toString()));
    app::TcpProxyConfig proxyConfig;
    proxyConfig.upstreamPort = server.port();
    app::TcpProxy proxy(proxyConfig);
    const auto relaying = proxy.start();
    QVERIFY2(relaying, relaying ? "" : qPrintable(relaying.error().toString()));

    constexpr uint64_t kRequests = 200;
    app::SessionDocument document;
    document.reset(onPorts(*demo, server.port(), proxy.port(), kRequests));
    app::SweepRunner runner(&document);
    const app::SweepOutcome outcome = test::runToEnd(runner);
    QVERIFY2(outcome.status == app::SweepOutcome::Status::Completed, qPrintable(outcome.error));
    QCOMPARE(outcome.pointsRun, 4);

    // Keep-alive connections: one handshake per connection, and every request answered.
    const app::Session& swept = document.session();
    QCOMPARE(swept.results.size(), size_t(4));
    for (const app::PointResult& result : swept.results) {
        QCOMPARE(result.complete, kRequests);
        QCOMPARE(result.failed, uint64_t(0));
        QCOMPARE(result.tlsHandshakes, uint64_t(result.concurrency));
        QVERIFY2(result.tlsProtocol.startsWith(QStringLiteral("TLSv1.")),
                 qPrintable(result.tlsProtocol));
        QVERIFY(result.tls.meanMs.value_or(0) > 0);
    }
    // The comparison sets the handshake beside the connect time, per target and level.
    const app::Comparison comparison(swept);
    for (const app::Target& target : swept.targets)
        for (int level : {1, 4}) {
            const app::ComparisonRow* row = comparison.find(target.id, level, app::Metric::TlsMean);
            QVERIFY2(row && row->statistics.mean > 0, qPrintable(target.name));
        }
    QVERIFY(
        app::comparisonReport(swept, comparison).contains(QStringLiteral("TLS handshake mean")));

    // The proxy relayed the proxy target's connections (1 + 4 measured, and
    // the probe's), and the server answered all of both targets' requests.
    QVERIFY2(proxy.stats().connections >= 5,
             qPrintable(QString::number(proxy.stats().connections)));
    QVERIFY2(server.stats().requests >= 4 * kRequests,
             qPrintable(QString::number(server.stats().requests)));
    proxy.stop();
    server.stop();
}

void TestDemoSessions::examplesLoadByNameAndPath() {
    QCOMPARE(app::exampleSessionNames(),
             (QStringList{QStringLiteral("demo-https"), QStringLiteral("demo-proxy"),
                          QStringLiteral("lab-apache-modes"), QStringLiteral("lab-k8s-paths"),
                          QStringLiteral("lab-memcached"), QStringLiteral("lab-nginx-bridge"),
                          QStringLiteral("lab-nginx-capacity"), QStringLiteral("lab-nginx-localhost"),
                          QStringLiteral("lab-tcp-rr"), QStringLiteral("memcached"),
                          QStringLiteral("tcp-rr")}));
    const app::Result<app::Session> demo = app::openSession(QStringLiteral("demo-proxy"));
    QVERIFY2(demo, demo ? "" : qPrintable(demo.error().toString()));
    QCOMPARE(demo->targets.size(), size_t(2));
    QCOMPARE(demo->targets[0].http.url, QStringLiteral("http://127.0.0.1:18080/"));
    QCOMPARE(demo->targets[0].mode, app::DeploymentMode::Host);
    QCOMPARE(demo->targets[1].http.url, QStringLiteral("http://127.0.0.1:18081/"));
    QCOMPARE(demo->targets[1].mode, app::DeploymentMode::UserlandProxy);
    QCOMPARE(demo->baseline()->id, demo->targets[0].id);
    QCOMPARE(demo->plan.concurrencyLevels, (std::vector<int>{1, 10, 50}));
    QCOMPARE(demo->plan.limit, app::PointLimit::Duration);
    QCOMPARE(demo->plan.durationSeconds, 2.0);
    QCOMPARE(demo->plan.repetitions, 3);
    QCOMPARE(demo->plan.order, app::SweepOrder::Interleaved);
    QVERIFY(app::validateSweepPlan(demo->plan));

    const app::Result<app::Session> memcached =
        app::openSession(QStringLiteral("memcached.loadscope"));
    QVERIFY2(memcached, memcached ? "" : qPrintable(memcached.error().toString()));
    QCOMPARE(memcached->targets.at(0).protocol, app::TargetProtocol::Memcache);
    QCOMPARE(memcached->targets.at(0).address, QStringLiteral("127.0.0.1:11211"));
    const app::Result<app::Session> rr = app::loadExampleSession(QStringLiteral("tcp-rr"));
    QVERIFY2(rr, rr ? "" : qPrintable(rr.error().toString()));
    QCOMPARE(rr->targets.at(0).protocol, app::TargetProtocol::TcpRr);

    // The same file by path, from the source tree.
    const QString source = qEnvironmentVariable("LOADSCOPE_SOURCE_DIR");
    if (!source.isEmpty()) {
        const auto byPath =
            app::openSession(source + QStringLiteral("/resources/sessions/demo-proxy.loadscope"));
        QVERIFY2(byPath, byPath ? "" : qPrintable(byPath.error().toString()));
        QVERIFY(*byPath == *demo);
    }
}

void TestDemoSessions::examplesAreCanonical() {
    // Examples are stored exactly as Loadscope writes them, so opening and
    // saving one shows no spurious change.
    for (const QString& name : app::exampleSessionNames()) {
        const app::Result<app::Session> session = app::loadExampleSession(name);
        QVERIFY2(session, session ? "" : qPrintable(session.error().toString()));
        QCOMPARE(app::serializeSession(*session), test::readFile(app::exampleSessionPath(name)));
    }
}

QTEST_GUILESS_MAIN(TestDemoSessions)
#include "tst_demo_sessions.moc"
