// The main window and its session file: title and modified mark, open, save,
// unsaved changes, recent files, drops, refused and hostile files, the read
// off the GUI thread. The pages and the exports are tst_main_window_actions'.
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "main_window_fixture.h"
#include "tests/app/hostile_files.h"
#include "tests/app/session_test_data.h"
#include "ui/shell/main_window.h"
#include "ui/shell/recent_files.h"
#include "ui/shell/targets_page.h"

#include <QAction>
#include <QCoroTask>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
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

class TstMainWindow : public MainWindowFixture {
    Q_OBJECT

private Q_SLOTS:
    void titleShowsNameAndModifiedMark() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        const QString name = m_window->document()->displayName();
        QCOMPARE(m_window->windowTitle(), name + QStringLiteral("[*] — Loadscope"));
        QVERIFY(!m_window->isWindowModified());
        QVERIFY(m_window->document()->filePath().isEmpty()); // an example has no file

        editFirstTargetName(QStringLiteral("-edited"));
        QVERIFY(m_window->isWindowModified());
    }

    // Closed while its save is being written: the window waits for the
    // write, then closes without asking (nothing is left unsaved).
    void closingDuringASaveClosesOnceWritten() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        editFirstTargetName(QStringLiteral("-closing"));
        m_window->show();
        const QString path = m_dir.filePath(QStringLiteral("closing.loadscope"));
        auto saving = m_window->saveSessionAs(path);
        QVERIFY(m_window->document()->isSaving());
        QVERIFY(!m_window->close()); // not yet: the file is being written
        QVERIFY(m_window->isVisible());
        QVERIFY(QCoro::waitFor(std::move(saving)));
        QTRY_VERIFY(!m_window->isVisible());
        QCOMPARE(m_questions, 0);
        const auto saved = loadscope::app::loadSessionFile(path);
        QVERIFY(saved);
        QCOMPARE(saved->targets.front().name, QStringLiteral("host-closing"));
    }

    // Save writes the file the session came from, whatever its name: only
    // Save As adds ".loadscope" to a name without a suffix.
    void saveKeepsTheFilesOwnName() {
        const QString path = m_dir.filePath(QStringLiteral("no-suffix"));
        {
            loadscope::app::SessionDocument writer;
            QVERIFY(writer.open(QStringLiteral("demo-proxy")));
            QVERIFY(writer.saveAs(path));
        }
        QVERIFY(QCoro::waitFor(m_window->openSession(path)));
        editFirstTargetName(QStringLiteral("-kept"));
        QVERIFY(QCoro::waitFor(m_window->saveSession()));
        QVERIFY(!QFile::exists(path + QStringLiteral(".loadscope")));
        const auto saved = loadscope::app::loadSessionFile(path);
        QVERIFY(saved);
        QCOMPARE(saved->targets.front().name, QStringLiteral("host-kept"));
    }

    void openEditSaveReopen() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        editFirstTargetName(QStringLiteral("-bare"));
        const QString path = m_dir.filePath(QStringLiteral("roundtrip.loadscope"));
        QVERIFY(QCoro::waitFor(m_window->saveSessionAs(path)));
        QVERIFY(QFile::exists(path));
        QVERIFY(!m_window->isWindowModified());
        QCOMPARE(m_window->document()->filePath(), path);
        const loadscope::app::Session saved = m_window->document()->session();

        // Further edits are saved to the same file by Save.
        editFirstTargetName(QStringLiteral("2"));
        QVERIFY(m_window->isWindowModified());
        QVERIFY(QCoro::waitFor(m_window->saveSession()));
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
        QVERIFY(!QCoro::waitFor(m_window->saveSession()));
        QVERIFY(m_window->isWindowModified());
        m_saveAsPath = m_dir.filePath(QStringLiteral("named"));
        QVERIFY(QCoro::waitFor(m_window->saveSession()));
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
        QVERIFY(!QCoro::waitFor(m_window->newSession()));
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
        QVERIFY(QCoro::waitFor(m_window->newSession()));
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
            QVERIFY(QCoro::waitFor(m_window->saveSessionAs(path)));
            paths.prepend(path);
        }
        QCOMPARE(recent->files().size(), RecentFiles::kMaximum);
        QCOMPARE(recent->files().front(), paths.front());
        QCOMPARE(recent->files().back(), paths.at(RecentFiles::kMaximum - 1));

        // Opening an older one moves it to the front, once.
        QVERIFY(QCoro::waitFor(m_window->openSession(paths.at(4))));
        QCOMPARE(recent->files().front(), paths.at(4));
        QCOMPARE(recent->files().count(paths.at(4)), 1);

        // Stored: a new window (the next start) sees the same list, and once
        // the writes are done, so does the settings file.
        QCOMPARE(RecentFiles().files(), recent->files());
        loadscope::ui::settings::waitForWrites();
        QCOMPARE(QSettings().value(QStringLiteral("session/recentFiles")).toStringList(),
                 recent->files());

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

    // The file is read on a worker thread: meanwhile the window refuses what
    // would change the session, and gives it all back once the session is in.
    void openingReadsOffTheGuiThread() {
        const QString path = m_dir.filePath(QStringLiteral("large.loadscope"));
        QVERIFY(loadscope::app::saveSessionFile(manyResults(), path));
        QAction* save = findAction(QStringLiteral("&Save"));
        QVERIFY(save);

        // The pages take no input while the file is read, but look as before.
        m_window->pages()->setCurrentIndex(0);
        auto* name = m_window->findChild<QLineEdit*>(QStringLiteral("sessionNameEdit"));
        QVERIFY(name);
        name->setFocus();
        const QString nameBefore = m_window->document()->session().name;
        auto opening = m_window->openSession(path);
        QVERIFY(m_window->isOpening());
        QVERIFY(m_window->pages()->isEnabled());
        QTest::keyClicks(name, QStringLiteral("typed while opening"));
        QTest::mouseClick(name, Qt::LeftButton);
        QCOMPARE(name->text(), nameBefore);
        QCOMPARE(m_window->document()->session().name, nameBefore);
        QVERIFY(!save->isEnabled());
        QVERIFY(m_window->document()->session().results.empty()); // not applied yet
        QVERIFY(!QCoro::waitFor(m_window->openSession(QStringLiteral("tcp-rr"))));

        QVERIFY(QCoro::waitFor(opening));
        QVERIFY(!m_window->isOpening());
        QVERIFY(save->isEnabled());
        // Input again, to the opened session.
        name->setFocus();
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("typed once open"));
        QCOMPARE(m_window->document()->session().name, QStringLiteral("typed once open"));
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
};

QTEST_MAIN(TstMainWindow)
#include "tst_main_window.moc"
