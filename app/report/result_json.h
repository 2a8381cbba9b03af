#pragma once

#include "app/report/memtier_report.h"
#include "app/report/netperf_report.h"
#include "app/session/point_result.h"
#include "app/session/target.h"
#include "engine/run_result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>
#include <optional>

namespace loadscope::app {

// What a CLI run knows beyond its result: the command and how it was asked for.
struct CliResultContext {
    TargetProtocol protocol = TargetProtocol::Http;
    QString url;                              // http: the URL as given
    uint32_t pipeline = 1;                    // http: requests outstanding per connection
    std::optional<MemcacheRunSetup> memcache; // memcache and redis: the run's options
    std::optional<NetperfRunSetup> netperf;   // tcp-rr, tcp-stream: the run's options
};

// The stable machine-readable form of a CLI run (`--json`), written from the
// result schema (result_schema.h): every field whose CLI key names this
// command, nested one level where the key says "object/key", then the run's
// own options from `context`. Keys are documented in the README and never
// renamed. Latency objects (latency_ms, connect_ms, waiting_ms,
// processing_ms, and memcache's set_latency_ms, get_latency_ms): min, mean,
// sd, p50, p66, p75, p80, p90, p95, p98, p99, p99_9, p99_99, max, in
// milliseconds.
QJsonObject cliResultJson(const PointResult& result, const CliResultContext& context);

// One header row and one value row of the JSON's scalar fields (latency
// objects flattened as latency_ms_p99 etc., status codes as status_200),
// RFC 4180.
QByteArray jsonToCsv(const QJsonObject& object);

} // namespace loadscope::app
