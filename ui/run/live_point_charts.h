#pragma once

#include "app/stats/live_rate.h"

#include <QColor>
#include <QList>
#include <QPointF>
#include <QWidget>
#include <cstdint>

class QChart;
class QLineSeries;
class QValueAxis;

namespace loadscope::engine {
struct Progress;
}

namespace loadscope::ui {

class ChartPanel;

// The point in progress, live: requests/s and latency p50/p99 over time,
// one value per engine snapshot (about ten a second). Each snapshot feeds
// every series whole with replace(), never point by point.
class LivePointCharts : public QWidget {
    Q_OBJECT

public:
    explicit LivePointCharts(QWidget* parent = nullptr);

    // What the rate chart of a point shows.
    struct Rate {
        QString label;          // "Requests/s", "Ops/s", "Throughput"
        QString unit;           // "req/s", "Mbit/s"
        bool fromBytes = false; // throughput of the bytes moved, for streams
    };

    // Clears the charts for a new point. `plannedSeconds` is the point's
    // duration when it is timed (0 when it is counted in requests).
    void startPoint(const QString& title, const QColor& colour, double plannedSeconds,
                    const Rate& rate);
    void addSnapshot(const engine::Progress& progress);
    // No point: empty charts that call the rate as `rate` does.
    void clear(const Rate& rate);
    void clear();

    QLineSeries* requestsSeries() const { return m_requests; }
    QLineSeries* p50Series() const { return m_p50; }
    QLineSeries* p99Series() const { return m_p99; }
    QList<ChartPanel*> panels() const { return {m_requestsPanel, m_latencyPanel}; }

private:
    void updateAxes();

    QChart* m_requestsChart = nullptr;
    QChart* m_latencyChart = nullptr;
    ChartPanel* m_requestsPanel = nullptr;
    ChartPanel* m_latencyPanel = nullptr;
    QLineSeries* m_requests = nullptr;
    QLineSeries* m_p50 = nullptr;
    QLineSeries* m_p99 = nullptr;
    QValueAxis* m_requestsTime = nullptr;
    QValueAxis* m_requestsValue = nullptr;
    QValueAxis* m_latencyTime = nullptr;
    QValueAxis* m_latencyValue = nullptr;

    Rate m_rate;
    app::LiveRate m_liveRate{false};
    QList<QPointF> m_requestPoints;
    QList<QPointF> m_p50Points;
    QList<QPointF> m_p99Points;
    double m_plannedSeconds = 0;
    double m_timeSpan = 10;
    double m_requestsTop = 0;
    double m_latencyTop = 0;
};

} // namespace loadscope::ui
