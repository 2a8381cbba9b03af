#include "ui/compare/compare_page.h"

#include "app/session/session_document.h"

#include <QLabel>
#include <QVBoxLayout>

namespace loadscope::ui {

struct ComparePage::Private {};

ComparePage::ComparePage(app::SessionDocument* document, QWidget* parent)
    : QWidget(parent) {
    Q_UNUSED(document);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Compare")));
}

ComparePage::~ComparePage() = default;

bool ComparePage::exportReportPdf(const QString& path, QString* error) {
    if (error)
        *error = tr("%1: the report is not available yet").arg(path);
    return false;
}

} // namespace loadscope::ui
