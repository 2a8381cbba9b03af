// The window's default prompts are dialogs opened with open(): an action
// that asks returns at once with its dialog up, and no event loop runs under
// it. Each dialog answers once, whichever way it ends, and goes on close.
//
// No event loop under an action is checked without timing: a zero-timeout
// tripwire started before the action fires only if an event loop runs before
// the action returns (exec() would run one); it then closes the dialog, so a
// regression fails here instead of hanging.
#include "app/session/session_document.h"
#include "tests/app/session_test_data.h"
#include "ui/shell/main_window.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCoroTask>
#include <QFileDialog>
#include <QMessageBox>
#include <QPointer>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <memory>

using loadscope::ui::MainWindow;
using Choice = MainWindow::UnsavedChoice;

namespace {

// Closes whatever dialog a nested event loop would wait for.
class Tripwire {
public:
    Tripwire() {
        m_timer.setSingleShot(true);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            m_tripped = true;
            if (QWidget* modal = QApplication::activeModalWidget())
                modal->close();
        });
        m_timer.start(0);
    }
    // True when an event loop ran since construction.
    bool tripped() {
        m_timer.stop();
        return m_tripped;
    }

private:
    QTimer m_timer;
    bool m_tripped = false;
};

QList<QDialog*> visibleDialogs(const QWidget* parent) {
    QList<QDialog*> shown;
    for (QDialog* dialog : parent->findChildren<QDialog*>()) {
        if (dialog->isVisible())
            shown << dialog;
    }
    return shown;
}

void deletePostponed() {
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

} // namespace

class TstMainWindowDialogs : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_settingsDir.isValid());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
        QCoreApplication::setOrganizationName(QStringLiteral("LoadscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_main_window_dialogs"));
    }

    void init() {
        QSettings().clear();
        m_window = std::make_unique<MainWindow>(); // the default prompts
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        // A session with a measured result (every export is on) and a change
        // not saved (New and Open ask), that has no file (Save asks for one).
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        m_window->document()->putResult(
            loadscope::test::measuredResult(m_window->document()->session().targets.front().id, 1,
                                            0, 1000, 2, {{100'000, 900}, {2'000'000, 100}}));
        QVERIFY(m_window->isWindowModified());
        QVERIFY(m_window->document()->filePath().isEmpty());
    }

    void cleanup() {
        m_window->document()->setModified(false);
        m_window.reset();
        deletePostponed();
    }

    void anActionReturnsWithItsDialogUp_data() {
        QTest::addColumn<QString>("action"); // its text, or its object name
        for (const char* action : {"&New Session", "&Open…", "example-tcp-rr", "&Save", "Save &As…",
                                   "&Results CSV…", "&Summary CSV…", "&Percentile Distributions…",
                                   "Report &PDF…", "&Clear Results…", "&About Loadscope"})
            QTest::newRow(action) << QString::fromUtf8(action);
    }
    void anActionReturnsWithItsDialogUp() {
        QFETCH(QString, action);
        QAction* found = findAction(action);
        QVERIFY(found);
        QVERIFY(found->isEnabled());
        const loadscope::app::Session before = m_window->document()->session();

        Tripwire tripwire;
        found->trigger();
        QVERIFY2(!tripwire.tripped(), "an event loop ran under the action");
        const QList<QDialog*> shown = visibleDialogs(m_window.get());
        QCOMPARE(shown.size(), 1);
        QCOMPARE(shown.front()->windowModality(), Qt::WindowModal);

        // Cancelled: it goes, nothing follows, nothing changed.
        const QPointer<QDialog> dialog = shown.front();
        dialog->reject();
        deletePostponed();
        QVERIFY(!dialog);
        QVERIFY(visibleDialogs(m_window.get()).isEmpty());
        QCOMPARE(m_window->document()->session(), before);
        QVERIFY(m_window->isWindowModified());
    }

    void closingAsksWithoutWaiting() {
        Tripwire tripwire;
        QVERIFY(!m_window->close());
        QVERIFY2(!tripwire.tripped(), "an event loop ran under closeEvent()");
        QVERIFY(m_window->isVisible());
        auto* box = onlyMessageBox();
        QVERIFY(box);

        // Cancel: the window stays open.
        box->button(QMessageBox::Cancel)->click();
        deletePostponed();
        QVERIFY(m_window->isVisible());
        QVERIFY(visibleDialogs(m_window.get()).isEmpty());

        // Discard: it closes, asking nothing more.
        QVERIFY(!m_window->close());
        box = onlyMessageBox();
        QVERIFY(box);
        box->button(QMessageBox::Discard)->click();
        QTRY_VERIFY(!m_window->isVisible());
        QVERIFY(visibleDialogs(m_window.get()).isEmpty());
    }

    // The prompts on their own: one answer per dialog, whichever way it ends.
    void theUnsavedQuestionAnswersOnce_data() {
        QTest::addColumn<int>("button");
        QTest::addColumn<int>("expected");
        QTest::newRow("Save") << int(QMessageBox::Save) << int(Choice::Save);
        QTest::newRow("Discard") << int(QMessageBox::Discard) << int(Choice::Discard);
        QTest::newRow("Cancel") << int(QMessageBox::Cancel) << int(Choice::Cancel);
        QTest::newRow("closed") << int(QMessageBox::NoButton) << int(Choice::Cancel);
    }
    void theUnsavedQuestionAnswersOnce() {
        QFETCH(int, button);
        QFETCH(int, expected);
        QList<Choice> answers;
        MainWindow::dialogPrompts(m_window.get())
            .unsavedChanges(QStringLiteral("s"), [&answers](Choice choice) { answers << choice; });
        QVERIFY(answers.isEmpty());
        const QPointer<QMessageBox> box = onlyMessageBox();
        QVERIFY(box);
        if (button == QMessageBox::NoButton)
            box->close(); // the title bar's close button, or Escape
        else
            box->button(QMessageBox::StandardButton(button))->click();
        deletePostponed();
        QVERIFY(!box);
        QCOMPARE(answers, QList<Choice>{Choice(expected)});
    }

    void aFileDialogAnswersOnce() {
        const MainWindow::Prompts prompts = MainWindow::dialogPrompts(m_window.get());
        QStringList answers;
        const auto record = [&answers](const QString& path) {
            answers << path;
        };

        prompts.openFileName(QStringLiteral("Open"), m_dir.path(), QStringLiteral("*"), record);
        QPointer<QFileDialog> dialog = onlyFileDialog();
        QVERIFY(dialog);
        dialog->reject();
        deletePostponed();
        QVERIFY(!dialog);
        QCOMPARE(answers, QStringList{QString()});

        prompts.directory(QStringLiteral("Into"), m_dir.path(), record);
        dialog = onlyFileDialog();
        QVERIFY(dialog);
        QCOMPARE(dialog->fileMode(), QFileDialog::Directory);
        dialog->close();
        deletePostponed();
        QVERIFY(!dialog);
        QCOMPARE(answers, (QStringList{QString(), QString()}));

        const QString path = m_dir.filePath(QStringLiteral("chosen.csv"));
        prompts.saveFileName(QStringLiteral("Save"), path, QStringLiteral("CSV (*.csv)"), record);
        dialog = onlyFileDialog();
        QVERIFY(dialog);
        QCOMPARE(dialog->acceptMode(), QFileDialog::AcceptSave);
        static_cast<QDialog*>(dialog.data())->accept(); // QFileDialog::accept(), protected
        deletePostponed();
        QVERIFY(!dialog);
        QCOMPARE(answers, (QStringList{QString(), QString(), path}));
    }

    // A dialog deleted with its window drops its answer uncalled (the window's
    // flow counts that as cancelled, see tst_main_window_prompts).
    void aDialogGoneWithItsParentDropsItsAnswer() {
        QWidget parent;
        parent.show();
        QVERIFY(QTest::qWaitForWindowExposed(&parent));
        auto token = std::make_shared<int>(0);
        const std::weak_ptr<int> held = token;
        int answers = 0;
        MainWindow::dialogPrompts(&parent).unsavedChanges(
            QStringLiteral("s"), [&answers, token = std::move(token)](Choice) { ++answers; });
        QVERIFY(!held.expired()); // the dialog holds it
        QCOMPARE(visibleDialogs(&parent).size(), 1);
        delete visibleDialogs(&parent).front(); // as ~QWidget deletes it
        QVERIFY(held.expired());
        QCOMPARE(answers, 0);
    }

private:
    QAction* findAction(const QString& textOrName) const {
        for (QAction* action : m_window->findChildren<QAction*>()) {
            if (action->text() == textOrName || action->objectName() == textOrName)
                return action;
        }
        return nullptr;
    }

    QMessageBox* onlyMessageBox() const {
        const QList<QDialog*> shown = visibleDialogs(m_window.get());
        return shown.size() == 1 ? qobject_cast<QMessageBox*>(shown.front()) : nullptr;
    }

    QFileDialog* onlyFileDialog() const {
        const QList<QDialog*> shown = visibleDialogs(m_window.get());
        return shown.size() == 1 ? qobject_cast<QFileDialog*>(shown.front()) : nullptr;
    }

    QTemporaryDir m_settingsDir;
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TstMainWindowDialogs)
#include "tst_main_window_dialogs.moc"
