#pragma once

// Files and edits of a saved session's JSON, for the suites that break one
// field of a good file and check what opening it does.
#include <QByteArray>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStringList>
#include <QTemporaryDir>

namespace loadscope::test {

inline QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    return path;
}

inline QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Sets (or, with an undefined value, removes) the value at "a.b[2].c".
inline QJsonValue setPath(const QJsonValue& node, QStringList path, const QJsonValue& value) {
    if (path.isEmpty())
        return value;
    const QString head = path.takeFirst();
    static const QRegularExpression indexPattern(QStringLiteral("^\\[(\\d+)\\]$"));
    const auto match = indexPattern.match(head);
    if (match.hasMatch()) {
        QJsonArray array = node.toArray();
        const int index = match.captured(1).toInt();
        if (path.isEmpty() && value.isUndefined())
            array.removeAt(index);
        else
            array[index] = setPath(array.at(index), path, value);
        return array;
    }
    QJsonObject object = node.toObject();
    if (path.isEmpty() && value.isUndefined())
        object.remove(head);
    else
        object[head] = setPath(object.value(head), path, value);
    return object;
}

inline QByteArray mutated(const QByteArray& bytes, const QString& path, const QJsonValue& value) {
    QString split = path;
    split.replace(QLatin1Char('['), QStringLiteral(".["));
    const QJsonValue root = QJsonDocument::fromJson(bytes).object();
    return QJsonDocument(setPath(root, split.split(QLatin1Char('.')), value).toObject()).toJson();
}

inline const QJsonValue kRemove(QJsonValue::Undefined);

} // namespace loadscope::test
