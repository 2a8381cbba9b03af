#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <vector>

// The GUI-thread probe of gui_responsiveness: a 10 ms timer whose lateness is
// the longest the event loop was busy, and what to print of it.
namespace loadscope::bench {

// The p-th percentile (nearest rank) of `values`; 0 for none.
double percentile(std::vector<double> values, double p);

// Records how late a 10 ms timer fires while it runs.
class LagProbe : public QObject {
public:
    explicit LagProbe(QObject* parent);
    void start();
    void stop() { m_timer.stop(); }
    double nowMs() const { return double(m_clock.nsecsElapsed()) / 1e6; }
    const std::vector<double>& lagsMs() const { return m_lags; }
    const std::vector<double>& ticksMs() const { return m_ticks; }
    double maxLagMs() const;

private:
    static constexpr int kIntervalMs = 10;
    void tick();

    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_last = 0;
    std::vector<double> m_lags;
    std::vector<double> m_ticks;
};

// "point 2 started" at 4051 ms: what the program did, to tell what a lag fell on.
struct ProbeEvent {
    double atMs;
    QString what;
};

// The five longest lags, each with the events near it.
void printLargestLags(const LagProbe& probe, const std::vector<ProbeEvent>& events);

// CPU time of this process so far, every thread's, in ms: on a machine shared
// with other work it moves far less than the wall time does.
double processCpuMs();

} // namespace loadscope::bench
