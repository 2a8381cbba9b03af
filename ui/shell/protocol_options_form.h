#pragma once

#include "app/session/target.h"
#include "ui/common/form_rows.h"
#include "ui/common/metric_tooltip.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QWidget>

namespace loadscope::ui {

// The editor's page for one protocol's options. load() fills the fields from
// a target; apply() checks every field, shows what is wrong next to it, and
// writes the fields into a target only when all of them are usable.
class ProtocolOptionsForm : public QWidget {
    Q_OBJECT

public:
    using QWidget::QWidget;

    void load(const app::Target& target) {
        m_loading = true;
        loadFields(target);
        if (m_responseTimeout)
            m_responseTimeout->setValue(target.responseTimeoutSeconds);
        m_loading = false;
    }
    // false: some field is invalid (its message is shown) and `target` is unchanged.
    virtual bool apply(app::Target& target) = 0;

Q_SIGNALS:
    // The user changed a field.
    void edited();

protected:
    virtual void loadFields(const app::Target& target) = 0;
    // Connected to every field's change signal; silent while loading.
    void notifyEdited() {
        if (!m_loading)
            Q_EMIT edited();
    }
    bool isLoading() const { return m_loading; }

    // The response timeout (ab -s, memtier's and netperf's --timeout) as a row
    // of `form`, for the protocols that wait for replies; load() fills it and
    // applyResponseTimeout() writes it back.
    // UDP's words for it: `label` and `toolTip`.
    void addResponseTimeoutRow(QFormLayout* form, const QString& objectName,
                               const QString& label = {}, const QString& toolTip = {}) {
        m_responseTimeout = new QDoubleSpinBox;
        m_responseTimeout->setObjectName(objectName);
        m_responseTimeout->setRange(0.001, 3600);
        m_responseTimeout->setDecimals(3);
        m_responseTimeout->setSuffix(tr(" s"));
        m_responseTimeout->setMinimumWidth(100);
        m_responseTimeout->setToolTip(wrappedToolTip(
            toolTip.isEmpty() ? tr("How long to wait for each reply before counting a timeout.")
                              : toolTip));
        addFormRow(form, label.isEmpty() ? tr("Reply &timeout:") : label, m_responseTimeout);
        connect(m_responseTimeout, &QDoubleSpinBox::valueChanged, this,
                &ProtocolOptionsForm::notifyEdited);
    }
    void applyResponseTimeout(app::Target& target) const {
        if (m_responseTimeout)
            target.responseTimeoutSeconds = m_responseTimeout->value();
    }

private:
    bool m_loading = false;
    QDoubleSpinBox* m_responseTimeout = nullptr;
};

} // namespace loadscope::ui
