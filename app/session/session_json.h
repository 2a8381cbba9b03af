#pragma once

#include "app/common/result.h"
#include "app/session/json_reader.h"
#include "app/session/session.h"
#include "app/session/session_file_split.h"

#include <QByteArrayView>
#include <QJsonObject>
#include <optional>
#include <vector>

// The JSON shape of a session file, version 1. session_file.h adds the bytes,
// the file and the error prefix; these functions are the mapping only, kept
// apart so that each piece stays readable and testable.
//
// Shape (keys sorted on output; every key below is written on save):
//   { "format": "loadscope-session", "version": 1, "name", "notes",
//     "baseline": target id (absent: the first target),
//     "targets": [ { "id", "name", "mode": mode id or the user's words,
//                    "colour": "#rrggbb", "protocol": "http" | "memcache" |
//                    "tcp-rr" | "tcp-stream" | "udp-rr" | "udp-stream" | "redis", "address",
//                    ["responseTimeoutSeconds"], ["serverPid"], ["serverCgroup"],
//                    "<protocol>": { that protocol's options },
//                    ["lab": { "mode": lab mode id, "server": server kind,
//                              "serverOptions": [ { "key", "value" } ] }] } ],
//     ["lab": { "mtu", "clientCpus", "serverCpus", "modes": [lab mode ids] }],
//     "plan": { "concurrency": [levels], "limit": "duration" | "requests",
//               "requestsPerPoint", "durationSeconds", ["requestsTimeLimitSeconds"],
//               "threads", "cpus", "warmupSeconds", "repetitions", "pauseSeconds",
//               "order": "interleaved" | "sequential",
//               ["levelKind": "concurrency" | "rate", "rates": [requests/s],
//                "rateConnections", "arrival": "constant" | "poisson"], ["timerSlackUs"],
//                ["wakeCoalescing"], ["profile"] },
//     (the four rate keys are written together, when any differs from its
//     default; a rate plan needs "rates", a concurrency plan "concurrency")
//
// Keys in [brackets] (and http's "acceptVariableLength", memcache's and
// redis's "keyStddev" and "keyMedian", redis's "commands", udp-rr's "burst") are written only
// when they differ from their defaults, so a file that never used them reads and writes as
// before. Field values obey the rules of target_rules.h, as the CLI and the window do.
//     "results": [ point results, see pointResultToJson() ] }
//
// A result that breaks a rule (a wrong type, a figure outside the ranges of
// result_schema_ranges.h, an unknown target, a repeated key) does not refuse
// the file: it is set aside (Session::setAside) with one line naming it, and
// written back unchanged on save. Everything else is all or nothing.
//
// Only the active protocol's options are written. Reading accepts absent
// optional keys (defaults apply) and keeps unknown top-level, target and
// result keys as read (Session/Target/PointResult::unknownFields), saving
// them again unchanged, so a version-1 file with fields from a later minor
// change opens and survives a save by this version. A newer version number
// is refused whole.
namespace loadscope::app {

inline constexpr int kSessionFormatVersion = 1;
inline constexpr QLatin1StringView kSessionFormatName{"loadscope-session"};

QJsonObject sessionToJson(const Session& session);
// The session, or one Format error naming the field (no file name) when
// anything outside its results is wrong.
Result<Session> sessionFromJson(const QJsonObject& root);
// The same from a file cut by splitSessionFile() (session_file_split.h): the
// rest parsed, each result's text parsed here, on the thread that reads it.
// Nullopt when a result's text does not parse to an object: then the file
// is to be parsed whole, for the error message a whole parse gives.
std::optional<Result<Session>> sessionFromSplitJson(const QJsonObject& rest,
                                                    const std::vector<QByteArrayView>& results);
// One stored result as loading reads it, or why loading sets it aside
// ("durationSeconds is -0.002, expected above 0"): the types, a target of
// `session`, the ranges (result_schema_ranges.h). An import checks what it
// would store with it, so that it never saves a result loading refuses.
// `cut`: what cutHistograms() took from the result's text before it was parsed.
Result<PointResult> storedResultFromJson(const QJsonValue& value, const Session& session,
                                         const ResultWithoutHistograms* cut = nullptr);

// Keys of `read` that `savedAgain` (the object parsed from it, saved again)
// lacks: what a newer Loadscope wrote that this one does not know.
QJsonObject unknownKeys(const QJsonObject& read, const QJsonObject& savedAgain);
// Adds the `unknown` keys that `json` does not hold.
void keepUnknown(QJsonObject& json, const QJsonObject& unknown);

QJsonObject targetToJson(const Target& target);
Target targetFromJson(const JsonReader& json);

QJsonObject sweepPlanToJson(const SweepPlan& plan);
SweepPlan sweepPlanFromJson(const JsonReader& json);

// A result: { "target", "concurrency", "repetition", "source": {...},
// "loadModel": "closed-loop" | "fixed-rate" (absent in older files:
// closed-loop), ["offeredRate": requests/s of a fixed-rate run, its rate
// level in a rate sweep], ["maxBacklog", "clientSaturated": measured fixed rate],
// "environment": {...}, the counters by their PointResult names, "errors":
// { error class: count }, "statusCodes": { "200": count }, "reported": {
// rates an imported tool printed }, "latency": { "total" | "connect" |
// "waiting" | "processing" | "uncorrected": distribution }, "operations": { name:
// distribution }, and, only while set, "threadCpus": [cpu], "pinned",
// "connectionsOpened", "errorReplies": { "error", "clientError",
// "serverError" }, "operationCounts": { name: replies } }. The keys other
// than the distributions are the result schema's (result_schema.h). A distribution is its
// summary { "minMs", "meanMs", "sdMs", "maxMs", "percentiles": { "99.9": ms } } and, when
// measured, "histogram": base64 of the engine's bytes beside it; on load the summary is held to
// the histogram's header, and a measured one written without a summary has it derived.
QJsonObject pointResultToJson(const PointResult& result);
// `cut`: the histograms taken out of the result's text before it was parsed
// (cutHistograms(), session_file_split.h), read where the JSON holds "".
PointResult pointResultFromJson(const JsonReader& json, const std::vector<CutHistogram>& cut = {});
// The keys of a saved result that no result field or distribution uses.
QJsonObject unknownResultKeys(const QJsonObject& read);
// A result's "agents": each host's part of a point loaded from several hosts,
// its own result nested as pointResultToJson() writes one.
QJsonArray agentSharesToJson(const std::vector<AgentShare>& agents);
std::vector<AgentShare> agentSharesFromJson(const JsonArrayReader& array);
// Whether every one of a result's keys, as written in its text, is one the
// result fields or distributions use: then unknownResultKeys() is empty.
bool areKnownResultKeys(const std::vector<QByteArrayView>& keys);

} // namespace loadscope::app
