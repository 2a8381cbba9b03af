#include "ui/common/metric_tooltip.h"

namespace loadscope::ui {

QString metricToolTip(app::Metric metric, app::TargetProtocol protocol) {
    const app::MetricInfo& info = app::metricInfo(metric);
    return QStringLiteral("<p><b>%1</b> (%2)</p><p>%3</p>")
        .arg(app::metricLabel(metric, protocol).toHtmlEscaped(),
             app::metricUnit(metric, protocol).toHtmlEscaped(), info.definition.toHtmlEscaped());
}

QString wrappedToolTip(const QString& text) {
    // Rich text makes Qt wrap the tooltip instead of drawing one endless line.
    return QStringLiteral("<p>%1</p>").arg(text.toHtmlEscaped());
}

} // namespace loadscope::ui
