#pragma once

#include "app/lab/lab_mode.h"

#include <QWidget>
#include <vector>

namespace loadscope::ui {

// A drawing of the lab a set of lab targets runs in: the client namespace, the veth wire with
// its MTU, the server host, and one box per mode with the path from the wire to its server (or
// from the server host, where the load's client runs there).
class LabTopologySketch : public QWidget {
    Q_OBJECT

public:
    explicit LabTopologySketch(QWidget* parent = nullptr);

    void setMtu(int mtu);
    void setModes(std::vector<app::lab::LabMode> modes);
    // The load's client on the server host (app::LabClientPlacement::ServerHost): each path
    // starts there, and a mode that cannot have such a client says why.
    void setClientOnServerHost(bool onServerHost);
    bool clientOnServerHost() const { return m_clientOnServerHost; }
    int mtu() const { return m_mtu; }
    const std::vector<app::lab::LabMode>& modes() const { return m_modes; }

    QSize sizeHint() const override;
    // As wide as the longest title or path of any mode, ticked or not: ticking a mode never
    // widens the sketch, nor cuts a path.
    QSize minimumSizeHint() const override;
    // The box of the index-th mode shown.
    QRect modeRect(int index) const;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    int rowHeight() const;
    int modeTextWidth() const;
    void describe();

    int m_mtu = 1500;
    bool m_clientOnServerHost = false;
    std::vector<app::lab::LabMode> m_modes;
};

} // namespace loadscope::ui
