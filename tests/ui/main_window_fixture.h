#pragma once

// The main window suites' fixture: before each test a new window, shown and
// active, whose prompts answer as the test set them and record the errors
// they were shown; settings of the run only, never the user's. A prompt
// answers at once, or, with m_answerLater, keeps its answer for the test to
// give (answerUnsaved(), answerFile()) once it has changed what it likes.

#include "app/session/session_document.h"
#include "app/session/target.h"
#include "ui/common/background_settings.h"
#include "ui/shell/main_window.h"

#include <QCoreApplication>
#include <QObject>
#include <QSettings>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <cstdint>
#include <memory>
#include <utility>

// One host target on `port`, one 30 s point: a sweep that is still running
// when a test looks.
inline loadscope::app::Session longSweepSession(uint16_t port) {
    loadscope::app::Session session;
    loadscope::app::Target target =
        loadscope::app::makeTarget(QStringLiteral("host"), loadscope::app::DeploymentMode::Host, 0);
    target.http.url = QStringLiteral("http://127.0.0.1:%1/").arg(port);
    session.targets.push_back(target);
    session.plan.concurrencyLevels = {1};
    session.plan.durationSeconds = 30;
    session.plan.repetitions = 1;
    session.plan.threads = 1;
    return session;
}

class MainWindowFixture : public QObject {
    Q_OBJECT

protected:
    using MainWindow = loadscope::ui::MainWindow;
    using Choice = MainWindow::UnsavedChoice;

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
        // The last test's settings, stored off the GUI thread, first.
        loadscope::ui::settings::waitForWrites();
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_window = std::make_unique<MainWindow>();
        m_questions = 0;
        m_fileQuestions = 0;
        m_errors.clear();
        m_answer = Choice::Cancel;
        m_answerLater = false;
        m_saveAsPath.clear();
        m_openPath.clear();
        m_directoryPath.clear();
        m_pendingUnsaved = {};
        m_pendingFile = {};
        MainWindow::Prompts prompts;
        prompts.unsavedChanges = [this](const QString&, MainWindow::Prompts::UnsavedAnswer answer) {
            ++m_questions;
            if (m_answerLater)
                m_pendingUnsaved = std::move(answer);
            else
                answer(m_answer);
        };
        const auto fileAnswer = [this](const QString* path) {
            return [this, path](MainWindow::Prompts::FileAnswer answer) {
                ++m_fileQuestions;
                if (m_answerLater)
                    m_pendingFile = std::move(answer);
                else
                    answer(*path);
            };
        };
        prompts.saveFileName =
            [ask = fileAnswer(&m_saveAsPath)](const QString&, const QString&, const QString&,
                                              MainWindow::Prompts::FileAnswer answer) {
                ask(std::move(answer));
            };
        prompts.openFileName =
            [ask = fileAnswer(&m_openPath)](const QString&, const QString&, const QString&,
                                            MainWindow::Prompts::FileAnswer answer) {
                ask(std::move(answer));
            };
        prompts.directory =
            [ask = fileAnswer(&m_directoryPath)](const QString&, const QString&,
                                                 MainWindow::Prompts::FileAnswer answer) {
                ask(std::move(answer));
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
        // Answers never given: dropped after the window, which then hears nothing.
        m_pendingUnsaved = {};
        m_pendingFile = {};
    }

protected:
    // The kept answer, given once: taken out first, as answering may ask again.
    void answerUnsaved(Choice choice) {
        QVERIFY(m_pendingUnsaved);
        std::exchange(m_pendingUnsaved, {})(choice);
    }
    void answerFile(const QString& path) {
        QVERIFY(m_pendingFile);
        std::exchange(m_pendingFile, {})(path);
    }

    QTemporaryDir m_settingsDir;
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    int m_questions = 0;     // about unsaved changes
    int m_fileQuestions = 0; // for a file or directory
    Choice m_answer = Choice::Cancel;
    bool m_answerLater = false;
    QString m_saveAsPath;
    QString m_openPath;
    QString m_directoryPath;
    MainWindow::Prompts::UnsavedAnswer m_pendingUnsaved;
    MainWindow::Prompts::FileAnswer m_pendingFile;
    QStringList m_errors;
};
