#pragma once

#include <QByteArray>
#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QStringView>
#include <optional>

namespace loadscope::app {

// A line pattern of a report layout, written as a Latin-1 literal.
inline QRegularExpression pattern(const char* text) {
    return QRegularExpression(QString::fromLatin1(text));
}

// One line of a saved tool output, cleaned of what terminals, editors and web
// pages add: CR, tabs, non-breaking and thin spaces become plain spaces and
// trailing blanks are dropped, so parsers match the text the tool printed.
struct ReportLine {
    QString text;
    int number = 0;          // 1-based, as an editor shows it
    bool terminated = false; // a line end followed; false only for a last line cut short
};

// The lines of one imported file, shared by every report parser. Decodes UTF-8
// (or UTF-16 with a byte-order mark, as Windows shells redirect), tolerating
// invalid bytes so that text around a report never stops the import.
class ReportLines {
public:
    explicit ReportLines(const QByteArray& content);

    int size() const { return static_cast<int>(m_lines.size()); }
    const ReportLine& at(int index) const { return m_lines.at(index); }
    QStringView text(int index) const { return m_lines.at(index).text; }
    QString trimmed(int index) const { return m_lines.at(index).text.trimmed(); }
    bool isBlank(int index) const { return m_lines.at(index).text.trimmed().isEmpty(); }
    int number(int index) const { return m_lines.at(index).number; }
    // Index of the first non-blank line at or after `from`, or size().
    int skipBlank(int from) const;

    // SHA-256 (hex) of lines [first, last] with blank lines dropped and runs of
    // spaces collapsed: the same report copied from a terminal, a web page or a
    // CRLF file gets the same fingerprint.
    QString fingerprint(const QString& tool, int first, int last) const;

    // Whitespace-separated fields of a line.
    static QStringList fields(QStringView line);

    // A shell command line running one of `programs` ("ab", "wrk"), alone or
    // after a prompt ("user@host:~$ ab -k -c 10 URL", "# sudo wrk ..."), split
    // into words with shell quoting undone. Prose that merely mentions the
    // program ("then I ran ab -c 10 ...") is not a command.
    struct Command {
        QString program;   // as named in `programs`
        QString text;      // the command from the program name on, as typed
        QStringList words; // the arguments after the program name
    };
    static std::optional<Command> command(QStringView line, const QStringList& programs);
    // The same, for HTTP tools: only a command with an http(s) URL among its words.
    static std::optional<Command> commandWithUrl(QStringView line, const QStringList& programs);

private:
    QList<ReportLine> m_lines;
};

} // namespace loadscope::app
