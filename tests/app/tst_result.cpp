// Result<T>: the one error type of app/ keeps a value or an error, never both.
#include "app/common/result.h"

#include <QTest>

using namespace loadscope::app;

namespace {

Result<int> half(int n) {
    if (n % 2)
        return invalidInput(QStringLiteral("%1 is odd").arg(n));
    return n / 2;
}

Result<void> checkPositive(int n) {
    if (n <= 0)
        return makeError(ErrorCode::InvalidInput, QStringLiteral("not positive"));
    return {};
}

} // namespace

class TestResult : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void valueOrError() {
        const Result<int> good = half(8);
        QVERIFY(good.ok());
        QCOMPARE(*good, 4);
        const Result<int> bad = half(7);
        QVERIFY(!bad);
        QCOMPARE(bad.error().code, ErrorCode::InvalidInput);
        QCOMPARE(bad.error().message, QStringLiteral("7 is odd"));
    }

    void voidResult() {
        QVERIFY(checkPositive(1).ok());
        QCOMPARE(checkPositive(0).error().message, QStringLiteral("not positive"));
    }

    void toStringNamesFileAndLine_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("expected");
        QTest::newRow("message only") << QString() << 0 << QStringLiteral("bad value");
        QTest::newRow("file") << QStringLiteral("a.txt") << 0 << QStringLiteral("a.txt: bad value");
        QTest::newRow("file and line")
            << QStringLiteral("a.txt") << 12 << QStringLiteral("a.txt:12: bad value");
    }
    void toStringNamesFileAndLine() {
        QFETCH(QString, file);
        QFETCH(int, line);
        QFETCH(QString, expected);
        QCOMPARE(makeError(ErrorCode::Format, QStringLiteral("bad value"), file, line).toString(),
                 expected);
    }

    void prefixedKeepsCodeAndPlace() {
        const Error e =
            makeError(ErrorCode::Io, QStringLiteral("cannot read"), QStringLiteral("f"), 3)
                .prefixed(QStringLiteral("target 'host'"));
        QCOMPARE(e.code, ErrorCode::Io);
        QCOMPARE(e.toString(), QStringLiteral("f:3: target 'host': cannot read"));
    }

    void movesOutValue() {
        Result<std::vector<int>> r = std::vector<int>{1, 2, 3};
        const std::vector<int> taken = *std::move(r);
        QCOMPARE(taken.size(), size_t(3));
    }
};

QTEST_GUILESS_MAIN(TestResult)
#include "tst_result.moc"
