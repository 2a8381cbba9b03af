#include "ui/shell/hosts_dialog.h"

#include "app/remote/host_agents.h"
#include "app/session/session_document.h"
#include "ui/common/field_error.h"
#include "ui/common/metric_tooltip.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <chrono>

namespace loadscope::ui {

namespace {

enum Column { NameColumn, DestinationColumn, CommandColumn, StatusColumn, ColumnCount };

QString cellText(const QTableWidget* table, int row, int column) {
    const QTableWidgetItem* item = table->item(row, column);
    return item ? item->text().trimmed() : QString();
}

} // namespace

HostsDialog::HostsDialog(app::SessionDocument* document, QWidget* parent)
    : QDialog(parent)
    , m_document(document) {
    setObjectName(QStringLiteral("hostsDialog"));
    setWindowTitle(tr("Hosts"));
    auto* intro = new QLabel(
        tr("Your own machines, reached with your OpenSSH client, config and agent (never a "
           "password prompt): a target can send its load from them, have its server measured "
           "on one, and the lab can be built on one. Each needs Loadscope installed; its "
           "command runs it there."));
    intro->setWordWrap(true);

    m_table = new QTableWidget(0, ColumnCount);
    m_table->setObjectName(QStringLiteral("hostsTable"));
    m_table->setHorizontalHeaderLabels(
        {tr("Name"), tr("SSH destination"), tr("Command"), tr("Check")});
    m_table->horizontalHeader()->setSectionResizeMode(StatusColumn, QHeaderView::Stretch);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setToolTip(wrappedToolTip(
        tr("Name: how targets name the host. SSH destination: a Host of your ssh config or "
           "[user@]host[:port]. Command: what runs Loadscope there (default loadscope-cli).")));

    auto* add = new QPushButton(tr("&Add"));
    add->setObjectName(QStringLiteral("addHostButton"));
    auto* remove = new QPushButton(tr("&Remove"));
    remove->setObjectName(QStringLiteral("removeHostButton"));
    m_checkButton = new QPushButton(tr("&Check"));
    m_checkButton->setObjectName(QStringLiteral("checkHostsButton"));
    m_checkButton->setToolTip(wrappedToolTip(
        tr("Reach each host over ssh and run Loadscope's agent there: reachable, "
           "authenticated, its version, CPUs, clock offset from this machine, and what the "
           "lab can build there.")));
    connect(add, &QPushButton::clicked, this, [this] {
        app::Host host;
        host.name = tr("host%1").arg(m_table->rowCount() + 1);
        addHost(host);
        m_table->editItem(m_table->item(m_table->rowCount() - 1, DestinationColumn));
    });
    connect(remove, &QPushButton::clicked, this, &HostsDialog::removeSelected);
    connect(m_checkButton, &QPushButton::clicked, this, &HostsDialog::check);
    auto* row = new QHBoxLayout;
    row->addWidget(add);
    row->addWidget(remove);
    row->addStretch();
    row->addWidget(m_checkButton);

    m_error = new FieldError;
    m_error->setObjectName(QStringLiteral("hostsError"));
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &HostsDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &HostsDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_table, 1);
    layout->addLayout(row);
    layout->addWidget(m_error);
    layout->addWidget(m_buttons);
    resize(760, 360);

    if (m_document) {
        for (const app::Host& host : m_document->session().hosts)
            addHost(host);
    }
}

void HostsDialog::setRow(int row, const app::Host& host) {
    m_table->setItem(row, NameColumn, new QTableWidgetItem(host.name));
    m_table->setItem(row, DestinationColumn, new QTableWidgetItem(host.destination));
    m_table->setItem(row, CommandColumn, new QTableWidgetItem(host.command));
    auto* status = new QTableWidgetItem;
    status->setFlags(status->flags() & ~Qt::ItemIsEditable);
    m_table->setItem(row, StatusColumn, status);
}

void HostsDialog::addHost(const app::Host& host) {
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    setRow(row, host);
}

void HostsDialog::removeSelected() {
    const int row = m_table->currentRow();
    if (row >= 0)
        m_table->removeRow(row);
    ++m_round; // rows moved: the answers in flight would land in the wrong ones
}

std::vector<app::Host> HostsDialog::hosts() const {
    std::vector<app::Host> hosts;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        app::Host host;
        host.name = cellText(m_table, row, NameColumn);
        host.destination = cellText(m_table, row, DestinationColumn);
        const QString command = cellText(m_table, row, CommandColumn);
        if (!command.isEmpty())
            host.command = command;
        hosts.push_back(host);
    }
    return hosts;
}

QString HostsDialog::statusOf(int row) const {
    return cellText(m_table, row, StatusColumn);
}

void HostsDialog::check() {
    const quint64 round = ++m_round;
    const std::vector<app::Host> rows = hosts();
    m_checking = 0;
    for (int row = 0; row < int(rows.size()); ++row) {
        if (auto checked = app::checkHost(rows[size_t(row)]); !checked) {
            m_table->item(row, StatusColumn)->setText(checked.error().message);
            continue;
        }
        m_table->item(row, StatusColumn)->setText(tr("checking…"));
        ++m_checking;
    }
    m_checkButton->setEnabled(m_checking == 0);
    if (m_checking == 0) {
        Q_EMIT checkFinished();
        return;
    }
    for (int row = 0; row < int(rows.size()); ++row) {
        if (app::checkHost(rows[size_t(row)]))
            QCoro::connect(checkRow(row, rows[size_t(row)], round), this, [] {});
    }
}

QCoro::Task<> HostsDialog::checkRow(int row, app::Host host, quint64 round) {
    QPointer<HostsDialog> alive(this);
    // Made before the co_await: GCC destroys a co_await operand's temporaries twice.
    auto checking = app::checkHostOverSsh(host, m_ssh, true, app::kDefaultMaxClockOffsetMs,
                                          std::chrono::seconds(20));
    const app::HostCheck checked = co_await checking;
    if (!alive || round != m_round)
        co_return;
    if (QTableWidgetItem* status = m_table->item(row, StatusColumn)) {
        status->setText(app::hostCheckLine(checked));
        status->setToolTip(wrappedToolTip(app::hostCheckLine(checked)));
        status->setForeground(checked.ok() ? palette().text() : QBrush(QColor(0xb0, 0x20, 0x20)));
    }
    if (--m_checking == 0) {
        m_checkButton->setEnabled(true);
        Q_EMIT checkFinished();
    }
}

void HostsDialog::accept() {
    if (!m_document)
        return QDialog::accept();
    const auto stored = m_document->setHosts(hosts());
    if (!stored) {
        m_error->setMessage(stored.error().message);
        return;
    }
    m_error->setMessage({});
    QDialog::accept();
}

} // namespace loadscope::ui
