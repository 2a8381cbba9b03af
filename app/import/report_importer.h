#pragma once

#include "app/import/imported_report.h"

#include <QByteArray>
#include <QString>

namespace loadscope::app {

// Recognises the saved outputs of ab, wrk, wrk2, h2load, memtier_benchmark (its
// stdout and its --json-out-file) and netperf in `content`, read from
// `fileName`, and returns every report found, in file order. A file with no
// report, or with a report cut off or garbled, gives no reports and one Format
// error naming the file and line: nothing of a refused file is half-imported.
ImportResult importReports(const QString& fileName, const QByteArray& content);

} // namespace loadscope::app
