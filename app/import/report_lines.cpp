#include "app/import/report_lines.h"

#include <QCryptographicHash>
#include <QStringDecoder>

namespace loadscope::app {

namespace {

QString decode(const QByteArray& content) {
    if (content.startsWith("\xFF\xFE") || content.startsWith("\xFE\xFF")) {
        QStringDecoder decoder(content.startsWith("\xFF\xFE") ? QStringDecoder::Utf16LE
                                                              : QStringDecoder::Utf16BE);
        return decoder(content.mid(2));
    }
    QByteArrayView bytes(content);
    if (bytes.startsWith("\xEF\xBB\xBF"))
        bytes = bytes.sliced(3);
    return QString::fromUtf8(bytes);
}

} // namespace

ReportLines::ReportLines(const QByteArray& content) {
    QString text = decode(content);
    // Web pages and word processors turn the tools' column padding into these.
    for (char16_t space :
         {u'\t', u'\f', u'\v', u'\u00A0', u'\u2007', u'\u2009', u'\u202F', u'\u3000'})
        text.replace(QChar(space), QLatin1Char(' '));
    // CRLF, LF and a lone CR (old Mac editors) all end one line.
    if (text.contains(QLatin1Char('\r'))) {
        text.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
        text.replace(QLatin1Char('\r'), QLatin1Char('\n'));
    }
    qsizetype start = 0;
    int number = 1;
    while (start < text.size()) {
        qsizetype end = text.indexOf(QLatin1Char('\n'), start);
        const bool terminated = end >= 0;
        if (!terminated)
            end = text.size();
        qsizetype last = end;
        while (last > start && text.at(last - 1).isSpace())
            --last;
        m_lines.append(ReportLine{text.sliced(start, last - start), number++, terminated});
        start = end + 1;
    }
}

int ReportLines::skipBlank(int from) const {
    int index = from;
    while (index < size() && isBlank(index))
        ++index;
    return index;
}

QString ReportLines::fingerprint(const QString& tool, int first, int last) const {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(tool.toUtf8());
    for (int index = first; index <= last && index < size(); ++index) {
        const QString simplified = m_lines.at(index).text.simplified();
        if (simplified.isEmpty())
            continue;
        hash.addData(QByteArrayView("\n"));
        hash.addData(simplified.toUtf8());
    }
    return QString::fromLatin1(hash.result().toHex());
}

std::optional<ReportLines::Command> ReportLines::command(QStringView line,
                                                         const QStringList& programs) {
    // Most lines of a file name no program at all: skip them before splitting.
    bool named = false;
    for (const QString& program : programs)
        named = named || line.contains(program);
    if (!named)
        return std::nullopt;
    struct Word {
        QString text;
        qsizetype start;
    };
    QList<Word> words;
    qsizetype index = 0;
    while (index < line.size()) {
        while (index < line.size() && line.at(index) == QLatin1Char(' '))
            ++index;
        if (index >= line.size())
            break;
        Word word{QString(), index};
        QChar quote;
        for (; index < line.size(); ++index) {
            const QChar c = line.at(index);
            if (!quote.isNull()) {
                if (c == quote)
                    quote = QChar();
                else
                    word.text.append(c);
            } else if (c == QLatin1Char('\'') || c == QLatin1Char('"')) {
                quote = c;
            } else if (c == QLatin1Char('\\') && index + 1 < line.size()) {
                word.text.append(line.at(++index));
            } else if (c == QLatin1Char(' ')) {
                break;
            } else {
                word.text.append(c);
            }
        }
        words.append(word);
    }

    static const QString promptEnds = QStringLiteral("$#>%\u276F\u00BB");
    static const QStringList wrappers = {QStringLiteral("sudo"), QStringLiteral("time"),
                                         QStringLiteral("nice"), QStringLiteral("command")};
    for (qsizetype i = 0; i < words.size(); ++i) {
        const QString& name = words.at(i).text;
        const QString base = name.mid(name.lastIndexOf(QLatin1Char('/')) + 1);
        if (!programs.contains(base))
            continue;
        const bool atStart = i == 0;
        const QString previous = atStart ? QString() : words.at(i - 1).text;
        const bool afterPrompt =
            !atStart && !previous.isEmpty() &&
            (promptEnds.contains(previous.back()) || wrappers.contains(previous));
        if (!atStart && !afterPrompt)
            return std::nullopt;
        Command result;
        result.program = base;
        result.text = line.sliced(words.at(i).start).toString();
        for (qsizetype j = i + 1; j < words.size(); ++j)
            result.words.append(words.at(j).text);
        return result;
    }
    return std::nullopt;
}

std::optional<ReportLines::Command> ReportLines::commandWithUrl(QStringView line,
                                                                const QStringList& programs) {
    auto found = command(line, programs);
    if (!found)
        return std::nullopt;
    for (const QString& word : std::as_const(found->words)) {
        if (word.startsWith(QLatin1StringView("http://")) ||
            word.startsWith(QLatin1StringView("https://")))
            return found;
    }
    return std::nullopt;
}

QStringList ReportLines::fields(QStringView line) {
    QStringList result;
    const auto parts = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    result.reserve(parts.size());
    for (QStringView part : parts)
        result.append(part.toString());
    return result;
}

} // namespace loadscope::app
