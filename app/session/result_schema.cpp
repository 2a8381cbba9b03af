#include "app/session/result_schema_builder.h"
#include "app/session/sweep_plan.h"
#include "engine/run_rates.h"

#include <string_view>

namespace loadscope::app::schema_detail {

namespace {

using engine::ErrorClass;

FieldValue positive(double value) {
    return value > 0 ? FieldValue(value) : FieldValue();
}

// A rate is absent without a measured time or a rate the tool printed: no
// rate at all is not the same as a rate of zero.
FieldValue rate(const PointResult& r, const std::optional<double>& reported, double derived) {
    if (reported)
        return *reported;
    return r.durationSeconds > 0 ? FieldValue(derived) : FieldValue();
}

// The value of a figure an imported report may not have printed (PointResult's
// completeUnknown, durationUnknown): empty when unknown.
FieldValue unlessUnknown(bool unknown, FieldValue value) {
    return unknown ? FieldValue() : std::move(value);
}

// Its reader: an imported result's figure the tool did not print is left out of the
// session file and reads back unknown (the result's source is read before it); any
// other is read by `read`, where it is required.
ResultSchemaBuilder::Read unlessUnprinted(bool PointResult::*unknown,
                                          ResultSchemaBuilder::Read read) {
    return [unknown, read = std::move(read)](const JsonReader& j, QStringView k, PointResult& r) {
        if (r.source.kind == ResultSource::Kind::Imported && !j.has(k))
            r.*unknown = true;
        else
            read(j, k, r);
    };
}

QString latin1(std::string_view text) {
    return QString::fromLatin1(text.data(), static_cast<qsizetype>(text.size()));
}

QString isoTime(const QDateTime& at) {
    // Keeping the recorded offset makes the text stable across time zones.
    return at.toOffsetFromUtc(at.offsetFromUtc()).toString(Qt::ISODateWithMs);
}

void addIdentity(ResultSchemaBuilder& b) {
    ResultField& concurrency = b.saved(
        "concurrency", FieldType::Integer, "connections",
        [](const PointResult& r) { return FieldValue(int64_t(r.concurrency)); }, "concurrency",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            r.concurrency = int(j.integer(k, 1, kMaxConcurrency));
        });
    concurrency.csvColumn = concurrency.id;
    concurrency.cliKeys = every("concurrency");
    b.saved(
         "repetition", FieldType::Integer, "",
         [](const PointResult& r) { return FieldValue(int64_t(r.repetition)); }, "repetition",
         [](const JsonReader& j, QStringView k, PointResult& r) {
             r.repetition = int(j.integer(k, 0, kMaxRepetitions - 1));
         })
        .csvColumn = QStringLiteral("repetition");
    b.saved(
         "source", FieldType::Text, "",
         [](const PointResult& r) {
             return FieldValue(r.source.kind == ResultSource::Kind::Imported
                                   ? QStringLiteral("imported")
                                   : QStringLiteral("measured"));
         },
         "source/kind",
         [](const JsonReader& j, QStringView k, PointResult& r) {
             const QString kind = j.string(k, QStringLiteral("measured"));
             if (kind == u"imported")
                 r.source.kind = ResultSource::Kind::Imported;
             else if (kind != u"measured" && j.ok())
                 j.failUnknownValue(k, kind);
         })
        .csvColumn = QStringLiteral("source");
    b.savedText("tool", "source/tool", &PointResult::source, &ResultSource::tool).csvColumn =
        QStringLiteral("tool");
    b.savedText("tool_version", "source/toolVersion", &PointResult::source,
                &ResultSource::toolVersion)
        .csvColumn = QStringLiteral("tool_version");
    ResultField& started = b.saved(
        "started_at", FieldType::Text, "",
        [](const PointResult& r) {
            const QDateTime& at = r.environment.startedAt;
            return at.isValid() ? FieldValue(isoTime(at)) : FieldValue();
        },
        "environment/startedAt",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            if (!j.has(k))
                return;
            const QString text = j.string(k);
            r.environment.startedAt = QDateTime::fromString(text, Qt::ISODateWithMs);
            if (j.ok() && !r.environment.startedAt.isValid())
                j.failKey(k, QStringLiteral("is \"%1\", not an ISO 8601 date and time").arg(text));
        });
    started.csvColumn = QStringLiteral("started_at");
    started.omitInSession = true;
    b.savedText("host_name", "environment/hostName", &PointResult::environment,
                &RunEnvironment::hostName)
        .csvColumn = QStringLiteral("host_name");
    b.savedText("thread_placement", "environment/threadPlacement", &PointResult::environment,
                &RunEnvironment::threadPlacement)
        .csvColumn = QStringLiteral("thread_placement");
    ResultField& cancelled = b.saved(
        "cancelled", FieldType::Flag, "",
        [](const PointResult& r) { return FieldValue(r.cancelled); }, "cancelled",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            r.cancelled = j.boolean(k, false);
        });
    cancelled.csvColumn = QStringLiteral("cancelled");
    cancelled.cliKeys = every("cancelled");
    ResultField& duration = b.saved(
        "duration_s", FieldType::Real, "s",
        [](const PointResult& r) {
            return unlessUnknown(r.durationUnknown, FieldValue(r.durationSeconds));
        },
        "durationSeconds",
        unlessUnprinted(&PointResult::durationUnknown,
                        [](const JsonReader& j, QStringView k, PointResult& r) {
                            // Any finite number: its range is checked by result_schema_ranges.h.
                            r.durationSeconds = j.number(k, -kUnbounded, kUnbounded);
                        }));
    duration.omitInSession = true;
    duration.csvColumn = duration.id;
    duration.cliKeys = every("duration_s");
    ResultField& threads = b.saved(
        "threads", FieldType::Integer, "threads",
        [](const PointResult& r) { return FieldValue(int64_t(r.threads)); }, "threads",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            r.threads = int(j.integer(k, 0, kMaxThreads, 0));
        });
    threads.csvColumn = threads.id;
    threads.cliKeys = every("threads");
}

void addCounts(ResultSchemaBuilder& b) {
    ResultField& complete = b.saved(
        "complete", FieldType::Count, "requests",
        [](const PointResult& r) {
            return unlessUnknown(r.completeUnknown, FieldValue(r.complete));
        },
        "complete",
        unlessUnprinted(
            &PointResult::completeUnknown,
            [](const JsonReader& j, QStringView k, PointResult& r) { r.complete = j.count(k); }));
    complete.omitInSession = true;
    complete.csvColumn = complete.id;
    complete.cliKeys = every("complete");
    ResultField& failed = b.saved(
        "failed", FieldType::Count, "requests",
        [](const PointResult& r) { return FieldValue(r.failed); }, "failed",
        readCount(&PointResult::failed));
    failed.csvColumn = failed.id;
    failed.summaryMetric = failed.id;
    failed.cliKeys = every("failed");
    // TLS and HTTP/2 came later: their columns are at the end (result_schema_tls.cpp).
    for (size_t i = 0; i < size_t(ErrorClass::Tls); ++i) {
        const auto errorClass = static_cast<ErrorClass>(i);
        const QString name = latin1(engine::errorClassName(errorClass));
        const QString column = QStringLiteral("failed_") + name;
        const QByteArray key = (QStringLiteral("errors/") + name).toLatin1();
        ResultField& field = b.add(column, FieldType::Count, "requests",
                                   [i](const PointResult& r) { return FieldValue(r.errors[i]); });
        field.sessionKey = QString::fromLatin1(key);
        field.read = [i](const JsonReader& j, QStringView k, PointResult& r) {
            r.errors[i] = j.count(k, 0);
        };
        field.csvColumn = column;
        // The CLI has always said "timeouts" where the CSV says "failed_timeout".
        const QString cli = errorClass == ErrorClass::Timeout ? QStringLiteral("timeouts") : column;
        field.cliKeys.fill(cli);
    }
    ResultField& non2xx = b.saved(
        "non_2xx", FieldType::Count, "responses",
        [](const PointResult& r) { return FieldValue(r.non2xx); }, "non2xx",
        readCount(&PointResult::non2xx));
    non2xx.csvColumn = non2xx.id;
    non2xx.cliKeys = only(TargetProtocol::Http, "non_2xx");
    ResultField& keepAlive = b.saved(
        "keep_alive", FieldType::Count, "responses",
        [](const PointResult& r) { return FieldValue(r.keepAlive); }, "keepAlive",
        readCount(&PointResult::keepAlive));
    keepAlive.csvColumn = keepAlive.id;
    keepAlive.cliKeys = only(TargetProtocol::Http, "keep_alive");
    const struct {
        const char* id;
        uint64_t PointResult::*member;
        const char* key;
    } bytes[] = {{"bytes_total", &PointResult::bytesTotal, "bytesTotal"},
                 {"bytes_body", &PointResult::bytesBody, "bytesBody"},
                 {"bytes_sent", &PointResult::bytesSent, "bytesSent"}};
    for (const auto& byteField : bytes) {
        const auto member = byteField.member;
        ResultField& field = b.saved(
            byteField.id, FieldType::Count, "bytes",
            [member](const PointResult& r) { return FieldValue(r.*member); }, byteField.key,
            readCount(member));
        field.csvColumn = field.id;
        field.cliKeys = every(byteField.id);
    }
    ResultField& hits = b.saved(
        "hits", FieldType::Count, "gets", [](const PointResult& r) { return FieldValue(r.hits); },
        "hits", readCount(&PointResult::hits));
    hits.csvColumn = hits.id;
    hits.cliKeys = memtierCommands("hits");
    ResultField& misses = b.saved(
        "misses", FieldType::Count, "gets",
        [](const PointResult& r) { return FieldValue(r.misses); }, "misses",
        readCount(&PointResult::misses));
    misses.csvColumn = misses.id;
    misses.cliKeys = memtierCommands("misses");
    ResultField& cpu = b.saved(
        "client_cpu_s", FieldType::Real, "s",
        [](const PointResult& r) { return FieldValue(r.clientCpuSeconds); }, "clientCpuSeconds",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            r.clientCpuSeconds = j.number(k, -kUnbounded, kUnbounded, 0);
        });
    cpu.csvColumn = cpu.id;
    cpu.cliKeys = every("client_cpu_s");
}

void addRates(ResultSchemaBuilder& b) {
    ResultField& rps =
        b.add("requests_per_second", FieldType::Real, "req/s", [](const PointResult& r) {
            return rate(r, r.reportedRequestsPerSecond, r.requestsPerSecond());
        });
    rps.csvColumn = rps.summaryMetric = rps.id;
    // The protocol's own word: ab's requests, memtier's ops, netperf's transactions.
    rps.cliKeys = only(TargetProtocol::Http, "requests_per_second");
    rps.cliKeys[size_t(TargetProtocol::Memcache)] = QStringLiteral("ops_per_second");
    rps.cliKeys[size_t(TargetProtocol::TcpRr)] = QStringLiteral("transactions_per_second");
    rps.cliKeys[size_t(TargetProtocol::UdpRr)] = QStringLiteral("transactions_per_second");
    rps.cliKeys[size_t(TargetProtocol::Redis)] = QStringLiteral("ops_per_second");
    ResultField& transfer =
        b.add("transfer_rate_kib_s", FieldType::Real, "KiB/s", [](const PointResult& r) {
            return rate(r, r.reportedTransferKiBps, r.transferRateKiBps());
        });
    transfer.csvColumn = transfer.summaryMetric = transfer.id;
    transfer.cliKeys = every("transfer_rate_kib_s");
    ResultField& throughput =
        b.add("throughput_mbit_s", FieldType::Real, "Mbit/s", [](const PointResult& r) {
            return rate(r, r.reportedThroughputMbitps, r.throughputMbitps());
        });
    throughput.csvColumn = throughput.summaryMetric = throughput.id;
    throughput.cliKeys = only(TargetProtocol::TcpStream, "throughput_mbit_s");
    throughput.cliKeys[size_t(TargetProtocol::UdpStream)] = QStringLiteral("throughput_mbit_s");
    ResultField& perRequest =
        b.add("time_per_request_ms", FieldType::Real, "ms",
              [](const PointResult& r) { return positive(r.timePerRequestMs()); });
    perRequest.csvColumn = perRequest.summaryMetric = perRequest.id;
    // Failures as a rate, so that the comparison can judge them across runs
    // of different lengths; absent without requests.
    b.add("failed_share", FieldType::Real, "%", [](const PointResult& r) {
         return r.complete > 0 ? FieldValue(engine::rates::failedPercent(r.complete, r.failed))
                               : FieldValue();
     }).summaryMetric = QStringLiteral("failed_share");
    b.add("time_per_request_across_ms", FieldType::Real, "ms", [](const PointResult& r) {
         return positive(r.timePerRequestAcrossMs());
     }).csvColumn = QStringLiteral("time_per_request_across_ms");
}

void addTotalLatency(ResultSchemaBuilder& b) {
    addLatencyFields(b, QStringLiteral("latency"), every("latency_ms"),
                     [](const PointResult& r) -> const LatencySummary& { return r.total; },
                     latencyStatNames(),
                     {QStringLiteral("mean"), QStringLiteral("p50"), QStringLiteral("p90"),
                      QStringLiteral("p99"), QStringLiteral("p99_9")});
    // Of the parts, the CSV has the means only; the CLI has every figure.
    const struct {
        const char* name;
        const char* cli;
        LatencySummary PointResult::*member;
    } parts[] = {{"connect", "connect_ms", &PointResult::connect},
                 {"waiting", "waiting_ms", &PointResult::waiting},
                 {"processing", "processing_ms", &PointResult::processing}};
    for (const auto& part : parts) {
        const auto member = part.member;
        addLatencyFields(
            b, QLatin1String(part.name), every(part.cli),
            [member](const PointResult& r) -> const LatencySummary& { return r.*member; },
            {QStringLiteral("mean")},
            member == &PointResult::connect ? QStringList{QStringLiteral("mean")} : QStringList{});
    }
}

void addTail(ResultSchemaBuilder& b) {
    ResultField& software = b.saved(
        "server_software", FieldType::Text, "",
        [](const PointResult& r) { return FieldValue(r.serverSoftware); }, "serverSoftware",
        readText(&PointResult::serverSoftware));
    software.csvColumn = software.id;
    software.cliKeys = only(TargetProtocol::Http, "server_software");
    ResultField& length = b.saved(
        "document_length", FieldType::Integer, "bytes",
        [](const PointResult& r) {
            return r.documentLength >= 0 ? FieldValue(r.documentLength) : FieldValue();
        },
        "documentLength",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            r.documentLength = j.integer(k, -1, JsonReader::kMaxExactInteger, -1);
        });
    length.csvColumn = length.id;
    length.cliKeys = only(TargetProtocol::Http, "document_length");
    length.absentNumber = -1;
    ResultField& first = b.saved(
        "first_error", FieldType::Text, "",
        [](const PointResult& r) {
            return r.firstError.isEmpty() ? FieldValue() : FieldValue(r.firstError);
        },
        "firstError", readText(&PointResult::firstError));
    first.csvColumn = first.id;
    first.cliKeys = every("first_error");
    first.omitInCli = true;
}

// Added after the first release, so their CSV columns come last.
void addLoadModel(ResultSchemaBuilder& b) {
    // Files from before the load model was recorded hold closed-loop results
    // only: Loadscope's sweeps and the closed-loop tools it imported.
    ResultField& model = b.saved(
        "load_model", FieldType::Text, "",
        [](const PointResult& r) { return FieldValue(loadModelId(r.loadModel)); }, "loadModel",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            const QString id = j.string(k, loadModelId(LoadModel::ClosedLoop));
            if (const auto known = loadModelFromId(id))
                r.loadModel = *known;
            else if (j.ok())
                j.failUnknownValue(k, id);
        });
    model.csvColumn = model.id;
    ResultField& offered = b.saved(
        "offered_rate", FieldType::Real, "req/s",
        [](const PointResult& r) { return optionalValue(r.offeredRate); }, "offeredRate",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            r.offeredRate = j.optionalNumber(k, 0, kUnbounded);
        });
    offered.csvColumn = offered.id;
    offered.omitInSession = true;
    // wrk2 -U: the latency of a fixed-rate run from the actual send, beside
    // the corrected `latency_*` figures.
    addLatencyFields(b, QStringLiteral("latency_uncorrected"), Keys{},
                     [](const PointResult& r) -> const LatencySummary& { return r.uncorrected; },
                     {QStringLiteral("mean"), QStringLiteral("p50"), QStringLiteral("p90"),
                      QStringLiteral("p99"), QStringLiteral("p99_9")},
                     {QStringLiteral("p50"), QStringLiteral("p99"), QStringLiteral("p99_9")});
    // Fixed rate only (absent, and left out of the file, for closed loop):
    // whether the schedule fell behind, and whether the client was to blame.
    ResultField& backlog = b.saved(
        "max_backlog", FieldType::Count, "requests",
        [](const PointResult& r) {
            return r.loadModel == LoadModel::FixedRate ? FieldValue(r.maxBacklog) : FieldValue();
        },
        "maxBacklog", readCount(&PointResult::maxBacklog));
    backlog.csvColumn = backlog.id;
    backlog.omitInSession = true;
    ResultField& saturated = b.saved(
        "client_saturated", FieldType::Flag, "",
        [](const PointResult& r) {
            return r.loadModel == LoadModel::FixedRate ? FieldValue(r.clientSaturated)
                                                       : FieldValue();
        },
        "clientSaturated",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            r.clientSaturated = j.boolean(k, false);
        });
    saturated.csvColumn = saturated.id;
    saturated.omitInSession = true;
}

} // namespace

QStringList latencyStatNames() {
    QStringList names{QStringLiteral("min"), QStringLiteral("mean"), QStringLiteral("sd"),
                      QStringLiteral("max")};
    for (double p : standardPercentiles())
        names << QLatin1Char('p') +
                     QString::number(p, 'g', 12).replace(QLatin1Char('.'), QLatin1Char('_'));
    return names;
}

void addLatencyFields(ResultSchemaBuilder& b, const QString& idPrefix, const Keys& cliObjects,
                      std::function<const LatencySummary&(const PointResult&)> summary,
                      const QStringList& csvStats, const QStringList& metricStats) {
    const QStringList names = latencyStatNames();
    const std::vector<double>& percentiles = standardPercentiles();
    for (qsizetype i = 0; i < names.size(); ++i) {
        const QString& name = names.at(i);
        const double percentile = i >= 4 ? percentiles[size_t(i - 4)] : 0;
        const ResultSchemaBuilder::Value value = [summary, i, percentile](const PointResult& r) {
            const LatencySummary& s = summary(r);
            switch (i) {
            case 0:
                return optionalValue(s.minMs);
            case 1:
                return optionalValue(s.meanMs);
            case 2:
                return optionalValue(s.sdMs);
            case 3:
                return optionalValue(s.maxMs);
            default:
                return optionalValue(s.percentile(percentile));
            }
        };
        ResultField& field = b.add(idPrefix + QLatin1Char('_') + name + QStringLiteral("_ms"),
                                   FieldType::Real, "ms", value);
        if (csvStats.contains(name))
            field.csvColumn = field.id;
        if (metricStats.contains(name))
            field.summaryMetric = field.id;
        // CLI JSON's "max" is the longest request; it has no "p100" of its own.
        if (name == u"p100")
            continue;
        for (size_t p = 0; p < field.cliKeys.size(); ++p)
            if (!cliObjects[p].isEmpty())
                field.cliKeys[p] = cliObjects[p] + QLatin1Char('/') + name;
    }
}

namespace {

// A capacity search's step (capacity_search.h): which of its search's steps
// the result is; empty for any other result, and not saved then.
void addCapacityStep(ResultSchemaBuilder& b) {
    ResultField& step = b.savedWhenSet(
        "capacity_step", FieldType::Integer, "",
        [](const PointResult& r) {
            return r.capacityStep > 0 ? FieldValue(int64_t(r.capacityStep)) : FieldValue();
        },
        "capacityStep",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            r.capacityStep = int(j.integer(k, 0, kMaxCapacitySteps, 0));
        });
    step.csvColumn = step.id;
}

} // namespace

void addCsvFields(ResultSchemaBuilder& b) {
    addIdentity(b);
    addCounts(b);
    addRates(b);
    addTotalLatency(b);
    addTail(b);
    addLoadModel(b);
    addCpuFields(b);
    addTlsFields(b);
    addHttp2Fields(b);
    addUdpFields(b);
    addNetCounterFields(b);
    addProfileFields(b);
    addCapacityStep(b);
}

} // namespace loadscope::app::schema_detail
