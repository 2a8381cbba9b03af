#pragma once

#include "app/import/imported_report.h"

#include <QString>

namespace loadscope::app {

class ReportLines;

// Reads netperf TCP_RR, TCP_CRR, TCP_STREAM, UDP_RR and UDP_STREAM results in
// the three layouts netperf prints: the classic banner, column headers and
// result line (UDP_STREAM's two: the send side and the receiver's); the omni
// `-- -o` CSV (a header line of column names and a value line); and the omni
// `-- -k` KEY=VALUE lines. UDP_STREAM's throughput is the receiver's, as
// netperf's own THROUGHPUT is.
class NetperfReportParser {
public:
    static ImportResult parse(const ReportLines& lines, const QString& fileName);
};

} // namespace loadscope::app
