#pragma once

#include "app/common/result.h"

#include <QList>
#include <QString>
#include <QStringList>

class QAbstractItemModel;
class QChart;

namespace loadscope::ui {

// What the Compare page's report PDF holds.
struct CompareReport {
    QString title;         // the session's name
    QStringList subtitle;  // one line each: baseline, level, protocol, date
    QList<QChart*> charts; // drawn two rows of three per page
    const QAbstractItemModel* table =
        nullptr; // drawn as it is sorted, over as many pages as needed
};

// Writes the report as a landscape A4 PDF: a title page with every chart,
// then the table with its header repeated on every page. An Io error of one
// line (naming the file) when it cannot be written.
app::Result<void> writeCompareReportPdf(const CompareReport& report, const QString& path);

} // namespace loadscope::ui
