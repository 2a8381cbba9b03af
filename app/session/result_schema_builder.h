#pragma once

#include "app/session/json_reader.h"
#include "app/session/result_schema.h"

#include <array>
#include <limits>

// What the files that fill the result schema share; not for use elsewhere.
namespace loadscope::app::schema_detail {

using Keys = std::array<QString, kTargetProtocolCount>;

inline constexpr double kUnbounded = std::numeric_limits<double>::max();

// The same CLI key in every command.
inline Keys every(const char* key) {
    Keys keys;
    keys.fill(QLatin1String(key));
    return keys;
}

// A CLI key in one command only.
inline Keys only(TargetProtocol protocol, const char* key) {
    Keys keys;
    keys[static_cast<size_t>(protocol)] = QLatin1String(key);
    return keys;
}

// A CLI key in the two commands of memtier's workload model, memcache and redis.
inline Keys memtierCommands(const char* key) {
    Keys keys = only(TargetProtocol::Memcache, key);
    keys[static_cast<size_t>(TargetProtocol::Redis)] = QLatin1String(key);
    return keys;
}

inline FieldValue optionalValue(const std::optional<double>& value) {
    return value ? FieldValue(*value) : FieldValue();
}

// Readers of the saved counters: absent means 0 unless the key is required.
template <typename Member> auto readCount(Member member) {
    return [member](const JsonReader& json, QStringView key, PointResult& r) {
        r.*member = json.count(key, 0);
    };
}
template <typename Member> auto readText(Member member) {
    return [member](const JsonReader& json, QStringView key, PointResult& r) {
        r.*member = json.string(key, {});
    };
}

// Collects the fields in order; a reference stays valid until the next add().
class ResultSchemaBuilder {
public:
    using Value = std::function<FieldValue(const PointResult&)>;
    using Read = std::function<void(const JsonReader&, QStringView, PointResult&)>;

    ResultField& add(const QString& id, FieldType type, const char* unit, Value value) {
        ResultField field;
        field.id = id;
        field.type = type;
        field.unit = QLatin1String(unit);
        field.value = std::move(value);
        m_fields.push_back(std::move(field));
        return m_fields.back();
    }
    ResultField& add(const char* id, FieldType type, const char* unit, Value value) {
        return add(QString(QLatin1String(id)), type, unit, std::move(value));
    }
    // A field saved under `key` ("parent/key") in the session file.
    ResultField& saved(const char* id, FieldType type, const char* unit, Value value,
                       const char* key, Read read) {
        ResultField& field = add(id, type, unit, std::move(value));
        field.sessionKey = QLatin1String(key);
        field.read = std::move(read);
        return field;
    }
    // A field added to the session file after its first release (see
    // ResultField::sessionOnlyWhenSet).
    ResultField& savedWhenSet(const char* id, FieldType type, const char* unit, Value value,
                              const char* key, Read read) {
        ResultField& field = saved(id, type, unit, std::move(value), key, std::move(read));
        field.sessionOnlyWhenSet = true;
        return field;
    }
    // A text saved under `key`, held in PointResult::*part::*member (source.tool).
    template <typename Part>
    ResultField& savedText(const char* id, const char* key, Part PointResult::*part,
                           QString Part::*member) {
        return saved(
            id, FieldType::Text, "",
            [part, member](const PointResult& r) { return FieldValue(r.*part.*member); }, key,
            [part, member](const JsonReader& j, QStringView k, PointResult& r) {
                r.*part.*member = j.string(k, {});
            });
    }
    size_t count() const { return m_fields.size(); }
    ResultField& at(size_t index) { return m_fields[index]; }
    std::vector<ResultField> take() { return std::move(m_fields); }

private:
    std::vector<ResultField> m_fields;
};

// min, mean, sd, max and the standard percentiles of one summary as fields
// "<idPrefix>_<stat>_ms"; CLI key "<object>/<stat>" where `cliObjects` names one.
void addLatencyFields(ResultSchemaBuilder& b, const QString& idPrefix, const Keys& cliObjects,
                      std::function<const LatencySummary&(const PointResult&)> summary,
                      const QStringList& csvStats, const QStringList& metricStats);
// "min", "mean", "sd", "max", "p50" ... "p99_99", "p100".
QStringList latencyStatNames();

// https: the TLS failure count, handshakes, resumption, protocol and the
// handshake latency (result_schema_tls.cpp); CSV columns after the others.
void addTlsFields(ResultSchemaBuilder& b);
// HTTP/2: the RST_STREAM and GOAWAY failure counts (result_schema_tls.cpp);
// CSV columns after the TLS ones, in a session file only when set.
void addHttp2Fields(ResultSchemaBuilder& b);
// "failed_<class>" of a failure class added after the first release, in a
// session file only when set (result_schema_tls.cpp).
ResultField& addLateErrorClass(ResultSchemaBuilder& b, engine::ErrorClass errorClass);
// UDP: the lost class, the answers out of order, repeated, late and stray,
// udp-stream's sends and what the sink received (result_schema_udp.cpp); CSV
// columns after the HTTP/2 ones, in a session file only when set.
void addUdpFields(ResultSchemaBuilder& b);
// UDP's fields without a CSV column (result_schema_udp.cpp).
void addUdpSessionFields(ResultSchemaBuilder& b);

// The fields in results-CSV column order, then those no CSV column carries.
void addCsvFields(ResultSchemaBuilder& b);
void addSessionAndCliFields(ResultSchemaBuilder& b);
// Where the CPU went (result_schema_cpu.cpp): CSV columns after every other.
void addCpuFields(ResultSchemaBuilder& b);
// The network stack's counters (result_schema_net.cpp): CSV columns after the HTTP/2 ones.
void addNetCounterFields(ResultSchemaBuilder& b);
// The CPU profile (result_schema_profile.cpp): its columns after those.
void addProfileFields(ResultSchemaBuilder& b);
// "profile_server_us_per_request", "profile_conntrack_us_per_request".
QString profileRoleFieldId(engine::ProcessRole role);
QString profilePathFieldId(engine::CpuPath path);

} // namespace loadscope::app::schema_detail
