#pragma once

#include "app/common/result.h"

#include <QByteArray>
#include <QString>
#include <cstdio>

// The one way app/ and ui/ write a user's file. A regular file (or a new
// one) is written as a temporary file beside it, fsync()ed and renamed over
// it, every step checked: on a full disk the old file stays whole and the
// error says "no space left on device". A path that names something else
// that already exists (/dev/null, /dev/full, a FIFO, a terminal) is written
// in place, since renaming onto a device would replace it.
namespace loadscope::app {

// Errors: ErrorCode::Io, the path (native separators) as file, and
// "cannot be written: <errno text>" or "is a directory" as message.
Result<void> writeFileAtomically(const QString& path, const QByteArray& bytes);

// Writes all of `bytes` to `fd`, retrying short writes and EINTR; the errno
// of the first failed write() otherwise.
Result<void> writeAllToDescriptor(int fd, const QByteArray& bytes);

// Flushes `stream` and reports whether everything written to it so far
// reached its file: a failed earlier fwrite() or the flush itself gives
// "cannot write to standard output: no space left on device" (with `name`).
Result<void> flushStream(FILE* stream, const QString& name);

} // namespace loadscope::app
