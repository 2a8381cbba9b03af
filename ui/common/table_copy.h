#pragma once

#include <QString>

class QAbstractItemView;
class QAction;

namespace loadscope::ui {

// Models whose display text is formatted for reading ("12 345", "−3.1%")
// answer this role with the same value in a form spreadsheets parse
// ("12345.2", "-3.1"); copying prefers it.
inline constexpr int kCopyRole = Qt::UserRole + 100;

// The selected cells as tab-separated text: a header line with the selected
// columns' titles, then one line per selected row, in the view's order.
// Cells of the rectangle that are not selected stay empty.
QString selectionAsTsv(const QAbstractItemView* view);

// Adds a Copy action (Ctrl+C, and in the context menu) to `view` that puts
// selectionAsTsv() on the clipboard.
QAction* installTsvCopy(QAbstractItemView* view);

} // namespace loadscope::ui
