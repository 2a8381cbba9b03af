#pragma once

#include "app/common/result.h"
#include "app/session/session.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

// Session files: JSON with the extension .loadscope, shape in session_json.h.
//
// Reading is all or nothing, but for a result that breaks a rule: that one is
// set aside and named (see session_json.h). A truncated file, invalid JSON, a wrong type, a
// missing field, an unknown value or a version from the future gives ONE
// error whose file is the file and whose message names the field; its
// toString() reads
//   session.loadscope: field "targets[2].protocol" has an unknown value "ftp"
// Only a regular file of at most kMaxSessionFileBytes is read (see
// readRegularFile()). Writing is atomic (writeFileAtomically()): the old file
// stays whole until the new one is complete. Output is deterministic (sorted keys, shortest
// round-trip numbers), so save -> open -> save gives the same bytes.
namespace loadscope::app {

inline constexpr QLatin1StringView kSessionFileSuffix{"loadscope"};

// The exact bytes saveSessionFile() writes.
QByteArray serializeSession(const Session& session);
// `fileName` is only the error's file.
Result<Session> parseSession(const QByteArray& bytes, const QString& fileName);

Result<Session> loadSessionFile(const QString& path);
Result<void> saveSessionFile(const Session& session, const QString& path);

// Example sessions shipped in the application's resources (resources/sessions/),
// by name: "demo-proxy", "demo-https", "memcached", "tcp-rr" and the lab's
// "lab-tcp-rr", "lab-nginx-bridge", "lab-nginx-localhost", "lab-apache-modes",
// "lab-memcached", "lab-k8s-paths".
QStringList exampleSessionNames();
// ":/sessions/<name>.loadscope"
QString exampleSessionPath(const QString& name);
Result<Session> loadExampleSession(const QString& name);

// What the command line and the window's Open accept: an existing file's
// path, otherwise an example's name (with or without ".loadscope").
Result<Session> openSession(const QString& pathOrExampleName);

} // namespace loadscope::app
