// loadscope-cli handed devices, FIFOs and a full disk: every command refuses
// with one line and a non-zero exit, never reads forever, never waits on a
// FIFO, and never exits 0 having lost its output.
#include "app/servers/http_server.h"
#include "app/session/session_file.h"
#include "cli_process.h"
#include "hostile_files.h"
#include "session_test_data.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

using namespace loadscope;
using namespace loadscope::app;

namespace {

using testing::CliOutcome;

// Bounded: a command reading /dev/zero or waiting on a FIFO is killed after 20 s.
CliOutcome runCli(const QStringList& arguments, const QString& stdoutFile = {}) {
    return testing::runCliProcess(arguments, 20'000, stdoutFile);
}

QByteArray readBack(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// One line on stderr containing `expected`.
void checkRefusal(const CliOutcome& run, int exitCode, const QString& expected) {
    QVERIFY2(run.exitCode == exitCode, qPrintable(QStringLiteral("exit %1, stderr: %2")
                                                      .arg(run.exitCode)
                                                      .arg(QString::fromUtf8(run.err))));
    QCOMPARE(run.errorLines().size(), 1);
    QVERIFY2(run.err.contains(expected.toUtf8()), run.err.constData());
}

// loadscope-cli with its standard output the write end of a pipe whose reader
// has already gone (`loadscope-cli report s.loadscope | true`), SIGPIPE at its
// default action as a shell leaves it (a test runner may ignore it, and an
// ignored signal would survive exec), stderr into `errPath`; killed after 20 s.
CliOutcome runIntoClosedPipe(const QStringList& arguments, const QString& errPath) {
    CliOutcome outcome;
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0)
        return outcome;
    ::close(ends[0]); // the reader is gone before the first write
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO);
    const QByteArray err = QFile::encodeName(errPath);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.constData(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    const QByteArray program = QFile::encodeName(testing::cliPath());
    std::vector<QByteArray> words{program};
    for (const QString& argument : arguments)
        words.push_back(argument.toLocal8Bit());
    std::vector<char*> argv;
    for (QByteArray& word : words)
        argv.push_back(word.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int spawned =
        posix_spawn(&pid, program.constData(), &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(ends[1]);
    if (spawned != 0)
        return outcome;
    int status = 0;
    for (int waited = 0; ::waitpid(pid, &status, WNOHANG) == 0; waited += 10) {
        if (waited >= 20'000) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            outcome.err = "timed out";
            return outcome;
        }
        ::usleep(10'000);
    }
    // As a shell reports it: 128 + the signal that ended the process.
    outcome.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    outcome.err = readBack(errPath);
    return outcome;
}

} // namespace

class TestFileSafetyCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_fifo = test::makeFifo(m_dir);
        m_session = m_dir.filePath(QStringLiteral("results.loadscope"));
        QVERIFY(saveSessionFile(test::twoTargetSession(), m_session));
        const auto started = m_server.start();
        QVERIFY2(started, started ? "" : qPrintable(started.error().toString()));
        m_url = QStringLiteral("http://127.0.0.1:%1/").arg(m_server.port());
    }
    void cleanupTestCase() { m_server.stop(); }

    void devicesAndFifosAreRefused_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        for (const auto& [name, path, kind] :
             {std::tuple{"/dev/zero", QStringLiteral("/dev/zero"),
                         QStringLiteral("is a character device, not a regular file")},
              std::tuple{"FIFO", m_fifo,
                         QStringLiteral("is a FIFO (named pipe), not a regular file")}}) {
            QTest::addRow("report %s", name) << QStringList{QStringLiteral("report"), path} << kind;
            QTest::addRow("export %s", name)
                << QStringList{QStringLiteral("export"), path, QStringLiteral("--csv"),
                               m_dir.filePath(QStringLiteral("never.csv"))}
                << kind;
            QTest::addRow("http -p %s", name)
                << QStringList{QStringLiteral("http"),
                               QStringLiteral("-n"),
                               QStringLiteral("1"),
                               QStringLiteral("-p"),
                               path,
                               m_url}
                << QStringLiteral("cannot read body file %1: %2").arg(path, kind);
            QTest::addRow("import source %s", name)
                << QStringList{QStringLiteral("import"),
                               QStringLiteral("--session"),
                               m_dir.filePath(QStringLiteral("import.loadscope")),
                               QStringLiteral("--target"),
                               QStringLiteral("host"),
                               path}
                << path + QStringLiteral(": ") + kind;
            QTest::addRow("import --session %s", name)
                << QStringList{QStringLiteral("import"),
                               QStringLiteral("--session"),
                               path,
                               QStringLiteral("--target"),
                               QStringLiteral("host"),
                               QFINDTESTDATA("fixtures/import/ab_2.3_keepalive.txt")}
                << kind;
        }
    }
    void devicesAndFifosAreRefused() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        checkRefusal(runCli(arguments), 2, expected);
    }

    // A saved session whose target's body file is /dev/zero.
    void aSweepWithADeviceAsBodyIsRefused() {
        Session session = test::twoTargetSession();
        session.results.clear();
        session.targets[0].http.url = m_url;
        session.targets[1].http.url = m_url;
        session.targets[1].http.bodyFile = QStringLiteral("/dev/zero");
        const QString path = m_dir.filePath(QStringLiteral("zero-body.loadscope"));
        QVERIFY(saveSessionFile(session, path));
        const CliOutcome run = runCli({QStringLiteral("sweep"), path, QStringLiteral("--quiet")});
        QVERIFY2(run.exitCode > 0, run.err.constData());
        QVERIFY2(run.err.contains("cannot read body file /dev/zero: is a character device"),
                 run.err.constData());
    }

    void fullDiskOutputsFail_data() {
        QTest::addColumn<QStringList>("arguments");
        const QString full = QStringLiteral("/dev/full");
        QTest::newRow("http --json") << QStringList{QStringLiteral("http"),
                                                    QStringLiteral("-n"),
                                                    QStringLiteral("5"),
                                                    QStringLiteral("--json"),
                                                    full,
                                                    m_url};
        QTest::newRow("http --csv") << QStringList{QStringLiteral("http"),
                                                   QStringLiteral("-n"),
                                                   QStringLiteral("5"),
                                                   QStringLiteral("--csv"),
                                                   full,
                                                   m_url};
        QTest::newRow("export --csv")
            << QStringList{QStringLiteral("export"), m_session, QStringLiteral("--csv"), full};
        QTest::newRow("export --summary-csv") << QStringList{QStringLiteral("export"), m_session,
                                                             QStringLiteral("--summary-csv"), full};
    }
    void fullDiskOutputsFail() {
        QFETCH(QStringList, arguments);
        const CliOutcome run = runCli(arguments);
        QVERIFY2(run.exitCode > 0, run.err.constData());
        QVERIFY2(run.err.contains("/dev/full: cannot be written: no space left on device"),
                 run.err.constData());
    }

    // A sweep measures, saves its session, then loses its CSV: not exit 0.
    void sweepCsvToAFullDiskFails() {
        Session session = test::twoTargetSession();
        session.results.clear();
        session.targets.resize(1);
        session.targets[0].http.url = m_url;
        session.plan.concurrencyLevels = {1};
        session.plan.repetitions = 1;
        session.plan.limit = PointLimit::Requests;
        session.plan.requestsPerPoint = 20;
        const QString path = m_dir.filePath(QStringLiteral("sweep-csv.loadscope"));
        QVERIFY(saveSessionFile(session, path));
        const CliOutcome run = runCli({QStringLiteral("sweep"), path, QStringLiteral("--quiet"),
                                       QStringLiteral("--csv"), QStringLiteral("/dev/full")});
        QVERIFY2(run.exitCode > 0, run.err.constData());
        QVERIFY2(run.err.contains("/dev/full: cannot be written: no space left on device"),
                 run.err.constData());
        QCOMPARE(loadSessionFile(path)->results.size(), size_t(1));
    }

    void reportToAFullStdoutFails() {
        const CliOutcome run =
            runCli({QStringLiteral("report"), m_session}, QStringLiteral("/dev/full"));
        checkRefusal(run, 1,
                     QStringLiteral("loadscope-cli report: cannot write to standard output: no "
                                    "space left on device"));
    }

    // README: "When standard output cannot be written (... a closed pipe),
    // the command says so on stderr and exits 1" -- not killed by SIGPIPE (141).
    void closedStdoutPipeIsOneLineAndExitOne_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("command");
        QTest::newRow("report") << QStringList{QStringLiteral("report"), m_session}
                                << QStringLiteral("loadscope-cli report");
        QTest::newRow("export --csv -") << QStringList{QStringLiteral("export"), m_session,
                                                       QStringLiteral("--csv"), QStringLiteral("-")}
                                        << QStringLiteral("loadscope-cli export");
        QTest::newRow("http --json -") << QStringList{QStringLiteral("http"),
                                                      QStringLiteral("-n"),
                                                      QStringLiteral("20"),
                                                      QStringLiteral("-q"),
                                                      QStringLiteral("--json"),
                                                      QStringLiteral("-"),
                                                      m_url}
                                       << QStringLiteral("loadscope-cli http");
        QTest::newRow("http, the report")
            << QStringList{QStringLiteral("http"), QStringLiteral("-n"), QStringLiteral("20"),
                           QStringLiteral("-q"), m_url}
            << QStringLiteral("loadscope-cli http");
        QTest::newRow("--help") << QStringList{QStringLiteral("--help")}
                                << QStringLiteral("loadscope-cli");
        QTest::newRow("tcp-stream --help")
            << QStringList{QStringLiteral("tcp-stream"), QStringLiteral("--help")}
            << QStringLiteral("loadscope-cli tcp-stream");
    }
    void closedStdoutPipeIsOneLineAndExitOne() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, command);
        const CliOutcome run =
            runIntoClosedPipe(arguments, m_dir.filePath(QStringLiteral("closed-pipe.err")));
        checkRefusal(run, 1, command + QStringLiteral(": cannot write to standard output: "));
    }

    // A CSV that cannot be written whole leaves the earlier one as it was
    // (the file-size limit fails the write as a full disk does, root or not).
    void aFailedExportKeepsTheOldFile() {
        const QString csv = m_dir.filePath(QStringLiteral("kept.csv"));
        {
            QFile file(csv);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("the good export\n");
        }
        const CliOutcome run = test::withFileSizeLimit(1024, [&] {
            return runCli({QStringLiteral("export"), m_session, QStringLiteral("--csv"), csv});
        });
        checkRefusal(run, 1, csv + QStringLiteral(": cannot be written: file too large"));
        QCOMPARE(readBack(csv), QByteArray("the good export\n"));
    }

    void longTargetNamesExportTheirPercentiles() {
        Session session = test::twoTargetSession();
        session.targets[0].name = QString(300, QLatin1Char('n'));
        session.targets[1].name = QString(300, QLatin1Char('n'));
        const QString path = m_dir.filePath(QStringLiteral("long-names.loadscope"));
        QVERIFY(saveSessionFile(session, path));
        const QString directory = m_dir.filePath(QStringLiteral("hgrm"));
        const CliOutcome run =
            runCli({QStringLiteral("export"), path, QStringLiteral("--percentiles"), directory});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QStringList files = QDir(directory).entryList(QDir::Files);
        QCOMPARE(files.size(), 4);
        for (const QString& file : files)
            QVERIFY2(file.size() < 100, qPrintable(file));
    }

private:
    QTemporaryDir m_dir;
    QString m_fifo;
    QString m_session;
    QString m_url;
    HttpServer m_server;
};

QTEST_GUILESS_MAIN(TestFileSafetyCli)
#include "tst_file_safety_cli.moc"
