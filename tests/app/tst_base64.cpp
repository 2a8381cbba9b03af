// decodeBase64 against Qt's strict decoder, its independent truth: the same
// bytes for every text Qt accepts, a refusal for every text it refuses, on
// hand-picked spellings and on random mutations of valid text.
#include "app/common/base64.h"
#include "random_edit.h"

#include <QRandomGenerator>
#include <QTest>

using namespace loadscope::app;

namespace {

std::optional<QByteArray> qtDecode(const QString& text) {
    auto decoded =
        QByteArray::fromBase64Encoding(text.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    return decoded.decoded;
}

// Base64 of random bytes, most with up to two random edits from `alphabet`.
QStringList mutatedBase64(quint32 seed, const QString& alphabet) {
    QRandomGenerator random(seed);
    QStringList texts;
    for (int round = 0; round < 20000; ++round) {
        QByteArray bytes(qsizetype(random.bounded(40)), Qt::Uninitialized);
        for (char& byte : bytes)
            byte = char(random.bounded(256));
        QString text = QString::fromLatin1(bytes.toBase64());
        for (int edits = int(random.bounded(3)); edits > 0 && !text.isEmpty(); --edits)
            loadscope::test::randomEdit(
                text, alphabet.at(qsizetype(random.bounded(int(alphabet.size())))), random);
        texts << text;
    }
    return texts;
}

} // namespace

class TestBase64 : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void agreesWithQt_data();
    void agreesWithQt();
    void agreesWithQtOnMutations();
    void canonicalTextTakesTheOnePass();
    void bytesDecodeAsTheirText();
};

void TestBase64::agreesWithQt_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("empty") << QString() << true << QByteArray();
    QTest::newRow("one quad") << QStringLiteral("TWFu") << true << QByteArray("Man");
    QTest::newRow("two padding") << QStringLiteral("TQ==") << true << QByteArray("M");
    QTest::newRow("one padding") << QStringLiteral("TWE=") << true << QByteArray("Ma");
    QTest::newRow("every symbol") << QStringLiteral("+/+/") << true
                                  << QByteArray::fromHex("fbffbf");
    QTest::newRow("stray bits after one byte") << QStringLiteral("TR==") << true << QByteArray("M");
    QTest::newRow("stray bits after two bytes")
        << QStringLiteral("TWF=") << true << QByteArray("Ma");
    QTest::newRow("no padding") << QStringLiteral("TWE") << true << QByteArray("Ma");
    QTest::newRow("a space") << QStringLiteral("TW Fu") << false << QByteArray();
    QTest::newRow("a line break") << QStringLiteral("TWFu\nTWFu") << false << QByteArray();
    QTest::newRow("url alphabet") << QStringLiteral("-_-_") << false << QByteArray();
    QTest::newRow("padding inside") << QStringLiteral("TQ==TWFu") << false << QByteArray();
    QTest::newRow("only padding") << QStringLiteral("====") << false << QByteArray();
    QTest::newRow("three padding") << QStringLiteral("T===") << false << QByteArray();
    QTest::newRow("beyond Latin-1") << QStringLiteral("TW\u0100u") << false << QByteArray();
    QTest::newRow("Latin-1 letter") << QStringLiteral("TW\u00e9u") << false << QByteArray();
}

void TestBase64::agreesWithQt() {
    QFETCH(QString, text);
    QFETCH(bool, valid);
    QFETCH(QByteArray, bytes);
    const std::optional<QByteArray> qt = qtDecode(text);
    QCOMPARE(qt.has_value(), valid); // the table states what Qt does
    if (qt)
        QCOMPARE(*qt, bytes);
    const std::optional<QByteArray> decoded = decodeBase64(text);
    QCOMPARE(decoded.has_value(), valid);
    if (decoded)
        QCOMPARE(*decoded, bytes);
}

void TestBase64::agreesWithQtOnMutations() {
    const QString alphabet = QStringLiteral(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= \n-_\u00e9\u0100");
    for (const QString& text : mutatedBase64(12, alphabet)) {
        const std::optional<QByteArray> qt = qtDecode(text);
        const std::optional<QByteArray> decoded = decodeBase64(text);
        QVERIFY2(qt.has_value() == decoded.has_value(), qPrintable(text));
        if (qt)
            QVERIFY2(*qt == *decoded, qPrintable(text));
    }
}

void TestBase64::canonicalTextTakesTheOnePass() {
    // What Qt's encoder writes, of every length modulo 3, is decoded without Qt.
    QRandomGenerator random(3);
    for (int size = 1; size < 200; ++size) {
        QByteArray bytes(size, Qt::Uninitialized);
        for (char& byte : bytes)
            byte = char(random.bounded(256));
        const QString text = QString::fromLatin1(bytes.toBase64());
        const std::optional<QByteArray> decoded = decodeCanonicalBase64(text);
        QVERIFY2(decoded, qPrintable(text));
        QCOMPARE(*decoded, bytes);
    }
    // Spellings Qt accepts that are not Loadscope's are left to Qt.
    QVERIFY(!decodeCanonicalBase64(QStringLiteral("TR==")));
    QVERIFY(!decodeCanonicalBase64(QStringLiteral("TWE")));
    QVERIFY(!decodeCanonicalBase64(QString()));
}

void TestBase64::bytesDecodeAsTheirText() {
    // The pass over Latin-1 bytes (a histogram cut from a file's text) takes
    // and refuses what the pass over the same text as UTF-16 does.
    const QString alphabet = QStringLiteral(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= \n-_\u00e9");
    for (const QString& text : mutatedBase64(5, alphabet)) {
        const std::optional<QByteArray> fromText = decodeCanonicalBase64(text);
        const std::optional<QByteArray> fromBytes = decodeCanonicalBase64(text.toLatin1());
        QVERIFY2(fromText.has_value() == fromBytes.has_value(), qPrintable(text));
        if (fromText)
            QVERIFY2(*fromText == *fromBytes, qPrintable(text));
    }
    QCOMPARE(decodeCanonicalBase64(QByteArrayView("TWFu")), QByteArray("Man"));
    QVERIFY(!decodeCanonicalBase64(QByteArrayView("TW\xe9u")));
}

QTEST_GUILESS_MAIN(TestBase64)
#include "tst_base64.moc"
