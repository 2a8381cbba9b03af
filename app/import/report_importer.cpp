#include "app/import/report_importer.h"

#include "app/import/ab_report_parser.h"
#include "app/import/h2load_report_parser.h"
#include "app/import/memtier_report_parser.h"
#include "app/import/netperf_report_parser.h"
#include "app/import/report_lines.h"
#include "app/import/wrk_report_parser.h"

#include <algorithm>

namespace loadscope::app {

ImportResult importReports(const QString& fileName, const QByteArray& content) {
    if (MemtierReportParser::looksLikeJson(content))
        return MemtierReportParser::parseJson(content, fileName);

    const ReportLines lines(content);
    // A notes file may hold outputs of several tools; each parser finds its own.
    const ImportResult found[] = {
        AbReportParser::parse(lines, fileName),      WrkReportParser::parse(lines, fileName),
        H2loadReportParser::parse(lines, fileName),  MemtierReportParser::parse(lines, fileName),
        NetperfReportParser::parse(lines, fileName),
    };
    QList<ImportedReport> merged;
    const Error* firstError = nullptr; // the earliest line is the one to report
    for (const ImportResult& part : found) {
        if (!part.ok()) {
            if (!firstError || part.error().line < firstError->line)
                firstError = &part.error();
            continue;
        }
        merged.append(*part);
    }
    if (firstError)
        return *firstError;
    if (merged.isEmpty())
        return makeError(
            ErrorCode::Format,
            QStringLiteral(
                "not a recognised ab, wrk, wrk2, h2load, memtier_benchmark or netperf report"),
            fileName, 1);
    std::stable_sort(
        merged.begin(), merged.end(),
        [](const ImportedReport& a, const ImportedReport& b) { return a.firstLine < b.firstLine; });
    return merged;
}

} // namespace loadscope::app
