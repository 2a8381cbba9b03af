// The window as built and as installed, run as a user runs it: the real
// `loadscope` executable under Xvfb, started with a lab session from a folder
// of its own and a PATH that holds nothing of the build, driven by keys
// (Ctrl+3 for the Run page, Alt+S for Start) through xdotool. Start must start
// `loadscope-cli lab sandbox` from beside the window, and the lab's points must
// land in the session file. The suite runs in a network namespace of its own
// (the window, Xvfb and the lab with it), so nothing can leave the machine.
#include "required_here.h"
#include "tests/app/lab_sandbox_support.h"
#include "tests/support/private_network.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <optional>

using namespace loadscope::testing;

namespace {

// What a shell of a user without the build would have.
const QString kPlainPath =
    QStringLiteral("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");

// The processes whose parent is `parent`, as /proc lists them.
QList<qint64> childrenOf(qint64 parent) {
    QList<qint64> children;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& entry : entries) {
        bool numeric = false;
        const qint64 pid = entry.toLongLong(&numeric);
        if (!numeric)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        // "pid (comm) state ppid ...": comm may hold spaces, so read after its ')'.
        const QByteArray text = stat.readAll();
        const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1 && fields.at(1).toLongLong() == parent)
            children << pid;
    }
    return children;
}

QStringList commandLineOf(qint64 pid) {
    QFile file(QStringLiteral("/proc/%1/cmdline").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QStringList words;
    for (const QByteArray& word : file.readAll().split('\0'))
        if (!word.isEmpty())
            words << QString::fromLocal8Bit(word);
    return words;
}

// Runs `program` to its end (at most `timeoutMs`); its stdout, or nullopt when it failed.
std::optional<QByteArray> output(const QString& program, const QStringList& arguments,
                                 const QProcessEnvironment& environment, int timeoutMs = 20'000) {
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(program, arguments);
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        qWarning("%s %s did not end", qPrintable(program), qPrintable(arguments.join(u' ')));
        return std::nullopt;
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        qWarning("%s %s: %s", qPrintable(program), qPrintable(arguments.join(u' ')),
                 process.readAllStandardError().constData());
        return std::nullopt;
    }
    return process.readAllStandardOutput();
}

// A child process ended by SIGTERM (SIGKILL after 5 s) when it goes out of scope.
struct Child {
    QProcess process;
    ~Child() {
        if (process.state() == QProcess::NotRunning)
            return;
        process.terminate();
        if (!process.waitForFinished(5000)) {
            process.kill();
            process.waitForFinished();
        }
    }
};

} // namespace

class TestWindowLabStart : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!qEnvironmentVariableIsEmpty("LOADSCOPE_WINDOW"),
                 "LOADSCOPE_WINDOW names the built window");
        for (const char* tool : {"Xvfb", "xdotool"})
            if (QStandardPaths::findExecutable(QLatin1String(tool)).isEmpty())
                LOADSCOPE_SKIP_UNLESS_REQUIRED(
                    QStringLiteral("xvfb"),
                    QStringLiteral("%1 is not installed (scripts/install-deps.sh test)")
                        .arg(QLatin1String(tool)));
        // PATH as the window gets it must not hold a loadscope-cli: it is to find its own.
        QVERIFY2(
            QStandardPaths::findExecutable(QStringLiteral("loadscope-cli"), kPlainPath.split(u':'))
                .isEmpty(),
            "a loadscope-cli is installed on this machine's PATH");
        m_lab.read();
    }

    // Checked after every test function: the namespace the lab was built from is as it was.
    void cleanup() { QCOMPARE(hostNetworkSnapshot(), m_lab.before); }

    void startRunsTheLabFromBesideTheWindow_data() {
        QTest::addColumn<bool>("installed");
        QTest::newRow("build tree") << false;
        QTest::newRow("installed") << true;
    }

    void startRunsTheLabFromBesideTheWindow() {
        QFETCH(bool, installed);
        LOADSCOPE_SKIP_WITHOUT_SANDBOX(m_lab);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString window = QFileInfo(qEnvironmentVariable("LOADSCOPE_WINDOW")).canonicalFilePath();
        if (installed) {
            const QString prefix = dir.filePath(QStringLiteral("prefix"));
            const auto done =
                output(qEnvironmentVariable("LOADSCOPE_CMAKE"),
                       {QStringLiteral("--install"), qEnvironmentVariable("LOADSCOPE_BUILD_DIR"),
                        QStringLiteral("--prefix"), prefix},
                       QProcessEnvironment::systemEnvironment(), 60'000);
            QVERIFY2(done, "cmake --install failed");
            window = prefix + QStringLiteral("/bin/loadscope");
        }
        const QString cliBeside =
            QFileInfo(window).absolutePath() + QStringLiteral("/loadscope-cli");
        QVERIFY2(QFileInfo(cliBeside).isExecutable(), qPrintable(cliBeside));

        // lab-tcp-rr, small: one level, one run of 0.3 s per target.
        const QString sessionPath = dir.filePath(QStringLiteral("lab.loadscope"));
        {
            QFile example(qEnvironmentVariable("LOADSCOPE_SOURCE_DIR") +
                          QStringLiteral("/resources/sessions/lab-tcp-rr.loadscope"));
            QVERIFY(example.open(QIODevice::ReadOnly));
            QJsonObject session = QJsonDocument::fromJson(example.readAll()).object();
            QJsonObject plan = session.value(u"plan").toObject();
            plan.insert(QStringLiteral("concurrency"), QJsonArray{1});
            plan.insert(QStringLiteral("repetitions"), 1);
            plan.insert(QStringLiteral("durationSeconds"), 0.3);
            plan.insert(QStringLiteral("warmupSeconds"), 0);
            session.insert(QStringLiteral("plan"), plan);
            QFile small(sessionPath);
            QVERIFY(small.open(QIODevice::WriteOnly));
            small.write(QJsonDocument(session).toJson());
        }
        for (const char* sub : {"home", "config", "run"})
            QVERIFY(QDir(dir.path()).mkpath(QLatin1String(sub)));
        QFile::setPermissions(dir.filePath(QStringLiteral("run")),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);

        Child xvfb;
        xvfb.process.start(QStringLiteral("Xvfb"),
                           {QStringLiteral("-displayfd"), QStringLiteral("1"),
                            QStringLiteral("-nolisten"), QStringLiteral("tcp"),
                            QStringLiteral("-screen"), QStringLiteral("0"),
                            QStringLiteral("1280x800x24")});
        QVERIFY(xvfb.process.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(xvfb.process.canReadLine(), 10'000);
        const QString display =
            QLatin1Char(':') + QString::fromLatin1(xvfb.process.readLine().trimmed());

        QProcessEnvironment environment;
        environment.insert(QStringLiteral("PATH"), kPlainPath);
        environment.insert(QStringLiteral("DISPLAY"), display);
        environment.insert(QStringLiteral("HOME"), dir.filePath(QStringLiteral("home")));
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"),
                           dir.filePath(QStringLiteral("config")));
        environment.insert(QStringLiteral("XDG_RUNTIME_DIR"), dir.filePath(QStringLiteral("run")));
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
        Child gui;
        gui.process.setProcessEnvironment(environment);
        gui.process.setWorkingDirectory(dir.path());
        gui.process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        gui.process.start(window, {sessionPath});
        QVERIFY2(gui.process.waitForStarted(), qPrintable(gui.process.errorString()));

        const auto found = output(QStringLiteral("xdotool"),
                                  {QStringLiteral("search"), QStringLiteral("--sync"),
                                   QStringLiteral("--onlyvisible"), QStringLiteral("--class"),
                                   QStringLiteral("loadscope")},
                                  environment);
        QVERIFY2(found, "the window never showed");
        const QString windowId = QString::fromLatin1(found->split('\n').constFirst().trimmed());
        QVERIFY(output(QStringLiteral("xdotool"),
                       {QStringLiteral("windowfocus"), QStringLiteral("--sync"), windowId},
                       environment));
        QVERIFY(output(QStringLiteral("xdotool"), {QStringLiteral("key"), QStringLiteral("ctrl+3")},
                       environment));

        // The window's child: the lab's sandbox, started from the CLI beside it. The session
        // is read off the window's thread, so Start may still be off at the first press (on a
        // busy machine): pressed again after 5 s without a sandbox; a press while the sweep
        // runs does nothing.
        QString sandboxProgram;
        for (int press = 0; press < 4 && sandboxProgram.isEmpty(); ++press) {
            QVERIFY(output(QStringLiteral("xdotool"),
                           {QStringLiteral("key"), QStringLiteral("alt+s")}, environment));
            QElapsedTimer waited;
            waited.start();
            while (sandboxProgram.isEmpty() && waited.elapsed() < 5'000) {
                for (qint64 child : childrenOf(gui.process.processId())) {
                    const QStringList words = commandLineOf(child);
                    if (words.size() > 2 && words.at(1) == QLatin1String("lab") &&
                        words.at(2) == QLatin1String("sandbox"))
                        sandboxProgram =
                            QFileInfo(QStringLiteral("/proc/%1/exe").arg(child)).symLinkTarget();
                }
                QTest::qWait(50);
            }
        }
        QVERIFY2(!sandboxProgram.isEmpty(), "Start started no lab sandbox");
        QCOMPARE(sandboxProgram, QFileInfo(cliBeside).canonicalFilePath());

        // The lab's three targets measured, each saved as its point ended.
        QSet<QString> measured;
        QElapsedTimer waited;
        waited.start();
        while (measured.size() < 3 && waited.elapsed() < 60'000) {
            QTest::qWait(200);
            QFile file(sessionPath);
            if (!file.open(QIODevice::ReadOnly))
                continue;
            measured.clear();
            const QJsonArray results =
                QJsonDocument::fromJson(file.readAll()).object().value(u"results").toArray();
            for (const QJsonValue result : results) {
                QCOMPARE(result[u"environment"][u"labMtu"].toInt(), 1500);
                QVERIFY(result[u"complete"].toInteger() > 0);
                measured << result[u"target"].toString();
            }
        }
        QCOMPARE(measured.size(), 3);
    }

private:
    LabCheck m_lab;
};

LOADSCOPE_PRIVATE_NETWORK_MAIN(QCoreApplication, TestWindowLabStart)
#include "tst_window_lab_start.moc"
