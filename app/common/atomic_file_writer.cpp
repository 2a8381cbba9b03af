#include "app/common/atomic_file_writer.h"

#include "app/common/checked_file_reader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loadscope::app {

namespace {

Error cannotWrite(const QString& shown, int errnum) {
    return makeError(ErrorCode::Io, QStringLiteral("cannot be written: ") + errnoText(errnum),
                     shown);
}

// close() reports what a delayed write (NFS, some FUSE file systems) found.
Result<void> closeChecked(int fd, const QString& shown) {
    if (::close(fd) != 0 && errno != EINTR)
        return cannotWrite(shown, errno);
    return {};
}

// Something that exists and is not a regular file: written in place.
Result<void> writeInPlace(const QString& path, const QString& shown, const QByteArray& bytes) {
    // O_NONBLOCK: a FIFO without a reader fails (ENXIO) rather than waits.
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return cannotWrite(shown, errno);
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (auto written = writeAllToDescriptor(fd, bytes); !written) {
        ::close(fd);
        return makeError(ErrorCode::Io, written.error().message, shown);
    }
    return closeChecked(fd, shown);
}

} // namespace

Result<void> writeAllToDescriptor(int fd, const QByteArray& bytes) {
    const char* data = bytes.constData();
    qint64 left = bytes.size();
    while (left > 0) {
        const ssize_t wrote = ::write(fd, data, size_t(std::min<qint64>(left, qint64(1) << 30)));
        if (wrote < 0) {
            if (errno == EINTR)
                continue;
            return makeError(ErrorCode::Io,
                             QStringLiteral("cannot be written: ") + errnoText(errno));
        }
        if (wrote == 0) // not a documented outcome for a non-empty write; never spin on it
            return makeError(ErrorCode::Io, QStringLiteral("cannot be written: ") + errnoText(EIO));
        data += wrote;
        left -= wrote;
    }
    return {};
}

Result<void> writeFileAtomically(const QString& path, const QByteArray& bytes) {
    const QString shown = QDir::toNativeSeparators(path);
    if (path.isEmpty())
        return makeError(ErrorCode::Io, QStringLiteral("no file name given"));
    // A symbolic link stays a link: the file it points to is replaced.
    const QFileInfo given(path);
    const QString target = given.isSymLink() && given.exists() ? given.canonicalFilePath() : path;
    const QByteArray encoded = QFile::encodeName(target);

    struct stat existing {};
    const bool exists = ::stat(encoded.constData(), &existing) == 0;
    if (exists && S_ISDIR(existing.st_mode))
        return makeError(ErrorCode::Io, QStringLiteral("is a directory"), shown);
    if (exists && !S_ISREG(existing.st_mode))
        return writeInPlace(target, shown, bytes);

    // The temporary file lives in the same directory, so rename() is atomic.
    // A short name of its own: the target's name may already be at NAME_MAX.
    const QString directory = QFileInfo(target).absolutePath();
    QByteArray temporary;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        temporary = QFile::encodeName(QDir(directory).filePath(
            QStringLiteral(".loadscope-%1.tmp")
                .arg(QRandomGenerator::global()->generate64(), 16, 16, QLatin1Char('0'))));
        // Mode 0666 less the umask, as any new file gets.
        fd = ::open(temporary.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            return cannotWrite(shown, errno);
    }
    if (fd < 0)
        return cannotWrite(shown, EEXIST);

    const auto discard = [&](const Error& error) -> Result<void> {
        ::unlink(temporary.constData());
        return makeError(ErrorCode::Io, error.message, shown);
    };
    if (exists)
        (void)::fchmod(fd, existing.st_mode & 07777); // keep the replaced file's permissions
    if (auto written = writeAllToDescriptor(fd, bytes); !written) {
        ::close(fd);
        return discard(written.error());
    }
    // Data on disk before the name points at it: a crash leaves old or new, never empty.
    if (::fsync(fd) != 0) {
        const int errnum = errno;
        ::close(fd);
        return discard(cannotWrite(shown, errnum));
    }
    if (auto closed = closeChecked(fd, shown); !closed)
        return discard(closed.error());
    if (::rename(temporary.constData(), encoded.constData()) != 0)
        return discard(cannotWrite(shown, errno));
    // The rename itself reaches the disk with the directory; best effort.
    if (const int dirFd =
            ::open(QFile::encodeName(directory).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        dirFd >= 0) {
        (void)::fsync(dirFd);
        ::close(dirFd);
    }
    return {};
}

Result<void> flushStream(FILE* stream, const QString& name) {
    errno = 0;
    const bool flushed = std::fflush(stream) == 0;
    const int errnum = errno;
    if (flushed && !std::ferror(stream))
        return {};
    const QString why = errnum != 0 ? errnoText(errnum) : QStringLiteral("an earlier write failed");
    std::clearerr(stream);
    return makeError(ErrorCode::Io, QStringLiteral("cannot write to %1: %2").arg(name, why));
}

} // namespace loadscope::app
