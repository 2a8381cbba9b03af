// Edit ▸ Undo and Redo of the session's edits: targets added, duplicated, removed (with their
// results), moved, edited field by field, the baseline and the plan; each step back gives the
// session exactly as it was before it, each step forward as it was after, and another session
// starts with nothing to undo.
#include "app/lab/lab_targets.h"
#include "app/session/session_document.h"
#include "main_window_fixture.h"
#include "tests/app/session_test_data.h"
#include "ui/shell/session_edits.h"
#include "ui/shell/sweep_page.h"
#include "ui/shell/target_editor.h"
#include "ui/shell/targets_page.h"

#include <QAbstractButton>
#include <QAction>
#include <QCoroTask>
#include <QLineEdit>
#include <QMessageBox>
#include <QTableView>
#include <QTest>

using loadscope::app::Session;

namespace {

// What an undo must give back: the session's targets, baseline, plan and results.
struct Edited {
    std::vector<loadscope::app::Target> targets;
    QUuid baseline;
    loadscope::app::SweepPlan plan;
    std::vector<loadscope::app::PointResult> results;
    std::optional<loadscope::app::LabSetup> lab;

    explicit Edited(const Session& session)
        : targets(session.targets)
        , baseline(session.baseline() ? session.baseline()->id : QUuid())
        , plan(session.plan)
        , results(session.results)
        , lab(session.lab) {}
    friend bool operator==(const Edited&, const Edited&) = default;
};

} // namespace

class TstSessionUndo : public MainWindowFixture {
    Q_OBJECT

    QAction* action(const char* name) const {
        return m_window->findChild<QAction*>(QString::fromLatin1(name));
    }
    Edited now() const { return Edited(m_window->document()->session()); }
    static void typeInto(QLineEdit* field, const QString& text) {
        field->setFocus();
        field->selectAll();
        QTest::keyClick(field, Qt::Key_Backspace);
        QTest::keyClicks(field, text);
    }

private Q_SLOTS:
    void everyTargetEditIsUndoneAndRedone() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        QAction* undo = action("undoAction");
        QAction* redo = action("redoAction");
        QVERIFY(undo && redo);
        QCOMPARE(undo->shortcut(), QKeySequence(QKeySequence::Undo));
        QCOMPARE(redo->shortcut(), QKeySequence(QKeySequence::Redo));
        QVERIFY(!undo->isEnabled());

        std::vector<Edited> states{now()};
        const auto step = [&](const char* name) {
            QAction* target = action(name);
            QVERIFY2(target && target->isEnabled(), name);
            target->trigger();
            states.push_back(now());
        };
        loadscope::ui::TargetsPage* page = m_window->targetsPage();
        step("addTargetAction");
        QCOMPARE(m_window->document()->session().targets.size(), size_t(3));
        page->selectTarget(m_window->document()->session().targets[1].id);
        step("duplicateTargetAction");
        step("moveTargetUpAction");
        step("baselineAction");
        // A name typed key by key is one step.
        auto* name = page->editor()->findChild<QLineEdit*>(QStringLiteral("nameEdit"));
        typeInto(name, QStringLiteral("renamed"));
        states.push_back(now());
        QCOMPARE(m_window->document()->session().findTarget(page->selectedTargetId())->name,
                 QStringLiteral("renamed"));
        step("removeTargetAction");
        QCOMPARE(m_window->document()->session().targets.size(), size_t(3));

        m_window->targetsPage()->setFocus(); // the field's own undo is not the session's
        for (size_t i = states.size() - 1; i > 0; --i) {
            QVERIFY(undo->isEnabled());
            undo->trigger();
            QVERIFY2(now() == states[i - 1],
                     qPrintable(QStringLiteral("undo to step %1").arg(i - 1)));
        }
        QVERIFY(!undo->isEnabled());
        for (size_t i = 1; i < states.size(); ++i) {
            QVERIFY(redo->isEnabled());
            redo->trigger();
            QVERIFY2(now() == states[i], qPrintable(QStringLiteral("redo to step %1").arg(i)));
        }
        QVERIFY(!redo->isEnabled());
    }

    // A removal takes the target's results with it; its undo brings both back where they were.
    void removingATargetWithResultsIsUndoneWithItsResults() {
        Session session = loadscope::test::twoTargetSession();
        m_window->document()->reset(session);
        loadscope::ui::TargetsPage* page = m_window->targetsPage();
        page->selectTarget(session.targets[0].id); // the baseline, first
        const Edited before = now();
        action("removeTargetAction")->trigger();
        // Results go only once the user says so.
        auto* question = page->findChild<QMessageBox*>();
        QVERIFY(question);
        for (QAbstractButton* button : question->buttons())
            if (question->buttonRole(button) == QMessageBox::DestructiveRole)
                button->click();
        QTRY_COMPARE(m_window->document()->session().targets.size(), size_t(1));
        QCOMPARE(m_window->document()->session().results.size(), size_t(6));

        action("undoAction")->trigger();
        const Edited after = now();
        QVERIFY(after.targets == before.targets);
        QCOMPARE(after.baseline, before.baseline);
        // Every result back, whatever the order they are kept in.
        QCOMPARE(after.results.size(), before.results.size());
        for (const auto& result : before.results)
            QVERIFY(std::find(after.results.begin(), after.results.end(), result) !=
                    after.results.end());
    }

    void planEditsAreUndoneFieldByField() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        m_window->pages()->setCurrentWidget(m_window->sweepPage());
        auto* levels = m_window->sweepPage()->findChild<QLineEdit*>(QStringLiteral("levelsEdit"));
        const loadscope::app::SweepPlan original = m_window->document()->session().plan;
        typeInto(levels, QStringLiteral("2, 20"));
        QCOMPARE(m_window->document()->session().plan.concurrencyLevels, (std::vector<int>{2, 20}));

        m_window->sweepPage()->setFocus();
        // The platform's keys for Undo and Redo (Ctrl+Z, and Ctrl+Shift+Z or Ctrl+Y).
        QTest::keySequence(m_window.get(), QKeySequence(QKeySequence::Undo));
        QCOMPARE(m_window->document()->session().plan, original);
        QCOMPARE(levels->text(), QStringLiteral("1, 10, 50"));
        QTest::keySequence(m_window.get(), action("redoAction")->shortcut());
        QCOMPARE(m_window->document()->session().plan.concurrencyLevels, (std::vector<int>{2, 20}));
    }

    // Lab targets come with the plan's CPU profile turned on, and one undo
    // takes back both: the targets, the lab and the profile.
    void labTargetsAndTheirProfileAreOneStep() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        const Edited before = now();
        QVERIFY(!before.plan.profile);
        auto edit = loadscope::app::lab::labTargets(
            m_window->document()->session(),
            {loadscope::app::lab::LabServerKind::Http, {loadscope::app::lab::LabMode::Nat}, 1500});
        QVERIFY(edit.ok());
        loadscope::ui::SessionEdits::of(m_window->document())
            ->addLabTargets(std::move(edit->targets), edit->lab, edit->plan);
        const Edited after = now();
        QVERIFY(after.plan.profile);
        QCOMPARE(after.targets.size(), before.targets.size() + 1);
        action("undoAction")->trigger();
        QVERIFY(now() == before);
        QVERIFY(!action("undoAction")->isEnabled());
        action("redoAction")->trigger();
        QVERIFY(now() == after);
    }

    void anotherSessionHasNothingToUndo() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        action("addTargetAction")->trigger();
        QVERIFY(action("undoAction")->isEnabled());
        m_answer = Choice::Discard;
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("tcp-rr"))));
        QVERIFY(!action("undoAction")->isEnabled());
        QVERIFY(!action("redoAction")->isEnabled());
    }
};

QTEST_MAIN(TstSessionUndo)
#include "tst_session_undo.moc"
