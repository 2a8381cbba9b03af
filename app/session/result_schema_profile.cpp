// The result fields of a point's CPU profile (cpu_profile_summary.h): the
// profile as saved in the session file, the CLI JSON's "cpu_profile" object,
// and per role and per path the µs of CPU per request that the CSVs carry and
// the comparison compares. Added after the first release: their CSV columns
// come after the CPU window's.
#include "app/session/result_schema_builder.h"
#include "engine/run_rates.h"

#include <QJsonArray>
#include <QJsonObject>

namespace loadscope::app::schema_detail {

namespace {

using engine::CpuPath;
using engine::ProcessRole;

QString id(std::string_view text) {
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

template <typename Each> void forEachRole(Each each) {
    for (size_t i = 0; i < engine::kProcessRoleCount; ++i)
        each(ProcessRole(i));
}

template <typename Each> void forEachPath(Each each) {
    for (size_t i = 0; i < engine::kCpuPathCount; ++i)
        each(CpuPath(i));
}

// As saved: the counts themselves (only those above 0), so that the figures
// are derived from them the same way when the file is read again.
QJsonObject savedProfile(const CpuProfileSummary& p) {
    if (!p.taken())
        return {{QStringLiteral("unavailable"), p.unavailable}};
    QJsonObject counts;
    forEachRole([&](ProcessRole role) {
        QJsonObject paths;
        forEachPath([&](CpuPath path) {
            if (const uint64_t n = p.counts[size_t(role)][size_t(path)])
                paths.insert(id(engine::cpuPathId(path)), double(n));
        });
        if (!paths.isEmpty())
            counts.insert(id(engine::processRoleId(role)), paths);
    });
    QJsonArray stacks;
    for (const auto& [frames, samples] : p.stacks)
        stacks.append(QJsonArray{frames, double(samples)});
    QJsonObject json{{QStringLiteral("cpus"), p.cpus},
                     {QStringLiteral("periodUs"), p.periodUs},
                     {QStringLiteral("samples"), double(p.samples)},
                     {QStringLiteral("idleSamples"), double(p.idleSamples)},
                     {QStringLiteral("lostSamples"), double(p.lostSamples)},
                     {QStringLiteral("profilerSamples"), double(p.profilerSamples)},
                     {QStringLiteral("samplerCpuSeconds"), p.samplerCpuSeconds},
                     {QStringLiteral("counts"), counts},
                     {QStringLiteral("stacks"), stacks}};
    if (!p.note.isEmpty())
        json.insert(QStringLiteral("note"), p.note);
    return json;
}

void readProfile(const JsonReader& j, QStringView k, PointResult& r) {
    const auto saved = j.optionalObject(k);
    if (!saved)
        return;
    CpuProfileSummary p;
    if (saved->has(u"unavailable")) {
        p.unavailable = saved->string(u"unavailable");
        if (saved->ok() && p.unavailable.isEmpty())
            saved->failKey(u"unavailable", QStringLiteral("is empty"));
        r.profile = p;
        return;
    }
    p.cpus = int(saved->integer(u"cpus", 0, 1 << 20));
    p.periodUs = saved->number(u"periodUs", 1e-3, 1e9);
    p.samples = saved->count(u"samples");
    p.idleSamples = saved->count(u"idleSamples", 0);
    p.lostSamples = saved->count(u"lostSamples", 0);
    p.profilerSamples = saved->count(u"profilerSamples", 0);
    p.samplerCpuSeconds = saved->number(u"samplerCpuSeconds", 0, kUnbounded, 0);
    p.note = saved->string(u"note", {});
    const JsonReader counts = saved->object(u"counts");
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
    const JsonArrayReader stacks = saved->array(u"stacks", false);
    for (qsizetype i = 0; i < stacks.size() && saved->ok(); ++i) {
        const JsonArrayReader stack = stacks.arrayAt(i);
        if (!saved->ok())
            break;
        if (stack.size() != 2) {
            saved->fail(stacks.pathAt(i), QStringLiteral("is not [frames, samples]"));
            break;
        }
        const QString frames = stack.stringAt(0);
        const int64_t samples = stack.integerAt(1, 0, JsonReader::kMaxExactInteger);
        p.stacks.emplace_back(frames, uint64_t(samples));
    }
    r.profile = p;
}

// What `loadscope-cli --json` says: µs per request by role, by path and by
// both, beside the sample counts.
QJsonObject cliProfile(const PointResult& r) {
    const CpuProfileSummary& p = *r.profile;
    if (!p.taken())
        return {{QStringLiteral("unavailable"), p.unavailable}};
    QJsonObject json{{QStringLiteral("cpus"), p.cpus},
                     {QStringLiteral("period_us"), p.periodUs},
                     {QStringLiteral("samples"), double(p.samples)},
                     {QStringLiteral("idle_samples"), double(p.idleSamples)},
                     {QStringLiteral("lost_samples"), double(p.lostSamples)},
                     {QStringLiteral("sampler_cpu_s"), p.samplerCpuSeconds}};
    if (!p.note.isEmpty())
        json.insert(QStringLiteral("note"), p.note);
    if (const auto own = profileOwnUsPerRequest(r))
        json.insert(QStringLiteral("own_us_per_request"), *own);
    if (!profileRoleUsPerRequest(r, ProcessRole::Client))
        return json; // no successful request to divide by
    QJsonObject byRole;
    QJsonObject byRolePath;
    const double successful = double(engine::rates::successful(r.complete, r.failed));
    forEachRole([&](ProcessRole role) {
        byRole.insert(id(engine::processRoleId(role)), *profileRoleUsPerRequest(r, role));
        QJsonObject paths;
        forEachPath([&](CpuPath path) {
            if (const uint64_t n = p.counts[size_t(role)][size_t(path)])
                paths.insert(id(engine::cpuPathId(path)), double(n) * p.periodUs / successful);
        });
        if (!paths.isEmpty())
            byRolePath.insert(id(engine::processRoleId(role)), paths);
    });
    QJsonObject byPath;
    forEachPath([&](CpuPath path) {
        byPath.insert(id(engine::cpuPathId(path)), *profilePathUsPerRequest(r, path));
    });
    json.insert(QStringLiteral("by_role"), byRole);
    json.insert(QStringLiteral("by_path"), byPath);
    json.insert(QStringLiteral("by_role_path"), byRolePath);
    return json;
}

ResultField& perRequestColumn(ResultSchemaBuilder& b, const QString& fieldId,
                              std::function<std::optional<double>(const PointResult&)> figure) {
    ResultField& field = b.add(fieldId, FieldType::Real, "",
                               [figure](const PointResult& r) { return optionalValue(figure(r)); });
    field.unit = QStringLiteral("µs");
    field.csvColumn = field.id;
    return field;
}

} // namespace

QString profileRoleFieldId(ProcessRole role) {
    return QStringLiteral("profile_%1_us_per_request").arg(id(engine::processRoleId(role)));
}

QString profilePathFieldId(CpuPath path) {
    return QStringLiteral("profile_%1_us_per_request").arg(id(engine::cpuPathId(path)));
}

void addProfileFields(ResultSchemaBuilder& b) {
    b.savedWhenSet(
         "cpu_profile_saved", FieldType::Json, "",
         [](const PointResult& r) {
             return r.profile ? FieldValue(QJsonValue(savedProfile(*r.profile))) : FieldValue();
         },
         "cpuProfile", readProfile)
        .omitInSession = true;
    ResultField& cli = b.add("cpu_profile", FieldType::Json, "", [](const PointResult& r) {
        return r.profile ? FieldValue(QJsonValue(cliProfile(r))) : FieldValue();
    });
    cli.cliKeys = every("cpu_profile");
    cli.omitInCli = true;
    // Per role and per path, compared as any figure (an interval over the
    // repetitions, a change against the baseline).
    forEachRole([&](ProcessRole role) {
        ResultField& field =
            perRequestColumn(b, profileRoleFieldId(role), [role](const PointResult& r) {
                return profileRoleUsPerRequest(r, role);
            });
        field.summaryMetric = field.id;
    });
    forEachPath([&](CpuPath path) {
        ResultField& field =
            perRequestColumn(b, profilePathFieldId(path), [path](const PointResult& r) {
                return profilePathUsPerRequest(r, path);
            });
        field.summaryMetric = field.id;
    });
    // User-space time of each role apart (the kernel role has none).
    forEachRole([&](ProcessRole role) {
        if (role == ProcessRole::Kernel)
            return;
        perRequestColumn(
            b,
            QStringLiteral("profile_%1_user_us_per_request").arg(id(engine::processRoleId(role))),
            [role](const PointResult& r) { return profileRoleUserUsPerRequest(r, role); });
    });
    perRequestColumn(b, QStringLiteral("profile_own_us_per_request"), &profileOwnUsPerRequest);
    const struct {
        const char* id;
        uint64_t CpuProfileSummary::*member;
    } counts[] = {{"profile_samples", &CpuProfileSummary::samples},
                  {"profile_idle_samples", &CpuProfileSummary::idleSamples},
                  {"profile_lost_samples", &CpuProfileSummary::lostSamples}};
    for (const auto& count : counts) {
        const auto member = count.member;
        b.add(count.id, FieldType::Count, "samples", [member](const PointResult& r) {
             return r.profile && r.profile->taken() ? FieldValue((*r.profile).*member)
                                                    : FieldValue();
         }).csvColumn = QLatin1String(count.id);
    }
    b.add("profile_unavailable", FieldType::Text, "", [](const PointResult& r) {
         return r.profile && !r.profile->taken() ? FieldValue(r.profile->unavailable)
                                                 : FieldValue();
     }).csvColumn = QStringLiteral("profile_unavailable");
}

} // namespace loadscope::app::schema_detail
