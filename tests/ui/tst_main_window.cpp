#include "app/servers/http_server.h"
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "app/sweep/sweep_runner.h"
#include "tests/app/hostile_files.h"
#include "tests/app/session_test_data.h"
#include "ui/shell/main_window.h"
#include "ui/shell/recent_files.h"
#include "ui/shell/targets_page.h"

#include <QAction>
#include <QCoroTask>
#include <QDir>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>

using loadscope::app::DeploymentMode;
using loadscope::ui::MainWindow;
using loadscope::ui::RecentFiles;
using Choice = MainWindow::UnsavedChoice;

class TstMainWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_settingsDir.isValid());
        // Settings of this run only: never the user's recent files.
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
        QCoreApplication::setOrganizationName(QStringLiteral("LoadscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_main_window"));
    }

    void init() {
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_window = std::make_unique<MainWindow>();
        m_questions = 0;
        m_errors.clear();
        m_answer = Choice::Cancel;
        m_saveAsPath.clear();
        MainWindow::Prompts prompts;
        prompts.unsavedChanges = [this](const QString&) {
            ++m_questions;
            return m_answer;
        };
        prompts.saveFileName = [this](const QString&, const QString&, const QString&) {
            return m_saveAsPath;
        };
        prompts.error = [this](const QString&, const QString& message) {
            m_errors << message;
        };
        m_window->setPrompts(prompts);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    }
    void cleanup() {
        if (m_window)
            m_window->document()->setModified(false); // no question on the way out
        m_window.reset();
    }

    void titleShowsNameAndModifiedMark() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        const QString name = m_window->document()->displayName();
        QCOMPARE(m_window->windowTitle(), name + QStringLiteral("[*] — Loadscope"));
        QVERIFY(!m_window->isWindowModified());
        QVERIFY(m_window->document()->filePath().isEmpty()); // an example has no file

        editFirstTargetName(QStringLiteral("-edited"));
        QVERIFY(m_window->isWindowModified());
    }

    // The Run page speaks of the session in the window, not of the empty one
    // the window started with.
    void runPageHintFollowsTheOpenedSession() {
        auto* status = m_window->findChild<QLabel*>(QStringLiteral("runStatus"));
        auto* start = m_window->findChild<QPushButton*>(QStringLiteral("startButton"));
        QVERIFY(status && start);
        const QString hint = QStringLiteral("Add targets");
        QVERIFY(!start->isEnabled());
        QVERIFY2(status->text().contains(hint), qPrintable(status->text()));

        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        QCOMPARE(m_window->document()->session().targets.size(), size_t(2));
        QVERIFY(start->isEnabled());
        QVERIFY2(!status->text().contains(hint), qPrintable(status->text()));
    }

    void openEditSaveReopen() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        editFirstTargetName(QStringLiteral("-bare"));
        const QString path = m_dir.filePath(QStringLiteral("roundtrip.loadscope"));
        QVERIFY(m_window->saveSessionAs(path));
        QVERIFY(QFile::exists(path));
        QVERIFY(!m_window->isWindowModified());
        QCOMPARE(m_window->document()->filePath(), path);
        const loadscope::app::Session saved = m_window->document()->session();

        // Further edits are saved to the same file by Save.
        editFirstTargetName(QStringLiteral("2"));
        QVERIFY(m_window->isWindowModified());
        QVERIFY(m_window->saveSession());
        QVERIFY(!m_window->isWindowModified());

        MainWindow reopened;
        QVERIFY(QCoro::waitFor(reopened.openSession(path)));
        QCOMPARE(reopened.document()->session().targets.front().name, QStringLiteral("host-bare2"));
        QCOMPARE(reopened.document()->session().targets.size(), saved.targets.size());
        QCOMPARE(reopened.document()->session().plan, saved.plan);
        QVERIFY(!reopened.isWindowModified());
    }

    // A result out of range does not keep the session closed: it opens, and
    // the window names the result it set aside.
    void openSetsAsideABrokenResult() {
        loadscope::app::Session session = loadscope::test::twoTargetSession();
        session.results[2].durationSeconds = -0.002;
        const QString path = m_dir.filePath(QStringLiteral("set-aside.loadscope"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(loadscope::app::serializeSession(session));
        file.close();

        QVERIFY(QCoro::waitFor(m_window->openSession(path)));
        QCOMPARE(m_window->document()->filePath(), path);
        QCOMPARE(m_window->document()->session().results.size(), session.results.size() - 1);
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.first().startsWith(
                     QStringLiteral("results[2] set aside: durationSeconds is -0.002")),
                 qPrintable(m_errors.first()));
    }

    void saveWithoutAFileAsksForOne() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("tcp-rr"))));
        editFirstTargetName(QStringLiteral("x"));
        m_saveAsPath.clear(); // the user cancels the dialog
        QVERIFY(!m_window->saveSession());
        QVERIFY(m_window->isWindowModified());
        m_saveAsPath = m_dir.filePath(QStringLiteral("named"));
        QVERIFY(m_window->saveSession());
        QCOMPARE(m_window->document()->filePath(),
                 m_dir.filePath(QStringLiteral("named.loadscope")));
    }

    void unsavedChangesAreAskedAbout() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        editFirstTargetName(QStringLiteral("-mine"));
        const loadscope::app::Session edited = m_window->document()->session();

        m_answer = Choice::Cancel;
        QVERIFY(!QCoro::waitFor(m_window->openSession(QStringLiteral("memcached"))));
        QCOMPARE(m_questions, 1);
        QCOMPARE(m_window->document()->session(), edited);
        QVERIFY(!m_window->newSession());
        QVERIFY(!m_window->close());
        QVERIFY(m_window->isVisible());

        const QString path = m_dir.filePath(QStringLiteral("asked.loadscope"));
        m_answer = Choice::Save;
        m_saveAsPath = path;
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("memcached"))));
        QVERIFY(QFile::exists(path));
        const auto saved = loadscope::app::loadSessionFile(path);
        QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
        QCOMPARE(saved->targets.front().name, edited.targets.front().name);

        editFirstTargetName(QStringLiteral("-gone"));
        m_answer = Choice::Discard;
        const int before = m_questions;
        QVERIFY(m_window->newSession());
        QCOMPARE(m_questions, before + 1);
        QVERIFY(!m_window->isWindowModified());
        QCOMPARE(m_window->document()->session().targets.size(), size_t(1));

        // Nothing to lose: no question.
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("tcp-rr"))));
        QCOMPARE(m_questions, before + 1);
        QVERIFY(m_window->close());
    }

    void aFailedOpenKeepsTheSessionAndSaysWhy() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        editFirstTargetName(QStringLiteral("-kept"));
        const loadscope::app::Session before = m_window->document()->session();
        m_answer = Choice::Discard;

        const QString garbage = m_dir.filePath(QStringLiteral("garbage.loadscope"));
        QFile file(garbage);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{ \"format\": \"loadscope-session\", ");
        file.close();
        QVERIFY(!QCoro::waitFor(m_window->openSession(garbage)));
        QCOMPARE(m_errors.size(), 1);
        QVERIFY(m_errors.front().contains(QStringLiteral("garbage.loadscope")));
        QVERIFY(!m_errors.front().contains(QLatin1Char('\n')));
        QCOMPARE(m_window->document()->session(), before);

        QVERIFY(!QCoro::waitFor(
            m_window->openSession(m_dir.filePath(QStringLiteral("missing.loadscope")))));
        QCOMPARE(m_errors.size(), 2);
        QCOMPARE(m_window->document()->session(), before);
    }

    void recentFilesAreKeptNewestFirst() {
        RecentFiles* recent = m_window->recentFiles();
        QStringList paths;
        for (int i = 0; i < 12; ++i) {
            const QString path = m_dir.filePath(QStringLiteral("recent-%1.loadscope").arg(i));
            QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("tcp-rr"))));
            QVERIFY(m_window->saveSessionAs(path));
            paths.prepend(path);
        }
        QCOMPARE(recent->files().size(), RecentFiles::kMaximum);
        QCOMPARE(recent->files().front(), paths.front());
        QCOMPARE(recent->files().back(), paths.at(RecentFiles::kMaximum - 1));

        // Opening an older one moves it to the front, once.
        QVERIFY(QCoro::waitFor(m_window->openSession(paths.at(4))));
        QCOMPARE(recent->files().front(), paths.at(4));
        QCOMPARE(recent->files().count(paths.at(4)), 1);

        // Stored: a new window (the next start) sees the same list.
        QCOMPARE(RecentFiles().files(), recent->files());

        // A file deleted since is pruned when the menu is read.
        QVERIFY(QFile::remove(paths.at(0)));
        const QStringList existing = recent->existingFiles();
        QVERIFY(!existing.contains(paths.at(0)));
        QCOMPARE(existing.size(), RecentFiles::kMaximum - 1);
        QCOMPARE(RecentFiles().files(), existing);

        auto* menu = m_window->findChild<QMenu*>(QStringLiteral("recentMenu"));
        QVERIFY(menu);
        Q_EMIT menu->aboutToShow();
        QStringList tips;
        for (QAction* action : menu->actions())
            tips << action->toolTip();
        QVERIFY(tips.contains(QDir::toNativeSeparators(paths.at(4))));
    }

    void droppingASessionFileOpensIt() {
        const QString path = m_dir.filePath(QStringLiteral("dropped.loadscope"));
        auto session = loadscope::app::loadExampleSession(QStringLiteral("memcached"));
        QVERIFY2(session, session ? "" : qPrintable(session.error().toString()));
        QVERIFY(loadscope::app::saveSessionFile(*session, path));

        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        const QPointF where(m_window->width() / 2.0, m_window->height() / 2.0);
        QDragEnterEvent enter(where.toPoint(), Qt::CopyAction, &mime, Qt::LeftButton,
                              Qt::NoModifier);
        QCoreApplication::sendEvent(m_window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(where, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_window.get(), &drop);
        QTRY_COMPARE(m_window->document()->filePath(), path);
        QCOMPARE(m_window->document()->session(), *session);

        // Anything else is not taken.
        QMimeData text;
        text.setUrls({QUrl::fromLocalFile(m_dir.filePath(QStringLiteral("notes.txt")))});
        QDragEnterEvent refused(where.toPoint(), Qt::CopyAction, &text, Qt::LeftButton,
                                Qt::NoModifier);
        refused.setAccepted(false);
        QCoreApplication::sendEvent(m_window.get(), &refused);
        QVERIFY(!refused.isAccepted());
    }

    void exportsWriteTheCsvFiles() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        loadscope::app::PointResult result;
        result.targetId = m_window->document()->session().targets.front().id;
        result.concurrency = 1;
        result.complete = 1000;
        result.durationSeconds = 2;
        m_window->document()->putResult(result);

        const QString results = m_dir.filePath(QStringLiteral("results.csv"));
        QVERIFY(m_window->exportResultsCsv(results));
        QFile file(results);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray header = file.readLine();
        QVERIFY(header.startsWith("target,target_id,mode,protocol"));
        QVERIFY(file.readAll().contains("500"));

        const QString summary = m_dir.filePath(QStringLiteral("summary.csv"));
        QVERIFY(QCoro::waitFor(m_window->exportSummaryCsv(summary)));
        QVERIFY(QFileInfo(summary).size() > 0);

        QVERIFY(!m_window->exportResultsCsv(m_dir.filePath(QStringLiteral("no/such/dir.csv"))));
        QCOMPARE(m_errors.size(), 1);
    }

    void exportsPercentileDistributions() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        const QUuid host = m_window->document()->session().targets.front().id;
        const QString directory = m_dir.filePath(QStringLiteral("hgrm"));

        // Printed figures only (an imported report): no histogram, nothing to write.
        m_window->document()->putResult(loadscope::test::importedResult(host, 10, 0, 900, 3));
        QVERIFY(!m_window->exportPercentileDistributions(directory));
        QCOMPARE(m_errors.size(), 1);

        m_window->document()->putResult(loadscope::test::measuredResult(
            host, 1, 0, 1000, 2, {{100'000, 900}, {2'000'000, 100}}));
        QVERIFY(m_window->exportPercentileDistributions(directory));
        const QStringList written = QDir(directory).entryList({QStringLiteral("*.hgrm")});
        QCOMPARE(written.size(), 1);
        QFile file(QDir(directory).filePath(written.front()));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("Percentile"));
    }

    void windowIconComesFromResources() {
        const QImage icon = m_window->windowIcon().pixmap(64, 64).toImage();
        QVERIFY(!icon.isNull());
        // The corner is transparent, the middle of the rounded square is drawn.
        QCOMPARE(qAlpha(icon.pixel(0, 0)), 0);
        QVERIFY(qAlpha(icon.pixel(32, 8)) > 200);
    }

    void aRunningSweepKeepsItsSession() {
        loadscope::app::HttpServer server;
        const auto started = server.start();
        QVERIFY2(started, started ? "" : qPrintable(started.error().toString()));
        loadscope::app::Session session;
        loadscope::app::Target target =
            loadscope::app::makeTarget(QStringLiteral("host"), DeploymentMode::Host, 0);
        target.http.url = QStringLiteral("http://127.0.0.1:%1/").arg(server.port());
        session.targets.push_back(target);
        session.plan.concurrencyLevels = {1};
        session.plan.durationSeconds = 30;
        session.plan.repetitions = 1;
        session.plan.threads = 1;
        m_window->document()->reset(session);

        QCoro::connect(m_window->runner()->run(), this, [](const loadscope::app::SweepOutcome&) {});
        QTRY_VERIFY(m_window->runner()->isRunning());
        QVERIFY(!QCoro::waitFor(m_window->openSession(QStringLiteral("tcp-rr"))));
        QVERIFY(!m_window->newSession());
        QCOMPARE(m_errors.size(), 2);
        QCOMPARE(m_window->document()->session().targets.front().id, target.id);

        // Closing the window in the middle of the point stops the sweep.
        m_window->document()->setModified(false);
        QElapsedTimer closing;
        closing.start();
        m_window.reset();
        QVERIFY(closing.elapsed() < 5000);
        server.stop();
    }

    // The file is read on a worker thread: meanwhile the window refuses what
    // would change the session, and gives it all back once the session is in.
    void openingReadsOffTheGuiThread() {
        const QString path = m_dir.filePath(QStringLiteral("large.loadscope"));
        QVERIFY(loadscope::app::saveSessionFile(manyResults(), path));
        QAction* save = findAction(QStringLiteral("&Save"));
        QVERIFY(save);

        auto opening = m_window->openSession(path);
        QVERIFY(m_window->isOpening());
        QVERIFY(!m_window->pages()->isEnabled());
        QVERIFY(!save->isEnabled());
        QVERIFY(m_window->document()->session().results.empty()); // not applied yet
        QVERIFY(!QCoro::waitFor(m_window->openSession(QStringLiteral("tcp-rr"))));

        QVERIFY(QCoro::waitFor(opening));
        QVERIFY(!m_window->isOpening());
        QVERIFY(m_window->pages()->isEnabled());
        QVERIFY(save->isEnabled());
        QCOMPARE(m_window->document()->session().results.size(), size_t(2000));
        QCOMPARE(m_window->document()->filePath(), path);
        QCOMPARE(m_window->recentFiles()->files().front(), path);
        QVERIFY(m_errors.isEmpty());
    }

    void aDeletedWindowReceivesNoSession() {
        const QString path = m_dir.filePath(QStringLiteral("large.loadscope"));
        QVERIFY(loadscope::app::saveSessionFile(manyResults(), path));
        auto* window = new MainWindow;
        auto opening = window->openSession(path);
        QVERIFY(window->isOpening());
        delete window;
        QVERIFY(!QCoro::waitFor(opening));
    }

    // What a hostile or careless user opens: a device that never ends, a FIFO
    // with no writer, a file far larger than any session, JSON nested past the
    // parser's limit. Each gives one error, the old session stays, and the GUI
    // thread runs its event loop all along (the read is off it, and bounded).
    void corruptFilesOpenWithAnErrorAndNoFreeze_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("expected");
        QTest::newRow("/dev/zero")
            << QStringLiteral("/dev/zero") << QStringLiteral("is a character device");
        QTest::newRow("FIFO") << loadscope::test::makeFifo(m_dir, QStringLiteral("corrupt-fifo"))
                              << QStringLiteral("is a FIFO");
        QTest::newRow("200 MB") << loadscope::test::makeSparseFile(
                                       m_dir, QStringLiteral("huge.loadscope"), 200'000'000)
                                << QStringLiteral("is not valid JSON");
        const QString deep = m_dir.filePath(QStringLiteral("deep.loadscope"));
        QFile file(deep);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray(100'000, '['));
        file.close();
        QTest::newRow("deep nesting") << deep << QStringLiteral("is not valid JSON");
    }
    void corruptFilesOpenWithAnErrorAndNoFreeze() {
        QFETCH(QString, path);
        QFETCH(QString, expected);
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        const loadscope::app::Session before = m_window->document()->session();

        auto opening = m_window->openSession(path);
        // Back on the GUI thread before the file is read; its events keep coming.
        int ticks = 0;
        QTimer heartbeat;
        connect(&heartbeat, &QTimer::timeout, this, [&ticks] { ++ticks; });
        heartbeat.start(1);
        QTRY_VERIFY_WITH_TIMEOUT(ticks > 0, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(!m_window->isOpening(), 20000);
        QVERIFY(!QCoro::waitFor(opening));

        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.front().contains(path), qPrintable(m_errors.front()));
        QVERIFY2(m_errors.front().contains(expected), qPrintable(m_errors.front()));
        QVERIFY(!m_errors.front().contains(QLatin1Char('\n')));
        QCOMPARE(m_window->document()->session(), before);
        QVERIFY(m_window->pages()->isEnabled());
    }

    void pagesAreReachableByShortcut() {
        auto* pages = m_window->pages();
        QCOMPARE(pages->count(), 4);
        QTest::keyClick(m_window.get(), Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(pages->currentIndex(), 1);
        QTest::keyClick(m_window.get(), Qt::Key_4, Qt::ControlModifier);
        QCOMPARE(pages->currentIndex(), 3);
        QTest::keyClick(m_window.get(), Qt::Key_1, Qt::ControlModifier);
        QCOMPARE(pages->currentIndex(), 0);
    }

private:
    // Enough results that reading them takes a while on any machine.
    static loadscope::app::Session manyResults() {
        loadscope::app::Session session = loadscope::test::twoTargetSession();
        session.results.clear();
        session.plan.repetitions = 500;
        for (int level : session.plan.concurrencyLevels) {
            for (int repetition = 0; repetition < session.plan.repetitions; ++repetition) {
                for (const loadscope::app::Target& target : session.targets)
                    session.results.push_back(loadscope::test::measuredResult(
                        target.id, level, repetition, 1000, 1.0,
                        {{250'000, 500}, {1'000'000 + repetition, 450}, {9'000'000, 50}}));
            }
        }
        return session;
    }

    QAction* findAction(const QString& text) const {
        for (QAction* action : m_window->findChildren<QAction*>()) {
            if (action->text() == text)
                return action;
        }
        return nullptr;
    }

    void editFirstTargetName(const QString& suffix) {
        m_window->pages()->setCurrentWidget(m_window->targetsPage());
        auto* name = m_window->targetsPage()->findChild<QLineEdit*>(QStringLiteral("nameEdit"));
        QVERIFY(name);
        m_window->targetsPage()->selectTarget(m_window->document()->session().targets.front().id);
        name->end(false);
        QTest::keyClicks(name, suffix);
    }

    QTemporaryDir m_settingsDir;
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    int m_questions = 0;
    Choice m_answer = Choice::Cancel;
    QString m_saveAsPath;
    QStringList m_errors;
};

QTEST_MAIN(TstMainWindow)
#include "tst_main_window.moc"
