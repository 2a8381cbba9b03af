#include "app/cli/man_page.h"

#include <QRegularExpression>
#include <optional>

namespace loadscope::cli {

namespace {

const QString kUsagePrefix = QStringLiteral("Usage: ");

// Text for roff: a backslash printed as one, a dash that starts a word (an
// option, a minus) as a minus rather than a hyphen, anything beyond ASCII by
// its code point, so the source is plain ASCII.
QString escaped(const QString& text) {
    QString out;
    const QList<uint> points = text.toUcs4();
    for (qsizetype i = 0; i < points.size(); ++i) {
        const uint point = points.at(i);
        const bool afterWordCharacter =
            i > 0 && points.at(i - 1) < 128 && QChar(char16_t(points.at(i - 1))).isLetterOrNumber();
        if (point == '\\')
            out += QStringLiteral("\\e");
        else if (point == '-' && !afterWordCharacter)
            out += QStringLiteral("\\-");
        else if (point >= 128)
            out += QStringLiteral("\\[u%1]").arg(
                QString::number(point, 16).toUpper().rightJustified(4, QLatin1Char('0')));
        else
            out += QChar(char16_t(point));
    }
    return out;
}

// One line of roff text: a leading dot or quote would make it a request.
QString textLine(const QString& text) {
    const QString line = escaped(text);
    if (line.startsWith(QLatin1Char('.')) || line.startsWith(QLatin1Char('\'')))
        return QStringLiteral("\\&") + line + QLatin1Char('\n');
    return line + QLatin1Char('\n');
}

// A list item's term in bold, its <ARGUMENT>s in italics.
QString term(const QString& text) {
    static const QRegularExpression argument(QStringLiteral("(<[^>]+>)"));
    QString out = QStringLiteral("\\fB");
    qsizetype at = 0;
    for (auto match = argument.globalMatch(text); match.hasNext();) {
        const auto found = match.next();
        out += escaped(text.mid(at, found.capturedStart() - at));
        out += QStringLiteral("\\fI") + escaped(found.captured()) + QStringLiteral("\\fB");
        at = found.capturedEnd();
    }
    return out + escaped(text.mid(at)) + QStringLiteral("\\fR");
}

qsizetype indentOf(const QString& line) {
    qsizetype indent = 0;
    while (indent < line.size() && line.at(indent) == QLatin1Char(' '))
        ++indent;
    return indent;
}

bool isHeading(const QString& line, const QString& next) {
    return line.endsWith(QLatin1Char(':')) && !line.contains(QLatin1String("  ")) &&
           line.size() <= 40 && indentOf(next) == 2;
}

// The lines of a help text after its usage line, as paragraphs, headings
// and tagged lists.
QString body(const QStringList& lines) {
    QString out;
    QString paragraph;
    struct Item {
        QString term;
        QString text;
    };
    std::optional<Item> item;
    const auto endParagraph = [&] {
        if (!paragraph.isEmpty())
            out += QStringLiteral(".PP\n") + paragraph;
        paragraph.clear();
    };
    const auto endItem = [&] {
        if (item)
            out += QStringLiteral(".TP\n") + term(item->term) + QLatin1Char('\n') +
                   (item->text.isEmpty() ? QString() : textLine(item->text));
        item.reset();
    };
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString& line = lines.at(i);
        const qsizetype indent = indentOf(line);
        if (line.trimmed().isEmpty()) {
            endItem();
            endParagraph();
        } else if (indent == 0) {
            endItem();
            if (isHeading(line, lines.value(i + 1))) {
                endParagraph();
                out += QStringLiteral(".PP\n\\fB") + escaped(line) + QStringLiteral("\\fR\n");
            } else {
                paragraph += textLine(line);
            }
        } else if (indent > 2 && item) {
            item->text += (item->text.isEmpty() ? QString() : QStringLiteral(" ")) + line.trimmed();
        } else if (indent > 2) {
            paragraph += textLine(line.trimmed());
        } else {
            endItem();
            endParagraph();
            const QString rest = line.mid(indent);
            const qsizetype gap = rest.indexOf(QLatin1String("  "));
            item = gap < 0 ? Item{rest, {}} : Item{rest.left(gap), rest.mid(gap).trimmed()};
        }
    }
    endItem();
    endParagraph();
    return out;
}

struct Help {
    QString usage; // after "Usage: "
    QStringList lines;
};

Help splitHelp(const QString& text) {
    Help help;
    help.lines = text.split(QLatin1Char('\n'));
    while (!help.lines.isEmpty() && help.lines.constLast().trimmed().isEmpty())
        help.lines.removeLast();
    if (!help.lines.isEmpty() && help.lines.constFirst().startsWith(kUsagePrefix))
        help.usage = help.lines.takeFirst().mid(kUsagePrefix.size()).trimmed();
    return help;
}

// The NAME line's text: the help's first sentence after its usage line, in the
// lower case and without the full stop that whatis(1) lines have.
QString summaryOf(const Help& help) {
    for (const QString& line : help.lines) {
        QString text = line.trimmed();
        if (text.isEmpty())
            continue;
        if (text.endsWith(QLatin1Char('.')))
            text.chop(1);
        if (text.size() > 1 && text.at(0).isUpper() && text.at(1).isLower())
            text[0] = text.at(0).toLower();
        return text;
    }
    return {};
}

} // namespace

QString manPage(const ManPageSource& source) {
    const Help help = splitHelp(source.help);
    QString page;
    page += QStringLiteral(".TH %1 1 \"\" \"Loadscope %2\" \"User Commands\"\n")
                .arg(escaped(source.program.toUpper()), escaped(source.version));
    page += QStringLiteral(".SH NAME\n%1 \\- %2\n")
                .arg(escaped(source.program), escaped(summaryOf(help)));
    page += QStringLiteral(".SH SYNOPSIS\n");
    QString usage = help.usage;
    if (usage.startsWith(source.program))
        usage = usage.mid(source.program.size()).trimmed();
    page += QStringLiteral(".B %1\n").arg(escaped(source.program));
    if (!usage.isEmpty())
        page += textLine(usage);
    page += QStringLiteral(".SH DESCRIPTION\n") + body(help.lines);
    if (!source.commandHelps.isEmpty()) {
        page += QStringLiteral(".SH COMMANDS\n");
        for (const QString& text : source.commandHelps) {
            const Help command = splitHelp(text);
            page += QStringLiteral(".SS \"%1\"\n").arg(escaped(command.usage));
            page += body(command.lines);
        }
    }
    if (!source.seeAlso.isEmpty()) {
        page += QStringLiteral(".SH SEE ALSO\n");
        for (qsizetype i = 0; i < source.seeAlso.size(); ++i)
            page += QStringLiteral(".BR %1 (1)%2\n")
                        .arg(escaped(source.seeAlso.at(i)),
                             i + 1 < source.seeAlso.size() ? QStringLiteral(",") : QString());
    }
    return page;
}

} // namespace loadscope::cli
