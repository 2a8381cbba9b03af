#include "ui/common/vertical_scroll_area.h"

#include <QEvent>
#include <QScrollBar>

namespace loadscope::ui {

VerticalScrollArea::VerticalScrollArea(QWidget* parent)
    : QScrollArea(parent) {
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

void VerticalScrollArea::setForm(QWidget* form) {
    setWidget(form);
    form->installEventFilter(this);
    followFormWidth();
}

bool VerticalScrollArea::eventFilter(QObject* watched, QEvent* event) {
    // LayoutRequest: the form's layout was invalidated (rows shown, hidden or
    // replaced), so its minimum width may have changed.
    if (watched == widget() && event->type() == QEvent::LayoutRequest)
        followFormWidth();
    return QScrollArea::eventFilter(watched, event);
}

void VerticalScrollArea::followFormWidth() {
    if (!widget())
        return;
    // The scroll bar's room is kept whether or not it shows, so the form
    // does not jump when a taller protocol form brings it in.
    const int width = widget()->minimumSizeHint().width() +
                      verticalScrollBar()->sizeHint().width() + frameWidth() * 2;
    setMinimumWidth(width);
}

} // namespace loadscope::ui
