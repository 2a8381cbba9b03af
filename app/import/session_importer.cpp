#include "app/import/session_importer.h"

#include "app/common/checked_file_reader.h"
#include "app/import/report_importer.h"
#include "app/session/result_schema_ranges.h"
#include "app/session/session_json.h"

#include <QHash>

namespace loadscope::app {

namespace {

QString where(const ImportedReport& report) {
    return QStringLiteral("%1:%2").arg(report.result.source.file).arg(report.firstLine);
}

// A refusal that blames one report: its file and first line.
Error refusal(ErrorCode code, const ImportedReport& report, const QString& message) {
    return makeError(code, message, report.result.source.file, report.firstLine);
}

// The mode as the user typed it: a known identifier, or their own words.
void setMode(Target& target, const QString& mode) {
    const QString trimmed = mode.trimmed();
    if (trimmed.isEmpty()) {
        target.mode = DeploymentMode::Host;
    } else if (const auto known = deploymentModeFromId(trimmed)) {
        target.mode = *known;
    } else {
        target.mode = DeploymentMode::Custom;
        target.customMode = trimmed;
    }
}

// The target a first report describes, so that a later sweep can measure the
// same server again. Session files want an address for every non-http
// target; where the output does not give the port, the tool's usual one stands in.
Target targetFor(const ImportedReport& report, const QString& name, const QString& mode,
                 int index) {
    Target target = makeTarget(name, DeploymentMode::Host, index);
    setMode(target, mode);
    target.protocol = *targetProtocolFromId(report.protocolId());
    switch (target.protocol) {
    case TargetProtocol::Http:
        target.http.url = report.url;
        target.http.keepAlive = report.keepAlive.value_or(true);
        break;
    case TargetProtocol::Memcache:
        target.address = report.url.isEmpty() ? QStringLiteral("127.0.0.1:11211") : report.url;
        break;
    case TargetProtocol::Redis:
        target.address = report.url.isEmpty() ? QStringLiteral("127.0.0.1:6379") : report.url;
        if (report.memtierProtocol == QLatin1StringView("resp2") ||
            report.memtierProtocol == QLatin1StringView("resp3"))
            target.redis.protocol = report.memtierProtocol;
        break;
    case TargetProtocol::TcpRr:
    case TargetProtocol::TcpStream:
        // netperf names the host only; 12865 is netserver's port.
        target.address = (report.url.isEmpty() ? QStringLiteral("127.0.0.1") : report.url) +
                         QStringLiteral(":12865");
        target.tcpRr.connectPerRequest = report.test == QLatin1StringView("TCP_CRR");
        break;
    case TargetProtocol::UdpRr:
    case TargetProtocol::UdpStream:
        target.address = (report.url.isEmpty() ? QStringLiteral("127.0.0.1") : report.url) +
                         QStringLiteral(":12865");
        target.responseTimeoutSeconds = kDefaultUdpTimeoutSeconds;
        break;
    }
    return target;
}

} // namespace

Result<SessionImport> importIntoSession(Session& session, const QString& targetName,
                                        const QString& mode, const QList<ImportFile>& files) {
    SessionImport outcome;
    if (targetName.trimmed().isEmpty())
        return invalidInput(QStringLiteral("the target needs a name"));
    if (files.isEmpty())
        return invalidInput(QStringLiteral("no output to import"));

    QList<ImportedReport> reports;
    for (const ImportFile& file : files) {
        ImportResult imported = importReports(file.name, file.content);
        if (!imported)
            return imported.error();
        reports.append(std::move(*imported));
    }

    Session updated = session;
    const Target* existing = nullptr;
    for (const Target& target : updated.targets) {
        if (target.name == targetName)
            existing = &target;
    }
    if (existing) {
        Target probe = *existing;
        if (!mode.trimmed().isEmpty()) {
            setMode(probe, mode);
            if (probe.modeLabel() != existing->modeLabel())
                return invalidInput(QStringLiteral("target '%1' is in mode '%2', not '%3'")
                                        .arg(targetName, existing->modeLabel(), mode.trimmed()));
        }
        outcome.targetId = existing->id;
    } else {
        Target created =
            targetFor(reports.first(), targetName, mode, static_cast<int>(updated.targets.size()));
        // What the output gave (an address, a URL) must be a target the
        // session file reads back, or the saved session would not open.
        const JsonReader readBack(targetToJson(created));
        targetFromJson(readBack);
        if (!readBack.ok())
            return refusal(ErrorCode::Format, reports.first(),
                           QStringLiteral("the %1 report does not give a usable target: %2")
                               .arg(reports.first().tool, readBack.problemText()));
        outcome.targetId = created.id;
        outcome.createdTarget = true;
        updated.targets.push_back(std::move(created));
    }
    const Target& target = *updated.findTarget(outcome.targetId);
    const QString protocol = targetProtocolId(target.protocol);

    // Fingerprints already in the target, and where each came from.
    QHash<QString, QString> seen;
    for (const PointResult& result : updated.results) {
        if (result.targetId == target.id && !result.source.fingerprint.isEmpty())
            seen.insert(result.source.fingerprint, result.source.file);
    }
    for (ImportedReport& report : reports) {
        const QString what =
            report.test.isEmpty() ? report.tool : report.tool + QLatin1Char(' ') + report.test;
        if (!report.fitsProtocol(protocol))
            return refusal(ErrorCode::InvalidInput, report,
                           QStringLiteral("%1 measures %2, but target '%3' measures %4")
                               .arg(what, report.protocolId(), targetName, protocol));
        // TCP_CRR's figures include a connect per transaction: not comparable with TCP_RR's.
        if (target.protocol == TargetProtocol::TcpRr &&
            target.tcpRr.connectPerRequest != (report.test == QLatin1StringView("TCP_CRR")))
            return refusal(ErrorCode::InvalidInput, report,
                           QStringLiteral("%1 does not match target '%2', which measures %3")
                               .arg(what, targetName,
                                    target.tcpRr.connectPerRequest ? QStringLiteral("TCP_CRR")
                                                                   : QStringLiteral("TCP_RR")));
        if (report.result.concurrency < 1)
            return refusal(ErrorCode::Format, report,
                           QStringLiteral("the %1 report does not say its concurrency").arg(what));
        const QString fingerprint = report.result.source.fingerprint;
        if (seen.contains(fingerprint))
            return refusal(ErrorCode::Duplicate, report,
                           QStringLiteral("this %1 report is already in target '%2' (imported "
                                          "from %3)")
                               .arg(what, targetName, seen.value(fingerprint)));
        seen.insert(fingerprint, where(report));

        PointResult result = report.result;
        result.targetId = target.id;
        result.repetition = updated.nextRepetition(target.id, result.concurrency);
        // The ranges first, for the figure as the report printed it; then as
        // loading the saved file will read it, so that an import never makes
        // a session set a result aside.
        Result<void> storable = checkResultRanges(result);
        if (storable) {
            if (auto stored = storedResultFromJson(pointResultToJson(result), updated); !stored)
                storable = stored.error();
        }
        if (!storable)
            return refusal(ErrorCode::Format, report,
                           QStringLiteral("the %1 report has a figure out of range: %2")
                               .arg(what, storable.error().message));
        updated.putResult(result);
        report.result = result;
    }
    session = std::move(updated);
    outcome.reports = reports;
    return outcome;
}

Result<QList<ImportFile>> readImportFiles(const QStringList& paths) {
    QList<ImportFile> files;
    for (const QString& path : paths) {
        const bool standardInput = path == QLatin1StringView("-");
        Result<QByteArray> content = standardInput ? readStandardInput(kMaxReportFileBytes)
                                                   : readRegularFile(path, kMaxReportFileBytes);
        if (!content) {
            // Far beyond any tool output: a bigger file is something else.
            if (content.error().code == ErrorCode::Format)
                return makeError(ErrorCode::Format,
                                 content.error().message + QStringLiteral(", not a tool output"),
                                 path);
            QString problem = content.error().message;
            problem.replace(QStringLiteral("cannot be read: "), QStringLiteral("cannot read: "));
            return makeError(ErrorCode::Io, problem, path);
        }
        files.append(ImportFile{standardInput ? QStringLiteral("stdin") : path, *content});
    }
    return files;
}

} // namespace loadscope::app
