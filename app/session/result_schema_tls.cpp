// The TLS fields of the result schema (https targets, tcp-rr over TLS). Added after the first
// release: their CSV columns come after the others, and a session file holds
// them only when set, so files of plain-http results stay as they were.
#include "app/session/result_schema_builder.h"

namespace loadscope::app::schema_detail {

namespace {

bool usedTls(const PointResult& r) {
    return r.tlsHandshakes > 0 || !r.tlsProtocol.isEmpty() ||
           r.errors[size_t(engine::ErrorClass::Tls)] > 0;
}

// A count of a run that used TLS; absent for any other.
template <typename Member> ResultSchemaBuilder::Value tlsCount(Member member) {
    return [member](const PointResult& r) {
        return usedTls(r) ? FieldValue(r.*member) : FieldValue();
    };
}

// In the CLI JSON of the commands that speak TLS: http (https) and tcp-rr (--tls).
Keys tlsCommands(const char* key) {
    Keys keys = only(TargetProtocol::Http, key);
    keys[static_cast<size_t>(TargetProtocol::TcpRr)] = QLatin1String(key);
    return keys;
}

void csvAndTlsCli(ResultField& field, const char* cli) {
    field.csvColumn = field.id;
    field.cliKeys = tlsCommands(cli);
    field.omitInCli = true;
}

} // namespace

// "failed_<class>": a failure count written to a session file only when set.
ResultField& addLateErrorClass(ResultSchemaBuilder& b, engine::ErrorClass errorClass) {
    const size_t i = size_t(errorClass);
    const QByteArray id =
        "failed_" + QByteArray(engine::errorClassName(errorClass).data(),
                               qsizetype(engine::errorClassName(errorClass).size()));
    const QByteArray key = "errors/" + id.mid(7);
    ResultField& failed = b.savedWhenSet(
        id.constData(), FieldType::Count, "requests",
        [i](const PointResult& r) { return FieldValue(r.errors[i]); }, key.constData(),
        [i](const JsonReader& j, QStringView k, PointResult& r) { r.errors[i] = j.count(k, 0); });
    failed.csvColumn = failed.id;
    return failed;
}

void addHttp2Fields(ResultSchemaBuilder& b) {
    // In the CLI JSON of http alone: no other command has streams to lose.
    for (const auto errorClass : {engine::ErrorClass::RstStream, engine::ErrorClass::Goaway}) {
        ResultField& failed = addLateErrorClass(b, errorClass);
        failed.cliKeys = only(TargetProtocol::Http, qPrintable(failed.id));
    }
}

void addTlsFields(ResultSchemaBuilder& b) {
    addLateErrorClass(b, engine::ErrorClass::Tls).cliKeys = every("failed_tls");

    csvAndTlsCli(b.savedWhenSet("tls_handshakes", FieldType::Count, "handshakes",
                                tlsCount(&PointResult::tlsHandshakes), "tlsHandshakes",
                                readCount(&PointResult::tlsHandshakes)),
                 "tls_handshakes");
    csvAndTlsCli(b.savedWhenSet("tls_resumed", FieldType::Count, "handshakes",
                                tlsCount(&PointResult::tlsResumed), "tlsResumed",
                                readCount(&PointResult::tlsResumed)),
                 "tls_resumed");
    csvAndTlsCli(b.add("tls_resumed_ratio", FieldType::Real, "ratio",
                       [](const PointResult& r) {
                           return r.tlsHandshakes > 0
                                      ? FieldValue(double(r.tlsResumed) / double(r.tlsHandshakes))
                                      : FieldValue();
                       }),
                 "tls_resumed_ratio");
    const struct {
        const char* id;
        const char* key;
        QString PointResult::*member;
    } texts[] = {{"tls_protocol", "tlsProtocol", &PointResult::tlsProtocol},
                 {"tls_cipher", "tlsCipher", &PointResult::tlsCipher}};
    for (const auto& text : texts) {
        const auto member = text.member;
        csvAndTlsCli(b.savedWhenSet(
                         text.id, FieldType::Text, "",
                         [member](const PointResult& r) {
                             return (r.*member).isEmpty() ? FieldValue() : FieldValue(r.*member);
                         },
                         text.key, readText(member)),
                     text.id);
    }
    // The handshake's own latency (one sample per handshake): mean, median
    // and 99th percentile in the CSV, every figure under "tls_ms" in CLI JSON.
    const size_t first = b.count();
    addLatencyFields(b, QStringLiteral("tls"), tlsCommands("tls_ms"),
                     [](const PointResult& r) -> const LatencySummary& { return r.tls; },
                     {QStringLiteral("mean"), QStringLiteral("p50"), QStringLiteral("p99")}, {});
    for (size_t i = first; i < b.count(); ++i) {
        b.at(i).omitInCli = true; // a plain-http run has no handshake to describe
        if (b.at(i).id == QLatin1String("tls_mean_ms"))
            b.at(i).summaryMetric = b.at(i).id; // compared, as the connect time is
    }
}

} // namespace loadscope::app::schema_detail
