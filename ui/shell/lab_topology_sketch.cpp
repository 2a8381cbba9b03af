#include "ui/shell/lab_topology_sketch.h"

#include "app/lab/lab_topology.h"
#include "app/session/target_rules.h"

#include <QPainter>
#include <QPainterPath>
#include <QPalette>
#include <algorithm>
#include <utility>

namespace loadscope::ui {

namespace {

constexpr int kMargin = 8;
constexpr int kGap = 6;
// The client and server-host boxes, and the wire drawn between them.
constexpr int kHostWidth = 150;
constexpr int kWireWidth = 110;
// The modes' boxes span the sketch below the hosts, indented; their line to the server host
// runs down its right-hand side.
constexpr int kModeIndent = 2 * kGap;
constexpr int kBusRoom = 3 * kGap;

// A mode's path from the client's veth to its server. With linux-bridge in the lab the server
// host's end of the wire is a bridge port for every mode (as LabTopology builds it). With the
// client on the server host, the path from there, or why the mode has none.
QString pathOf(app::lab::LabMode mode, const std::vector<app::lab::LabMode>& modes,
               bool clientOnServerHost = false) {
    using app::lab::LabMode;
    if (clientOnServerHost) {
        const QString path = app::lab::labModeServerHostPath(mode);
        return path.isEmpty() ? LabTopologySketch::tr("no client on the server host: %1")
                                    .arg(app::labServerHostRefusal(app::lab::labModeId(mode)))
                              : path;
    }
    if (!app::lab::labModePathFromWire(mode))
        return app::lab::labModePath(mode);
    const bool bridged = std::find(modes.begin(), modes.end(), LabMode::Bridge) != modes.end();
    const QString wire = bridged && mode != LabMode::Bridge ? QStringLiteral("veth → bridge port")
                                                            : QStringLiteral("veth");
    return wire + QStringLiteral(" → ") + app::lab::labModePath(mode);
}

} // namespace

LabTopologySketch::LabTopologySketch(QWidget* parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("labTopologySketch"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Minimum);
    describe();
}

void LabTopologySketch::setMtu(int mtu) {
    if (mtu == m_mtu)
        return;
    m_mtu = mtu;
    describe();
    update();
}

void LabTopologySketch::setClientOnServerHost(bool onServerHost) {
    if (onServerHost == m_clientOnServerHost)
        return;
    m_clientOnServerHost = onServerHost;
    describe();
    update();
}

void LabTopologySketch::setModes(std::vector<app::lab::LabMode> modes) {
    if (modes == m_modes)
        return;
    m_modes = std::move(modes);
    describe();
    updateGeometry();
    update();
}

// A drawing says nothing to a screen reader: the same in words.
void LabTopologySketch::describe() {
    QStringList lines{m_clientOnServerHost
                          ? tr("Client namespace, veth wire MTU %1, server host with the load "
                               "agent")
                                .arg(m_mtu)
                          : tr("Client namespace, veth wire MTU %1, server host").arg(m_mtu)};
    for (app::lab::LabMode mode : m_modes)
        lines << tr("%1: %2").arg(app::lab::labModeTitle(mode),
                                  pathOf(mode, m_modes, m_clientOnServerHost));
    setAccessibleName(tr("Lab topology"));
    setAccessibleDescription(lines.join(QLatin1Char('\n')));
    setToolTip(lines.join(QLatin1Char('\n')));
}

int LabTopologySketch::rowHeight() const {
    return fontMetrics().lineSpacing() * 2 + 2 * kGap;
}

int LabTopologySketch::modeTextWidth() const {
    // Every mode's, ticked or not, with the bridge port every path gets beside linux-bridge:
    // the sketch is as wide as its longest path whatever is ticked, so ticking never cuts one.
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics boldMetrics(bold);
    const std::vector<app::lab::LabMode> bridged{app::lab::LabMode::Bridge};
    // A few pixels more than measured: eliding works on the text's exact width, which the
    // rounded measure may fall short of.
    int widest = 0;
    for (app::lab::LabMode mode : app::lab::labModes()) {
        widest = std::max(widest, boldMetrics.horizontalAdvance(app::lab::labModeTitle(mode)));
        widest = std::max(widest, fontMetrics().horizontalAdvance(pathOf(mode, bridged)));
    }
    return widest + 6;
}

QRect LabTopologySketch::modeRect(int index) const {
    const int row = rowHeight();
    const int top = kMargin + row + kGap + 1 + index * (row + kGap);
    const int left = kMargin + kModeIndent;
    return {left, top, width() - kMargin - kBusRoom - left, row};
}

QSize LabTopologySketch::minimumSizeHint() const {
    const int rows = std::max<int>(1, int(m_modes.size()));
    const int modes = kMargin + kModeIndent + modeTextWidth() + 2 * kGap + kBusRoom + kMargin;
    return {std::max(2 * kHostWidth + kWireWidth + 2 * kMargin, modes),
            2 * kMargin + rowHeight() + kGap + rows * (rowHeight() + kGap)};
}

QSize LabTopologySketch::sizeHint() const {
    return minimumSizeHint();
}

void LabTopologySketch::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QPalette& colours = palette();
    const QColor ink = colours.color(QPalette::WindowText);
    const QColor faint = colours.color(QPalette::PlaceholderText);
    const QColor fill = colours.color(QPalette::Base);
    const int row = rowHeight();
    const auto box = [&](const QRect& rect, const QString& title, const QString& detail) {
        painter.setPen(ink);
        painter.setBrush(fill);
        painter.drawRoundedRect(rect, 4, 4);
        const QRect text = rect.adjusted(kGap, kGap / 2, -kGap, -kGap / 2);
        QFont bold = font();
        bold.setBold(true);
        painter.setFont(bold);
        painter.drawText(text, Qt::AlignLeft | Qt::AlignTop,
                         painter.fontMetrics().elidedText(title, Qt::ElideRight, text.width()));
        painter.setFont(font());
        painter.setPen(faint);
        painter.drawText(text, Qt::AlignLeft | Qt::AlignBottom,
                         fontMetrics().elidedText(detail, Qt::ElideRight, text.width()));
    };

    const QRect client(kMargin, kMargin, kHostWidth, row);
    const QRect server(client.right() + kWireWidth, kMargin,
                       std::max(kHostWidth, width() - kMargin - client.right() - kWireWidth), row);
    const QString clientAddress = QLatin1String(app::lab::kClientAddress);
    const QString serverAddress = QLatin1String(app::lab::kServerHostAddress);
    box(client, tr("Client namespace"),
        m_clientOnServerHost ? clientAddress : tr("load agent, %1").arg(clientAddress));
    box(server, tr("Server host"),
        m_clientOnServerHost ? tr("load agent, %1").arg(serverAddress) : serverAddress);

    // The wire: one veth pair, labelled with the MTU every packet of every mode crosses.
    const int wireY = client.center().y();
    painter.setPen(QPen(ink, 2));
    painter.drawLine(client.right() + 1, wireY, server.left() - 1, wireY);
    painter.setPen(ink);
    const QRect wireLabel(client.right() + 2, client.top(), kWireWidth - 4, row / 2);
    painter.drawText(wireLabel, Qt::AlignCenter, tr("veth wire"));
    const QRect mtuLabel(client.right() + 2, wireY + 2, kWireWidth - 4, row / 2);
    painter.drawText(mtuLabel, Qt::AlignHCenter | Qt::AlignTop, tr("MTU %1").arg(m_mtu));

    // The modes hang off the server host: each its own path from the wire to its server.
    if (m_modes.empty()) {
        painter.setPen(faint);
        painter.drawText(modeRect(0), Qt::AlignLeft | Qt::AlignVCenter,
                         tr("Tick a mode to see its path"));
        return;
    }
    const int busX = width() - kMargin - kBusRoom / 2;
    for (int i = 0; i < int(m_modes.size()); ++i) {
        const QRect rect = modeRect(i);
        painter.setPen(ink);
        painter.drawLine(busX, server.bottom() + 1, busX, rect.center().y());
        painter.drawLine(busX, rect.center().y(), rect.right() + 1, rect.center().y());
        box(rect, app::lab::labModeTitle(m_modes[size_t(i)]),
            pathOf(m_modes[size_t(i)], m_modes, m_clientOnServerHost));
    }
}

} // namespace loadscope::ui
