// Session files: round trip, every way a file can be broken, and atomic save.
// (The example sessions shipped in the resources: tst_demo_sessions.)
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "session_mutation.h"
#include "session_test_data.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <csignal>
#include <sys/resource.h>

using namespace loadscope;
using namespace loadscope::app;
using loadscope::test::kRemove;
using loadscope::test::mutated;
using loadscope::test::readFile;
using loadscope::test::writeFile;

namespace {

// A session using every part of the format: four protocols, a custom mode,
// measured results with per-operation histograms, an imported result.
Session richSession() {
    Session session = test::twoTargetSession();
    Target memcache =
        makeTarget(QStringLiteral("memcached, \"bridge\""), DeploymentMode::LinuxBridge, 2);
    memcache.protocol = TargetProtocol::Memcache;
    memcache.address = QStringLiteral("10.0.0.5:11211");
    memcache.memcache.setRatio = 1;
    memcache.memcache.getRatio = 4;
    memcache.memcache.keyMaximum = 1000;
    memcache.memcache.preload = true;
    memcache.serverPid = 4242;
    session.targets.push_back(memcache);

    Target rr = makeTarget(QStringLiteral("rr"), DeploymentMode::Custom, 3);
    rr.customMode = QStringLiteral("k8s pod network");
    rr.protocol = TargetProtocol::TcpRr;
    rr.address = QStringLiteral("[::1]:18082");
    rr.tcpRr.requestSize = 64;
    rr.tcpRr.responseSize = 1024;
    rr.tcpRr.connectPerRequest = true;
    session.targets.push_back(rr);

    Target stream = makeTarget(QStringLiteral("stream"), DeploymentMode::OvsBridge, 4);
    stream.protocol = TargetProtocol::TcpStream;
    stream.address = QStringLiteral("127.0.0.1:18084");
    stream.tcpStream.chunkSize = 65536;
    stream.serverCgroup = QStringLiteral("/sys/fs/cgroup/system.slice/iperf3.service");
    session.targets.push_back(stream);

    session.targets[0].http.headers = {{QStringLiteral("Accept"), QStringLiteral("*/*")},
                                       {QStringLiteral("X-Note"), QStringLiteral("ünïcode")}};
    session.targets[0].http.method = QStringLiteral("POST");
    session.targets[0].http.bodyFile = QStringLiteral("/tmp/body.json");
    session.targets[0].http.contentType = QStringLiteral("application/json");
    session.targets[0].address = QStringLiteral("192.168.1.10:80");
    session.plan.cpus = {0, 1};
    session.plan.warmupSeconds = 0.5;
    session.plan.pauseSeconds = 1.25;
    session.plan.order = SweepOrder::Sequential;

    PointResult memcacheResult =
        test::measuredResult(memcache.id, 10, 0, 5000, 1.5, {{80'000, 4000}, {120'000, 1000}});
    engine::Histogram get;
    get.recordN(80'000, 4000);
    memcacheResult.perOperationHistograms[QStringLiteral("get")] = test::histogramBytes(get);
    memcacheResult.perOperation[QStringLiteral("get")] = summarize(get);
    memcacheResult.perOperation[QStringLiteral("set")] = {}; // no sets happened
    memcacheResult.hits = 3100;
    memcacheResult.misses = 900;
    memcacheResult.errors[size_t(engine::ErrorClass::Timeout)] = 2;
    memcacheResult.failed = 2;
    memcacheResult.firstError = QStringLiteral("timeout after 30 s");
    session.results.push_back(memcacheResult);
    session.results.push_back(test::importedResult(rr.id, 10, 0, 18000.5, 2.25));
    // A profiled point: its counts by role and path and its kept chains round-trip too.
    PointResult& profiled = session.results.front();
    profiled.profile = CpuProfileSummary{};
    profiled.profile->cpus = 2;
    profiled.profile->periodUs = 1003.009;
    profiled.profile->samples = 4000;
    profiled.profile->idleSamples = 120;
    profiled.profile->lostSamples = 2;
    profiled.profile->profilerSamples = 1;
    profiled.profile->samplerCpuSeconds = 0.0021;
    profiled.profile->counts[size_t(engine::ProcessRole::Server)][size_t(engine::CpuPath::User)] =
        1500;
    profiled.profile->counts[size_t(engine::ProcessRole::Client)][size_t(engine::CpuPath::Nat)] =
        12;
    profiled.profile->stacks = {{QStringLiteral("nginx [server];[nginx]"), 1400},
                                {QStringLiteral("x [client];[libc.so.6];nf_nat_inet_fn"), 12}};
    PointResult cancelled = test::measuredResult(stream.id, 1, 0, 10, 0.3, {});
    cancelled.cancelled = true;
    cancelled.reportedThroughputMbitps = 9400.25;
    session.results.push_back(cancelled);
    return session;
}

} // namespace

class TestSessionFile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTripIsByteIdentical();
    void byteOrderMarksSurviveReopen();
    void percentilesSurviveReopen();
    void storedFiguresMatchKnownValues();
    void corruptFileIsRefused_data();
    void corruptFileIsRefused();
    void fileErrors();
    void failedSaveLeavesOldFile();
    void saveIntoDirectoryPathFails();
    void profilesKeepALargeSessionUnderHalfAgainItsSize();
};

void TestSessionFile::roundTripIsByteIdentical() {
    const Session original = richSession();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString first = dir.filePath(QStringLiteral("first.loadscope"));
    const QString second = dir.filePath(QStringLiteral("second.loadscope"));
    const Result<void> saved = saveSessionFile(original, first);
    QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
    const Result<Session> reopened = loadSessionFile(first);
    QVERIFY2(reopened, reopened ? "" : qPrintable(reopened.error().toString()));
    QVERIFY(*reopened == original);
    QVERIFY(saveSessionFile(*reopened, second));
    QCOMPARE(readFile(second), readFile(first));

    const QJsonObject root = QJsonDocument::fromJson(readFile(first)).object();
    QCOMPARE(root.value(QStringLiteral("format")).toString(), QStringLiteral("loadscope-session"));
    QCOMPARE(root.value(QStringLiteral("version")).toInt(), 1);
    // The server CPU fields are written where set, and only there.
    const QJsonArray targets = root.value(QStringLiteral("targets")).toArray();
    QCOMPARE(targets.at(2)[u"serverPid"].toInt(), 4242);
    QCOMPARE(targets.at(4)[u"serverCgroup"].toString(),
             QStringLiteral("/sys/fs/cgroup/system.slice/iperf3.service"));
    QVERIFY(!targets.at(0).toObject().contains(u"serverPid"));
    QVERIFY(!targets.at(0).toObject().contains(u"serverCgroup"));
}

// Qt drops a U+FEFF that starts a string when it reads one written raw: a
// name, or a kept unknown key, starting with it came back changed (an unknown
// "\uFEFFbaseline" was read as "baseline" and refused the saved file).
void TestSessionFile::byteOrderMarksSurviveReopen() {
    const QString mark(QChar(0xFEFF));
    Session original = test::twoTargetSession();
    original.targets[0].name = mark + QStringLiteral("web");
    original.targets[1].http.headers = {{QStringLiteral("X-Note"), mark + mark}};
    const QString key = mark + QStringLiteral("baseline");
    original.unknownFields.insert(key, QString(QStringLiteral("not a target id") + QChar(1)));
    const QByteArray saved = serializeSession(original);
    const Result<Session> reopened = parseSession(saved, QStringLiteral("marks.loadscope"));
    QVERIFY2(reopened, reopened ? "" : qPrintable(reopened.error().toString()));
    QCOMPARE(reopened->targets[0].name, original.targets[0].name);
    QCOMPARE(reopened->targets[1].http.headers, original.targets[1].http.headers);
    QCOMPARE(reopened->unknownFields, original.unknownFields);
    QVERIFY(*reopened == original);
    QCOMPARE(serializeSession(*reopened), saved);
}

void TestSessionFile::percentilesSurviveReopen() {
    const Session original = test::twoTargetSession();
    const Result<Session> reopened =
        parseSession(serializeSession(original), QStringLiteral("s.loadscope"));
    QVERIFY2(reopened, reopened ? "" : qPrintable(reopened.error().toString()));
    QCOMPARE(reopened->results.size(), original.results.size());
    for (size_t i = 0; i < original.results.size(); ++i) {
        const PointResult& before = original.results[i];
        const PointResult& after = reopened->results[i];
        QCOMPARE(after.totalHistogram, before.totalHistogram);
        for (double p : standardPercentiles())
            QCOMPARE(after.total.percentile(p), before.total.percentile(p));
        QCOMPARE(after.total.percentile(99).value(), after.total.percentilesMs.at(99));
    }
}

namespace {

// The file as Loadscope wrote it before a histogram's figures were stored
// beside it: every distribution with a histogram holds the histogram alone.
QJsonValue withoutStoredFigures(const QJsonValue& node) {
    if (node.isArray()) {
        QJsonArray array = node.toArray();
        for (auto it = array.begin(); it != array.end(); ++it)
            *it = withoutStoredFigures(*it);
        return array;
    }
    if (!node.isObject())
        return node;
    QJsonObject object = node.toObject();
    if (object.contains(QStringLiteral("histogram")))
        return QJsonObject{
            {QStringLiteral("histogram"), object.value(QStringLiteral("histogram"))}};
    for (auto it = object.begin(); it != object.end(); ++it)
        *it = withoutStoredFigures(*it);
    return object;
}

} // namespace

void TestSessionFile::storedFiguresMatchKnownValues() {
    // results[3] of twoTargetSession(): 50 x 0.3 ms, 45 x 1.5 ms, 5 x 12.01 ms.
    const Session original = test::twoTargetSession();
    const QByteArray saved = serializeSession(original);
    const QJsonObject total = QJsonDocument::fromJson(saved)
                                  .object()
                                  .value(QStringLiteral("results"))
                                  .toArray()
                                  .at(3)
                                  .toObject()
                                  .value(QStringLiteral("latency"))
                                  .toObject()
                                  .value(QStringLiteral("total"))
                                  .toObject();
    QVERIFY(total.contains(QStringLiteral("histogram")));
    QCOMPARE(total.value(QStringLiteral("minMs")).toDouble(), 0.3);
    QCOMPARE(total.value(QStringLiteral("maxMs")).toDouble(), 12.01);
    QCOMPARE(total.value(QStringLiteral("meanMs")).toDouble(), 1.4255);

    const Result<Session> reopened = parseSession(saved, QStringLiteral("s.loadscope"));
    QVERIFY2(reopened, reopened ? "" : qPrintable(reopened.error().toString()));
    QVERIFY(reopened->setAside.empty());
    const LatencySummary& figures = reopened->results[3].total;
    QCOMPARE(figures.minMs.value(), 0.3);
    QCOMPARE(figures.maxMs.value(), 12.01);
    QCOMPARE(figures.meanMs.value(), 1.4255);
    // The 50th of the 100 values is 0.3 ms, the 95th 1.5 ms, the 96th 12.01 ms:
    // within the histogram's resolution (1/2048 of the value).
    const auto near = [](std::optional<double> ms, double truth) {
        return ms && std::abs(*ms - truth) <= truth / 2048;
    };
    QVERIFY(near(figures.percentile(50), 0.3));
    QVERIFY(near(figures.percentile(95), 1.5));
    QVERIFY(near(figures.percentile(99), 12.01));
    QCOMPARE(figures.percentile(100).value(), 12.01);

    // A file of the format before (the histogram alone) opens with the same
    // figures, summarised from the histogram; saved again, it holds them.
    const QByteArray before =
        QJsonDocument(withoutStoredFigures(QJsonDocument::fromJson(saved).object()).toObject())
            .toJson();
    QVERIFY(!before.contains("\"percentiles\""));
    const Result<Session> old = parseSession(before, QStringLiteral("old.loadscope"));
    QVERIFY2(old, old ? "" : qPrintable(old.error().toString()));
    QVERIFY(old->results == reopened->results);
    QCOMPARE(serializeSession(*old), saved);
}

void TestSessionFile::corruptFileIsRefused_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");

    const QByteArray good = serializeSession(test::twoTargetSession());
    QTest::newRow("empty") << QByteArray() << QStringLiteral("is empty");
    QTest::newRow("truncated") << good.left(good.size() / 2) << QStringLiteral("is truncated");
    QTest::newRow("truncated at the last brace")
        << good.left(good.lastIndexOf('}')) << QStringLiteral("is truncated");
    QTest::newRow("invalid JSON") << QByteArray(good).replace("\"format\":", "\"format\";")
                                  << QStringLiteral("is not valid JSON");
    // A syntax error is placed where a reader of the file looks: line, column, field.
    {
        QByteArray broken = good;
        const qsizetype url = broken.indexOf("\"url\"", broken.indexOf("\"targets\""));
        const qsizetype comma = broken.indexOf(',', broken.indexOf(':', url));
        broken[comma] = ';';
        const int line = int(broken.left(comma).count('\n')) + 1;
        QTest::newRow("syntax error inside a target")
            << broken << QStringLiteral("at line %1, column").arg(line);
        QTest::newRow("a key with a line break is named escaped")
            << QByteArray("{\"plan\": {\"or\nde\" 5}}") << QStringLiteral(", in plan.or\\nde");
        QTest::newRow("syntax error names the field")
            << broken << QStringLiteral(", in targets[0].http");
    }
    {
        // Results are parsed one by one (session_file_split.h); an error in
        // one is still placed in the whole file.
        QByteArray broken = good;
        const qsizetype key = broken.indexOf("\"concurrency\"", broken.indexOf("\"results\""));
        broken[broken.indexOf(':', key)] = '=';
        const int line = int(broken.left(key).count('\n')) + 1;
        QTest::newRow("syntax error inside a result")
            << broken << QStringLiteral("at line %1, column").arg(line);
    }
    QTest::newRow("garbage after the document")
        << good + "{}" << QStringLiteral("is not valid JSON");
    QTest::newRow("binary") << QByteArray("\x00\x01\x02\xff", 4)
                            << QStringLiteral("is not valid JSON");
    QTest::newRow("array at the top")
        << QByteArray("[1, 2]") << QStringLiteral("is not a Loadscope session");
    QTest::newRow("other format")
        << mutated(good, QStringLiteral("format"), QStringLiteral("wrk-results"))
        << QStringLiteral("field \"format\" is \"wrk-results\", expected \"loadscope-session\"");
    // The quoted value is escaped: the refusal stays one line.
    QTest::newRow("format with a line break")
        << mutated(good, QStringLiteral("format"), QStringLiteral("x\ny"))
        << QStringLiteral("field \"format\" is \"x\\ny\", expected");
    QTest::newRow("missing format") << mutated(good, QStringLiteral("format"), kRemove)
                                    << QStringLiteral("field \"format\" is missing");
    QTest::newRow("future version")
        << mutated(good, QStringLiteral("version"), 2)
        << QStringLiteral("was written by a newer Loadscope (session format version 2");
    QTest::newRow("version as text")
        << mutated(good, QStringLiteral("version"), QStringLiteral("1"))
        << QStringLiteral("field \"version\" should be a number, "
                          "not a string");
    QTest::newRow("missing targets") << mutated(good, QStringLiteral("targets"), kRemove)
                                     << QStringLiteral("field \"targets\" is missing");
    QTest::newRow("target not an object")
        << mutated(good, QStringLiteral("targets[0]"), 5)
        << QStringLiteral("field \"targets[0]\" should be an object, not a number");
    QTest::newRow("unknown protocol")
        << mutated(good, QStringLiteral("targets[1].protocol"), QStringLiteral("ftp"))
        << QStringLiteral("field \"targets[1].protocol\" has an unknown value \"ftp\"");
    QTest::newRow("missing protocol")
        << mutated(good, QStringLiteral("targets[1].protocol"), kRemove)
        << QStringLiteral("field \"targets[1].protocol\" is missing");
    QTest::newRow("missing url") << mutated(good, QStringLiteral("targets[0].http.url"), kRemove)
                                 << QStringLiteral("field \"targets[0].http.url\" is missing");
    QTest::newRow("bad colour") << mutated(good, QStringLiteral("targets[0].colour"),
                                           QStringLiteral("red"))
                                << QStringLiteral(
                                       "field \"targets[0].colour\" is \"red\", expected #rrggbb");
    QTest::newRow("bad target id")
        << mutated(good, QStringLiteral("targets[0].id"), QStringLiteral("42"))
        << QStringLiteral("field \"targets[0].id\" is \"42\", not a target id");
    QTest::newRow("server PID as text")
        << mutated(good, QStringLiteral("targets[0].serverPid"), QStringLiteral("nginx"))
        << QStringLiteral("field \"targets[0].serverPid\" should be a number, not a string");
    QTest::newRow("server PID 0") << mutated(good, QStringLiteral("targets[1].serverPid"), 0)
                                  << QStringLiteral("field \"targets[1].serverPid\" is 0, "
                                                    "expected 1 to 4194304");
    QTest::newRow("relative server cgroup")
        << mutated(good, QStringLiteral("targets[0].serverCgroup"),
                   QStringLiteral("system.slice/nginx.service"))
        << QStringLiteral("field \"targets[0].serverCgroup\" is \"system.slice/nginx.service\", "
                          "expected an absolute directory path");
    const QJsonObject goodRoot = QJsonDocument::fromJson(good).object();
    const QString firstId = goodRoot.value(QStringLiteral("targets"))
                                .toArray()
                                .at(0)
                                .toObject()
                                .value(QStringLiteral("id"))
                                .toString();
    QTest::newRow("duplicate target id")
        << mutated(good, QStringLiteral("targets[1].id"), firstId)
        << QStringLiteral("field \"targets[1].id\" repeats the id of another target");
    QTest::newRow("unknown baseline")
        << mutated(good, QStringLiteral("baseline"), QUuid::createUuid().toString())
        << QStringLiteral("field \"baseline\" refers to no target");
    QTest::newRow("repetitions as text")
        << mutated(good, QStringLiteral("plan.repetitions"), QStringLiteral("three"))
        << QStringLiteral("field \"plan.repetitions\" should be a number, not a string");
    QTest::newRow("zero repetitions") << mutated(good, QStringLiteral("plan.repetitions"), 0)
                                      << QStringLiteral("field \"plan.repetitions\" is 0, "
                                                        "expected 1 to 1000");
    QTest::newRow("fractional level") << mutated(good, QStringLiteral("plan.concurrency[1]"), 2.5)
                                      << QStringLiteral("field \"plan.concurrency[1]\" is 2.5, "
                                                        "expected a whole number");
    QTest::newRow("repeated level") << mutated(good, QStringLiteral("plan.concurrency[1]"), 1)
                                    << QStringLiteral("field \"plan.concurrency[1]\" repeats "
                                                      "level 1");
    QTest::newRow("unknown order")
        << mutated(good, QStringLiteral("plan.order"), QStringLiteral("random"))
        << QStringLiteral("field \"plan.order\" has an unknown value \"random\"");
    QTest::newRow("missing plan") << mutated(good, QStringLiteral("plan"), kRemove)
                                  << QStringLiteral("field \"plan\" is missing");
    // A tcp-rr target's raw TLS options, refused by the CLI's rules with the field named.
    const auto tcpRrTls = [&good](const QString& key, const QString& value) {
        QByteArray bytes =
            mutated(good, QStringLiteral("targets[0].protocol"), QStringLiteral("tcp-rr"));
        bytes = mutated(bytes, QStringLiteral("targets[0].address"), QStringLiteral("127.0.0.1:9"));
        return mutated(bytes, QStringLiteral("targets[0].tcp-rr"),
                       QJsonObject{{QStringLiteral("tls"), QJsonObject{{key, value}}}});
    };
    QTest::newRow("tcp-rr TLS key without certificate")
        << tcpRrTls(QStringLiteral("keyFile"), QStringLiteral("/k.pem"))
        << QStringLiteral("field \"targets[0].tcp-rr.tls.keyFile\" is set without certFile");
    QTest::newRow("tcp-rr TLS version")
        << tcpRrTls(QStringLiteral("version"), QStringLiteral("1.1"))
        << QStringLiteral("tcp-rr.tls.version\" TLS version '1.1'");
    QTest::newRow("results not an array")
        << mutated(good, QStringLiteral("results"), QJsonObject())
        << QStringLiteral("field \"results\" should be an array, not an object");
}

void TestSessionFile::corruptFileIsRefused() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString goodPath = dir.filePath(QStringLiteral("good.loadscope"));
    const Session good = test::twoTargetSession();
    QVERIFY(saveSessionFile(good, goodPath));

    SessionDocument document;
    QVERIFY(document.open(goodPath));
    document.setNotes(QStringLiteral("edited, not saved"));
    const Session before = document.session();

    const QString badPath = writeFile(dir, QStringLiteral("session.loadscope"), bytes);
    QVERIFY(!badPath.isEmpty());
    const Result<Session> bad = loadSessionFile(badPath);
    QVERIFY(!bad);
    const QString error = bad.error().toString();
    QCOMPARE(bad.error().file, badPath);
    QVERIFY2(error.startsWith(badPath + QStringLiteral(": ")), qPrintable(error));
    QVERIFY2(error.contains(message), qPrintable(error));
    QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));

    // The open session is untouched by the failed open.
    const Result<void> opened = document.open(badPath);
    QVERIFY(!opened);
    QVERIFY(opened.error().message.contains(message));
    QVERIFY(document.session() == before);
    QCOMPARE(document.filePath(), QFileInfo(goodPath).absoluteFilePath());
    QVERIFY(document.isModified());
}

void TestSessionFile::fileErrors() {
    QTemporaryDir dir;
    const QString missing = dir.filePath(QStringLiteral("nope.loadscope"));
    QCOMPARE(loadSessionFile(missing).error().toString(),
             missing + QStringLiteral(": no such file"));
    QCOMPARE(loadSessionFile(missing).error().code, ErrorCode::Io);
    QCOMPARE(openSession(missing).error().toString(), missing + QStringLiteral(": no such file"));
    QVERIFY(loadSessionFile(dir.path()).error().message.contains(QStringLiteral("is a directory")));
    const QString noExample = openSession(QStringLiteral("no-such-example")).error().toString();
    QVERIFY2(noExample.contains(QStringLiteral("demo-proxy")), qPrintable(noExample));
}

void TestSessionFile::failedSaveLeavesOldFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("session.loadscope"));
    Session small;
    small.name = QStringLiteral("the old content");
    QVERIFY(saveSessionFile(small, path));
    const QByteArray old = readFile(path);

    // A write that fails half-way (as on a full disk): the file-size limit
    // binds root too, which a read-only directory would not.
    const Session large = richSession();
    QVERIFY(serializeSession(large).size() > 4096);
    rlimit saved{};
    QCOMPARE(getrlimit(RLIMIT_FSIZE, &saved), 0);
    const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limited = saved;
    limited.rlim_cur = 4096;
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &limited), 0);
    const Result<void> savedLarge = saveSessionFile(large, path);
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previousHandler);

    QVERIFY(!savedLarge);
    const QString error = savedLarge.error().toString();
    QVERIFY2(error.startsWith(path + QStringLiteral(": cannot be written")), qPrintable(error));
    QCOMPARE(readFile(path), old);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files),
             QStringList{QStringLiteral("session.loadscope")});

    // Through the document: still modified, still pointing at the old file.
    SessionDocument document;
    QVERIFY(document.open(path));
    document.setName(QStringLiteral("changed"));
    const QString missingDir = dir.filePath(QStringLiteral("no/such/dir/s.loadscope"));
    QVERIFY(!document.saveAs(missingDir));
    QVERIFY(document.isModified());
    QCOMPARE(document.filePath(), QFileInfo(path).absoluteFilePath());
    QVERIFY(document.save());
    QVERIFY(!document.isModified());
    QCOMPARE(loadSessionFile(path)->name, QStringLiteral("changed"));
}

void TestSessionFile::saveIntoDirectoryPathFails() {
    QTemporaryDir dir;
    const Result<void> saved = saveSessionFile(test::twoTargetSession(), dir.path());
    QVERIFY(!saved);
    const QString error = saved.error().toString();
    QVERIFY2(error.contains(QStringLiteral("is a directory")), qPrintable(error));
    QVERIFY(QFileInfo(dir.path()).isDir());
}

// The session file keeps each profile's counts and the chains that fit
// kKeptStackBytes: results of a real run's shape, each with the largest
// profile a point can keep (every role on every path, chains filling the
// budget), make a file less than half as large again as without them. Each
// result adds the same bytes, so a thousand of them say what ten thousand do
// (in a tenth of the time).
void TestSessionFile::profilesKeepALargeSessionUnderHalfAgainItsSize() {
    Session session;
    session.targets.push_back(
        test::httpTarget(QStringLiteral("host"), DeploymentMode::Host, 8080, 0));
    // A kept-alive run's latencies, most near 40 us, a tail to about 1 ms, in
    // about as many buckets as a second of lab-tcp-rr fills (whose results
    // take some 16 KB of a file each), in every phase.
    engine::Histogram latency;
    uint64_t state = 1;
    for (int i = 0; i < 2'000; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const double u = double(state >> 11) / double(1ULL << 53);
        latency.record(int64_t(40'000 * std::exp(3.2 * u * u * u * u)));
    }
    PointResult shape = test::measuredResult(session.targets[0].id, 1, 0, 20'000, 1.0, {});
    shape.totalHistogram = shape.waitingHistogram = shape.processingHistogram =
        test::histogramBytes(latency);
    shape.total = shape.waiting = shape.processing = summarize(latency);
    shape.cpu = CpuUsage{1.0, 2, 0.6, 0.5, 0, 0.2, 0.01, 0.69, 0.4, false};
    constexpr int kResults = 1000;
    for (int i = 0; i < kResults; ++i) {
        PointResult r = shape;
        r.concurrency = 1 + i / 10;
        r.repetition = i % 10;
        session.results.push_back(std::move(r));
    }
    const qsizetype without = serializeSession(session).size();

    CpuProfileSummary largest;
    largest.cpus = 64;
    largest.periodUs = 1003.009;
    largest.samples = 12'345'678;
    largest.idleSamples = 1'234'567;
    largest.lostSamples = 12'345;
    largest.profilerSamples = 1234;
    largest.samplerCpuSeconds = 0.012345678;
    for (auto& role : largest.counts)
        for (uint64_t& n : role)
            n = 1'234'567;
    const QString chain = QStringLiteral(
        "nginx [server];[libc.so.6];entry_SYSCALL_64_after_hwframe;do_syscall_64;"
        "__x64_sys_sendto;__sys_sendto;tcp_sendmsg;tcp_sendmsg_locked;__tcp_push_pending_frames;"
        "tcp_write_xmit;__tcp_transmit_skb;__ip_queue_xmit;ip_output;ip_finish_output2");
    for (int i = 0; (i + 1) * chain.size() <= kKeptStackBytes; ++i)
        largest.stacks.emplace_back(chain + QString::number(i), 123'456);
    for (PointResult& r : session.results)
        r.profile = largest;
    const qsizetype with = serializeSession(session).size();
    qInfo("%lld bytes a result; %d results: %lld bytes, %lld with profiles (x%.3f)",
          static_cast<long long>(without / kResults), kResults, static_cast<long long>(without),
          static_cast<long long>(with), double(with) / double(without));
    QVERIFY2(double(with) < 1.5 * double(without),
             qPrintable(QStringLiteral("%1 and %2").arg(with).arg(without)));
}

QTEST_GUILESS_MAIN(TestSessionFile)
#include "tst_session_file.moc"
