#include "ui/run/run_page.h"

#include "app/session/session_document.h"
#include "app/sweep/sweep_runner.h"

#include <QLabel>
#include <QVBoxLayout>

namespace loadscope::ui {

struct RunPage::Private {};

RunPage::RunPage(app::SessionDocument* document, app::SweepRunner* runner, QWidget* parent)
    : QWidget(parent) {
    Q_UNUSED(document);
    Q_UNUSED(runner);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Run")));
}

RunPage::~RunPage() = default;

} // namespace loadscope::ui
