// loadscope-cli sweep end to end, as a user runs it: against the embedded
// HTTP server and proxy, with CSVs, resume rules, SIGINT, and SIGKILL in the
// middle of a point (the autosaved file must stay whole).
#include "app/session/session_file.h"
#include "app/session/session_lock.h"
#include "readme_text.h"
#include "sweep_test_session.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
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

QByteArray fileBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(unreadable)");
}

QJsonObject fileJson(const QString& path) {
    return QJsonDocument::fromJson(fileBytes(path)).object();
}

void writeJson(const QString& path, const QJsonObject& json) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(QJsonDocument(json).toJson()) < 0)
        qWarning("cannot write %s", qPrintable(path));
}

} // namespace

class TestSweepCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void sweepWritesSessionComparisonAndCsv();
    void existingResultsNeedResumeOrFresh();
    void precisionAddsRoundsAndSaysWhenItGivesUp();
    void unreachableTargetExitsWithThree();
    void sigintCancelsAndKeepsFinishedPoints_data();
    void sigintCancelsAndKeepsFinishedPoints();
    void helpSaysTheReadmesExitStatuses();
    void killInMiddleOfPointLeavesValidFile();
    void unknownFieldsSurviveSweepAndResume();
    void refusedResumeLeavesFileUntouched();
    void secondSweepOfOneFileIsRefused();
    void lockIsExclusiveInOneProcess();

private:
    QString writeSession(const app::Session& session, const QString& name);
    // Points of one second each: long enough to act on a sweep in progress.
    app::Session timedSession() const;

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

app::Session TestSweepCli::timedSession() const {
    app::Session session = test::directVsProxy(*m_servers);
    session.plan.limit = app::PointLimit::Duration;
    session.plan.durationSeconds = 1.0;
    return session;
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
    // The idle check before the first point, and the advice after the comparison.
    QVERIFY2(run.err.contains(QStringLiteral("before the sweep the idle machine was ")),
             qPrintable(run.err));
    QVERIFY2(run.out.contains(QStringLiteral("To make the comparison tighter:")) ||
                 run.out.contains(QStringLiteral("The comparison is as tight as measured")),
             qPrintable(run.out));
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

void TestSweepCli::precisionAddsRoundsAndSaysWhenItGivesUp() {
    const QString path =
        writeSession(test::directVsProxy(*m_servers), QStringLiteral("precise.loadscope"));
    CliRun run = runCli(
        {QStringLiteral("sweep"), path, QStringLiteral("--precision"), QStringLiteral("two")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(QStringLiteral("--precision expects a percentage")),
             qPrintable(run.err));
    run = runCli({QStringLiteral("sweep"), path, QStringLiteral("--precision"), QStringLiteral("2"),
                  QStringLiteral("--max-repetitions"), QStringLiteral("1")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(QStringLiteral("maximum repetitions must be 2 (the least)")),
             qPrintable(run.err));

    // Two runs of 300 requests through a proxy never agree to 0.001 %: every
    // level goes to the most repetitions and the proxy is named.
    run = runCli({QStringLiteral("sweep"), path, QStringLiteral("--precision"),
                  QStringLiteral("0.001"), QStringLiteral("--max-repetitions"), QStringLiteral("3"),
                  QStringLiteral("-q")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("gave up on ±0.001 % after 3 repetitions: proxy at "
                                             "concurrency 1: ")) &&
                 run.err.contains(QStringLiteral("spread too large")),
             qPrintable(run.err));
    const auto saved = app::loadSessionFile(path);
    QVERIFY(saved);
    QCOMPARE(saved->results.size(), size_t(2 * 2 * 3));
    QCOMPARE(saved->plan.precisionPercent, 0.001);
    QCOMPARE(saved->plan.maxRepetitions, 3);
    QVERIFY2(run.out.contains(QStringLiteral("paired)")), qPrintable(run.out));
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
    const CliRun run =
        runCli({QStringLiteral("sweep"), path, QStringLiteral("--idle-check"), QStringLiteral("0")},
               30'000);
    QCOMPARE(run.exitCode, 3);
    QVERIFY2(run.err.contains(QStringLiteral("target 'proxy'")), qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("refused")), qPrintable(run.err));
    QVERIFY(!run.err.contains(QStringLiteral("point 1/8")));
}

// As a load command's (README): 130 after SIGINT, 143 after SIGTERM.
void TestSweepCli::sigintCancelsAndKeepsFinishedPoints_data() {
    QTest::addColumn<int>("signal");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("SIGINT") << int(SIGINT) << 130;
    QTest::newRow("SIGTERM") << int(SIGTERM) << 143;
}

void TestSweepCli::sigintCancelsAndKeepsFinishedPoints() {
    QFETCH(int, signal);
    QFETCH(int, exitCode);
    const app::Session session = timedSession();
    const QString path = writeSession(session, QStringLiteral("sigint.loadscope"));
    BackgroundSweep sweep({QStringLiteral("sweep"), path, QStringLiteral("--no-probe"),
                           QStringLiteral("--idle-check"), QStringLiteral("0")});
    QVERIFY(sweep.process().waitForStarted(10'000));
    QTRY_VERIFY_WITH_TIMEOUT(sweep.err().contains(QStringLiteral("point 2/8")), 30'000);
    QTest::qWait(300); // well inside point 2
    QVERIFY(::kill(pid_t(sweep.process().processId()), signal) == 0);
    QTRY_VERIFY_WITH_TIMEOUT(sweep.process().state() == QProcess::NotRunning, 2000);
    QCOMPARE(sweep.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(sweep.process().exitCode(), exitCode);
    QVERIFY2(sweep.err().contains(QStringLiteral("cancelling")), qPrintable(sweep.err()));

    const auto saved = app::loadSessionFile(path);
    QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
    QCOMPARE(saved->results.size(), size_t(1));
    QVERIFY(!saved->results.front().cancelled);
}

void TestSweepCli::helpSaysTheReadmesExitStatuses() {
    const CliRun run = runCli({QStringLiteral("sweep"), QStringLiteral("--help")});
    QCOMPARE(run.exitCode, 0);
    const QString problem = testing::statedByHelpAndReadme(
        run.out.toUtf8(), QStringLiteral("the point in progress is dropped, finished points stay "
                                         "saved, and the exit status is 130 for SIGINT and 143 "
                                         "for SIGTERM"));
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestSweepCli::killInMiddleOfPointLeavesValidFile() {
    const app::Session session = timedSession();
    const QString path = writeSession(session, QStringLiteral("kill.loadscope"));
    BackgroundSweep sweep({QStringLiteral("sweep"), path, QStringLiteral("--no-probe"),
                           QStringLiteral("--idle-check"), QStringLiteral("0")});
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
    const CliRun resumed =
        runCli({QStringLiteral("sweep"), path, QStringLiteral("--resume"),
                QStringLiteral("--no-probe"), QStringLiteral("--idle-check"), QStringLiteral("0")});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QVERIFY(!resumed.err.contains(QStringLiteral("point 3/8")));
    QVERIFY(resumed.err.contains(QStringLiteral("point 4/8")));
    QCOMPARE(app::loadSessionFile(path)->results.size(), size_t(8));
}

void TestSweepCli::unknownFieldsSurviveSweepAndResume() {
    // A newer Loadscope's file of the same version: keys this one does not
    // know, at the top, in a target and in a result, are saved again as read.
    const QString path =
        writeSession(test::directVsProxy(*m_servers), QStringLiteral("future.loadscope"));
    QJsonObject json = fileJson(path);
    json.insert(QStringLiteral("futureTop"), QJsonObject{{QStringLiteral("kept"), 1}});
    QJsonArray targets = json.value(QStringLiteral("targets")).toArray();
    QJsonObject target = targets.at(0).toObject();
    target.insert(QStringLiteral("futureTarget"), QStringLiteral("pinned to a lab host"));
    targets.replace(0, target);
    json.insert(QStringLiteral("targets"), targets);
    writeJson(path, json);

    CliRun run = runCli({QStringLiteral("sweep"), path, QStringLiteral("-q")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    json = fileJson(path);
    QCOMPARE(json.value(QStringLiteral("futureTop")).toObject().value(QStringLiteral("kept")), 1);
    QCOMPARE(json.value(QStringLiteral("targets"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("futureTarget")),
             QStringLiteral("pinned to a lab host"));

    // One result gains a key of its own, the last is dropped so that
    // --resume has a point to run and saves.
    QJsonArray results = json.value(QStringLiteral("results")).toArray();
    QCOMPARE(results.size(), 8);
    QJsonObject first = results.at(0).toObject();
    first.insert(QStringLiteral("futureResult"), QJsonArray{1, 2, 3});
    results.replace(0, first);
    results.removeLast();
    json.insert(QStringLiteral("results"), results);
    writeJson(path, json);

    run = runCli({QStringLiteral("sweep"), path, QStringLiteral("--resume"), QStringLiteral("-q")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    json = fileJson(path);
    results = json.value(QStringLiteral("results")).toArray();
    QCOMPARE(results.size(), 8);
    QCOMPARE(results.at(0).toObject().value(QStringLiteral("futureResult")),
             QJsonValue(QJsonArray{1, 2, 3}));
    QCOMPARE(json.value(QStringLiteral("futureTop")).toObject().value(QStringLiteral("kept")), 1);
    QCOMPARE(json.value(QStringLiteral("targets"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("futureTarget")),
             QStringLiteral("pinned to a lab host"));
}

void TestSweepCli::refusedResumeLeavesFileUntouched() {
    // A file with results and an unknown key, as a user's editor left it
    // (not as Loadscope would write it): any refusal must leave it so.
    app::Session session = test::directVsProxy(*m_servers);
    const QString path = writeSession(session, QStringLiteral("refused-resume.loadscope"));
    CliRun run = runCli({QStringLiteral("sweep"), path, QStringLiteral("-q")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const QByteArray complete = fileBytes(path);
    QJsonObject json = fileJson(path);
    json.insert(QStringLiteral("futureTop"), true);
    QJsonArray results = json.value(QStringLiteral("results")).toArray();
    results.removeLast();
    json.insert(QStringLiteral("results"), results);

    // A bad plan: no concurrency level left to run.
    QJsonObject badPlan = json;
    QJsonObject plan = badPlan.value(QStringLiteral("plan")).toObject();
    plan.insert(QStringLiteral("concurrency"), QJsonArray());
    badPlan.insert(QStringLiteral("plan"), plan);
    writeJson(path, badPlan);
    QByteArray before = fileBytes(path);
    run = runCli({QStringLiteral("sweep"), path, QStringLiteral("--resume"),
                  QStringLiteral("--idle-check"), QStringLiteral("0")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(QStringLiteral("concurrency")), qPrintable(run.err));
    QCOMPARE(fileBytes(path), before);

    // An unreachable target, found before the first point.
    QJsonObject unreachable = json;
    QJsonArray targets = unreachable.value(QStringLiteral("targets")).toArray();
    QJsonObject proxy = targets.at(1).toObject();
    proxy.insert(QStringLiteral("address"),
                 QStringLiteral("127.0.0.1:%1").arg(test::refusedPort()));
    targets.replace(1, proxy);
    unreachable.insert(QStringLiteral("targets"), targets);
    writeJson(path, unreachable);
    before = fileBytes(path);
    run = runCli({QStringLiteral("sweep"), path, QStringLiteral("--resume"),
                  QStringLiteral("--idle-check"), QStringLiteral("0")},
                 30'000);
    QCOMPARE(run.exitCode, 3);
    QCOMPARE(fileBytes(path), before);

    // Nothing left to run: nothing new to save.
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(complete), complete.size());
    file.close();
    const QDateTime modified = QFileInfo(path).lastModified();
    run = runCli({QStringLiteral("sweep"), path, QStringLiteral("--resume"), QStringLiteral("-q")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QCOMPARE(fileBytes(path), complete);
    QCOMPARE(QFileInfo(path).lastModified(), modified);
}

void TestSweepCli::secondSweepOfOneFileIsRefused() {
    const app::Session session = timedSession();
    const QString path = writeSession(session, QStringLiteral("twice.loadscope"));
    BackgroundSweep first({QStringLiteral("sweep"), path, QStringLiteral("--no-probe"),
                           QStringLiteral("--idle-check"), QStringLiteral("0")});
    QVERIFY(first.process().waitForStarted(10'000));
    QTRY_VERIFY_WITH_TIMEOUT(first.err().contains(QStringLiteral("point 1/8")), 30'000);

    const QByteArray before = fileBytes(path);
    const CliRun second =
        runCli({QStringLiteral("sweep"), path, QStringLiteral("--resume"), QStringLiteral("-q")});
    QCOMPARE(second.exitCode, 2);
    QVERIFY2(second.err.contains(QStringLiteral("another sweep is running on this session")),
             qPrintable(second.err));
    QCOMPARE(second.err.count(QLatin1Char('\n')), 1);
    // The first sweep's file is its own: the refused one wrote nothing.
    QCOMPARE(fileBytes(path), before);
    QVERIFY(::kill(pid_t(first.process().processId()), SIGINT) == 0);
    QTRY_VERIFY_WITH_TIMEOUT(first.process().state() == QProcess::NotRunning, 5000);

    // Once the first has ended, the lock is free again.
    const auto again = app::SessionLock::acquire(path);
    QVERIFY2(again, again ? "" : qPrintable(again.error().toString()));
}

void TestSweepCli::lockIsExclusiveInOneProcess() {
    // The window and a sweep in one process are two holders as well.
    const QString path = m_dir.filePath(QStringLiteral("locked.loadscope"));
    auto held = app::SessionLock::acquire(path);
    QVERIFY(held);
    const auto refused = app::SessionLock::acquire(path);
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, app::ErrorCode::InvalidInput);
    held->reset();
    QVERIFY(app::SessionLock::acquire(path));
}

QTEST_GUILESS_MAIN(TestSweepCli)
#include "tst_sweep_cli.moc"
