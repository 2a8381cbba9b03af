// The window's pages and actions beyond the session file: the Run page's
// hint, the CSV and percentile exports, the icon, a running sweep keeping
// its session, the page shortcuts. Opening and saving sessions is
// tst_main_window's.
#include "app/servers/http_server.h"
#include "app/session/session_document.h"
#include "app/session/session_file.h"
#include "app/sweep/sweep_runner.h"
#include "main_window_fixture.h"
#include "tests/app/session_test_data.h"

#include <QAction>
#include <QCoroTask>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QTabWidget>
#include <QTest>
#include <QToolBar>

using loadscope::app::DeploymentMode;

class TstMainWindowActions : public MainWindowFixture {
    Q_OBJECT

private Q_SLOTS:
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

    void exportsWriteTheCsvFiles() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        loadscope::app::PointResult result;
        result.targetId = m_window->document()->session().targets.front().id;
        result.concurrency = 1;
        result.complete = 1000;
        result.durationSeconds = 2;
        m_window->document()->putResult(result);

        const QString results = m_dir.filePath(QStringLiteral("results.csv"));
        QVERIFY(QCoro::waitFor(m_window->exportResultsCsv(results)));
        QFile file(results);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray header = file.readLine();
        QVERIFY(header.startsWith("target,target_id,mode,protocol"));
        QVERIFY(file.readAll().contains("500"));

        const QString summary = m_dir.filePath(QStringLiteral("summary.csv"));
        QVERIFY(QCoro::waitFor(m_window->exportSummaryCsv(summary)));
        QVERIFY(QFileInfo(summary).size() > 0);

        QVERIFY(!QCoro::waitFor(
            m_window->exportResultsCsv(m_dir.filePath(QStringLiteral("no/such/dir.csv")))));
        QCOMPARE(m_errors.size(), 1);
    }

    void exportsPercentileDistributions() {
        QVERIFY(QCoro::waitFor(m_window->openSession(QStringLiteral("demo-proxy"))));
        const QUuid host = m_window->document()->session().targets.front().id;
        const QString directory = m_dir.filePath(QStringLiteral("hgrm"));

        // Printed figures only (an imported report): no histogram, nothing to write.
        m_window->document()->putResult(loadscope::test::importedResult(host, 10, 0, 900, 3));
        QVERIFY(!QCoro::waitFor(m_window->exportPercentileDistributions(directory)));
        QCOMPARE(m_errors.size(), 1);

        m_window->document()->putResult(loadscope::test::measuredResult(
            host, 1, 0, 1000, 2, {{100'000, 900}, {2'000'000, 100}}));
        QVERIFY(QCoro::waitFor(m_window->exportPercentileDistributions(directory)));
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
        const loadscope::app::Session session = longSweepSession(server.port());
        const loadscope::app::Target& target = session.targets.front();
        m_window->document()->reset(session);

        QCoro::connect(m_window->runner()->run(), this, [](const loadscope::app::SweepOutcome&) {});
        QTRY_VERIFY(m_window->runner()->isRunning());
        QVERIFY(!QCoro::waitFor(m_window->openSession(QStringLiteral("tcp-rr"))));
        QVERIFY(!QCoro::waitFor(m_window->newSession()));
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

    // The Run menu and the toolbar hold Start, Stop and Resume with the keys IDEs use: F5
    // starts (and shows the Run page), Shift+F5 stops.
    void runMenuStartsAndStopsWithItsKeys() {
        auto* run = m_window->findChild<QMenu*>(QStringLiteral("runMenu"));
        QVERIFY(run);
        QStringList keys;
        for (QAction* action : run->actions())
            keys << action->shortcut().toString(QKeySequence::PortableText);
        QCOMPARE(keys, (QStringList{QStringLiteral("F5"), QStringLiteral("Shift+F5"),
                                    QStringLiteral("Ctrl+F5")}));
        auto* bar = m_window->findChild<QToolBar*>(QStringLiteral("mainToolBar"));
        QVERIFY(bar);
        QStringList onBar;
        for (QAction* action : bar->actions())
            onBar << action->objectName();
        for (const char* name :
             {"startAction", "stopAction", "resumeAction", "undoAction", "redoAction"})
            QVERIFY2(onBar.contains(QString::fromLatin1(name)), name);

        loadscope::app::HttpServer server;
        const auto started = server.start();
        QVERIFY2(started, started ? "" : qPrintable(started.error().toString()));
        m_window->document()->reset(longSweepSession(server.port()));
        m_window->pages()->setCurrentIndex(0);
        QTest::keyClick(m_window.get(), Qt::Key_F5);
        QTRY_VERIFY(m_window->runner()->isRunning());
        QCOMPARE(m_window->pages()->currentIndex(), 2);
        QTest::keyClick(m_window.get(), Qt::Key_F5, Qt::ShiftModifier);
        QTRY_VERIFY_WITH_TIMEOUT(!m_window->runner()->isRunning(), 5000);
        QVERIFY(m_window->document()->session().results.empty());
        server.stop();
    }

    // Every example by its title, as its session names itself; its name in the tooltip.
    void openExampleNamesEveryExampleByItsTitle() {
        auto* examples = m_window->findChild<QMenu*>(QStringLiteral("examplesMenu"));
        QMenu* menu = examples;
        if (!menu) // the menu as it was made: a child menu titled "Open Example"
            for (QMenu* candidate : m_window->findChildren<QMenu*>())
                if (candidate->title().remove(QLatin1Char('&')) == QStringLiteral("Open Example"))
                    menu = candidate;
        QVERIFY(menu);
        const QStringList names = loadscope::app::exampleSessionNames();
        QCOMPARE(menu->actions().size(), names.size());
        for (QAction* action : menu->actions()) {
            const QString name = action->objectName().mid(int(qstrlen("example-")));
            QVERIFY2(names.contains(name), qPrintable(action->objectName()));
            const auto example = loadscope::app::loadExampleSession(name);
            QVERIFY(example);
            QCOMPARE(action->text().replace(QStringLiteral("&&"), QStringLiteral("&")),
                     example->name);
            QVERIFY2(action->text() != name, qPrintable(name));
            QVERIFY(action->toolTip().contains(name));
        }
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
};

QTEST_MAIN(TstMainWindowActions)
#include "tst_main_window_actions.moc"
