#include "ui/compare/path_breakdown_data.h"

#include "app/session/level_naming.h"
#include "ui/common/chart_style.h"
#include "ui/compare/compare_chart_data.h"

#include <QCoreApplication>

namespace loadscope::ui {

namespace {

using engine::CpuPath;

QString tr(const char* text) {
    return QCoreApplication::translate("loadscope::ui::PathBreakdown", text);
}

QString latin1(std::string_view text) {
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

} // namespace

QColor cpuPathColour(CpuPath path) {
    switch (path) {
    case CpuPath::User:
        return QColor(0xb0, 0xb0, 0xb0);
    case CpuPath::TcpIp:
        return QColor(0x00, 0x72, 0xb2);
    case CpuPath::Socket:
        return QColor(0x56, 0xb4, 0xe9);
    case CpuPath::Copy:
        return QColor(0x8f, 0xd3, 0xf0);
    case CpuPath::Conntrack:
        return QColor(0xe6, 0x9f, 0x00);
    case CpuPath::Nat:
        return QColor(0xd5, 0x5e, 0x00);
    case CpuPath::Nftables:
        return QColor(0xa0, 0x40, 0x00);
    case CpuPath::Bridge:
        return QColor(0x00, 0x9e, 0x73);
    case CpuPath::Veth:
        return QColor(0x5c, 0xc8, 0x9e);
    case CpuPath::Macvlan:
        return QColor(0x2e, 0x6b, 0x4f);
    case CpuPath::Ovs:
        return QColor(0x9b, 0x59, 0xb6);
    case CpuPath::Tap:
        return QColor(0xcc, 0x79, 0xa7);
    case CpuPath::Softirq:
        return QColor(0xf0, 0xe4, 0x42);
    case CpuPath::Scheduler:
        return QColor(0x55, 0x55, 0x55);
    case CpuPath::OtherKernel:
        return QColor(0xdd, 0xdd, 0xdd);
    }
    return Qt::gray;
}

bool hasProfiles(const app::Session& session, const app::Comparison& comparison,
                 app::TargetProtocol protocol) {
    const app::Metric user = app::profilePathMetric(CpuPath::User);
    for (const app::Target* target : comparedTargets(session, comparison, protocol))
        for (const int level : comparison.concurrencyLevels())
            if (comparison.find(target->id, level, user))
                return true;
    return false;
}

PathBreakdownData pathBreakdownData(const app::Session& session, const app::Comparison& comparison,
                                    app::TargetProtocol protocol, int concurrency,
                                    PathBreakdownKind kind) {
    PathBreakdownData data;
    const auto targets = comparedTargets(session, comparison, protocol);
    const app::LevelNaming naming(targets);
    const QString level = naming.levelText(concurrency);
    const app::Target* baseline = session.findTarget(comparison.baselineTargetId());
    const bool difference = kind == PathBreakdownKind::VsBaseline;
    data.title = difference
                     ? tr("CPU per request by path, difference from %1 at %2")
                           .arg(baseline ? baseline->displayName() : tr("the baseline"), level)
                     : tr("CPU per request by path at %1").arg(level);
    data.axisTitle = difference ? tr("Difference (µs per request)") : tr("CPU (µs per request)");
    if (concurrency <= 0) {
        // No level to name: nothing was measured yet.
        data.title = difference ? tr("CPU per request by path, difference from the baseline")
                                : tr("CPU per request by path");
        data.emptyText = tr("no results yet");
        return data;
    }
    if (protocol == app::TargetProtocol::TcpStream) {
        data.emptyText = tr("not measured for %1").arg(app::targetProtocolId(protocol));
        return data;
    }
    const auto rowOf = [&](const app::Target& target, CpuPath path) {
        return comparison.find(target.id, concurrency, app::profilePathMetric(path));
    };
    const app::ComparisonRow* baselineRow = baseline ? rowOf(*baseline, CpuPath::User) : nullptr;
    if (difference && !baselineRow) {
        data.emptyText = tr("the baseline has no CPU profile at %1").arg(level);
        return data;
    }
    std::vector<const app::Target*> shown;
    for (const app::Target* target : targets) {
        if (difference && target->id == baseline->id)
            continue;
        if (rowOf(*target, CpuPath::User))
            shown.push_back(target);
    }
    if (shown.empty()) {
        data.emptyText =
            tr("no CPU profile at %1 (the Sweep page's CPU profile takes one)").arg(level);
        return data;
    }
    for (const app::Target* target : shown) {
        data.targetIds.push_back(target->id);
        data.modes.push_back(naming.targetName(*target));
    }
    for (size_t p = 0; p < engine::kCpuPathCount; ++p) {
        const auto path = CpuPath(p);
        PathSegment segment;
        segment.path = path;
        segment.label = latin1(engine::cpuPathLabel(path));
        segment.colour = cpuPathColour(path);
        bool any = false;
        const app::ComparisonRow* base = difference ? rowOf(*baseline, path) : nullptr;
        for (const app::Target* target : shown) {
            const app::ComparisonRow* row = rowOf(*target, path);
            const double mean = row ? row->statistics.mean : 0;
            const double value = difference ? mean - (base ? base->statistics.mean : 0) : mean;
            segment.values.push_back(value);
            segment.ciLow.push_back(difference || !row ? std::nullopt : row->statistics.ci95Low);
            segment.ciHigh.push_back(difference || !row ? std::nullopt : row->statistics.ci95High);
            any = any || std::abs(value) >= 0.005;
        }
        if (any)
            data.segments.push_back(std::move(segment));
    }
    return data;
}

} // namespace loadscope::ui
