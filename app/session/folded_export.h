#pragma once

#include "app/common/result.h"
#include "app/session/session.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QUuid>
#include <vector>

// The call chains of a session's CPU profiles as files that FlameGraph's
// flamegraph.pl and speedscope read ("frames samples" a line, the frames
// root first and separated by ';').
namespace loadscope::app {

struct FoldedStacksFile {
    QString fileName; // "<target>_c<concurrency>.folded", unique within one export
    QUuid targetId;
    int concurrency = 0;
    int results = 0; // repetitions merged into it
    QByteArray text;
};

// One file per target and level: the chains each repetition's profile kept
// (cpu_profile_summary.h), merged. Results without a profile and cancelled
// ones are left out; targets in session order, levels ascending.
std::vector<FoldedStacksFile> foldedStacksFiles(const Session& session);

// Writes foldedStacksFiles() into `directory` (created when missing). Returns
// the paths written, or the one file that failed.
Result<QStringList> writeFoldedStacks(const Session& session, const QString& directory);

} // namespace loadscope::app
