#pragma once

#include "app/import/imported_report.h"
#include "app/session/session.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <QUuid>

namespace loadscope::app {

// One saved tool output to import: the name its messages use, and its bytes.
struct ImportFile {
    QString name;
    QByteArray content;
};

// What an import into a session did.
struct SessionImport {
    QList<ImportedReport> reports; // as added: result.targetId and result.repetition set
    QUuid targetId;
    bool createdTarget = false;
};

// Reads every file, then adds each report found as a result of the target
// called `targetName`, at the report's concurrency with the next free
// repetition there. A missing target is created: its protocol follows the
// tool (ab, wrk -> http; memtier_benchmark -> memcache; netperf TCP_RR and
// TCP_CRR -> tcp-rr, TCP_STREAM -> tcp-stream), its deployment mode is `mode`
// (an identifier such as "container-nat", or the user's own words; empty
// means host), and its URL or address comes from the output.
//
// All or nothing: an unrecognised, cut or garbled file, a report with a
// figure outside the ranges of result_schema_ranges.h (a negative time, a
// 400-digit number, failed above complete, decreasing percentiles), a report of another
// protocol than the target's, a report without a concurrency, a `mode` other
// than an existing target's, or a report already imported into the target
// (same fingerprint, also twice within `files`) leaves `session` untouched and
// gives one error naming the file and line.
Result<SessionImport> importIntoSession(Session& session, const QString& targetName,
                                        const QString& mode, const QList<ImportFile>& files);

// Reads `paths` ("-" is standard input) for importIntoSession(); an Io error
// naming the file when one cannot be read.
Result<QList<ImportFile>> readImportFiles(const QStringList& paths);

} // namespace loadscope::app
