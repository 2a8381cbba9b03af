#pragma once

#include "app/session/session.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>

// Session files: JSON with the extension .loadscope, shape in session_json.h.
//
// Reading is all or nothing: a truncated file, invalid JSON, a wrong type, a
// missing field, an unknown value or a version from the future gives nullopt
// and ONE message that starts with the file and names the field, e.g.
//   session.loadscope: field "targets[2].protocol" has an unknown value "ftp"
// Writing is atomic (QSaveFile): the old file stays whole until the new one
// is complete. Output is deterministic (sorted keys, shortest round-trip
// numbers), so save -> open -> save gives the same bytes.
namespace loadscope::app {

inline constexpr QLatin1StringView kSessionFileSuffix{"loadscope"};

// The exact bytes saveSessionFile() writes.
QByteArray serializeSession(const Session& session);
// `fileName` only prefixes the message.
std::optional<Session> parseSession(const QByteArray& bytes, const QString& fileName,
                                    QString* error);

std::optional<Session> loadSessionFile(const QString& path, QString* error);
bool saveSessionFile(const Session& session, const QString& path, QString* error);

// Example sessions shipped in the application's resources (resources/sessions/):
// "demo-proxy", "memcached", "tcp-rr".
QStringList exampleSessionNames();
// ":/sessions/<name>.loadscope"
QString exampleSessionPath(const QString& name);
std::optional<Session> loadExampleSession(const QString& name, QString* error);

// What the command line and the window's Open accept: an existing file's
// path, otherwise an example's name (with or without ".loadscope").
std::optional<Session> openSession(const QString& pathOrExampleName, QString* error);

} // namespace loadscope::app
