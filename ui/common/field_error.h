#pragma once

#include <QLabel>
#include <QPointer>
#include <optional>

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

    // The field the message is about and its name as its form labels it ("URL"), so that
    // whatever refuses to go on while the message shows can name the field and take the
    // user to it. addFormRow() sets both.
    void setField(QWidget* field, const QString& name);
    QWidget* field() const { return m_field; }
    QString fieldName() const { return m_fieldName; }
    // An advisory message (a warning beside a usable value) is shown alike but
    // blocks nothing: firstFieldInError() passes it by.
    void setAdvisory(bool advisory) { m_advisory = advisory; }
    bool isAdvisory() const { return m_advisory; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void applyColour();

    QPointer<QWidget> m_field;
    QString m_fieldName;
    bool m_advisory = false;
};

// A field whose text cannot be used, as its form shows it.
struct FieldInError {
    QPointer<QWidget> field; // what to focus; may be a group of fields
    QString name;            // "URL"
    QString message;         // "unsupported scheme 'htp'"
};

// The first FieldError of `form` (in the order they were made) that shows a message and is
// not on a hidden page of the form (another protocol's options); nullopt when none does.
std::optional<FieldInError> firstFieldInError(const QWidget* form);

// Shows `field` to the user and puts the cursor in it: the pages, tabs and scroll areas
// around it come forward, and a group of fields focuses its first one that takes focus.
void focusField(QWidget* field);

} // namespace loadscope::ui
