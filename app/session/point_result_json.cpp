// The result part of the session file; see session_json.h for the shape. The
// scalar fields and their keys come from the result schema (result_schema.h);
// the latency distributions, stored as histograms, are written here.
#include "app/common/base64.h"
#include "app/session/result_schema.h"
#include "app/session/session_json.h"

#include <QJsonArray>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace loadscope::app {

namespace {

// Any finite number is read; the ranges are result_schema_ranges.h's.
constexpr double kAnyNumber = std::numeric_limits<double>::max();

QString percentileKey(double percentile) {
    return QString::number(percentile, 'g', 12);
}

// min, mean, sd, max and the percentiles as plain numbers.
void figuresToJson(const LatencySummary& summary, QJsonObject& json) {
    auto put = [&json](const char* key, const std::optional<double>& value) {
        if (value)
            json.insert(QLatin1StringView(key), *value);
    };
    put("minMs", summary.minMs);
    put("meanMs", summary.meanMs);
    put("sdMs", summary.sdMs);
    put("maxMs", summary.maxMs);
    if (!summary.percentilesMs.empty()) {
        QJsonObject percentiles;
        for (const auto& [percentile, ms] : summary.percentilesMs)
            percentiles.insert(percentileKey(percentile), ms);
        json.insert(QStringLiteral("percentiles"), percentiles);
    }
}

// A stored histogram carries its figures beside it: reading numbers back costs
// nothing, summarising the histogram again walks every bucket (most of the
// time it took to open a session of ten thousand results).
QJsonObject distributionToJson(const LatencySummary& summary, const QByteArray& histogram) {
    QJsonObject json;
    figuresToJson(summary, json);
    if (!histogram.isEmpty())
        json.insert(QStringLiteral("histogram"), QString::fromLatin1(histogram.toBase64()));
    return json;
}

void figuresFromJson(const JsonReader& json, LatencySummary* summary) {
    summary->minMs = json.optionalNumber(u"minMs", -kAnyNumber, kAnyNumber);
    summary->meanMs = json.optionalNumber(u"meanMs", -kAnyNumber, kAnyNumber);
    summary->sdMs = json.optionalNumber(u"sdMs", -kAnyNumber, kAnyNumber);
    summary->maxMs = json.optionalNumber(u"maxMs", -kAnyNumber, kAnyNumber);
    if (const auto percentiles = json.optionalObject(u"percentiles")) {
        const QJsonObject& object = percentiles->json();
        // Every stored histogram carries the standard eleven: looked up by
        // their spelling, with no key string made and parsed per entry. Any
        // other key sends the whole object through the general reading below.
        static const std::vector<std::pair<double, QString>> standard = [] {
            std::vector<std::pair<double, QString>> keys;
            for (double p : standardPercentiles())
                keys.emplace_back(p, percentileKey(p));
            return keys;
        }();
        qsizetype standardFound = 0;
        for (const auto& [percentile, key] : standard) {
            const QJsonValue value = object.value(key);
            const double ms = value.toDouble();
            if (!value.isDouble() || !std::isfinite(ms))
                break;
            summary->percentilesMs[percentile] = ms;
            ++standardFound;
        }
        if (standardFound == qsizetype(standard.size()) && object.size() == standardFound)
            return;
        summary->percentilesMs.clear();
        for (auto it = object.begin(); it != object.end(); ++it) {
            const QString key = it.key();
            bool ok = false;
            const double percentile = key.toDouble(&ok);
            if (!ok || !std::isfinite(percentile)) {
                percentiles->failKey(key, QStringLiteral("is not a percentile (0 to 100)"));
                return;
            }
            const QJsonValue value = it.value();
            const double ms = value.toDouble();
            summary->percentilesMs[percentile] =
                value.isDouble() && std::isfinite(ms)
                    ? ms
                    : percentiles->number(key, -kAnyNumber, kAnyNumber); // names the problem
        }
    }
}

bool hasFigures(const JsonReader& json) {
    return json.has(u"minMs") || json.has(u"meanMs") || json.has(u"sdMs") || json.has(u"maxMs") ||
           json.has(u"percentiles");
}

// Figures written beside a histogram must be the ones its header fixes: a file
// edited by hand, or one whose numbers were damaged, is refused as a corrupt
// histogram would be. (sd and percentiles would take the walk to check.)
void checkFigure(const JsonReader& json, QStringView key, std::optional<double> written,
                 std::optional<double> held) {
    if (!json.ok() || written == held)
        return;
    if (!held)
        json.failKey(key, QStringLiteral("is set, but the histogram holds no value"));
    else if (!written)
        json.failKey(key, QStringLiteral("is missing (the histogram's is %1 ms)").arg(*held));
    else
        json.failKey(key, QStringLiteral("does not match the histogram (%1 ms)").arg(*held));
}

// `cut`: the histogram's bytes when its text was taken out before parsing
// (cutHistograms(), session_file_split.h), the JSON holding "" in its place.
void distributionFromJson(const JsonReader& json, LatencySummary* summary, QByteArray* histogram,
                          const QByteArray* cut) {
    if (!json.has(u"histogram")) {
        figuresFromJson(json, summary);
        return;
    }
    const QString text = json.string(u"histogram");
    std::optional<QByteArray> bytes =
        cut && text.isEmpty() ? std::optional<QByteArray>(*cut) : decodeBase64(text);
    if (!json.ok())
        return;
    if (!hasFigures(json)) {
        // As files written before the figures were stored beside the histogram:
        // checked and summarised in one pass, without decoding the buckets.
        const std::optional<LatencySummary> summarized =
            bytes && !bytes->isEmpty() ? summarizeSerialized(*bytes) : std::nullopt;
        if (!summarized) {
            json.failKey(u"histogram", QStringLiteral("is not a valid histogram"));
            return;
        }
        *histogram = std::move(*bytes);
        *summary = *summarized;
        return;
    }
    // Its checksum and header only: any damage to the file's bytes fails the
    // CRC-32, and the walk over every bucket that checking the runs takes was
    // most of what remained of the time to open a large session. A histogram
    // rewritten behind a right checksum is refused where its buckets are read
    // (Histogram::mergeSerialized(), deserialize()), which is never unsafe.
    const std::optional<LatencySummary> held =
        bytes && !bytes->isEmpty() ? serializedHeader(*bytes) : std::nullopt;
    if (!held) {
        json.failKey(u"histogram", QStringLiteral("is not a valid histogram"));
        return;
    }
    LatencySummary written;
    figuresFromJson(json, &written);
    checkFigure(json, u"minMs", written.minMs, held->minMs);
    checkFigure(json, u"meanMs", written.meanMs, held->meanMs);
    checkFigure(json, u"maxMs", written.maxMs, held->maxMs);
    if (!json.ok())
        return;
    *histogram = std::move(*bytes);
    *summary = std::move(written);
}

constexpr const char16_t* kLatencyKeys[] = {u"total",      u"connect",     u"waiting",
                                            u"processing", u"uncorrected", u"tls"};

} // namespace

QJsonObject pointResultToJson(const PointResult& result) {
    QJsonObject json;
    for (const ResultField& field : resultSchema()) {
        if (field.sessionKey.isEmpty())
            continue;
        // A parent object of the first format is written even when every key
        // in it is left out ("reported": {}).
        const qsizetype slash = field.sessionKey.indexOf(QLatin1Char('/'));
        if (slash > 0 && !field.sessionOnlyWhenSet && !json.contains(field.sessionKey.left(slash)))
            json.insert(field.sessionKey.left(slash), QJsonObject());
        const FieldValue value = field.value(result);
        if (field.omitInSession && std::holds_alternative<std::monostate>(value))
            continue;
        const QJsonValue saved = fieldJson(field, value);
        if (field.sessionOnlyWhenSet && isEmptyJson(saved))
            continue;
        insertJsonPath(json, field.sessionKey, saved);
    }

    const LatencySummary* summaries[] = {&result.total,      &result.connect,     &result.waiting,
                                         &result.processing, &result.uncorrected, &result.tls};
    const QByteArray* histograms[] = {&result.totalHistogram,       &result.connectHistogram,
                                      &result.waitingHistogram,     &result.processingHistogram,
                                      &result.uncorrectedHistogram, &result.tlsHistogram};
    QJsonObject latency;
    for (size_t i = 0; i < std::size(kLatencyKeys); ++i) {
        if (!summaries[i]->isEmpty() || !histograms[i]->isEmpty())
            latency.insert(QStringView(kLatencyKeys[i]),
                           distributionToJson(*summaries[i], *histograms[i]));
    }
    QJsonObject operations;
    for (const auto& [name, summary] : result.perOperation) {
        const auto histogram = result.perOperationHistograms.find(name);
        operations.insert(
            name, distributionToJson(summary, histogram == result.perOperationHistograms.end()
                                                  ? QByteArray()
                                                  : histogram->second));
    }
    for (const auto& [name, histogram] : result.perOperationHistograms) {
        if (!result.perOperation.count(name))
            operations.insert(name, distributionToJson({}, histogram));
    }
    json.insert(QStringLiteral("latency"), latency);
    json.insert(QStringLiteral("operations"), operations);
    if (!result.agents.empty())
        json.insert(QStringLiteral("agents"), agentSharesToJson(result.agents));
    keepUnknown(json, result.unknownFields);
    return json;
}

QJsonArray agentSharesToJson(const std::vector<AgentShare>& agents) {
    QJsonArray array;
    for (const AgentShare& agent : agents) {
        QJsonObject json{
            {QStringLiteral("host"), agent.host},
            {QStringLiteral("clockOffsetMs"), agent.clockOffsetMs},
            {QStringLiteral("clockUncertaintyMs"), agent.clockUncertaintyMs},
            {QStringLiteral("startMs"), agent.startMs},
            {QStringLiteral("endMs"), agent.endMs},
        };
        if (!agent.software.isEmpty())
            json.insert(QStringLiteral("software"), agent.software);
        if (!agent.error.isEmpty())
            json.insert(QStringLiteral("error"), agent.error);
        if (!agent.result.empty())
            json.insert(QStringLiteral("result"), pointResultToJson(agent.result.front()));
        array.append(json);
    }
    return array;
}

std::vector<AgentShare> agentSharesFromJson(const JsonArrayReader& array) {
    std::vector<AgentShare> agents;
    constexpr double kAnyTime = 1e12; // ms: any clock offset a machine can have
    for (qsizetype i = 0; i < array.size(); ++i) {
        const JsonReader json = array.objectAt(i);
        if (!json.ok())
            break;
        AgentShare agent;
        agent.host = json.string(u"host");
        agent.software = json.string(u"software", {});
        agent.clockOffsetMs = json.number(u"clockOffsetMs", -kAnyTime, kAnyTime);
        agent.clockUncertaintyMs = json.number(u"clockUncertaintyMs", 0, kAnyTime);
        agent.startMs = json.number(u"startMs", -kAnyTime, kAnyTime);
        agent.endMs = json.number(u"endMs", -kAnyTime, kAnyTime);
        agent.error = json.string(u"error", {});
        if (const auto result = json.optionalObject(u"result")) {
            PointResult part = pointResultFromJson(*result);
            if (result->has(u"agents"))
                result->failKey(u"agents", QStringLiteral("is nested in an agent's result"));
            agent.result.push_back(std::move(part));
        }
        agents.push_back(std::move(agent));
    }
    return agents;
}

namespace {

// The top-level keys a result's fields and distributions use.
const QSet<QString>& knownResultKeys() {
    static const QSet<QString> known = [] {
        QSet<QString> keys{QStringLiteral("latency"), QStringLiteral("operations"),
                           QStringLiteral("agents")};
        for (const ResultField& field : resultSchema()) {
            if (!field.sessionKey.isEmpty())
                keys.insert(field.sessionKey.section(QLatin1Char('/'), 0, 0));
        }
        return keys;
    }();
    return known;
}

} // namespace

QJsonObject unknownResultKeys(const QJsonObject& read) {
    // By name rather than by saving each result again: that would encode
    // every histogram of a large session once more on open.
    const QSet<QString>& known = knownResultKeys();
    QJsonObject unknown;
    for (auto it = read.begin(); it != read.end(); ++it) {
        if (!known.contains(it.key()))
            unknown.insert(it.key(), it.value());
    }
    return unknown;
}

bool areKnownResultKeys(const std::vector<QByteArrayView>& keys) {
    // UTF-8 as written, sorted for a binary search: every key the schema
    // names is plain ASCII.
    static const std::vector<QByteArray> known = [] {
        std::vector<QByteArray> sorted;
        for (const QString& key : knownResultKeys())
            sorted.push_back(key.toUtf8());
        std::sort(sorted.begin(), sorted.end());
        return sorted;
    }();
    return std::all_of(keys.begin(), keys.end(), [](QByteArrayView key) {
        return std::binary_search(known.begin(), known.end(), key,
                                  [](QByteArrayView a, QByteArrayView b) { return a < b; });
    });
}

PointResult pointResultFromJson(const JsonReader& json, const std::vector<CutHistogram>& cut) {
    const auto cutBytes = [&cut](bool inOperations, QStringView name) -> const QByteArray* {
        for (const CutHistogram& histogram : cut) {
            if (histogram.inOperations == inOperations && histogram.name == name)
                return &histogram.bytes;
        }
        return nullptr;
    };
    PointResult result;
    // The parents of nested keys ("errors/connect"), each looked up once per
    // result rather than once per field: a dozen objects, against some sixty
    // lookups, path strings and copies per result.
    std::vector<std::pair<QStringView, std::optional<JsonReader>>> parents;
    parents.reserve(16);
    const auto parentNamed = [&](QStringView name) -> const std::optional<JsonReader>& {
        for (const auto& [key, parent] : parents) {
            if (key == name)
                return parent;
        }
        return parents.emplace_back(name, json.optionalObject(name)).second;
    };
    for (const ResultField& field : resultSchema()) {
        if (field.sessionKey.isEmpty() || !json.ok())
            continue;
        const qsizetype slash = field.sessionKey.indexOf(QLatin1Char('/'));
        if (slash < 0) {
            field.read(json, field.sessionKey, result);
        } else if (const auto& parent = parentNamed(QStringView(field.sessionKey).left(slash))) {
            field.read(*parent, QStringView(field.sessionKey).mid(slash + 1), result);
        }
    }

    // Files from before every result named its tool: Loadscope measured them.
    if (result.source.tool.isEmpty() && result.source.kind == ResultSource::Kind::Measured)
        result.source.tool = QStringLiteral("loadscope");

    if (const auto latency = json.optionalObject(u"latency")) {
        LatencySummary* summaries[] = {&result.total,      &result.connect,     &result.waiting,
                                       &result.processing, &result.uncorrected, &result.tls};
        QByteArray* histograms[] = {&result.totalHistogram,       &result.connectHistogram,
                                    &result.waitingHistogram,     &result.processingHistogram,
                                    &result.uncorrectedHistogram, &result.tlsHistogram};
        for (size_t i = 0; i < std::size(kLatencyKeys); ++i) {
            if (const auto distribution = latency->optionalObject(QStringView(kLatencyKeys[i])))
                distributionFromJson(*distribution, summaries[i], histograms[i],
                                     cutBytes(false, QStringView(kLatencyKeys[i])));
        }
    }
    if (const auto operations = json.optionalObject(u"operations")) {
        for (const QString& name : operations->keys()) {
            LatencySummary summary;
            QByteArray histogram;
            distributionFromJson(operations->object(name), &summary, &histogram,
                                 cutBytes(true, name));
            result.perOperation[name] = summary;
            if (!histogram.isEmpty())
                result.perOperationHistograms[name] = histogram;
        }
    }
    if (json.ok() && json.has(u"agents"))
        result.agents = agentSharesFromJson(json.array(u"agents"));
    return result;
}

} // namespace loadscope::app
