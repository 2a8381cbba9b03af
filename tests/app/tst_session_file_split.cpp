// The cut of a session file into its results (session_file_split.h): where it
// cuts, what it refuses to cut, and that a file read through the cut is the
// file saved.
#include "app/session/session_file.h"
#include "app/session/session_file_split.h"
#include "session_test_data.h"

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

QTEST_GUILESS_MAIN(TestSessionFileSplit)
#include "tst_session_file_split.moc"
