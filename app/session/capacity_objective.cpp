#include "app/session/capacity_objective.h"

#include "app/session/point_result.h"
#include "engine/histogram.h"

#include <QRegularExpression>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>

namespace loadscope::app {

namespace {

QString number(double value) {
    return QString::number(value, 'g', 6);
}

// "12.4" for a latency, with the decimals its size deserves.
QString milliseconds(double ms) {
    return QString::number(ms, 'f', ms >= 100 ? 0 : ms >= 10 ? 1 : ms >= 1 ? 2 : 3);
}

bool isPercentage(double value) {
    return std::isfinite(value) && value >= 0 && value <= 100;
}

} // namespace

Result<void> validateCapacityObjective(const CapacityObjective& objective) {
    if (!(std::isfinite(objective.percentile) && objective.percentile >= kMinObjectivePercentile &&
          objective.percentile <= kMaxObjectivePercentile))
        return invalidInput(QStringLiteral("the objective's percentile must be from p%1 to p%2, "
                                           "not p%3")
                                .arg(kMinObjectivePercentile)
                                .arg(kMaxObjectivePercentile)
                                .arg(number(objective.percentile)));
    if (!(std::isfinite(objective.boundMs) && objective.boundMs > 0 &&
          objective.boundMs <= kMaxObjectiveBoundMs))
        return invalidInput(
            QStringLiteral("the objective's latency bound must be above 0 ms and at most an "
                           "hour, not %1 ms")
                .arg(number(objective.boundMs)));
    if (objective.maxFailedPercent && !isPercentage(*objective.maxFailedPercent))
        return invalidInput(QStringLiteral("the failed share bound must be 0 to 100 %, not %1 %")
                                .arg(number(*objective.maxFailedPercent)));
    if (objective.minAchievedPercent &&
        !(isPercentage(*objective.minAchievedPercent) && *objective.minAchievedPercent > 0))
        return invalidInput(
            QStringLiteral("the achieved share of the offered rate must be above 0 and at most "
                           "100 %, not %1 %")
                .arg(number(*objective.minAchievedPercent)));
    return {};
}

Result<CapacityObjective> parseLatencyObjective(const QString& text) {
    static const QRegularExpression form(
        QStringLiteral("^\\s*p\\s*([0-9]*\\.?[0-9]+)\\s*(?:<=|=|≤)\\s*([-+]?[0-9]*\\.?[0-9]+(?:["
                       "eE][-+]?[0-9]+)?)\\s*([a-zµ]*)\\s*$"),
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = form.match(text);
    if (!match.hasMatch())
        return invalidInput(
            QStringLiteral("'%1' is not an objective: write a percentile and its bound, e.g. "
                           "p99=5ms")
                .arg(text));
    CapacityObjective objective;
    objective.percentile = match.captured(1).toDouble();
    const double bound = match.captured(2).toDouble();
    const QString unit = match.captured(3).toLower();
    double scale = 0;
    if (unit.isEmpty() || unit == u"ms")
        scale = 1;
    else if (unit == u"us" || unit == u"µs")
        scale = 1e-3;
    else if (unit == u"ns")
        scale = 1e-6;
    else if (unit == u"s")
        scale = 1e3;
    else
        return invalidInput(
            QStringLiteral("'%1': the bound's unit must be s, ms, us or ns, not '%2'")
                .arg(text, match.captured(3)));
    objective.boundMs = bound * scale;
    if (auto checked = validateCapacityObjective(objective); !checked)
        return checked.error().prefixed(QStringLiteral("'%1'").arg(text.trimmed()));
    return objective;
}

Result<double> parsePercentage(const QString& option, const QString& text) {
    QString digits = text.trimmed();
    if (digits.endsWith(QLatin1Char('%')))
        digits.chop(1);
    bool ok = false;
    const double value = digits.trimmed().toDouble(&ok);
    if (!ok || !isPercentage(value))
        return invalidInput(
            QStringLiteral("%1 wants a percentage from 0 to 100, not '%2'").arg(option, text));
    return value;
}

QString objectivePercentileLabel(double percentile) {
    return QLatin1Char('p') + QString::number(percentile, 'g', 6);
}

namespace {

QString composedText(const CapacityObjective& objective, const QString& atMost,
                     const QString& atLeast) {
    QString text =
        QStringLiteral("%1 %2 %3 ms")
            .arg(objectivePercentileLabel(objective.percentile), atMost, number(objective.boundMs));
    if (objective.maxFailedPercent)
        text += QStringLiteral(", failed %1 %2 %").arg(atMost, number(*objective.maxFailedPercent));
    if (objective.minAchievedPercent)
        text += QStringLiteral(", achieved %1 %2 % of offered")
                    .arg(atLeast, number(*objective.minAchievedPercent));
    return text;
}

} // namespace

QString objectiveText(const CapacityObjective& objective) {
    return composedText(objective, QStringLiteral("≤"), QStringLiteral("≥"));
}

QString objectiveAsciiText(const CapacityObjective& objective) {
    return composedText(objective, QStringLiteral("<="), QStringLiteral(">="));
}

QString stepVerdictId(StepVerdict verdict) {
    switch (verdict) {
    case StepVerdict::Met:
        return QStringLiteral("met");
    case StepVerdict::ClientLimited:
        return QStringLiteral("client-limited");
    case StepVerdict::Missed:
        break;
    }
    return QStringLiteral("missed");
}

namespace {

std::optional<double> latencyAt(const LatencySummary& summary, const QByteArray& bytes,
                                double percentile) {
    if (const auto stored = summary.percentile(percentile))
        return stored;
    if (bytes.isEmpty())
        return std::nullopt;
    const auto histogram =
        engine::Histogram::deserialize(std::string_view(bytes.constData(), size_t(bytes.size())));
    if (!histogram || histogram->count() == 0)
        return std::nullopt;
    return double(histogram->valueAtPercentile(percentile)) / 1e6;
}

} // namespace

std::optional<double> correctedLatencyAt(const PointResult& result, double percentile) {
    return latencyAt(result.total, result.totalHistogram, percentile);
}

std::optional<double> uncorrectedLatencyAt(const PointResult& result, double percentile) {
    return latencyAt(result.uncorrected, result.uncorrectedHistogram, percentile);
}

StepJudgement judgeCapacityStep(const PointResult& step, const CapacityObjective& objective) {
    StepJudgement judgement;
    const QString label = objectivePercentileLabel(objective.percentile);
    QStringList misses;
    judgement.latencyMs = correctedLatencyAt(step, objective.percentile);
    judgement.sentLatencyMs = uncorrectedLatencyAt(step, objective.percentile);
    if (judgement.latencyMs) {
        judgement.excess = *judgement.latencyMs / objective.boundMs;
        if (*judgement.latencyMs > objective.boundMs)
            misses << QStringLiteral("%1 %2 ms > %3 ms")
                          .arg(label, milliseconds(*judgement.latencyMs),
                               number(objective.boundMs));
    } else {
        // Nothing answered: as far from the objective as a step can be.
        judgement.excess = std::numeric_limits<double>::infinity();
        misses << QStringLiteral("no successful response");
    }
    if (step.complete > 0)
        judgement.failedPercent = double(step.failed) / double(step.complete) * 100.0;
    if (objective.maxFailedPercent && judgement.failedPercent) {
        const double bound = *objective.maxFailedPercent;
        const double share = *judgement.failedPercent;
        judgement.excess =
            std::max(judgement.excess, bound > 0   ? share / bound
                                       : share > 0 ? std::numeric_limits<double>::infinity()
                                                   : 0.0);
        if (share > bound)
            misses << QStringLiteral("failed %1 % > %2 %")
                          .arg(QString::number(share, 'g', 3), number(bound));
    }
    const double offered = step.offeredRate.value_or(0);
    if (offered > 0)
        judgement.achievedPercent = step.requestsPerSecond() / offered * 100.0;
    if (objective.minAchievedPercent && judgement.achievedPercent) {
        const double least = *objective.minAchievedPercent;
        const double achieved = *judgement.achievedPercent;
        judgement.excess =
            std::max(judgement.excess,
                     achieved > 0 ? least / achieved : std::numeric_limits<double>::infinity());
        if (achieved < least)
            misses << QStringLiteral("achieved %1 % of offered < %2 %")
                          .arg(QString::number(achieved, 'f', 1), number(least));
    }
    if (misses.isEmpty()) {
        judgement.verdict = StepVerdict::Met;
        judgement.why = QStringLiteral("%1 %2 ms").arg(label, milliseconds(*judgement.latencyMs));
        return judgement;
    }
    judgement.why = misses.join(QStringLiteral(", "));
    if (misses.size() == 1 && judgement.latencyMs && *judgement.latencyMs > objective.boundMs &&
        objective.percentile >= 90) {
        const auto median = correctedLatencyAt(step, 50);
        judgement.tailOnly = median && *median <= objective.boundMs;
    }
    if (step.clientSaturated) {
        judgement.verdict = StepVerdict::ClientLimited;
        judgement.why += QStringLiteral(" while the client could not keep the schedule");
    }
    return judgement;
}

} // namespace loadscope::app
