#pragma once

#include "app/session/metric.h"
#include "app/session/target.h"

#include <QString>

namespace loadscope::ui {

// Rich-text tooltip for anything that shows a metric: its label in the
// protocol's words, its unit and its definition from the metric registry, so
// a column, an axis and a field explain themselves the same way.
QString metricToolTip(app::Metric metric, app::TargetProtocol protocol = app::TargetProtocol::Http);

// A plain explanation wrapped so that a long tooltip breaks into lines.
QString wrappedToolTip(const QString& text);

} // namespace loadscope::ui
