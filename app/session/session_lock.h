#pragma once

#include "app/common/result.h"

#include <QString>
#include <memory>

namespace loadscope::app {

// An advisory lock that one sweep holds on a session file for as long as it
// runs, so that a second sweep of the same file (another loadscope-cli, or
// the window) is refused instead of saving over the first one's points.
//
// The lock is flock() on ".NAME.loadscope.lock" (the file's name with
// ".lock") beside the session, not on the session
// itself: a save replaces the session file by rename, and a lock on the old
// file would not be seen by whoever opens the new one. The lock file is left
// in place (removing it would let a third sweep lock a fresh file while the
// second still holds the removed one); the kernel drops the lock when the
// holder exits, however it exits.
class SessionLock {
public:
    // The held lock, or InvalidInput "FILE is being swept by another sweep"
    // when one holds it already (also within this process), Io when the lock
    // file cannot be created.
    static Result<std::shared_ptr<const SessionLock>> acquire(const QString& sessionPath);
    // ".NAME.loadscope.lock" in the session's directory.
    static QString lockFilePath(const QString& sessionPath);

    ~SessionLock();
    SessionLock(const SessionLock&) = delete;
    SessionLock& operator=(const SessionLock&) = delete;

    QString sessionPath() const { return m_sessionPath; }

private:
    SessionLock(QString sessionPath, int fd);

    QString m_sessionPath;
    int m_fd = -1;
};

} // namespace loadscope::app
