#include "app/import/report_reader.h"

#include "app/import/report_lines.h"

namespace loadscope::app {

ReportReader::ReportReader(const ReportLines& lines, const QString& fileName)
    : m_lines(lines)
    , m_fileName(fileName) {}

ImportedReport ReportReader::finish() {
    m_report.tool = tool();
    m_report.lastLine = m_lines.number(m_last);
    m_report.result.source = importedSource(m_report, m_fileName,
                                            m_lines.fingerprint(tool(), m_fingerprintFrom, m_last));
    return m_report;
}

QString ReportReader::next(int& index) const {
    index = m_lines.skipBlank(index + 1);
    return index < m_lines.size() ? m_lines.trimmed(index) : QString();
}

bool ReportReader::refuse(int index, const QString& message) {
    const int line = index >= 0 ? m_lines.number(index) : 1;
    m_error = makeError(ErrorCode::Format, message, m_fileName, line);
    return false;
}

bool ReportReader::cutOff() {
    return refuse(m_last, QStringLiteral("%1 report cut off after '%2'").arg(tool(), m_lastWhat));
}

bool ReportReader::malformed(int index, const QString& what, const QString& value) {
    if (!m_lines.at(index).terminated)
        return cutOff();
    return refuse(
        index,
        QStringLiteral("%1 report has a malformed '%2' value '%3'").arg(tool(), what, value));
}

} // namespace loadscope::app
