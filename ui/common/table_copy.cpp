#include "ui/common/table_copy.h"

#include <QAbstractItemView>
#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QItemSelectionModel>
#include <map>
#include <set>

namespace loadscope::ui {

namespace {

QString cellText(const QModelIndex& index) {
    QVariant value = index.data(kCopyRole);
    if (!value.isValid())
        value = index.data(Qt::DisplayRole);
    QString text = value.toString();
    // A tab or line break inside a cell would split it in a spreadsheet.
    text.replace(QLatin1Char('\t'), QLatin1Char(' '));
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return text;
}

} // namespace

QString selectionAsTsv(const QAbstractItemView* view) {
    const QItemSelectionModel* selection = view->selectionModel();
    const QAbstractItemModel* model = view->model();
    if (!selection || !model)
        return {};
    std::set<int> columns;
    std::map<int, std::map<int, QModelIndex>> rows;
    for (const QModelIndex& index : selection->selectedIndexes()) {
        columns.insert(index.column());
        rows[index.row()][index.column()] = index;
    }
    if (rows.empty())
        return {};

    QStringList lines;
    QStringList header;
    for (int column : columns)
        header << model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
    lines << header.join(QLatin1Char('\t'));
    for (const auto& [row, cells] : rows) {
        QStringList fields;
        for (int column : columns) {
            const auto cell = cells.find(column);
            fields << (cell == cells.end() ? QString() : cellText(cell->second));
        }
        lines << fields.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QAction* installTsvCopy(QAbstractItemView* view) {
    auto* copy =
        new QAction(QIcon::fromTheme(QStringLiteral("edit-copy")), QObject::tr("&Copy"), view);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    copy->setToolTip(QObject::tr("Copy the selected cells as tab-separated text"));
    QObject::connect(copy, &QAction::triggered, view, [view] {
        if (QClipboard* clipboard = QGuiApplication::clipboard())
            clipboard->setText(selectionAsTsv(view));
    });
    view->addAction(copy);
    if (view->contextMenuPolicy() == Qt::DefaultContextMenu)
        view->setContextMenuPolicy(Qt::ActionsContextMenu);
    return copy;
}

} // namespace loadscope::ui
