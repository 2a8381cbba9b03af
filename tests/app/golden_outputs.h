#pragma once

// Golden outputs: an output (JSON or CSV text) is flattened into its fields in
// the order they appear in the text, and compared with a fixture that lists
// the same fields in the same order, with the exact value of every field the
// test calls exact (counts, bytes, configuration) and only "~" for the others
// (timings, rates, host names, ports), which are checked for presence and a
// plausible range. See tst_golden_outputs.cpp for which field is which.

#include <QFile>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <cmath>
#include <functional>
#include <optional>

namespace loadscope::testing::golden {

// How a field is checked.
enum class Kind {
    Unknown, // not in the test's lists: always a failure, so new fields are added on purpose
    Exact,   // same text as recorded
    Number,  // a finite number >= 0
    Seconds, // a duration: 0 <= x < 60
    Signed,  // a finite number of either sign, or empty (confidence bounds, p-values)
    Present, // any value (ids, host names, URLs with ports, timestamps, histograms)
    // Written only when it is not 0, of something this run does not decide (a counter of
    // the machine's network namespace, which other processes share): checked for range when
    // there, never listed in the fixture.
    Optional,
};

struct Field {
    QString path;    // where it is: "latency_ms.p50", "results[3].complete", "row2.complete"
    QString name;    // what it is, for the lists: the path without indices or row
    QString value;   // JSON: the token's text (strings quoted); CSV: the cell
    QString context; // CSV: the row's "metric" cell, if the file has that column
};

struct Rule {
    const char* name; // a field name, or a prefix ending in '*'
    Kind kind;
};

inline Kind kindFrom(const QList<Rule>& rules, const QString& name) {
    for (const Rule& rule : rules) {
        const QLatin1String pattern(rule.name);
        if (pattern.endsWith(QLatin1Char('*')) ? name.startsWith(pattern.chopped(1))
                                               : name == pattern)
            return rule.kind;
    }
    return Kind::Unknown;
}

// JSON fields in the order of the text (QJsonObject would sort them). Objects
// recurse; arrays of objects recurse with [i]; arrays of scalars and empty
// containers are one field whose value is their compact text.
class OrderedJson {
public:
    static std::optional<QList<Field>> flatten(const QByteArray& text) {
        OrderedJson parser(text);
        parser.value({}, {});
        parser.skipSpace();
        if (!parser.m_ok || parser.m_pos != text.size())
            return std::nullopt;
        return parser.m_fields;
    }

private:
    explicit OrderedJson(const QByteArray& text)
        : m_text(text) {}

    void skipSpace() {
        while (m_pos < m_text.size() && QByteArrayView(" \t\r\n").contains(m_text[m_pos]))
            ++m_pos;
    }
    char peek() {
        skipSpace();
        return m_pos < m_text.size() ? m_text[m_pos] : '\0';
    }
    bool take(char c) {
        if (peek() != c)
            return false;
        ++m_pos;
        return true;
    }
    QString scalar() {
        skipSpace();
        const qsizetype start = m_pos;
        if (take('"')) {
            while (m_pos < m_text.size() && m_text[m_pos] != '"')
                m_pos += m_text[m_pos] == '\\' ? 2 : 1;
            m_ok = m_ok && take('"');
        } else {
            while (m_pos < m_text.size() && !QByteArrayView(",}] \t\r\n").contains(m_text[m_pos]))
                ++m_pos;
            m_ok = m_ok && m_pos > start;
        }
        return QString::fromUtf8(m_text.mid(start, m_pos - start));
    }
    static QString join(const QString& base, const QString& key) {
        return base.isEmpty() ? key : base + QLatin1Char('.') + key;
    }
    void value(const QString& path, const QString& name) {
        if (!m_ok)
            return;
        if (take('{')) {
            if (take('}'))
                return leaf(path, name, QStringLiteral("{}"));
            do {
                QString key = scalar();
                key = key.mid(1, key.size() - 2);
                m_ok = m_ok && take(':');
                value(join(path, key), join(name, key));
            } while (m_ok && take(','));
            m_ok = m_ok && take('}');
        } else if (take('[')) {
            if (peek() == '{' || peek() == '[') {
                int index = 0;
                do
                    value(path + QStringLiteral("[%1]").arg(index++), name);
                while (m_ok && take(','));
                m_ok = m_ok && take(']');
                return;
            }
            QStringList items;
            while (m_ok && peek() != ']') {
                items << scalar();
                if (!take(','))
                    break;
            }
            m_ok = m_ok && take(']');
            leaf(path, name, QLatin1Char('[') + items.join(QLatin1Char(',')) + QLatin1Char(']'));
        } else {
            leaf(path, name, scalar());
        }
    }
    void leaf(const QString& path, const QString& name, const QString& text) {
        m_fields.append({path, name, text, {}});
    }

    const QByteArray& m_text;
    qsizetype m_pos = 0;
    bool m_ok = true;
    QList<Field> m_fields;
};

// CSV (RFC 4180) fields: "(line ending)", then every cell of every data row
// as rowN.COLUMN in the order of the text.
inline QList<Field> flattenCsv(const QByteArray& bytes) {
    const QString text = QString::fromUtf8(bytes);
    QList<QStringList> rows{{}};
    QString cell;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"'))
                cell += text[++i];
            else if (c == QLatin1Char('"'))
                quoted = false;
            else
                cell += c;
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            rows.last() << std::exchange(cell, {});
        } else if (c == QLatin1Char('\n')) {
            rows.last() << std::exchange(cell, {});
            rows.append(QStringList());
        } else if (c != QLatin1Char('\r')) {
            cell += c;
        }
    }
    if (!cell.isEmpty() || !rows.last().isEmpty())
        rows.last() << cell;
    else
        rows.removeLast();

    QList<Field> fields;
    const QString ending = bytes.contains("\r\n") ? QStringLiteral("CRLF") : QStringLiteral("LF");
    fields.append(
        Field{QStringLiteral("(line ending)"), QStringLiteral("(line ending)"), ending, QString()});
    if (rows.isEmpty())
        return fields;
    const QStringList header = rows.takeFirst();
    const qsizetype metric = header.indexOf(QStringLiteral("metric"));
    for (qsizetype r = 0; r < rows.size(); ++r) {
        const QStringList& row = rows[r];
        const QString context = metric >= 0 && metric < row.size() ? row[metric] : QString();
        for (qsizetype c = 0; c < row.size(); ++c) {
            const QString name = c < header.size() ? header[c] : QStringLiteral("(no header)");
            fields.append({QStringLiteral("row%1.%2").arg(r + 1).arg(name), name, row[c], context});
        }
    }
    return fields;
}

// A value as one fixture line: an empty one spelled out, so that no line ends in a space.
inline QString escaped(QString value) {
    if (value.isEmpty())
        return QStringLiteral("(empty)");
    return value.replace(QLatin1Char('\\'), QLatin1String("\\\\"))
        .replace(QLatin1Char('\n'), QLatin1String("\\n"))
        .replace(QLatin1Char('\r'), QLatin1String("\\r"));
}

inline bool inRange(Kind kind, const QString& value) {
    bool ok = false;
    const double x = value.toDouble(&ok);
    switch (kind) {
    case Kind::Number:
        return ok && std::isfinite(x) && x >= 0;
    case Kind::Seconds:
        return ok && std::isfinite(x) && x >= 0 && x < 60;
    case Kind::Signed:
        return value.isEmpty() || (ok && std::isfinite(x));
    default:
        return true;
    }
}

inline bool recording() {
    return qEnvironmentVariableIntValue("LOADSCOPE_GOLDEN_RECORD") == 1;
}

// One fixture line: the path and, for an exact field, its value.
struct Expected {
    QString path;
    std::optional<QString> value;
};

// Checks `fields` against the fixture at `fixturePath` (or rewrites it when
// recording) and returns every problem found, one line each.
inline QStringList checkGolden(const QString& fixturePath, const QString& description,
                               const QList<Field>& fields,
                               const std::function<Kind(const Field&)>& kindOf,
                               bool keysOnly = false) {
    QStringList problems;
    QList<Expected> actual;
    QSet<QString> unknown;
    for (const Field& field : fields) {
        Kind kind = kindOf(field);
        if (kind == Kind::Unknown) {
            if (!unknown.contains(field.name))
                problems << QStringLiteral("unknown field '%1' (at %2): add it to a list in "
                                           "tst_golden_outputs.cpp and re-record")
                                .arg(field.name, field.path);
            unknown.insert(field.name);
            kind = Kind::Present; // said once; not "missing" as well
        }
        if (!inRange(kind, field.value))
            problems
                << QStringLiteral("%1: '%2' is not a plausible value").arg(field.path, field.value);
        if (kind == Kind::Optional)
            continue;
        const bool exact = kind == Kind::Exact && !keysOnly;
        actual.append({field.path, exact ? std::optional(escaped(field.value)) : std::nullopt});
    }

    QFile file(fixturePath);
    if (recording()) {
        if (!problems.isEmpty())
            return problems;
        QByteArray text = "# Golden output: " + description.toUtf8() +
                          "\n# Recorded by tst_golden_outputs (LOADSCOPE_GOLDEN_RECORD=1). One "
                          "field a line, in the order of the output text:\n# 'FIELD = VALUE' is "
                          "compared exactly, 'FIELD ~' is checked for presence and range.\n";
        for (const Expected& line : actual)
            text += (line.path +
                     (line.value ? QStringLiteral(" = ") + *line.value : QStringLiteral(" ~")) +
                     QLatin1Char('\n'))
                        .toUtf8();
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(text) < 0)
            problems << QStringLiteral("cannot write %1").arg(fixturePath);
        return problems;
    }

    if (!file.open(QIODevice::ReadOnly))
        return problems << QStringLiteral("no fixture %1: record with LOADSCOPE_GOLDEN_RECORD=1")
                               .arg(fixturePath);
    QList<Expected> expected;
    for (const QByteArray& raw : file.readAll().split('\n')) {
        const QString line = QString::fromUtf8(raw);
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        const qsizetype equals = line.indexOf(QLatin1String(" = "));
        if (equals >= 0)
            expected.append({line.left(equals), line.mid(equals + 3)});
        else
            expected.append({line.endsWith(QLatin1String(" ~")) ? line.chopped(2) : line, {}});
    }

    QStringList expectedPaths;
    QStringList actualPaths;
    for (const Expected& line : expected)
        expectedPaths << line.path;
    for (const Expected& line : actual)
        actualPaths << line.path;
    const QSet<QString> expectedSet(expectedPaths.begin(), expectedPaths.end());
    const QSet<QString> actualSet(actualPaths.begin(), actualPaths.end());
    for (const QString& path : expectedPaths)
        if (!actualSet.contains(path))
            problems << QStringLiteral("%1: missing (expected in the output)").arg(path);
    for (const QString& path : actualPaths)
        if (!expectedSet.contains(path))
            problems << QStringLiteral("%1: new field, not in the fixture").arg(path);
    QStringList expectedOrder;
    QStringList actualOrder;
    for (const QString& path : expectedPaths)
        if (actualSet.contains(path))
            expectedOrder << path;
    for (const QString& path : actualPaths)
        if (expectedSet.contains(path))
            actualOrder << path;
    for (qsizetype i = 0; i < expectedOrder.size() && i < actualOrder.size(); ++i)
        if (expectedOrder[i] != actualOrder[i]) {
            problems << QStringLiteral("order: expected %1 at position %2, actual %3")
                            .arg(expectedOrder[i])
                            .arg(i + 1)
                            .arg(actualOrder[i]);
            break;
        }

    for (const Expected& want : expected) {
        const qsizetype at = actualPaths.indexOf(want.path);
        if (at < 0)
            continue;
        const Expected& got = actual[at];
        if (want.value.has_value() != got.value.has_value())
            problems << QStringLiteral("%1: the fixture %2 a value but the test's lists say it "
                                       "is %3: re-record")
                            .arg(want.path,
                                 want.value ? QStringLiteral("has") : QStringLiteral("lacks"),
                                 got.value ? QStringLiteral("exact") : QStringLiteral("timing"));
        else if (want.value && *want.value != *got.value)
            problems << QStringLiteral("%1: expected %2, actual %3")
                            .arg(want.path, *want.value, *got.value);
    }
    return problems;
}

} // namespace loadscope::testing::golden
