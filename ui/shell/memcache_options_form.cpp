#include "ui/shell/memcache_options_form.h"

#include "ui/common/field_error.h"
#include "ui/common/form_rows.h"
#include "ui/common/metric_tooltip.h"
#include "ui/shell/target_field_checks.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
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

MemcacheOptionsForm::MemcacheOptionsForm(QWidget* parent)
    : ProtocolOptionsForm(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);

    m_address = new QLineEdit;
    m_address->setObjectName(QStringLiteral("memcacheAddressEdit"));
    m_address->setPlaceholderText(QStringLiteral("127.0.0.1:11211"));
    m_address->setToolTip(wrappedToolTip(tr("HOST:PORT of the memcached server.")));
    m_addressError = new FieldError;
    addFormRow(form, tr("A&ddress:"), m_address, m_addressError);

    m_setRatio = new QSpinBox;
    m_setRatio->setObjectName(QStringLiteral("setRatioSpin"));
    m_setRatio->setRange(0, 1000);
    m_setRatio->setAccessibleName(tr("SET share"));
    m_getRatio = new QSpinBox;
    m_getRatio->setObjectName(QStringLiteral("getRatioSpin"));
    m_getRatio->setRange(0, 1000);
    m_getRatio->setAccessibleName(tr("GET share"));
    auto* ratio = pair(m_setRatio, QStringLiteral(":"), m_getRatio);
    ratio->setToolTip(wrappedToolTip(tr("SET:GET, as memtier_benchmark --ratio: 1:10 sends one "
                                        "SET for every ten GETs.")));
    m_ratioError = new FieldError;
    addFormRow(form, tr("SET:GET ra&tio:"), ratio, m_ratioError)->setBuddy(m_setRatio);

    m_keyPattern = new QLineEdit;
    m_keyPattern->setObjectName(QStringLiteral("keyPatternEdit"));
    m_keyPattern->setToolTip(wrappedToolTip(
        tr("SET:GET key patterns as memtier_benchmark --key-pattern: R random, S sequential, "
           "G Gaussian.")));
    m_keyPatternError = new FieldError;
    addFormRow(form, tr("Key &pattern:"), m_keyPattern, m_keyPatternError);

    m_keyMinimum = new QLineEdit;
    m_keyMinimum->setObjectName(QStringLiteral("keyMinimumEdit"));
    m_keyMinimum->setAccessibleName(tr("Lowest key number"));
    m_keyMaximum = new QLineEdit;
    m_keyMaximum->setObjectName(QStringLiteral("keyMaximumEdit"));
    m_keyMaximum->setAccessibleName(tr("Highest key number"));
    m_keyRangeError = new FieldError;
    auto* range = pair(m_keyMinimum, QStringLiteral("–"), m_keyMaximum);
    range->setToolTip(wrappedToolTip(tr("Key numbers used, both ends included "
                                        "(--key-minimum, --key-maximum).")));
    addFormRow(form, tr("Key ran&ge:"), range, m_keyRangeError)->setBuddy(m_keyMinimum);

    m_keyPrefix = new QLineEdit;
    m_keyPrefix->setObjectName(QStringLiteral("keyPrefixEdit"));
    m_keyPrefix->setToolTip(wrappedToolTip(tr("Text before each key number (--key-prefix).")));
    m_keyPrefixError = new FieldError;
    addFormRow(form, tr("Key prefi&x:"), m_keyPrefix, m_keyPrefixError);

    m_valueSize = new QSpinBox;
    m_valueSize->setObjectName(QStringLiteral("valueSizeSpin"));
    m_valueSize->setRange(0, 1 << 30);
    m_valueSize->setSuffix(tr(" B"));
    m_valueSize->setToolTip(wrappedToolTip(tr("Bytes of each value SET stores (memtier -d).")));
    addFormRow(form, tr("Val&ue size:"), m_valueSize);

    m_pipeline = new QSpinBox;
    m_pipeline->setObjectName(QStringLiteral("memcachePipelineSpin"));
    m_pipeline->setRange(1, 1000);
    m_pipeline->setToolTip(wrappedToolTip(tr("Commands outstanding per connection "
                                             "(memtier --pipeline).")));
    addFormRow(form, tr("Pipe&line:"), m_pipeline);

    m_preload = new QCheckBox(tr("Preload every &key of the range before measuring"));
    m_preload->setObjectName(QStringLiteral("preloadCheck"));
    m_preload->setToolTip(wrappedToolTip(tr("SET each key once, unmeasured, before the "
                                            "target's first point, so GETs hit.")));
    form->addRow(QString(), m_preload);
    addResponseTimeoutRow(form, QStringLiteral("memcacheTimeoutSpin"));

    for (QLineEdit* edit : {m_address, m_keyPattern, m_keyMinimum, m_keyMaximum, m_keyPrefix})
        connect(edit, &QLineEdit::textEdited, this, &MemcacheOptionsForm::notifyEdited);
    for (QSpinBox* spin : {m_setRatio, m_getRatio, m_valueSize, m_pipeline})
        connect(spin, &QSpinBox::valueChanged, this, &MemcacheOptionsForm::notifyEdited);
    connect(m_preload, &QCheckBox::toggled, this, &MemcacheOptionsForm::notifyEdited);
}

void MemcacheOptionsForm::loadFields(const app::Target& target) {
    const app::MemcacheOptions& mc = target.memcache;
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
}

bool MemcacheOptionsForm::apply(app::Target& target) {
    m_addressError->setMessage(addressProblem(m_address->text(), true));
    const bool ratioOk = m_setRatio->value() + m_getRatio->value() > 0;
    m_ratioError->setMessage(ratioOk ? QString() : tr("SET:GET 0:0 would send nothing"));
    m_keyPatternError->setMessage(keyPatternProblem(m_keyPattern->text()));

    QString rangeProblem = unsignedNumberProblem(m_keyMinimum->text());
    if (rangeProblem.isEmpty())
        rangeProblem = unsignedNumberProblem(m_keyMaximum->text());
    const quint64 minimum = m_keyMinimum->text().trimmed().toULongLong();
    const quint64 maximum = m_keyMaximum->text().trimmed().toULongLong();
    if (rangeProblem.isEmpty() && minimum > maximum)
        rangeProblem = tr("The lowest key is above the highest");
    m_keyRangeError->setMessage(rangeProblem);

    const QString prefix = m_keyPrefix->text();
    const bool prefixOk = std::none_of(prefix.begin(), prefix.end(), [](QChar c) {
        return c.unicode() <= 0x20 || c.unicode() == 0x7f;
    });
    m_keyPrefixError->setMessage(prefixOk ? QString() : tr("memcached keys may not hold spaces"));

    if (m_addressError->hasMessage() || !ratioOk || m_keyPatternError->hasMessage() ||
        !rangeProblem.isEmpty() || !prefixOk)
        return false;

    target.address = m_address->text().trimmed();
    app::MemcacheOptions& mc = target.memcache;
    mc.setRatio = m_setRatio->value();
    mc.getRatio = m_getRatio->value();
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
