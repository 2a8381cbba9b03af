#include "app/session/json_location.h"

#include "app/session/json_reader.h"

#include <QStringList>
#include <algorithm>
#include <vector>

namespace loadscope::app {

namespace {

constexpr qsizetype kMaxPathLength = 200;

// One open object or array on the way to the offset.
struct Level {
    bool isObject = false;
    QString key;   // the object's current key
    int index = 0; // the array's current element
    bool expectKey = false;
};

QString pathOf(const std::vector<Level>& levels) {
    QString path;
    for (const Level& level : levels) {
        if (level.isObject) {
            if (level.key.isEmpty())
                continue;
            if (!path.isEmpty())
                path += QLatin1Char('.');
            path += level.key;
        } else {
            path += QStringLiteral("[%1]").arg(level.index);
        }
    }
    return path;
}

} // namespace

QString jsonLocation(const QByteArray& text, qsizetype offset) {
    offset = std::clamp<qsizetype>(offset, 0, text.size());
    int line = 1;
    qsizetype lineStart = 0;
    std::vector<Level> levels;
    bool inString = false;
    bool escaped = false;
    qsizetype stringStart = 0;
    for (qsizetype i = 0; i < offset; ++i) {
        const char c = text[i];
        if (c == '\n') {
            ++line;
            lineStart = i + 1;
        }
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"') {
                inString = false;
                if (!levels.empty() && levels.back().isObject && levels.back().expectKey) {
                    // Keys are read as written, escapes and all: enough to find the field.
                    levels.back().key = QString::fromUtf8(text.mid(stringStart, i - stringStart));
                    levels.back().expectKey = false;
                }
            }
            continue;
        }
        switch (c) {
        case '"':
            inString = true;
            stringStart = i + 1;
            break;
        case '{':
            levels.push_back({true, {}, 0, true});
            break;
        case '[':
            levels.push_back({false, {}, 0, false});
            break;
        case '}':
        case ']':
            if (!levels.empty())
                levels.pop_back();
            break;
        case ',':
            if (!levels.empty()) {
                if (levels.back().isObject) {
                    levels.back().expectKey = true;
                    levels.back().key.clear(); // between two fields: in the object itself
                } else
                    ++levels.back().index;
            }
            break;
        default:
            break;
        }
    }
    const QString where =
        QStringLiteral("line %1, column %2")
            .arg(line)
            .arg(QString::fromUtf8(text.mid(lineStart, offset - lineStart)).size() + 1);
    // Keys come from a broken file: escaped, so that the refusal stays one line.
    const QString path = printable(pathOf(levels).left(kMaxPathLength));
    return path.isEmpty() ? where : where + QStringLiteral(", in ") + path;
}

} // namespace loadscope::app
