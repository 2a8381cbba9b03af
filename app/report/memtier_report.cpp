#include "app/report/memtier_report.h"

#include "app/common/printable_text.h"
#include "app/report/ab_report.h"
#include "app/report/result_json.h"
#include "engine/redis_protocol.h"
#include "engine/run_rates.h"

#include <QJsonArray>
#include <QStringList>
#include <algorithm>
#include <limits>

namespace loadscope::app {

namespace {

using engine::ErrorClass;
using engine::Histogram;
using engine::OperationStats;
using engine::RunResult;

constexpr double kNsPerMs = 1e6;
constexpr int kTypeWidth = 10;
constexpr int kColumnWidth = 14;

const OperationStats* operation(const RunResult& r, uint8_t index) {
    return index < r.operations.size() ? &r.operations[index] : nullptr;
}

uint64_t decimalDigits(uint64_t value) {
    uint64_t digits = 1;
    while (value >= 10) {
        value /= 10;
        ++digits;
    }
    return digits;
}

// Mean decimal length of the keys in [minimum, maximum], as if drawn uniformly.
double meanKeyDigits(uint64_t minimum, uint64_t maximum) {
    double weighted = 0;
    uint64_t low = 0;
    uint64_t high = 9;
    for (int digits = 1; digits <= 20; ++digits) {
        const uint64_t from = std::max(low, minimum);
        const uint64_t to = std::min(high, maximum);
        if (from <= to)
            weighted += (double(to - from) + 1) * digits;
        if (high >= maximum)
            break;
        low = high + 1;
        high = high > std::numeric_limits<uint64_t>::max() / 10
                   ? std::numeric_limits<uint64_t>::max()
                   : high * 10 + 9;
    }
    return weighted / (double(maximum - minimum) + 1);
}

// Share of the bytes on the wire that belong to the sets, from each command's
// and reply's length in the text protocol or in RESP.
double setWireShare(const RunResult& r, const engine::MemcacheSpec& w, bool resp) {
    const OperationStats* sets = operation(r, engine::kMemcacheSetOperation);
    const OperationStats* gets = operation(r, engine::kMemcacheGetOperation);
    const double setCount = sets ? double(sets->count) : 0;
    const double getCount = gets ? double(gets->count) : 0;
    const double hits = gets ? double(gets->hits) : 0;
    const double key = double(w.keyPrefix.size()) + meanKeyDigits(w.keyMinimum, w.keyMaximum);
    const double value = w.valueSize;
    double setBytes = 0;
    double getBytes = 0;
    if (resp) {
        // "*3\r\n$3\r\nSET\r\n" and "*2\r\n$3\r\nGET\r\n" are 13 bytes; a bulk is
        // "$<n>\r\n<n bytes>\r\n"; SET answers "+OK\r\n", GET a bulk or "$-1\r\n".
        const auto bulk = [](double n) {
            return 1 + double(decimalDigits(uint64_t(n + 0.5))) + 2 + n + 2;
        };
        setBytes = setCount * (13 + bulk(key) + bulk(value) + 5);
        getBytes = getCount * (13 + bulk(key)) + hits * bulk(value) + (getCount - hits) * 5;
    } else {
        const double setTail =
            3.0 +
            double(decimalDigits(w.flags) + decimalDigits(w.expiry) + decimalDigits(w.valueSize)) +
            2;
        setBytes = setCount * (4 + key + setTail + value + 2 + 8); // + "STORED\r\n"
        const double valueLine = 6 + key + 1 + double(decimalDigits(w.flags)) + 1 +
                                 double(decimalDigits(w.valueSize)) + 2;
        getBytes = getCount * (4 + key + 2 + 5) + hits * (valueLine + value + 2);
    }
    return setBytes + getBytes > 0 ? setBytes / (setBytes + getBytes) : 0;
}

// The bytes one of Redis's arbitrary commands takes as built (its fixed
// words, keys of the mean length, the value), for the rows' shares of KB/sec.
double commandBytes(const RedisCommand& command, const engine::MemcacheSpec& w) {
    std::vector<engine::RedisCommandArgument> arguments;
    engine::parseRedisCommand(command.command.toStdString(), arguments);
    const auto bulk = [](double n) {
        return 1 + double(decimalDigits(uint64_t(n + 0.5))) + 2 + n + 2;
    };
    const double key = double(w.keyPrefix.size()) + meanKeyDigits(w.keyMinimum, w.keyMaximum);
    double bytes = 1 + double(decimalDigits(arguments.size())) + 2;
    for (const auto& argument : arguments) {
        switch (argument.kind) {
        case engine::RedisCommandArgument::Kind::Text:
            bytes += bulk(double(argument.text.size()));
            break;
        case engine::RedisCommandArgument::Kind::Key:
            bytes += bulk(double(argument.text.size() + argument.suffix.size()) + key);
            break;
        case engine::RedisCommandArgument::Kind::Data:
            bytes += bulk(w.valueSize);
            break;
        }
    }
    return bytes;
}

// memtier's row name for a command: "hset" -> "Hsets".
QString commandRowName(const std::string& name) {
    QString row = QString::fromStdString(name).toLower();
    if (!row.isEmpty())
        row[0] = row[0].toUpper();
    return printableText(row + QLatin1Char('s'));
}

QString rate(double count, double seconds) {
    return QString::number(engine::rates::perSecond(count, seconds), 'f', 2);
}

QString msCell(double ns) {
    return QString::number(ns / kNsPerMs, 'f', 5);
}

QString tableRow(const QString& type, const QStringList& cells) {
    QString row = type.leftJustified(kTypeWidth);
    for (const QString& cell : cells)
        row += cell.rightJustified(kColumnWidth);
    return row + QLatin1Char('\n');
}

QStringList latencyCells(const Histogram& h) {
    return {msCell(h.mean()), msCell(double(h.valueAtPercentile(50))),
            msCell(double(h.valueAtPercentile(99))), msCell(double(h.valueAtPercentile(99.9)))};
}

QString allStatsTable(const MemcacheRunReport& report, const MemcacheRunSetup& setup) {
    const RunResult& r = report.result;
    const double seconds = r.durationSeconds;
    const double kib = (double(r.bytesSent) + double(r.bytesTotal)) / 1024.0;
    const QString none = QStringLiteral("---");

    QString out = QStringLiteral("ALL STATS\n");
    // As memtier: arbitrary commands have no hits or misses, and no columns for them.
    const bool commands = !setup.commands.empty();
    QStringList titles{QStringLiteral("Ops/sec"),       QStringLiteral("Hits/sec"),
                       QStringLiteral("Misses/sec"),    QStringLiteral("Avg. Latency"),
                       QStringLiteral("p50 Latency"),   QStringLiteral("p99 Latency"),
                       QStringLiteral("p99.9 Latency"), QStringLiteral("KB/sec")};
    if (commands)
        titles.remove(1, 2);
    const QString header = tableRow(QStringLiteral("Type"), titles);
    const QString rule = QString(header.size() - 1, QLatin1Char('='));
    out += rule + QLatin1Char('\n') + header;
    out += QString(header.size() - 1, QLatin1Char('-')) + QLatin1Char('\n');

    if (commands) {
        // A row per command name, in the order the commands were given.
        std::vector<double> weights;
        double weightSum = 0;
        for (const OperationStats& op : r.operations) {
            double perCommand = 0;
            for (const RedisCommand& command : setup.commands) {
                std::vector<engine::RedisCommandArgument> arguments;
                engine::parseRedisCommand(command.command.toStdString(), arguments);
                engine::RedisCommandSpec spec{arguments, 1, engine::KeyPattern::Random};
                if (spec.name() == op.name) {
                    perCommand = commandBytes(command, setup.workload);
                    break;
                }
            }
            weights.push_back(perCommand * double(op.count) + double(op.bytesReceived));
            weightSum += weights.back();
        }
        // One command: the engine keeps no operations apart, the totals are its own.
        if (r.operations.empty() && !setup.commands.empty()) {
            std::vector<engine::RedisCommandArgument> arguments;
            engine::parseRedisCommand(setup.commands.front().command.toStdString(), arguments);
            const std::string name =
                engine::RedisCommandSpec{arguments, 1, engine::KeyPattern::Random}.name();
            out +=
                tableRow(commandRowName(name), QStringList{rate(double(r.successful()), seconds)}
                                                   << latencyCells(r.total) << rate(kib, seconds));
        }
        for (size_t i = 0; i < r.operations.size(); ++i) {
            const OperationStats& op = r.operations[i];
            const double share = weightSum > 0 ? weights[i] / weightSum : 0;
            out += tableRow(commandRowName(op.name), QStringList{rate(double(op.count), seconds)}
                                                         << latencyCells(op.latency)
                                                         << rate(kib * share, seconds));
        }
        out +=
            tableRow(QStringLiteral("Totals"), QStringList{rate(double(r.successful()), seconds)}
                                                   << latencyCells(r.total) << rate(kib, seconds));
        return out;
    }

    const double setShare = setWireShare(r, setup.workload, isRedisRun(setup));
    const OperationStats empty;
    const OperationStats* sets = operation(r, engine::kMemcacheSetOperation);
    const OperationStats* gets = operation(r, engine::kMemcacheGetOperation);
    if (!sets)
        sets = &empty;
    if (!gets)
        gets = &empty;
    out += tableRow(QStringLiteral("Sets"),
                    QStringList{rate(double(sets->count), seconds), none, none}
                        << latencyCells(sets->latency) << rate(kib * setShare, seconds));
    out +=
        tableRow(QStringLiteral("Gets"),
                 QStringList{rate(double(gets->count), seconds), rate(double(gets->hits), seconds),
                             rate(double(gets->misses), seconds)}
                     << latencyCells(gets->latency) << rate(kib * (1 - setShare), seconds));
    out += tableRow(QStringLiteral("Totals"),
                    QStringList{rate(double(r.successful()), seconds),
                                rate(double(r.hits), seconds), rate(double(r.misses), seconds)}
                        << latencyCells(r.total) << rate(kib, seconds));
    return out;
}

// "Redis (RESP2)", "Redis (RESP3, HELLO 3)", "memcached text protocol".
QString protocolWords(const MemcacheRunSetup& s) {
    if (s.protocol == QLatin1String("resp3"))
        return QStringLiteral("Redis (RESP3, HELLO 3)");
    if (s.protocol == QLatin1String("resp2"))
        return QStringLiteral("Redis (RESP2, HELLO 2)");
    if (s.protocol == QLatin1String("redis"))
        return QStringLiteral("Redis (RESP2)");
    return QStringLiteral("memcached text protocol");
}

QString describeRun(const MemcacheRunSetup& s, const RunResult& r) {
    const engine::MemcacheSpec& w = s.workload;
    const auto count = [](uint64_t n, const char* one, const char* many) {
        return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
    };
    QString out =
        QStringLiteral("%1 to %2: %3 x %4 = %5, pipeline %6\n")
            .arg(protocolWords(s), s.server, count(s.threads, "thread", "threads"),
                 count(s.clientsPerThread, "client", "clients"),
                 count(uint64_t(s.threads) * s.clientsPerThread, "connection", "connections"))
            .arg(s.pipeline);
    if (s.commands.empty()) {
        out +=
            QStringLiteral("set:get ratio %1:%2, key pattern %3:%4 over %5%6..%7, %8-byte values\n")
                .arg(w.setRatio)
                .arg(w.getRatio)
                .arg(QLatin1Char(engine::keyPatternLetter(w.setKeyPattern)))
                .arg(QLatin1Char(engine::keyPatternLetter(w.getKeyPattern)))
                .arg(printableText(w.keyPrefix))
                .arg(w.keyMinimum)
                .arg(w.keyMaximum)
                .arg(w.valueSize);
    } else {
        for (const RedisCommand& command : s.commands)
            out += QStringLiteral("command %1, ratio %2, key pattern %3\n")
                       .arg(printableText(command.command))
                       .arg(command.ratio)
                       .arg(command.keyPattern.trimmed().toUpper());
        out += QStringLiteral("keys %1%2..%3, %4-byte values\n")
                   .arg(printableText(w.keyPrefix))
                   .arg(w.keyMinimum)
                   .arg(w.keyMaximum)
                   .arg(w.valueSize);
    }
    if (s.preload) {
        out += QStringLiteral("Preloaded %1 keys in %2 s")
                   .arg(s.preload->keys)
                   .arg(s.preload->seconds, 0, 'f', 2);
        if (s.preload->failed > 0)
            out += QStringLiteral(" (%1 sets failed: %2)")
                       .arg(s.preload->failed)
                       .arg(printableText(s.preload->firstError));
        out += QLatin1Char('\n');
    }
    if (s.requestsPerClient > 0)
        out += QStringLiteral("%1 requests (%2 per client) in %3 s\n")
                   .arg(r.complete)
                   .arg(s.requestsPerClient)
                   .arg(r.durationSeconds, 0, 'f', 2);
    else
        out += QStringLiteral("%1 requests in %2 s\n")
                   .arg(r.complete)
                   .arg(r.durationSeconds, 0, 'f', 2);
    return out;
}

QString failures(const MemcacheRunReport& report) {
    const RunResult& r = report.result;
    const auto errors = [&](ErrorClass c) {
        return r.errors[size_t(c)];
    };
    QString out;
    if (r.failed > 0) {
        out += QStringLiteral("Failed: %1 (Connect: %2, Receive: %3, Exceptions: %4, Timeouts: "
                              "%5, Write: %6)\n")
                   .arg(r.failed)
                   .arg(errors(ErrorClass::Connect))
                   .arg(errors(ErrorClass::Receive))
                   .arg(errors(ErrorClass::Exception))
                   .arg(errors(ErrorClass::Timeout))
                   .arg(errors(ErrorClass::Write));
    }
    const ErrorReplyCounts& e = report.errorReplies;
    if (e.total() > 0) {
        out += QStringLiteral("Error replies: %1 (ERROR: %2, CLIENT_ERROR: %3, SERVER_ERROR: %4), "
                              "counted in Exceptions\n")
                   .arg(e.total())
                   .arg(e.error)
                   .arg(e.clientError)
                   .arg(e.serverError);
    }
    uint64_t redisReplies = 0;
    QStringList classes;
    for (const auto& [code, count] : r.errorReplyCodes) {
        redisReplies += count;
        classes << QStringLiteral("%1: %2").arg(printableText(code)).arg(count);
    }
    if (redisReplies > 0)
        out += QStringLiteral("Error replies: %1 (%2), counted in Exceptions\n")
                   .arg(redisReplies)
                   .arg(classes.join(QStringLiteral(", ")));
    if (!r.firstError.empty()) {
        const QString first = printableText(r.firstError);
        bool reply = first.startsWith(QLatin1String("ERROR")) ||
                     first.startsWith(QLatin1String("CLIENT_ERROR")) ||
                     first.startsWith(QLatin1String("SERVER_ERROR"));
        for (const auto& entry : r.errorReplyCodes)
            reply = reply || first.startsWith(QString::fromStdString(entry.first));
        out += (reply ? QStringLiteral("First error reply: ") : QStringLiteral("First error: ")) +
               first + QLatin1Char('\n');
    }
    return out;
}

} // namespace

QString formatMemtierReport(const MemcacheRunReport& report, const MemcacheRunSetup& setup) {
    const RunResult& r = report.result;
    QString out = QLatin1String("\n") + describeRun(setup, r) + QLatin1Char('\n');
    out += allStatsTable(report, setup);
    out += QLatin1Char('\n');
    // Arbitrary commands count no hits.
    const uint64_t lookups = r.hits + r.misses;
    if (setup.commands.empty() && lookups > 0)
        out += QStringLiteral("Gets: %1 hits, %2 misses (%3% hit)\n")
                   .arg(r.hits)
                   .arg(r.misses)
                   .arg(100.0 * double(r.hits) / double(lookups), 0, 'f', 1);
    else if (setup.commands.empty())
        out += QStringLiteral("Gets: none answered\n");
    out += failures(report);
    out += QStringLiteral("Threads: %1 (%2), client CPU %3 s, %4% of the threads' time\n")
               .arg(r.threads)
               .arg(threadPlacement(r))
               .arg(r.clientCpuSeconds, 0, 'f', 2)
               .arg(qRound(r.clientCpuLoad() * 100));
    if (r.cancelled)
        out += QStringLiteral("The run was cancelled; the figures cover the part that ran.\n");
    return out;
}

bool isRedisRun(const MemcacheRunSetup& setup) {
    return setup.protocol != QLatin1String("memcache_text");
}

void addMemcacheSetupJson(QJsonObject& o, const MemcacheRunSetup& setup) {
    const engine::MemcacheSpec& w = setup.workload;
    if (isRedisRun(setup)) {
        o[QStringLiteral("protocol")] = setup.protocol;
        if (!setup.commands.empty()) {
            QJsonArray commands;
            for (const RedisCommand& command : setup.commands)
                commands.append(
                    QJsonObject{{QStringLiteral("command"), command.command},
                                {QStringLiteral("ratio"), command.ratio},
                                {QStringLiteral("key_pattern"), command.keyPattern.toUpper()}});
            o[QStringLiteral("commands")] = commands;
        }
    }
    o[QStringLiteral("server")] = setup.server;
    o[QStringLiteral("clients_per_thread")] = double(setup.clientsPerThread);
    o[QStringLiteral("pipeline")] = double(setup.pipeline);
    o[QStringLiteral("requests_per_client")] = double(setup.requestsPerClient);
    o[QStringLiteral("test_time_s")] = setup.testTimeSeconds;
    o[QStringLiteral("ratio")] = QStringLiteral("%1:%2").arg(w.setRatio).arg(w.getRatio);
    o[QStringLiteral("key_pattern")] =
        QStringLiteral("%1:%2")
            .arg(QLatin1Char(engine::keyPatternLetter(w.setKeyPattern)))
            .arg(QLatin1Char(engine::keyPatternLetter(w.getKeyPattern)));
    o[QStringLiteral("key_minimum")] = double(w.keyMinimum);
    o[QStringLiteral("key_maximum")] = double(w.keyMaximum);
    o[QStringLiteral("key_prefix")] = QString::fromStdString(w.keyPrefix);
    o[QStringLiteral("data_size")] = double(w.valueSize);
    if (setup.preload) {
        o[QStringLiteral("preload")] =
            QJsonObject{{QStringLiteral("keys"), double(setup.preload->keys)},
                        {QStringLiteral("seconds"), setup.preload->seconds},
                        {QStringLiteral("failed"), double(setup.preload->failed)}};
    }
}

QJsonObject memcacheResultJson(PointResult result, const ErrorReplyCounts& errorReplies,
                               const MemcacheRunSetup& setup) {
    CliResultContext context;
    context.protocol = isRedisRun(setup) ? TargetProtocol::Redis : TargetProtocol::Memcache;
    context.memcache = setup;
    result.errorReplies =
        ErrorReplies{errorReplies.error, errorReplies.clientError, errorReplies.serverError};
    return cliResultJson(result, context);
}

} // namespace loadscope::app
