#pragma once

#include "ui/common/chart_export.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace loadscope::ui {

// Asks where and how to export a chart: file, format (PNG, SVG, PDF), size
// in pixels and, for PNG, the DPI. Opened with open(), never exec(): the
// caller reads the choice when accepted() arrives.
class ChartExportDialog : public QDialog {
    Q_OBJECT

public:
    explicit ChartExportDialog(const QString& suggestedPath, QWidget* parent = nullptr);

    QString path() const;
    ChartExportFormat format() const;
    ChartExportOptions options() const;

private:
    void browse();
    void formatChosen();
    void pathEdited();
    void updateSummary();

    QLineEdit* m_path = nullptr;
    QComboBox* m_format = nullptr;
    QSpinBox* m_width = nullptr;
    QSpinBox* m_height = nullptr;
    QSpinBox* m_dpi = nullptr;
    QLabel* m_summary = nullptr;
};

} // namespace loadscope::ui
