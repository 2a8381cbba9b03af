// loadscope-cli sweep end to end, as a user runs it: against the embedded
// HTTP server and proxy, with CSVs, resume rules, SIGINT, and SIGKILL in the
// middle of a point (the autosaved file must stay whole).
#include "app/session/session_file.h"
#include "sweep_test_session.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>

using namespace loadscope;

namespace {

struct CliRun {
    int exitCode = -1; // -1: crashed or killed
    QString out;
    QString err;
};

CliRun runCli(const QStringList& arguments, int timeoutMs = 120'000) {
    QProcess process;
    process.start(qEnvironmentVariable("LOADSCOPE_CLI"), arguments);
    CliRun run;
    if (!process.waitForStarted(10'000))
        return run;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(5000);
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

// A sweep in the background whose stderr is collected as it comes.
class BackgroundSweep {
public:
    explicit BackgroundSweep(const QStringList& arguments) {
        QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process,
                         [this] { m_err += QString::fromUtf8(m_process.readAllStandardError()); });
        m_process.start(qEnvironmentVariable("LOADSCOPE_CLI"), arguments);
    }
    ~BackgroundSweep() {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
    QProcess& process() { return m_process; }
    const QString& err() const { return m_err; }

private:
    QProcess m_process;
    QString m_err;
};

int lineCount(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    return int(file.readAll().count("\r\n"));
}

} // namespace

class TestSweepCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void sweepWritesSessionComparisonAndCsv();
    void existingResultsNeedResumeOrFresh();
    void unreachableTargetExitsWithThree();
    void sigintCancelsAndKeepsFinishedPoints();
    void killInMiddleOfPointLeavesValidFile();

private:
    QString writeSession(const app::Session& session, const QString& name);

    std::unique_ptr<test::HttpPair> m_servers;
    QTemporaryDir m_dir;
};

void TestSweepCli::initTestCase() {
    QVERIFY2(QFile::exists(qEnvironmentVariable("LOADSCOPE_CLI")), "LOADSCOPE_CLI not set");
    QVERIFY(m_dir.isValid());
    m_servers = std::make_unique<test::HttpPair>();
    QVERIFY2(m_servers->isRunning(), qPrintable(m_servers->error()));
}

void TestSweepCli::cleanupTestCase() {
    m_servers.reset();
}

QString TestSweepCli::writeSession(const app::Session& session, const QString& name) {
    const QString path = m_dir.filePath(name);
    if (const auto saved = app::saveSessionFile(session, path); !saved)
        qWarning("%s", qPrintable(saved.error().toString()));
    return path;
}

void TestSweepCli::sweepWritesSessionComparisonAndCsv() {
    const QString path =
        writeSession(test::directVsProxy(*m_servers), QStringLiteral("e2e.loadscope"));
    const QString csv = m_dir.filePath(QStringLiteral("e2e.csv"));
    const QString summary = m_dir.filePath(QStringLiteral("e2e-summary.csv"));
    const CliRun run = runCli({QStringLiteral("sweep"), path, QStringLiteral("--csv"), csv,
                               QStringLiteral("--summary-csv"), summary});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));

    // Progress on stderr, the comparison on stdout.
    QVERIFY2(run.err.contains(QStringLiteral("point 1/8: direct c=1 rep 1/2: ")),
             qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("point 8/8: proxy c=4 rep 2/2: ")),
             qPrintable(run.err));
    QVERIFY(run.err.contains(QStringLiteral("req/s")));
    QVERIFY2(run.out.contains(QStringLiteral("Concurrency 4")), qPrintable(run.out));
    QVERIFY2(run.out.contains(QStringLiteral("proxy: ")) &&
                 run.out.contains(QStringLiteral("vs direct")),
             qPrintable(run.out));

    const auto saved = app::loadSessionFile(path);
    QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
    QCOMPARE(saved->results.size(), size_t(8));
    QVERIFY(app::missingPoints(*saved).empty());
    for (const app::PointResult& result : saved->results)
        QCOMPARE(result.complete, uint64_t(300));

    QCOMPARE(lineCount(csv), 1 + 8);
    QFile summaryFile(summary);
    QVERIFY(summaryFile.open(QIODevice::ReadOnly));
    QVERIFY(summaryFile.readLine().startsWith("target,target_id,mode,protocol,concurrency,metric"));
}

void TestSweepCli::existingResultsNeedResumeOrFresh() {
    const QString path =
        writeSession(test::directVsProxy(*m_servers), QStringLiteral("rules.loadscope"));
    const QString out = m_dir.filePath(QStringLiteral("rules-out.loadscope"));
    // Results go to --out; the input stays as it was.
    CliRun run =
        runCli({QStringLiteral("sweep"), path, QStringLiteral("--out"), out, QStringLiteral("-q")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QVERIFY(app::loadSessionFile(path)->results.empty());
    QCOMPARE(app::loadSessionFile(out)->results.size(), size_t(8));

    // The same --out again would overwrite earlier results: refused with a way out.
    run = runCli({QStringLiteral("sweep"), path, QStringLiteral("--out"), out});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(QStringLiteral("--resume")), qPrintable(run.err));
    // A session that holds results is refused without --resume too.
    run = runCli({QStringLiteral("sweep"), out});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(QStringLiteral("already has results for 8 of its 8 points")),
             qPrintable(run.err));
    // --resume continues --out: nothing left to run.
    run = runCli(
        {QStringLiteral("sweep"), path, QStringLiteral("--out"), out, QStringLiteral("--resume")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("8 of 8 points were already done")),
             qPrintable(run.err));
    QVERIFY(!run.err.contains(QStringLiteral("point 1/8")));
    QVERIFY(run.out.contains(QStringLiteral("Concurrency 1")));
    // --fresh measures every point again, replacing the earlier results.
    const QDateTime before = app::loadSessionFile(out)->results.front().environment.startedAt;
    run = runCli({QStringLiteral("sweep"), out, QStringLiteral("--fresh"), QStringLiteral("-q")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const auto fresh = app::loadSessionFile(out);
    QCOMPARE(fresh->results.size(), size_t(8));
    for (const app::PointResult& result : fresh->results)
        QVERIFY(result.environment.startedAt > before);
}

void TestSweepCli::unreachableTargetExitsWithThree() {
    app::Session session = test::directVsProxy(*m_servers);
    session.targets[1].address = QStringLiteral("127.0.0.1:%1").arg(test::refusedPort());
    const QString path = writeSession(session, QStringLiteral("refused.loadscope"));
    const CliRun run = runCli({QStringLiteral("sweep"), path}, 30'000);
    QCOMPARE(run.exitCode, 3);
    QVERIFY2(run.err.contains(QStringLiteral("target 'proxy'")), qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("refused")), qPrintable(run.err));
    QVERIFY(!run.err.contains(QStringLiteral("point 1/8")));
}

void TestSweepCli::sigintCancelsAndKeepsFinishedPoints() {
    app::Session session = test::directVsProxy(*m_servers);
    session.plan.limit = app::PointLimit::Duration;
    session.plan.durationSeconds = 1.0;
    const QString path = writeSession(session, QStringLiteral("sigint.loadscope"));
    BackgroundSweep sweep({QStringLiteral("sweep"), path, QStringLiteral("--no-probe")});
    QVERIFY(sweep.process().waitForStarted(10'000));
    QTRY_VERIFY_WITH_TIMEOUT(sweep.err().contains(QStringLiteral("point 2/8")), 30'000);
    QTest::qWait(300); // well inside point 2
    QVERIFY(::kill(pid_t(sweep.process().processId()), SIGINT) == 0);
    QTRY_VERIFY_WITH_TIMEOUT(sweep.process().state() == QProcess::NotRunning, 2000);
    QCOMPARE(sweep.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(sweep.process().exitCode(), 130);
    QVERIFY2(sweep.err().contains(QStringLiteral("cancelling")), qPrintable(sweep.err()));

    const auto saved = app::loadSessionFile(path);
    QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
    QCOMPARE(saved->results.size(), size_t(1));
    QVERIFY(!saved->results.front().cancelled);
}

void TestSweepCli::killInMiddleOfPointLeavesValidFile() {
    app::Session session = test::directVsProxy(*m_servers);
    session.plan.limit = app::PointLimit::Duration;
    session.plan.durationSeconds = 1.0;
    const QString path = writeSession(session, QStringLiteral("kill.loadscope"));
    BackgroundSweep sweep({QStringLiteral("sweep"), path, QStringLiteral("--no-probe")});
    QVERIFY(sweep.process().waitForStarted(10'000));
    QTRY_VERIFY_WITH_TIMEOUT(sweep.err().contains(QStringLiteral("point 4/8")), 60'000);
    QTest::qWait(400);      // in the middle of point 4
    sweep.process().kill(); // SIGKILL: no handler, no last save
    QVERIFY(sweep.process().waitForFinished(5000));
    QCOMPARE(sweep.process().exitStatus(), QProcess::CrashExit);

    const auto saved = app::loadSessionFile(path);
    QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
    QCOMPARE(saved->targets, session.targets);
    QCOMPARE(saved->plan, session.plan);
    const std::vector<app::SweepPoint> points = app::sweepPoints(session);
    QCOMPARE(saved->results.size(), size_t(3));
    for (size_t i = 0; i < 3; ++i)
        QVERIFY(app::isPointDone(*saved, points[i]));

    // And the sweep picks up where it was killed.
    const CliRun resumed = runCli(
        {QStringLiteral("sweep"), path, QStringLiteral("--resume"), QStringLiteral("--no-probe")});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QVERIFY(!resumed.err.contains(QStringLiteral("point 3/8")));
    QVERIFY(resumed.err.contains(QStringLiteral("point 4/8")));
    QCOMPARE(app::loadSessionFile(path)->results.size(), size_t(8));
}

QTEST_GUILESS_MAIN(TestSweepCli)
#include "tst_sweep_cli.moc"
