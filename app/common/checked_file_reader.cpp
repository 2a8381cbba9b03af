#include "app/common/checked_file_reader.h"

#include "app/common/background_shares.h"

#include <QDir>
#include <QFile>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loadscope::app {

namespace {

QString notRegularProblem(mode_t mode) {
    if (S_ISDIR(mode))
        return QStringLiteral("is a directory, not a regular file");
    if (S_ISCHR(mode))
        return QStringLiteral("is a character device, not a regular file");
    if (S_ISBLK(mode))
        return QStringLiteral("is a block device, not a regular file");
    if (S_ISFIFO(mode))
        return QStringLiteral("is a FIFO (named pipe), not a regular file");
    if (S_ISSOCK(mode))
        return QStringLiteral("is a socket, not a regular file");
    return QStringLiteral("is not a regular file");
}

// The first `size` bytes of a regular file read by both cores at once, each
// a share of blocks (background_shares.h): a session file of a hundred
// megabytes costs as much in page faults on the fresh array as in the copy,
// and both split. How many bytes were read; 0 when any read failed or came
// short (the file shrank, or an error), the caller then reading it again in
// order, where every error is named as before.
qint64 readInParallel(int fd, QByteArray& bytes, qint64 size) {
    constexpr qint64 kBlock = 8 << 20;
    constexpr qint64 kMinBlocksPerThread = 2; // below this one thread reads faster
    if (size < kBlock * kMinBlocksPerThread * 2 || qint64(bytes.size()) < size)
        return 0;
    std::atomic<bool> failed{false};
    runInBackgroundShares(size_t((size + kBlock - 1) / kBlock), size_t(kMinBlocksPerThread),
                          [&](size_t begin, size_t end) {
                              const qint64 from = qint64(begin) * kBlock;
                              const qint64 to = std::min(size, qint64(end) * kBlock);
                              for (qint64 at = from; at < to && !failed;) {
                                  const ssize_t got =
                                      ::pread(fd, bytes.data() + at, size_t(to - at), off_t(at));
                                  if (got < 0 && errno == EINTR)
                                      continue;
                                  if (got <= 0)
                                      failed = true;
                                  else
                                      at += got;
                              }
                          });
    const qint64 read = failed ? 0 : size;
    return ::lseek(fd, off_t(read), SEEK_SET) == off_t(read) ? read : 0;
}

// Reads `fd` to its end or to one byte past `maxBytes`, whichever comes first,
// straight into the array: a session file is read whole, and copying it
// through a buffer of its own cost as much again as the read.
Result<QByteArray> readCapped(int fd, qint64 maxBytes, qint64 sizeHint, const QString& shown) {
    constexpr qint64 kChunk = 64 * 1024;
    // The stat size is only a hint (it is 0 for /proc files, and a file may grow).
    QByteArray bytes(qsizetype(std::clamp<qint64>(std::max(sizeHint + 1, kChunk), 0, maxBytes + 1)),
                     Qt::Uninitialized);
    // Only a regular file's size is a size (readRegularFile()); stdin gives none.
    qint64 used = sizeHint <= maxBytes ? readInParallel(fd, bytes, sizeHint) : 0;
    while (used <= maxBytes) {
        if (used == qint64(bytes.size()))
            bytes.resize(qsizetype(std::min<qint64>(2 * used + kChunk, maxBytes + 1)));
        const size_t want =
            size_t(std::min<qint64>(qint64(bytes.size()) - used, maxBytes + 1 - used));
        const ssize_t got = ::read(fd, bytes.data() + used, want);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return makeError(ErrorCode::Io, QStringLiteral("cannot be read: ") + errnoText(errno),
                             shown);
        }
        if (got == 0) {
            bytes.truncate(qsizetype(used));
            return bytes;
        }
        used += got;
    }
    return makeError(ErrorCode::Format,
                     QStringLiteral("is larger than %1").arg(byteSizeText(maxBytes)), shown);
}

} // namespace

QString byteSizeText(qint64 bytes) {
    struct Unit {
        int shift;
        const char* name;
    };
    for (const Unit unit : {Unit{30, "GiB"}, Unit{20, "MiB"}, Unit{10, "KiB"}}) {
        const qint64 size = qint64(1) << unit.shift;
        if (bytes >= size && bytes % size == 0)
            return QStringLiteral("%1 %2").arg(bytes / size).arg(QLatin1StringView(unit.name));
    }
    return QStringLiteral("%1 bytes").arg(bytes);
}

QString errnoText(int errnum) {
    QString text = QString::fromLocal8Bit(std::strerror(errnum));
    // "No space left on device" -> "no space ...", but "I/O error" stays.
    if (text.size() > 1 && text.at(1).isLower())
        text[0] = text.at(0).toLower();
    return text;
}

Result<QByteArray> readRegularFile(const QString& path, qint64 maxBytes) {
    const QString shown = QDir::toNativeSeparators(path);
    if (path.isEmpty())
        return makeError(ErrorCode::Io, QStringLiteral("no file name given"));
    // O_NONBLOCK: opening a FIFO without a writer must not wait for one.
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return makeError(ErrorCode::Io, QStringLiteral("cannot be read: ") + errnoText(errno),
                         shown);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat status {};
    if (::fstat(fd, &status) != 0)
        return makeError(ErrorCode::Io, QStringLiteral("cannot be read: ") + errnoText(errno),
                         shown);
    if (!S_ISREG(status.st_mode))
        return makeError(ErrorCode::Io, notRegularProblem(status.st_mode), shown);
    if (qint64(status.st_size) > maxBytes)
        return makeError(ErrorCode::Format,
                         QStringLiteral("is larger than %1").arg(byteSizeText(maxBytes)), shown);
    return readCapped(fd, maxBytes, qint64(status.st_size), shown);
}

Result<std::string> readPemFile(const QString& what, const QString& path) {
    const Result<QByteArray> text = readRegularFile(path, kMaxPemFileBytes);
    if (!text) {
        QString problem = text.error().message;
        problem.remove(QStringLiteral("cannot be read: "));
        return makeError(text.error().code,
                         QStringLiteral("cannot read %1 %2: %3")
                             .arg(what, QDir::toNativeSeparators(path), problem));
    }
    return text->toStdString();
}

Result<QByteArray> readStandardInput(qint64 maxBytes) {
    return readCapped(STDIN_FILENO, maxBytes, 0, QStringLiteral("stdin"));
}

} // namespace loadscope::app
