#pragma once

// Helpers of the Compare suites: reaching the page's charts by name and
// judging exported images.

#include "app/common/result.h"
#include "image_checks.h"
#include "ui/common/chart_panel.h"
#include "ui/compare/compare_page.h"
#include "ui/compare/mode_bar_chart.h"
#include "ui/compare/mode_line_chart.h"

#include <QImage>
#include <QTest>
#include <QtGlobal>
#include <cmath>
#include <memory>

namespace loadscope::test {

template <typename Chart> Chart* pageChart(const ui::ComparePage& page, const char* name) {
    const auto* panel = page.findChild<ui::ChartPanel*>(QString::fromLatin1(name));
    return panel ? dynamic_cast<Chart*>(panel->chart()) : nullptr;
}

// The message of a failed result, empty for a good one (QVERIFY2 evaluates
// its message either way).
inline QString errorOf(const app::Result<void>& result) {
    return result ? QString() : result.error().message;
}

// Starts a waiting rebuild and lets the event loop run until the page shows
// the document: its comparison is built on a worker thread.
inline bool chartsCurrent(ui::ComparePage& page, int timeoutMs = 20000) {
    page.rebuildIfPending();
    return QTest::qWaitFor([&page] { return page.isUpToDate(); }, timeoutMs);
}

// A Compare page on `document`, sized as the window shows it, once it shows
// the document.
inline std::unique_ptr<ui::ComparePage> pageFor(app::SessionDocument& document) {
    auto page = std::make_unique<ui::ComparePage>(&document);
    page->resize(1280, 800);
    if (!chartsCurrent(*page))
        qWarning("the Compare page did not show its document in time");
    return page;
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
