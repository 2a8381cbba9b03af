#pragma once

#include <QScrollArea>

namespace loadscope::ui {

// A scroll area for a form that scrolls only vertically: it is never narrower
// than its widget's minimum width (plus the vertical scroll bar), so a
// splitter or layout gives the form the width it needs instead of hiding its
// right edge behind a horizontal scroll bar. The width follows the widget as
// its layout changes (a protocol form swapped for another).
class VerticalScrollArea : public QScrollArea {
    Q_OBJECT

public:
    explicit VerticalScrollArea(QWidget* parent = nullptr);

    // Takes the widget as QScrollArea::setWidget does (resizable).
    void setForm(QWidget* form);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void followFormWidth();
};

} // namespace loadscope::ui
