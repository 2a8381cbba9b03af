#include "ui/shell/input_blocker.h"

#include <QApplication>
#include <QEvent>

namespace loadscope::ui {

namespace {

bool isUserInput(QEvent::Type type) {
    switch (type) {
    case QEvent::MouseButtonPress:
    case QEvent::MouseButtonRelease:
    case QEvent::MouseButtonDblClick:
    case QEvent::MouseMove:
    case QEvent::KeyPress:
    case QEvent::KeyRelease:
    case QEvent::ShortcutOverride:
    case QEvent::Shortcut:
    case QEvent::Wheel:
    case QEvent::InputMethod:
    case QEvent::TouchBegin:
    case QEvent::TouchUpdate:
    case QEvent::TouchEnd:
    case QEvent::TabletPress:
    case QEvent::TabletRelease:
    case QEvent::TabletMove:
    case QEvent::ContextMenu:
    case QEvent::DragEnter:
    case QEvent::DragMove:
    case QEvent::Drop:
        return true;
    default:
        return false;
    }
}

} // namespace

InputBlocker::InputBlocker(QWidget* guarded)
    : QObject(guarded)
    , m_guarded(guarded) {}

InputBlocker::~InputBlocker() {
    setBlocking(false);
}

void InputBlocker::setBlocking(bool blocking) {
    if (m_blocking == blocking || !m_guarded)
        return;
    m_blocking = blocking;
    // Only while it blocks: a filter on the application sees every event.
    if (blocking) {
        qApp->installEventFilter(this);
        m_guarded->setCursor(Qt::BusyCursor);
    } else {
        qApp->removeEventFilter(this);
        m_guarded->unsetCursor();
    }
}

bool InputBlocker::eventFilter(QObject* watched, QEvent* event) {
    if (!m_blocking || !m_guarded || !isUserInput(event->type()) || !watched->isWidgetType())
        return QObject::eventFilter(watched, event);
    auto* widget = static_cast<QWidget*>(watched);
    if (widget == m_guarded || m_guarded->isAncestorOf(widget)) {
        event->accept();
        return true;
    }
    return QObject::eventFilter(watched, event);
}

} // namespace loadscope::ui
