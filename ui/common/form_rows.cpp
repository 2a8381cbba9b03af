#include "ui/common/form_rows.h"

#include "ui/common/field_error.h"

#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace loadscope::ui {

QLabel* addFormRow(QFormLayout* form, const QString& labelText, QWidget* field, FieldError* error) {
    auto* label = new QLabel(labelText);
    label->setBuddy(field);
    if (!error) {
        form->addRow(label, field);
        return label;
    }
    auto* cell = new QWidget;
    cell->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    auto* column = new QVBoxLayout(cell);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    column->addWidget(field);
    column->addWidget(error);
    form->addRow(label, cell);
    return label;
}

} // namespace loadscope::ui
