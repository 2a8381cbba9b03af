#pragma once

#include <QColor>
#include <QPointer>
#include <QToolButton>

class QColorDialog;

namespace loadscope::ui {

// A button showing a colour swatch; clicking it opens a colour dialog
// (window-modal, without a nested event loop) and colourChanged() reports the
// pick.
class ColourButton : public QToolButton {
    Q_OBJECT

public:
    explicit ColourButton(QWidget* parent = nullptr);

    QColor colour() const { return m_colour; }
    // Does not emit colourChanged(): that signal means the user picked one.
    void setColour(const QColor& colour);

Q_SIGNALS:
    void colourChanged(const QColor& colour);

private:
    void chooseColour();
    void updateSwatch();

    QColor m_colour;
    QPointer<QColorDialog> m_dialog;
};

// A small square of `colour` with a thin outline, for buttons and table cells.
QIcon colourSwatch(const QColor& colour, int size = 16);

} // namespace loadscope::ui
