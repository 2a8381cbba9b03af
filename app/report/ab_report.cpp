#include "app/report/ab_report.h"

#include "app/common/printable_text.h"
#include "engine/run_rates.h"

#include <QStringList>
#include <array>
#include <set>

namespace loadscope::app {

namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kSaturatedLoad = 0.9;
// Shorter runs are mostly start-up: thread creation and the first connect.
constexpr double kSecondsToJudgeLoad = 0.5;

QString field(const char* label, const QString& value) {
    return QStringLiteral("%1%2\n").arg(QLatin1String(label), -24).arg(value);
}

QString timesRow(const char* label, const engine::Histogram& h) {
    return QStringLiteral("%1%2 %3 %4 %5 %6\n")
        .arg(QLatin1String(label), -11)
        .arg(double(h.min()) / kNsPerMs, 9, 'f', 3)
        .arg(h.mean() / kNsPerMs, 9, 'f', 3)
        .arg(h.stddev() / kNsPerMs, 7, 'f', 3)
        .arg(double(h.valueAtPercentile(50)) / kNsPerMs, 9, 'f', 3)
        .arg(double(h.max()) / kNsPerMs, 9, 'f', 3);
}

} // namespace

QString tlsProtocolText(const engine::RunResult& r) {
    return r.tlsProtocol.empty()
               ? QStringLiteral("(no handshake completed)")
               : QStringLiteral("%1,%2").arg(QString::fromStdString(r.tlsProtocol),
                                             QString::fromStdString(r.tlsCipher));
}

QString tlsHandshakesText(const engine::RunResult& r) {
    return QStringLiteral("%1 (%2 resumed, %3 full)")
        .arg(r.tlsHandshakes)
        .arg(r.tlsResumed)
        .arg(r.tlsHandshakes - r.tlsResumed);
}

QString threadPlacement(const engine::RunResult& result) {
    std::set<int> cpus(result.threadCpus.begin(), result.threadCpus.end());
    QStringList list;
    for (int cpu : cpus)
        list << QString::number(cpu);
    return (result.pinned ? QStringLiteral("pinned to CPU") : QStringLiteral("ran on CPU")) +
           (list.size() > 1 ? QStringLiteral("s ") : QStringLiteral(" ")) +
           list.join(QLatin1Char(','));
}

QString saturationWarning(const engine::RunResult& result) {
    const double load = result.clientCpuLoad();
    if (load < kSaturatedLoad || result.durationSeconds < kSecondsToJudgeLoad)
        return {};
    return QStringLiteral("warning: the load generator's threads were on CPU %1% of the time; "
                          "the figures may be bounded by the client, not the server "
                          "(try more --threads or another machine)")
        .arg(qRound(load * 100));
}

QString abPercentileRows(const engine::Histogram& h) {
    QString out;
    constexpr std::array<double, 10> percentiles{50, 66, 75, 80, 90, 95, 98, 99, 99.9, 99.99};
    for (double p : percentiles) {
        out += QStringLiteral("%1%  %2\n")
                   .arg(QString::number(p), 6)
                   .arg(double(h.valueAtPercentile(p)) / kNsPerMs, 9, 'f', 3);
    }
    out += QStringLiteral("   100%  %1 (longest request)\n")
               .arg(double(h.max()) / kNsPerMs, 9, 'f', 3);
    return out;
}

QString formatAbReport(const engine::RunResult& r, const AbReportHeader& header) {
    using engine::ErrorClass;
    const auto errors = [&](ErrorClass c) {
        return r.errors[size_t(c)];
    };
    QString out;
    out += QLatin1Char('\n');
    out += field("Server Software:", printableText(r.serverSoftware));
    out += field("Server Hostname:", header.hostName);
    out += field("Server Port:", QString::number(header.port));
    out += field("HTTP version sent:",
                 header.http2    ? (header.tls ? QStringLiteral("HTTP/2 (h2, by ALPN)")
                                               : QStringLiteral("HTTP/2 (h2c, prior knowledge)"))
                 : header.http10 ? QStringLiteral("HTTP/1.0 (as ab)")
                                 : QStringLiteral("HTTP/1.1"));
    if (header.tls) {
        // ab's lines, and the handshakes: how many resumed an earlier session.
        out += field("SSL/TLS Protocol:", tlsProtocolText(r));
        out += field("TLS handshakes:", tlsHandshakesText(r));
    }
    out += QLatin1Char('\n');
    out += field("Document Path:", header.documentPath);
    out += field("Document Length:",
                 header.variableLength
                     ? QStringLiteral("Variable")
                     : QStringLiteral("%1 bytes").arg(r.documentLength < 0 ? 0 : r.documentLength));
    out += QLatin1Char('\n');
    out += field("Concurrency Level:", header.http2
                                           ? QStringLiteral("%1 (%2 connections x %3 streams)")
                                                 .arg(uint64_t(header.connections) * header.streams)
                                                 .arg(header.connections)
                                                 .arg(header.streams)
                                           : QString::number(r.concurrency));
    out += field("Time taken for tests:",
                 QStringLiteral("%1 seconds").arg(r.durationSeconds, 0, 'f', 3));
    // As ab 2.3: a failed connect is a failed request but never a complete one.
    out += field("Complete requests:", QString::number(r.completeAsAb()));
    out += field("Failed requests:", QString::number(r.failed));
    if (r.failed > 0) {
        // ab's four classes plus the two ab has no room for, so that the
        // parts add up to "Failed requests".
        out +=
            QStringLiteral("   (Connect: %1, Receive: %2, Length: %3, Exceptions: %4, Write: "
                           "%5, Timeout: %6%7)\n")
                .arg(errors(ErrorClass::Connect))
                .arg(errors(ErrorClass::Receive))
                .arg(errors(ErrorClass::Length))
                .arg(errors(ErrorClass::Exception))
                .arg(errors(ErrorClass::Write))
                .arg(errors(ErrorClass::Timeout))
                .arg((header.tls || errors(ErrorClass::Tls) > 0
                          ? QStringLiteral(", TLS: %1").arg(errors(ErrorClass::Tls))
                          : QString()) +
                     (header.http2 || errors(ErrorClass::RstStream) + errors(ErrorClass::Goaway) > 0
                          ? QStringLiteral(", RST_STREAM: %1, GOAWAY: %2")
                                .arg(errors(ErrorClass::RstStream))
                                .arg(errors(ErrorClass::Goaway))
                          : QString()));
    }
    if (r.non2xx > 0)
        out += field("Non-2xx responses:", QString::number(r.non2xx));
    if (header.keepAlive)
        out += field("Keep-Alive requests:", QString::number(r.keepAlive));
    out += field("Total transferred:", QStringLiteral("%1 bytes").arg(r.bytesTotal));
    out += field("HTML transferred:", QStringLiteral("%1 bytes").arg(r.bytesBody));
    // The rates are over successful responses (non-2xx included): a failure
    // that ends fast must not make the target look fast.
    out += field("Requests per second:",
                 QStringLiteral("%1 [#/sec] (mean)").arg(r.requestsPerSecond(), 0, 'f', 2));
    out += field(
        "Time per request:",
        QStringLiteral("%1 [ms] (mean)")
            .arg(header.http2 // each stream is one of ab's concurrent clients
                     ? engine::rates::timePerRequestMs(double(header.connections) * header.streams,
                                                       r.durationSeconds, double(r.successful()))
                     : r.timePerRequestMs(),
                 0, 'f', 3));
    out +=
        field("Time per request:", QStringLiteral("%1 [ms] (mean, across all concurrent requests)")
                                       .arg(r.timePerRequestAcrossMs(), 0, 'f', 3));
    out += field("Transfer rate:",
                 QStringLiteral("%1 [Kbytes/sec] received").arg(r.transferRateKiBps(), 0, 'f', 2));

    out += QStringLiteral("\nConnection Times (ms)\n");
    out += QStringLiteral("                 min      mean[+/-sd]     median       max\n");
    out += timesRow("Connect:", r.connect);
    if (header.tls) // per handshake, not per request; Processing leaves it out
        out += timesRow("TLS:", r.tls);
    out += timesRow("Processing:", r.processing);
    out += timesRow("Waiting:", r.waiting);
    out += timesRow("Total:", r.total);

    out += QStringLiteral("\nPercentage of the requests served within a certain time (ms)\n");
    out += abPercentileRows(r.total);

    out += QLatin1Char('\n');
    QStringList codes;
    for (const auto& [code, count] : r.statusCodes)
        codes << QStringLiteral("%1: %2").arg(code).arg(count);
    if (!codes.isEmpty())
        out += field("Status codes:", codes.join(QStringLiteral(", ")));
    out += field("Threads:", QStringLiteral("%1 (%2)").arg(r.threads).arg(threadPlacement(r)));
    out += field("Client CPU:", QStringLiteral("%1 s, %2% of the threads' time")
                                    .arg(r.clientCpuSeconds, 0, 'f', 2)
                                    .arg(qRound(r.clientCpuLoad() * 100)));
    if (!r.firstError.empty())
        out += field("First error:", printableText(r.firstError));
    if (r.cancelled)
        out += QStringLiteral("The run was cancelled; the figures cover the part that ran.\n");
    return out;
}

} // namespace loadscope::app
