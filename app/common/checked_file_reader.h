#pragma once

#include "app/common/result.h"

#include <QByteArray>
#include <QString>
#include <string>

// The one way app/ and ui/ read a user's file. A path can name anything:
// /dev/zero reads forever, a FIFO blocks open() until a writer comes, /proc
// files and devices report size 0. So every read opens without blocking,
// refuses what fstat() does not call a regular file, and reads at most the
// cap (plus one byte to tell "exactly the cap" from "more"), whatever size
// the file claims.
namespace loadscope::app {

// Caps, documented in README.md ("Files Loadscope reads and writes").
inline constexpr qint64 kMaxSessionFileBytes = qint64(256) << 20; // 256 MiB
inline constexpr qint64 kMaxBodyFileBytes = qint64(1) << 30;      // 1 GiB
inline constexpr qint64 kMaxReportFileBytes = qint64(64) << 20;   // 64 MiB
// A PEM certificate, key or CA bundle (Debian's whole store is 0.2 MiB).
inline constexpr qint64 kMaxPemFileBytes = qint64(4) << 20; // 4 MiB

// "256 MiB", "1 GiB", "512 KiB", "100 bytes".
QString byteSizeText(qint64 bytes);

// The bytes of the regular file at `path`. Errors carry the path (native
// separators) as their file and one line as message:
//   ErrorCode::Io     "cannot be read: no such file or directory",
//                     "is a FIFO (named pipe), not a regular file", ...
//   ErrorCode::Format "is larger than 256 MiB"
Result<QByteArray> readRegularFile(const QString& path, qint64 maxBytes);

// A PEM file (a certificate, key or CA bundle) for `what` ("CA file",
// "client key"): its text, or "cannot read CA file /x: is a FIFO (named
// pipe), not a regular file".
Result<std::string> readPemFile(const QString& what, const QString& path);

// Standard input up to `maxBytes` (refused above it); the error's file is "stdin".
Result<QByteArray> readStandardInput(qint64 maxBytes);

// strerror() with a lower-case first letter, as one line of ours reads:
// "no space left on device".
QString errnoText(int errnum);

} // namespace loadscope::app
