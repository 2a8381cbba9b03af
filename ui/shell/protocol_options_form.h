#pragma once

#include "app/session/target.h"

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

private:
    bool m_loading = false;
};

} // namespace loadscope::ui
