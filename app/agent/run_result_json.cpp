#include "app/agent/run_result_json.h"

#include "app/agent/cpu_profile_json.h"

#include <QJsonArray>
#include <limits>
#include <string>

namespace loadscope::app {

namespace {

QString histogramText(const engine::Histogram& histogram) {
    const std::string bytes = histogram.serialize();
    return QString::fromLatin1(QByteArray(bytes.data(), qsizetype(bytes.size())).toBase64());
}

engine::Histogram histogramFrom(const JsonReader& json, QStringView key) {
    const QString text = json.string(key);
    if (!json.ok())
        return {};
    const auto decoded =
        QByteArray::fromBase64Encoding(text.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    std::optional<engine::Histogram> histogram;
    if (decoded)
        histogram = engine::Histogram::deserialize(
            std::string_view(decoded.decoded.constData(), size_t(decoded.decoded.size())));
    if (!histogram) {
        json.failKey(key, QStringLiteral("is not an engine histogram"));
        return {};
    }
    return std::move(*histogram);
}

QString text(const std::string& s) {
    return QString::fromStdString(s);
}

constexpr double kMaxSeconds = 1e9;

} // namespace

QJsonObject progressToJson(const engine::Progress& progress) {
    return {
        {QStringLiteral("elapsedSeconds"), progress.elapsedSeconds},
        {QStringLiteral("warmingUp"), progress.warmingUp},
        {QStringLiteral("complete"), double(progress.complete)},
        {QStringLiteral("failed"), double(progress.failed)},
        {QStringLiteral("bytesReceived"), double(progress.bytesReceived)},
        {QStringLiteral("bytesSent"), double(progress.bytesSent)},
        {QStringLiteral("target"), double(progress.target)},
        {QStringLiteral("targetSeconds"), progress.targetSeconds},
        {QStringLiteral("intervalSeconds"), progress.intervalSeconds},
        {QStringLiteral("intervalComplete"), double(progress.intervalComplete)},
        {QStringLiteral("intervalLatency"), histogramText(progress.intervalLatency)},
    };
}

engine::Progress progressFromJson(const JsonReader& json) {
    engine::Progress progress;
    progress.elapsedSeconds = json.number(u"elapsedSeconds", -kMaxSeconds, kMaxSeconds);
    progress.warmingUp = json.boolean(u"warmingUp");
    progress.complete = json.count(u"complete");
    progress.failed = json.count(u"failed");
    progress.bytesReceived = json.count(u"bytesReceived");
    progress.bytesSent = json.count(u"bytesSent");
    progress.target = json.count(u"target");
    progress.targetSeconds = json.number(u"targetSeconds", 0, kMaxSeconds);
    progress.intervalSeconds = json.number(u"intervalSeconds", 0, kMaxSeconds);
    progress.intervalComplete = json.count(u"intervalComplete");
    progress.intervalLatency = histogramFrom(json, u"intervalLatency");
    return progress;
}

QJsonObject cpuWindowToJson(const engine::CpuWindow& w) {
    QJsonArray busy;
    for (double seconds : w.busyPerCpu)
        busy.append(seconds);
    QJsonObject json{
        {QStringLiteral("valid"), w.valid},
        {QStringLiteral("wallSeconds"), w.wallSeconds},
        {QStringLiteral("cpus"), w.cpus},
        {QStringLiteral("user"), w.user},
        {QStringLiteral("system"), w.system},
        {QStringLiteral("irq"), w.irq},
        {QStringLiteral("softirq"), w.softirq},
        {QStringLiteral("steal"), w.steal},
        {QStringLiteral("idle"), w.idle},
        {QStringLiteral("frequencyChanged"), w.frequencyChanged},
        {QStringLiteral("minFrequencyKHz"), double(w.minFrequencyKHz)},
        {QStringLiteral("maxFrequencyKHz"), double(w.maxFrequencyKHz)},
        {QStringLiteral("busyPerCpu"), busy},
    };
    if (w.serverCpuSeconds)
        json.insert(QStringLiteral("serverCpuSeconds"), *w.serverCpuSeconds);
    if (w.softirqThreadSeconds)
        json.insert(QStringLiteral("softirqThreadSeconds"), *w.softirqThreadSeconds);
    if (w.interruptsInProcessTimes)
        json.insert(QStringLiteral("interruptsInProcessTimes"), *w.interruptsInProcessTimes);
    return json;
}

engine::CpuWindow cpuWindowFromJson(const JsonReader& json) {
    constexpr double kMaxCpuSeconds = 1e12;
    engine::CpuWindow w;
    w.valid = json.boolean(u"valid");
    w.wallSeconds = json.number(u"wallSeconds", 0, kMaxSeconds);
    w.cpus = int(json.integer(u"cpus", 0, 1 << 20));
    w.user = json.number(u"user", 0, kMaxCpuSeconds);
    w.system = json.number(u"system", 0, kMaxCpuSeconds);
    w.irq = json.number(u"irq", 0, kMaxCpuSeconds);
    w.softirq = json.number(u"softirq", 0, kMaxCpuSeconds);
    w.steal = json.number(u"steal", 0, kMaxCpuSeconds);
    w.idle = json.number(u"idle", 0, kMaxCpuSeconds);
    w.frequencyChanged = json.boolean(u"frequencyChanged");
    w.minFrequencyKHz = json.count(u"minFrequencyKHz");
    w.maxFrequencyKHz = json.count(u"maxFrequencyKHz");
    if (json.has(u"serverCpuSeconds"))
        w.serverCpuSeconds = json.number(u"serverCpuSeconds", 0, kMaxCpuSeconds);
    if (json.has(u"softirqThreadSeconds"))
        w.softirqThreadSeconds = json.number(u"softirqThreadSeconds", 0, kMaxCpuSeconds);
    if (json.has(u"interruptsInProcessTimes"))
        w.interruptsInProcessTimes = json.boolean(u"interruptsInProcessTimes");
    const JsonArrayReader busy = json.array(u"busyPerCpu");
    for (qsizetype i = 0; i < busy.size() && json.ok(); ++i)
        w.busyPerCpu.push_back(busy.numberAt(i, 0, kMaxCpuSeconds));
    return w;
}

namespace {

// The network counters' window: each namespace's counters by their engine names.
constexpr struct {
    const char* key;
    uint64_t engine::NetCounters::*member;
} kNetCounters[] = {
    {"tcpRetransmits", &engine::NetCounters::tcpRetransmits},
    {"synRetransmits", &engine::NetCounters::synRetransmits},
    {"listenOverflows", &engine::NetCounters::listenOverflows},
    {"listenDrops", &engine::NetCounters::listenDrops},
    {"tcpTimeouts", &engine::NetCounters::tcpTimeouts},
    {"resetsSent", &engine::NetCounters::resetsSent},
    {"establishedResets", &engine::NetCounters::establishedResets},
    {"conntrackInsertFailed", &engine::NetCounters::conntrackInsertFailed},
    {"conntrackDrop", &engine::NetCounters::conntrackDrop},
    {"conntrackEarlyDrop", &engine::NetCounters::conntrackEarlyDrop},
    {"conntrackInvalid", &engine::NetCounters::conntrackInvalid},
};

QJsonObject netWindowToJson(const engine::NetWindow& w) {
    QJsonArray namespaces;
    for (const engine::NetNamespaceSample& n : w.namespaces) {
        QJsonArray roles;
        for (const engine::NetRole role : n.roles) {
            const std::string_view name = engine::netRoleName(role);
            roles.append(QString::fromLatin1(name.data(), qsizetype(name.size())));
        }
        QJsonObject counters;
        for (const auto& c : kNetCounters)
            counters.insert(QLatin1String(c.key), double(n.counters.*c.member));
        counters.insert(QStringLiteral("conntrack"), n.counters.conntrack);
        QJsonArray links;
        for (const engine::LinkDrops& link : n.counters.links)
            links.append(QJsonObject{{QStringLiteral("name"), QString::fromStdString(link.name)},
                                     {QStringLiteral("received"), double(link.received)},
                                     {QStringLiteral("sent"), double(link.sent)}});
        counters.insert(QStringLiteral("links"), links);
        namespaces.append(QJsonObject{{QStringLiteral("roles"), roles},
                                      {QStringLiteral("id"), double(n.id)},
                                      {QStringLiteral("valid"), n.valid},
                                      {QStringLiteral("counters"), counters}});
    }
    QJsonObject json{{QStringLiteral("valid"), w.valid},
                     {QStringLiteral("namespaces"), namespaces}};
    if (w.softnet)
        json.insert(QStringLiteral("softnet"),
                    QJsonObject{{QStringLiteral("dropped"), double(w.softnet->dropped)},
                                {QStringLiteral("timeSqueeze"), double(w.softnet->timeSqueeze)}});
    return json;
}

engine::NetWindow netWindowFromJson(const JsonReader& json) {
    engine::NetWindow w;
    w.valid = json.boolean(u"valid");
    const JsonArrayReader namespaces = json.array(u"namespaces");
    for (qsizetype i = 0; i < namespaces.size() && json.ok(); ++i) {
        const JsonReader n = namespaces.objectAt(i);
        engine::NetNamespaceSample sample;
        const JsonArrayReader roles = n.array(u"roles");
        for (qsizetype r = 0; r < roles.size() && json.ok(); ++r) {
            const QString name = roles.stringAt(r);
            const auto role = engine::netRoleFromName(name.toStdString());
            if (!role && json.ok())
                json.fail(roles.pathAt(r), QStringLiteral("is not a namespace's role"));
            else if (role)
                sample.roles.push_back(*role);
        }
        if (sample.roles.empty() && json.ok())
            n.failKey(u"roles", QStringLiteral("names no role"));
        sample.id = n.count(u"id");
        sample.valid = n.boolean(u"valid");
        const JsonReader counters = n.object(u"counters");
        for (const auto& c : kNetCounters)
            sample.counters.*c.member = counters.count(QString::fromLatin1(c.key));
        sample.counters.conntrack = counters.boolean(u"conntrack");
        const JsonArrayReader links = counters.array(u"links");
        for (qsizetype l = 0; l < links.size() && json.ok(); ++l) {
            const JsonReader link = links.objectAt(l);
            sample.counters.links.push_back(
                {link.string(u"name").toStdString(), link.count(u"received"), link.count(u"sent")});
        }
        w.namespaces.push_back(std::move(sample));
    }
    if (const auto softnet = json.optionalObject(u"softnet"))
        w.softnet =
            engine::SoftnetCounters{softnet->count(u"dropped"), softnet->count(u"timeSqueeze")};
    return w;
}

// UDP's counts (added after the protocol's first version: an optional object).
using DatagramCounter = uint64_t engine::RunResult::*;
constexpr std::pair<const char*, DatagramCounter> kDatagramCounts[] = {
    {"answersDuplicate", &engine::RunResult::answersDuplicate},
    {"answersLate", &engine::RunResult::answersLate},
    {"answersStray", &engine::RunResult::answersStray},
    {"answersOutOfOrder", &engine::RunResult::answersOutOfOrder},
    {"sent", &engine::RunResult::datagramsSent},
    {"sendErrors", &engine::RunResult::sendErrors},
    {"sinkDatagrams", &engine::RunResult::sinkDatagrams},
    {"sinkBytes", &engine::RunResult::sinkBytes},
    {"sinkOutOfOrder", &engine::RunResult::sinkOutOfOrder},
    {"sinkDuplicates", &engine::RunResult::sinkDuplicates},
};

QJsonObject datagramsToJson(const engine::RunResult& r) {
    QJsonObject json{{QStringLiteral("sinkReports"), double(r.sinkReports)}};
    for (const auto& [key, member] : kDatagramCounts)
        json.insert(QLatin1String(key), double(r.*member));
    return json;
}

void datagramsFromJson(const JsonReader& json, engine::RunResult& r) {
    r.sinkReports =
        uint32_t(json.integer(u"sinkReports", 0, std::numeric_limits<uint32_t>::max(), 0));
    for (const auto& [key, member] : kDatagramCounts)
        r.*member = json.count(QString::fromLatin1(key), 0);
}

} // namespace

QJsonObject runResultToJson(const engine::RunResult& r) {
    QJsonObject errors;
    for (size_t i = 0; i < engine::kErrorClassCount; ++i) {
        const std::string_view name = engine::errorClassName(engine::ErrorClass(i));
        errors.insert(QString::fromLatin1(name.data(), qsizetype(name.size())),
                      double(r.errors[i]));
    }
    QJsonObject statusCodes;
    for (const auto& [code, count] : r.statusCodes)
        statusCodes.insert(QString::number(code), double(count));
    QJsonArray operations;
    for (const engine::OperationStats& op : r.operations)
        operations.append(QJsonObject{
            {QStringLiteral("name"), text(op.name)},
            {QStringLiteral("count"), double(op.count)},
            {QStringLiteral("hits"), double(op.hits)},
            {QStringLiteral("misses"), double(op.misses)},
            {QStringLiteral("bytesReceived"), double(op.bytesReceived)},
            {QStringLiteral("latency"), histogramText(op.latency)},
        });
    QJsonArray threadCpus;
    for (int cpu : r.threadCpus)
        threadCpus.append(cpu);
    QJsonObject json{
        {QStringLiteral("complete"), double(r.complete)},
        {QStringLiteral("failed"), double(r.failed)},
        {QStringLiteral("errors"), errors},
        {QStringLiteral("non2xx"), double(r.non2xx)},
        {QStringLiteral("keepAlive"), double(r.keepAlive)},
        {QStringLiteral("connectionsOpened"), double(r.connectionsOpened)},
        {QStringLiteral("statusCodes"), statusCodes},
        {QStringLiteral("bytesTotal"), double(r.bytesTotal)},
        {QStringLiteral("bytesBody"), double(r.bytesBody)},
        {QStringLiteral("bytesSent"), double(r.bytesSent)},
        {QStringLiteral("durationSeconds"), r.durationSeconds},
        {QStringLiteral("concurrency"), double(r.concurrency)},
        {QStringLiteral("threads"), double(r.threads)},
        {QStringLiteral("serverSoftware"), text(r.serverSoftware)},
        {QStringLiteral("documentLength"), double(r.documentLength)},
        {QStringLiteral("firstError"), text(r.firstError)},
        {QStringLiteral("total"), histogramText(r.total)},
        {QStringLiteral("connect"), histogramText(r.connect)},
        {QStringLiteral("waiting"), histogramText(r.waiting)},
        {QStringLiteral("processing"), histogramText(r.processing)},
        {QStringLiteral("uncorrected"), histogramText(r.uncorrected)},
        {QStringLiteral("offeredRate"), r.offeredRate},
        {QStringLiteral("maxBacklog"), double(r.maxBacklog)},
        {QStringLiteral("clientSaturated"), r.clientSaturated},
        {QStringLiteral("tls"), histogramText(r.tls)},
        {QStringLiteral("tlsHandshakes"), double(r.tlsHandshakes)},
        {QStringLiteral("tlsResumed"), double(r.tlsResumed)},
        {QStringLiteral("tlsProtocol"), text(r.tlsProtocol)},
        {QStringLiteral("tlsCipher"), text(r.tlsCipher)},
        {QStringLiteral("cpu"), cpuWindowToJson(r.cpu)},
        {QStringLiteral("net"), netWindowToJson(r.net)},
        {QStringLiteral("operations"), operations},
        {QStringLiteral("hits"), double(r.hits)},
        {QStringLiteral("misses"), double(r.misses)},
        {QStringLiteral("threadCpus"), threadCpus},
        {QStringLiteral("pinned"), r.pinned},
        {QStringLiteral("clientCpuSeconds"), r.clientCpuSeconds},
        {QStringLiteral("streamsStalled"), double(r.streamsStalled)},
        {QStringLiteral("datagrams"), datagramsToJson(r)},
        {QStringLiteral("cancelled"), r.cancelled},
        {QStringLiteral("unreachable"), r.unreachable},
    };
    // Optional: an agent that profiled nothing says nothing of it.
    if (r.profile.requested)
        json.insert(QStringLiteral("profile"), cpuProfileToJson(r.profile));
    // Optional: an agent that does not know it leaves it out, and none is read as none.
    if (!r.errorReplyCodes.empty()) {
        QJsonObject codes;
        for (const auto& [code, count] : r.errorReplyCodes)
            codes.insert(text(code), double(count));
        json.insert(QStringLiteral("errorReplyCodes"), codes);
    }
    return json;
}

engine::RunResult runResultFromJson(const JsonReader& json) {
    constexpr int64_t kMaxU32 = std::numeric_limits<uint32_t>::max();
    engine::RunResult r;
    r.complete = json.count(u"complete");
    r.failed = json.count(u"failed");
    const JsonReader errors = json.object(u"errors");
    for (size_t i = 0; i < engine::kErrorClassCount; ++i) {
        const std::string_view name = engine::errorClassName(engine::ErrorClass(i));
        // A class added after the protocol's first version is optional.
        const QString key = QString::fromLatin1(name.data(), qsizetype(name.size()));
        r.errors[i] = engine::ErrorClass(i) == engine::ErrorClass::Lost ? errors.count(key, 0)
                                                                        : errors.count(key);
    }
    r.non2xx = json.count(u"non2xx");
    r.keepAlive = json.count(u"keepAlive");
    r.connectionsOpened = json.count(u"connectionsOpened");
    const JsonReader statusCodes = json.object(u"statusCodes");
    for (const QString& key : statusCodes.keys()) {
        bool numeric = false;
        const int code = key.toInt(&numeric);
        if (!numeric || code < 0 || code > 999) {
            statusCodes.failKey(key, QStringLiteral("is not a status code"));
            break;
        }
        r.statusCodes[code] = statusCodes.count(key);
    }
    if (const auto codes = json.optionalObject(u"errorReplyCodes"))
        for (const QString& code : codes->keys())
            r.errorReplyCodes[code.toStdString()] = codes->count(code);
    r.bytesTotal = json.count(u"bytesTotal");
    r.bytesBody = json.count(u"bytesBody");
    r.bytesSent = json.count(u"bytesSent");
    r.durationSeconds = json.number(u"durationSeconds", 0, kMaxSeconds);
    r.concurrency = uint32_t(json.integer(u"concurrency", 0, kMaxU32));
    r.threads = uint32_t(json.integer(u"threads", 0, kMaxU32));
    r.serverSoftware = json.string(u"serverSoftware").toStdString();
    r.documentLength = json.integer(u"documentLength", -1, JsonReader::kMaxExactInteger);
    r.firstError = json.string(u"firstError").toStdString();
    r.total = histogramFrom(json, u"total");
    r.connect = histogramFrom(json, u"connect");
    r.waiting = histogramFrom(json, u"waiting");
    r.processing = histogramFrom(json, u"processing");
    r.uncorrected = histogramFrom(json, u"uncorrected");
    r.offeredRate = json.number(u"offeredRate", 0, 1e12);
    r.maxBacklog = json.count(u"maxBacklog");
    r.clientSaturated = json.boolean(u"clientSaturated");
    r.tls = histogramFrom(json, u"tls");
    r.tlsHandshakes = json.count(u"tlsHandshakes");
    r.tlsResumed = json.count(u"tlsResumed");
    r.tlsProtocol = json.string(u"tlsProtocol").toStdString();
    r.tlsCipher = json.string(u"tlsCipher").toStdString();
    r.cpu = cpuWindowFromJson(json.object(u"cpu"));
    // Optional: an agent older than the network counters sends none.
    if (const auto net = json.optionalObject(u"net"))
        r.net = netWindowFromJson(*net);
    const JsonArrayReader operations = json.array(u"operations");
    for (qsizetype i = 0; i < operations.size() && json.ok(); ++i) {
        const JsonReader op = operations.objectAt(i);
        engine::OperationStats stats;
        stats.name = op.string(u"name").toStdString();
        stats.count = op.count(u"count");
        stats.hits = op.count(u"hits");
        stats.misses = op.count(u"misses");
        stats.bytesReceived = op.count(u"bytesReceived");
        stats.latency = histogramFrom(op, u"latency");
        r.operations.push_back(std::move(stats));
    }
    r.hits = json.count(u"hits");
    r.misses = json.count(u"misses");
    const JsonArrayReader threadCpus = json.array(u"threadCpus");
    for (qsizetype i = 0; i < threadCpus.size() && json.ok(); ++i)
        r.threadCpus.push_back(int(threadCpus.integerAt(i, -1, 1 << 20)));
    r.pinned = json.boolean(u"pinned");
    r.clientCpuSeconds = json.number(u"clientCpuSeconds", 0, kMaxSeconds);
    r.streamsStalled = uint32_t(json.integer(u"streamsStalled", 0, kMaxU32));
    if (const auto datagrams = json.optionalObject(u"datagrams"))
        datagramsFromJson(*datagrams, r);
    r.cancelled = json.boolean(u"cancelled");
    r.unreachable = json.boolean(u"unreachable");
    if (const auto profile = json.optionalObject(u"profile"))
        r.profile = cpuProfileFromJson(*profile);
    return r;
}

} // namespace loadscope::app
