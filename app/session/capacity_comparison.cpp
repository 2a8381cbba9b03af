#include "app/session/capacity_comparison.h"

#include "app/session/comparison_report.h"

#include <QStringList>
#include <algorithm>

namespace loadscope::app {

CapacityComparison::CapacityComparison(const Session& session) {
    if (session.plan.levelKind != SweepLevelKind::Capacity)
        return;
    m_objective = session.plan.capacity.objective;
    m_connections = session.plan.rateConnections;
    m_precisionPercent = session.plan.capacity.precisionPercent;
    if (const Target* baseline = session.baseline())
        m_baseline = baseline->id;
    m_searches = capacitySearches(session);

    for (const Target& target : session.targets) {
        CapacityRow row;
        row.targetId = target.id;
        row.figures.targetId = target.id;
        row.figures.concurrency = m_connections;
        row.figures.metric = Metric::RequestsPerSecond;
        for (const CapacitySearch& search : m_searches) {
            if (search.targetId != target.id || search.steps.empty())
                continue;
            row.searches.push_back(&search);
            if (!search.finished())
                continue;
            ++row.finished;
            if (search.stop == CapacityStop::ClientLimited) {
                ++row.clientLimited;
                if (search.capacity())
                    row.lowerBounds.push_back(*search.capacity());
                continue;
            }
            if (!search.capacity()) {
                ++row.noRateMeets;
                continue;
            }
            row.figures.samples.push_back(*search.capacity());
            row.figures.repetitions.push_back(search.repetition);
            const PointResult& answer = *search.steps[*search.highestMet].result;
            if (!answer.noise.isEmpty() && row.figures.noisy++ == 0)
                row.figures.noise = answer.noise;
        }
        if (row.searches.empty())
            continue;
        row.figures.comparedSamples = row.figures.samples;
        if (!row.figures.samples.empty()) {
            row.figures.statistics = sampleStatistics(row.figures.samples);
            row.figures.outliers = iqrOutliers(row.figures.samples);
            row.figures.outlierCount =
                int(std::count(row.figures.outliers.begin(), row.figures.outliers.end(), true));
        }
        m_rows.push_back(std::move(row));
    }

    const bool pairable = session.plan.order == SweepOrder::Interleaved;
    const CapacityRow* base = find(m_baseline);
    for (CapacityRow& row : m_rows) {
        if (row.targetId == m_baseline) {
            row.figures.verdict = Verdict::Baseline;
            continue;
        }
        if (base && !row.figures.samples.empty())
            Comparison::judge(row.figures, base->figures, pairable);
    }
}

const CapacityRow* CapacityComparison::find(const QUuid& targetId) const {
    const auto found = std::find_if(m_rows.begin(), m_rows.end(), [&](const CapacityRow& row) {
        return row.targetId == targetId;
    });
    return found == m_rows.end() ? nullptr : &*found;
}

QString capacityLabel(const CapacityObjective& objective) {
    return QStringLiteral("capacity at ") + objectiveText(objective);
}

QString capacityVerdictLine(const Session& session, const CapacityComparison& comparison,
                            const CapacityRow& row) {
    return verdictLine(session.findTarget(row.targetId),
                       session.findTarget(comparison.baselineTargetId()), row.figures,
                       capacityLabel(comparison.objective()));
}

namespace {

QString padded(const QString& text, qsizetype width, bool right = false) {
    const QString fill(std::max<qsizetype>(0, width - text.size()), QLatin1Char(' '));
    return right ? fill + text : text + fill;
}

// "52000 ±1200", "≥ 41000 (client-limited)", "none meets it", "-".
QString capacityCell(const CapacityRow& row) {
    const SampleStatistics& s = row.figures.statistics;
    if (s.n > 0) {
        QString text = formatFigure(s.mean);
        if (s.ci95High)
            text += QStringLiteral(" ±") + formatFigure(*s.ci95High - s.mean);
        if (row.figures.outlierCount > 0)
            text += QLatin1Char('!');
        return text;
    }
    // No capacity: what the searches that finished found instead.
    QStringList why;
    if (row.clientLimited > 0)
        why << QStringLiteral("%1 client-limited").arg(row.clientLimited);
    if (row.noRateMeets > 0)
        why << QStringLiteral("%1 met by no rate").arg(row.noRateMeets);
    if (why.isEmpty())
        return QStringLiteral("-");
    const QString searches = QStringLiteral("(%1)").arg(why.join(QStringLiteral(", ")));
    if (!row.lowerBounds.empty())
        return QStringLiteral("≥ %1 %2").arg(
            formatFigure(*std::min_element(row.lowerBounds.begin(), row.lowerBounds.end())),
            searches);
    return QStringLiteral("none %1").arg(searches);
}

} // namespace

QString capacityReport(const Session& session, const CapacityComparison& comparison) {
    if (comparison.isEmpty())
        return {};
    int searchesPerTarget = 0;
    for (const CapacityRow& row : comparison.rows())
        searchesPerTarget = std::max(searchesPerTarget, int(row.searches.size()));
    QString text =
        QStringLiteral("Capacity at %1 (%2 connections; %3 %4 per target, each to "
                       "within %5 %): the highest offered rate that met it, mean ±half "
                       "the 95% confidence interval over the searches\n")
            .arg(objectiveText(comparison.objective()))
            .arg(comparison.connections())
            .arg(searchesPerTarget)
            .arg(searchesPerTarget == 1 ? QStringLiteral("search") : QStringLiteral("searches"))
            .arg(comparison.precisionPercent());
    QStringList names;
    QStringList cells;
    QStringList changes;
    for (const CapacityRow& row : comparison.rows()) {
        const Target* target = session.findTarget(row.targetId);
        names << (target ? target->displayName() : QStringLiteral("?"));
        cells << capacityCell(row);
        changes << (row.figures.vsBaselinePercent ? formatPercent(*row.figures.vsBaselinePercent)
                                                  : QString());
    }
    qsizetype nameWidth = 0;
    qsizetype cellWidth = QStringLiteral("req/s").size();
    for (qsizetype i = 0; i < names.size(); ++i) {
        nameWidth = std::max(nameWidth, names[i].size());
        cellWidth = std::max(cellWidth, cells[i].size());
    }
    text += padded(QString(), nameWidth) + QStringLiteral("   req/s\n");
    for (qsizetype i = 0; i < names.size(); ++i) {
        QString line = padded(names[i], nameWidth) + QStringLiteral("   ") +
                       padded(cells[i], cellWidth) + QStringLiteral("  ") + changes[i];
        while (line.endsWith(QLatin1Char(' ')))
            line.chop(1);
        text += line + QLatin1Char('\n');
    }
    QStringList verdicts;
    for (const CapacityRow& row : comparison.rows()) {
        const QString line = capacityVerdictLine(session, comparison, row);
        if (!line.isEmpty())
            verdicts << QStringLiteral("  ") + line;
    }
    if (!verdicts.isEmpty())
        text += QLatin1Char('\n') + verdicts.join(QLatin1Char('\n')) + QLatin1Char('\n');
    text += QLatin1Char('\n');
    for (const CapacityRow& row : comparison.rows()) {
        const Target* target = session.findTarget(row.targetId);
        for (const CapacitySearch* search : row.searches) {
            text += QStringLiteral("  %1, search %2: %3 after %4 %5\n")
                        .arg(target ? target->displayName() : QStringLiteral("?"))
                        .arg(search->repetition + 1)
                        .arg(search->summary())
                        .arg(search->steps.size())
                        .arg(search->steps.size() == 1 ? QStringLiteral("step")
                                                       : QStringLiteral("steps"));
        }
    }
    return text;
}

} // namespace loadscope::app
