#include "app/import/report_importer.h"

#include "app/import/ab_report_parser.h"
#include "app/import/memtier_report_parser.h"
#include "app/import/netperf_report_parser.h"
#include "app/import/report_lines.h"
#include "app/import/wrk_report_parser.h"

#include <algorithm>

namespace loadscope::app {

namespace {

int errorLine(const QString& error, const QString& fileName) {
    // Errors read "file:LINE: message"; the earliest line is the one to report.
    const QString rest = error.mid(fileName.size() + 1);
    return rest.left(rest.indexOf(QLatin1Char(':'))).toInt();
}

} // namespace

ImportResult importReports(const QString& fileName, const QByteArray& content) {
    if (MemtierReportParser::looksLikeJson(content)) {
        ImportResult json = MemtierReportParser::parseJson(content, fileName);
        for (ImportedReport& report : json.reports)
            report.result.source.file = fileName;
        return json;
    }

    const ReportLines lines(content);
    // A notes file may hold outputs of several tools; each parser finds its own.
    const ImportResult found[] = {
        AbReportParser::parse(lines, fileName),
        WrkReportParser::parse(lines, fileName),
        MemtierReportParser::parse(lines, fileName),
        NetperfReportParser::parse(lines, fileName),
    };
    ImportResult merged;
    int firstErrorLine = 0;
    for (const ImportResult& part : found) {
        if (!part.ok()) {
            const int line = errorLine(part.error, fileName);
            if (merged.error.isEmpty() || line < firstErrorLine) {
                merged.error = part.error;
                firstErrorLine = line;
            }
            continue;
        }
        merged.reports.append(part.reports);
    }
    if (!merged.ok()) {
        merged.reports.clear();
        return merged;
    }
    if (merged.reports.isEmpty()) {
        merged.error = ReportLines::errorAt(
            fileName, 1,
            QStringLiteral("not a recognised ab, wrk, wrk2, memtier_benchmark or netperf report"));
        return merged;
    }
    std::stable_sort(
        merged.reports.begin(), merged.reports.end(),
        [](const ImportedReport& a, const ImportedReport& b) { return a.firstLine < b.firstLine; });
    for (ImportedReport& report : merged.reports)
        report.result.source.file = fileName;
    return merged;
}

} // namespace loadscope::app
