#include "app/session/result_schema_ranges.h"

#include "app/session/sweep_plan.h"
#include "engine/error_class.h"

#include <cmath>
#include <optional>

namespace loadscope::app {

namespace {

constexpr double kMaxExact = 9007199254740992.0; // 2^53

QString numberText(double value) {
    // Whole limits as written in the table (10000000), anything else in the
    // shortest form that reads back the same (-0.002, 1e+44).
    if (std::isfinite(value) && std::floor(value) == value && std::fabs(value) < 1e16)
        return QString::number(value, 'f', 0);
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

QString latin1(std::string_view text) {
    return QString::fromLatin1(text.data(), static_cast<qsizetype>(text.size()));
}

// Walks the figures of one result and keeps the first one out of range.
class RangeCheck {
public:
    // `name()` is called only for a problem: a large session checks hundreds of
    // thousands of figures, and building each one's name and text cost more
    // than the checks.
    template <typename Name> void figureNamed(const Name& name, FigureKind kind, double value) {
        if (m_problem)
            return;
        const FigureRange range = figureRange(kind);
        const bool notWhole = range.whole && std::floor(value) != value;
        const bool below = value < range.minimum || (range.aboveMinimum && value <= range.minimum);
        if (std::isfinite(value) && !notWhole && !below && !(value > range.maximum))
            return;
        const QString shown = name() + QStringLiteral(" is ") + numberText(value);
        if (!std::isfinite(value))
            m_problem = shown;
        else if (notWhole)
            m_problem = shown + QStringLiteral(", not a whole number");
        else if (below)
            m_problem = shown +
                        (range.aboveMinimum ? QStringLiteral(", expected above ")
                                            : QStringLiteral(", below ")) +
                        numberText(range.minimum);
        else
            m_problem = shown + QStringLiteral(", above ") + numberText(range.maximum);
    }
    void figure(const QString& name, FigureKind kind, double value) {
        figureNamed([&name] { return name; }, kind, value);
    }
    void optionalFigure(const QString& name, FigureKind kind, const std::optional<double>& value) {
        if (value)
            figure(name, kind, *value);
    }
    // Counts are checked as integers: beyond 2^53 a double would round them.
    void count(const QString& name, uint64_t value) {
        if (!m_problem && double(value) > kMaxExact)
            m_problem = QStringLiteral("%1 is %2, above %3")
                            .arg(name, QString::number(value), numberText(kMaxExact));
    }
    void summary(const QString& name, const LatencySummary& summary) {
        const auto optional = [&](const char* leaf, const std::optional<double>& value) {
            if (value)
                figureNamed(
                    [&]() -> QString { return name + QLatin1Char('.') + QLatin1StringView(leaf); },
                    FigureKind::Milliseconds, *value);
        };
        optional("minMs", summary.minMs);
        optional("meanMs", summary.meanMs);
        optional("sdMs", summary.sdMs);
        optional("maxMs", summary.maxMs);
        // One distribution's least, mean and greatest value are in that order
        // (rounding a report prints keeps them so).
        const auto order = [&](const char* lowName, const std::optional<double>& low,
                               const char* highName, const std::optional<double>& high) {
            if (!m_problem && low && high && *low > *high)
                m_problem = QStringLiteral("%1.%2 is %3, above %1.%4 (%5)")
                                .arg(name, QLatin1StringView(lowName), numberText(*low),
                                     QLatin1StringView(highName), numberText(*high));
        };
        order("minMs", summary.minMs, "maxMs", summary.maxMs);
        order("minMs", summary.minMs, "meanMs", summary.meanMs);
        order("meanMs", summary.meanMs, "maxMs", summary.maxMs);
        // QString, not a QStringBuilder of references to this call's temporaries.
        const auto percentiles = [&name]() -> QString {
            return name + QStringLiteral(".percentiles");
        };
        std::optional<std::pair<double, double>> previous;
        for (const auto& [percentile, ms] : summary.percentilesMs) {
            const auto key = [&, p = percentile]() -> QString {
                return percentiles() + QLatin1Char('.') + numberText(p);
            };
            const FigureRange range = figureRange(FigureKind::PercentileKey);
            if (!m_problem && (!std::isfinite(percentile) || percentile <= range.minimum ||
                               percentile > range.maximum))
                m_problem = key() + QStringLiteral(" is not a percentile (above 0, up to 100)");
            figureNamed(key, FigureKind::Milliseconds, ms);
            // A higher percentile of one distribution is never a shorter time.
            if (!m_problem && previous && ms < previous->second)
                m_problem = QStringLiteral("%1 decrease: %2 is %3, below %4 at %5")
                                .arg(percentiles(), numberText(percentile), numberText(ms),
                                     numberText(previous->first), numberText(previous->second));
            previous = std::make_pair(percentile, ms);
        }
    }
    void problem(const QString& text) {
        if (!m_problem)
            m_problem = text;
    }
    const std::optional<QString>& found() const { return m_problem; }

private:
    std::optional<QString> m_problem;
};

} // namespace

FigureRange figureRange(FigureKind kind) {
    switch (kind) {
    case FigureKind::DurationSeconds:
        return {0, true, 1e7, false}; // about four months: anything longer is a typo
    case FigureKind::CpuSeconds:
        return {0, false, 1e11, false};
    case FigureKind::Count:
        return {0, false, kMaxExact, true};
    case FigureKind::Rate:
        return {0, false, 1e12, false};
    case FigureKind::Milliseconds:
        return {0, false, 1e9, false}; // eleven days
    case FigureKind::PercentileKey:
        return {0, true, 100, false};
    case FigureKind::Concurrency:
        return {1, false, double(kMaxConcurrency), true};
    case FigureKind::Repetition:
        return {0, false, double(kMaxRepetitions - 1), true};
    case FigureKind::Threads:
        return {0, false, double(kMaxThreads), true};
    case FigureKind::DocumentLength:
        return {-1, false, kMaxExact, true};
    case FigureKind::Cores:
        return {0, false, double(1 << 20), true};
    case FigureKind::Cpu:
        return {0, false, 65535, true};
    case FigureKind::StatusCode:
        return {0, false, 999, true};
    }
    return {};
}

Result<void> checkResultRanges(const PointResult& r) {
    RangeCheck check;
    check.figure(QStringLiteral("concurrency"), FigureKind::Concurrency, r.concurrency);
    check.figure(QStringLiteral("repetition"), FigureKind::Repetition, r.repetition);
    check.figure(QStringLiteral("threads"), FigureKind::Threads, r.threads);
    // No measured time is allowed only where nothing derives a rate from it:
    // a cancelled point, a tool that printed its rate but not its time, a
    // run that ended before its measuring began (nothing counted).
    const bool timeless = r.cancelled || r.reportedRequestsPerSecond.has_value() ||
                          (r.complete == 0 && r.failed == 0);
    if (!(timeless && r.durationSeconds == 0))
        check.figure(QStringLiteral("durationSeconds"), FigureKind::DurationSeconds,
                     r.durationSeconds);
    check.figure(QStringLiteral("clientCpuSeconds"), FigureKind::CpuSeconds, r.clientCpuSeconds);
    if (r.cpu) {
        const CpuUsage& c = *r.cpu;
        check.figure(QStringLiteral("cpu.wallSeconds"), FigureKind::CpuSeconds, c.wallSeconds);
        check.figure(QStringLiteral("cpu.cpus"), FigureKind::Cores, c.cpus);
        check.figure(QStringLiteral("cpu.user"), FigureKind::CpuSeconds, c.user);
        check.figure(QStringLiteral("cpu.system"), FigureKind::CpuSeconds, c.system);
        check.figure(QStringLiteral("cpu.irq"), FigureKind::CpuSeconds, c.irq);
        check.figure(QStringLiteral("cpu.softirq"), FigureKind::CpuSeconds, c.softirq);
        check.figure(QStringLiteral("cpu.steal"), FigureKind::CpuSeconds, c.steal);
        check.figure(QStringLiteral("cpu.idle"), FigureKind::CpuSeconds, c.idle);
        check.optionalFigure(QStringLiteral("cpu.serverSeconds"), FigureKind::CpuSeconds,
                             c.serverSeconds);
        check.optionalFigure(QStringLiteral("cpu.clientSecondsHere"), FigureKind::CpuSeconds,
                             c.clientSecondsHere);
    }

    check.count(QStringLiteral("complete"), r.complete);
    check.count(QStringLiteral("failed"), r.failed);
    // ab's sense: "Complete requests" counts every request that ended, failed ones too.
    if (r.failed > r.complete)
        check.problem(
            QStringLiteral("failed is %1, more than complete (%2)").arg(r.failed).arg(r.complete));
    for (size_t i = 0; i < engine::kErrorClassCount; ++i)
        check.count(QStringLiteral("errors.") +
                        latin1(engine::errorClassName(static_cast<engine::ErrorClass>(i))),
                    r.errors[i]);
    check.count(QStringLiteral("non2xx"), r.non2xx);
    check.count(QStringLiteral("keepAlive"), r.keepAlive);
    // Parts of the requests that ended are never more than all of them.
    const auto part = [&](const QString& name, uint64_t value) {
        if (value > r.complete)
            check.problem(QStringLiteral("%1 is %2, more than complete (%3)")
                              .arg(name)
                              .arg(value)
                              .arg(r.complete));
    };
    part(QStringLiteral("non2xx"), r.non2xx);
    part(QStringLiteral("keepAlive"), r.keepAlive);
    uint64_t answered = 0;
    for (const auto& [code, count] : r.statusCodes)
        answered += std::min<uint64_t>(count, uint64_t(kMaxExact)); // no overflow of the sum
    part(QStringLiteral("statusCodes (their sum)"), answered);
    check.count(QStringLiteral("bytesTotal"), r.bytesTotal);
    check.count(QStringLiteral("bytesBody"), r.bytesBody);
    check.count(QStringLiteral("bytesSent"), r.bytesSent);
    check.count(QStringLiteral("hits"), r.hits);
    check.count(QStringLiteral("misses"), r.misses);
    check.count(QStringLiteral("connectionsOpened"), r.connectionsOpened);
    check.count(QStringLiteral("maxBacklog"), r.maxBacklog);
    check.count(QStringLiteral("errorReplies.error"), r.errorReplies.error);
    check.count(QStringLiteral("errorReplies.clientError"), r.errorReplies.clientError);
    check.count(QStringLiteral("errorReplies.serverError"), r.errorReplies.serverError);
    for (const auto& [code, count] : r.statusCodes) {
        const QString name = QStringLiteral("statusCodes.") + QString::number(code);
        check.figure(name, FigureKind::StatusCode, code);
        check.count(name, count);
    }
    for (const auto& [name, count] : r.operationCounts)
        check.count(QStringLiteral("operationCounts.") + name, count);
    check.figure(QStringLiteral("documentLength"), FigureKind::DocumentLength,
                 double(r.documentLength));
    check.figure(QStringLiteral("environment.cores"), FigureKind::Cores, r.environment.cores);
    for (size_t i = 0; i < r.threadCpus.size(); ++i)
        check.figure(QStringLiteral("threadCpus[%1]").arg(i), FigureKind::Cpu, r.threadCpus[i]);

    check.optionalFigure(QStringLiteral("reported.requestsPerSecond"), FigureKind::Rate,
                         r.reportedRequestsPerSecond);
    check.optionalFigure(QStringLiteral("reported.transferKiBps"), FigureKind::Rate,
                         r.reportedTransferKiBps);
    check.optionalFigure(QStringLiteral("reported.throughputMbitps"), FigureKind::Rate,
                         r.reportedThroughputMbitps);
    check.optionalFigure(QStringLiteral("reported.timePerRequestMs"), FigureKind::Milliseconds,
                         r.reportedTimePerRequestMs);
    check.optionalFigure(QStringLiteral("reported.timePerRequestAcrossMs"),
                         FigureKind::Milliseconds, r.reportedTimePerRequestAcrossMs);

    // A time too short for its counts (1e-300 s) gives rates no machine reaches.
    check.figure(QStringLiteral("requests per second (complete / durationSeconds)"),
                 FigureKind::Rate, r.requestsPerSecond());
    check.figure(QStringLiteral("transfer rate (bytesTotal / durationSeconds)"), FigureKind::Rate,
                 r.transferRateKiBps());
    check.figure(QStringLiteral("throughput (bytes / durationSeconds)"), FigureKind::Rate,
                 r.throughputMbitps());

    if (r.offeredRate)
        check.figure(QStringLiteral("offeredRate"), FigureKind::Rate, *r.offeredRate);

    check.summary(QStringLiteral("latency.total"), r.total);
    check.summary(QStringLiteral("latency.connect"), r.connect);
    check.summary(QStringLiteral("latency.waiting"), r.waiting);
    check.summary(QStringLiteral("latency.processing"), r.processing);
    check.summary(QStringLiteral("latency.uncorrected"), r.uncorrected);
    for (const auto& [name, summary] : r.perOperation)
        check.summary(QStringLiteral("operations.") + name, summary);

    if (check.found())
        return makeError(ErrorCode::Format, *check.found());
    return {};
}

} // namespace loadscope::app
