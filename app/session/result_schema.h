#pragma once

#include "app/session/point_result.h"
#include "app/session/target.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <array>
#include <functional>
#include <optional>
#include <variant>
#include <vector>

// The one table of result fields. Every figure a user reads about a result —
// in the session file, `loadscope-cli --json`/`--csv`, the results CSV and the
// summary CSV — is a row here: its id, its name in each format that carries
// it, its unit and its formula (a function of PointResult). The writers of
// all four formats walk this table, so a name or a formula exists once.
//
// Names in a format are stable (the README documents them): where two
// formats name one figure differently (`timeouts` in CLI JSON,
// `failed_timeout` in the CSV), both names live in the one row.
//
// Not rows: the target columns of the results CSV (target, target_id, mode,
// protocol, endpoint come from the Target), the latency distributions of the
// session file (the histograms figures are derived from), and what a CLI run
// knows beyond its result (URL, server, workload: see cliResultJson()).
namespace loadscope::app {

class JsonReader;

enum class FieldType {
    Count,   // uint64_t
    Integer, // int64_t
    Real,    // double
    Text,    // QString
    Flag,    // bool
    Json,    // a JSON array or object, carried by the JSON formats only
};

// A field's value for one result; monostate when the result does not carry it
// (no measured time, no latency figures in an imported report).
using FieldValue =
    std::variant<std::monostate, uint64_t, int64_t, double, QString, bool, QJsonValue>;

struct ResultField {
    QString id; // stable snake_case name of the figure
    FieldType type = FieldType::Count;
    QString unit; // "requests", "bytes", "s", "ms", "req/s", "KiB/s", "Mbit/s"; empty for text
    std::function<FieldValue(const PointResult&)> value;

    // Session JSON key; "parent/key" nests one level. Empty: not saved.
    QString sessionKey;
    // Reads the saved value back from the object holding `key`.
    std::function<void(const JsonReader& object, QStringView key, PointResult& into)> read;
    // `loadscope-cli --json` key per command (indexed by TargetProtocol);
    // "object/key" nests one level. Empty: that command's JSON does not carry it.
    std::array<QString, kTargetProtocolCount> cliKeys;
    QString csvColumn;     // results CSV column; empty: not a column
    QString summaryMetric; // summary CSV "metric" (a MetricInfo id); empty: not compared

    // What JSON writes for an absent number (-1 for a document length never seen).
    double absentNumber = 0;
    bool omitInCli = false;     // absent: leave the key out of CLI JSON
    bool omitInSession = false; // absent: leave the key out of the session file
    // Keys added after the format's first release: left out while 0, false or
    // empty, so a file saved before them reads back and saves again the same.
    bool sessionOnlyWhenSet = false;

    QString cliKey(TargetProtocol protocol) const { return cliKeys[static_cast<size_t>(protocol)]; }
    // Whether every command's --json carries it under one name.
    bool inEveryCommand() const;
};

// Every field, in results-CSV column order (fields without a column last).
const std::vector<ResultField>& resultSchema();
// nullptr when there is no such field.
const ResultField* resultField(QStringView id);
const ResultField* resultFieldForMetric(QStringView metricId);

// The value as a number (counts, integers, reals), or nullopt.
std::optional<double> fieldNumber(const ResultField& field, const PointResult& result);
// The value as JSON writes it (absent: `absentNumber`, "", false or null).
QJsonValue fieldJson(const ResultField& field, const FieldValue& value);
// Whether `value` is 0, false, "", null, [] or {}.
bool isEmptyJson(const QJsonValue& value);
// Inserts `value` at `path` ("key" or "parent/key") into `object`.
void insertJsonPath(QJsonObject& object, const QString& path, const QJsonValue& value);

} // namespace loadscope::app
