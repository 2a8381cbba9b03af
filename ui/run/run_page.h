#pragma once

#include <QCoroTask>
#include <QWidget>
#include <functional>

class QAction;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace loadscope::app {
class SessionDocument;
class SweepRunner;
struct SweepOutcome;
struct SweepPoint;
struct PointResult;
} // namespace loadscope::app

namespace loadscope::engine {
struct Progress;
}

namespace loadscope::ui {

class LivePointCharts;
class RunLogModel;

// The Run page: start, stop and resume the session's sweep, follow the point
// in progress on live charts fed from the runner's ~10 Hz snapshots, and read
// a log of finished points.
//
// Start runs every point afresh (after asking before it discards results);
// Resume runs only the points still missing. Both are coroutines that
// disable the buttons and await the runner; Stop cancels the runner, which
// ends the point in progress within a second and keeps every finished one.
class RunPage : public QWidget {
    Q_OBJECT

public:
    RunPage(app::SessionDocument* document, app::SweepRunner* runner, QWidget* parent = nullptr);
    ~RunPage() override;

    LivePointCharts* liveCharts() const { return m_charts; }
    RunLogModel* logModel() const { return m_logModel; }

    // Asked before Start and Resume run anything, with the action's name; false: nothing
    // runs (the check has told the user why). The window refuses while a field shows an error.
    void setLaunchCheck(std::function<bool(const QString& action)> check) {
        m_launchCheck = std::move(check);
    }

    // The actions the window's Run menu and toolbar show: Start (F5), Stop (Shift+F5),
    // Resume (Ctrl+F5), enabled as the buttons are.
    QAction* startAction() const { return m_startAction; }
    QAction* stopAction() const { return m_stopAction; }
    QAction* resumeAction() const { return m_resumeAction; }

    void start();
    void resume();
    void stop();

Q_SIGNALS:
    // Start or Resume passed the launch check: a sweep starts (or Start asks first whether to
    // discard the results).
    void launchAccepted();

private:
    void launch(bool fresh);
    // Disables the buttons, awaits the runner; the outcome reaches
    // sweepFinished() only while the page exists.
    QCoro::Task<app::SweepOutcome> runSweep(bool fresh);
    void sweepFinished(const app::SweepOutcome& outcome);

    void pointStarted(const app::SweepPoint& point, int pointCount);
    void progressAvailable(const app::SweepPoint& point,
                           const std::shared_ptr<const engine::Progress>& progress);
    void pointFinished(const app::SweepPoint& point, const app::PointResult& result);
    void pointFailed(const app::SweepPoint& point, const QString& error);
    void updateButtons();
    void showStatus(const QString& text, bool error = false);
    QString pointText(const app::SweepPoint& point) const;
    // Another session: its Run page starts empty.
    void sessionReplaced();
    // The plan's points that have a result.
    int donePointCount() const;
    // What the rate chart and the log call a rate of the session's targets.
    void followProtocols();

    app::SessionDocument* m_document = nullptr;
    app::SweepRunner* m_runner = nullptr;
    std::function<bool(const QString&)> m_launchCheck;
    bool m_busy = false;     // a Start or Resume task is in progress
    bool m_asking = false;   // Start waits for the answer to "discard the results?"
    bool m_stopping = false; // Stop was pressed and the sweep has not ended yet
    bool m_statusIsError = false;
    bool m_statusIsHint = false; // the status says why the sweep cannot run
    int m_currentPoint = -1;
    int m_pointCount = 0;

    QAction* m_startAction = nullptr;
    QAction* m_stopAction = nullptr;
    QAction* m_resumeAction = nullptr;
    QPushButton* m_startButton = nullptr;
    QPushButton* m_stopButton = nullptr;
    QPushButton* m_resumeButton = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_pointLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    LivePointCharts* m_charts = nullptr;
    RunLogModel* m_logModel = nullptr;
    QTableView* m_log = nullptr;
};

} // namespace loadscope::ui
