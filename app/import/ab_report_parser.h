#pragma once

#include "app/import/imported_report.h"

#include <QString>

namespace loadscope::app {

class ReportLines;

// Reads ApacheBench reports (the 2.0.40 and 2.3 layouts) out of a saved file:
// every report it holds, each with the command line typed above it when that
// was kept. A report that starts but does not finish (a copy cut short, an
// aborted run) refuses the whole file, naming the last line that was read.
class AbReportParser {
public:
    static ImportResult parse(const ReportLines& lines, const QString& fileName);
};

} // namespace loadscope::app
