#pragma once

#include "app/import/imported_report.h"

#include <QByteArray>
#include <QString>

namespace loadscope::app {

class ReportLines;

// Reads memtier_benchmark results: the ALL STATS table of its standard output
// (with whatever --print-percentiles columns it has; the AGGREGATED AVERAGE
// table of a multi-run output stands in for it), and the --json-out-file JSON.
class MemtierReportParser {
public:
    static ImportResult parse(const ReportLines& lines, const QString& fileName);
    // `content` is a whole JSON file. Its Totals "Average Latency" is known to
    // read 0 in some versions while the commands' figures are right, so the
    // total mean is computed from "Accumulated Latency" / "Count".
    static ImportResult parseJson(const QByteArray& content, const QString& fileName);
    // True when `content` looks like memtier's JSON (an object holding "ALL STATS").
    static bool looksLikeJson(const QByteArray& content);
};

} // namespace loadscope::app
