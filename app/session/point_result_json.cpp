// The result part of the session file; see session_json.h for the shape.
#include "app/session/session_json.h"
#include "engine/histogram.h"

#include <QJsonArray>
#include <cmath>
#include <limits>
#include <string_view>

namespace loadscope::app {

namespace {

constexpr double kMaxMs = 3.6e9; // a thousand hours: beyond anything a tool reports
constexpr double kUnbounded = std::numeric_limits<double>::max();

QString percentileKey(double percentile) {
    return QString::number(percentile, 'g', 12);
}

QJsonObject distributionToJson(const LatencySummary& summary, const QByteArray& histogram) {
    if (!histogram.isEmpty())
        return {{QStringLiteral("histogram"), QString::fromLatin1(histogram.toBase64())}};
    QJsonObject json;
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
    return json;
}

void distributionFromJson(const JsonReader& json, LatencySummary* summary, QByteArray* histogram) {
    if (json.has(u"histogram")) {
        const QString text = json.string(u"histogram");
        const auto base64 = QByteArray::fromBase64Encoding(text.toLatin1(),
                                                           QByteArray::AbortOnBase64DecodingErrors);
        const QByteArray& bytes = base64.decoded;
        const bool valid = base64 && !bytes.isEmpty() &&
                           engine::Histogram::deserialize(std::string_view(
                               bytes.constData(), static_cast<size_t>(bytes.size())));
        if (!json.ok())
            return;
        if (!valid) {
            json.failKey(u"histogram", QStringLiteral("is not a valid histogram"));
            return;
        }
        *histogram = bytes;
        *summary = summarize(*histogram);
        return;
    }
    summary->minMs = json.optionalNumber(u"minMs", 0, kMaxMs);
    summary->meanMs = json.optionalNumber(u"meanMs", 0, kMaxMs);
    summary->sdMs = json.optionalNumber(u"sdMs", 0, kMaxMs);
    summary->maxMs = json.optionalNumber(u"maxMs", 0, kMaxMs);
    if (const auto percentiles = json.optionalObject(u"percentiles")) {
        for (const QString& key : percentiles->keys()) {
            bool ok = false;
            const double percentile = key.toDouble(&ok);
            if (!ok || percentile < 0 || percentile > 100) {
                percentiles->failKey(key, QStringLiteral("is not a percentile (0 to 100)"));
                return;
            }
            summary->percentilesMs[percentile] = percentiles->number(key, 0, kMaxMs);
        }
    }
}

constexpr const char16_t* kLatencyKeys[] = {u"total", u"connect", u"waiting", u"processing"};

} // namespace

QJsonObject pointResultToJson(const PointResult& result) {
    const ResultSource& source = result.source;
    const QJsonObject sourceJson{
        {QStringLiteral("kind"), source.kind == ResultSource::Kind::Imported
                                     ? QStringLiteral("imported")
                                     : QStringLiteral("measured")},
        {QStringLiteral("tool"), source.tool},
        {QStringLiteral("toolVersion"), source.toolVersion},
        {QStringLiteral("file"), source.file},
        {QStringLiteral("fingerprint"), source.fingerprint},
    };
    const RunEnvironment& environment = result.environment;
    QJsonObject environmentJson{
        {QStringLiteral("hostName"), environment.hostName},
        {QStringLiteral("kernel"), environment.kernel},
        {QStringLiteral("cpuModel"), environment.cpuModel},
        {QStringLiteral("cores"), environment.cores},
        {QStringLiteral("loadscopeVersion"), environment.loadscopeVersion},
        {QStringLiteral("threadPlacement"), environment.threadPlacement},
    };
    if (environment.startedAt.isValid()) {
        // Keeping the recorded offset makes the text stable across time zones.
        const QDateTime& at = environment.startedAt;
        environmentJson.insert(QStringLiteral("startedAt"),
                               at.toOffsetFromUtc(at.offsetFromUtc()).toString(Qt::ISODateWithMs));
    }

    QJsonObject errors;
    for (size_t i = 0; i < engine::kErrorClassCount; ++i) {
        const std::string_view name = engine::errorClassName(static_cast<engine::ErrorClass>(i));
        errors.insert(QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())),
                      double(result.errors[i]));
    }
    QJsonObject statusCodes;
    for (const auto& [code, count] : result.statusCodes)
        statusCodes.insert(QString::number(code), double(count));
    QJsonObject reported;
    if (result.reportedRequestsPerSecond)
        reported.insert(QStringLiteral("requestsPerSecond"), *result.reportedRequestsPerSecond);
    if (result.reportedTransferKiBps)
        reported.insert(QStringLiteral("transferKiBps"), *result.reportedTransferKiBps);
    if (result.reportedThroughputMbitps)
        reported.insert(QStringLiteral("throughputMbitps"), *result.reportedThroughputMbitps);

    const LatencySummary* summaries[] = {&result.total, &result.connect, &result.waiting,
                                         &result.processing};
    const QByteArray* histograms[] = {&result.totalHistogram, &result.connectHistogram,
                                      &result.waitingHistogram, &result.processingHistogram};
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

    return {
        {QStringLiteral("target"), result.targetId.toString(QUuid::WithoutBraces)},
        {QStringLiteral("concurrency"), result.concurrency},
        {QStringLiteral("repetition"), result.repetition},
        {QStringLiteral("source"), sourceJson},
        {QStringLiteral("environment"), environmentJson},
        {QStringLiteral("complete"), double(result.complete)},
        {QStringLiteral("failed"), double(result.failed)},
        {QStringLiteral("errors"), errors},
        {QStringLiteral("non2xx"), double(result.non2xx)},
        {QStringLiteral("keepAlive"), double(result.keepAlive)},
        {QStringLiteral("statusCodes"), statusCodes},
        {QStringLiteral("bytesTotal"), double(result.bytesTotal)},
        {QStringLiteral("bytesBody"), double(result.bytesBody)},
        {QStringLiteral("bytesSent"), double(result.bytesSent)},
        {QStringLiteral("durationSeconds"), result.durationSeconds},
        {QStringLiteral("threads"), result.threads},
        {QStringLiteral("serverSoftware"), result.serverSoftware},
        {QStringLiteral("documentLength"), double(result.documentLength)},
        {QStringLiteral("hits"), double(result.hits)},
        {QStringLiteral("misses"), double(result.misses)},
        {QStringLiteral("clientCpuSeconds"), result.clientCpuSeconds},
        {QStringLiteral("firstError"), result.firstError},
        {QStringLiteral("cancelled"), result.cancelled},
        {QStringLiteral("reported"), reported},
        {QStringLiteral("latency"), latency},
        {QStringLiteral("operations"), operations},
    };
}

PointResult pointResultFromJson(const JsonReader& json) {
    PointResult result;
    const QString target = json.string(u"target");
    result.targetId = QUuid::fromString(target);
    if (json.ok() && result.targetId.isNull())
        json.failKey(u"target", QStringLiteral("is \"%1\", not a target id").arg(target));
    result.concurrency = int(json.integer(u"concurrency", 1, kMaxConcurrency));
    result.repetition = int(json.integer(u"repetition", 0, kMaxRepetitions - 1));

    if (const auto source = json.optionalObject(u"source")) {
        const QString kind = source->string(u"kind", QStringLiteral("measured"));
        if (kind == u"imported")
            result.source.kind = ResultSource::Kind::Imported;
        else if (kind != u"measured" && json.ok())
            source->failUnknownValue(u"kind", kind);
        result.source.tool = source->string(u"tool", {});
        result.source.toolVersion = source->string(u"toolVersion", {});
        result.source.file = source->string(u"file", {});
        result.source.fingerprint = source->string(u"fingerprint", {});
    }
    if (const auto environment = json.optionalObject(u"environment")) {
        RunEnvironment& env = result.environment;
        if (environment->has(u"startedAt")) {
            const QString text = environment->string(u"startedAt");
            env.startedAt = QDateTime::fromString(text, Qt::ISODateWithMs);
            if (json.ok() && !env.startedAt.isValid())
                environment->failKey(
                    u"startedAt",
                    QStringLiteral("is \"%1\", not an ISO 8601 date and time").arg(text));
        }
        env.hostName = environment->string(u"hostName", {});
        env.kernel = environment->string(u"kernel", {});
        env.cpuModel = environment->string(u"cpuModel", {});
        env.cores = int(environment->integer(u"cores", 0, 1 << 20, 0));
        env.loadscopeVersion = environment->string(u"loadscopeVersion", {});
        env.threadPlacement = environment->string(u"threadPlacement", {});
    }

    result.complete = json.count(u"complete");
    result.failed = json.count(u"failed", 0);
    if (const auto errors = json.optionalObject(u"errors")) {
        for (size_t i = 0; i < engine::kErrorClassCount; ++i) {
            const std::string_view name =
                engine::errorClassName(static_cast<engine::ErrorClass>(i));
            result.errors[i] = errors->count(
                QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())), 0);
        }
    }
    result.non2xx = json.count(u"non2xx", 0);
    result.keepAlive = json.count(u"keepAlive", 0);
    if (const auto codes = json.optionalObject(u"statusCodes")) {
        for (const QString& key : codes->keys()) {
            bool ok = false;
            const int code = key.toInt(&ok);
            if (!ok || code < 0 || code > 999) {
                codes->failKey(key, QStringLiteral("is not an HTTP status code"));
                break;
            }
            result.statusCodes[code] = codes->count(key);
        }
    }
    result.bytesTotal = json.count(u"bytesTotal", 0);
    result.bytesBody = json.count(u"bytesBody", 0);
    result.bytesSent = json.count(u"bytesSent", 0);
    result.durationSeconds = json.number(u"durationSeconds", 0, kUnbounded);
    result.threads = int(json.integer(u"threads", 0, kMaxThreads, 0));
    result.serverSoftware = json.string(u"serverSoftware", {});
    result.documentLength = json.integer(u"documentLength", -1, JsonReader::kMaxExactInteger, -1);
    result.hits = json.count(u"hits", 0);
    result.misses = json.count(u"misses", 0);
    result.clientCpuSeconds = json.number(u"clientCpuSeconds", 0, kUnbounded, 0);
    result.firstError = json.string(u"firstError", {});
    result.cancelled = json.boolean(u"cancelled", false);

    if (const auto reported = json.optionalObject(u"reported")) {
        result.reportedRequestsPerSecond =
            reported->optionalNumber(u"requestsPerSecond", 0, kUnbounded);
        result.reportedTransferKiBps = reported->optionalNumber(u"transferKiBps", 0, kUnbounded);
        result.reportedThroughputMbitps =
            reported->optionalNumber(u"throughputMbitps", 0, kUnbounded);
    }

    if (const auto latency = json.optionalObject(u"latency")) {
        LatencySummary* summaries[] = {&result.total, &result.connect, &result.waiting,
                                       &result.processing};
        QByteArray* histograms[] = {&result.totalHistogram, &result.connectHistogram,
                                    &result.waitingHistogram, &result.processingHistogram};
        for (size_t i = 0; i < std::size(kLatencyKeys); ++i) {
            if (const auto distribution = latency->optionalObject(QStringView(kLatencyKeys[i])))
                distributionFromJson(*distribution, summaries[i], histograms[i]);
        }
    }
    if (const auto operations = json.optionalObject(u"operations")) {
        for (const QString& name : operations->keys()) {
            LatencySummary summary;
            QByteArray histogram;
            distributionFromJson(operations->object(name), &summary, &histogram);
            result.perOperation[name] = summary;
            if (!histogram.isEmpty())
                result.perOperationHistograms[name] = histogram;
        }
    }
    return result;
}

} // namespace loadscope::app
