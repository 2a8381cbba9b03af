#pragma once

#include <QLabel>

namespace loadscope::ui {

// The one-line complaint shown right under a field while what it holds
// cannot be used ("port must be 1 to 65535"). Hidden while there is nothing
// to say, so a valid form takes no extra room.
class FieldError : public QLabel {
    Q_OBJECT

public:
    explicit FieldError(QWidget* parent = nullptr);

    // Shows `message`, or hides the label when it is empty.
    void setMessage(const QString& message);
    QString message() const { return text(); }
    bool hasMessage() const { return !text().isEmpty(); }

protected:
    void changeEvent(QEvent* event) override;

private:
    void applyColour();
};

} // namespace loadscope::ui
