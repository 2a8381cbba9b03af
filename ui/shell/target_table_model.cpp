#include "ui/shell/target_table_model.h"

#include "app/session/session_document.h"
#include "ui/common/colour_button.h"
#include "ui/common/metric_tooltip.h"
#include "ui/common/plural.h"

#include <QColor>
#include <QFileInfo>
#include <QFont>
#include <algorithm>

namespace loadscope::ui {

using app::Target;
using app::TargetProtocol;

QString targetOptionsSummary(const Target& target) {
    QStringList parts;
    switch (target.protocol) {
    case TargetProtocol::Http: {
        const app::HttpOptions& http = target.http;
        parts << (http.method.trimmed().isEmpty() ? QStringLiteral("GET")
                                                  : http.method.trimmed().toUpper());
        parts << (http.keepAlive ? QObject::tr("keep-alive") : QObject::tr("new connection each"));
        if (http.http2)
            parts << plural(qsizetype(http.maxConcurrentStreams), QObject::tr("HTTP/2, 1 stream"),
                            QObject::tr("HTTP/2, %1 streams"));
        else if (http.pipeline > 1)
            parts << QObject::tr("pipeline %1").arg(http.pipeline);
        if (!http.headers.empty())
            parts << plural(qsizetype(http.headers.size()), QObject::tr("1 header"),
                            QObject::tr("%1 headers"));
        if (!http.bodyFile.isEmpty())
            parts << QObject::tr("body %1").arg(QFileInfo(http.bodyFile).fileName());
        break;
    }
    case TargetProtocol::Memcache: {
        const app::MemcacheOptions& mc = target.memcache;
        parts << QObject::tr("SET:GET %1:%2").arg(mc.setRatio).arg(mc.getRatio);
        parts << QObject::tr("keys %1").arg(mc.keyPattern);
        parts << QObject::tr("%1 B values").arg(mc.valueSize);
        if (mc.pipeline > 1)
            parts << QObject::tr("pipeline %1").arg(mc.pipeline);
        if (mc.preload)
            parts << QObject::tr("preload");
        break;
    }
    case TargetProtocol::TcpRr:
        parts << QObject::tr("%1 B request, %2 B response")
                     .arg(target.tcpRr.requestSize)
                     .arg(target.tcpRr.responseSize);
        if (target.tcpRr.connectPerRequest)
            parts << QObject::tr("connect per request (CRR)");
        break;
    case TargetProtocol::TcpStream:
        parts << QObject::tr("%1 B chunks").arg(target.tcpStream.chunkSize);
        break;
    }
    return parts.join(QStringLiteral(", "));
}

TargetTableModel::TargetTableModel(app::SessionDocument* document, QObject* parent)
    : QAbstractTableModel(parent)
    , m_document(document) {
    for (const Target& target : m_document->session().targets)
        m_ids.push_back(target.id);
    connect(m_document, &app::SessionDocument::sessionChanged, this,
            &TargetTableModel::syncWithDocument);
}

int TargetTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_ids.size());
}

int TargetTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

const Target* TargetTableModel::targetAt(int row) const {
    if (!m_document || row < 0 || row >= rowCount())
        return nullptr;
    return m_document->session().findTarget(m_ids[static_cast<size_t>(row)]);
}

QUuid TargetTableModel::targetId(int row) const {
    return row >= 0 && row < rowCount() ? m_ids[static_cast<size_t>(row)] : QUuid();
}

int TargetTableModel::rowOf(const QUuid& id) const {
    const auto found = std::find(m_ids.begin(), m_ids.end(), id);
    return found == m_ids.end() ? -1 : static_cast<int>(found - m_ids.begin());
}

QVariant TargetTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Target* target = targetAt(index.row());
    if (!target)
        return {};
    const app::Target* baseline = m_document->session().baseline();
    const bool isBaseline = baseline && baseline->id == target->id;

    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return isBaseline ? tr("%1 (baseline)").arg(target->displayName())
                              : target->displayName();
        case ModeColumn: {
            const QString mode = target->mode == app::DeploymentMode::Custom
                                     ? target->modeLabel()
                                     : app::deploymentModeTitle(target->mode);
            return target->lab ? tr("%1, in the lab").arg(mode) : mode;
        }
        case ProtocolColumn:
            return app::targetProtocolId(target->protocol);
        case EndpointColumn:
            // The lab gives each mode its own address when it is built: the one in the
            // target only stands in until then, and is the same for every lab target.
            if (target->lab)
                return tr("lab %1 server in %2, address given by the lab")
                    .arg(target->lab->server, target->lab->mode);
            return target->endpoint();
        case OptionsColumn:
            return targetOptionsSummary(*target);
        default:
            return {};
        }
    case Qt::EditRole:
        return index.column() == NameColumn ? QVariant(target->displayName())
                                            : data(index, Qt::DisplayRole);
    case Qt::DecorationRole:
        if (index.column() == NameColumn)
            return colourSwatch(QColor(target->colour));
        return {};
    case Qt::FontRole:
        if (isBaseline && index.column() == NameColumn) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == NameColumn && isBaseline)
            return tr("The baseline: every other target is compared against it.");
        if (index.column() == ProtocolColumn)
            return QString(tr("<p>Judged first by:</p>") +
                           metricToolTip(app::primaryMetric(target->protocol), target->protocol));
        if ((index.column() == EndpointColumn || index.column() == ModeColumn) && target->lab)
            return wrappedToolTip(
                tr("A lab target: the deployment lab builds mode %1 in a sandbox of its own and "
                   "runs the %2 server there; the sweep reaches it through the lab, at the "
                   "address the lab gives the mode (%3 stands in until then).")
                    .arg(target->lab->mode, target->lab->server, target->endpoint()));
        if (index.column() == EndpointColumn || index.column() == OptionsColumn)
            return data(index, Qt::DisplayRole);
        return {};
    case TargetIdRole:
        return target->id;
    case IsBaselineRole:
        return isBaseline;
    case ColourRole:
        return QColor(target->colour);
    default:
        return {};
    }
}

QVariant TargetTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Name");
    case ModeColumn:
        return tr("Deployment mode");
    case ProtocolColumn:
        return tr("Protocol");
    case EndpointColumn:
        return tr("Address / URL");
    case OptionsColumn:
        return tr("Options");
    default:
        return {};
    }
}

void TargetTableModel::syncWithDocument() {
    std::vector<QUuid> ids;
    for (const Target& target : m_document->session().targets)
        ids.push_back(target.id);

    const auto refreshAll = [this] {
        if (!m_ids.empty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    };

    if (ids == m_ids) {
        // An edit, a new baseline: same rows, new contents.
        refreshAll();
        return;
    }
    if (ids.size() == m_ids.size() + 1 && std::equal(m_ids.begin(), m_ids.end(), ids.begin())) {
        const int row = rowCount();
        beginInsertRows({}, row, row);
        m_ids = std::move(ids);
        endInsertRows();
        refreshAll(); // the first target may have become the baseline
        return;
    }
    if (ids.size() + 1 == m_ids.size()) {
        const auto mismatch = std::mismatch(ids.begin(), ids.end(), m_ids.begin());
        const auto row = static_cast<int>(mismatch.second - m_ids.begin());
        std::vector<QUuid> without = m_ids;
        without.erase(without.begin() + row);
        if (without == ids) {
            beginRemoveRows({}, row, row);
            m_ids = std::move(ids);
            endRemoveRows();
            refreshAll(); // the baseline falls back to the first target
            return;
        }
    }
    if (ids.size() == m_ids.size() && std::is_permutation(ids.begin(), ids.end(), m_ids.begin())) {
        // A reorder: persistent indexes (the selection) follow their target.
        Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
        const QModelIndexList before = persistentIndexList();
        QModelIndexList after;
        after.reserve(before.size());
        for (const QModelIndex& old : before) {
            const auto found = std::find(ids.begin(), ids.end(), m_ids[size_t(old.row())]);
            after << index(static_cast<int>(found - ids.begin()), old.column());
        }
        m_ids = std::move(ids);
        changePersistentIndexList(before, after);
        Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
        refreshAll();
        return;
    }
    beginResetModel();
    m_ids = std::move(ids);
    endResetModel();
}

} // namespace loadscope::ui
