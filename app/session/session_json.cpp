#include "app/session/session_json.h"

#include "app/common/background_shares.h"
#include "app/common/printable_text.h"
#include "app/session/result_schema_ranges.h"
#include "app/session/target_options_json.h"
#include "app/session/target_rules.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <algorithm>
#include <atomic>
#include <limits>
#include <optional>
#include <set>
#include <sys/resource.h>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace loadscope::app {

namespace {

QString uuidText(const QUuid& id) {
    return id.toString(QUuid::WithoutBraces);
}

QUuid readUuid(const JsonReader& json, QStringView key) {
    const QString text = json.string(key);
    if (!json.ok())
        return {};
    const QUuid id = QUuid::fromString(text);
    if (id.isNull())
        json.failKey(key, QStringLiteral("is \"%1\", not a target id").arg(text));
    return id;
}

QJsonArray intArray(const std::vector<int>& values) {
    QJsonArray array;
    for (int value : values)
        array.append(value);
    return array;
}

QJsonArray numberArray(const std::vector<double>& values) {
    QJsonArray array;
    for (double value : values)
        array.append(value);
    return array;
}

// One result's JSON, and what was cut from its text before parsing.
struct ParsedResult {
    QJsonValue json;
    std::optional<ResultWithoutHistograms> cut;
};

// Null when a text does not parse to an object: the caller reads the file
// whole, for the error Qt gives it.
std::optional<QJsonValue> parseResultText(QByteArrayView text) {
    QJsonParseError parseError;
    const QJsonDocument document =
        QJsonDocument::fromJson(QByteArray::fromRawData(text.data(), text.size()), &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    return QJsonValue(document.object());
}

// Where the results come from: the parsed file's array, or each result's own
// JSON text (session_file_split.h), parsed on the thread that reads it.
struct ResultsInput {
    const QJsonArray* array = nullptr;
    const std::vector<QByteArrayView>* texts = nullptr;

    size_t size() const { return texts ? texts->size() : size_t(array->size()); }
    // A text's JSON as the file holds it.
    std::optional<QJsonValue> at(size_t i) const {
        if (!texts)
            return array->at(qsizetype(i));
        return parseResultText((*texts)[i]);
    }
    // For reading: a text's histograms cut out and decoded first, where they can be.
    std::optional<ParsedResult> parsedAt(size_t i) const {
        std::optional<ResultWithoutHistograms> cut =
            texts ? cutHistograms((*texts)[i]) : std::nullopt;
        std::optional<QJsonValue> json = cut ? parseResultText(cut->json) : at(i);
        if (!json)
            return std::nullopt;
        return ParsedResult{std::move(*json), std::move(cut)};
    }
};

struct ReadResult {
    // Kept for a result set aside; undefined (not null, QJsonValue's default)
    // when not kept, a text's then parsed again.
    QJsonValue json{QJsonValue::Undefined};
    std::optional<Result<PointResult>> result;
};

// Results are most of a large session's bytes, and each is read on its own
// (parsed when given as text, its histograms checked): spread over the
// machine's cores (background_shares.h), a session of ten thousand opens in a fraction of the time
// one thread takes. `session` is only read meanwhile (its targets). Nullopt
// when a result's text does not parse.
std::optional<std::vector<ReadResult>> readResults(const ResultsInput& input,
                                                   const Session& session) {
    std::vector<ReadResult> read(input.size());
    std::atomic<bool> unparsed{false};
    const auto readRange = [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end && !unparsed.load(std::memory_order_relaxed); ++i) {
            std::optional<ParsedResult> parsed = input.parsedAt(i);
            if (!parsed) {
                unparsed = true;
                return;
            }
            read[i].result.emplace(
                storedResultFromJson(parsed->json, session, parsed->cut ? &*parsed->cut : nullptr));
            // A text's JSON is let go as soon as it is read: kept, every
            // result's would stay in memory until the whole file is read.
            // (Its histograms are cut out: one set aside is parsed again.)
            if (input.array)
                read[i].json = std::move(parsed->json);
        }
    };
    constexpr size_t kPerThread = 256; // below this a thread costs more than it saves
    runInBackgroundShares(read.size(), kPerThread, readRange);
    if (unparsed)
        return std::nullopt;
    return read;
}

std::optional<Result<Session>> readSession(const QJsonObject& root, const ResultsInput* texts);

} // namespace

Result<PointResult> storedResultFromJson(const QJsonValue& value, const Session& session,
                                         const ResultWithoutHistograms* cut) {
    static const std::vector<CutHistogram> none;
    if (!value.isObject())
        return makeError(ErrorCode::Format,
                         QStringLiteral("is %1, not an object").arg(jsonTypeName(value)));
    const JsonReader json(value.toObject());
    PointResult result = pointResultFromJson(json, cut ? cut->histograms : none);
    if (!json.ok())
        return makeError(ErrorCode::Format, json.problemText());
    if (!session.findTarget(result.targetId))
        return makeError(ErrorCode::Format, QStringLiteral("target refers to no target"));
    if (auto inRange = checkResultRanges(result); !inRange)
        return inRange.error();
    if (!cut || !areKnownResultKeys(cut->keys))
        result.unknownFields = unknownResultKeys(value.toObject());
    return result;
}

QJsonObject unknownKeys(const QJsonObject& read, const QJsonObject& savedAgain) {
    QJsonObject unknown;
    for (auto it = read.begin(); it != read.end(); ++it) {
        if (!savedAgain.contains(it.key()))
            unknown.insert(it.key(), it.value());
    }
    return unknown;
}

void keepUnknown(QJsonObject& json, const QJsonObject& unknown) {
    for (auto it = unknown.begin(); it != unknown.end(); ++it) {
        if (!json.contains(it.key()))
            json.insert(it.key(), it.value());
    }
}

QJsonObject targetToJson(const Target& target) {
    QJsonObject json{
        {QStringLiteral("id"), uuidText(target.id)},
        {QStringLiteral("name"), target.name},
        {QStringLiteral("mode"), target.modeLabel()},
        {QStringLiteral("colour"), target.colour},
        {QStringLiteral("protocol"), targetProtocolId(target.protocol)},
        {QStringLiteral("address"), target.address},
    };
    if (target.responseTimeoutSeconds != kDefaultResponseTimeoutSeconds)
        json.insert(QStringLiteral("responseTimeoutSeconds"), target.responseTimeoutSeconds);
    if (target.serverPid > 0)
        json.insert(QStringLiteral("serverPid"), target.serverPid);
    if (!target.serverCgroup.isEmpty())
        json.insert(QStringLiteral("serverCgroup"), target.serverCgroup);
    if (!target.serverHost.isEmpty())
        json.insert(QStringLiteral("serverHost"), target.serverHost);
    if (!target.serverProcess.isEmpty())
        json.insert(QStringLiteral("serverProcess"), target.serverProcess);
    if (!target.serverContainer.isEmpty())
        json.insert(QStringLiteral("serverContainer"), target.serverContainer);
    if (!target.loadFrom.empty()) {
        QJsonArray hosts;
        for (const QString& host : target.loadFrom)
            hosts.append(host);
        json.insert(QStringLiteral("loadFrom"), hosts);
    }
    switch (target.protocol) {
    case TargetProtocol::Http:
        json.insert(QStringLiteral("http"), httpToJson(target.http));
        break;
    case TargetProtocol::Memcache:
        json.insert(QStringLiteral("memcache"), memcacheToJson(target.memcache));
        break;
    case TargetProtocol::TcpRr:
        json.insert(QStringLiteral("tcp-rr"), tcpRrToJson(target.tcpRr));
        break;
    case TargetProtocol::TcpStream:
        json.insert(QStringLiteral("tcp-stream"),
                    QJsonObject{{QStringLiteral("chunkSize"), target.tcpStream.chunkSize}});
        break;
    case TargetProtocol::UdpRr:
        json.insert(QStringLiteral("udp-rr"), udpRrToJson(target.udpRr));
        break;
    case TargetProtocol::UdpStream:
        json.insert(QStringLiteral("udp-stream"), udpStreamToJson(target.udpStream));
        break;
    case TargetProtocol::Redis:
        json.insert(QStringLiteral("redis"), redisToJson(target.redis));
        break;
    }
    if (target.lab)
        json.insert(QStringLiteral("lab"), labPlacementToJson(*target.lab));
    keepUnknown(json, target.unknownFields);
    return json;
}

Target targetFromJson(const JsonReader& json) {
    Target target;
    target.id = readUuid(json, u"id");
    target.name = json.string(u"name");
    const QString mode = json.string(u"mode");
    if (json.ok() && mode.trimmed().isEmpty())
        json.failKey(u"mode", QStringLiteral("is empty"));
    if (const auto known = deploymentModeFromId(mode)) {
        target.mode = *known;
    } else {
        target.mode = DeploymentMode::Custom;
        target.customMode = mode;
    }
    // Empty: none chosen yet, the window picks one from the palette.
    target.colour = json.string(u"colour", {});
    if (json.ok() && !target.colour.isEmpty() && !isValidColour(target.colour))
        json.failKey(u"colour", QStringLiteral("is \"%1\", expected #rrggbb").arg(target.colour));

    const QString protocol = json.string(u"protocol");
    if (const auto known = targetProtocolFromId(protocol))
        target.protocol = *known;
    else if (json.ok())
        json.failUnknownValue(u"protocol", protocol);
    if (!json.ok())
        return target;

    const bool needsAddress = target.protocol != TargetProtocol::Http;
    target.address = needsAddress ? json.string(u"address") : json.string(u"address", {});
    if (json.ok() && needsAddress && target.address.trimmed().isEmpty())
        json.failKey(u"address", QStringLiteral("is empty"));
    else if (const auto endpoint = parseEndpoint(target.address);
             json.ok() && !target.address.trimmed().isEmpty() && !endpoint)
        json.failKey(u"address", endpoint.error().message);
    target.responseTimeoutSeconds = json.number(u"responseTimeoutSeconds", kMinSeconds, kMaxSeconds,
                                                target.responseTimeoutSeconds);
    target.serverPid = int(json.integer(u"serverPid", 1, kMaxPid, 0));
    target.serverCgroup = json.string(u"serverCgroup", {});
    if (json.ok() && !target.serverCgroup.isEmpty() && !checkServerCgroup(target.serverCgroup))
        json.failKey(u"serverCgroup",
                     QStringLiteral("is \"%1\", expected an absolute directory path of one line")
                         .arg(printableText(target.serverCgroup)));
    target.serverHost = json.string(u"serverHost", {});
    if (json.ok() && !target.serverHost.isEmpty()) {
        if (auto checked = checkHostName(target.serverHost); !checked)
            json.failKey(u"serverHost", checked.error().message);
    }
    target.serverProcess = json.string(u"serverProcess", {});
    if (json.ok() && !target.serverProcess.isEmpty()) {
        if (auto checked = checkServerProcessName(target.serverProcess); !checked)
            json.failKey(u"serverProcess", checked.error().message);
    }
    target.serverContainer = json.string(u"serverContainer", {});
    if (json.ok() && !target.serverContainer.isEmpty()) {
        if (auto checked = checkContainerName(target.serverContainer); !checked)
            json.failKey(u"serverContainer", checked.error().message);
    }
    const JsonArrayReader loadFrom = json.array(u"loadFrom", false);
    for (qsizetype i = 0; i < loadFrom.size() && json.ok(); ++i) {
        const QString host = loadFrom.stringAt(i);
        if (!json.ok())
            break;
        if (auto checked = checkHostName(host); !checked)
            json.fail(loadFrom.pathAt(i), checked.error().message);
        else if (std::find(target.loadFrom.begin(), target.loadFrom.end(), host) !=
                 target.loadFrom.end())
            json.fail(loadFrom.pathAt(i), QStringLiteral("names host '%1' twice").arg(host));
        target.loadFrom.push_back(host);
    }
    if (const auto lab = json.optionalObject(u"lab"))
        target.lab = labPlacementFromJson(*lab);
    switch (target.protocol) {
    case TargetProtocol::Http:
        target.http = httpFromJson(json.object(u"http"));
        break;
    case TargetProtocol::Memcache:
        if (const auto options = json.optionalObject(u"memcache"))
            target.memcache = memcacheFromJson(*options);
        break;
    case TargetProtocol::TcpRr:
        if (const auto options = json.optionalObject(u"tcp-rr"))
            target.tcpRr = tcpRrFromJson(*options);
        break;
    case TargetProtocol::TcpStream:
        if (const auto options = json.optionalObject(u"tcp-stream"))
            target.tcpStream.chunkSize =
                int(options->integer(u"chunkSize", 1, kMaxMessageSize, target.tcpStream.chunkSize));
        break;
    case TargetProtocol::UdpRr:
        if (const auto options = json.optionalObject(u"udp-rr"))
            target.udpRr = udpRrFromJson(*options);
        break;
    case TargetProtocol::UdpStream:
        if (const auto options = json.optionalObject(u"udp-stream"))
            target.udpStream = udpStreamFromJson(*options);
        break;
    case TargetProtocol::Redis:
        if (const auto options = json.optionalObject(u"redis"))
            target.redis = redisFromJson(*options);
        break;
    }
    return target;
}

namespace {

QJsonObject capacityPlanToJson(const CapacityPlan& capacity) {
    const CapacityObjective& objective = capacity.objective;
    QJsonObject json{
        {QStringLiteral("percentile"), objective.percentile},
        {QStringLiteral("boundMs"), objective.boundMs},
        {QStringLiteral("precisionPercent"), capacity.precisionPercent},
        {QStringLiteral("maxSteps"), capacity.maxSteps},
        {QStringLiteral("minStepSeconds"), capacity.minStepSeconds},
        {QStringLiteral("maxStepSeconds"), capacity.maxStepSeconds},
    };
    if (objective.maxFailedPercent)
        json.insert(QStringLiteral("maxFailedPercent"), *objective.maxFailedPercent);
    if (objective.minAchievedPercent)
        json.insert(QStringLiteral("minAchievedPercent"), *objective.minAchievedPercent);
    return json;
}

CapacityPlan capacityPlanFromJson(const JsonReader& json) {
    CapacityPlan capacity;
    CapacityObjective& objective = capacity.objective;
    objective.percentile = json.number(u"percentile", kMinObjectivePercentile,
                                       kMaxObjectivePercentile, objective.percentile);
    objective.boundMs = json.number(u"boundMs", 1e-9, kMaxObjectiveBoundMs, objective.boundMs);
    objective.maxFailedPercent = json.optionalNumber(u"maxFailedPercent", 0, 100);
    objective.minAchievedPercent = json.optionalNumber(u"minAchievedPercent", 1e-9, 100);
    capacity.precisionPercent =
        json.number(u"precisionPercent", kMinCapacityPrecisionPercent, kMaxCapacityPrecisionPercent,
                    capacity.precisionPercent);
    capacity.maxSteps =
        int(json.integer(u"maxSteps", kMinCapacitySteps, kMaxCapacitySteps, capacity.maxSteps));
    capacity.minStepSeconds = json.number(u"minStepSeconds", kMinCapacityStepSeconds,
                                          kMaxCapacityStepSeconds, capacity.minStepSeconds);
    capacity.maxStepSeconds = json.number(u"maxStepSeconds", kMinCapacityStepSeconds,
                                          kMaxCapacityStepSeconds, capacity.maxStepSeconds);
    return capacity;
}

} // namespace

QJsonObject sweepPlanToJson(const SweepPlan& plan) {
    QJsonObject json{
        {QStringLiteral("concurrency"), intArray(plan.concurrencyLevels)},
        {QStringLiteral("limit"), pointLimitId(plan.limit)},
        {QStringLiteral("requestsPerPoint"), double(plan.requestsPerPoint)},
        {QStringLiteral("durationSeconds"), plan.durationSeconds},
        {QStringLiteral("threads"), plan.threads},
        {QStringLiteral("cpus"), intArray(plan.cpus)},
        {QStringLiteral("warmupSeconds"), plan.warmupSeconds},
        {QStringLiteral("repetitions"), plan.repetitions},
        {QStringLiteral("pauseSeconds"), plan.pauseSeconds},
        {QStringLiteral("order"), sweepOrderId(plan.order)},
    };
    if (plan.requestsTimeLimitSeconds > 0)
        json.insert(QStringLiteral("requestsTimeLimitSeconds"), plan.requestsTimeLimitSeconds);
    // A plan that never used rate levels writes as before rate sweeps.
    const SweepPlan defaults;
    if (plan.levelKind != defaults.levelKind || plan.rateLevels != defaults.rateLevels ||
        plan.rateConnections != defaults.rateConnections || plan.arrival != defaults.arrival) {
        json.insert(QStringLiteral("levelKind"), sweepLevelKindId(plan.levelKind));
        json.insert(QStringLiteral("rates"), numberArray(plan.rateLevels));
        json.insert(QStringLiteral("rateConnections"), plan.rateConnections);
        json.insert(QStringLiteral("arrival"), arrivalId(plan.arrival));
    }
    if (plan.timerSlackUs > 0)
        json.insert(QStringLiteral("timerSlackUs"), plan.timerSlackUs);
    if (!plan.wakeCoalescing)
        json.insert(QStringLiteral("wakeCoalescing"), false);
    if (plan.profile)
        json.insert(QStringLiteral("profile"), true);
    // Only when set: a plan without one saves as it always did.
    if (plan.precisionPercent > 0) {
        json.insert(QStringLiteral("precisionPercent"), plan.precisionPercent);
        json.insert(QStringLiteral("maxRepetitions"), plan.maxRepetitions);
    }
    // Written only when changed, so files saved before it read back and save the same.
    if (plan.noiseThresholdPercent != kDefaultNoiseThresholdPercent)
        json.insert(QStringLiteral("noiseThresholdPercent"), plan.noiseThresholdPercent);
    if (plan.levelKind == SweepLevelKind::Capacity || plan.capacity != defaults.capacity)
        json.insert(QStringLiteral("capacity"), capacityPlanToJson(plan.capacity));
    return json;
}

SweepPlan sweepPlanFromJson(const JsonReader& json) {
    SweepPlan plan;
    // Files from before rate sweeps have concurrency levels only.
    const QString kind = json.string(u"levelKind", sweepLevelKindId(plan.levelKind));
    if (const auto known = sweepLevelKindFromId(kind))
        plan.levelKind = *known;
    else if (json.ok())
        json.failUnknownValue(u"levelKind", kind);
    const bool byRate = plan.levelKind == SweepLevelKind::Rate;
    const bool byConcurrency = plan.levelKind == SweepLevelKind::Concurrency;
    // The levels of the plan's kind must be there; the others may be absent
    // (a capacity plan has none).
    const JsonArrayReader levels = json.array(u"concurrency", byConcurrency);
    if (levels.size() > 0 || byConcurrency)
        plan.concurrencyLevels.clear();
    std::set<int> seen;
    for (qsizetype i = 0; i < levels.size() && json.ok(); ++i) {
        const int level = int(levels.integerAt(i, 1, kMaxConcurrency));
        if (json.ok() && !seen.insert(level).second)
            json.fail(levels.pathAt(i), QStringLiteral("repeats level %1").arg(level));
        plan.concurrencyLevels.push_back(level);
    }
    const JsonArrayReader rates = json.array(u"rates", byRate);
    if (rates.size() > 0 || byRate)
        plan.rateLevels.clear();
    std::set<double> seenRates;
    for (qsizetype i = 0; i < rates.size() && json.ok(); ++i) {
        const double rate = rates.numberAt(i, kMinRate, kMaxRate);
        if (json.ok() && !seenRates.insert(rate).second)
            json.fail(rates.pathAt(i), QStringLiteral("repeats rate %1").arg(rate));
        plan.rateLevels.push_back(rate);
    }
    plan.rateConnections =
        int(json.integer(u"rateConnections", 1, kMaxConcurrency, plan.rateConnections));
    plan.timerSlackUs = int(json.integer(u"timerSlackUs", 0, kMaxTimerSlackUs, 0));
    plan.wakeCoalescing = json.boolean(u"wakeCoalescing", true);
    plan.profile = json.boolean(u"profile", false);
    const QString arrival = json.string(u"arrival", arrivalId(plan.arrival));
    if (const auto known = arrivalFromId(arrival))
        plan.arrival = *known;
    else if (json.ok())
        json.failUnknownValue(u"arrival", arrival);
    const QString limit = json.string(u"limit", pointLimitId(plan.limit));
    if (const auto known = pointLimitFromId(limit))
        plan.limit = *known;
    else if (json.ok())
        json.failUnknownValue(u"limit", limit);
    // The amount that ends a point must be there; the other one may be absent.
    const bool byRequests = plan.limit == PointLimit::Requests;
    plan.requestsPerPoint =
        byRequests ? uint64_t(json.integer(u"requestsPerPoint", 1, JsonReader::kMaxExactInteger))
                   : uint64_t(json.integer(u"requestsPerPoint", 1, JsonReader::kMaxExactInteger,
                                           int64_t(plan.requestsPerPoint)));
    if (byRequests) {
        plan.durationSeconds =
            json.number(u"durationSeconds", kMinSeconds, kMaxSeconds, plan.durationSeconds);
    } else {
        plan.durationSeconds = json.number(u"durationSeconds", kMinSeconds, kMaxSeconds);
    }
    plan.requestsTimeLimitSeconds =
        json.number(u"requestsTimeLimitSeconds", 0, kMaxSeconds, plan.requestsTimeLimitSeconds);
    plan.threads = int(json.integer(u"threads", 0, kMaxThreads, plan.threads));
    const JsonArrayReader cpus = json.array(u"cpus", false);
    for (qsizetype i = 0; i < cpus.size() && json.ok(); ++i)
        plan.cpus.push_back(int(cpus.integerAt(i, 0, 65535)));
    plan.warmupSeconds = json.number(u"warmupSeconds", 0, kMaxSeconds, plan.warmupSeconds);
    plan.repetitions = int(json.integer(u"repetitions", 1, kMaxRepetitions, plan.repetitions));
    plan.pauseSeconds = json.number(u"pauseSeconds", 0, kMaxSeconds, plan.pauseSeconds);
    plan.precisionPercent =
        json.number(u"precisionPercent", 0, kMaxPrecisionPercent, plan.precisionPercent);
    plan.maxRepetitions =
        int(json.integer(u"maxRepetitions", 1, kMaxRepetitions, plan.maxRepetitions));
    plan.noiseThresholdPercent =
        json.number(u"noiseThresholdPercent", 0, 100, plan.noiseThresholdPercent);
    const QString order = json.string(u"order", sweepOrderId(plan.order));
    if (const auto known = sweepOrderFromId(order))
        plan.order = *known;
    else if (json.ok())
        json.failUnknownValue(u"order", order);
    if (const auto capacity = json.optionalObject(u"capacity"))
        plan.capacity = capacityPlanFromJson(*capacity);
    return plan;
}

QJsonObject sessionToJson(const Session& session) {
    QJsonArray targets;
    for (const Target& target : session.targets)
        targets.append(targetToJson(target));
    QJsonArray results;
    for (const PointResult& result : session.results)
        results.append(pointResultToJson(result));
    // Back where they were read, so that open -> save keeps the file's bytes.
    for (const SetAsideResult& kept : session.setAside)
        results.insert(std::min(kept.index, results.size()), kept.json);
    QJsonArray hosts;
    for (const Host& host : session.hosts)
        hosts.append(hostToJson(host));
    QJsonObject root{
        {QStringLiteral("format"), QString(kSessionFormatName)},
        {QStringLiteral("version"), kSessionFormatVersion},
        {QStringLiteral("name"), session.name},
        {QStringLiteral("notes"), session.notes},
        {QStringLiteral("targets"), targets},
        {QStringLiteral("plan"), sweepPlanToJson(session.plan)},
        {QStringLiteral("results"), results},
    };
    if (session.findTarget(session.baselineTargetId))
        root.insert(QStringLiteral("baseline"), uuidText(session.baselineTargetId));
    if (session.lab)
        root.insert(QStringLiteral("lab"), labSetupToJson(*session.lab));
    if (!session.hosts.empty())
        root.insert(QStringLiteral("hosts"), hosts);
    keepUnknown(root, session.unknownFields);
    return root;
}

Result<Session> sessionFromJson(const QJsonObject& root) {
    return *readSession(root, nullptr);
}

std::optional<Result<Session>> sessionFromSplitJson(const QJsonObject& rest,
                                                    const std::vector<QByteArrayView>& results) {
    const ResultsInput texts{nullptr, &results};
    return readSession(rest, &texts);
}

namespace {

// `texts`: the results as texts, `root`'s own "results" being empty; null:
// they are `root`'s.
std::optional<Result<Session>> readSession(const QJsonObject& root, const ResultsInput* texts) {
    const JsonReader json(root);

    const QString format = json.string(u"format");
    if (json.ok() && format != kSessionFormatName)
        json.failKey(
            u"format",
            QStringLiteral("is \"%1\", expected \"%2\"").arg(format, QString(kSessionFormatName)));
    // Checked before anything else: a newer file's fields may mean something else.
    const int64_t version = json.integer(u"version", 1, std::numeric_limits<int32_t>::max());
    if (json.ok() && version > kSessionFormatVersion) {
        return makeError(ErrorCode::Format,
                         QStringLiteral("was written by a newer Loadscope (session format "
                                        "version %1; this one reads up to %2)")
                             .arg(version)
                             .arg(kSessionFormatVersion));
    }

    Session session;
    session.name = json.string(u"name", {});
    session.notes = json.string(u"notes", {});

    const JsonArrayReader hosts = json.array(u"hosts", false);
    for (qsizetype i = 0; i < hosts.size() && json.ok(); ++i) {
        const JsonReader hostJson = hosts.objectAt(i);
        Host host = hostFromJson(hostJson);
        if (json.ok() && session.findHost(host.name))
            hostJson.failKey(u"name", QStringLiteral("repeats the name of another host"));
        session.hosts.push_back(std::move(host));
    }

    const JsonArrayReader targets = json.array(u"targets");
    for (qsizetype i = 0; i < targets.size() && json.ok(); ++i) {
        const JsonReader targetJson = targets.objectAt(i);
        Target target = targetFromJson(targetJson);
        target.unknownFields = unknownKeys(targetJson.json(), targetToJson(target));
        if (json.ok() && session.findTarget(target.id))
            targetJson.failKey(u"id", QStringLiteral("repeats the id of another target"));
        session.targets.push_back(std::move(target));
    }

    // Every host a target or the lab names is one of the session's.
    const auto checkHostRef = [&](const QString& path, const QString& name) {
        if (json.ok() && !name.isEmpty() && !session.findHost(name))
            json.fail(path, QStringLiteral("names host '%1', which the session's hosts lack")
                                .arg(printable(name)));
    };
    for (qsizetype i = 0; i < qsizetype(session.targets.size()) && json.ok(); ++i) {
        const Target& target = session.targets[size_t(i)];
        const QString path = QStringLiteral("targets[%1]").arg(i);
        checkHostRef(path + QStringLiteral(".serverHost"), target.serverHost);
        for (size_t k = 0; k < target.loadFrom.size(); ++k)
            checkHostRef(path + QStringLiteral(".loadFrom[%1]").arg(k), target.loadFrom[k]);
    }

    if (json.has(u"baseline")) {
        session.baselineTargetId = readUuid(json, u"baseline");
        if (json.ok() && !session.findTarget(session.baselineTargetId))
            json.failKey(u"baseline", QStringLiteral("refers to no target"));
    }

    session.plan = sweepPlanFromJson(json.object(u"plan"));
    if (const auto lab = json.optionalObject(u"lab"))
        session.lab = labSetupFromJson(*lab);
    if (session.lab)
        checkHostRef(QStringLiteral("lab.host"), session.lab->host);

    // Each result is read on its own: one that breaks a rule is set aside,
    // not a reason to refuse every other result of the file.
    json.array(u"results", false);
    const QJsonArray results = root.value(QStringLiteral("results")).toArray();
    const ResultsInput fromArray{&results, nullptr};
    std::optional<std::vector<ReadResult>> read =
        json.ok() ? readResults(texts ? *texts : fromArray, session)
                  : std::optional<std::vector<ReadResult>>(std::in_place);
    if (!read)
        return std::nullopt;
    // A text is parsed again, whole, for a result set aside: its JSON is not kept.
    const auto setAsideJson = [&](const ReadResult& kept) {
        return kept.json.isUndefined() && texts ? *texts->at(size_t(&kept - read->data()))
                                                : kept.json;
    };
    session.results.reserve(read->size());
    std::set<std::tuple<QUuid, int, double, int>> keys;
    for (qsizetype i = 0; i < qsizetype(read->size()) && json.ok(); ++i) {
        Result<PointResult>& result = *(*read)[size_t(i)].result;
        if (result && !keys.emplace(result->targetId, result->concurrency, result->levelRate(),
                                    result->repetition)
                           .second)
            result = makeError(ErrorCode::Format,
                               QStringLiteral("repeats concurrency %1, repetition %2 of its target")
                                   .arg(result->concurrency)
                                   .arg(result->repetition));
        if (result)
            session.results.push_back(std::move(*result));
        else
            session.setAside.push_back({i, setAsideJson((*read)[size_t(i)]),
                                        QStringLiteral("results[%1] set aside: %2")
                                            .arg(i)
                                            .arg(printable(result.error().message))});
    }

    if (json.ok()) {
        // Against the keys of the session without its results: saving every
        // result again would encode each histogram of a large session once more.
        Session keysOnly;
        keysOnly.baselineTargetId = session.baselineTargetId;
        keysOnly.targets = session.targets;
        keysOnly.lab = session.lab;
        keysOnly.hosts = session.hosts;
        session.unknownFields = unknownKeys(root, sessionToJson(keysOnly));
    }
    return json.result(std::move(session));
}

} // namespace

} // namespace loadscope::app
