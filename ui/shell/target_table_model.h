#pragma once

#include <QAbstractTableModel>
#include <QPointer>
#include <QUuid>
#include <vector>

namespace loadscope::app {
class SessionDocument;
struct Target;
} // namespace loadscope::app

namespace loadscope::ui {

// The document's targets as a table, one row per target in session order.
// Follows the document by signal: an edit of a target updates its row in
// place, an added, removed or moved target is announced as such, so a
// selection survives edits made in the editor beside the table.
class TargetTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        ModeColumn,
        ProtocolColumn,
        EndpointColumn,
        OptionsColumn,
        ColumnCount
    };
    enum Role {
        TargetIdRole = Qt::UserRole + 1, // QUuid
        IsBaselineRole,                  // bool
        ColourRole,                      // QColor
    };

    explicit TargetTableModel(app::SessionDocument* document, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    QUuid targetId(int row) const;
    int rowOf(const QUuid& id) const; // -1 when absent

private:
    void syncWithDocument();
    const app::Target* targetAt(int row) const;

    QPointer<app::SessionDocument> m_document;
    std::vector<QUuid> m_ids; // the rows as the views last learnt of them
};

// What matters most in a target's protocol options, in a few words:
// "GET, keep-alive, 2 headers" or "SET:GET 1:10, keys R:R, 32 B values".
QString targetOptionsSummary(const app::Target& target);

} // namespace loadscope::ui
