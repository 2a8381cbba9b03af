#pragma once

#include "app/session/target.h"
#include "app/stats/live_rate.h"

#include <QString>
#include <cstdio>

namespace loadscope::app {
class SessionDocument;
struct PointResult;
struct SweepPoint;
} // namespace loadscope::app

namespace loadscope::cli {

// "point 3/12: direct c=10 rep 2/3" plus the live rate, on one stderr line
// rewritten in place on a terminal; only start and end lines otherwise.
// `quiet`: prints nothing.
class SweepProgressLine {
public:
    SweepProgressLine(const app::SessionDocument& document, bool quiet, FILE* stream);

    void start(const app::SweepPoint& point, int pointCount);
    void update(const engine::Progress& progress);
    void finish(const app::PointResult& result);
    void message(const QString& text) { print(text, true); }

private:
    QString unit() const;
    void print(const QString& text, bool endLine);

    const app::SessionDocument& m_document;
    const bool m_quiet;
    FILE* const m_stream;
    const bool m_terminal;
    app::TargetProtocol m_protocol = app::TargetProtocol::Http;
    app::LiveRate m_rate{false};
    QString m_head;
};

} // namespace loadscope::cli
