#pragma once

#include <QString>

class QFormLayout;
class QLabel;
class QWidget;

namespace loadscope::ui {

class FieldError;

// Adds "label: field" to `form` with the label as the field's buddy (so its
// mnemonic focuses the field) and, when given, `error` right under the field,
// taking no room while hidden. Returns the label.
QLabel* addFormRow(QFormLayout* form, const QString& labelText, QWidget* field,
                   FieldError* error = nullptr);

} // namespace loadscope::ui
