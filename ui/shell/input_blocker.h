#pragma once

#include <QObject>
#include <QPointer>
#include <QWidget>

namespace loadscope::ui {

// Refuses the user's input (mouse, keys, wheel, touch, drops) to a widget and
// everything in it, and shows the busy cursor over it, while it blocks.
// Unlike setEnabled(false) nothing changes how the widgets look: disabling
// the window's pages while a session opens repainted every chart twice, tens
// of milliseconds of the GUI thread each time for a large session.
class InputBlocker : public QObject {
    Q_OBJECT

public:
    explicit InputBlocker(QWidget* guarded);
    ~InputBlocker() override;

    void setBlocking(bool blocking);
    bool isBlocking() const { return m_blocking; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QPointer<QWidget> m_guarded;
    bool m_blocking = false;
};

} // namespace loadscope::ui
