// The window's questions answered later: while the user is asked the event
// loop runs, so a flow looks again at what may have changed meanwhile (a
// sweep started, the session saved, the window deleted); closing asks once
// and closes after Save or Discard. The plain answers are tst_main_window's,
// the default dialogs tst_main_window_dialogs'.
#include "app/servers/http_server.h"
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "app/sweep/sweep_runner.h"
#include "main_window_fixture.h"

#include <QAction>
#include <QCoroTask>
#include <QDir>
#include <QFile>
#include <QTest>

using loadscope::app::DeploymentMode;

class TstMainWindowPrompts : public MainWindowFixture {
    Q_OBJECT

private Q_SLOTS:
    void aLaterAnswerIsWaitedFor() {
        editedExample();
        m_answerLater = true;
        auto replacing = m_window->newSession();
        QCOMPARE(m_questions, 1);
        QVERIFY(!replacing.isReady());
        QVERIFY(m_window->isAskingAboutUnsavedChanges());
        QCOMPARE(m_window->document()->session().targets.size(), size_t(2)); // not yet

        answerUnsaved(Choice::Discard);
        QVERIFY(replacing.isReady());
        QVERIFY(QCoro::waitFor(replacing));
        QVERIFY(!m_window->isAskingAboutUnsavedChanges());
        QCOMPARE(m_window->document()->session().targets.size(), size_t(1));
    }

    // One question at a time: a second action while it is up is refused, not
    // asked again.
    void aSecondActionWhileAskedIsRefused() {
        editedExample();
        m_answerLater = true;
        auto replacing = m_window->newSession();
        QVERIFY(!QCoro::waitFor(m_window->openSession(QStringLiteral("tcp-rr"))));
        QCOMPARE(m_questions, 1);
        answerUnsaved(Choice::Cancel);
        QVERIFY(!QCoro::waitFor(replacing));
        QCOMPARE(m_window->document()->session().targets.size(), size_t(2));
        QVERIFY(m_window->isWindowModified());
    }

    // A sweep started while the user was asked stores its points in this
    // session: Discard must not replace it under the sweep.
    void aSweepStartedMeanwhileKeepsItsSession() {
        loadscope::app::HttpServer server;
        const auto started = server.start();
        QVERIFY2(started, started ? "" : qPrintable(started.error().toString()));
        const loadscope::app::Session session = longSweepSession(server.port());
        const loadscope::app::Target& target = session.targets.front();
        m_window->document()->reset(session);
        m_window->document()->setName(QStringLiteral("edited"));
        QVERIFY(m_window->isWindowModified());

        m_answerLater = true;
        auto opening = m_window->openSession(QStringLiteral("tcp-rr"));
        QVERIFY(!opening.isReady());
        QCoro::connect(m_window->runner()->run(), this, [](const loadscope::app::SweepOutcome&) {});
        QTRY_VERIFY(m_window->runner()->isRunning());
        answerUnsaved(Choice::Discard);
        QVERIFY(!QCoro::waitFor(opening));
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.front().contains(QStringLiteral("sweep is running")),
                 qPrintable(m_errors.front()));
        QCOMPARE(m_window->document()->session().targets.front().id, target.id);

        m_window->runner()->cancel();
        QTRY_VERIFY(!m_window->runner()->isRunning());
        server.stop();
    }

    // Saved meanwhile (as a sweep saves each point): Save has nothing left to
    // do, and asks for no file name.
    void aSessionSavedMeanwhileIsNotSavedAgain() {
        editedExample();
        m_answerLater = true;
        auto replacing = m_window->newSession();
        const QString path = m_dir.filePath(QStringLiteral("meanwhile.loadscope"));
        QVERIFY(QCoro::waitFor(m_window->saveSessionAs(path)));
        answerUnsaved(Choice::Save);
        QVERIFY(QCoro::waitFor(replacing));
        QCOMPARE(m_fileQuestions, 0);
        QCOMPARE(m_window->document()->session().targets.size(), size_t(1));
        QVERIFY(m_errors.isEmpty());
    }

    // Save of a session without a file asks for one; edits made while that
    // is asked are saved too, and the session is replaced only then.
    void saveAsksForAFileThenReplaces() {
        editedExample();
        m_answerLater = true;
        auto replacing = m_window->newSession();
        answerUnsaved(Choice::Save);
        QCOMPARE(m_fileQuestions, 1);
        QVERIFY(!replacing.isReady());
        m_window->document()->setNotes(QStringLiteral("written while asked"));
        const QString path = m_dir.filePath(QStringLiteral("chosen.loadscope"));
        answerFile(path);
        QVERIFY(QCoro::waitFor(replacing));
        const auto saved = loadscope::app::loadSessionFile(path);
        QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
        QCOMPARE(saved->notes, QStringLiteral("written while asked"));
        QCOMPARE(m_window->document()->session().targets.size(), size_t(1));
    }

    void aSecondAnswerIsIgnored() {
        editedExample();
        m_answerLater = true;
        auto replacing = m_window->newSession();
        const auto answer = m_pendingUnsaved; // a copy that answers twice
        answer(Choice::Discard);
        answer(Choice::Save);
        answerUnsaved(Choice::Cancel);
        QVERIFY(QCoro::waitFor(replacing));
        QCOMPARE(m_fileQuestions, 0); // Save was not taken
        QCOMPARE(m_window->document()->session().targets.size(), size_t(1));
    }

    // A question dropped unanswered counts as Cancel; the flow ends from the
    // event loop.
    void aDroppedQuestionCountsAsCancel() {
        editedExample();
        m_answerLater = true;
        auto replacing = m_window->newSession();
        m_pendingUnsaved = {};
        QVERIFY(!QCoro::waitFor(replacing));
        QVERIFY(!m_window->isAskingAboutUnsavedChanges());
        QVERIFY(m_window->isWindowModified());
        QCOMPARE(m_window->document()->session().targets.size(), size_t(2));

        // So does a file question: nothing is opened, nothing asked.
        QAction* open = findAction(QStringLiteral("&Open…"));
        QVERIFY(open);
        open->trigger();
        QCOMPARE(m_fileQuestions, 1);
        m_pendingFile = {};
        QCoreApplication::sendPostedEvents();
        QCOMPARE(m_questions, 1);
        QVERIFY(m_window->isWindowModified());
        QVERIFY(!m_window->isOpening());
    }

    void aWindowDeletedWhileAskedReceivesNothing() {
        editedExample();
        m_answerLater = true;
        auto opening = m_window->openSession(QStringLiteral("tcp-rr"));
        m_window.reset();
        answerUnsaved(Choice::Discard);
        QVERIFY(!QCoro::waitFor(opening));
    }

    // Deleted with the question dropped (a dialog goes with its window): the
    // flow ends all the same.
    void aWindowDeletedWithItsQuestionReceivesNothing() {
        editedExample();
        m_answerLater = true;
        auto replacing = m_window->newSession();
        m_window.reset();
        m_pendingUnsaved = {};
        QVERIFY(!QCoro::waitFor(replacing));
    }

    void aFileChosenLaterOpensIt() {
        m_answerLater = true;
        QAction* open = findAction(QStringLiteral("&Open…"));
        QVERIFY(open);
        open->trigger();
        QCOMPARE(m_fileQuestions, 1);
        QCOMPARE(m_window->document()->session().targets.size(), size_t(0));
        answerFile(QStringLiteral("memcached"));
        const auto example = loadscope::app::loadExampleSession(QStringLiteral("memcached"));
        QVERIFY2(example, example ? "" : qPrintable(example.error().toString()));
        QTRY_COMPARE(m_window->document()->session(), *example);
    }

    void closingAsksOnceThenClosesOnDiscard() {
        editedExample();
        m_answerLater = true;
        QVERIFY(!m_window->close());
        QVERIFY(m_window->isVisible());
        QCOMPARE(m_questions, 1);
        QVERIFY(!m_window->close()); // asked already: not twice
        QCOMPARE(m_questions, 1);

        answerUnsaved(Choice::Discard);
        QTRY_VERIFY(!m_window->isVisible());
        QCOMPARE(m_questions, 1);
    }

    void closingStaysOpenOnCancel() {
        editedExample();
        m_answer = Choice::Cancel;
        QVERIFY(!m_window->close());
        QCoreApplication::sendPostedEvents();
        QVERIFY(m_window->isVisible());
        QVERIFY(m_window->isWindowModified());
        // Asked again on the next close.
        QVERIFY(!m_window->close());
        QCOMPARE(m_questions, 2);
    }

    void closingSavesThenCloses() {
        editedExample();
        const QString path = m_dir.filePath(QStringLiteral("on-close.loadscope"));
        QVERIFY(QCoro::waitFor(m_window->saveSessionAs(path)));
        m_window->document()->setNotes(QStringLiteral("kept on close"));
        m_answer = Choice::Save; // answered at once: inside closeEvent()
        QVERIFY(!m_window->close());
        QTRY_VERIFY(!m_window->isVisible());
        QCOMPARE(m_questions, 1);
        const auto saved = loadscope::app::loadSessionFile(path);
        QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
        QCOMPARE(saved->notes, QStringLiteral("kept on close"));
    }

    // Save failed: the error is shown and the window stays open, modified.
    void closingStaysOpenWhenTheSaveFails() {
        editedExample();
        QDir(m_dir.path()).mkdir(QStringLiteral("gone"));
        const QString path = m_dir.filePath(QStringLiteral("gone/session.loadscope"));
        QVERIFY(QCoro::waitFor(m_window->saveSessionAs(path)));
        m_window->document()->setNotes(QStringLiteral("not saved"));
        QVERIFY(QDir(m_dir.filePath(QStringLiteral("gone"))).removeRecursively());
        m_answer = Choice::Save;
        QVERIFY(!m_window->close());
        // The save is written on a worker thread: its error comes back later.
        QTRY_COMPARE(m_errors.size(), 1);
        QVERIFY(m_window->isVisible());
        QVERIFY(m_window->isWindowModified());

        // Save of a session without a file, the file dialog cancelled: open too.
        m_answer = Choice::Discard;
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("tcp-rr"))));
        m_window->document()->setNotes(QStringLiteral("no file"));
        m_answer = Choice::Save;
        m_saveAsPath.clear();
        QVERIFY(!m_window->close());
        QCoreApplication::sendPostedEvents();
        QVERIFY(m_window->isVisible());
        QCOMPARE(m_fileQuestions, 1);
        QCOMPARE(m_errors.size(), 1);
    }

private:
    // An example with a change not saved: its two targets, no file.
    void editedExample() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        QCOMPARE(m_window->document()->session().targets.size(), size_t(2));
        m_window->document()->setName(QStringLiteral("edited"));
        QVERIFY(m_window->isWindowModified());
    }

    QAction* findAction(const QString& text) const {
        for (QAction* action : m_window->findChildren<QAction*>()) {
            if (action->text() == text)
                return action;
        }
        return nullptr;
    }
};

QTEST_MAIN(TstMainWindowPrompts)
#include "tst_main_window_prompts.moc"
