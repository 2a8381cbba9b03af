// The result fields no results-CSV column carries, and the schema's lookups.
#include "app/session/result_schema_builder.h"
#include "app/session/sweep_plan.h"
#include "engine/run_rates.h"

#include <QJsonArray>
#include <QUuid>

namespace loadscope::app {

namespace schema_detail {

namespace {

namespace rates = engine::rates;

uint64_t operationCount(const PointResult& r, const char* name) {
    const auto found = r.operationCounts.find(QLatin1String(name));
    return found == r.operationCounts.end() ? 0 : found->second;
}

const LatencySummary& operationSummary(const PointResult& r, const char* name) {
    static const LatencySummary none;
    const auto found = r.perOperation.find(QLatin1String(name));
    return found == r.perOperation.end() ? none : found->second;
}

void addProvenance(ResultSchemaBuilder& b) {
    b.saved(
        "target", FieldType::Text, "",
        [](const PointResult& r) { return FieldValue(r.targetId.toString(QUuid::WithoutBraces)); },
        "target",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            const QString text = j.string(k);
            r.targetId = QUuid::fromString(text);
            if (j.ok() && r.targetId.isNull())
                j.failKey(k, QStringLiteral("is \"%1\", not a target id").arg(text));
        });
    b.savedText("source_file", "source/file", &PointResult::source, &ResultSource::file);
    b.savedText("source_fingerprint", "source/fingerprint", &PointResult::source,
                &ResultSource::fingerprint);
    b.savedText("kernel", "environment/kernel", &PointResult::environment, &RunEnvironment::kernel);
    b.savedText("cpu_model", "environment/cpuModel", &PointResult::environment,
                &RunEnvironment::cpuModel);
    b.savedText("loadscope_version", "environment/loadscopeVersion", &PointResult::environment,
                &RunEnvironment::loadscopeVersion);
    b.saved(
        "cores", FieldType::Integer, "cores",
        [](const PointResult& r) { return FieldValue(int64_t(r.environment.cores)); },
        "environment/cores",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            r.environment.cores = int(j.integer(k, 0, 1 << 20, 0));
        });

    // Where a lab point ran (added after the first release: saved when set).
    b.savedWhenSet(
        "lab_mtu", FieldType::Integer, "bytes",
        [](const PointResult& r) {
            return r.environment.labMtu > 0 ? FieldValue(int64_t(r.environment.labMtu))
                                            : FieldValue();
        },
        "environment/labMtu",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            r.environment.labMtu = int(j.integer(k, 0, 65535, 0));
        });
    const struct {
        const char* id;
        const char* key;
        QString RunEnvironment::*member;
    } labTexts[] = {{"lab_path", "environment/labPath", &RunEnvironment::labPath},
                    {"lab_client", "environment/labClient", &RunEnvironment::labClient},
                    {"lab_versions", "environment/labVersions", &RunEnvironment::labVersions}};
    for (const auto& text : labTexts) {
        const auto member = text.member;
        b.savedWhenSet(
            text.id, FieldType::Text, "",
            [member](const PointResult& r) {
                const QString& value = r.environment.*member;
                return value.isEmpty() ? FieldValue() : FieldValue(value);
            },
            text.key,
            [member](const JsonReader& j, QStringView k, PointResult& r) {
                r.environment.*member = j.string(k, {});
            });
    }

    // Rates exactly as an imported tool printed them (they win over derived ones).
    const struct {
        const char* id;
        const char* key;
        const char* unit;
        std::optional<double> PointResult::*member;
    } reported[] = {
        {"reported_requests_per_second", "reported/requestsPerSecond", "req/s",
         &PointResult::reportedRequestsPerSecond},
        {"reported_transfer_rate_kib_s", "reported/transferKiBps", "KiB/s",
         &PointResult::reportedTransferKiBps},
        {"reported_throughput_mbit_s", "reported/throughputMbitps", "Mbit/s",
         &PointResult::reportedThroughputMbitps},
        {"reported_time_per_request_ms", "reported/timePerRequestMs", "ms",
         &PointResult::reportedTimePerRequestMs},
        {"reported_time_per_request_across_ms", "reported/timePerRequestAcrossMs", "ms",
         &PointResult::reportedTimePerRequestAcrossMs},
        {"reported_delivered_mbit_s", "reported/deliveredMbitps", "Mbit/s",
         &PointResult::reportedDeliveredMbitps},
    };
    for (const auto& figure : reported) {
        const auto member = figure.member;
        b.saved(
             figure.id, FieldType::Real, figure.unit,
             [member](const PointResult& r) { return optionalValue(r.*member); }, figure.key,
             [member](const JsonReader& j, QStringView k, PointResult& r) {
                 // Any finite number: its range is checked by result_schema_ranges.h.
                 r.*member = j.optionalNumber(k, -kUnbounded, kUnbounded);
             })
            .omitInSession = true;
    }
}

void addPlacement(ResultSchemaBuilder& b) {
    ResultField& statusCodes = b.saved(
        "status_codes", FieldType::Json, "responses",
        [](const PointResult& r) {
            QJsonObject codes;
            for (const auto& [code, count] : r.statusCodes)
                codes.insert(QString::number(code), double(count));
            return FieldValue(QJsonValue(codes));
        },
        "statusCodes",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            const auto codes = j.optionalObject(k);
            if (!codes)
                return;
            for (const QString& key : codes->keys()) {
                bool ok = false;
                const int code = key.toInt(&ok);
                if (!ok || code < 0 || code > 999) {
                    codes->failKey(key, QStringLiteral("is not an HTTP status code"));
                    break;
                }
                r.statusCodes[code] = codes->count(key);
            }
        });
    statusCodes.cliKeys = only(TargetProtocol::Http, "status_codes");

    ResultField& threadCpus = b.savedWhenSet(
        "thread_cpus", FieldType::Json, "",
        [](const PointResult& r) {
            QJsonArray cpus;
            for (int cpu : r.threadCpus)
                cpus.append(cpu);
            return FieldValue(QJsonValue(cpus));
        },
        "threadCpus",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            const JsonArrayReader cpus = j.array(k, false);
            for (qsizetype i = 0; i < cpus.size() && j.ok(); ++i)
                r.threadCpus.push_back(int(cpus.integerAt(i, 0, 65535)));
        });
    threadCpus.cliKeys = every("thread_cpus");
    b.savedWhenSet(
         "threads_pinned", FieldType::Flag, "",
         [](const PointResult& r) { return FieldValue(r.pinned); }, "pinned",
         [](const JsonReader& j, QStringView k, PointResult& r) { r.pinned = j.boolean(k, false); })
        .cliKeys = every("threads_pinned");
    b.add("client_cpu_load", FieldType::Real, "", [](const PointResult& r) {
         return FieldValue(r.clientCpuLoad());
     }).cliKeys = every("client_cpu_load");
    b.savedWhenSet(
         "connections_opened", FieldType::Count, "connections",
         [](const PointResult& r) { return FieldValue(r.connectionsOpened); }, "connectionsOpened",
         [](const JsonReader& j, QStringView k, PointResult& r) {
             r.connectionsOpened = j.count(k, 0);
         })
        .cliKeys = every("connections_opened");
}

void addMemcache(ResultSchemaBuilder& b) {
    constexpr TargetProtocol kMemcache = TargetProtocol::Memcache;
    const struct {
        const char* id;
        const char* key;
        const char* cli;
        uint64_t ErrorReplies::*member;
    } replies[] = {
        {"error_replies_error", "errorReplies/error", "error_replies/error", &ErrorReplies::error},
        {"error_replies_client_error", "errorReplies/clientError", "error_replies/client_error",
         &ErrorReplies::clientError},
        {"error_replies_server_error", "errorReplies/serverError", "error_replies/server_error",
         &ErrorReplies::serverError},
    };
    for (const auto& reply : replies) {
        const auto member = reply.member;
        b.savedWhenSet(
             reply.id, FieldType::Count, "replies",
             [member](const PointResult& r) { return FieldValue(r.errorReplies.*member); },
             reply.key,
             [member](const JsonReader& j, QStringView k, PointResult& r) {
                 r.errorReplies.*member = j.count(k, 0);
             })
            .cliKeys = only(kMemcache, reply.cli);
    }
    // Redis's error replies by class (the first word of each), saved when any came.
    b.savedWhenSet(
         "error_reply_codes", FieldType::Json, "replies",
         [](const PointResult& r) {
             QJsonObject codes;
             for (const auto& [code, count] : r.errorReplyCodes)
                 codes.insert(code, double(count));
             return FieldValue(QJsonValue(codes));
         },
         "errorReplyCodes",
         [](const JsonReader& j, QStringView k, PointResult& r) {
             if (const auto codes = j.optionalObject(k))
                 for (const QString& code : codes->keys())
                     r.errorReplyCodes[code] = codes->count(code);
         })
        .cliKeys = only(TargetProtocol::Redis, "error_replies");
    // Redis's --command runs name their own operations ("hset": 300, "hget": 100).
    b.savedWhenSet(
         "operation_counts", FieldType::Json, "replies",
         [](const PointResult& r) {
             QJsonObject counts;
             for (const auto& [name, count] : r.operationCounts)
                 counts.insert(name, double(count));
             return FieldValue(QJsonValue(counts));
         },
         "operationCounts",
         [](const JsonReader& j, QStringView k, PointResult& r) {
             if (const auto counts = j.optionalObject(k))
                 for (const QString& name : counts->keys())
                     r.operationCounts[name] = counts->count(name);
         })
        .cliKeys = only(TargetProtocol::Redis, "operations");

    // memtier's figures per command: replies, rates, hits and misses.
    b.add("sets", FieldType::Count, "replies", [](const PointResult& r) {
         return FieldValue(operationCount(r, "set"));
     }).cliKeys = memtierCommands("sets");
    b.add("gets", FieldType::Count, "replies", [](const PointResult& r) {
         return FieldValue(operationCount(r, "get"));
     }).cliKeys = memtierCommands("gets");
    const struct {
        const char* id;
        uint64_t (*count)(const PointResult&);
    } perSecond[] = {
        {"sets_per_second",
         [](const PointResult& r) {
             return operationCount(r, "set");
         }},
        {"gets_per_second",
         [](const PointResult& r) {
             return operationCount(r, "get");
         }},
        {"hits_per_second",
         [](const PointResult& r) {
             return r.hits;
         }},
        {"misses_per_second",
         [](const PointResult& r) {
             return r.misses;
         }},
    };
    for (const auto& figure : perSecond) {
        const auto count = figure.count;
        b.add(figure.id, FieldType::Real, "ops/s", [count](const PointResult& r) {
             return FieldValue(rates::perSecond(double(count(r)), r.durationSeconds));
         }).cliKeys = memtierCommands(figure.id);
    }
    b.add("hit_ratio", FieldType::Real, "", [](const PointResult& r) {
         return FieldValue(rates::hitRatio(r.hits, r.misses));
     }).cliKeys = memtierCommands("hit_ratio");
    b.add("kb_per_second", FieldType::Real, "KiB/s", [](const PointResult& r) {
         return FieldValue(rates::wireKiBps(r.bytesSent, r.bytesTotal, r.durationSeconds));
     }).cliKeys = memtierCommands("kb_per_second");
    addLatencyFields(
        b, QStringLiteral("set_latency"), memtierCommands("set_latency_ms"),
        [](const PointResult& r) -> const LatencySummary& { return operationSummary(r, "set"); },
        {}, {});
    addLatencyFields(
        b, QStringLiteral("get_latency"), memtierCommands("get_latency_ms"),
        [](const PointResult& r) -> const LatencySummary& { return operationSummary(r, "get"); },
        {}, {});
}

} // namespace

void addSessionAndCliFields(ResultSchemaBuilder& b) {
    addProvenance(b);
    addPlacement(b);
    addMemcache(b);
    addUdpSessionFields(b);
}

} // namespace schema_detail

bool ResultField::inEveryCommand() const {
    for (const QString& key : cliKeys)
        if (key.isEmpty() || key != cliKeys.front())
            return false;
    return true;
}

const std::vector<ResultField>& resultSchema() {
    static const std::vector<ResultField> schema = [] {
        schema_detail::ResultSchemaBuilder b;
        schema_detail::addCsvFields(b);
        schema_detail::addSessionAndCliFields(b);
        return b.take();
    }();
    return schema;
}

const ResultField* resultField(QStringView id) {
    for (const ResultField& field : resultSchema())
        if (field.id == id)
            return &field;
    return nullptr;
}

const ResultField* resultFieldForMetric(QStringView metricId) {
    for (const ResultField& field : resultSchema())
        if (!field.summaryMetric.isEmpty() && field.summaryMetric == metricId)
            return &field;
    return nullptr;
}

std::optional<double> fieldNumber(const ResultField& field, const PointResult& result) {
    const FieldValue value = field.value(result);
    if (const auto* count = std::get_if<uint64_t>(&value))
        return double(*count);
    if (const auto* integer = std::get_if<int64_t>(&value))
        return double(*integer);
    if (const auto* real = std::get_if<double>(&value))
        return *real;
    return std::nullopt;
}

QJsonValue fieldJson(const ResultField& field, const FieldValue& value) {
    struct Visitor {
        const ResultField& field;
        QJsonValue operator()(std::monostate) const {
            switch (field.type) {
            case FieldType::Text:
                return QString();
            case FieldType::Flag:
                return false;
            case FieldType::Json:
                return QJsonValue::Null;
            default:
                return field.absentNumber;
            }
        }
        QJsonValue operator()(uint64_t count) const { return double(count); }
        QJsonValue operator()(int64_t integer) const { return qint64(integer); }
        QJsonValue operator()(double real) const { return real; }
        QJsonValue operator()(const QString& text) const { return text; }
        QJsonValue operator()(bool flag) const { return flag; }
        QJsonValue operator()(const QJsonValue& json) const { return json; }
    };
    return std::visit(Visitor{field}, value);
}

bool isEmptyJson(const QJsonValue& value) {
    switch (value.type()) {
    case QJsonValue::Double:
        return value.toDouble() == 0;
    case QJsonValue::Bool:
        return !value.toBool();
    case QJsonValue::String:
        return value.toString().isEmpty();
    case QJsonValue::Array:
        return value.toArray().isEmpty();
    case QJsonValue::Object:
        return value.toObject().isEmpty();
    default:
        return true;
    }
}

void insertJsonPath(QJsonObject& object, const QString& path, const QJsonValue& value) {
    const qsizetype slash = path.indexOf(QLatin1Char('/'));
    if (slash < 0) {
        object.insert(path, value);
        return;
    }
    const QString parent = path.left(slash);
    QJsonObject child = object.value(parent).toObject();
    child.insert(path.mid(slash + 1), value);
    object.insert(parent, child);
}

} // namespace loadscope::app
