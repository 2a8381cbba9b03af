#pragma once

// Helpers of the Compare suites: reaching the page's charts by name and
// judging exported images.

#include "image_checks.h"
#include "ui/common/chart_panel.h"
#include "ui/compare/compare_page.h"
#include "ui/compare/mode_bar_chart.h"
#include "ui/compare/mode_line_chart.h"

#include <QImage>
#include <QtGlobal>
#include <cmath>

namespace loadscope::test {

template <typename Chart> Chart* pageChart(const ui::ComparePage& page, const char* name) {
    const auto* panel = page.findChild<ui::ChartPanel*>(QString::fromLatin1(name));
    return panel ? dynamic_cast<Chart*>(panel->chart()) : nullptr;
}

// Share of pixels that are not (nearly) white.
inline double inkShare(const QImage& image) {
    const QImage grey = image.convertToFormat(QImage::Format_Grayscale8);
    qint64 ink = 0;
    for (int y = 0; y < grey.height(); ++y) {
        const uchar* line = grey.constScanLine(y);
        for (int x = 0; x < grey.width(); ++x)
            ink += line[x] < 240 ? 1 : 0;
    }
    return double(ink) / (double(grey.width()) * grey.height());
}

} // namespace loadscope::test
