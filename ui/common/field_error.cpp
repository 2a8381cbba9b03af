#include "ui/common/field_error.h"

#include <QAbstractScrollArea>
#include <QEvent>
#include <QLineEdit>
#include <QPalette>
#include <QScrollArea>
#include <QStackedWidget>
#include <QTabWidget>

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

void FieldError::setField(QWidget* field, const QString& name) {
    m_field = field;
    m_fieldName = name;
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

std::optional<FieldInError> firstFieldInError(const QWidget* form) {
    if (!form)
        return std::nullopt;
    for (const FieldError* error : form->findChildren<FieldError*>()) {
        if (error->hasMessage() && !error->isAdvisory() && error->isVisibleTo(form))
            return FieldInError{error->field(), error->fieldName(), error->message()};
    }
    return std::nullopt;
}

void focusField(QWidget* field) {
    if (!field)
        return;
    // Outward first: each stack and tab shows the page that holds the field.
    for (QWidget* child = field; child && child->parentWidget(); child = child->parentWidget()) {
        QWidget* parent = child->parentWidget();
        if (auto* stack = qobject_cast<QStackedWidget*>(parent)) {
            stack->setCurrentWidget(child);
        } else if (auto* tabs = qobject_cast<QTabWidget*>(parent->parentWidget())) {
            // A tab's page is a child of the tab widget's own stack.
            if (const int index = tabs->indexOf(child); index >= 0)
                tabs->setCurrentIndex(index);
        }
    }
    QWidget* target = field;
    if (target->focusPolicy() == Qt::NoFocus) {
        for (QWidget* child : field->findChildren<QWidget*>()) {
            if (child->focusPolicy() != Qt::NoFocus && child->isEnabled() &&
                child->isVisibleTo(field)) {
                target = child;
                break;
            }
        }
    }
    for (QWidget* parent = target->parentWidget(); parent; parent = parent->parentWidget()) {
        if (auto* scroll = qobject_cast<QScrollArea*>(parent)) {
            scroll->ensureWidgetVisible(target);
            break;
        }
    }
    target->setFocus(Qt::OtherFocusReason);
    if (auto* edit = qobject_cast<QLineEdit*>(target))
        edit->selectAll();
}

} // namespace loadscope::ui
