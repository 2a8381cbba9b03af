#include "app/import/imported_report.h"

namespace loadscope::app {

ResultSource importedSource(const ImportedReport& report, const QString& file,
                            const QString& fingerprint) {
    return ResultSource{ResultSource::Kind::Imported, report.tool, report.version, file,
                        fingerprint};
}

QString ImportedReport::protocolId() const {
    if (tool == QLatin1StringView("memtier_benchmark")) {
        const bool redis = memtierProtocol == QLatin1StringView("redis") ||
                           memtierProtocol == QLatin1StringView("resp2") ||
                           memtierProtocol == QLatin1StringView("resp3");
        return redis ? QStringLiteral("redis") : QStringLiteral("memcache");
    }
    if (tool == QLatin1StringView("netperf") && test == QLatin1StringView("UDP_RR"))
        return QStringLiteral("udp-rr");
    if (tool == QLatin1StringView("netperf") && test == QLatin1StringView("UDP_STREAM"))
        return QStringLiteral("udp-stream");
    if (tool == QLatin1StringView("netperf"))
        return test == QLatin1StringView("TCP_STREAM") ? QStringLiteral("tcp-stream")
                                                       : QStringLiteral("tcp-rr");
    return QStringLiteral("http");
}

bool ImportedReport::fitsProtocol(const QString& protocol) const {
    if (protocol == protocolId())
        return true;
    return tool == QLatin1StringView("memtier_benchmark") && memtierProtocol.isEmpty() &&
           protocol == QLatin1StringView("redis");
}

QString ImportedReport::description() const {
    QString text = tool;
    if (!test.isEmpty())
        text += QLatin1Char(' ') + test;
    if (!version.isEmpty())
        text += QLatin1Char(' ') + version;
    if (!memtierProtocol.isEmpty())
        text += QStringLiteral(" -P ") + memtierProtocol;
    QStringList parts;
    parts << (concurrency ? QStringLiteral("concurrency %1").arg(*concurrency)
                          : QStringLiteral("concurrency unknown"));
    if (streams)
        parts << QStringLiteral("%1 streams per connection").arg(*streams);
    if (requests)
        parts << QStringLiteral("%1 requests").arg(*requests);
    else if (result.complete > 0)
        parts << QStringLiteral("%1 complete").arg(result.complete);
    const QString unit = tool == QLatin1StringView("memtier_benchmark") ? QStringLiteral("ops/s")
                         : tool == QLatin1StringView("netperf")         ? QStringLiteral("trans/s")
                                                                : QStringLiteral("requests/s");
    if (result.reportedRequestsPerSecond)
        parts << QString::number(*result.reportedRequestsPerSecond, 'f', 2) + QLatin1Char(' ') +
                     unit;
    if (result.reportedThroughputMbitps)
        parts << QString::number(*result.reportedThroughputMbitps, 'f', 2) +
                     QStringLiteral(" Mbit/s");
    return text + QStringLiteral(": ") + parts.join(QStringLiteral(", "));
}

} // namespace loadscope::app
