// A session file whose one result breaks a rule still opens: that result is
// set aside, named in one line, kept in the file on the next save, and the
// CLI commands print the line and go on. Everything outside the results is
// still all or nothing (tst_session_file).
#include "app/session/session_file.h"
#include "cli_process.h"
#include "session_mutation.h"
#include "session_test_data.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace loadscope;
using namespace loadscope::app;
using test::kRemove;
using test::mutated;
using test::readFile;
using test::writeFile;

namespace {

// One good file for the whole suite: every session made anew has new target ids.
QByteArray goodBytes() {
    static const QByteArray bytes = serializeSession(test::twoTargetSession());
    return bytes;
}

QJsonValue goodResult(int index) {
    return QJsonDocument::fromJson(goodBytes())
        .object()
        .value(QStringLiteral("results"))
        .toArray()
        .at(index);
}

// results[3]'s stored total histogram with one byte of its counts flipped:
// still base64, still the same length.
QString flippedHistogram() {
    const QString text = goodResult(3)
                             .toObject()
                             .value(QStringLiteral("latency"))
                             .toObject()
                             .value(QStringLiteral("total"))
                             .toObject()
                             .value(QStringLiteral("histogram"))
                             .toString();
    QByteArray bytes = QByteArray::fromBase64(text.toLatin1());
    bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x04);
    return QString::fromLatin1(bytes.toBase64());
}

} // namespace

class TestSessionSetAside : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void brokenResultIsSetAside_data();
    void brokenResultIsSetAside();
    void setAsideResultIsSavedBack();
    void repeatedResultIsSavedBack();
    void cliCommandsNameItAndGoOn_data();
    void cliCommandsNameItAndGoOn();
};

void TestSessionSetAside::brokenResultIsSetAside_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("line");

    const auto row = [](const char* name, const char* path, const QJsonValue& value,
                        const char* line) {
        QTest::newRow(name) << QString::fromLatin1(path) << value << QString::fromUtf8(line);
    };
    // Each of these refused the whole file before; 3 is the broken result.
    row("negative duration", "durationSeconds", -0.002,
        "results[3] set aside: durationSeconds is -0.002, expected above 0");
    row("zero duration", "durationSeconds", 0,
        "results[3] set aside: durationSeconds is 0, expected above 0");
    row("absurd duration", "durationSeconds", 1e308,
        "results[3] set aside: durationSeconds is 1e+308, above 10000000");
    row("tiny duration", "durationSeconds", 1e-300,
        "results[3] set aside: requests per second (complete / durationSeconds) is ");
    row("failed above complete", "failed", 1e6,
        "results[3] set aside: failed is 1000000, more than complete (");
    row("nan percentile key", "latency.total",
        QJsonObject{{QStringLiteral("percentiles"), QJsonObject{{QStringLiteral("nan"), 1.0}}}},
        "results[3] set aside: latency.total.percentiles.nan is not a percentile");
    row("percentile above 100", "latency.total",
        QJsonObject{{QStringLiteral("percentiles"), QJsonObject{{QStringLiteral("150"), 1.0}}}},
        "results[3] set aside: latency.total.percentiles.150 is not a percentile");
    row("decreasing percentiles", "latency.total",
        QJsonObject{{QStringLiteral("percentiles"),
                     QJsonObject{{QStringLiteral("90"), 5.0}, {QStringLiteral("99"), 4.0}}}},
        "results[3] set aside: latency.total.percentiles decrease: 99 is 4, below 90 at 5");
    row("negative latency", "latency.total", QJsonObject{{QStringLiteral("maxMs"), -1.0}},
        "results[3] set aside: latency.total.maxMs is -1, below 0");
    row("huge latency", "latency.total", QJsonObject{{QStringLiteral("maxMs"), 1e44}},
        "results[3] set aside: latency.total.maxMs is 1e+44, above 1000000000");
    row("negative reported rate", "reported",
        QJsonObject{{QStringLiteral("requestsPerSecond"), -5.0}},
        "results[3] set aside: reported.requestsPerSecond is -5, below 0");
    row("missing count", "complete", kRemove, "results[3] set aside: complete is missing");
    row("negative count", "complete", -1, "results[3] set aside: complete is -1");
    row("result for no target", "target", QUuid::createUuid().toString(),
        "results[3] set aside: target refers to no target");
    row("histogram not base64", "latency.total.histogram", QStringLiteral("!!not base64!!"),
        "results[3] set aside: latency.total.histogram is not a valid histogram");
    row("histogram byte flipped", "latency.total.histogram", flippedHistogram(),
        "results[3] set aside: latency.total.histogram is not a valid histogram");
    // Figures stored beside a histogram are held to what its header fixes.
    row("stored minimum edited", "latency.total.minMs", 0.25,
        "results[3] set aside: latency.total.minMs does not match the histogram (0.3 ms)");
    row("stored mean removed", "latency.total.meanMs", kRemove,
        "results[3] set aside: latency.total.meanMs is missing (the histogram's is 1.4255 ms)");
    row("bad start time", "environment.startedAt", QStringLiteral("yesterday"),
        "results[3] set aside: environment.startedAt is \"yesterday\"");
    row("bad status code", "statusCodes.OK", 3,
        "results[3] set aside: statusCodes.OK is not an HTTP status code");
    const auto profile = [](const char* key, const QJsonValue& value) {
        QJsonObject p{{QStringLiteral("cpus"), 2},
                      {QStringLiteral("periodUs"), 1000},
                      {QStringLiteral("samples"), 10},
                      {QStringLiteral("counts"), QJsonObject{}}};
        p.insert(QLatin1String(key), value);
        return p;
    };
    row("profile path unknown", "cpuProfile",
        profile("counts", QJsonObject{{QStringLiteral("client"),
                                       QJsonObject{{QStringLiteral("warp_drive"), 3}}}}),
        "results[3] set aside: cpuProfile.counts.client.warp_drive");
    row("profile role unknown", "cpuProfile",
        profile("counts", QJsonObject{{QStringLiteral("audience"), QJsonObject{}}}),
        "results[3] set aside: cpuProfile.counts.audience");
    row("profile count negative", "cpuProfile",
        profile("counts",
                QJsonObject{{QStringLiteral("server"), QJsonObject{{QStringLiteral("user"), -4}}}}),
        "results[3] set aside: cpuProfile.counts.server.user is -4");
    row("profile chain not a pair", "cpuProfile",
        profile("stacks", QJsonArray{QJsonArray{QStringLiteral("a;b")}}),
        "results[3] set aside: cpuProfile.stacks[0] is not [frames, samples]");
    row("profile without samples", "cpuProfile",
        QJsonObject{{QStringLiteral("cpus"), 2},
                    {QStringLiteral("periodUs"), 1000},
                    {QStringLiteral("counts"), QJsonObject{}}},
        "results[3] set aside: cpuProfile.samples is missing");
    row("not an object", "", 5, "results[3] set aside: is a number, not an object");
    row("result twice", "", goodResult(0),
        "results[3] set aside: repeats concurrency 1, repetition 0 of its target");
}

void TestSessionSetAside::brokenResultIsSetAside() {
    QFETCH(QString, path);
    QFETCH(QJsonValue, value);
    QFETCH(QString, line);
    const QString where =
        QStringLiteral("results[3]") + (path.isEmpty() ? QString() : QLatin1Char('.') + path);
    const QByteArray bytes = mutated(goodBytes(), where, value);

    const Result<Session> opened = parseSession(bytes, QStringLiteral("session.loadscope"));
    QVERIFY2(opened, opened ? "" : qPrintable(opened.error().toString()));
    QCOMPARE(opened->setAside.size(), size_t(1));
    const QString problem = opened->setAside.front().problem;
    QVERIFY2(problem.startsWith(line), qPrintable(problem));
    QVERIFY(!problem.contains(QLatin1Char('\n')));
    // Every other result is there, unchanged.
    const Result<Session> whole = parseSession(goodBytes(), QStringLiteral("good.loadscope"));
    QVERIFY(whole);
    std::vector<PointResult> others = whole->results;
    others.erase(others.begin() + 3);
    QVERIFY(opened->results == others);
    QVERIFY(opened->targets == whole->targets);
}

void TestSessionSetAside::repeatedResultIsSavedBack() {
    // Set aside only once every result was read (its key repeats another's):
    // saved again, it is the result as it was, not null.
    const QByteArray bytes = mutated(goodBytes(), QStringLiteral("results[3]"), goodResult(0));
    const Result<Session> opened = parseSession(bytes, QStringLiteral("a.loadscope"));
    QVERIFY(opened);
    QCOMPARE(opened->setAside.size(), size_t(1));
    QCOMPARE(opened->setAside.front().json, goodResult(0));
    QCOMPARE(serializeSession(*opened), bytes);
}

void TestSessionSetAside::setAsideResultIsSavedBack() {
    // Not dropped: saved again, the file holds the result exactly as it was,
    // where it was, and reopens with the same line.
    const QByteArray bytes = mutated(goodBytes(), QStringLiteral("results[5].durationSeconds"), -1);
    const Result<Session> opened = parseSession(bytes, QStringLiteral("a.loadscope"));
    QVERIFY(opened);
    QCOMPARE(serializeSession(*opened), bytes);

    Session edited = *opened;
    edited.notes = QStringLiteral("edited");
    const Result<Session> again =
        parseSession(serializeSession(edited), QStringLiteral("a.loadscope"));
    QVERIFY(again);
    QCOMPARE(again->setAside.size(), size_t(1));
    const QJsonValue written =
        QJsonDocument::fromJson(bytes).object().value(QStringLiteral("results")).toArray().at(5);
    QCOMPARE(again->setAside.front().json, written);
    QCOMPARE(again->setAside.front().index, qsizetype(5));
    QCOMPARE(again->setAside.front().problem, opened->setAside.front().problem);
    QCOMPARE(again->results.size(), test::twoTargetSession().results.size() - 1);
}

void TestSessionSetAside::cliCommandsNameItAndGoOn_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("report") << QStringList{QStringLiteral("report")};
    QTest::newRow("export") << QStringList{QStringLiteral("export"), QStringLiteral("--csv"),
                                           QStringLiteral("-")};
}

void TestSessionSetAside::cliCommandsNameItAndGoOn() {
    QFETCH(QStringList, arguments);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray bytes =
        mutated(goodBytes(), QStringLiteral("results[11].durationSeconds"), -0.002);
    const QString path = writeFile(dir, QStringLiteral("s.loadscope"), bytes);
    QVERIFY(!path.isEmpty());
    arguments.insert(1, path);
    const testing::CliOutcome run = testing::runCliProcess(arguments);
    QCOMPARE(run.exitCode, 0);
    const QList<QByteArray> lines = run.errorLines();
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.first().contains("results[11] set aside: durationSeconds is -0.002"),
             lines.first().constData());
    QVERIFY(!run.out.isEmpty());
    QCOMPARE(readFile(path), bytes); // reading never rewrites the file
}

QTEST_GUILESS_MAIN(TestSessionSetAside)
#include "tst_session_set_aside.moc"
