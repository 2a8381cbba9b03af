// Every valid report of every importer format, with its numbers mangled one
// at a time (made negative, huge, 400 digits long, "nan", swapped with the
// next one): each mangled report either imports with the numbers as printed
// and gives a session that opens with nothing set aside, or is refused with
// one line naming the file, the session unchanged and still openable. In the
// spirit of tst_import_refusals' cut at every byte.
#include "app/import/report_importer.h"
#include "app/import/session_importer.h"
#include "app/session/session_file.h"
#include "import_test_support.h"

#include <QRegularExpression>
#include <QTest>

using namespace loadscope::app;
using namespace import_test;

namespace {

struct Token {
    qsizetype start;
    qsizetype length;
};

// The numbers of a text: digits with an optional fraction, standing alone
// (not part of a version such as 2.0.40 or a word).
QList<Token> numbers(const QByteArray& content) {
    static const QRegularExpression pattern(
        QStringLiteral("(?<![\\w.\\-])\\d+(\\.\\d+)?(?![\\w.])"));
    QList<Token> tokens;
    const QString text = QString::fromLatin1(content);
    for (auto it = pattern.globalMatch(text); it.hasNext();) {
        const auto match = it.next();
        tokens.append({match.capturedStart(), match.capturedLength()});
    }
    return tokens;
}

QByteArray replaced(const QByteArray& content, const Token& token, const QByteArray& with) {
    return content.left(token.start) + with + content.mid(token.start + token.length);
}

// At most `limit` tokens spread over the file: a wrk2 spectrum has hundreds.
QList<Token> sample(const QList<Token>& tokens, qsizetype limit) {
    if (tokens.size() <= limit)
        return tokens;
    QList<Token> picked;
    for (qsizetype i = 0; i < limit; ++i)
        picked.append(tokens.at(i * tokens.size() / limit));
    return picked;
}

// A session with results of its own, so that "unchanged" has something to keep.
Session startingSession() {
    Session session;
    QList<ImportFile> files{
        {QStringLiteral("earlier.txt"), fixture(QStringLiteral("ab_2.3_keepalive.txt"))}};
    if (!importIntoSession(session, QStringLiteral("earlier"), {}, files))
        return {};
    return session;
}

} // namespace

class TestImportMangled : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyMangledNumber_data();
    void everyMangledNumber();
};

void TestImportMangled::everyMangledNumber_data() {
    QTest::addColumn<QString>("name");
    for (const QString& name : allFixtures())
        QTest::newRow(qPrintable(name)) << name;
}

void TestImportMangled::everyMangledNumber() {
    QFETCH(QString, name);
    const QByteArray content = fixture(name);
    const ImportResult original = importReports(name, content);
    QVERIFY2(original.ok(), qPrintable(errorText(original)));
    const Session before = startingSession();
    QCOMPARE(before.results.size(), size_t(1));
    // Files of several protocols, or without a concurrency, never import into one target.
    Session probe = before;
    const bool importable =
        importIntoSession(probe, QStringLiteral("target"), {}, {{name, content}}).ok();

    const QByteArray fourHundredDigits = '1' + QByteArray(399, '7');
    const QList<Token> tokens = sample(numbers(content), 60);
    QVERIFY(!tokens.isEmpty());
    int imported = 0;
    int refused = 0;
    for (qsizetype t = 0; t < tokens.size(); ++t) {
        const Token& token = tokens.at(t);
        const QByteArray printed = content.mid(token.start, token.length);
        struct Mangle {
            const char* what;
            QByteArray content;
            bool absurd; // no tool prints it: it must not be taken as a figure
        };
        QList<Mangle> mangles{
            {"negative", replaced(content, token, '-' + printed), printed.toDouble() != 0},
            {"400 digits", replaced(content, token, fourHundredDigits), true},
            {"nan", replaced(content, token, "nan"), true},
            {"huge", replaced(content, token, "100000000000000000000"), false},
            {"zero", replaced(content, token, "0"), false},
        };
        if (t + 1 < tokens.size()) {
            // Swapped with the next number: percentiles out of order, failed above complete.
            const Token& next = tokens.at(t + 1);
            const QByteArray second = content.mid(next.start, next.length);
            mangles.append(
                {"swapped", replaced(replaced(content, next, printed), token, second), false});
        }
        for (const Mangle& mangle : mangles) {
            const QString where =
                QStringLiteral("%1: %2 (%3 at byte %4)")
                    .arg(name, QLatin1String(mangle.what), QString::fromLatin1(printed))
                    .arg(token.start);
            Session session = before;
            const auto done =
                importIntoSession(session, QStringLiteral("target"), {}, {{name, mangle.content}});
            if (!done) {
                ++refused;
                const QString line = done.error().toString();
                QVERIFY2(line.startsWith(name + QLatin1Char(':')) &&
                             !line.contains(QLatin1Char('\n')),
                         qPrintable(where + QStringLiteral(": ") + line));
                QVERIFY2(session == before, qPrintable(where));
                continue;
            }
            ++imported;
            // Saved and opened again: nothing set aside, the numbers as parsed.
            const Result<Session> reopened =
                parseSession(serializeSession(session), QStringLiteral("s.loadscope"));
            QVERIFY2(reopened, qPrintable(where + QStringLiteral(": ") + errorText(reopened)));
            const QString setAside =
                reopened->setAside.empty() ? QString() : reopened->setAside.front().problem;
            QVERIFY2(setAside.isEmpty(), qPrintable(where + QStringLiteral(": ") + setAside));
            for (const ImportedReport& report : done->reports) {
                const PointResult* stored =
                    reopened->findResult(report.result.targetId, report.result.concurrency,
                                         report.result.repetition, report.result.levelRate());
                QVERIFY2(stored, qPrintable(where));
                ImportedReport back = report;
                back.result = *stored;
                QVERIFY2(sameNumbers(back, report), qPrintable(where));
            }
            // A number no tool prints was not read as one of the report's figures.
            if (mangle.absurd) {
                const ImportResult parsed = importReports(name, mangle.content);
                QVERIFY2(parsed.ok() && parsed->size() == original->size(), qPrintable(where));
                for (qsizetype i = 0; i < parsed->size(); ++i) {
                    // The stored figures only: the command typed above a
                    // report is kept as text, whatever it says.
                    ImportedReport figures = original->at(i);
                    figures.result = parsed->at(i).result;
                    QVERIFY2(sameNumbers(figures, original->at(i)), qPrintable(where));
                }
            }
        }
    }
    QVERIFY(refused > 0);
    QVERIFY(!importable || imported > 0);
    // The session the refusals left alone still saves and opens.
    QVERIFY(parseSession(serializeSession(before), QStringLiteral("before.loadscope")));
}

QTEST_GUILESS_MAIN(TestImportMangled)
#include "tst_import_mangled.moc"
