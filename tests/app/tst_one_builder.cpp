// One builder: a CLI one-shot and the session it amounts to give the same
// LoadSpec, field by field and byte by byte; and that spec is the one the
// command line asks for, checked against the flags themselves.
#include "app/cli/one_shot.h"
#include "app/report/error_reply_counting_protocol.h"
#include "app/session/session_json.h"
#include "app/session/target_rules.h"
#include "app/sweep/load_spec_builder.h"
#include "engine/http2_protocol.h"
#include "engine/http_protocol.h"
#include "load_spec_checks.h"
#include "tests/app/result_message.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <unistd.h>

using namespace loadscope;
using namespace std::chrono_literals;

namespace {

using Parse = app::Result<cli::OneShot> (*)(const QStringList&);

app::Result<engine::LoadSpec> specOf(const app::Target& target, int concurrency,
                                     const app::SweepPlan& plan) {
    auto draft = app::draftLoadSpec(target, concurrency, plan);
    if (!draft)
        return draft.error();
    // The address is what resolution would give; numeric here.
    draft->spec.target = *engine::SocketAddress::fromNumeric(draft->endpoint.host.toStdString(),
                                                             draft->endpoint.port);
    return std::move(draft->spec);
}

// The one-shot as a session file holds it: saved to bytes, read back.
std::optional<app::Session> throughSessionFile(const cli::OneShot& shot) {
    app::Session session;
    app::Target target = shot.target;
    target.id = QUuid::createUuid();
    target.colour = QStringLiteral("#0072b2");
    session.targets.push_back(target);
    session.plan = shot.plan;
    const QByteArray bytes = QJsonDocument(app::sessionToJson(session)).toJson();
    auto loaded = app::sessionFromJson(QJsonDocument::fromJson(bytes).object());
    if (!loaded) {
        qWarning("%s", qPrintable(loaded.error().toString()));
        return std::nullopt;
    }
    return std::move(*loaded);
}

// A session file of one target, JSON written with ' for " to stay readable.
QByteArray sessionFile(const QByteArray& targetFields, const QByteArray& planFields) {
    QByteArray json = "{'format': 'loadscope-session', 'version': 1, 'targets': [{'id': "
                      "'7d1c1f7e-3a0e-4a62-9a55-6f5d2b1f0a11', 'name': 'h', 'mode': 'host', " +
                      targetFields + "}], 'plan': {" + planFields + "}}";
    return json.replace('\'', '"');
}

} // namespace

class TestOneBuilder : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_body = m_dir.filePath(QStringLiteral("body.json"));
        QFile file(m_body);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"k\":1}");
    }

    void cliAndSessionGiveTheSameSpec_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("arguments");
        const long cpus = sysconf(_SC_NPROCESSORS_CONF);
        const QString lastCpu = QString::number(cpus - 1);
        QTest::newRow("http") << QStringLiteral("http")
                              << QStringList{QStringLiteral("-c"),
                                             QStringLiteral("8"),
                                             QStringLiteral("-n"),
                                             QStringLiteral("800"),
                                             QStringLiteral("-t"),
                                             QStringLiteral("5"),
                                             QStringLiteral("-k"),
                                             QStringLiteral("-l"),
                                             QStringLiteral("-s"),
                                             QStringLiteral("2.5"),
                                             QStringLiteral("-H"),
                                             QStringLiteral("X-Trace: 7"),
                                             QStringLiteral("-p"),
                                             m_body,
                                             QStringLiteral("-T"),
                                             QStringLiteral("application/json"),
                                             QStringLiteral("--pipeline"),
                                             QStringLiteral("4"),
                                             QStringLiteral("--threads"),
                                             QStringLiteral("2"),
                                             QStringLiteral("--cpus"),
                                             lastCpu + QStringLiteral(",0"),
                                             QStringLiteral("--warmup"),
                                             QStringLiteral("0.5"),
                                             QStringLiteral("http://127.0.0.1:8080/a?b=1")};
        QTest::newRow("http2")
            << QStringLiteral("http")
            << QStringList{QStringLiteral("-c"),   QStringLiteral("4"),
                           QStringLiteral("-n"),   QStringLiteral("400"),
                           QStringLiteral("--h2"), QStringLiteral("--max-concurrent-streams"),
                           QStringLiteral("10"),   QStringLiteral("--window-bits"),
                           QStringLiteral("18"),   QStringLiteral("--connection-window-bits"),
                           QStringLiteral("22"),   QStringLiteral("https://127.0.0.1:8443/x")};
        QTest::newRow("memcache") << QStringLiteral("memcache")
                                  << QStringList{QStringLiteral("-c"),
                                                 QStringLiteral("5"),
                                                 QStringLiteral("-t"),
                                                 QStringLiteral("2"),
                                                 QStringLiteral("-n"),
                                                 QStringLiteral("100"),
                                                 QStringLiteral("--ratio=3:7"),
                                                 QStringLiteral("--key-pattern=G:S"),
                                                 QStringLiteral("--key-minimum"),
                                                 QStringLiteral("10"),
                                                 QStringLiteral("--key-maximum"),
                                                 QStringLiteral("5000"),
                                                 QStringLiteral("--key-prefix"),
                                                 QStringLiteral("k-"),
                                                 QStringLiteral("--key-stddev"),
                                                 QStringLiteral("40"),
                                                 QStringLiteral("--key-median"),
                                                 QStringLiteral("200"),
                                                 QStringLiteral("-d"),
                                                 QStringLiteral("100"),
                                                 QStringLiteral("--pipeline"),
                                                 QStringLiteral("2"),
                                                 QStringLiteral("--preload"),
                                                 QStringLiteral("--timeout"),
                                                 QStringLiteral("3"),
                                                 QStringLiteral("--no-wake-coalescing"),
                                                 QStringLiteral("--profile"),
                                                 QStringLiteral("127.0.0.1:11211")};
        QTest::newRow("tcp-rr") << QStringLiteral("tcp-rr")
                                << QStringList{
                                       QStringLiteral("-r"),    QStringLiteral("100,200"),
                                       QStringLiteral("-n"),    QStringLiteral("500"),
                                       QStringLiteral("-l"),    QStringLiteral("4"),
                                       QStringLiteral("-c"),    QStringLiteral("5"),
                                       QStringLiteral("--crr"), QStringLiteral("--timeout"),
                                       QStringLiteral("2"),     QStringLiteral("[::1]:9000")};
        QTest::newRow("tcp-stream") << QStringLiteral("tcp-stream")
                                    << QStringList{QStringLiteral("-l"),
                                                   QStringLiteral("3"),
                                                   QStringLiteral("-m"),
                                                   QStringLiteral("8192"),
                                                   QStringLiteral("-c"),
                                                   QStringLiteral("2"),
                                                   QStringLiteral("127.0.0.1:9001")};
    }
    void cliAndSessionGiveTheSameSpec() {
        QFETCH(QString, command);
        QFETCH(QStringList, arguments);
        const std::map<QString, Parse> parsers{
            {QStringLiteral("http"), cli::parseHttpOneShot},
            {QStringLiteral("memcache"), cli::parseMemcacheOneShot},
            {QStringLiteral("tcp-rr"), cli::parseTcpRrOneShot},
            {QStringLiteral("tcp-stream"), cli::parseTcpStreamOneShot}};
        const auto shot = parsers.at(command)(
            QStringList{QStringLiteral("loadscope-cli ") + command} + arguments);
        QVERIFY2(shot, qPrintable(loadscope::testing::failureOf(shot)));
        const auto fromCli = specOf(shot->target, shot->concurrency(), shot->plan);
        QVERIFY2(fromCli, qPrintable(loadscope::testing::failureOf(fromCli)));

        const auto session = throughSessionFile(*shot);
        QVERIFY(session);
        QCOMPARE(session->targets.size(), size_t(1));
        QCOMPARE(session->plan, shot->plan);
        const auto fromSession = specOf(session->targets.front(),
                                        session->plan.concurrencyLevels.front(), session->plan);
        QVERIFY2(fromSession, qPrintable(loadscope::testing::failureOf(fromSession)));
        const QString differences = testing::loadSpecDifferences(*fromCli, *fromSession);
        QVERIFY2(differences.isEmpty(), qPrintable(differences));

        // And the spec is what the flags say.
        const engine::LoadSpec& spec = *fromCli;
        if (QByteArrayView(QTest::currentDataTag()) == "http2") {
            QCOMPARE(spec.concurrency, 4u);
            QCOMPARE(spec.requests, uint64_t(400));
            QCOMPARE(spec.pipeline, 10u); // the streams, outstanding per connection
            QCOMPARE(spec.tls.alpn, std::string("h2"));
            // The settings the comparison above cannot see, in both specs.
            for (const engine::LoadSpec* each : {&*fromCli, &*fromSession}) {
                const auto* h2 = dynamic_cast<const engine::Http2Protocol*>(each->protocol.get());
                QVERIFY(h2);
                QVERIFY(h2->settings().tls);
                QCOMPARE(h2->settings().windowBits, 18);
                QCOMPARE(h2->settings().connectionWindowBits, 22);
            }
        } else if (command == u"http") {
            QCOMPARE(spec.concurrency, 8u);
            QCOMPARE(spec.requests, uint64_t(800));
            QCOMPARE(spec.duration, std::chrono::nanoseconds(5s));
            QCOMPARE(spec.requestTimeout, std::chrono::nanoseconds(2500ms));
            QCOMPARE(spec.pipeline, 4u);
            QCOMPARE(spec.threads, 2u);
            // In the order given, each CPU once.
            const int last = int(sysconf(_SC_NPROCESSORS_CONF) - 1);
            std::vector<int> cpus{last};
            if (last != 0)
                cpus.push_back(0);
            QCOMPARE(spec.cpus, cpus);
            QCOMPARE(spec.warmup, std::chrono::nanoseconds(500ms));
            QVERIFY(spec.wakeCoalescing); // the default
            QVERIFY(!spec.profile);       // the default
            QCOMPARE(spec.target.toString(), std::string("127.0.0.1:8080"));
            QVERIFY(spec.protocol->keepAlive());
            QVERIFY(!spec.protocol->checksDocumentLength()); // -l
            QCOMPARE(testing::requestBytes(*spec.protocol, 0, spec.seed, 1),
                     std::string("POST /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
                                 "User-Agent: Loadscope\r\nAccept: */*\r\n"
                                 "Content-Type: application/json\r\nContent-Length: 7\r\n"
                                 "X-Trace: 7\r\n\r\n{\"k\":1}"));
        } else if (command == u"memcache") {
            QCOMPARE(spec.concurrency, 10u); // -c x -t
            QCOMPARE(spec.threads, 2u);
            QCOMPARE(spec.requests, uint64_t(1000)); // -n per client
            QCOMPARE(spec.pipeline, 2u);
            QCOMPARE(spec.requestTimeout, std::chrono::nanoseconds(3s));
            QVERIFY(!spec.wakeCoalescing);                               // --no-wake-coalescing
            QVERIFY(spec.profile);                                       // --profile
            QCOMPARE(spec.protocol->operationNames().size(), size_t(8)); // errors split
            const std::string sent = testing::requestBytes(*spec.protocol, 0, spec.seed, 10);
            QVERIFY2(sent.starts_with("get k-") || sent.starts_with("set k-"), sent.c_str());
            const auto preload = app::memcachePreloadSpec(session->targets.front(), spec);
            QVERIFY(preload && *preload);
            QCOMPARE((*preload)->requests, uint64_t(4991)); // keys 10 to 5000
        } else if (command == u"tcp-rr") {
            QCOMPARE(spec.concurrency, 5u);
            QCOMPARE(spec.requests, uint64_t(500));
            QCOMPARE(spec.duration, std::chrono::nanoseconds(4s));
            QCOMPARE(spec.requestTimeout, std::chrono::nanoseconds(2s));
            QVERIFY(!spec.protocol->keepAlive()); // --crr
            QCOMPARE(testing::requestBytes(*spec.protocol, 0, spec.seed, 1).size(), size_t(100));
            QCOMPARE(spec.target.toString(), std::string("[::1]:9000"));
        } else {
            QCOMPARE(spec.concurrency, 2u);
            QCOMPARE(spec.requests, uint64_t(0));
            QCOMPARE(spec.duration, std::chrono::nanoseconds(3s));
            QVERIFY(spec.protocol->isStream());
            QCOMPARE(spec.protocol->streamChunk().size(), size_t(8192));
        }
    }

    // A file written before the new fields existed opens with their defaults.
    void oldSessionFilesOpenWithDefaults() {
        const QByteArray old =
            sessionFile("'protocol': 'http', 'address': '', 'http': {'url': "
                        "'http://127.0.0.1:8080/'}",
                        "'concurrency': [1], 'limit': 'requests', 'requestsPerPoint': 10");
        const auto session = app::sessionFromJson(QJsonDocument::fromJson(old).object());
        QVERIFY2(session, qPrintable(session ? QString() : session.error().toString()));
        const app::Target& target = session->targets.front();
        QCOMPARE(target.responseTimeoutSeconds, 30.0);
        QVERIFY(!target.http.acceptVariableLength);
        QVERIFY(!target.http.http10);
        QCOMPARE(session->plan.requestsTimeLimitSeconds, 0.0);
        QVERIFY(session->plan.wakeCoalescing);
        // Written back, the defaults add no keys.
        QVERIFY(!app::sweepPlanToJson(session->plan).contains(QStringLiteral("wakeCoalescing")));
        const QJsonObject saved = app::targetToJson(target);
        QVERIFY(!saved.contains(QStringLiteral("responseTimeoutSeconds")));
        QVERIFY(!saved.value(QStringLiteral("http"))
                     .toObject()
                     .contains(QStringLiteral("acceptVariableLength")));
        QVERIFY(!saved.value(QStringLiteral("http")).toObject().contains(QStringLiteral("http10")));
        // Set, it is saved and read back.
        app::Target ab = target;
        ab.http.http10 = true;
        const QJsonObject withKey = app::targetToJson(ab);
        QCOMPARE(withKey.value(QStringLiteral("http")).toObject().value(QStringLiteral("http10")),
                 QJsonValue(true));
        const QByteArray file =
            sessionFile("'protocol': 'http', 'address': '', 'http': {'url': "
                        "'http://127.0.0.1:8080/', 'http10': true}",
                        "'concurrency': [1], 'limit': 'requests', 'requestsPerPoint': 10");
        const auto read = app::sessionFromJson(QJsonDocument::fromJson(file).object());
        QVERIFY(read && read->targets.front().http.http10);
        auto cli = loadscope::cli::parseHttpOneShot({QStringLiteral("loadscope-cli http"),
                                                     QStringLiteral("--http1.0"),
                                                     QStringLiteral("http://127.0.0.1:8080/")});
        QVERIFY(cli && cli->target.http.http10);
    }

    // Rules the session file now shares with the CLI and the window.
    void sessionLoadingUsesTheSameRules_data() {
        QTest::addColumn<QByteArray>("target");
        QTest::addColumn<QString>("message");
        QTest::newRow("header name with a space")
            << QByteArray("'protocol': 'http', 'http': {'url': 'http://127.0.0.1/', "
                          "'headers': [{'name': 'X Bad', 'value': '1'}]}")
            << QStringLiteral("header name 'X Bad'");
        QTest::newRow("address without a port")
            << QByteArray("'protocol': 'tcp-rr', 'address': '127.0.0.1'")
            << QStringLiteral("expected HOST:PORT");
        QTest::newRow("TLS version")
            << QByteArray("'protocol': 'http', 'http': {'url': 'https://127.0.0.1/', "
                          "'tls': {'version': '1.1'}}")
            << QStringLiteral("TLS version '1.1'");
        QTest::newRow("TLS key without its certificate")
            << QByteArray("'protocol': 'http', 'http': {'url': 'https://127.0.0.1/', "
                          "'tls': {'keyFile': '/k.pem'}}")
            << QStringLiteral("without certFile");
    }

    // The TLS options of an https target from the session file and the CLI
    // alike into the spec's TlsSpec; a file without them reads as the defaults.
    void tlsOptionsReachTheSpec() {
        const QByteArray plain = sessionFile(
            "'protocol': 'http', 'address': '', 'http': {'url': 'https://localhost:8443/x'}",
            "'concurrency': [1], 'limit': 'requests', 'requestsPerPoint': 10");
        const auto old = app::sessionFromJson(QJsonDocument::fromJson(plain).object());
        QVERIFY(old);
        const app::Target& target = old->targets.front();
        QVERIFY(!target.http.tlsInsecure && target.http.tlsResume);
        QVERIFY(!app::targetToJson(target)
                     .value(QStringLiteral("http"))
                     .toObject()
                     .contains(QStringLiteral("tls")));
        const auto defaults = app::draftLoadSpec(target, 1, old->plan);
        QVERIFY(defaults);
        QVERIFY(defaults->spec.tls.enabled);
        QCOMPARE(defaults->spec.tls.serverName, std::string("localhost"));
        QVERIFY(defaults->spec.tls.verify && defaults->spec.tls.resume);
        QCOMPARE(defaults->endpoint.port, quint16(8443));

        app::Target changed = target;
        changed.http.tlsInsecure = true;
        changed.http.tlsResume = false;
        changed.http.tlsCaFile = QStringLiteral("/ca.pem");
        changed.http.tlsVersion = QStringLiteral("1.3");
        const QJsonObject saved = app::targetToJson(changed);
        const QByteArray file =
            sessionFile("'protocol': 'http', 'address': '', 'http': " +
                            QJsonDocument(saved.value(QStringLiteral("http")).toObject())
                                .toJson(QJsonDocument::Compact)
                                .replace('"', '\''),
                        "'concurrency': [1], 'limit': 'requests', 'requestsPerPoint': 10");
        const auto read = app::sessionFromJson(QJsonDocument::fromJson(file).object());
        QVERIFY2(read, qPrintable(read ? QString() : read.error().toString()));
        QCOMPARE(read->targets.front().http, changed.http);
        const auto spec = app::draftLoadSpec(changed, 1, old->plan);
        QVERIFY(spec);
        QVERIFY(!spec->spec.tls.verify && !spec->spec.tls.resume);
        QCOMPARE(spec->spec.tls.caFile, std::string("/ca.pem"));
        QVERIFY(spec->spec.tls.version == engine::TlsVersion::Tls13);

        auto cli = loadscope::cli::parseHttpOneShot(
            {QStringLiteral("loadscope-cli http"), QStringLiteral("--insecure"),
             QStringLiteral("--no-tls-resume"), QStringLiteral("--tls-version"),
             QStringLiteral("1.3"), QStringLiteral("--cacert"), QStringLiteral("/ca.pem"),
             QStringLiteral("https://localhost:8443/x")});
        QVERIFY2(cli, qPrintable(cli ? QString() : cli.error().toString()));
        QCOMPARE(cli->target.http.tlsInsecure, true);
        QCOMPARE(cli->target.http.tlsResume, false);
        QCOMPARE(cli->target.http.tlsVersion, QStringLiteral("1.3"));
        QCOMPARE(cli->target.http.tlsCaFile, QStringLiteral("/ca.pem"));
    }

    // --h2 and h2load's settings: the CLI, a session file read back and the
    // spec agree (h2 by ALPN, streams as the requests outstanding per connection).
    void http2OptionsReachTheSpec() {
        auto cli = loadscope::cli::parseHttpOneShot(
            {QStringLiteral("loadscope-cli http"), QStringLiteral("--h2"),
             QStringLiteral("--max-concurrent-streams"), QStringLiteral("6"),
             QStringLiteral("--window-bits"), QStringLiteral("20"),
             QStringLiteral("--connection-window-bits"), QStringLiteral("24"),
             QStringLiteral("https://localhost:8443/x")});
        QVERIFY2(cli, qPrintable(cli ? QString() : cli.error().toString()));
        const app::HttpOptions& http = cli->target.http;
        QVERIFY(http.http2);
        QCOMPARE(http.maxConcurrentStreams, 6);
        const auto session = throughSessionFile(*cli);
        QVERIFY(session);
        QCOMPARE(session->targets.front().http, http);
        const auto draft = app::draftLoadSpec(session->targets.front(), 1, session->plan);
        QVERIFY2(draft, qPrintable(draft ? QString() : draft.error().toString()));
        const auto* h2 = dynamic_cast<const engine::Http2Protocol*>(draft->spec.protocol.get());
        QVERIFY(h2);
        QCOMPARE(draft->spec.pipeline, 6u);
        QCOMPARE(draft->spec.tls.alpn, std::string("h2"));
        QVERIFY(h2->settings().tls);
        QCOMPARE(h2->settings().windowBits, 20);
        QCOMPARE(h2->settings().connectionWindowBits, 24);
        // An HTTP/1 target's file has no http2 key.
        app::Target plain = cli->target;
        plain.http.http2 = false;
        QVERIFY(!app::targetToJson(plain)
                     .value(QStringLiteral("http"))
                     .toObject()
                     .contains(QStringLiteral("http2")));
    }
    void sessionLoadingUsesTheSameRules() {
        QFETCH(QByteArray, target);
        QFETCH(QString, message);
        const QByteArray file = sessionFile(target, "'concurrency': [1], 'durationSeconds': 1");
        const auto loaded = app::sessionFromJson(QJsonDocument::fromJson(file).object());
        QVERIFY(!loaded);
        const QString error = loaded.error().toString();
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    // Off, the plan's wake coalescing is saved and read back; a value that is
    // not a boolean is refused, the field named.
    void wakeCoalescingInTheSessionFile() {
        const QByteArray target = "'protocol': 'http', 'http': {'url': 'http://127.0.0.1/'}";
        const auto off = app::sessionFromJson(
            QJsonDocument::fromJson(sessionFile(target, "'concurrency': [1], 'durationSeconds': 1, "
                                                        "'wakeCoalescing': false"))
                .object());
        QVERIFY2(off, qPrintable(off ? QString() : off.error().toString()));
        QVERIFY(!off->plan.wakeCoalescing);
        QCOMPARE(app::sweepPlanToJson(off->plan).value(QStringLiteral("wakeCoalescing")),
                 QJsonValue(false));
        const auto spec = specOf(off->targets.front(), 1, off->plan);
        QVERIFY(spec && !spec->wakeCoalescing);
        const auto bad = app::sessionFromJson(
            QJsonDocument::fromJson(sessionFile(target, "'concurrency': [1], 'durationSeconds': 1, "
                                                        "'wakeCoalescing': 'no'"))
                .object());
        QVERIFY(!bad);
        QVERIFY2(bad.error().toString().contains(QStringLiteral("wakeCoalescing")),
                 qPrintable(bad.error().toString()));
    }

    // On, the plan's CPU profile is saved and read back and reaches the spec;
    // off, the key is not written; a value that is not a boolean is refused.
    void profileInTheSessionFile() {
        const QByteArray target = "'protocol': 'http', 'http': {'url': 'http://127.0.0.1/'}";
        const auto on = app::sessionFromJson(
            QJsonDocument::fromJson(sessionFile(target, "'concurrency': [1], 'durationSeconds': 1, "
                                                        "'profile': true"))
                .object());
        QVERIFY2(on, qPrintable(on ? QString() : on.error().toString()));
        QVERIFY(on->plan.profile);
        QCOMPARE(app::sweepPlanToJson(on->plan).value(QStringLiteral("profile")), QJsonValue(true));
        const auto spec = specOf(on->targets.front(), 1, on->plan);
        QVERIFY(spec && spec->profile);
        app::SweepPlan off = on->plan;
        off.profile = false;
        QVERIFY(!app::sweepPlanToJson(off).contains(QStringLiteral("profile")));
        const auto bad = app::sessionFromJson(
            QJsonDocument::fromJson(sessionFile(target, "'concurrency': [1], 'durationSeconds': 1, "
                                                        "'profile': 1"))
                .object());
        QVERIFY(!bad);
        QVERIFY2(bad.error().toString().contains(QStringLiteral("profile")),
                 qPrintable(bad.error().toString()));
    }

    void endpointRule_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("host"); // empty: refused
        QTest::addColumn<int>("port");
        QTest::newRow("v4") << QStringLiteral("127.0.0.1:11211") << QStringLiteral("127.0.0.1")
                            << 11211;
        QTest::newRow("name") << QStringLiteral(" db.local:80 ") << QStringLiteral("db.local")
                              << 80;
        QTest::newRow("v6") << QStringLiteral("[::1]:9000") << QStringLiteral("::1") << 9000;
        QTest::newRow("no port") << QStringLiteral("127.0.0.1") << QString() << 0;
        QTest::newRow("port 0") << QStringLiteral("127.0.0.1:0") << QString() << 0;
        QTest::newRow("port too big") << QStringLiteral("h:65536") << QString() << 0;
        QTest::newRow("v6 unbracketed") << QStringLiteral("::1:9000") << QString() << 0;
        QTest::newRow("space in host") << QStringLiteral("a b:80") << QString() << 0;
    }
    void endpointRule() {
        QFETCH(QString, text);
        QFETCH(QString, host);
        QFETCH(int, port);
        const auto endpoint = app::parseEndpoint(text);
        QCOMPARE(endpoint.ok(), !host.isEmpty());
        if (!endpoint) {
            QVERIFY(endpoint.error().message.contains(QStringLiteral("HOST:PORT")));
            return;
        }
        QCOMPARE(endpoint->host, host);
        QCOMPARE(int(endpoint->port), port);
    }

    void headerNameRule_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("ok");
        QTest::newRow("token") << QStringLiteral("X-Trace") << true;
        QTest::newRow("empty") << QStringLiteral("  ") << false;
        QTest::newRow("space") << QStringLiteral("X Trace") << false;
        QTest::newRow("colon") << QStringLiteral("X:Trace") << false;
        QTest::newRow("non-ASCII") << QStringLiteral("X-Tr\u00e4ce") << false;
    }
    void headerNameRule() {
        QFETCH(QString, name);
        QFETCH(bool, ok);
        QCOMPARE(app::checkHeaderName(name).ok(), ok);
    }

    // A sweep's memcached run folds its split error replies back as the CLI's does.
    void errorRepliesFoldBack() {
        engine::RunResult run;
        const std::vector<std::pair<std::string, uint64_t>> operations{{"set", 10},
                                                                       {"get", 20},
                                                                       {"set ERROR", 1},
                                                                       {"set CLIENT_ERROR", 2},
                                                                       {"set SERVER_ERROR", 3},
                                                                       {"get ERROR", 4},
                                                                       {"get CLIENT_ERROR", 5},
                                                                       {"get SERVER_ERROR", 6}};
        // As the engine records them: every reply in the latency, the successful ones
        // (none of an error kind) in the count and bytes.
        for (const auto& [name, replies] : operations) {
            const bool error = name.find(' ') != std::string::npos;
            engine::OperationStats stats{name, error ? 0 : replies,       0,
                                         0,    error ? 0 : replies * 100, {}};
            stats.latency.recordN(1000, replies);
            run.operations.push_back(std::move(stats));
        }
        const engine::RunResult folded = app::withErrorRepliesFolded(run);
        QCOMPARE(folded.operations.size(), size_t(2));
        QCOMPARE(folded.operations[0].name, std::string("set"));
        QCOMPARE(folded.operations[0].count, uint64_t(10)); // error replies raise no count
        QCOMPARE(folded.operations[0].latency.count(), uint64_t(16));
        QCOMPARE(folded.operations[1].count, uint64_t(20));
        QCOMPARE(folded.operations[1].latency.count(), uint64_t(35));
        QCOMPARE(folded.operations[1].bytesReceived, uint64_t(2000));
        const app::ErrorReplyCounts counts = app::foldErrorReplies(run);
        QCOMPARE(counts.error, uint64_t(5));
        QCOMPARE(counts.clientError, uint64_t(7));
        QCOMPARE(counts.serverError, uint64_t(9));

        // Four operations of another protocol are not taken for split replies.
        engine::RunResult other;
        for (const char* name : {"a", "b", "c", "d"})
            other.operations.push_back(engine::OperationStats{name, 1, 0, 0, 0, {}});
        QCOMPARE(app::foldErrorReplies(other).total(), uint64_t(0));
        QCOMPARE(other.operations.size(), size_t(4));
    }

private:
    QTemporaryDir m_dir;
    QString m_body;
};

QTEST_GUILESS_MAIN(TestOneBuilder)
#include "tst_one_builder.moc"
