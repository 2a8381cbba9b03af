// `loadscope-cli report` and `export`, driven as a user drives them.
#include "app/session/comparison.h"
#include "app/session/csv_export.h"
#include "app/session/session_file.h"
#include "readme_text.h"
#include "session_test_data.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace loadscope;
using namespace loadscope::app;

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run runCli(const QStringList& arguments) {
    QProcess process;
    process.start(qEnvironmentVariable("LOADSCOPE_CLI"), arguments);
    Run run;
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished();
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestSessionCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void reportPrintsTheComparison();
    void reportOpensExamplesByName();
    void reportHelpNamesBothTests();
    void refusals_data();
    void refusals();
    void exportWritesEveryFile();
    void exportCsvToStdout();

private:
    QTemporaryDir m_dir;
    QString m_sessionPath;
    Session m_session;
};

void TestSessionCli::initTestCase() {
    if (qEnvironmentVariable("LOADSCOPE_CLI").isEmpty())
        QSKIP("LOADSCOPE_CLI is not set (ctest sets it to the built loadscope-cli)");
    QVERIFY(QFileInfo(qEnvironmentVariable("LOADSCOPE_CLI")).isExecutable());
    QVERIFY(m_dir.isValid());
    m_session = test::twoTargetSession();
    m_sessionPath = m_dir.filePath(QStringLiteral("nginx.loadscope"));
    QVERIFY(saveSessionFile(m_session, m_sessionPath));
}

void TestSessionCli::reportPrintsTheComparison() {
    const Run run = runCli({QStringLiteral("report"), m_sessionPath});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.err.isEmpty());
    const QString out = QString::fromUtf8(run.out);
    QVERIFY2(out.contains(QStringLiteral("Session: nginx: host vs NAT")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("Concurrency 1 (3 runs)")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("Concurrency 10 (3 runs)")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("container-nat: -13.5% [-21.4%, -4.8%] requests/s vs "
                                         "host (significant, paired)")),
             qPrintable(out));
    // Modes side by side: one header line naming both, above the metric rows.
    const QStringList lines = out.split(QLatin1Char('\n'));
    const auto header = std::find_if(lines.begin(), lines.end(), [](const QString& line) {
        return line.contains(QStringLiteral("host")) &&
               line.contains(QStringLiteral("container-nat")) && !line.contains(QLatin1Char(':'));
    });
    QVERIFY2(header != lines.end(), qPrintable(out));
    QVERIFY((header + 1)->startsWith(QStringLiteral("Requests/s")));
}

void TestSessionCli::reportOpensExamplesByName() {
    const Run run = runCli({QStringLiteral("report"), QStringLiteral("demo-proxy")});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("Embedded HTTP server"), run.out.constData());
    QVERIFY2(run.out.contains("planned points done: 0 of 18"), run.out.constData());
}

// The verdicts are log-ratio intervals, paired where the runs were interleaved: the help does
// not promise one test (Welch's t-test) for all of them, and says it in the README's words.
void TestSessionCli::reportHelpNamesBothTests() {
    const Run run = runCli({QStringLiteral("report"), QStringLiteral("--help")});
    QCOMPARE(run.exitCode, 0);
    const QString help = QString::fromUtf8(run.out).simplified();
    QVERIFY2(!help.contains(QStringLiteral("Welch's t-test")), qPrintable(help));
    for (const QString& phrase :
         {QStringLiteral("the geometric mean of the per-repetition ratios, with a t interval of "
                         "the log ratios"),
          QStringLiteral("the ratio of the geometric means with Welch's interval of the log "
                         "figures")}) {
        const QString problem = testing::statedByHelpAndReadme(run.out, phrase);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
}

void TestSessionCli::refusals_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("report without session")
        << QStringList{QStringLiteral("report")} << 2 << QStringLiteral("which session?");
    QTest::newRow("report of a missing file")
        << QStringList{QStringLiteral("report"), QStringLiteral("/nonexistent/x.loadscope")} << 2
        << QStringLiteral("/nonexistent/x.loadscope: no such file");
    QTest::newRow("report of a corrupt file")
        << QStringList{QStringLiteral("report"), QStringLiteral("@corrupt")} << 2
        << QStringLiteral("field \"targets[0].protocol\" has an unknown value \"ftp\"");
    QTest::newRow("export without outputs")
        << QStringList{QStringLiteral("export"), QStringLiteral("@session")} << 2
        << QStringLiteral("nothing to export");
    QTest::newRow("export with an unknown option")
        << QStringList{QStringLiteral("export"), QStringLiteral("@session"),
                       QStringLiteral("--xml"), QStringLiteral("x")}
        << 2 << QStringLiteral("xml");
    QTest::newRow("export into an unwritable place")
        << QStringList{QStringLiteral("export"), QStringLiteral("@session"),
                       QStringLiteral("--csv"), QStringLiteral("/nonexistent/dir/out.csv")}
        << 1 << QStringLiteral("/nonexistent/dir/out.csv");
}

void TestSessionCli::refusals() {
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const QString corrupt = m_dir.filePath(QStringLiteral("corrupt.loadscope"));
    QFile file(corrupt);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(readFile(m_sessionPath).replace("\"protocol\": \"http\"", "\"protocol\": \"ftp\""));
    file.close();
    arguments.replaceInStrings(QStringLiteral("@corrupt"), corrupt);
    arguments.replaceInStrings(QStringLiteral("@session"), m_sessionPath);

    const Run run = runCli(arguments);
    QCOMPARE(run.exitCode, exitCode);
    const QString err = QString::fromUtf8(run.err);
    QVERIFY2(err.contains(message), qPrintable(err));
    QCOMPARE(err.count(QLatin1Char('\n')), 1); // one line
    QVERIFY(run.out.isEmpty());
}

void TestSessionCli::exportWritesEveryFile() {
    const QString csv = m_dir.filePath(QStringLiteral("results.csv"));
    const QString summary = m_dir.filePath(QStringLiteral("summary.csv"));
    const QString percentiles = m_dir.filePath(QStringLiteral("percentiles"));
    const Run run = runCli({QStringLiteral("export"), m_sessionPath, QStringLiteral("--csv"), csv,
                            QStringLiteral("--summary-csv"), summary,
                            QStringLiteral("--percentiles"), percentiles});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.isEmpty(), run.err.constData());
    QCOMPARE(readFile(csv), resultsCsv(m_session));
    QCOMPARE(readFile(summary), summaryCsv(m_session, Comparison(m_session)));
    QCOMPARE(QDir(percentiles).entryList({QStringLiteral("*.hgrm")}, QDir::Files, QDir::Name),
             (QStringList{QStringLiteral("container-nat_c1.hgrm"),
                          QStringLiteral("container-nat_c10.hgrm"), QStringLiteral("host_c1.hgrm"),
                          QStringLiteral("host_c10.hgrm")}));
    QVERIFY(readFile(QDir(percentiles).filePath(QStringLiteral("host_c10.hgrm")))
                .startsWith("       Value     Percentile TotalCount 1/(1-Percentile)\n\n"));
}

void TestSessionCli::exportCsvToStdout() {
    const Run run = runCli({QStringLiteral("export"), m_sessionPath,
                            QStringLiteral("--summary-csv"), QStringLiteral("-")});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out, summaryCsv(m_session, Comparison(m_session)));
}

QTEST_GUILESS_MAIN(TestSessionCli)
#include "tst_session_cli.moc"
