// The UDP fields of the result schema (udp-rr, udp-stream). Added after the first release:
// their CSV columns come after every other but the CPU's, and a session file holds them only
// when set, so files of TCP and HTTP results stay as they were.
#include "app/session/result_schema_builder.h"

namespace loadscope::app::schema_detail {

namespace {

using Counter = uint64_t DatagramCounts::*;

// A count of DatagramCounts under "datagrams/<key>", in the CLI JSON of `protocol`.
void addDatagramCount(ResultSchemaBuilder& b, const char* id, const char* unit, const char* key,
                      Counter member, TargetProtocol protocol) {
    ResultField& field = b.savedWhenSet(
        id, FieldType::Count, unit,
        [member](const PointResult& r) { return FieldValue(r.datagrams.*member); }, key,
        [member](const JsonReader& j, QStringView k, PointResult& r) {
            r.datagrams.*member = j.count(k, 0);
        });
    field.csvColumn = field.id;
    field.cliKeys = only(protocol, id);
}

// udp-stream's figures from the sink, absent when it did not say.
FieldValue fromSink(const PointResult& r, uint64_t value) {
    return r.datagrams.sinkDatagrams ? FieldValue(value) : FieldValue();
}

} // namespace

void addUdpFields(ResultSchemaBuilder& b) {
    addLateErrorClass(b, engine::ErrorClass::Lost).cliKeys =
        only(TargetProtocol::UdpRr, "failed_lost");
    const struct {
        const char* id;
        const char* key;
        Counter member;
    } answers[] = {
        {"answers_out_of_order", "datagrams/answersOutOfOrder", &DatagramCounts::answersOutOfOrder},
        {"answers_duplicate", "datagrams/answersDuplicate", &DatagramCounts::answersDuplicate},
        {"answers_late", "datagrams/answersLate", &DatagramCounts::answersLate},
        {"answers_stray", "datagrams/answersStray", &DatagramCounts::answersStray},
    };
    for (const auto& answer : answers)
        addDatagramCount(b, answer.id, "datagrams", answer.key, answer.member,
                         TargetProtocol::UdpRr);
    addDatagramCount(b, "datagrams_sent", "datagrams", "datagrams/sent", &DatagramCounts::sent,
                     TargetProtocol::UdpStream);
    addDatagramCount(b, "send_errors", "datagrams", "datagrams/sendErrors",
                     &DatagramCounts::sendErrors, TargetProtocol::UdpStream);

    // Absent when the sink did not say; a file holds it when it did (sink_reported), 0 or not.
    ResultField& sinkDatagrams = b.savedWhenSet(
        "sink_datagrams", FieldType::Count, "datagrams",
        [](const PointResult& r) {
            return r.datagrams.sinkDatagrams ? FieldValue(*r.datagrams.sinkDatagrams)
                                             : FieldValue();
        },
        "datagrams/sinkDatagrams",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            if (j.has(k))
                r.datagrams.sinkDatagrams = j.count(k);
        });
    sinkDatagrams.omitInCli = true;
    sinkDatagrams.csvColumn = sinkDatagrams.id;
    sinkDatagrams.cliKeys = only(TargetProtocol::UdpStream, "sink_datagrams");
    const struct {
        const char* id;
        const char* unit;
        const char* key;
        Counter member;
    } sink[] = {
        {"sink_bytes", "bytes", "datagrams/sinkBytes", &DatagramCounts::sinkBytes},
        {"sink_out_of_order", "datagrams", "datagrams/sinkOutOfOrder",
         &DatagramCounts::sinkOutOfOrder},
        {"sink_duplicates", "datagrams", "datagrams/sinkDuplicates",
         &DatagramCounts::sinkDuplicates},
    };
    for (const auto& count : sink) {
        const Counter member = count.member;
        ResultField& field = b.savedWhenSet(
            count.id, FieldType::Count, count.unit,
            [member](const PointResult& r) { return fromSink(r, r.datagrams.*member); }, count.key,
            [member](const JsonReader& j, QStringView k, PointResult& r) {
                r.datagrams.*member = j.count(k, 0);
            });
        field.csvColumn = field.id;
        field.cliKeys = only(TargetProtocol::UdpStream, count.id);
        field.omitInCli = true;
    }

    ResultField& delivered =
        b.add("delivered_mbit_s", FieldType::Real, "Mbit/s", [](const PointResult& r) {
            const std::optional<double> rate = r.deliveredMbitps();
            return rate ? FieldValue(*rate) : FieldValue();
        });
    delivered.csvColumn = delivered.summaryMetric = delivered.id;
    delivered.cliKeys = only(TargetProtocol::UdpStream, "delivered_mbit_s");
    delivered.omitInCli = true;
    ResultField& loss =
        b.add("datagram_loss_percent", FieldType::Real, "%", [](const PointResult& r) {
            const std::optional<double> share = r.datagramLossPercent();
            return share ? FieldValue(*share) : FieldValue();
        });
    loss.csvColumn = loss.summaryMetric = loss.id;
    loss.cliKeys = only(TargetProtocol::UdpStream, "datagram_loss_percent");
    loss.omitInCli = true;
}

void addUdpSessionFields(ResultSchemaBuilder& b) {
    // Whether the sink said what it received: its counts may all be 0, which a file leaves out.
    b.savedWhenSet(
        "sink_reported", FieldType::Flag, "",
        [](const PointResult& r) { return FieldValue(r.datagrams.sinkDatagrams.has_value()); },
        "datagrams/sinkReported",
        [](const JsonReader& j, QStringView k, PointResult& r) {
            if (j.boolean(k, false) && !r.datagrams.sinkDatagrams)
                r.datagrams.sinkDatagrams = j.count(u"sinkDatagrams", 0);
        });
}

} // namespace loadscope::app::schema_detail
