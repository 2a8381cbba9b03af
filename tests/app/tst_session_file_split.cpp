// The cut of a session file into its results (session_file_split.h): where it
// cuts, what it refuses to cut, and that a file read through the cut is the
// file saved. The same for the histograms cut out of each result's text.
#include "app/session/session_file.h"
#include "app/session/session_file_split.h"
#include "app/session/session_json.h"
#include "session_test_data.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace loadscope::app;

class TestSessionFileSplit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cutsAtEachResult();
    void uncertainFilesAreNotCut_data();
    void uncertainFilesAreNotCut();
    void cutFileReadsAsSaved_data();
    void cutFileReadsAsSaved();
    void syntaxErrorWinsOverRefusal();
    void cutsTheHistogramsOfDistributions();
    void uncertainResultsAreNotCut_data();
    void uncertainResultsAreNotCut();
    void resultSetAsideKeepsItsHistogram();
    void unknownKeysOfACutResultAreKept();
};

void TestSessionFileSplit::cutsAtEachResult() {
    // Strings holding brackets, commas, quotes and a backslash, and a nested
    // object: none of them ends a result.
    const QByteArray bytes = "\xEF\xBB\xBF {\"name\": \"a ] b\", \"results\" :\n"
                             "  [ {\"x\": \"}, \\\" ]\", \"y\": {\"z\": [1, {}]}} ,\r\n"
                             "\t{} ], \"version\": 1}";
    const std::optional<SessionFileSplit> split = splitSessionFile(bytes);
    QVERIFY(split);
    QCOMPARE(split->results.size(), size_t(2));
    QCOMPARE(split->results[0].toByteArray(),
             QByteArray("{\"x\": \"}, \\\" ]\", \"y\": {\"z\": [1, {}]}}"));
    QCOMPARE(split->results[1].toByteArray(), QByteArray("{}"));
    QCOMPARE(split->rest,
             QByteArray("\xEF\xBB\xBF {\"name\": \"a ] b\", \"results\" :\n  [], \"version\": 1}"));
}

void TestSessionFileSplit::uncertainFilesAreNotCut_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("no results") << QByteArray("{\"name\": \"x\"}");
    QTest::newRow("no result") << QByteArray("{\"results\": [ ]}");
    QTest::newRow("results twice") << QByteArray("{\"results\": [{}], \"results\": [{}]}");
    QTest::newRow("an escaped top-level key")
        << QByteArray("{\"res\\u0075lts\": [], \"results\": [{}]}");
    QTest::newRow("a result that is no object") << QByteArray("{\"results\": [{}, 5]}");
    QTest::newRow("results not an array") << QByteArray("{\"results\": {\"a\": {}}}");
    QTest::newRow("a trailing comma") << QByteArray("{\"results\": [{}, ]}");
    QTest::newRow("no comma between results") << QByteArray("{\"results\": [{} {}]}");
    QTest::newRow("truncated in a result") << QByteArray("{\"results\": [{\"a\": \"b");
    QTest::newRow("truncated after the results") << QByteArray("{\"results\": [{}]");
    QTest::newRow("an array at the top") << QByteArray("[{\"results\": [{}]}]");
    QByteArray deep = "{\"results\": [";
    deep += QByteArray(1010, '[') + QByteArray(1010, ']') + "]}";
    QTest::newRow("nesting near Qt's limit") << deep;
}

void TestSessionFileSplit::uncertainFilesAreNotCut() {
    QFETCH(QByteArray, bytes);
    QVERIFY(!splitSessionFile(bytes));
}

void TestSessionFileSplit::cutFileReadsAsSaved_data() {
    QTest::addColumn<QByteArray>("bytes");
    const QByteArray saved = serializeSession(loadscope::test::twoTargetSession());
    QTest::newRow("as saved") << saved;
    QTest::newRow("on one line") << QJsonDocument::fromJson(saved).toJson(QJsonDocument::Compact);
}

void TestSessionFileSplit::cutFileReadsAsSaved() {
    QFETCH(QByteArray, bytes);
    const std::optional<SessionFileSplit> split = splitSessionFile(bytes);
    QVERIFY(split);
    QCOMPARE(split->results.size(), size_t(12));
    const Result<Session> session = parseSession(bytes, QStringLiteral("s.loadscope"));
    QVERIFY2(session, qPrintable(session ? QString() : session.error().toString()));
    QCOMPARE(session->results.size(), size_t(12));
    // Saving what was read gives the file as saved, whichever way it was written.
    QCOMPARE(QJsonDocument::fromJson(serializeSession(*session)), QJsonDocument::fromJson(bytes));
}

void TestSessionFileSplit::syntaxErrorWinsOverRefusal() {
    // A file of another format whose result is broken too: the broken JSON
    // is named, as a whole-file parse names it, not the format.
    QByteArray bytes = serializeSession(loadscope::test::twoTargetSession());
    bytes.replace("\"loadscope-session\"", "\"wrk-results\"");
    const qsizetype key = bytes.indexOf("\"concurrency\"", bytes.indexOf("\"results\""));
    bytes[bytes.indexOf(':', key)] = '=';
    const int line = int(bytes.left(key).count('\n')) + 1;
    const Result<Session> session = parseSession(bytes, QStringLiteral("s.loadscope"));
    QVERIFY(!session);
    QVERIFY2(session.error().message.contains(QStringLiteral("is not valid JSON")),
             qPrintable(session.error().message));
    QVERIFY2(session.error().message.contains(QStringLiteral("at line %1, column").arg(line)),
             qPrintable(session.error().message));
}

void TestSessionFileSplit::cutsTheHistogramsOfDistributions() {
    // Cut: canonical base64 under a distribution of "latency" or
    // "operations". Kept: a "histogram" anywhere else, a string "histogram"
    // that is a value, and a spelling only Qt's decoder accepts.
    const QByteArray result =
        "{\"histogram\": \"TWFu\", \"reported\": {\"x\": {\"histogram\": \"TWFu\"}},\n"
        " \"latency\": {\"total\": {\"maxMs\": 1, \"histogram\" : \"TWFu\"},\n"
        "   \"connect\": {\"histogram\": \"TWE\"},\n"
        "   \"waiting\": {\"note\": \"histogram\", \"histogram\": [\"TWFu\"]}},\n"
        " \"operations\": {\"get \xc3\xa9\": {\"histogram\": \"TQ==\"}}}";
    const std::optional<ResultWithoutHistograms> cut = cutHistograms(result);
    QVERIFY(cut);
    QByteArray expected = result;
    expected.replace("\"histogram\" : \"TWFu\"", "\"histogram\" : \"\"");
    expected.replace("\"histogram\": \"TQ==\"", "\"histogram\": \"\"");
    QCOMPARE(cut->json, expected);
    QCOMPARE(cut->histograms.size(), size_t(2));
    QCOMPARE(cut->histograms[0].inOperations, false);
    QCOMPARE(cut->histograms[0].name, QStringLiteral("total"));
    QCOMPARE(cut->histograms[0].bytes, QByteArray("Man"));
    QCOMPARE(cut->histograms[1].inOperations, true);
    QCOMPARE(cut->histograms[1].name, QStringLiteral("get \u00e9"));
    QCOMPARE(cut->histograms[1].bytes, QByteArray("M"));
}

void TestSessionFileSplit::uncertainResultsAreNotCut_data() {
    QTest::addColumn<QByteArray>("result");
    QTest::newRow("a backslash") << QByteArray(
        "{\"latency\": {\"total\": {\"histogram\": \"TWFu\"}}, \"firstError\": \"a \\\" b\"}");
    QTest::newRow("latency twice")
        << QByteArray("{\"latency\": {\"total\": {\"histogram\": \"TWFu\"}}, \"latency\": {}}");
    QTest::newRow("a distribution twice") << QByteArray(
        "{\"latency\": {\"total\": {\"histogram\": \"TWFu\"}, \"total\": {\"maxMs\": 1}}}");
    QTest::newRow("histogram twice") << QByteArray(
        "{\"operations\": {\"get\": {\"histogram\": \"TWFu\", \"histogram\": \"TQ==\"}}}");
    QTest::newRow("nothing to cut")
        << QByteArray("{\"latency\": {\"total\": {\"maxMs\": 1}}, \"histogram\": \"TWFu\"}");
    QTest::newRow("a quote left open")
        << QByteArray("{\"latency\": {\"total\": {\"histogram\": \"TWFu");
}

void TestSessionFileSplit::uncertainResultsAreNotCut() {
    QFETCH(QByteArray, result);
    QVERIFY(!cutHistograms(result));
}

void TestSessionFileSplit::resultSetAsideKeepsItsHistogram() {
    // Read through the cut, a result set aside is written back with its
    // histogram's text, not the "" the parser was handed.
    const Session session = loadscope::test::twoTargetSession();
    QJsonObject root = QJsonDocument::fromJson(serializeSession(session)).object();
    QJsonArray results = root.value(QStringLiteral("results")).toArray();
    QJsonObject first = results.at(0).toObject();
    const QString histogram = first.value(QStringLiteral("latency"))
                                  .toObject()
                                  .value(QStringLiteral("total"))
                                  .toObject()
                                  .value(QStringLiteral("histogram"))
                                  .toString();
    QVERIFY(!histogram.isEmpty());
    first.insert(QStringLiteral("target"), QStringLiteral("00000000-0000-0000-0000-000000000001"));
    results.replace(0, first);
    root.insert(QStringLiteral("results"), results);
    const QByteArray bytes = QJsonDocument(root).toJson();
    QVERIFY(splitSessionFile(bytes));
    const Result<Session> read = parseSession(bytes, QStringLiteral("s.loadscope"));
    QVERIFY2(read, qPrintable(read ? QString() : read.error().toString()));
    QCOMPARE(read->results.size(), session.results.size() - 1);
    QCOMPARE(read->setAside.size(), size_t(1));
    QCOMPARE(read->setAside.front().json.toObject(), first);
    QCOMPARE(read->results.front().totalHistogram, session.results.at(1).totalHistogram);
}

void TestSessionFileSplit::unknownKeysOfACutResultAreKept() {
    // The cut lists the result's own keys; one the schema does not know is
    // kept and saved again, as a whole parse keeps it.
    const Session session = loadscope::test::twoTargetSession();
    QJsonObject root = QJsonDocument::fromJson(serializeSession(session)).object();
    QJsonArray results = root.value(QStringLiteral("results")).toArray();
    QJsonObject first = results.at(0).toObject();
    first.insert(QStringLiteral("fromANewerVersion"), QJsonObject{{QStringLiteral("a"), 1}});
    results.replace(0, first);
    root.insert(QStringLiteral("results"), results);
    const QByteArray bytes = QJsonDocument(root).toJson();
    const std::optional<SessionFileSplit> split = splitSessionFile(bytes);
    QVERIFY(split);
    const std::optional<ResultWithoutHistograms> cut = cutHistograms(split->results.front());
    QVERIFY(cut);
    QVERIFY(!areKnownResultKeys(cut->keys));
    QVERIFY(areKnownResultKeys(cutHistograms(split->results.back())->keys));
    const Result<Session> read = parseSession(bytes, QStringLiteral("s.loadscope"));
    QVERIFY2(read, qPrintable(read ? QString() : read.error().toString()));
    QCOMPARE(read->results.front().unknownFields.keys(),
             QStringList{QStringLiteral("fromANewerVersion")});
    QVERIFY(read->results.back().unknownFields.isEmpty());
    QCOMPARE(QJsonDocument::fromJson(serializeSession(*read)), QJsonDocument(root));
}

QTEST_GUILESS_MAIN(TestSessionFileSplit)
#include "tst_session_file_split.moc"
