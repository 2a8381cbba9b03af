#pragma once

#include "app/common/result.h"
#include "app/session/point_result.h"

#include <QList>
#include <QString>
#include <cstdint>
#include <map>
#include <optional>

namespace loadscope::app {

// One report recognised in a saved tool output: what the tool and the command
// said about the run, and the result holding exactly the numbers printed.
// `result.source` is filled (Imported, tool, version, file, fingerprint);
// target, repetition and environment are left for the session import to set.
struct ImportedReport {
    QString tool;        // "ab", "wrk", "wrk2", "h2load", "memtier_benchmark", "netperf"
    QString version;     // as printed ("2.3", "2.0.40-dev"); empty when the output does not say
    QString test;        // netperf test: "TCP_RR", "TCP_CRR", "TCP_STREAM"
    QString commandLine; // the command as typed above the output, when it was kept
    QString url;         // http: the URL measured; others: "host:port" when known
    std::optional<int> concurrency;   // connections (memtier: threads x clients)
    std::optional<uint64_t> requests; // requested total (ab -n, memtier -n x clients x threads)
    std::optional<bool> keepAlive;
    std::optional<int> threads;
    std::optional<int> streams;  // h2load -m: streams at once per connection (from the command)
    QString applicationProtocol; // h2load: "h2", "h2c", "http/1.1" as negotiated
    // memtier_benchmark's -P as the output says it ("redis", "resp3", "memcache_text": its
    // JSON's configuration, or the command typed, whose default is redis); empty when the
    // output does not say, which fits a memcache target or a redis one.
    QString memtierProtocol;

    // h2load's request counts as printed. The result keeps them as ab would: every request that
    // ended (succeeded + failed) as complete, `errored` (no response) as failed, 3xx to 5xx
    // responses as non-2xx.
    struct RequestCounts {
        uint64_t started = 0;
        uint64_t done = 0;
        uint64_t succeeded = 0;
        uint64_t failed = 0; // errored plus 4xx and 5xx responses
        uint64_t errored = 0;
        uint64_t timeout = 0;
    };
    std::optional<RequestCounts> requestCounts;
    // h2load's figures a PointResult has no place for: responses per status class (2 -> 2xx),
    // the bytes of response headers as they came (HPACK-compressed over h2), and the time to
    // first byte, which h2load takes once per connection from the start of its connect (not
    // per request, as ab's Waiting).
    std::map<int, uint64_t> statusClasses;
    std::optional<uint64_t> headerBytes;
    LatencySummary firstByte;
    int firstLine = 0; // 1-based lines of the report in its file
    int lastLine = 0;
    PointResult result;

    // The target protocol this output measures: "http", "memcache", "redis", "tcp-rr",
    // "tcp-stream" (memcache for a memtier output that does not say).
    QString protocolId() const;
    // Whether a target of `protocol` may hold this output: its own protocol, or, for a memtier
    // output that does not say, memcache or redis.
    bool fitsProtocol(const QString& protocol) const;
    // What the import recognised, for one line of a listing:
    // "ab 2.3: concurrency 10, 2000 requests, 71093.42 requests/s".
    QString description() const;
};

// Where an imported result came from: Imported, the report's tool and
// version, the file, and the fingerprint of the report's text.
ResultSource importedSource(const ImportedReport& report, const QString& file,
                            const QString& fingerprint);

// Everything recognised in one file, or the one Format error saying why none
// of it is ("results.txt:42: ab report cut off after 'Complete requests'").
using ImportResult = Result<QList<ImportedReport>>;

} // namespace loadscope::app
