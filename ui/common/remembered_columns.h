#pragma once

#include <QList>
#include <QObject>
#include <QString>

class QTableView;
class QTimer;

namespace loadscope::ui {

// The columns of a table view as a reader wants them: each as wide as its content (up to a
// share of the view, the rest elided) until the user drags it, and then as the user left it,
// remembered under `key` (QSettings, stored off the GUI thread) for the next time the table
// is shown. The column the view names takes the width the others leave.
class RememberedColumns : public QObject {
    Q_OBJECT

public:
    // How the fill column meets a view too narrow for every column's content.
    enum class Fill {
        KeepsItsWidth, // its content's width (up to a share of the view): names
        MayShrink,     // to what the others leave, down to a few words: notes with a tooltip
    };
    // Attaches to `view`, whose model is set; `fillColumn` takes the spare width (-1: none).
    RememberedColumns(QTableView* view, const QString& key, int fillColumn = -1,
                      Fill fill = Fill::KeepsItsWidth);

    // Fits every column the user has not sized to its content (on each model reset, and
    // when called).
    void fit();
    // The widths the user set, by column (0: fitted); what is stored.
    QList<int> userWidths() const { return m_userWidths; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void sectionResized(int column, int newWidth);
    void store();

    QTableView* m_view;
    // The two widgets whose events the filter watches, only ever compared: while the view
    // is destroyed its children still send events through the filter, after the view's
    // QTableView part is gone (m_view->horizontalHeader() there is a call on a QWidget).
    const QObject* m_headerViewport = nullptr;
    const QObject* m_viewport = nullptr;
    QString m_key;
    int m_fillColumn;
    Fill m_fill;
    QList<int> m_userWidths;
    bool m_fitting = false;
    bool m_userResizing = false; // a mouse button is down on the header
    QTimer* m_storeTimer = nullptr;
};

} // namespace loadscope::ui
