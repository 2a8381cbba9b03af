// The result fields of where the CPU went (cpu_usage.h): the raw window in the
// session file, the derived figures in the CSV, the CLI JSON's "cpu" object
// and the comparison. Added after the first release, so their CSV columns come last.
#include "app/session/result_schema_builder.h"

#include <QJsonObject>

namespace loadscope::app::schema_detail {

namespace {

// The window as saved: one "cpu" object with every counter, so that a
// file's keys do not depend on which counters happened to be 0.
QJsonObject cpuJson(const PointResult& r) {
    const CpuUsage& c = *r.cpu;
    QJsonObject json{{QStringLiteral("wallSeconds"), c.wallSeconds},
                     {QStringLiteral("cpus"), c.cpus},
                     {QStringLiteral("user"), c.user},
                     {QStringLiteral("system"), c.system},
                     {QStringLiteral("irq"), c.irq},
                     {QStringLiteral("softirq"), c.softirq},
                     {QStringLiteral("steal"), c.steal},
                     {QStringLiteral("idle"), c.idle},
                     {QStringLiteral("frequencyChanged"), c.frequencyChanged},
                     {QStringLiteral("noise"), r.noise}};
    if (c.serverSeconds)
        json.insert(QStringLiteral("serverSeconds"), *c.serverSeconds);
    // Recorded since the other-load rule depends on them: absent in older files.
    if (c.softirqThreadSeconds)
        json.insert(QStringLiteral("softirqThreadSeconds"), *c.softirqThreadSeconds);
    if (c.interruptsInProcessTimes)
        json.insert(QStringLiteral("interruptsInProcessTimes"), *c.interruptsInProcessTimes);
    if (!c.host.isEmpty())
        json.insert(QStringLiteral("host"), c.host);
    if (c.clientSecondsHere)
        json.insert(QStringLiteral("clientSecondsHere"), *c.clientSecondsHere);
    return json;
}

void readCpuJson(const JsonReader& j, QStringView k, PointResult& r) {
    const auto cpu = j.optionalObject(k);
    if (!cpu)
        return;
    CpuUsage c;
    // Any finite number: the ranges are result_schema_ranges.h's.
    c.wallSeconds = cpu->number(u"wallSeconds", -kUnbounded, kUnbounded);
    c.cpus = int(cpu->integer(u"cpus", 0, 1 << 20, 0));
    c.user = cpu->number(u"user", -kUnbounded, kUnbounded, 0);
    c.system = cpu->number(u"system", -kUnbounded, kUnbounded, 0);
    c.irq = cpu->number(u"irq", -kUnbounded, kUnbounded, 0);
    c.softirq = cpu->number(u"softirq", -kUnbounded, kUnbounded, 0);
    c.steal = cpu->number(u"steal", -kUnbounded, kUnbounded, 0);
    c.idle = cpu->number(u"idle", -kUnbounded, kUnbounded, 0);
    c.serverSeconds = cpu->optionalNumber(u"serverSeconds", -kUnbounded, kUnbounded);
    c.frequencyChanged = cpu->boolean(u"frequencyChanged", false);
    c.softirqThreadSeconds = cpu->optionalNumber(u"softirqThreadSeconds", -kUnbounded, kUnbounded);
    if (cpu->has(u"interruptsInProcessTimes"))
        c.interruptsInProcessTimes = cpu->boolean(u"interruptsInProcessTimes");
    c.host = cpu->string(u"host", {});
    c.clientSecondsHere = cpu->optionalNumber(u"clientSecondsHere", -kUnbounded, kUnbounded);
    r.noise = cpu->string(u"noise", {});
    r.cpu = c;
}

void addRawWindow(ResultSchemaBuilder& b) {
    b.savedWhenSet(
         "cpu_window", FieldType::Json, "",
         [](const PointResult& r) {
             return r.cpu ? FieldValue(QJsonValue(cpuJson(r))) : FieldValue();
         },
         "cpu", readCpuJson)
        .omitInSession = true;
    ResultField& server = b.add("server_cpu_s", FieldType::Real, "s", [](const PointResult& r) {
        return r.cpu ? optionalValue(r.cpu->serverSeconds) : FieldValue();
    });
    server.csvColumn = server.id;
    server.cliKeys = every("cpu/server_cpu_s");
    server.omitInCli = true;
}

void addMachineShares(ResultSchemaBuilder& b) {
    const struct {
        const char* id;
        const char* cli;
        double CpuUsage::*member;
    } shares[] = {{"cpu_user_percent", "cpu/user_percent", &CpuUsage::user},
                  {"cpu_system_percent", "cpu/system_percent", &CpuUsage::system},
                  {"cpu_irq_percent", "cpu/irq_percent", &CpuUsage::irq},
                  {"cpu_softirq_percent", "cpu/softirq_percent", &CpuUsage::softirq},
                  {"cpu_steal_percent", "cpu/steal_percent", &CpuUsage::steal},
                  {"cpu_idle_percent", "cpu/idle_percent", &CpuUsage::idle}};
    for (const auto& share : shares) {
        const auto member = share.member;
        ResultField& field = b.add(share.id, FieldType::Real, "%", [member](const PointResult& r) {
            return r.cpu ? FieldValue(r.cpu->percentOfMachine((*r.cpu).*member)) : FieldValue();
        });
        field.csvColumn = field.id;
        field.cliKeys = every(share.cli);
        field.omitInCli = true;
    }
}

void addDerived(ResultSchemaBuilder& b) {
    const struct {
        const char* id;
        const char* cli;
        const char* unit;
        std::optional<double> (*figure)(const PointResult&);
    } derived[] = {
        {"server_cpu_us_per_request", "cpu/server_us_per_request", "µs", &serverCpuUsPerRequest},
        {"softirq_us_per_request", "cpu/softirq_us_per_request", "µs", &softirqUsPerRequest},
        {"client_cpu_us_per_request", "cpu/client_us_per_request", "µs", &clientCpuUsPerRequest},
        {"other_load_percent", "cpu/other_load_percent", "%", &otherLoadPercent},
    };
    for (const auto& d : derived) {
        const auto figure = d.figure;
        ResultField& field = b.add(d.id, FieldType::Real, "", [figure](const PointResult& r) {
            return optionalValue(figure(r));
        });
        field.unit = QString::fromUtf8(d.unit);
        field.csvColumn = field.summaryMetric = field.id;
        field.cliKeys = every(d.cli);
        // Left out without a window (or, per request, without a success); the
        // server's also where its CPU was not measured.
        field.omitInCli = true;
    }
    ResultField& noisy = b.add("noisy", FieldType::Flag, "", [](const PointResult& r) {
        return r.cpu ? FieldValue(!r.noise.isEmpty()) : FieldValue();
    });
    noisy.csvColumn = noisy.id;
    noisy.cliKeys = every("cpu/noisy");
    noisy.omitInCli = true;
    ResultField& reason = b.add("noise_reason", FieldType::Text, "", [](const PointResult& r) {
        return r.cpu ? FieldValue(r.noise) : FieldValue();
    });
    reason.csvColumn = reason.id;
    reason.cliKeys = every("cpu/noise_reason");
    reason.omitInCli = true;
}

} // namespace

void addCpuFields(ResultSchemaBuilder& b) {
    addDerived(b);
    addMachineShares(b);
    addRawWindow(b);
}

} // namespace loadscope::app::schema_detail
