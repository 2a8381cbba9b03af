#include "ui/shell/memcache_options_form.h"

#include "app/session/target_rules.h"
#include "ui/common/field_error.h"
#include "ui/common/form_rows.h"
#include "ui/common/metric_tooltip.h"
#include "ui/shell/target_field_checks.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <algorithm>

namespace loadscope::ui {

namespace {

// Two fields side by side with a separator, e.g. "1 : 10" or "0 – 1000".
QWidget* pair(QWidget* left, const QString& separator, QWidget* right) {
    auto* row = new QWidget;
    row->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(left, 1);
    layout->addWidget(new QLabel(separator));
    layout->addWidget(right, 1);
    return row;
}

} // namespace

// The command table's columns.
constexpr int kCommandColumn = 0;
constexpr int kRatioColumn = 1;
constexpr int kKeyPatternColumn = 2;

MemcacheOptionsForm::MemcacheOptionsForm(app::TargetProtocol protocol, QWidget* parent)
    : ProtocolOptionsForm(parent)
    , m_redis(protocol == app::TargetProtocol::Redis) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);

    m_address = new QLineEdit;
    m_address->setObjectName(fieldName("memcacheAddressEdit"));
    m_address->setPlaceholderText(m_redis ? QStringLiteral("127.0.0.1:6379")
                                          : QStringLiteral("127.0.0.1:11211"));
    m_address->setToolTip(wrappedToolTip(m_redis ? tr("HOST:PORT of the Redis server.")
                                                 : tr("HOST:PORT of the memcached server.")));
    m_addressError = new FieldError;
    addFormRow(form, tr("A&ddress:"), m_address, m_addressError);

    m_setRatio = new QSpinBox;
    m_setRatio->setObjectName(fieldName("setRatioSpin"));
    m_setRatio->setRange(0, 1000);
    m_setRatio->setAccessibleName(tr("SET share"));
    m_getRatio = new QSpinBox;
    m_getRatio->setObjectName(fieldName("getRatioSpin"));
    m_getRatio->setRange(0, 1000);
    m_getRatio->setAccessibleName(tr("GET share"));
    auto* ratio = pair(m_setRatio, QStringLiteral(":"), m_getRatio);
    ratio->setToolTip(wrappedToolTip(tr("SET:GET, as memtier_benchmark --ratio: 1:10 sends one "
                                        "SET for every ten GETs.")));
    m_ratioError = new FieldError;
    addFormRow(form, tr("SET:GET ra&tio:"), ratio, m_ratioError)->setBuddy(m_setRatio);

    m_keyPattern = new QLineEdit;
    m_keyPattern->setObjectName(fieldName("keyPatternEdit"));
    m_keyPattern->setToolTip(wrappedToolTip(
        tr("SET:GET key patterns as memtier_benchmark --key-pattern: R random, S sequential, "
           "G Gaussian.")));
    m_keyPatternError = new FieldError;
    addFormRow(form, tr("Key &pattern:"), m_keyPattern, m_keyPatternError);

    m_keyMinimum = new QLineEdit;
    m_keyMinimum->setObjectName(fieldName("keyMinimumEdit"));
    m_keyMinimum->setAccessibleName(tr("Lowest key number"));
    m_keyMaximum = new QLineEdit;
    m_keyMaximum->setObjectName(fieldName("keyMaximumEdit"));
    m_keyMaximum->setAccessibleName(tr("Highest key number"));
    m_keyRangeError = new FieldError;
    auto* range = pair(m_keyMinimum, QStringLiteral("–"), m_keyMaximum);
    range->setToolTip(wrappedToolTip(tr("Key numbers used, both ends included "
                                        "(--key-minimum, --key-maximum).")));
    addFormRow(form, tr("Key ran&ge:"), range, m_keyRangeError)->setBuddy(m_keyMinimum);

    m_keyPrefix = new QLineEdit;
    m_keyPrefix->setObjectName(fieldName("keyPrefixEdit"));
    m_keyPrefix->setToolTip(wrappedToolTip(tr("Text before each key number (--key-prefix).")));
    m_keyPrefixError = new FieldError;
    addFormRow(form, tr("Key prefi&x:"), m_keyPrefix, m_keyPrefixError);

    m_valueSize = new QSpinBox;
    m_valueSize->setObjectName(fieldName("valueSizeSpin"));
    m_valueSize->setRange(0, 1 << 30);
    m_valueSize->setSuffix(tr(" B"));
    m_valueSize->setToolTip(wrappedToolTip(tr("Bytes of each value SET stores (memtier -d).")));
    addFormRow(form, tr("Val&ue size:"), m_valueSize);

    m_pipeline = new QSpinBox;
    m_pipeline->setObjectName(fieldName("memcachePipelineSpin"));
    m_pipeline->setRange(1, 1000);
    m_pipeline->setToolTip(wrappedToolTip(tr("Commands outstanding per connection "
                                             "(memtier --pipeline).")));
    addFormRow(form, tr("Pipe&line:"), m_pipeline);

    m_preload = new QCheckBox(tr("Preload every &key of the range before measuring"));
    m_preload->setObjectName(fieldName("preloadCheck"));
    m_preload->setToolTip(wrappedToolTip(tr("SET each key once, unmeasured, before the "
                                            "target's first point, so GETs hit.")));
    form->addRow(QString(), m_preload);
    if (m_redis)
        buildRedisFields(form);
    addResponseTimeoutRow(form, fieldName("memcacheTimeoutSpin"));

    for (QLineEdit* edit : {m_address, m_keyPattern, m_keyMinimum, m_keyMaximum, m_keyPrefix})
        connect(edit, &QLineEdit::textEdited, this, &MemcacheOptionsForm::notifyEdited);
    for (QSpinBox* spin : {m_setRatio, m_getRatio, m_valueSize, m_pipeline})
        connect(spin, &QSpinBox::valueChanged, this, &MemcacheOptionsForm::notifyEdited);
    connect(m_preload, &QCheckBox::toggled, this, &MemcacheOptionsForm::notifyEdited);
}

QString MemcacheOptionsForm::fieldName(const char* name) const {
    const QString plain = QLatin1String(name);
    if (!m_redis)
        return plain;
    return QStringLiteral("redis") + plain.left(1).toUpper() + plain.mid(1);
}

void MemcacheOptionsForm::buildRedisFields(QFormLayout* form) {
    m_protocol = new QComboBox;
    m_protocol->setObjectName(QStringLiteral("redisProtocolCombo"));
    m_protocol->addItem(tr("redis: RESP2, no handshake"), QStringLiteral("redis"));
    m_protocol->addItem(tr("resp2: HELLO 2 opens each connection"), QStringLiteral("resp2"));
    m_protocol->addItem(tr("resp3: HELLO 3 opens each connection"), QStringLiteral("resp3"));
    m_protocol->setToolTip(wrappedToolTip(
        tr("memtier_benchmark -P. A Redis before 6 knows no HELLO: it speaks only redis.")));
    addFormRow(form, tr("RESP &version:"), m_protocol);

    m_commands = new QTableWidget(0, 3);
    m_commands->setObjectName(QStringLiteral("redisCommandsTable"));
    m_commands->setHorizontalHeaderLabels({tr("Command"), tr("Ratio"), tr("Keys")});
    m_commands->horizontalHeader()->setSectionResizeMode(kCommandColumn, QHeaderView::Stretch);
    m_commands->horizontalHeader()->setSectionResizeMode(kRatioColumn,
                                                         QHeaderView::ResizeToContents);
    m_commands->horizontalHeader()->setSectionResizeMode(kKeyPatternColumn,
                                                         QHeaderView::ResizeToContents);
    m_commands->verticalHeader()->setVisible(false);
    m_commands->setMinimumHeight(90);
    m_commands->setMaximumHeight(160);
    m_commands->setAccessibleName(tr("Commands"));
    m_commands->setToolTip(wrappedToolTip(
        tr("memtier_benchmark --command: each command is sent Ratio times in a row, then the "
           "next. __key__ is a key of the range (by the row's key pattern: R random, S "
           "sequential, G Gaussian), __data__ a value of the value size. Words are quoted as "
           "in redis-cli. With commands, SET and GET are not sent.")));
    m_addCommand = new QPushButton(tr("Add Co&mmand"));
    m_addCommand->setObjectName(QStringLiteral("redisAddCommandButton"));
    m_removeCommand = new QPushButton(tr("Remove"));
    m_removeCommand->setObjectName(QStringLiteral("redisRemoveCommandButton"));
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_commands);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_addCommand);
    buttons->addWidget(m_removeCommand);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    m_commandsError = new FieldError;
    m_commandsError->setObjectName(QStringLiteral("redisCommandsError"));
    addFormRow(form, tr("Comma&nds:"), box, m_commandsError)->setBuddy(m_commands);

    connect(m_protocol, &QComboBox::currentIndexChanged, this, &MemcacheOptionsForm::notifyEdited);
    connect(m_commands, &QTableWidget::itemChanged, this, [this] {
        updateRatioFields();
        notifyEdited();
    });
    connect(m_addCommand, &QPushButton::clicked, this, [this] {
        addCommandRow(
            app::RedisCommand{QStringLiteral("SET __key__ __data__"), 1, QStringLiteral("R")});
        m_commands->setCurrentCell(m_commands->rowCount() - 1, kCommandColumn);
        m_commands->editItem(m_commands->currentItem());
        updateRatioFields();
        notifyEdited();
    });
    connect(m_removeCommand, &QPushButton::clicked, this, [this] {
        const int row = m_commands->currentRow();
        if (row < 0)
            return;
        m_commands->removeRow(row);
        updateRatioFields();
        notifyEdited();
    });
}

void MemcacheOptionsForm::addCommandRow(const app::RedisCommand& command) {
    const QSignalBlocker quiet(m_commands);
    const int row = m_commands->rowCount();
    m_commands->insertRow(row);
    m_commands->setItem(row, kCommandColumn, new QTableWidgetItem(command.command));
    m_commands->setItem(row, kRatioColumn, new QTableWidgetItem(QString::number(command.ratio)));
    m_commands->setItem(row, kKeyPatternColumn, new QTableWidgetItem(command.keyPattern));
}

std::vector<app::RedisCommand> MemcacheOptionsForm::commands(QString& problem) const {
    std::vector<app::RedisCommand> commands;
    for (int row = 0; row < m_commands->rowCount(); ++row) {
        const auto text = [&](int column) {
            const QTableWidgetItem* item = m_commands->item(row, column);
            return item ? item->text() : QString();
        };
        app::RedisCommand command;
        command.command = text(kCommandColumn);
        bool number = false;
        command.ratio = text(kRatioColumn).trimmed().toInt(&number);
        command.keyPattern = text(kKeyPatternColumn).trimmed().toUpper();
        if (!number && problem.isEmpty())
            problem = tr("Row %1: the ratio '%2' is not a whole number")
                          .arg(row + 1)
                          .arg(text(kRatioColumn));
        if (auto checked = app::checkRedisCommand(command); !checked && problem.isEmpty())
            problem = tr("Row %1: %2").arg(row + 1).arg(checked.error().message);
        commands.push_back(command);
    }
    return commands;
}

void MemcacheOptionsForm::updateRatioFields() {
    const bool mix = !m_commands || m_commands->rowCount() == 0;
    for (QWidget* field : {static_cast<QWidget*>(m_setRatio), static_cast<QWidget*>(m_getRatio),
                           static_cast<QWidget*>(m_keyPattern)})
        field->setEnabled(mix);
    if (m_removeCommand)
        m_removeCommand->setEnabled(!mix);
}

void MemcacheOptionsForm::loadFields(const app::Target& target) {
    const app::MemcacheOptions& mc = m_redis ? target.redis.workload : target.memcache;
    m_address->setText(target.address);
    m_setRatio->setValue(mc.setRatio);
    m_getRatio->setValue(mc.getRatio);
    m_keyPattern->setText(mc.keyPattern);
    m_keyMinimum->setText(QString::number(mc.keyMinimum));
    m_keyMaximum->setText(QString::number(mc.keyMaximum));
    m_keyPrefix->setText(mc.keyPrefix);
    m_valueSize->setValue(mc.valueSize);
    m_pipeline->setValue(mc.pipeline);
    m_preload->setChecked(mc.preload);
    if (m_redis) {
        m_protocol->setCurrentIndex(std::max(0, m_protocol->findData(target.redis.protocol)));
        m_commands->setRowCount(0);
        for (const app::RedisCommand& command : target.redis.commands)
            addCommandRow(command);
        m_commandsError->setMessage({});
    }
    updateRatioFields();
}

bool MemcacheOptionsForm::apply(app::Target& target) {
    m_addressError->setMessage(addressProblem(m_address->text(), true));
    QString commandsProblem;
    std::vector<app::RedisCommand> redisCommands;
    if (m_redis) {
        redisCommands = commands(commandsProblem);
        m_commandsError->setMessage(commandsProblem);
    }
    // With commands, the ratio and the key pattern are not used, and not in the way.
    const bool mix = redisCommands.empty();
    const bool ratioOk = !mix || m_setRatio->value() + m_getRatio->value() > 0;
    m_ratioError->setMessage(ratioOk ? QString() : tr("SET:GET 0:0 would send nothing"));
    m_keyPatternError->setMessage(mix ? keyPatternProblem(m_keyPattern->text()) : QString());

    QString rangeProblem = unsignedNumberProblem(m_keyMinimum->text());
    if (rangeProblem.isEmpty())
        rangeProblem = unsignedNumberProblem(m_keyMaximum->text());
    const quint64 minimum = m_keyMinimum->text().trimmed().toULongLong();
    const quint64 maximum = m_keyMaximum->text().trimmed().toULongLong();
    if (rangeProblem.isEmpty() && minimum > maximum)
        rangeProblem = tr("The lowest key is above the highest");
    m_keyRangeError->setMessage(rangeProblem);

    // Redis keys are binary-safe; memcached's hold no blank or control character.
    const QString prefix = m_keyPrefix->text();
    const bool prefixOk = m_redis || std::none_of(prefix.begin(), prefix.end(), [](QChar c) {
                              return c.unicode() <= 0x20 || c.unicode() == 0x7f;
                          });
    m_keyPrefixError->setMessage(prefixOk ? QString() : tr("memcached keys may not hold spaces"));

    if (m_addressError->hasMessage() || !ratioOk || m_keyPatternError->hasMessage() ||
        !rangeProblem.isEmpty() || !prefixOk || !commandsProblem.isEmpty())
        return false;

    target.address = m_address->text().trimmed();
    if (m_redis) {
        target.redis.protocol = m_protocol->currentData().toString();
        target.redis.commands = redisCommands;
    }
    app::MemcacheOptions& mc = m_redis ? target.redis.workload : target.memcache;
    mc.setRatio = m_setRatio->value();
    mc.getRatio = m_getRatio->value();
    // Greyed beside commands, a pattern that is no pattern keeps the last usable one.
    if (keyPatternProblem(m_keyPattern->text()).isEmpty())
        mc.keyPattern = m_keyPattern->text().trimmed().toUpper();
    mc.keyMinimum = minimum;
    mc.keyMaximum = maximum;
    mc.keyPrefix = prefix;
    mc.valueSize = m_valueSize->value();
    mc.pipeline = m_pipeline->value();
    mc.preload = m_preload->isChecked();
    applyResponseTimeout(target);
    return true;
}

} // namespace loadscope::ui
