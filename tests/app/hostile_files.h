#pragma once

#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>

// Files a hostile user hands over, made inside a test's own QTemporaryDir:
// a FIFO (which blocks a plain open() until a writer comes), a sparse file of
// any size (no disk space spent), and a file-size limit that fails a write
// half-way as a full disk does (unlike a read-only directory, it binds root).
namespace loadscope::test {

inline QString makeFifo(const QTemporaryDir& dir, const QString& name = QStringLiteral("fifo")) {
    const QString path = dir.filePath(name);
    if (::mkfifo(QFile::encodeName(path).constData(), 0600) != 0)
        qFatal("cannot make a FIFO in %s", qPrintable(dir.path()));
    return path;
}

inline QString makeSparseFile(const QTemporaryDir& dir, const QString& name, qint64 size) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || !file.resize(size))
        qFatal("cannot make a sparse file %s", qPrintable(path));
    return path;
}

// Runs `run` (in this process, or a child it starts: both are inherited) with
// writes past `bytes` failing with EFBIG.
template <typename Run> auto withFileSizeLimit(rlim_t bytes, Run run) {
    rlimit saved{};
    getrlimit(RLIMIT_FSIZE, &saved);
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limited = saved;
    limited.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limited);
    auto result = run();
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previous);
    return result;
}

} // namespace loadscope::test
