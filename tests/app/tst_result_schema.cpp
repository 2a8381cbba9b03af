// The one result schema: CLI JSON of every command from a PointResult with
// known counts, the results CSV header, and the session file's new keys.
// Expected keys and values are written out by hand (the README's promises and
// arithmetic on the counts), never computed by the schema again.
#include "app/report/memtier_report.h"
#include "app/report/result_json.h"
#include "app/session/csv_export.h"
#include "app/session/json_reader.h"
#include "app/session/metric.h"
#include "app/session/result_schema.h"
#include "app/session/session_json.h"
#include "engine/run_result.h"
#include "readme_text.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QTest>
#include <algorithm>
#include <iterator>
#include <map>
#include <set>

using namespace loadscope;
using namespace loadscope::app;

namespace {

constexpr double kTolerance = 1e-9;

// 1000 requests in 2 s on 10 connections and 2 threads; half the requests
// took 1 us, half 2 us (values a histogram holds exactly).
engine::RunResult knownRun() {
    engine::RunResult r;
    r.complete = 1000;
    r.failed = 10;
    r.errors = {1, 2, 0, 3, 0, 4}; // connect, receive, length, exceptions, write, timeout
    r.non2xx = 5;
    r.keepAlive = 990;
    r.connectionsOpened = 12;
    r.statusCodes = {{200, 995}, {503, 5}};
    r.bytesTotal = 2'048'000;
    r.bytesBody = 1'024'000;
    r.bytesSent = 512'000;
    r.durationSeconds = 2.0;
    r.concurrency = 10;
    r.threads = 2;
    r.serverSoftware = "nginx/1.22";
    r.documentLength = 1024;
    r.firstError = "connection refused";
    r.threadCpus = {0, 1};
    r.pinned = true;
    r.clientCpuSeconds = 1.0;
    r.total.recordN(1000, 500);
    r.total.recordN(2000, 500);
    r.connect.recordN(1000, 12);
    r.waiting.recordN(1000, 1000);
    r.processing.recordN(1000, 1000);
    r.hits = 600;
    r.misses = 300;
    engine::OperationStats set{"set", 100, 0, 0, 0, {}};
    set.latency.recordN(2000, 100);
    engine::OperationStats get{"get", 900, 600, 300, 0, {}};
    get.latency.recordN(1000, 900);
    r.operations.push_back(std::move(set));
    r.operations.push_back(std::move(get));
    return r;
}

PointResult knownResult() {
    PointResult result = pointResultFromRun(knownRun(), QUuid::createUuid(), 10, 0, {});
    result.errorReplies = ErrorReplies{1, 1, 1};
    return result;
}

// The keys every command's --json has (README "JSON keys").
constexpr const char* kCommonKeys =
    "complete failed failed_connect failed_receive failed_length failed_exceptions failed_write "
    "timeouts failed_tls bytes_total bytes_body bytes_sent duration_s transfer_rate_kib_s "
    "concurrency "
    "threads thread_cpus threads_pinned client_cpu_s client_cpu_load connections_opened "
    "cancelled first_error latency_ms connect_ms waiting_ms processing_ms";

// The words of `text`, as a set of keys.
std::set<QString> words(const QString& text) {
    const QStringList list = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    return {list.begin(), list.end()};
}

std::set<QString> commonAnd(const char* more) {
    return words(QLatin1String(kCommonKeys) + QLatin1Char(' ') + QLatin1String(more));
}

std::set<QString> keySet(const QJsonObject& object) {
    const QStringList keys = object.keys();
    return {keys.begin(), keys.end()};
}

double number(const QJsonObject& o, const char* key) {
    return o.value(QLatin1String(key)).toDouble();
}

void checkLatencyObject(const QJsonObject& latency, double minMs, double maxMs) {
    QCOMPARE(keySet(latency), words(QStringLiteral("min mean sd p50 p66 p75 p80 p90 p95 p98 p99 "
                                                   "p99_9 p99_99 max")));
    QCOMPARE(number(latency, "min"), minMs);
    QCOMPARE(number(latency, "max"), maxMs);
}

// The README's own words on a command's --json, so that the two cannot drift:
// the keys of `http`'s JSON less `except`, plus `plus` for every command of
// the section and `own[command]` for one of them, as the section says it in
// one sentence: "`--json` has the keys `http` has except `a`, `b` and `c`,
// plus `d` and `e`; for `tcp-rr` also `f`; for `tcp-stream` also `g`."
// Text in parentheses explains and names no key.
struct JsonKeyPromise {
    std::set<QString> except;
    std::set<QString> plus;
    std::map<QString, std::set<QString>> own;
    QString problem; // not found as that sentence
};

// The section under `heading` ("### `loadscope-cli memcache`"), to the next heading.
QString readmeSection(const QString& heading) {
    const QString text = loadscope::testing::readmeMarkdown();
    const qsizetype start = text.indexOf(QLatin1Char('\n') + heading + QLatin1Char('\n'));
    if (start < 0)
        return {};
    const qsizetype end = text.indexOf(QStringLiteral("\n#"), start + heading.size() + 2);
    return text.mid(start, end < 0 ? -1 : end - start);
}

std::set<QString> backticked(const QString& text) {
    static const QRegularExpression word(QStringLiteral("`([a-z0-9_-]+)`"));
    std::set<QString> words;
    for (auto it = word.globalMatch(text); it.hasNext();)
        words.insert(it.next().captured(1));
    return words;
}

QString withoutParentheses(const QString& text) {
    QString kept;
    int depth = 0;
    for (const QChar c : text) {
        if (c == QLatin1Char('('))
            ++depth;
        else if (c == QLatin1Char(')'))
            depth = qMax(0, depth - 1);
        else if (depth == 0)
            kept += c;
    }
    return kept;
}

JsonKeyPromise readmeJsonKeyPromise(const QString& heading) {
    JsonKeyPromise promise;
    const QString section = readmeSection(heading).simplified(); // one line
    const QString opening = QStringLiteral("`--json` has the keys `http` has except ");
    const qsizetype at = section.indexOf(opening);
    if (at < 0) {
        promise.problem = QStringLiteral("no \"%1\" under %2").arg(opening, heading);
        return promise;
    }
    // To the end of the sentence: a full stop before a space or a line's end.
    QString sentence = withoutParentheses(section.mid(at + opening.size()));
    static const QRegularExpression stop(QStringLiteral("\\.(\\s|$)"));
    sentence = sentence.left(sentence.indexOf(stop)).simplified();
    const qsizetype plus = sentence.indexOf(QStringLiteral(", plus "));
    if (plus < 0) {
        promise.problem = QStringLiteral("no \", plus\" in \"%1\"").arg(sentence);
        return promise;
    }
    promise.except = backticked(sentence.left(plus));
    const QStringList parts = sentence.mid(plus).split(QLatin1Char(';'));
    promise.plus = backticked(parts.constFirst());
    static const QRegularExpression forCommand(QStringLiteral("^\\s*for `([a-z-]+)` also (.*)$"));
    for (qsizetype i = 1; i < parts.size(); ++i) {
        const auto match = forCommand.match(parts.at(i));
        if (!match.hasMatch()) {
            promise.problem = QStringLiteral("not \"for `COMMAND` also ...\": %1").arg(parts.at(i));
            return promise;
        }
        promise.own[match.captured(1)] = backticked(match.captured(2));
    }
    return promise;
}

std::set<QString> promisedKeys(const std::set<QString>& http, const JsonKeyPromise& promise,
                               const QString& command) {
    std::set<QString> keys;
    for (const QString& key : http)
        if (!promise.except.count(key))
            keys.insert(key);
    keys.insert(promise.plus.begin(), promise.plus.end());
    if (const auto own = promise.own.find(command); own != promise.own.end())
        keys.insert(own->second.begin(), own->second.end());
    return keys;
}

QString describe(const std::set<QString>& keys) {
    return QStringList(keys.begin(), keys.end()).join(QLatin1Char(' '));
}

} // namespace

class TestResultSchema : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void httpJsonHasEveryDocumentedKeyAndValue() {
        CliResultContext context;
        context.protocol = TargetProtocol::Http;
        context.url = QStringLiteral("http://127.0.0.1:8080/");
        context.pipeline = 4;
        const QJsonObject json = cliResultJson(knownResult(), context);

        QCOMPARE(keySet(json),
                 commonAnd("requests_per_second non_2xx keep_alive server_software "
                           "document_length status_codes url pipeline failed_rst_stream "
                           "failed_goaway"));
        QCOMPARE(number(json, "complete"), 1000.0);
        QCOMPARE(number(json, "failed"), 10.0);
        QCOMPARE(number(json, "failed_connect"), 1.0);
        QCOMPARE(number(json, "failed_receive"), 2.0);
        QCOMPARE(number(json, "failed_exceptions"), 3.0);
        QCOMPARE(number(json, "timeouts"), 4.0);
        // (1000 complete - 10 failed) / 2 s: failures do not count.
        QCOMPARE(number(json, "requests_per_second"), 495.0);
        QCOMPARE(number(json, "transfer_rate_kib_s"), 1000.0); // 2048000 / 1024 / 2
        QCOMPARE(number(json, "client_cpu_load"), 0.25);       // 1 s / (2 s x 2 threads)
        QCOMPARE(number(json, "connections_opened"), 12.0);
        QCOMPARE(number(json, "non_2xx"), 5.0);
        QCOMPARE(number(json, "keep_alive"), 990.0);
        QCOMPARE(number(json, "document_length"), 1024.0);
        QCOMPARE(number(json, "concurrency"), 10.0);
        QCOMPARE(number(json, "threads"), 2.0);
        QCOMPARE(number(json, "pipeline"), 4.0);
        QCOMPARE(json.value(QStringLiteral("server_software")).toString(),
                 QStringLiteral("nginx/1.22"));
        QCOMPARE(json.value(QStringLiteral("first_error")).toString(),
                 QStringLiteral("connection refused"));
        QCOMPARE(json.value(QStringLiteral("url")).toString(),
                 QStringLiteral("http://127.0.0.1:8080/"));
        QCOMPARE(json.value(QStringLiteral("threads_pinned")).toBool(), true);
        QCOMPARE(json.value(QStringLiteral("thread_cpus")).toArray(), (QJsonArray{0, 1}));
        QCOMPARE(json.value(QStringLiteral("status_codes")).toObject(),
                 (QJsonObject{{QStringLiteral("200"), 995}, {QStringLiteral("503"), 5}}));
        const QJsonObject latency = json.value(QStringLiteral("latency_ms")).toObject();
        checkLatencyObject(latency, 0.001, 0.002);
        QCOMPARE(number(latency, "mean"), 0.0015);
        QCOMPARE(number(latency, "p50"), 0.001);
        QCOMPARE(number(latency, "p99"), 0.002);
        checkLatencyObject(json.value(QStringLiteral("connect_ms")).toObject(), 0.001, 0.001);
    }

    void memcacheJsonHasMemtierFigures() {
        MemcacheRunSetup setup;
        setup.server = QStringLiteral("127.0.0.1:11211");
        setup.threads = 2;
        setup.clientsPerThread = 5;
        setup.pipeline = 1;
        setup.requestsPerClient = 100;
        CliResultContext context;
        context.protocol = TargetProtocol::Memcache;
        context.memcache = setup;
        const QJsonObject json = cliResultJson(knownResult(), context);

        QCOMPARE(keySet(json),
                 commonAnd("ops_per_second sets gets sets_per_second gets_per_second hits misses "
                           "hits_per_second misses_per_second hit_ratio kb_per_second "
                           "error_replies set_latency_ms get_latency_ms server clients_per_thread "
                           "pipeline requests_per_client test_time_s ratio key_pattern "
                           "key_minimum key_maximum key_prefix data_size"));
        QCOMPARE(number(json, "ops_per_second"), 495.0); // (1000 - 10 failed) / 2 s
        QCOMPARE(number(json, "sets"), 100.0);
        QCOMPARE(number(json, "gets"), 900.0);
        QCOMPARE(number(json, "sets_per_second"), 50.0);
        QCOMPARE(number(json, "gets_per_second"), 450.0);
        QCOMPARE(number(json, "hits"), 600.0);
        QCOMPARE(number(json, "misses"), 300.0);
        QCOMPARE(number(json, "hits_per_second"), 300.0);
        QCOMPARE(number(json, "misses_per_second"), 150.0);
        QVERIFY(qAbs(number(json, "hit_ratio") - 2.0 / 3.0) < kTolerance);
        QCOMPARE(number(json, "kb_per_second"), 1250.0); // (512000 + 2048000) / 1024 / 2
        QCOMPARE(json.value(QStringLiteral("error_replies")).toObject(),
                 (QJsonObject{{QStringLiteral("error"), 1},
                              {QStringLiteral("client_error"), 1},
                              {QStringLiteral("server_error"), 1}}));
        checkLatencyObject(json.value(QStringLiteral("set_latency_ms")).toObject(), 0.002, 0.002);
        checkLatencyObject(json.value(QStringLiteral("get_latency_ms")).toObject(), 0.001, 0.001);
        QCOMPARE(json.value(QStringLiteral("server")).toString(), setup.server);
        QCOMPARE(number(json, "clients_per_thread"), 5.0);
    }

    void netperfJsonNamesItsRate_data() {
        QTest::addColumn<QString>("test");
        QTest::addColumn<QString>("rateKey");
        QTest::addColumn<double>("rate");
        QTest::newRow("tcp-rr") << QStringLiteral("TCP_RR")
                                << QStringLiteral("transactions_per_second") << 495.0;
        // (512000 + 2048000) bytes x 8 / 10^6 / 2 s
        QTest::newRow("tcp-stream")
            << QStringLiteral("TCP_STREAM") << QStringLiteral("throughput_mbit_s") << 10.24;
    }
    void netperfJsonNamesItsRate() {
        QFETCH(QString, test);
        QFETCH(QString, rateKey);
        QFETCH(double, rate);
        NetperfRunSetup setup;
        setup.test = test;
        setup.server = QStringLiteral("127.0.0.1:12865");
        CliResultContext context;
        const bool stream = test == u"TCP_STREAM";
        context.protocol = stream ? TargetProtocol::TcpStream : TargetProtocol::TcpRr;
        context.netperf = setup;
        const QJsonObject json = cliResultJson(knownResult(), context);
        const QString own =
            stream ? QStringLiteral(" send_size") : QStringLiteral(" request_size response_size");
        QCOMPARE(keySet(json),
                 commonAnd(qPrintable(
                     rateKey + own +
                     QStringLiteral(" test server socket_send_bytes socket_recv_bytes"))));
        QVERIFY2(qAbs(json.value(rateKey).toDouble() - rate) < kTolerance,
                 qPrintable(QString::number(json.value(rateKey).toDouble())));
        QCOMPARE(json.value(QStringLiteral("test")).toString(), test);
    }

    // The README says which keys each command's --json has, beside http's:
    // each command's JSON of one result has exactly those, and every key of
    // http's is named in its list.
    void jsonKeysAreTheReadmes_data() {
        QTest::addColumn<QString>("heading");
        QTest::addColumn<int>("protocol");
        QTest::addColumn<QString>("command");
        QTest::newRow("memcache") << QStringLiteral("### `loadscope-cli memcache`")
                                  << int(TargetProtocol::Memcache) << QStringLiteral("memcache");
        QTest::newRow("tcp-rr") << QStringLiteral("### `loadscope-cli tcp-rr` and `tcp-stream`")
                                << int(TargetProtocol::TcpRr) << QStringLiteral("tcp-rr");
        QTest::newRow("tcp-stream")
            << QStringLiteral("### `loadscope-cli tcp-rr` and `tcp-stream`")
            << int(TargetProtocol::TcpStream) << QStringLiteral("tcp-stream");
    }
    void jsonKeysAreTheReadmes() {
        QFETCH(QString, heading);
        QFETCH(int, protocol);
        QFETCH(QString, command);
        CliResultContext http;
        http.protocol = TargetProtocol::Http;
        http.url = QStringLiteral("http://127.0.0.1:8080/");
        const std::set<QString> httpKeys = keySet(cliResultJson(knownResult(), http));
        const std::set<QString> httpListed =
            backticked(readmeSection(QStringLiteral("### `loadscope-cli http`")));
        for (const QString& key : httpKeys)
            QVERIFY2(httpListed.count(key),
                     qPrintable(key + QStringLiteral(" is not in the README")));

        CliResultContext context;
        context.protocol = TargetProtocol(protocol);
        if (context.protocol == TargetProtocol::Memcache) {
            MemcacheRunSetup setup;
            setup.server = QStringLiteral("127.0.0.1:11211");
            context.memcache = setup;
        } else {
            NetperfRunSetup setup;
            setup.test = context.protocol == TargetProtocol::TcpRr ? QStringLiteral("TCP_RR")
                                                                   : QStringLiteral("TCP_STREAM");
            setup.server = QStringLiteral("127.0.0.1:12865");
            context.netperf = setup;
        }
        const JsonKeyPromise promise = readmeJsonKeyPromise(heading);
        QVERIFY2(promise.problem.isEmpty(), qPrintable(promise.problem));
        // Each key the README takes away is one http has.
        for (const QString& key : promise.except)
            QVERIFY2(httpKeys.count(key), qPrintable(key + QStringLiteral(" is not http's")));
        const std::set<QString> keys = keySet(cliResultJson(knownResult(), context));
        const std::set<QString> promised = promisedKeys(httpKeys, promise, command);
        std::set<QString> missing;
        std::set<QString> unsaid;
        std::set_difference(promised.begin(), promised.end(), keys.begin(), keys.end(),
                            std::inserter(missing, missing.end()));
        std::set_difference(keys.begin(), keys.end(), promised.begin(), promised.end(),
                            std::inserter(unsaid, unsaid.end()));
        QVERIFY2(missing.empty() && unsaid.empty(),
                 qPrintable(QStringLiteral("promised but missing: %1; there but unsaid: %2")
                                .arg(describe(missing), describe(unsaid))));
    }

    void streamThroughputIsTheSendRateWhenNothingComesBack() {
        engine::RunResult run;
        run.bytesSent = 125'000'000;
        run.durationSeconds = 10;
        run.concurrency = 1;
        run.threads = 1;
        NetperfRunSetup setup;
        setup.test = QStringLiteral("TCP_STREAM");
        const QJsonObject json = tcpStreamResultJson(pointResultFromRun(run, {}, 1, 0, {}), setup);
        QCOMPARE(number(json, "throughput_mbit_s"), 100.0); // 10^9 bits in 10 s
        QVERIFY(!json.contains(QStringLiteral("first_error")));
    }

    void httpsJsonHasTheTlsFigures() {
        // 40 handshakes of 1 ms to 40 ms, 30 of them resumed: the figures as counted.
        engine::RunResult run;
        run.complete = 100;
        run.durationSeconds = 1;
        run.concurrency = 1;
        run.threads = 1;
        run.tlsHandshakes = 40;
        run.tlsResumed = 30;
        run.tlsProtocol = "TLSv1.3";
        run.tlsCipher = "TLS_AES_256_GCM_SHA384";
        run.errors[size_t(engine::ErrorClass::Tls)] = 2;
        run.failed = 2;
        for (int i = 1; i <= 40; ++i)
            run.tls.record(int64_t(i) * 1'000'000);
        CliResultContext context;
        context.protocol = TargetProtocol::Http;
        context.url = QStringLiteral("https://127.0.0.1:8443/");
        const QJsonObject json = cliResultJson(pointResultFromRun(run, {}, 1, 0, {}), context);
        QCOMPARE(number(json, "failed_tls"), 2.0);
        QCOMPARE(number(json, "tls_handshakes"), 40.0);
        QCOMPARE(number(json, "tls_resumed"), 30.0);
        QCOMPARE(number(json, "tls_resumed_ratio"), 0.75);
        QCOMPARE(json.value(QStringLiteral("tls_protocol")).toString(), QStringLiteral("TLSv1.3"));
        QCOMPARE(json.value(QStringLiteral("tls_cipher")).toString(),
                 QStringLiteral("TLS_AES_256_GCM_SHA384"));
        const QJsonObject tls = json.value(QStringLiteral("tls_ms")).toObject();
        QCOMPARE(number(tls, "min"), 1.0);
        QCOMPARE(number(tls, "max"), 40.0);
        QCOMPARE(number(tls, "mean"), 20.5);
        // A plain http result has none of them but the failure count.
        const QJsonObject plain = cliResultJson(knownResult(), context);
        QVERIFY(!plain.contains(QStringLiteral("tls_ms")));
        QVERIFY(!plain.contains(QStringLiteral("tls_handshakes")));
    }

    // A profile of 1000 successful requests, each sample 1 ms of CPU: every
    // figure is samples x 1000 us / 1000, by role, by path without other's
    // samples, and each role's user space apart; saved and read back whole.
    void profileFiguresPerRequest() {
        engine::RunResult run = knownRun();
        run.failed = 0; // 1000 successful
        engine::CpuProfile& p = run.profile;
        p.requested = true;
        p.cpus = 2;
        p.periodNs = 1'000'000;
        p.samples = 4000;
        p.idleSamples = 1000;
        p.lostSamples = 3;
        p.samplerCpuSeconds = 0.002;
        using engine::CpuPath;
        using engine::ProcessRole;
        const auto at = [&p](ProcessRole role, CpuPath path) -> uint64_t& {
            return p.counts[size_t(role)][size_t(path)];
        };
        at(ProcessRole::Server, CpuPath::User) = 500;
        at(ProcessRole::Server, CpuPath::TcpIp) = 100;
        at(ProcessRole::Client, CpuPath::TcpIp) = 200;
        at(ProcessRole::Client, CpuPath::Conntrack) = 50;
        at(ProcessRole::Other, CpuPath::User) = 2000;
        at(ProcessRole::Other, CpuPath::TcpIp) = 147;
        at(ProcessRole::Kernel, CpuPath::Softirq) = 3;
        p.stacks = {{"srv [server];[srv]", 500}, {"cli [client];[x];tcp_sendmsg", 200}};
        const PointResult result = pointResultFromRun(run, QUuid::createUuid(), 10, 0, {});
        CliResultContext context;
        context.protocol = TargetProtocol::TcpRr;
        const QJsonObject json =
            cliResultJson(result, context).value(QStringLiteral("cpu_profile")).toObject();
        QCOMPARE(number(json, "samples"), 4000.0);
        QCOMPARE(number(json, "idle_samples"), 1000.0);
        QCOMPARE(number(json, "lost_samples"), 3.0);
        QCOMPARE(number(json, "own_us_per_request"), 2.0);
        const QJsonObject byRole = json.value(QStringLiteral("by_role")).toObject();
        QCOMPARE(number(byRole, "server"), 600.0);
        QCOMPARE(number(byRole, "client"), 250.0);
        QCOMPARE(number(byRole, "other"), 2147.0);
        QCOMPARE(number(byRole, "kernel"), 3.0);
        QCOMPARE(number(byRole, "relay"), 0.0);
        const QJsonObject byPath = json.value(QStringLiteral("by_path")).toObject();
        QCOMPARE(byPath.size(), qsizetype(engine::kCpuPathCount));
        QCOMPARE(number(byPath, "user"), 500.0);   // the server's; other's left out
        QCOMPARE(number(byPath, "tcp_ip"), 300.0); // client and server
        QCOMPARE(number(byPath, "conntrack"), 50.0);
        QCOMPARE(number(byPath, "softirq"), 3.0);
        QCOMPARE(number(byPath, "nat"), 0.0);
        const QJsonObject server =
            json.value(QStringLiteral("by_role_path")).toObject().value(u"server").toObject();
        QCOMPARE(number(server, "user"), 500.0);
        QCOMPARE(number(server, "tcp_ip"), 100.0);
        QVERIFY(!server.contains(QStringLiteral("conntrack")));
        // The same figures under the CSV's names, and the comparison's.
        QCOMPARE(*fieldNumber(*resultField(u"profile_server_us_per_request"), result), 600.0);
        QCOMPARE(*fieldNumber(*resultField(u"profile_server_user_us_per_request"), result), 500.0);
        QCOMPARE(*fieldNumber(*resultField(u"profile_conntrack_us_per_request"), result), 50.0);
        QCOMPARE(*metricValue(result, profilePathMetric(CpuPath::TcpIp)), 300.0);
        QCOMPARE(*metricValue(result, profileRoleMetric(ProcessRole::Other)), 2147.0);
        // Saved and read back, the profile is the same, stacks included.
        const PointResult back = pointResultFromJson(JsonReader(pointResultToJson(result)));
        QVERIFY(back.profile);
        QVERIFY(*back.profile == *result.profile);
        QCOMPARE(back.profile->stacks.size(), size_t(2));
        // A profile the machine refused says why, and has no figures.
        engine::RunResult refused = knownRun();
        refused.profile.requested = true;
        refused.profile.unavailable = "kernel.perf_event_paranoid is 2: ...";
        const PointResult none = pointResultFromRun(refused, QUuid::createUuid(), 10, 0, {});
        const QJsonObject noneJson =
            cliResultJson(none, context).value(QStringLiteral("cpu_profile")).toObject();
        QCOMPARE(keySet(noneJson), words(QStringLiteral("unavailable")));
        QVERIFY(!fieldNumber(*resultField(u"profile_server_us_per_request"), none));
        const PointResult noneBack = pointResultFromJson(JsonReader(pointResultToJson(none)));
        QCOMPARE(noneBack.profile->unavailable, none.profile->unavailable);
        // Without a profile asked for, the JSON has no cpu_profile at all.
        QVERIFY(!cliResultJson(knownResult(), context).contains(QStringLiteral("cpu_profile")));
    }

    void resultsCsvColumnsAreTheDocumentedOnes() {
        const QStringList documented =
            QStringLiteral(
                "target,target_id,mode,protocol,endpoint,concurrency,repetition,source,tool,"
                "tool_version,started_at,host_name,thread_placement,cancelled,duration_s,threads,"
                "complete,failed,failed_connect,failed_receive,failed_length,failed_exceptions,"
                "failed_write,failed_timeout,non_2xx,keep_alive,bytes_total,bytes_body,"
                "bytes_sent,hits,misses,client_cpu_s,requests_per_second,transfer_rate_kib_s,"
                "throughput_mbit_s,time_per_request_ms,time_per_request_across_ms,"
                "latency_min_ms,latency_mean_ms,latency_sd_ms,latency_max_ms,latency_p50_ms,"
                "latency_p66_ms,latency_p75_ms,latency_p80_ms,latency_p90_ms,latency_p95_ms,"
                "latency_p98_ms,latency_p99_ms,latency_p99_9_ms,latency_p99_99_ms,"
                "latency_p100_ms,connect_mean_ms,waiting_mean_ms,processing_mean_ms,"
                "server_software,document_length,first_error,load_model,offered_rate,"
                "latency_uncorrected_mean_ms,latency_uncorrected_p50_ms,"
                "latency_uncorrected_p90_ms,latency_uncorrected_p99_ms,"
                "latency_uncorrected_p99_9_ms,max_backlog,client_saturated,"
                "server_cpu_us_per_request,softirq_us_per_request,"
                "client_cpu_us_per_request,other_load_percent,noisy,noise_reason,"
                "cpu_user_percent,cpu_system_percent,cpu_irq_percent,cpu_softirq_percent,"
                "cpu_steal_percent,cpu_idle_percent,server_cpu_s,failed_tls,tls_handshakes,"
                "tls_resumed,tls_resumed_ratio,tls_protocol,tls_cipher,tls_mean_ms,tls_p50_ms,"
                "tls_p99_ms,failed_rst_stream,failed_goaway,failed_lost,answers_out_of_order,"
                "answers_duplicate,answers_late,answers_stray,datagrams_sent,send_errors,"
                "sink_datagrams,sink_bytes,sink_out_of_order,sink_duplicates,delivered_mbit_s,"
                "datagram_loss_percent,net_tcp_retransmits,"
                "net_syn_retransmits,net_listen_overflows,net_listen_drops,net_tcp_timeouts,"
                "net_resets_sent,net_established_resets,net_conntrack_insert_failed,"
                "net_conntrack_drop,net_conntrack_early_drop,net_conntrack_invalid,"
                "net_softnet_dropped,net_softnet_time_squeeze,net_link_drops,net_notes,"
                "profile_client_us_per_request,profile_server_us_per_request,"
                "profile_relay_us_per_request,profile_other_us_per_request,"
                "profile_kernel_us_per_request,profile_user_us_per_request,"
                "profile_tcp_ip_us_per_request,profile_socket_us_per_request,"
                "profile_copy_us_per_request,profile_conntrack_us_per_request,"
                "profile_nat_us_per_request,profile_nftables_us_per_request,"
                "profile_bridge_us_per_request,profile_veth_us_per_request,"
                "profile_macvlan_us_per_request,profile_ovs_us_per_request,"
                "profile_tap_us_per_request,profile_softirq_us_per_request,"
                "profile_scheduler_us_per_request,profile_other_kernel_us_per_request,"
                "profile_client_user_us_per_request,profile_server_user_us_per_request,"
                "profile_relay_user_us_per_request,profile_other_user_us_per_request,"
                "profile_own_us_per_request,profile_samples,profile_idle_samples,"
                "profile_lost_samples,profile_unavailable,capacity_step")
                .split(QLatin1Char(','));
        QCOMPARE(resultsCsvColumns(), documented);
    }

    void oneFigureHasOneFormulaInEveryFormat() {
        // The CSV's failed_timeout and the CLI's timeouts are one field.
        const ResultField* timeouts = resultField(u"failed_timeout");
        QVERIFY(timeouts);
        QCOMPARE(timeouts->csvColumn, QStringLiteral("failed_timeout"));
        QCOMPARE(timeouts->cliKey(TargetProtocol::Http), QStringLiteral("timeouts"));
        QCOMPARE(timeouts->sessionKey, QStringLiteral("errors/timeout"));
        const ResultField* p99 = resultField(u"latency_p99_ms");
        QVERIFY(p99);
        QCOMPARE(p99->cliKey(TargetProtocol::TcpRr), QStringLiteral("latency_ms/p99"));
        QCOMPARE(p99->summaryMetric, QStringLiteral("latency_p99_ms"));
        // Throughput counts both directions in the CSV as in the CLI.
        const ResultField* throughput = resultField(u"throughput_mbit_s");
        QVERIFY(throughput);
        QCOMPARE(fieldNumber(*throughput, knownResult()).value_or(-1), 10.24);
    }

    void newSessionKeysRoundTripAndOldFilesOpen() {
        const PointResult original = knownResult();
        const QJsonObject json = pointResultToJson(original);
        QCOMPARE(json.value(QStringLiteral("threadCpus")).toArray(), (QJsonArray{0, 1}));
        QCOMPARE(json.value(QStringLiteral("pinned")).toBool(), true);
        QCOMPARE(json.value(QStringLiteral("connectionsOpened")).toDouble(), 12.0);
        const JsonReader reader(json);
        const PointResult reread = pointResultFromJson(reader);
        QVERIFY2(reader.ok(), qPrintable(reader.error().message));
        QCOMPARE(reread.threadCpus, original.threadCpus);
        QCOMPARE(reread.pinned, true);
        QCOMPARE(reread.connectionsOpened, uint64_t(12));
        QCOMPARE(reread.errorReplies, (ErrorReplies{1, 1, 1}));
        QCOMPARE(reread.operationCounts.at(QStringLiteral("get")), uint64_t(900));
        QVERIFY(reread == original);

        // A result saved before these keys existed: they read as none.
        QJsonObject old = json;
        for (const char* key :
             {"threadCpus", "pinned", "connectionsOpened", "errorReplies", "operationCounts"})
            old.remove(QLatin1String(key));
        const JsonReader oldReader(old);
        const PointResult fromOld = pointResultFromJson(oldReader);
        QVERIFY2(oldReader.ok(), qPrintable(oldReader.error().message));
        QVERIFY(fromOld.threadCpus.empty());
        QCOMPARE(fromOld.connectionsOpened, uint64_t(0));
        QCOMPARE(fromOld.complete, uint64_t(1000));
        // ... and save as they were: the new keys stay out while unset.
        QCOMPARE(pointResultToJson(fromOld), old);
    }

    void badSessionFieldIsOneFormatError() {
        QJsonObject json = pointResultToJson(knownResult());
        json.insert(QStringLiteral("connectionsOpened"), QStringLiteral("many"));
        const JsonReader reader(json);
        (void)pointResultFromJson(reader);
        const Result<int> result = reader.result(1);
        QVERIFY(!result);
        QCOMPARE(result.error().code, ErrorCode::Format);
        QCOMPARE(result.error().message,
                 QStringLiteral("field \"connectionsOpened\" should be a number, not a string"));
    }
};

QTEST_GUILESS_MAIN(TestResultSchema)
#include "tst_result_schema.moc"
