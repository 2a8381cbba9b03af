#pragma once

#include "app/common/result.h"
#include "app/import/imported_report.h"
#include "app/import/report_lines.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace loadscope::app {

// The skeleton every report reader of a text output shares: the report it
// fills, where it has got to (the last line read and what that line said, for
// "cut off after '...'"), and the refusal it ended with. A reader reads one
// report; its read functions return false once they refused it.
class ReportReader {
public:
    ReportReader(const ReportLines& lines, const QString& fileName);
    virtual ~ReportReader() = default;

    // The refusal: a Format error naming the file and line. Valid once a read
    // function returned false.
    const Error& error() const { return m_error; }
    // Index of the last line that belongs to the report.
    int lastIndex() const { return m_last; }
    ImportedReport& report() { return m_report; }

    // The whole report with its provenance filled in: the one place an
    // imported result learns its tool, version, file and fingerprint.
    ImportedReport finish();

protected:
    // The tool as messages and provenance name it ("ab", "wrk2").
    virtual QString tool() const = 0;

    // The next non-blank line after `index`, or an empty string at the end of
    // the file; `index` moves to it.
    QString next(int& index) const;
    void mark(int index, const QString& what) {
        m_last = index;
        m_lastWhat = what;
    }
    bool refused() const { return !m_error.message.isEmpty(); }
    // Refuses the report, blaming line `index`; returns false.
    bool refuse(int index, const QString& message);
    // The report stops after the last line marked.
    bool cutOff();
    // A value that does not parse is a garbled report, unless its line is the
    // file's last and lost its end: then the report was cut.
    bool malformed(int index, const QString& what, const QString& value);

    const ReportLines& m_lines;
    const QString m_fileName;
    ImportedReport m_report;
    int m_last = -1;
    QString m_lastWhat;
    // First line the fingerprint covers: the report's text without the
    // command typed above it.
    int m_fingerprintFrom = 0;

private:
    Error m_error;
};

// What a line outside any report is to the scan of readReports.
enum class LineRole {
    Other,    // forgets the command typed above
    Preamble, // the tool's own line before its report (its version, a warning): keeps it
    Start,    // the first line of a report
};

// The scan the parsers of one tool's text reports share: walks `lines`, keeps the command
// typed above a report (one of `programs`, with an http(s) URL), and hands each report's first
// line to a new Reader, whose read(start, command, commandIndex, version) reads it to its end.
// `classify(line, version)` names each other line's role and sets `version` from a line that
// prints it. The first refusal refuses the whole file.
template <typename Reader, typename Classify>
ImportResult readReports(const ReportLines& lines, const QString& fileName,
                         const QStringList& programs, Classify classify) {
    QList<ImportedReport> result;
    std::optional<ReportLines::Command> command;
    int commandIndex = -1;
    QString version;
    for (int index = 0; index < lines.size(); ++index) {
        if (auto typed = ReportLines::commandWithUrl(lines.text(index), programs)) {
            command = typed;
            commandIndex = index;
            continue;
        }
        const QString line = lines.trimmed(index);
        const LineRole role = classify(line, version);
        if (role != LineRole::Start) {
            if (role == LineRole::Other && !line.isEmpty())
                command.reset();
            continue;
        }
        Reader reader(lines, fileName);
        if (!reader.read(index, command, commandIndex, version))
            return reader.error();
        result.append(reader.finish());
        index = reader.lastIndex();
        command.reset();
    }
    return result;
}

} // namespace loadscope::app
