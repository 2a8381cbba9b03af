// `loadscope-cli import` driven as a user drives it, and what the comparison
// makes of imported results beside measured ones (their own rows, pooled on
// request). The importer's rules are tst_session_import's.
#include "app/import/session_importer.h"
#include "app/session/comparison.h"
#include "app/session/comparison_report.h"
#include "app/session/csv_export.h"
#include "app/session/session_file.h"
#include "import_test_support.h"
#include "session_test_data.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace loadscope::app;
using namespace import_test;

namespace {

ImportFile fixtureFile(const QString& name) {
    return ImportFile{name, readFixture(QFINDTESTDATA(QStringLiteral("fixtures/import/") + name))};
}

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run runCli(const QStringList& arguments, const QByteArray& input = {}) {
    QProcess process;
    process.start(qEnvironmentVariable("LOADSCOPE_CLI"), arguments);
    Run run;
    if (!process.waitForStarted(10'000))
        return run;
    process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished();
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

QByteArray readFile(const QString& path) {
    return readFixture(path);
}

// The requests/s rows of a comparison at one level.
std::vector<const ComparisonRow*> rpsRows(const Comparison& comparison, int level) {
    std::vector<const ComparisonRow*> rows;
    for (const ComparisonRow& row : comparison.rows()) {
        if (row.concurrency == level && row.metric == Metric::RequestsPerSecond)
            rows.push_back(&row);
    }
    return rows;
}

// A session with one http target whose c=10 point Loadscope measured once
// at exactly 1000 requests/s, and ab's report of c=10 imported beside it.
Session measuredAndAb() {
    Session session;
    session.targets.push_back(
        loadscope::test::httpTarget(QStringLiteral("host"), DeploymentMode::Host, 80, 0));
    session.baselineTargetId = session.targets[0].id;
    session.plan.concurrencyLevels = {10};
    session.results.push_back(loadscope::test::measuredResult(session.targets[0].id, 10, 0, 1000,
                                                              1.0, {{2'000'000, 1000}}));
    const auto imported = importIntoSession(session, QStringLiteral("host"), QString(),
                                            {fixtureFile(QStringLiteral("ab_2.3_keepalive.txt"))});
    if (!imported)
        qWarning("%s", qPrintable(errorText(imported)));
    return session;
}

} // namespace

class TestSessionImportCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void importedBesideMeasuredIsItsOwnRow();
    void poolingOnRequest();
    void cliImports();
    void cliRefusals_data();
    void cliRefusals();
};

void TestSessionImportCli::importedBesideMeasuredIsItsOwnRow() {
    const Session session = measuredAndAb();
    QCOMPARE(session.results.size(), size_t(2));
    const double abRate = QRegularExpression(QStringLiteral("Requests per second: +([\\d.]+)"))
                              .match(QString::fromLatin1(readFixture(
                                  QFINDTESTDATA("fixtures/import/ab_2.3_keepalive.txt"))))
                              .captured(1)
                              .toDouble();
    QVERIFY(abRate > 0);

    // Two series of one target, one run each: never one mean over two runs.
    const Comparison comparison(session);
    QCOMPARE(comparison.series().size(), size_t(2));
    const auto rows = rpsRows(comparison, 10);
    QCOMPARE(rows.size(), size_t(2));
    QCOMPARE(rows[0]->statistics.n, 1);
    QCOMPARE(rows[1]->statistics.n, 1);
    QCOMPARE(comparison.series()[rows[0]->series].tool, QStringLiteral("loadscope"));
    QCOMPARE(rows[0]->statistics.mean, 1000.0);
    QCOMPARE(comparison.series()[rows[1]->series].tool, QStringLiteral("ab"));
    QCOMPARE(rows[1]->statistics.mean, abRate);

    const QString report = comparisonReport(session, comparison);
    QVERIFY2(report.contains(QLatin1String("Concurrency 10 (1 run)")), qPrintable(report));
    QVERIFY2(report.contains(QLatin1String("host (loadscope, closed-loop)")), qPrintable(report));
    QVERIFY2(report.contains(QLatin1String("host (ab, closed-loop)")), qPrintable(report));
    const QString summary = QString::fromUtf8(summaryCsv(session, comparison));
    QVERIFY(summary.contains(QLatin1String(",requests_per_second,req/s,1,1000,")));
    QVERIFY(summary.contains(QLatin1String(",ab,closed-loop,,0,\r\n")));
}

void TestSessionImportCli::poolingOnRequest() {
    const Session session = measuredAndAb();
    const Comparison pooled(session, ComparisonOptions{true});
    QCOMPARE(pooled.series().size(), size_t(1));
    QCOMPARE(pooled.series()[0].tool, QStringLiteral("ab+loadscope"));
    const auto rows = rpsRows(pooled, 10);
    QCOMPARE(rows.size(), size_t(1));
    QCOMPARE(rows[0]->statistics.n, 2);
    const QString report = comparisonReport(session, pooled);
    QVERIFY2(report.contains(QLatin1String("Concurrency 10 (2 runs)")), qPrintable(report));
    QVERIFY(report.contains(QLatin1String("Pooled on request")));

    if (qEnvironmentVariable("LOADSCOPE_CLI").isEmpty())
        QSKIP("LOADSCOPE_CLI is not set (ctest sets it to the built loadscope-cli)");
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("both.loadscope"));
    QVERIFY(saveSessionFile(session, path));
    const Run apart = runCli({QStringLiteral("report"), path});
    QCOMPARE(apart.exitCode, 0);
    QVERIFY2(apart.out.contains(QLatin1String("host (ab, closed-loop)")), qPrintable(apart.out));
    QVERIFY(apart.out.contains(QLatin1String("Concurrency 10 (1 run)")));
    const Run together = runCli({QStringLiteral("report"), QStringLiteral("--pool-sources"), path});
    QCOMPARE(together.exitCode, 0);
    QVERIFY2(together.out.contains(QLatin1String("Concurrency 10 (2 runs)")),
             qPrintable(together.out));
    const Run csv = runCli({QStringLiteral("export"), QStringLiteral("--pool-sources"),
                            QStringLiteral("--summary-csv"), QStringLiteral("-"), path});
    QCOMPARE(csv.exitCode, 0);
    QVERIFY2(csv.out.contains(QLatin1String(",ab+loadscope,closed-loop,,0,\r\n")),
             qPrintable(csv.out));
}

void TestSessionImportCli::cliImports() {
    if (qEnvironmentVariable("LOADSCOPE_CLI").isEmpty())
        QSKIP("LOADSCOPE_CLI is not set (ctest sets it to the built loadscope-cli)");
    QTemporaryDir dir;
    const QString session = dir.filePath(QStringLiteral("modes.loadscope"));
    const QString ab = QFINDTESTDATA("fixtures/import/ab_terminal_session.txt");
    const QString wrk = QFINDTESTDATA("fixtures/import/wrk_latency.txt");

    const Run first = runCli({QStringLiteral("import"), QStringLiteral("--session"), session,
                              QStringLiteral("--target"), QStringLiteral("nat"),
                              QStringLiteral("--mode"), QStringLiteral("container-nat"), ab, wrk});
    QCOMPARE(first.exitCode, 0);
    QVERIFY2(first.err.isEmpty(), qPrintable(first.err));
    const QStringList lines = first.out.trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 4);
    QCOMPARE(lines.at(0), ab + QStringLiteral(":3: ab 2.3: concurrency 4, 120 requests, "
                                              "2106.19 requests/s -> repetition 0"));
    QCOMPARE(lines.at(1), ab + QStringLiteral(":47: ab 2.3: concurrency 10, 2000 requests, "
                                              "71093.42 requests/s -> repetition 0"));
    QCOMPARE(lines.at(2), wrk + QStringLiteral(":1: wrk: concurrency 10, 47449 complete, "
                                               "47418.04 requests/s -> repetition 1"));
    QCOMPARE(lines.at(3), QStringLiteral("imported 3 reports into new target 'nat' "
                                         "(container-nat, http) of ") +
                              session);
    const Result<Session> saved = loadSessionFile(session);
    QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
    QCOMPARE(static_cast<int>(saved->results.size()), 3);
    QCOMPARE(saved->targets.front().modeLabel(), QStringLiteral("container-nat"));

    // Standard input, into a second target of the same session.
    const Run piped =
        runCli({QStringLiteral("import"), QStringLiteral("--session"), session,
                QStringLiteral("--target"), QStringLiteral("host"), QStringLiteral("-")},
               readFile(QFINDTESTDATA("fixtures/import/ab_2.3_close.txt")));
    QCOMPARE(piped.exitCode, 0);
    QVERIFY(piped.out.startsWith(QLatin1String("stdin:1: ab 2.3: concurrency 10")));
    QCOMPARE(static_cast<int>(loadSessionFile(session)->targets.size()), 2);
}

void TestSessionImportCli::cliRefusals_data() {
    QTest::addColumn<QStringList>("arguments"); // SESSION stands for the session file
    QTest::addColumn<QString>("error");

    const QString ab = QFINDTESTDATA("fixtures/import/ab_2.3_keepalive.txt");
    const QString session = QStringLiteral("SESSION");
    QTest::newRow("duplicate") << QStringList{QStringLiteral("--session"), session,
                                              QStringLiteral("--target"), QStringLiteral("nat"), ab}
                               << QStringLiteral("loadscope-cli import: %1:1: this ab report is "
                                                 "already in target 'nat' (imported from %1)")
                                      .arg(ab);
    QTest::newRow("missing file")
        << QStringList{QStringLiteral("--session"), session, QStringLiteral("--target"),
                       QStringLiteral("nat"), QStringLiteral("/nonexistent/ab.txt")}
        << QStringLiteral(
               "loadscope-cli import: /nonexistent/ab.txt: cannot read: no such file or directory");
    QTest::newRow("no target") << QStringList{QStringLiteral("--session"), session, ab}
                               << QStringLiteral("loadscope-cli import: needs --session FILE and "
                                                 "--target NAME (see --help)");
    QTest::newRow("no output") << QStringList{QStringLiteral("--session"), session,
                                              QStringLiteral("--target"), QStringLiteral("nat")}
                               << QStringLiteral(
                                      "loadscope-cli import: which outputs? (see --help)");
    QTest::newRow("mode of an existing target")
        << QStringList{QStringLiteral("--session"),
                       session,
                       QStringLiteral("--target"),
                       QStringLiteral("nat"),
                       QStringLiteral("--mode"),
                       QStringLiteral("macvlan"),
                       QFINDTESTDATA("fixtures/import/wrk_latency.txt")}
        << QStringLiteral("loadscope-cli import: target 'nat' is in mode 'host', not 'macvlan'");
}

void TestSessionImportCli::cliRefusals() {
    if (qEnvironmentVariable("LOADSCOPE_CLI").isEmpty())
        QSKIP("LOADSCOPE_CLI is not set (ctest sets it to the built loadscope-cli)");
    QFETCH(QStringList, arguments);
    QFETCH(QString, error);
    QTemporaryDir dir;
    const QString session = dir.filePath(QStringLiteral("s.loadscope"));
    const Run setUp = runCli({QStringLiteral("import"), QStringLiteral("--session"), session,
                              QStringLiteral("--target"), QStringLiteral("nat"),
                              QFINDTESTDATA("fixtures/import/ab_2.3_keepalive.txt")});
    QCOMPARE(setUp.exitCode, 0);
    const QByteArray before = readFile(session);

    arguments.replaceInStrings(QStringLiteral("SESSION"), session);
    const Run run = runCli(QStringList{QStringLiteral("import")} + arguments);
    QCOMPARE(run.exitCode, 2);
    QCOMPARE(run.err, error + QLatin1Char('\n'));
    QVERIFY(run.out.isEmpty());
    QCOMPARE(readFile(session), before); // saved only after a whole import
}

QTEST_GUILESS_MAIN(TestSessionImportCli)
#include "tst_session_import_cli.moc"
