#pragma once

#include "ui/shell/protocol_options_form.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace loadscope::ui {

class FieldError;

// A memcached or Redis target's address and the memtier_benchmark options it
// is known by: --ratio, --key-pattern, --key-minimum/--key-maximum,
// --key-prefix, -d, --pipeline, and a preload of the key range. For Redis also
// -P (redis, resp2, resp3) and the --command list, each with its
// --command-ratio and --command-key-pattern; while there are commands the
// SET:GET ratio and key pattern say nothing and are greyed. The Redis form's
// fields have the memcached form's object names with a "redis" prefix.
class MemcacheOptionsForm : public ProtocolOptionsForm {
    Q_OBJECT

public:
    explicit MemcacheOptionsForm(app::TargetProtocol protocol = app::TargetProtocol::Memcache,
                                 QWidget* parent = nullptr);

    bool apply(app::Target& target) override;

protected:
    void loadFields(const app::Target& target) override;

private:
    QString fieldName(const char* name) const;
    void buildRedisFields(QFormLayout* form);
    void addCommandRow(const app::RedisCommand& command);
    // The commands as typed, or the first problem (its row named) in `problem`.
    std::vector<app::RedisCommand> commands(QString& problem) const;
    void updateRatioFields();

    const bool m_redis;
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
    // Redis only.
    QComboBox* m_protocol = nullptr;
    QTableWidget* m_commands = nullptr;
    QPushButton* m_addCommand = nullptr;
    QPushButton* m_removeCommand = nullptr;
    FieldError* m_commandsError = nullptr;
};

} // namespace loadscope::ui
