#pragma once

#include <QWidget>

namespace loadscope::app {
class SessionDocument;
class SweepRunner;
} // namespace loadscope::app

namespace loadscope::ui {

// The Run page: start, stop and resume the session's sweep, follow the point
// in progress on live charts fed from the runner's ~10 Hz snapshots, and read
// a log of finished points.
class RunPage : public QWidget {
    Q_OBJECT

public:
    RunPage(app::SessionDocument* document, app::SweepRunner* runner,
            QWidget* parent = nullptr);
    ~RunPage() override;

private:
    struct Private;
    Private* d = nullptr;
};

} // namespace loadscope::ui
