#pragma once

#include <QString>
#include <QWidget>

namespace loadscope::app {
class SessionDocument;
}

namespace loadscope::ui {

// The Compare page: every chart of a session's comparison side by side
// (grouped bars at one concurrency, scaling lines, latency distribution) and
// the comparison table behind them. Everything shown is read from
// app::Comparison; the page rebuilds itself when the document changes.
class ComparePage : public QWidget {
    Q_OBJECT

public:
    explicit ComparePage(app::SessionDocument* document, QWidget* parent = nullptr);
    ~ComparePage() override;

    // Writes a multi-page PDF with every Compare chart and the table.
    bool exportReportPdf(const QString& path, QString* error);

private:
    struct Private;
    Private* d = nullptr;
};

} // namespace loadscope::ui
