#pragma once

#include "app/import/imported_report.h"

#include <QString>

namespace loadscope::app {

class ReportLines;

// Reads netperf TCP_RR, TCP_CRR and TCP_STREAM results in the three layouts
// netperf prints: the classic banner, column headers and result line; the
// omni `-- -o` CSV (a header line of column names and a value line); and the
// omni `-- -k` KEY=VALUE lines.
class NetperfReportParser {
public:
    static ImportResult parse(const ReportLines& lines, const QString& fileName);
};

} // namespace loadscope::app
