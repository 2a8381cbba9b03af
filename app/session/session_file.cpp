#include "app/session/session_file.h"

#include "app/common/atomic_file_writer.h"
#include "app/common/checked_file_reader.h"
#include "app/common/json_bytes.h"
#include "app/session/json_location.h"
#include "app/session/session_file_split.h"
#include "app/session/session_json.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>

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

Error fileError(ErrorCode code, const QString& fileName, const QString& message) {
    return makeError(code, message, fileName);
}

QString jsonProblem(const QJsonParseError& parseError, const QByteArray& bytes) {
    // Qt reports the offset just past where it gave up; at the end of the data
    // that almost always means the file was cut short.
    const bool atEnd = parseError.offset >= bytes.trimmed().size() - 1;
    const QString where = jsonLocation(bytes, parseError.offset);
    if (atEnd && parseError.error != QJsonParseError::GarbageAtEnd)
        return QStringLiteral("is truncated: the JSON ends early at %1 (%2)")
            .arg(where, parseError.errorString());
    return QStringLiteral("is not valid JSON: %1 at %2 (byte %3)")
        .arg(parseError.errorString(), where)
        .arg(parseError.offset);
}

} // namespace

QByteArray serializeSession(const Session& session) {
    return jsonBytes(sessionToJson(session), QJsonDocument::Indented);
}

Result<Session> parseSession(const QByteArray& bytes, const QString& fileName) {
    // A view: trimming the array itself copied the whole file.
    if (QByteArrayView(bytes).trimmed().isEmpty())
        return fileError(ErrorCode::Format, fileName, QStringLiteral("is empty"));
    // Each result parsed on its own thread; anything the cut is unsure of,
    // and any JSON error, goes the whole-file way below, which names it.
    if (const std::optional<SessionFileSplit> split = splitSessionFile(bytes)) {
        const QJsonDocument rest = QJsonDocument::fromJson(split->rest);
        if (rest.isObject()) {
            // A refusal is left to the whole-file way: it may stop before
            // parsing every result, and a syntax error in one must win.
            if (std::optional<Result<Session>> session =
                    sessionFromSplitJson(rest.object(), split->results);
                session && *session)
                return std::move(*session);
        }
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fileError(ErrorCode::Format, fileName, jsonProblem(parseError, bytes));
    if (!document.isObject())
        return fileError(ErrorCode::Format, fileName,
                         QStringLiteral("is not a Loadscope session (the JSON is not an object)"));
    Result<Session> session = sessionFromJson(document.object());
    if (!session)
        return fileError(ErrorCode::Format, fileName, session.error().message);
    return session;
}

Result<Session> loadSessionFile(const QString& path) {
    const QString shown = QDir::toNativeSeparators(path);
    if (!QFileInfo::exists(path))
        return fileError(ErrorCode::Io, shown, QStringLiteral("no such file"));
    Result<QByteArray> bytes = readRegularFile(path, kMaxSessionFileBytes);
    if (!bytes)
        return bytes.error();
    return parseSession(*bytes, shown);
}

Result<void> saveSessionFile(const Session& session, const QString& path) {
    // On failure the old file is untouched (see writeFileAtomically()).
    return writeFileAtomically(path, serializeSession(session));
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

Result<Session> loadExampleSession(const QString& name) {
    initialiseSessionResources();
    QString baseName = name;
    const QString suffix = QLatin1Char('.') + kSessionFileSuffix;
    if (baseName.endsWith(suffix))
        baseName.chop(suffix.size());
    if (!exampleSessionNames().contains(baseName))
        return fileError(ErrorCode::Io, name,
                         QStringLiteral("no such file, and no example session of that name "
                                        "(examples: %1)")
                             .arg(exampleSessionNames().join(QStringLiteral(", "))));
    QFile file(exampleSessionPath(baseName));
    if (!file.open(QIODevice::ReadOnly))
        return fileError(ErrorCode::Io, name,
                         QStringLiteral("cannot be read: ") + file.errorString());
    return parseSession(file.readAll(), baseName + suffix);
}

Result<Session> openSession(const QString& pathOrExampleName) {
    if (QFileInfo::exists(pathOrExampleName))
        return loadSessionFile(pathOrExampleName);
    // A path-like argument that does not exist is a missing file, not an example.
    if (pathOrExampleName.contains(QLatin1Char('/')) || pathOrExampleName.isEmpty())
        return loadSessionFile(pathOrExampleName);
    return loadExampleSession(pathOrExampleName);
}

} // namespace loadscope::app
