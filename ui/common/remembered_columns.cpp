#include "ui/common/remembered_columns.h"

#include "ui/common/background_settings.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>
#include <algorithm>

namespace loadscope::ui {

namespace {

// Rows measured to fit a column: enough to see the long names, few enough for a table of
// thousands of rows to fit in a millisecond or two.
constexpr int kMeasuredRows = 200;
// A fitted column is at most this share of the view; what is longer elides (in the middle,
// where the view says so) and shows whole in its tooltip.
constexpr double kMostOfView = 0.4;

} // namespace

RememberedColumns::RememberedColumns(QTableView* view, const QString& key, int fillColumn,
                                     Fill fill)
    : QObject(view)
    , m_view(view)
    , m_key(key)
    , m_fillColumn(fillColumn)
    , m_fill(fill) {
    for (const QVariant& width : settings::value(m_key).toList())
        m_userWidths << std::max(0, width.toInt());
    QHeaderView* header = m_view->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setStretchLastSection(false);
    header->setResizeContentsPrecision(kMeasuredRows);
    // A width counts as the user's while they press on the header (a drag of a section's
    // edge, a double click on it), never when the view or a fit sets it.
    m_headerViewport = header->viewport();
    header->viewport()->installEventFilter(this);
    // The view's width decides how wide a fitted column may be and what is spare: its
    // viewport's, once the view has laid it out.
    m_viewport = m_view->viewport();
    m_view->viewport()->installEventFilter(this);
    m_storeTimer = new QTimer(this);
    m_storeTimer->setSingleShot(true);
    // Once the drag has ended: a drag resizes the section at every mouse move.
    m_storeTimer->setInterval(400);
    connect(m_storeTimer, &QTimer::timeout, this, &RememberedColumns::store);
    connect(header, &QHeaderView::sectionResized, this,
            [this](int column, int, int newWidth) { sectionResized(column, newWidth); });
    if (QAbstractItemModel* model = m_view->model()) {
        // After the view has taken the reset in.
        connect(model, &QAbstractItemModel::modelReset, this, &RememberedColumns::fit,
                Qt::QueuedConnection);
        connect(model, &QAbstractItemModel::layoutChanged, this, &RememberedColumns::fit,
                Qt::QueuedConnection);
        connect(model, &QAbstractItemModel::rowsInserted, this, &RememberedColumns::fit,
                Qt::QueuedConnection);
    }
    fit();
}

void RememberedColumns::fit() {
    const QAbstractItemModel* model = m_view->model();
    if (!model)
        return;
    const int columns = model->columnCount();
    QHeaderView* header = m_view->horizontalHeader();
    const int available = m_view->viewport()->width();
    const int most = std::max(120, int(available * kMostOfView));
    // Public there, protected in QTableView: the same virtual.
    const QAbstractItemView* contents = m_view;
    const bool filling =
        m_fillColumn >= 0 && m_fillColumn < columns && m_userWidths.value(m_fillColumn) <= 0;
    m_fitting = true;
    int others = 0;
    int fillWidth = 0;
    for (int column = 0; column < columns; ++column) {
        int width = m_userWidths.value(column);
        if (width <= 0)
            width = std::min(most, std::max(header->sectionSizeHint(column),
                                            contents->sizeHintForColumn(column)));
        if (filling && column == m_fillColumn) {
            fillWidth = width;
            continue;
        }
        header->resizeSection(column, width);
        others += width;
    }
    // The fill column takes whatever the others leave. Names keep at least their fitted
    // width (a scroll bar rather than cut names); notes may be cut to what is left, whole in
    // their tooltip, down to a few words.
    if (filling)
        header->resizeSection(m_fillColumn,
                              std::max(available - others, m_fill == Fill::KeepsItsWidth
                                                               ? fillWidth
                                                               : std::min(fillWidth, 160)));
    m_fitting = false;
}

bool RememberedColumns::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_headerViewport) {
        if (event->type() == QEvent::MouseButtonPress ||
            event->type() == QEvent::MouseButtonDblClick)
            m_userResizing = true;
        else if (event->type() == QEvent::MouseButtonRelease)
            // After the release's own resize (a double click fits on release).
            QTimer::singleShot(0, this, [this] { m_userResizing = false; });
    } else if (watched == m_viewport && event->type() == QEvent::Resize) {
        fit();
    }
    return QObject::eventFilter(watched, event);
}

void RememberedColumns::sectionResized(int column, int newWidth) {
    if (m_fitting || !m_userResizing)
        return;
    while (m_userWidths.size() <= column)
        m_userWidths << 0;
    m_userWidths[column] = newWidth;
    m_storeTimer->start();
}

void RememberedColumns::store() {
    QVariantList widths;
    for (int width : std::as_const(m_userWidths))
        widths << width;
    settings::setValue(m_key, widths);
}

} // namespace loadscope::ui
