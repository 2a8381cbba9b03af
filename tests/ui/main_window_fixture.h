#pragma once

// The main window suites' fixture: before each test a new window, shown and
// active, whose prompts answer as the test set them and record the errors
// they were shown; settings of the run only, never the user's.

#include "app/session/session_document.h"
#include "ui/shell/main_window.h"

#include <QCoreApplication>
#include <QObject>
#include <QSettings>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

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

protected:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    int m_questions = 0;
    Choice m_answer = Choice::Cancel;
    QString m_saveAsPath;
    QStringList m_errors;
};
