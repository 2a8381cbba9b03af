// Golden outputs of loadscope-cli: the CLI JSON and CSV of http, memcache,
// tcp-rr, tcp-stream, udp-rr and udp-stream, the session file a sweep writes, and the results
// and summary CSVs of export, each run against deterministic servers on 127.0.0.1
// (the embedded `serve http`, `serve echo` and its --udp, a canned memcached reply) and
// bounded by request count, so that every count and byte field has one known
// value. Each output must have the fields of its fixture in
// tests/app/fixtures/golden/, in the same order, with the same value in every
// count and byte field; timing fields are checked for presence and range only.
// Which field is which is decided by name in the lists below; a field in none
// of them fails the suite, so a new field enters the fixtures on purpose.
//
// To re-record the fixtures from the current code (after a deliberate change
// of an output), build it and run in the source tree:
//     LOADSCOPE_GOLDEN_RECORD=1 ctest --preset ci -R tst_golden_outputs
// (it rewrites tests/app/fixtures/golden/*.golden and passes unless a field is
// in none of the lists), then run it once more without the variable, review
// `git diff tests/app/fixtures/golden` and commit the fixtures with the change.
#include "canned_reply_server.h"
#include "cli_process.h"
#include "golden_outputs.h"
#include "serve_process.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using loadscope::testing::CannedReplyServer;
using loadscope::testing::CliOutcome;
using loadscope::testing::runCliProcess;
using loadscope::testing::ServeProcess;
using namespace loadscope::testing::golden;

namespace {

// The CLI's --json and --csv (objects flattened with '_' in the CSV).
const QList<Rule> kCliRules{
    {"(line ending)", Kind::Exact},
    // Counts and bytes.
    {"complete", Kind::Exact},
    {"failed", Kind::Exact},
    {"failed_connect", Kind::Exact},
    {"failed_receive", Kind::Exact},
    {"failed_length", Kind::Exact},
    {"failed_exceptions", Kind::Exact},
    {"failed_write", Kind::Exact},
    {"timeouts", Kind::Exact},
    {"failed_tls", Kind::Exact},
    {"failed_rst_stream", Kind::Exact},
    {"failed_goaway", Kind::Exact},
    {"failed_lost", Kind::Exact},
    {"answers_*", Kind::Exact},
    {"non_2xx", Kind::Exact},
    {"keep_alive", Kind::Exact},
    {"bytes_total", Kind::Exact},
    {"bytes_body", Kind::Exact},
    {"bytes_sent", Kind::Exact},
    {"connections_opened", Kind::Exact},
    {"status_codes*", Kind::Exact},
    {"sets", Kind::Exact},
    {"gets", Kind::Exact},
    {"hits", Kind::Exact},
    {"misses", Kind::Exact},
    {"hit_ratio", Kind::Exact},
    {"error_replies*", Kind::Exact},
    {"first_error", Kind::Exact},
    {"cancelled", Kind::Exact},
    // What was asked for, and what answered.
    {"concurrency", Kind::Exact},
    {"threads", Kind::Exact},
    {"threads_pinned", Kind::Exact},
    {"pipeline", Kind::Exact},
    {"document_length", Kind::Exact},
    {"server_software", Kind::Exact},
    {"test", Kind::Exact},
    {"request_size", Kind::Exact},
    {"response_size", Kind::Exact},
    {"send_size", Kind::Exact},
    {"clients_per_thread", Kind::Exact},
    {"requests_per_client", Kind::Exact},
    {"test_time_s", Kind::Exact},
    {"ratio", Kind::Exact},
    {"key_pattern", Kind::Exact},
    {"key_minimum", Kind::Exact},
    {"key_maximum", Kind::Exact},
    {"key_prefix", Kind::Exact},
    {"data_size", Kind::Exact},
    {"burst", Kind::Exact},
    {"timeout_s", Kind::Exact},
    {"sequence_numbers", Kind::Exact},
    // Timing, rates, CPU.
    {"duration_s", Kind::Seconds},
    {"client_cpu_s", Kind::Seconds},
    {"client_cpu_load", Kind::Number},
    {"requests_per_second", Kind::Number},
    {"transactions_per_second", Kind::Number},
    {"throughput_mbit_s", Kind::Number},
    {"transfer_rate_kib_s", Kind::Number},
    {"ops_per_second", Kind::Number},
    {"sets_per_second", Kind::Number},
    {"gets_per_second", Kind::Number},
    {"hits_per_second", Kind::Number},
    {"misses_per_second", Kind::Number},
    {"kb_per_second", Kind::Number},
    // A stream's counts depend on its time.
    {"datagrams_sent", Kind::Number},
    {"send_errors", Kind::Number},
    {"sink_*", Kind::Number},
    {"delivered_mbit_s", Kind::Number},
    {"datagram_loss_percent", Kind::Number},
    {"latency_ms*", Kind::Number},
    {"connect_ms*", Kind::Number},
    {"waiting_ms*", Kind::Number},
    {"processing_ms*", Kind::Number},
    {"set_latency_ms*", Kind::Number},
    {"get_latency_ms*", Kind::Number},
    // This machine and this run: ports, CPUs, the kernel's socket buffer sizes.
    // Where the CPU went: figures of this machine's load, the reason a text.
    // The network stack's counters: of the machine's namespace, which loopback points share
    // with every other process; a link appears only when it dropped something.
    {"net_counters.namespaces.links*", Kind::Optional},
    // conntrack's figures where the kernel has it.
    {"net_counters.namespaces.conntrack_*", Kind::Optional},
    {"net_counters.conntrack_*", Kind::Optional},
    {"net_counters_conntrack_*", Kind::Optional},
    {"net_counters.namespaces.roles", Kind::Present},
    {"net_counters.notes", Kind::Present},
    {"net_counters_notes", Kind::Present}, // --csv flattens the object
    {"net_counters*", Kind::Number},
    {"cpu.noisy", Kind::Present},
    {"cpu.noise_reason", Kind::Present},
    {"cpu.*", Kind::Number},
    {"cpu_noisy", Kind::Present}, // --csv flattens the object
    {"cpu_noise_reason", Kind::Present},
    {"cpu_*", Kind::Number},
    {"url", Kind::Present},
    {"server", Kind::Present},
    {"thread_cpus", Kind::Present},
    {"socket_send_bytes", Kind::Present},
    {"socket_recv_bytes", Kind::Present},
};

// The session file `sweep --out` writes (names without array indices).
const QList<Rule> kSessionRules{
    {"format", Kind::Exact},
    {"version", Kind::Exact},
    {"name", Kind::Exact},
    {"notes", Kind::Exact},
    {"baseline", Kind::Exact},
    {"plan.*", Kind::Exact},
    {"targets.id", Kind::Exact},
    {"targets.name", Kind::Exact},
    {"targets.mode", Kind::Exact},
    {"targets.colour", Kind::Exact},
    {"targets.protocol", Kind::Exact},
    {"targets.address", Kind::Present}, // a port of this run
    {"targets.http.url", Kind::Present},
    {"targets.http.*", Kind::Exact},
    {"targets.tcp-rr.*", Kind::Exact},
    {"results.target", Kind::Exact},
    {"results.concurrency", Kind::Exact},
    {"results.repetition", Kind::Exact},
    {"results.threads", Kind::Exact},
    // Added with the result schema: what the CLI JSON always had.
    {"results.connectionsOpened", Kind::Exact},
    {"results.threadCpus", Kind::Present},
    {"results.cancelled", Kind::Exact},
    {"results.complete", Kind::Exact},
    {"results.failed", Kind::Exact},
    {"results.errors.*", Kind::Exact},
    {"results.non2xx", Kind::Exact},
    {"results.keepAlive", Kind::Exact},
    {"results.bytesTotal", Kind::Exact},
    {"results.bytesBody", Kind::Exact},
    {"results.bytesSent", Kind::Exact},
    {"results.hits", Kind::Exact},
    {"results.misses", Kind::Exact},
    {"results.statusCodes*", Kind::Exact},
    {"results.operations*", Kind::Exact},
    {"results.reported*", Kind::Exact},
    {"results.documentLength", Kind::Exact},
    {"results.serverSoftware", Kind::Exact},
    {"results.firstError", Kind::Exact},
    {"results.source.kind", Kind::Exact},
    {"results.source.tool", Kind::Exact},
    {"results.source.file", Kind::Exact},
    {"results.source.fingerprint", Kind::Exact},
    {"results.source.toolVersion", Kind::Present},
    {"results.durationSeconds", Kind::Seconds},
    {"results.clientCpuSeconds", Kind::Seconds},
    {"results.latency.*", Kind::Present}, // encoded histograms
    // Added with the load model: closed loop for every sweep.
    {"results.loadModel", Kind::Exact},
    {"results.offeredRate", Kind::Exact},
    {"results.environment.*", Kind::Present},
    // Added with where the CPU went: this machine's counters and noise.
    {"results.cpu.*", Kind::Present},
    // Added with the network stack's counters: a namespace's counters are written when not 0.
    {"results.netCounters.namespaces.roles", Kind::Present},
    {"results.netCounters.namespaces.netns", Kind::Present},
    {"results.netCounters.namespaces.conntrack", Kind::Optional},
    {"results.netCounters.namespaces.*", Kind::Optional},
    {"results.netCounters.softnet.*", Kind::Number},
};

// `export --csv`: one row per result.
const QList<Rule> kResultsCsvRules{
    {"(line ending)", Kind::Exact},
    {"target", Kind::Exact},
    {"target_id", Kind::Exact},
    {"mode", Kind::Exact},
    {"protocol", Kind::Exact},
    {"endpoint", Kind::Present}, // a port of this run
    {"concurrency", Kind::Exact},
    {"repetition", Kind::Exact},
    {"source", Kind::Exact},
    {"tool", Kind::Exact},
    {"tool_version", Kind::Present},
    {"started_at", Kind::Present},
    {"host_name", Kind::Present},
    {"thread_placement", Kind::Present},
    {"cancelled", Kind::Exact},
    {"duration_s", Kind::Seconds},
    {"threads", Kind::Exact},
    {"complete", Kind::Exact},
    {"failed", Kind::Exact},
    {"failed_*", Kind::Exact},
    {"non_2xx", Kind::Exact},
    {"keep_alive", Kind::Exact},
    {"bytes_total", Kind::Exact},
    {"bytes_body", Kind::Exact},
    {"bytes_sent", Kind::Exact},
    {"hits", Kind::Exact},
    {"misses", Kind::Exact},
    {"client_cpu_s", Kind::Seconds},
    {"requests_per_second", Kind::Number},
    {"transfer_rate_kib_s", Kind::Number},
    {"throughput_mbit_s", Kind::Number},
    {"time_per_request_ms", Kind::Number},
    {"time_per_request_across_ms", Kind::Number},
    // A closed-loop sweep has no uncorrected latency: empty, exactly.
    {"latency_uncorrected_*", Kind::Exact},
    {"latency_*", Kind::Number},
    {"connect_mean_ms", Kind::Number},
    {"waiting_mean_ms", Kind::Number},
    {"processing_mean_ms", Kind::Number},
    {"server_software", Kind::Exact},
    {"document_length", Kind::Exact},
    {"first_error", Kind::Exact},
    {"load_model", Kind::Exact},
    {"offered_rate", Kind::Exact},
    // Fixed rate only: empty for a closed-loop sweep, exactly.
    {"max_backlog", Kind::Exact},
    {"client_saturated", Kind::Exact},
    // Where the CPU went: empty for a point shorter than a clock tick.
    {"server_cpu_us_per_request", Kind::Signed},
    {"softirq_us_per_request", Kind::Signed},
    {"client_cpu_us_per_request", Kind::Signed},
    {"other_load_percent", Kind::Signed},
    {"noisy", Kind::Present},
    {"noise_reason", Kind::Present},
    {"cpu_*", Kind::Signed},
    {"server_cpu_s", Kind::Signed},
    // Plain http: no handshake, every TLS figure empty, exactly.
    {"tls_*", Kind::Exact},
    // The sweep takes no CPU profile: every profile figure empty, exactly.
    {"profile_*", Kind::Exact},
    // The network stack's counters, of a namespace other processes share.
    {"net_notes", Kind::Present},
    {"net_*", Kind::Signed},
    // TCP: none of UDP's counts, 0 or empty, exactly.
    {"answers_*", Kind::Exact},
    {"datagrams_sent", Kind::Exact},
    {"send_errors", Kind::Exact},
    {"sink_*", Kind::Exact},
    {"delivered_mbit_s", Kind::Exact},
    {"datagram_loss_percent", Kind::Exact},
    // Not a capacity search's step: empty, exactly.
    {"capacity_step", Kind::Exact},
};

// `export --summary-csv`: one row per target x concurrency x metric.
const QList<Rule> kSummaryCsvRules{
    {"(line ending)", Kind::Exact},
    {"target", Kind::Exact},
    {"target_id", Kind::Exact},
    {"mode", Kind::Exact},
    {"protocol", Kind::Exact},
    {"concurrency", Kind::Exact},
    {"metric", Kind::Exact},
    {"unit", Kind::Exact},
    {"n", Kind::Exact},
    {"imported", Kind::Exact},
    {"mean", Kind::Number},
    {"sd", Kind::Number},
    {"ci95_low", Kind::Signed},
    {"ci95_high", Kind::Signed},
    {"vs_baseline_percent", Kind::Signed},
    {"p_value", Kind::Signed},
    {"significant", Kind::Present}, // decided by timings
    {"verdict", Kind::Present},
    {"tool", Kind::Exact},
    {"load_model", Kind::Exact},
    {"offered_rate", Kind::Exact},
    {"net_marked", Kind::Present}, // loopback points: the machine's namespace, shared
    {"net_note", Kind::Present},
};
// Summary rows of a count metric: its statistics are counts too (no failures
// against these servers), so every cell of the row is exact.
const QStringList kSummaryCountMetrics{QStringLiteral("failed")};

Kind cliKind(const Field& field) {
    return kindFrom(kCliRules, field.name);
}
Kind sessionKind(const Field& field) {
    return kindFrom(kSessionRules, field.name);
}
Kind resultsCsvKind(const Field& field) {
    return kindFrom(kResultsCsvRules, field.name);
}
Kind summaryCsvKind(const Field& field) {
    const Kind kind = kindFrom(kSummaryCsvRules, field.name);
    return kind != Kind::Unknown && kSummaryCountMetrics.contains(field.context) ? Kind::Exact
                                                                                 : kind;
}

QString fixture(const QString& name) {
    return QDir(qEnvironmentVariable("LOADSCOPE_SOURCE_DIR"))
        .filePath(QStringLiteral("tests/app/fixtures/golden/") + name);
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QList<Field> jsonFields(const QString& path, QStringList* problems) {
    const auto fields = OrderedJson::flatten(readAll(path));
    if (!fields)
        *problems << QStringLiteral("%1 is not JSON").arg(path);
    return fields.value_or(QList<Field>{});
}

constexpr int kDocumentSize = 1000;
// serve echo and the session's TCP_RR target; the one-shot says -r 10,20.
constexpr int kRequestSize = 10;
constexpr int kResponseSize = 20;
// Every get hits: one value of 4 bytes, whatever key was asked for.
const QByteArray kMemcachedHit = "VALUE memtier-1 0 4\r\nabcd\r\nEND\r\n";

// The session swept: an HTTP target on `serve http` and a TCP_RR target on
// `serve echo`, two levels, two repetitions, a fixed number of requests.
QByteArray sessionText(quint16 httpPort, quint16 echoPort) {
    // Not a raw string literal: moc (Qt 6.4) loses the class after one.
    return QString::fromLatin1(
               "{\"format\": \"loadscope-session\", \"version\": 1, \"name\": \"golden outputs\",\n"
               "  \"notes\": \"Recorded by tst_golden_outputs.\",\n"
               "  \"baseline\": \"00000000-0000-4000-8000-000000000001\",\n"
               "  \"plan\": {\"concurrency\": [1, 3], \"cpus\": [], \"limit\": \"requests\",\n"
               "           \"requestsPerPoint\": 150, \"durationSeconds\": 2, \"repetitions\": 2,\n"
               "           \"order\": \"interleaved\", \"pauseSeconds\": 0, \"threads\": 1,\n"
               "           \"warmupSeconds\": 0},\n"
               "  \"results\": [],\n"
               "  \"targets\": [\n"
               "    {\"id\": \"00000000-0000-4000-8000-000000000001\", \"name\": \"web\",\n"
               "     \"mode\": \"host\", \"colour\": \"#0072b2\", \"protocol\": \"http\", "
               "\"address\": \"\",\n"
               "     \"http\": {\"url\": \"http://127.0.0.1:%1/\", \"method\": \"GET\", "
               "\"headers\": [],\n"
               "              \"bodyFile\": \"\", \"contentType\": \"\", \"keepAlive\": true,\n"
               "              \"pipeline\": 1}},\n"
               "    {\"id\": \"00000000-0000-4000-8000-000000000002\", \"name\": \"echo\",\n"
               "     \"mode\": \"host\", \"colour\": \"#e69f00\", \"protocol\": \"tcp-rr\",\n"
               "     \"address\": \"127.0.0.1:%2\",\n"
               "     \"tcp-rr\": {\"requestSize\": %3, \"responseSize\": %4,\n"
               "                \"connectPerRequest\": false}}]}\n")
        .arg(httpPort)
        .arg(echoPort)
        .arg(kRequestSize)
        .arg(kResponseSize)
        .toUtf8();
}

} // namespace

class TestGoldenOutputs : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void cliOneShot_data();
    void cliOneShot();
    void sweepAndExport();

private:
    std::unique_ptr<ServeProcess> m_http;
    std::unique_ptr<ServeProcess> m_echo;
    std::unique_ptr<ServeProcess> m_sink;
    std::unique_ptr<ServeProcess> m_udpEcho;
    std::unique_ptr<ServeProcess> m_udpSink;
    std::unique_ptr<CannedReplyServer> m_memcached;
    QTemporaryDir m_dir;
};

void TestGoldenOutputs::initTestCase() {
    QVERIFY2(QFile::exists(loadscope::testing::cliPath()),
             "LOADSCOPE_CLI must name the loadscope-cli binary");
    QVERIFY2(!qEnvironmentVariable("LOADSCOPE_SOURCE_DIR").isEmpty(),
             "LOADSCOPE_SOURCE_DIR must name the source tree (run through ctest)");
    QVERIFY(m_dir.isValid());
    if (recording())
        QDir().mkpath(fixture({}));
    m_http = std::make_unique<ServeProcess>(
        QStringList{QStringLiteral("http"), QStringLiteral("--port"), QStringLiteral("0"),
                    QStringLiteral("--threads"), QStringLiteral("1"), QStringLiteral("--size"),
                    QString::number(kDocumentSize)});
    m_echo = std::make_unique<ServeProcess>(
        QStringList{QStringLiteral("echo"), QStringLiteral("--port"), QStringLiteral("0"),
                    QStringLiteral("--threads"), QStringLiteral("1"),
                    QStringLiteral("--request-size"), QString::number(kRequestSize),
                    QStringLiteral("--response-size"), QString::number(kResponseSize)});
    m_sink = std::make_unique<ServeProcess>(
        QStringList{QStringLiteral("sink"), QStringLiteral("--port"), QStringLiteral("0"),
                    QStringLiteral("--threads"), QStringLiteral("1")});
    m_udpEcho = std::make_unique<ServeProcess>(
        QStringList{QStringLiteral("echo"), QStringLiteral("--udp"), QStringLiteral("--port"),
                    QStringLiteral("0"), QStringLiteral("--threads"), QStringLiteral("1"),
                    QStringLiteral("--response-size"), QString::number(kResponseSize)});
    m_udpSink = std::make_unique<ServeProcess>(
        QStringList{QStringLiteral("sink"), QStringLiteral("--udp"), QStringLiteral("--port"),
                    QStringLiteral("0"), QStringLiteral("--threads"), QStringLiteral("1")});
    QVERIFY2(m_http->port() && m_echo->port() && m_sink->port() && m_udpEcho->port() &&
                 m_udpSink->port(),
             "serve did not start");
    m_memcached = std::make_unique<CannedReplyServer>(kMemcachedHit, false);
    QVERIFY(m_memcached->isRunning());
}

void TestGoldenOutputs::cleanupTestCase() {
    m_memcached.reset();
    m_udpSink.reset();
    m_udpEcho.reset();
    m_sink.reset();
    m_echo.reset();
    m_http.reset();
}

void TestGoldenOutputs::cliOneShot_data() {
    QTest::addColumn<QString>("name"); // of the fixtures: NAME.json.golden, NAME.csv.golden
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<bool>("keysOnly"); // counts depend on timing: the fields only
    const auto words = [](const char* text) {
        return QString::fromLatin1(text).split(QLatin1Char(' '));
    };
    const QString url = QStringLiteral("http://127.0.0.1:%1/").arg(m_http->port());
    const QString memcached = QStringLiteral("127.0.0.1:%1").arg(m_memcached->port());
    QTest::newRow("http -k") << QStringLiteral("http_keep_alive")
                             << (words("http -n 200 -c 4 -k --threads 1") << url) << false;
    QTest::newRow("http") << QStringLiteral("http_close")
                          << (words("http -n 200 -c 4 --threads 1") << url) << false;
    // Gets only: the canned server answers line by line, and a set is two lines. Random
    // keys of three digits, so that every request has the same length.
    QTest::newRow("memcache")
        << QStringLiteral("memcache")
        << (words("memcache -c 2 -t 1 -n 50 --ratio=0:1 --key-minimum 100 --key-maximum 999")
            << memcached)
        << false;
    QTest::newRow("tcp-rr") << QStringLiteral("tcp_rr")
                            << (words("tcp-rr -n 300 -r 10,20 --threads 1") << m_echo->address())
                            << false;
    QTest::newRow("tcp-stream") << QStringLiteral("tcp_stream")
                                << (words("tcp-stream -l 0.3 --threads 1") << m_sink->address())
                                << true;
    QTest::newRow("udp-rr") << QStringLiteral("udp_rr")
                            << (words("udp-rr -n 300 -r 10,20 --threads 1") << m_udpEcho->address())
                            << false;
    QTest::newRow("udp-stream") << QStringLiteral("udp_stream")
                                << (words("udp-stream -l 0.3 -m 1000 --threads 1")
                                    << m_udpSink->address())
                                << true;
}

void TestGoldenOutputs::cliOneShot() {
    QFETCH(QString, name);
    QFETCH(QStringList, arguments);
    QFETCH(bool, keysOnly);
    const QString json = m_dir.filePath(name + QStringLiteral(".json"));
    const QString csv = m_dir.filePath(name + QStringLiteral(".csv"));
    // For the fixture's header: the command without its address, which holds a port.
    const QString command = arguments.mid(0, arguments.size() - 1).join(QLatin1Char(' '));
    const CliOutcome run =
        runCliProcess(arguments << QStringLiteral("-q") << QStringLiteral("--json") << json
                                << QStringLiteral("--csv") << csv);
    QVERIFY2(run.exitCode == 0, run.err.constData());

    QStringList problems;
    const QList<Field> jsonOut = jsonFields(json, &problems);
    for (const QString& problem : checkGolden(
             fixture(name + QStringLiteral(".json.golden")),
             QStringLiteral("loadscope-cli %1 --json").arg(command), jsonOut, cliKind, keysOnly))
        problems << QStringLiteral("--json: ") + problem;
    for (const QString& problem : checkGolden(fixture(name + QStringLiteral(".csv.golden")),
                                              QStringLiteral("loadscope-cli %1 --csv").arg(command),
                                              flattenCsv(readAll(csv)), cliKind, keysOnly))
        problems << QStringLiteral("--csv: ") + problem;
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
}

void TestGoldenOutputs::sweepAndExport() {
    const QString session = m_dir.filePath(QStringLiteral("golden.loadscope"));
    {
        QFile file(session);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.write(sessionText(m_http->port(), m_echo->port())) > 0);
    }
    const QString out = m_dir.filePath(QStringLiteral("golden-out.loadscope"));
    const CliOutcome sweep = runCliProcess(
        {QStringLiteral("sweep"), session, QStringLiteral("--out"), out, QStringLiteral("-q")},
        120'000);
    QVERIFY2(sweep.exitCode == 0, sweep.err.constData());
    const QString results = m_dir.filePath(QStringLiteral("results.csv"));
    const QString summary = m_dir.filePath(QStringLiteral("summary.csv"));
    const CliOutcome exported =
        runCliProcess({QStringLiteral("export"), out, QStringLiteral("--csv"), results,
                       QStringLiteral("--summary-csv"), summary});
    QVERIFY2(exported.exitCode == 0, exported.err.constData());

    QStringList problems;
    const QList<Field> sessionOut = jsonFields(out, &problems);
    for (const QString& problem :
         checkGolden(fixture(QStringLiteral("session.loadscope.golden")),
                     QStringLiteral("the session file of 'loadscope-cli sweep SESSION --out FILE'"),
                     sessionOut, sessionKind))
        problems << QStringLiteral("session: ") + problem;
    for (const QString& problem : checkGolden(fixture(QStringLiteral("results.csv.golden")),
                                              QStringLiteral("loadscope-cli export FILE --csv"),
                                              flattenCsv(readAll(results)), resultsCsvKind))
        problems << QStringLiteral("results CSV: ") + problem;
    for (const QString& problem :
         checkGolden(fixture(QStringLiteral("summary.csv.golden")),
                     QStringLiteral("loadscope-cli export FILE --summary-csv"),
                     flattenCsv(readAll(summary)), summaryCsvKind))
        problems << QStringLiteral("summary CSV: ") + problem;
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
}

QTEST_GUILESS_MAIN(TestGoldenOutputs)
#include "tst_golden_outputs.moc"
