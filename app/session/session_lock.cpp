#include "app/session/session_lock.h"

#include <QDir>
#include <QFileInfo>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace loadscope::app {

QString SessionLock::lockFilePath(const QString& sessionPath) {
    const QFileInfo info(sessionPath);
    return info.absoluteDir().filePath(QLatin1Char('.') + info.fileName() +
                                       QStringLiteral(".lock"));
}

Result<std::shared_ptr<const SessionLock>> SessionLock::acquire(const QString& sessionPath) {
    const QString lockPath = lockFilePath(sessionPath);
    const QByteArray path = QFile::encodeName(lockPath);
    const int fd = ::open(path.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return makeError(ErrorCode::Io,
                         QStringLiteral("cannot create the lock file %1: %2")
                             .arg(lockPath, QString::fromLocal8Bit(std::strerror(errno))),
                         sessionPath);
    // Each acquire opens its own file description, so a second sweep in the
    // same process is refused as one in another process is.
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        ::close(fd);
        if (error == EWOULDBLOCK)
            return makeError(ErrorCode::InvalidInput,
                             QStringLiteral("another sweep is running on this session"),
                             sessionPath);
        return makeError(ErrorCode::Io,
                         QStringLiteral("cannot lock %1: %2")
                             .arg(lockPath, QString::fromLocal8Bit(std::strerror(error))),
                         sessionPath);
    }
    return std::shared_ptr<const SessionLock>(new SessionLock(sessionPath, fd));
}

SessionLock::SessionLock(QString sessionPath, int fd)
    : m_sessionPath(std::move(sessionPath))
    , m_fd(fd) {}

SessionLock::~SessionLock() {
    if (m_fd >= 0)
        ::close(m_fd);
}

} // namespace loadscope::app
