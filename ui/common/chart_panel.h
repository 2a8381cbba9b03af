#pragma once

#include <QWidget>

class QAction;
class QChart;
class QChartView;
class QToolButton;

namespace loadscope::ui {

// A chart with its export actions: a context menu and a small button in its
// corner offer Copy (as an image) and Export (PNG, SVG or PDF at a chosen
// size). Any chart of the window is shown through one.
class ChartPanel : public QWidget {
    Q_OBJECT

public:
    // Takes ownership of `chart`. `fileStem` names the suggested export file of a chart
    // without a title.
    ChartPanel(QChart* chart, const QString& fileStem, QWidget* parent = nullptr);

    QChart* chart() const;
    QChartView* view() const { return m_view; }
    QAction* copyAction() const { return m_copy; }
    QAction* exportAction() const { return m_export; }
    // Where Export proposes to write: a file named after the chart's title, in the folder
    // exported into last, or Pictures, or home (one that exists).
    QString suggestedExportPath() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void copyImage();
    void showExportDialog();
    void placeMenuButton();

    QChartView* m_view = nullptr;
    QToolButton* m_menuButton = nullptr;
    QAction* m_copy = nullptr;
    QAction* m_export = nullptr;
    QString m_fileStem;
};

} // namespace loadscope::ui
