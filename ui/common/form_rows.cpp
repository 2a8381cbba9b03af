#include "ui/common/form_rows.h"

#include "ui/common/field_error.h"

#include <QAbstractButton>
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
    // The label without its mnemonic and colon names the field in a refusal.
    QString name = labelText;
    if (const auto* button = qobject_cast<QAbstractButton*>(field); button && name.isEmpty())
        name = button->text(); // a check box is its own label
    name.remove(QLatin1Char('&'));
    if (name.endsWith(QLatin1Char(':')))
        name.chop(1);
    error->setField(field, name.trimmed());
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
