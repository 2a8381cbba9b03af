#include "ui/common/colour_button.h"

#include <QColorDialog>
#include <QHash>
#include <QIcon>
#include <QPainter>
#include <QPixmap>
#include <utility>

namespace loadscope::ui {

QIcon colourSwatch(const QColor& colour, int size) {
    // Lists draw one swatch per row from a handful of target colours: painting
    // each anew made opening a large session stall the window.
    static QHash<std::pair<QRgb, int>, QIcon> painted;
    const std::pair<QRgb, int> key{colour.isValid() ? colour.rgba() : 0u, size};
    if (const auto found = painted.constFind(key); found != painted.cend())
        return *found;
    QIcon icon;
    // Two scales so that the swatch stays crisp on a high-DPI screen.
    for (int scale = 1; scale <= 2; ++scale) {
        QPixmap pixmap(size * scale, size * scale);
        pixmap.setDevicePixelRatio(scale);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(QPen(QColor(0, 0, 0, 110), 1));
        painter.setBrush(colour.isValid() ? colour : QColor(Qt::transparent));
        painter.drawRoundedRect(QRectF(1.5, 1.5, size - 3, size - 3), 3, 3);
        painter.end();
        icon.addPixmap(pixmap);
    }
    painted.insert(key, icon);
    return icon;
}

ColourButton::ColourButton(QWidget* parent)
    : QToolButton(parent) {
    setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    setIconSize(QSize(18, 18));
    connect(this, &QToolButton::clicked, this, &ColourButton::chooseColour);
    updateSwatch();
}

void ColourButton::setColour(const QColor& colour) {
    if (m_colour == colour)
        return;
    m_colour = colour;
    updateSwatch();
}

void ColourButton::chooseColour() {
    if (m_dialog) {
        m_dialog->raise();
        return;
    }
    m_dialog = new QColorDialog(m_colour, this);
    m_dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_dialog->setWindowTitle(tr("Choose the Target's Colour"));
    connect(m_dialog, &QColorDialog::colorSelected, this, [this](const QColor& picked) {
        if (!picked.isValid() || picked == m_colour)
            return;
        setColour(picked);
        Q_EMIT colourChanged(m_colour);
    });
    m_dialog->open();
}

void ColourButton::updateSwatch() {
    setIcon(colourSwatch(m_colour, 18));
    setText(m_colour.isValid() ? m_colour.name() : tr("None"));
    setAccessibleName(tr("Colour %1").arg(text()));
}

} // namespace loadscope::ui
