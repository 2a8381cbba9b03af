#include "ui/common/field_error.h"

#include <QEvent>
#include <QPalette>

namespace loadscope::ui {

FieldError::FieldError(QWidget* parent)
    : QLabel(parent) {
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    setVisible(false);
    applyColour();
}

void FieldError::setMessage(const QString& message) {
    if (message == text())
        return;
    setText(message);
    setVisible(!message.isEmpty());
}

void FieldError::changeEvent(QEvent* event) {
    QLabel::changeEvent(event);
    // A dark theme needs a lighter red to stay readable.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        applyColour();
}

void FieldError::applyColour() {
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    const QColor red = dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xc0, 0x1c, 0x28);
    QPalette p = palette();
    if (p.color(QPalette::WindowText) == red)
        return;
    p.setColor(QPalette::WindowText, red);
    setPalette(p);
}

} // namespace loadscope::ui
