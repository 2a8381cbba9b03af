#pragma once

#include "app/import/imported_report.h"

#include <QString>

namespace loadscope::app {

class ReportLines;

// Reads wrk and wrk2 reports: the summary, the --latency distribution, wrk2's
// full HdrHistogram percentile spectrum (and its -U uncorrected twin), the
// socket error and Non-2xx lines. wrk2 is told apart by its thread
// calibration lines and HdrHistogram output.
class WrkReportParser {
public:
    static ImportResult parse(const ReportLines& lines, const QString& fileName);
};

} // namespace loadscope::app
