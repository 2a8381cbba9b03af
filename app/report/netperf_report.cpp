#include "app/report/netperf_report.h"

#include "app/common/printable_text.h"
#include "app/report/ab_report.h"
#include "app/report/result_json.h"

#include <QStringList>
#include <algorithm>

namespace loadscope::app {

namespace {

using engine::ErrorClass;
using engine::RunResult;

constexpr double kNsPerUs = 1e3;

// One line of left-aligned columns, each `width` wide, trailing blanks removed.
QString columns(const QStringList& cells, const std::initializer_list<int>& widths) {
    QString line;
    auto width = widths.begin();
    for (const QString& cell : cells) {
        if (!line.isEmpty() && !line.endsWith(QLatin1Char(' ')))
            line += QLatin1Char(' '); // a figure wider than its column still stands apart
        line += cell.leftJustified(width != widths.end() ? *width : 0);
        if (width != widths.end())
            ++width;
    }
    while (line.endsWith(QLatin1Char(' ')))
        line.chop(1);
    return line + QLatin1Char('\n');
}

QString plural(uint64_t count, const char* singular, const char* pluralForm) {
    return QStringLiteral("%1 %2").arg(count).arg(
        QLatin1String(count == 1 ? singular : pluralForm));
}

QString banner(const RunResult& r, const NetperfRunSetup& s) {
    const bool udp = s.test.startsWith(QLatin1String("UDP"));
    return QStringLiteral("%1 test to %2: %3, %4\n")
        .arg(s.test, s.server,
             udp ? plural(r.concurrency, "socket", "sockets")
                 : plural(r.concurrency, "connection", "connections"),
             plural(r.threads, "thread", "threads"));
}

QString failures(const RunResult& r, bool tls = false, bool udp = false) {
    const auto errors = [&](ErrorClass c) {
        return r.errors[size_t(c)];
    };
    QString out = QStringLiteral("Failed: %1").arg(r.failed);
    if (r.failed > 0 && udp)
        out += QStringLiteral(" (Lost: %1, Connect: %2, Exceptions: %3, Write: %4)")
                   .arg(errors(ErrorClass::Lost))
                   .arg(errors(ErrorClass::Connect))
                   .arg(errors(ErrorClass::Exception))
                   .arg(errors(ErrorClass::Write));
    else if (r.failed > 0)
        out += QStringLiteral(" (Connect: %1, Receive: %2, Exceptions: %3, Timeouts: %4, "
                              "Write: %5%6)")
                   .arg(errors(ErrorClass::Connect))
                   .arg(errors(ErrorClass::Receive))
                   .arg(errors(ErrorClass::Exception))
                   .arg(errors(ErrorClass::Timeout))
                   .arg(errors(ErrorClass::Write))
                   .arg(tls || errors(ErrorClass::Tls) > 0
                            ? QStringLiteral(", TLS: %1").arg(errors(ErrorClass::Tls))
                            : QString());
    out += QLatin1Char('\n');
    if (!r.firstError.empty())
        out += QStringLiteral("First error: %1\n").arg(printableText(r.firstError));
    return out;
}

QString loadGenerator(const RunResult& r) {
    QString out = QStringLiteral("Threads: %1 (%2), client CPU %3 s, %4% of the threads' time\n")
                      .arg(r.threads)
                      .arg(threadPlacement(r))
                      .arg(r.clientCpuSeconds, 0, 'f', 2)
                      .arg(qRound(r.clientCpuLoad() * 100));
    if (r.cancelled)
        out += QStringLiteral("The run was cancelled; the figures cover the part that ran.\n");
    return out;
}

// A sink that stopped reading: its kernel took what fits in its receive
// buffer and acknowledged it, and nothing since. That much is all the figure
// above can hold, and it may never have been read.
QString stalledStreams(const RunResult& r, const NetperfRunSetup& s) {
    if (r.streamsStalled == 0)
        return {};
    QString out = QStringLiteral("The peer stopped reading on %1 of %2: its window stayed shut "
                                 "and it never closed.\nOnly what its kernel acknowledged is "
                                 "counted, and that may sit unread in its receive buffer.\n")
                      .arg(r.streamsStalled)
                      .arg(plural(r.concurrency, "connection", "connections"));
    const uint64_t buffers = uint64_t(r.streamsStalled) * uint64_t(std::max(s.socketRecvBytes, 0));
    if (r.streamsStalled == r.concurrency && r.bytesSent <= buffers)
        out += QStringLiteral("The run delivered nothing: no more than a receive buffer per "
                              "connection was taken (%1 bytes).\n")
                   .arg(r.bytesSent);
    return out;
}

QString us(double ns) {
    return QString::number(ns / kNsPerUs, 'f', 1);
}

} // namespace

QString formatNetperfRrReport(const RunResult& r, const NetperfRunSetup& s) {
    const bool udp = s.test.startsWith(QLatin1String("UDP"));
    const std::initializer_list<int> widths{7, 7, 9, 8, 9, 12};
    QString out = QLatin1String("\n") + banner(r, s);
    out += columns({QStringLiteral("Local"), QStringLiteral("socket")}, {7});
    out += columns({QStringLiteral("Send"), QStringLiteral("Recv"), QStringLiteral("Request"),
                    QStringLiteral("Resp."), QStringLiteral("Elapsed"), QStringLiteral("Trans.")},
                   widths);
    out += columns({QStringLiteral("Size"), QStringLiteral("Size"), QStringLiteral("Size"),
                    QStringLiteral("Size"), QStringLiteral("Time"), QStringLiteral("Rate")},
                   widths);
    out += columns({QStringLiteral("bytes"), QStringLiteral("bytes"), QStringLiteral("bytes"),
                    QStringLiteral("bytes"), QStringLiteral("secs."), QStringLiteral("per sec")},
                   widths);
    out += QLatin1Char('\n');
    out += columns({QString::number(s.socketSendBytes), QString::number(s.socketRecvBytes),
                    QString::number(s.requestSize), QString::number(s.responseSize),
                    QString::number(r.durationSeconds, 'f', 2),
                    QString::number(r.requestsPerSecond(), 'f', 2)},
                   widths);
    out += QLatin1Char('\n');
    out += QStringLiteral("Transactions: %1\n").arg(r.complete);
    out += failures(r, s.tls, udp);
    if (udp) {
        out += QStringLiteral("Lost: no answer within %1 s; a lost request is not sent again\n")
                   .arg(s.timeoutSeconds);
        out += QStringLiteral("Answers completing no request: %1 duplicate, %2 late, %3 stray; "
                              "%4 out of order (%5)\n")
                   .arg(r.answersDuplicate)
                   .arg(r.answersLate)
                   .arg(r.answersStray)
                   .arg(r.answersOutOfOrder)
                   .arg(s.requestSize >= 8 && s.responseSize >= 8
                            ? QStringLiteral("by the sequence numbers in requests and answers")
                            : QStringLiteral("under 8 bytes there is no sequence number: answers "
                                             "are taken in order, and none is told apart"));
    }
    const engine::Histogram& h = r.total;
    out += QStringLiteral("Latency (us): p50 %1, p90 %2, p99 %3, p99.9 %4, max %5\n")
               .arg(us(double(h.valueAtPercentile(50))), us(double(h.valueAtPercentile(90))),
                    us(double(h.valueAtPercentile(99))), us(double(h.valueAtPercentile(99.9))),
                    us(double(h.max())));
    out +=
        (udp ? QStringLiteral("Sockets opened: %1\n") : QStringLiteral("Connections opened: %1\n"))
            .arg(r.connectionsOpened);
    if (s.tls) {
        // Per handshake, not per transaction: with TCP_CRR one per transaction.
        out += QStringLiteral("TLS: %1, handshakes %2\n")
                   .arg(tlsProtocolText(r), tlsHandshakesText(r));
        if (r.tlsHandshakes > 0)
            out += QStringLiteral("TLS handshake (us): p50 %1, p99 %2, max %3\n")
                       .arg(us(double(r.tls.valueAtPercentile(50))),
                            us(double(r.tls.valueAtPercentile(99))), us(double(r.tls.max())));
    }
    out += udp ? QStringLiteral("Socket sizes: this host's defaults for a new UDP socket\n")
               : QStringLiteral("Socket sizes: this host's defaults for a new TCP socket\n");
    out += loadGenerator(r);
    return out;
}

QString formatNetperfStreamReport(const RunResult& r, const NetperfRunSetup& s) {
    const std::initializer_list<int> widths{8, 8, 9, 9, 13};
    QString out = QLatin1String("\n") + banner(r, s);
    out +=
        columns({QStringLiteral("Recv"), QStringLiteral("Send"), QStringLiteral("Send")}, widths);
    out += columns({QStringLiteral("Socket"), QStringLiteral("Socket"), QStringLiteral("Message"),
                    QStringLiteral("Elapsed")},
                   widths);
    out += columns({QStringLiteral("Size"), QStringLiteral("Size"), QStringLiteral("Size"),
                    QStringLiteral("Time"), QStringLiteral("Throughput")},
                   widths);
    out += columns({QStringLiteral("bytes"), QStringLiteral("bytes"), QStringLiteral("bytes"),
                    QStringLiteral("secs."), QStringLiteral("10^6bits/sec")},
                   widths);
    out += QLatin1Char('\n');
    out += columns({QString::number(s.socketRecvBytes), QString::number(s.socketSendBytes),
                    QString::number(s.sendSize), QString::number(r.durationSeconds, 'f', 2),
                    QString::number(r.throughputMbitps(), 'f', 2)},
                   widths);
    out += QLatin1Char('\n');
    out += QStringLiteral("Bytes sent: %1 in the measured time\n").arg(r.bytesSent);
    out += stalledStreams(r, s);
    out += QStringLiteral("Socket sizes: this host's defaults for a new TCP socket\n");
    out += failures(r);
    out += loadGenerator(r);
    return out;
}

QString formatNetperfUdpStreamReport(const RunResult& r, const NetperfRunSetup& s) {
    // netperf's columns and its two lines: what was sent, and what the receiver got.
    const std::initializer_list<int> widths{8, 9, 13, 12, 7, 13};
    QString out = QLatin1String("\n") + banner(r, s);
    out += columns({QStringLiteral("Socket"), QStringLiteral("Message"), QStringLiteral("Elapsed"),
                    QStringLiteral("Messages")},
                   widths);
    out += columns({QStringLiteral("Size"), QStringLiteral("Size"), QStringLiteral("Time"),
                    QStringLiteral("Okay"), QStringLiteral("Errors"), QStringLiteral("Throughput")},
                   widths);
    out += columns({QStringLiteral("bytes"), QStringLiteral("bytes"), QStringLiteral("secs"),
                    QStringLiteral("#"), QStringLiteral("#"), QStringLiteral("10^6bits/sec")},
                   widths);
    out += QLatin1Char('\n');
    const QString elapsed = QString::number(r.durationSeconds, 'f', 2);
    out += columns({QString::number(s.socketSendBytes), QString::number(s.sendSize), elapsed,
                    QString::number(r.datagramsSent), QString::number(r.sendErrors),
                    QString::number(r.throughputMbitps(), 'f', 2)},
                   widths);
    if (r.sinkReported()) {
        out += columns({QString::number(s.socketRecvBytes), QString(), elapsed,
                        QString::number(r.sinkDatagrams), QString(),
                        QString::number(r.deliveredMbitps(), 'f', 2)},
                       widths);
        out += QLatin1Char('\n');
        const uint64_t received = r.sinkDatagrams - std::min(r.sinkDatagrams, r.sinkDuplicates);
        const uint64_t lost = r.datagramsSent - std::min(r.datagramsSent, received);
        out += QStringLiteral("Received by the sink: %1 of %2 sent (lost %3, %4%), %5 out of "
                              "order, %6 duplicate\n")
                   .arg(r.sinkDatagrams)
                   .arg(r.datagramsSent)
                   .arg(lost)
                   .arg(r.datagramsSent > 0 ? 100.0 * double(lost) / double(r.datagramsSent) : 0, 0,
                        'f', 2)
                   .arg(r.sinkOutOfOrder)
                   .arg(r.sinkDuplicates);
    } else {
        out += QLatin1Char('\n');
        out += QStringLiteral("Received: unknown: %1 (a Loadscope sink, 'serve sink --udp', "
                              "says what arrived; messages need 16 bytes for its header)\n")
                   .arg(r.sinkReports > 0 ? QStringLiteral("%1 of %2 sinks answered")
                                                .arg(r.sinkReports)
                                                .arg(r.concurrency)
                                          : QStringLiteral("the receiver did not say"));
    }
    out += QStringLiteral("Socket sizes: this host's defaults for a new UDP socket (the "
                          "receiver's are its own)\n");
    out += failures(r);
    out += loadGenerator(r);
    return out;
}

void addNetperfSetupJson(QJsonObject& o, const NetperfRunSetup& s) {
    o[QStringLiteral("test")] = s.test;
    o[QStringLiteral("server")] = s.server;
    if (s.test == u"TCP_STREAM" || s.test == u"UDP_STREAM") {
        o[QStringLiteral("send_size")] = double(s.sendSize);
    } else {
        o[QStringLiteral("request_size")] = double(s.requestSize);
        o[QStringLiteral("response_size")] = double(s.responseSize);
    }
    if (s.test == u"UDP_RR") {
        o[QStringLiteral("burst")] = double(s.burst);
        o[QStringLiteral("timeout_s")] = s.timeoutSeconds;
        o[QStringLiteral("sequence_numbers")] = s.requestSize >= 8 && s.responseSize >= 8;
    }
    o[QStringLiteral("socket_send_bytes")] = s.socketSendBytes;
    o[QStringLiteral("socket_recv_bytes")] = s.socketRecvBytes;
}

namespace {

QJsonObject netperfResultJson(const PointResult& result, const NetperfRunSetup& s,
                              TargetProtocol protocol) {
    CliResultContext context;
    context.protocol = protocol;
    context.netperf = s;
    return cliResultJson(result, context);
}

} // namespace

QJsonObject tcpRrResultJson(const PointResult& result, const NetperfRunSetup& s) {
    return netperfResultJson(result, s, TargetProtocol::TcpRr);
}

QJsonObject tcpStreamResultJson(const PointResult& result, const NetperfRunSetup& s) {
    return netperfResultJson(result, s, TargetProtocol::TcpStream);
}

QJsonObject udpRrResultJson(const PointResult& result, const NetperfRunSetup& s) {
    return netperfResultJson(result, s, TargetProtocol::UdpRr);
}

QJsonObject udpStreamResultJson(const PointResult& result, const NetperfRunSetup& s) {
    return netperfResultJson(result, s, TargetProtocol::UdpStream);
}

} // namespace loadscope::app
