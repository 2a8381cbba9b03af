#include "app/session/session_file.h"

#include "app/session/session_json.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>

// The resources live in the static library: referencing their initialiser
// keeps the linker from dropping them from executables that link it.
static void registerResources() {
    Q_INIT_RESOURCE(resources);
}

static void initialiseSessionResources() {
    static const bool registered = [] {
        registerResources();
        return true;
    }();
    Q_UNUSED(registered)
}

namespace loadscope::app {

namespace {

// Session files are small (a result is a few KiB); anything far larger is not one.
constexpr qint64 kMaxFileSize = qint64(512) << 20;

QString prefixed(const QString& fileName, const QString& message) {
    return fileName + QStringLiteral(": ") + message;
}

void setError(QString* error, const QString& message) {
    if (error)
        *error = message;
}

QString jsonProblem(const QJsonParseError& parseError, const QByteArray& bytes) {
    // Qt reports the offset just past where it gave up; at the end of the data
    // that almost always means the file was cut short.
    const bool atEnd = parseError.offset >= bytes.trimmed().size() - 1;
    if (atEnd && parseError.error != QJsonParseError::GarbageAtEnd)
        return QStringLiteral("is truncated: the JSON ends early at offset %1 (%2)")
            .arg(parseError.offset)
            .arg(parseError.errorString());
    return QStringLiteral("is not valid JSON: %1 at offset %2")
        .arg(parseError.errorString())
        .arg(parseError.offset);
}

} // namespace

QByteArray serializeSession(const Session& session) {
    return QJsonDocument(sessionToJson(session)).toJson(QJsonDocument::Indented);
}

std::optional<Session> parseSession(const QByteArray& bytes, const QString& fileName,
                                    QString* error) {
    if (bytes.trimmed().isEmpty()) {
        setError(error, prefixed(fileName, QStringLiteral("is empty")));
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        setError(error, prefixed(fileName, jsonProblem(parseError, bytes)));
        return std::nullopt;
    }
    if (!document.isObject()) {
        setError(error, prefixed(fileName, QStringLiteral("is not a Loadscope session (the JSON "
                                                          "is not an object)")));
        return std::nullopt;
    }
    QString problem;
    std::optional<Session> session = sessionFromJson(document.object(), &problem);
    if (!session)
        setError(error, prefixed(fileName, problem));
    return session;
}

std::optional<Session> loadSessionFile(const QString& path, QString* error) {
    const QString shown = QDir::toNativeSeparators(path);
    QFile file(path);
    if (!QFileInfo::exists(path)) {
        setError(error, prefixed(shown, QStringLiteral("no such file")));
        return std::nullopt;
    }
    if (QFileInfo(path).isDir()) {
        setError(error, prefixed(shown, QStringLiteral("is a directory, not a session file")));
        return std::nullopt;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        setError(error, prefixed(shown, QStringLiteral("cannot be read: ") + file.errorString()));
        return std::nullopt;
    }
    if (file.size() > kMaxFileSize) {
        setError(error, prefixed(shown, QStringLiteral("is too large to be a session file")));
        return std::nullopt;
    }
    const QByteArray bytes = file.readAll();
    if (file.error() != QFileDevice::NoError) {
        setError(error, prefixed(shown, QStringLiteral("cannot be read: ") + file.errorString()));
        return std::nullopt;
    }
    return parseSession(bytes, shown, error);
}

bool saveSessionFile(const Session& session, const QString& path, QString* error) {
    const QString shown = QDir::toNativeSeparators(path);
    if (QFileInfo(path).isDir()) {
        setError(error, prefixed(shown, QStringLiteral("is a directory")));
        return false;
    }
    const QByteArray bytes = serializeSession(session);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        setError(error,
                 prefixed(shown, QStringLiteral("cannot be written: ") + file.errorString()));
        return false;
    }
    if (file.write(bytes) != bytes.size() || !file.commit()) {
        setError(error,
                 prefixed(shown, QStringLiteral("cannot be written: ") + file.errorString()));
        return false; // QSaveFile discards the temporary file; the old one is untouched
    }
    return true;
}

QStringList exampleSessionNames() {
    initialiseSessionResources();
    QStringList names;
    const QStringList files =
        QDir(QStringLiteral(":/sessions"))
            .entryList({QStringLiteral("*.loadscope")}, QDir::Files, QDir::Name);
    for (const QString& file : files)
        names << QFileInfo(file).completeBaseName();
    return names;
}

QString exampleSessionPath(const QString& name) {
    return QStringLiteral(":/sessions/") + name + QLatin1Char('.') + kSessionFileSuffix;
}

std::optional<Session> loadExampleSession(const QString& name, QString* error) {
    initialiseSessionResources();
    QString baseName = name;
    const QString suffix = QLatin1Char('.') + kSessionFileSuffix;
    if (baseName.endsWith(suffix))
        baseName.chop(suffix.size());
    if (!exampleSessionNames().contains(baseName)) {
        setError(error, QStringLiteral("%1: no such file, and no example session of that name "
                                       "(examples: %2)")
                            .arg(name, exampleSessionNames().join(QStringLiteral(", "))));
        return std::nullopt;
    }
    QFile file(exampleSessionPath(baseName));
    if (!file.open(QIODevice::ReadOnly)) {
        setError(error, prefixed(name, QStringLiteral("cannot be read: ") + file.errorString()));
        return std::nullopt;
    }
    return parseSession(file.readAll(), baseName + suffix, error);
}

std::optional<Session> openSession(const QString& pathOrExampleName, QString* error) {
    if (QFileInfo::exists(pathOrExampleName))
        return loadSessionFile(pathOrExampleName, error);
    // A path-like argument that does not exist is a missing file, not an example.
    if (pathOrExampleName.contains(QLatin1Char('/')) || pathOrExampleName.isEmpty())
        return loadSessionFile(pathOrExampleName, error);
    return loadExampleSession(pathOrExampleName, error);
}

} // namespace loadscope::app
