// A field shown in error never lets an older value go anywhere: Start, Resume, Save and the
// exports refuse while a target's or the plan's field shows one, name the field and put the
// cursor in it (on its page, its target selected); what the user typed stays, also when they
// select another target, and goes only with the session it was typed for.
#include "app/session/session_document.h"
#include "app/sweep/sweep_runner.h"
#include "main_window_fixture.h"
#include "ui/common/field_error.h"
#include "ui/shell/sweep_page.h"
#include "ui/shell/target_editor.h"
#include "ui/shell/targets_page.h"

#include <QApplication>
#include <QCoroTask>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

using loadscope::app::Session;

class TstFieldsInError : public MainWindowFixture {
    Q_OBJECT

    QLineEdit* editorField(const char* name) const {
        return m_window->targetsPage()->editor()->findChild<QLineEdit*>(QString::fromLatin1(name));
    }
    QLineEdit* planField(const char* name) const {
        return m_window->sweepPage()->findChild<QLineEdit*>(QString::fromLatin1(name));
    }
    QPushButton* startButton() const {
        return m_window->findChild<QPushButton*>(QStringLiteral("startButton"));
    }
    // As the user does: the field's text replaced, key by key.
    static void typeInto(QLineEdit* field, const QString& text) {
        field->setFocus();
        field->selectAll();
        QTest::keyClick(field, Qt::Key_Backspace);
        QTest::keyClicks(field, text);
    }
    // Start pressed; true when no sweep began within a moment (none would ever: the refusal
    // comes before the runner is asked).
    bool startRunsNothing() {
        QSignalSpy running(m_window->runner(), &loadscope::app::SweepRunner::runningChanged);
        startButton()->click();
        QTest::qWait(300);
        return running.isEmpty() && !m_window->runner()->isRunning() &&
               m_window->document()->session().results.empty();
    }

private Q_SLOTS:
    void startWithAFieldInErrorRunsNothingAndNamesTheField() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        QLineEdit* url = editorField("urlEdit");
        QVERIFY(url);
        const QString lastGood = m_window->document()->session().targets.front().http.url;
        typeInto(url, QStringLiteral("htp://bad"));
        QCOMPARE(m_window->document()->session().targets.front().http.url, lastGood);

        m_window->pages()->setCurrentIndex(2); // Start where the user finds it: the Run page
        QVERIFY(startButton()->isEnabled());
        QVERIFY(startRunsNothing());
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.front().contains(QStringLiteral("URL of target “host”")),
                 qPrintable(m_errors.front()));
        QVERIFY2(m_errors.front().contains(QStringLiteral("htp")), qPrintable(m_errors.front()));
        // Taken to the field, which still holds what was typed.
        QCOMPARE(m_window->pages()->currentWidget(), m_window->targetsPage());
        QTRY_COMPARE(QApplication::focusWidget(), url);
        QCOMPARE(url->text(), QStringLiteral("htp://bad"));

        // F5 is refused alike.
        QTest::keyClick(m_window.get(), Qt::Key_F5);
        QTest::qWait(100);
        QVERIFY(!m_window->runner()->isRunning());
        QCOMPARE(m_errors.size(), 2);
    }

    void aConcurrencyLevelInErrorBlocksStartAndSave() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        m_window->pages()->setCurrentWidget(m_window->sweepPage());
        QLineEdit* levels = planField("levelsEdit");
        QVERIFY(levels);
        typeInto(levels, QStringLiteral("abc"));
        m_window->pages()->setCurrentIndex(2);
        QVERIFY(startRunsNothing());
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.front().contains(QStringLiteral("Concurrency levels on the Sweep page")),
                 qPrintable(m_errors.front()));
        QCOMPARE(m_window->pages()->currentWidget(), m_window->sweepPage());
        QTRY_COMPARE(QApplication::focusWidget(), levels);

        const QString path = m_dir.filePath(QStringLiteral("abc.loadscope"));
        QVERIFY(!QCoro::waitFor(m_window->saveSessionAs(path)));
        QVERIFY(!QFile::exists(path));
        QCOMPARE(m_errors.size(), 2);
        QCOMPARE(levels->text(), QStringLiteral("abc"));
    }

    // Typed key by key, "1, 5" is a good plan on the way: the rest must not leave it to run.
    void aRepeatedOrNegativeLevelIsAnErrorNotAShorterList() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        m_window->pages()->setCurrentWidget(m_window->sweepPage());
        QLineEdit* levels = planField("levelsEdit");
        typeInto(levels, QStringLiteral("1, 5, 5, -3"));
        QVERIFY(startRunsNothing());
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.front().contains(QStringLiteral("listed twice")),
                 qPrintable(m_errors.front()));

        typeInto(levels, QStringLiteral("1, 5, -3"));
        QVERIFY(startRunsNothing());
        QVERIFY2(m_errors.last().contains(QStringLiteral("-3")), qPrintable(m_errors.last()));
        QCOMPARE(levels->text(), QStringLiteral("1, 5, -3"));
    }

    // What the user typed stays with its target while they look at another, and still
    // blocks: Start takes them back to it.
    void aFieldInErrorStaysWhenAnotherTargetIsSelected() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        loadscope::ui::TargetsPage* targets = m_window->targetsPage();
        const QUuid host = targets->selectedTargetId();
        typeInto(editorField("urlEdit"), QStringLiteral("htp://bad"));
        const QUuid proxy = m_window->document()->session().targets[1].id;
        targets->selectTarget(proxy);
        QCOMPARE(targets->editor()->targetId(), proxy);
        QVERIFY(targets->editor()->isValid());

        m_window->pages()->setCurrentIndex(2);
        QVERIFY(startRunsNothing());
        QVERIFY2(m_errors.front().contains(QStringLiteral("URL of target “host”")),
                 qPrintable(m_errors.front()));
        QCOMPARE(targets->selectedTargetId(), host);
        QCOMPARE(targets->editor()->targetId(), host);
        QCOMPARE(editorField("urlEdit")->text(), QStringLiteral("htp://bad"));
        QTRY_COMPARE(QApplication::focusWidget(), editorField("urlEdit"));

        // Corrected, the last good value is the one typed.
        typeInto(editorField("urlEdit"), QStringLiteral("http://127.0.0.1:1/"));
        QCOMPARE(m_window->document()->session().targets.front().http.url,
                 QStringLiteral("http://127.0.0.1:1/"));
    }

    void saveAndExportWithAFieldInErrorWriteNothing() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        const QString saved = m_dir.filePath(QStringLiteral("first.loadscope"));
        QVERIFY(QCoro::waitFor(m_window->saveSessionAs(saved)));
        const QByteArray before = [&saved] {
            QFile file(saved);
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        }();
        QVERIFY(!before.isEmpty());
        typeInto(editorField("urlEdit"), QStringLiteral("htp://bad"));

        QVERIFY(!QCoro::waitFor(m_window->saveSession()));
        QFile file(saved);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), before);
        const QString csv = m_dir.filePath(QStringLiteral("results.csv"));
        QVERIFY(!QCoro::waitFor(m_window->exportResultsCsv(csv)));
        QVERIFY(!QFile::exists(csv));
        QCOMPARE(m_errors.size(), 2);
        for (const QString& error : std::as_const(m_errors))
            QVERIFY2(error.contains(QStringLiteral("URL")), qPrintable(error));
    }

    // The same session opened again: nothing typed for the first opening stays.
    void anotherSessionTakesNothingTypedForTheOneBefore() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        typeInto(planField("levelsEdit"), QStringLiteral("abc"));
        typeInto(editorField("urlEdit"), QStringLiteral("htp://bad"));
        m_window->targetsPage()->selectTarget(m_window->document()->session().targets[1].id);
        m_answer = Choice::Discard;
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        const Session& session = m_window->document()->session();
        QCOMPARE(planField("levelsEdit")->text(), QStringLiteral("1, 10, 50"));
        QVERIFY(!m_window->sweepPage()
                     ->findChild<loadscope::ui::FieldError*>(QStringLiteral("levelsError"))
                     ->hasMessage());
        m_window->targetsPage()->selectTarget(session.targets[0].id);
        QCOMPARE(editorField("urlEdit")->text(), session.targets[0].http.url);
    }
};

QTEST_MAIN(TstFieldsInError)
#include "tst_fields_in_error.moc"
