#include "app/agent/cpu_profile_json.h"

#include <QJsonArray>

namespace loadscope::app {

namespace {

QString latin1(std::string_view text) {
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

constexpr double kMaxSeconds = 1e9;

} // namespace

QJsonObject cpuProfileToJson(const engine::CpuProfile& p) {
    QJsonObject counts;
    for (size_t r = 0; r < engine::kProcessRoleCount; ++r) {
        QJsonObject paths;
        for (size_t q = 0; q < engine::kCpuPathCount; ++q)
            if (const uint64_t n = p.counts[r][q])
                paths.insert(latin1(engine::cpuPathId(engine::CpuPath(q))), double(n));
        if (!paths.isEmpty())
            counts.insert(latin1(engine::processRoleId(engine::ProcessRole(r))), paths);
    }
    QJsonArray stacks;
    for (const engine::FoldedStack& stack : p.stacks)
        stacks.append(QJsonArray{QString::fromStdString(stack.frames), double(stack.samples)});
    return {
        {QStringLiteral("requested"), p.requested},
        {QStringLiteral("unavailable"), QString::fromStdString(p.unavailable)},
        {QStringLiteral("note"), QString::fromStdString(p.note)},
        {QStringLiteral("cpus"), p.cpus},
        {QStringLiteral("periodNs"), double(p.periodNs)},
        {QStringLiteral("samples"), double(p.samples)},
        {QStringLiteral("idleSamples"), double(p.idleSamples)},
        {QStringLiteral("lostSamples"), double(p.lostSamples)},
        {QStringLiteral("profilerSamples"), double(p.profilerSamples)},
        {QStringLiteral("samplerCpuSeconds"), p.samplerCpuSeconds},
        {QStringLiteral("counts"), counts},
        {QStringLiteral("stacks"), stacks},
    };
}

engine::CpuProfile cpuProfileFromJson(const JsonReader& json) {
    engine::CpuProfile p;
    p.requested = json.boolean(u"requested");
    p.unavailable = json.string(u"unavailable").toStdString();
    p.note = json.string(u"note").toStdString();
    p.cpus = int(json.integer(u"cpus", 0, 1 << 20));
    p.periodNs = json.count(u"periodNs");
    p.samples = json.count(u"samples");
    p.idleSamples = json.count(u"idleSamples");
    p.lostSamples = json.count(u"lostSamples");
    p.profilerSamples = json.count(u"profilerSamples");
    p.samplerCpuSeconds = json.number(u"samplerCpuSeconds", 0, kMaxSeconds);
    const JsonReader counts = json.object(u"counts");
    for (const QString& roleId : counts.keys()) {
        const auto role = engine::processRoleFromId(roleId.toStdString());
        if (!role) {
            counts.failUnknownValue(roleId, roleId);
            break;
        }
        const JsonReader paths = counts.object(roleId);
        for (const QString& pathId : paths.keys()) {
            const auto path = engine::cpuPathFromId(pathId.toStdString());
            if (!path) {
                paths.failUnknownValue(pathId, pathId);
                break;
            }
            p.counts[size_t(*role)][size_t(*path)] = paths.count(pathId);
        }
    }
    const JsonArrayReader stacks = json.array(u"stacks");
    for (qsizetype i = 0; i < stacks.size() && json.ok(); ++i) {
        const JsonArrayReader stack = stacks.arrayAt(i);
        if (!json.ok())
            break;
        if (stack.size() != 2) {
            json.fail(stacks.pathAt(i), QStringLiteral("is not [frames, samples]"));
            break;
        }
        engine::FoldedStack folded;
        folded.frames = stack.stringAt(0).toStdString();
        folded.samples = uint64_t(stack.integerAt(1, 0, JsonReader::kMaxExactInteger));
        p.stacks.push_back(std::move(folded));
    }
    return p;
}

} // namespace loadscope::app
