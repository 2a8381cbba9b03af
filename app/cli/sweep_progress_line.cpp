#include "app/cli/sweep_progress_line.h"

#include "app/session/comparison_report.h"
#include "app/session/metric.h"
#include "app/session/session_document.h"

#include <unistd.h>

namespace loadscope::cli {

SweepProgressLine::SweepProgressLine(const app::SessionDocument& document, bool quiet, FILE* stream)
    : m_document(document)
    , m_quiet(quiet)
    , m_stream(stream)
    , m_terminal(fileno(stream) >= 0 && isatty(fileno(stream)) == 1) {}

void SweepProgressLine::start(const app::SweepPoint& point, int pointCount) {
    const app::Session& session = m_document.session();
    const app::Target* target = session.findTarget(point.targetId);
    m_protocol = target ? target->protocol : app::TargetProtocol::Http;
    m_rate = app::LiveRate(m_protocol == app::TargetProtocol::TcpStream ||
                           m_protocol == app::TargetProtocol::UdpStream);
    m_head =
        QStringLiteral("point %1/%2: %3 c=%4 rep %5/%6")
            .arg(point.index + 1)
            .arg(pointCount)
            .arg(target ? target->displayName() : QStringLiteral("?"))
            .arg(point.concurrency)
            .arg(point.repetition + 1)
            .arg(session.plan.precisionPercent > 0 ? QStringLiteral("%1..%2")
                                                         .arg(session.plan.repetitions)
                                                         .arg(session.plan.maxRepetitions)
                                                   : QString::number(session.plan.repetitions));
    print(m_head + QStringLiteral(" ..."), !m_terminal);
}

void SweepProgressLine::update(const engine::Progress& progress) {
    if (!m_terminal)
        return;
    const std::optional<double> rate = m_rate.next(progress);
    if (!rate)
        return;
    print(QStringLiteral("%1 ... %2 %3%4")
              .arg(m_head, app::formatFigure(*rate), unit(),
                   progress.warmingUp ? QStringLiteral(" (warm-up)") : QString()),
          false);
}

void SweepProgressLine::finish(const app::PointResult& result) {
    const app::Metric metric = app::primaryMetric(m_protocol);
    const double value = app::metricValue(result, metric).value_or(0);
    QString line = QStringLiteral("%1: %2 %3").arg(m_head, app::formatFigure(value), unit());
    if (const auto p99 = result.total.percentile(99))
        line += QStringLiteral(", p99 %1 ms").arg(app::formatFigure(*p99));
    if (result.failed > 0)
        line += QStringLiteral(", %1 failed").arg(result.failed);
    print(line, true);
}

QString SweepProgressLine::unit() const {
    return app::metricUnit(app::primaryMetric(m_protocol), m_protocol);
}

void SweepProgressLine::print(const QString& text, bool endLine) {
    if (m_quiet)
        return;
    const QByteArray bytes = text.toUtf8();
    if (m_terminal)
        std::fprintf(m_stream, "\r\033[K%s%s", bytes.constData(), endLine ? "\n" : "");
    else if (endLine)
        std::fprintf(m_stream, "%s\n", bytes.constData());
    std::fflush(m_stream);
}

} // namespace loadscope::cli
