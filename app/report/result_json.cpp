#include "app/report/result_json.h"

#include <QJsonArray>
#include <array>

namespace loadscope::app {

namespace {

constexpr double kNsPerMs = 1e6;

struct PercentileKey {
    const char* key;
    double percentile;
};
constexpr std::array<PercentileKey, 11> kPercentiles{{{"p50", 50},
                                                      {"p66", 66},
                                                      {"p75", 75},
                                                      {"p80", 80},
                                                      {"p90", 90},
                                                      {"p95", 95},
                                                      {"p98", 98},
                                                      {"p99", 99},
                                                      {"p99_9", 99.9},
                                                      {"p99_99", 99.99},
                                                      {"max", 100}}};

double ms(double ns) {
    return ns / kNsPerMs;
}

QByteArray csvField(const QString& text) {
    QByteArray bytes = text.toUtf8();
    if (bytes.contains(',') || bytes.contains('"') || bytes.contains('\n') ||
        bytes.contains('\r')) {
        bytes.replace("\"", "\"\"");
        return '"' + bytes + '"';
    }
    return bytes;
}

void flatten(const QString& prefix, const QJsonValue& value, QStringList& names,
             QStringList& values) {
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            flatten(prefix.isEmpty() ? it.key() : prefix + QLatin1Char('_') + it.key(), it.value(),
                    names, values);
        return;
    }
    if (value.isArray()) {
        QStringList parts;
        for (const QJsonValue& item : value.toArray())
            parts << item.toVariant().toString();
        names << prefix;
        values << parts.join(QLatin1Char(' '));
        return;
    }
    names << prefix;
    if (value.isDouble())
        values << QString::number(value.toDouble(), 'g', 15);
    else if (value.isBool())
        values << (value.toBool() ? QStringLiteral("true") : QStringLiteral("false"));
    else
        values << value.toString();
}

} // namespace

QJsonObject latencyJson(const engine::Histogram& histogram) {
    QJsonObject object;
    object[QStringLiteral("min")] = ms(double(histogram.min()));
    object[QStringLiteral("mean")] = ms(histogram.mean());
    object[QStringLiteral("sd")] = ms(histogram.stddev());
    for (const PercentileKey& p : kPercentiles) {
        const double value = p.percentile >= 100
                                 ? double(histogram.max())
                                 : double(histogram.valueAtPercentile(p.percentile));
        object[QLatin1String(p.key)] = ms(value);
    }
    return object;
}

QJsonObject runResultJson(const engine::RunResult& r) {
    using engine::ErrorClass;
    const auto error = [&](ErrorClass c) {
        return double(r.errors[size_t(c)]);
    };
    QJsonObject o;
    o[QStringLiteral("complete")] = double(r.complete);
    o[QStringLiteral("failed")] = double(r.failed);
    o[QStringLiteral("failed_connect")] = error(ErrorClass::Connect);
    o[QStringLiteral("failed_receive")] = error(ErrorClass::Receive);
    o[QStringLiteral("failed_length")] = error(ErrorClass::Length);
    o[QStringLiteral("failed_exceptions")] = error(ErrorClass::Exception);
    o[QStringLiteral("failed_write")] = error(ErrorClass::Write);
    o[QStringLiteral("timeouts")] = error(ErrorClass::Timeout);
    o[QStringLiteral("bytes_total")] = double(r.bytesTotal);
    o[QStringLiteral("bytes_body")] = double(r.bytesBody);
    o[QStringLiteral("bytes_sent")] = double(r.bytesSent);
    o[QStringLiteral("duration_s")] = r.durationSeconds;
    o[QStringLiteral("transfer_rate_kib_s")] = r.transferRateKiBps();
    o[QStringLiteral("concurrency")] = double(r.concurrency);
    o[QStringLiteral("threads")] = double(r.threads);
    QJsonArray cpus;
    for (int cpu : r.threadCpus)
        cpus.append(cpu);
    o[QStringLiteral("thread_cpus")] = cpus;
    o[QStringLiteral("threads_pinned")] = r.pinned;
    o[QStringLiteral("client_cpu_s")] = r.clientCpuSeconds;
    o[QStringLiteral("client_cpu_load")] = r.clientCpuLoad();
    o[QStringLiteral("connections_opened")] = double(r.connectionsOpened);
    o[QStringLiteral("cancelled")] = r.cancelled;
    if (!r.firstError.empty())
        o[QStringLiteral("first_error")] = QString::fromStdString(r.firstError);
    o[QStringLiteral("latency_ms")] = latencyJson(r.total);
    o[QStringLiteral("connect_ms")] = latencyJson(r.connect);
    o[QStringLiteral("waiting_ms")] = latencyJson(r.waiting);
    o[QStringLiteral("processing_ms")] = latencyJson(r.processing);
    return o;
}

QByteArray jsonToCsv(const QJsonObject& object) {
    QStringList names;
    QStringList values;
    flatten(QString(), object, names, values);
    QByteArray header;
    QByteArray row;
    for (qsizetype i = 0; i < names.size(); ++i) {
        if (i) {
            header += ',';
            row += ',';
        }
        header += csvField(names.at(i));
        row += csvField(values.at(i));
    }
    return header + "\r\n" + row + "\r\n";
}

} // namespace loadscope::app
