#pragma once

#include "ui/shell/protocol_options_form.h"

class QCheckBox;
class QLineEdit;
class QSpinBox;

namespace loadscope::ui {

class FieldError;

// A memcached target's address and the memtier_benchmark options it is
// known by: --ratio, --key-pattern, --key-minimum/--key-maximum,
// --key-prefix, -d, --pipeline, and a preload of the key range.
class MemcacheOptionsForm : public ProtocolOptionsForm {
    Q_OBJECT

public:
    explicit MemcacheOptionsForm(QWidget* parent = nullptr);

    bool apply(app::Target& target) override;

protected:
    void loadFields(const app::Target& target) override;

private:
    QLineEdit* m_address = nullptr;
    FieldError* m_addressError = nullptr;
    QSpinBox* m_setRatio = nullptr;
    QSpinBox* m_getRatio = nullptr;
    FieldError* m_ratioError = nullptr;
    QLineEdit* m_keyPattern = nullptr;
    FieldError* m_keyPatternError = nullptr;
    QLineEdit* m_keyMinimum = nullptr;
    QLineEdit* m_keyMaximum = nullptr;
    FieldError* m_keyRangeError = nullptr;
    QLineEdit* m_keyPrefix = nullptr;
    FieldError* m_keyPrefixError = nullptr;
    QSpinBox* m_valueSize = nullptr;
    QSpinBox* m_pipeline = nullptr;
    QCheckBox* m_preload = nullptr;
};

} // namespace loadscope::ui
