#pragma once

// A process's CPU time as /proc counts it, read by a test as the truth a
// server CPU figure is checked against.

#include <QDir>
#include <QFile>
#include <unistd.h>

namespace loadscope::test {

// utime + stime of `pid` and every process below it, in seconds, followed through
// /proc/PID/task/TID/children (the sweep walks the parents of all of /proc instead).
inline double processTreeCpuSeconds(int pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray line = stat.readAll();
    const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
    // After the command: state(3) ... utime(14) stime(15).
    double seconds =
        (fields.value(11).toDouble() + fields.value(12).toDouble()) / double(sysconf(_SC_CLK_TCK));
    const QDir tasks(QStringLiteral("/proc/%1/task").arg(pid));
    for (const QString& task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile children(tasks.filePath(task + QStringLiteral("/children")));
        if (!children.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray& child : children.readAll().split(' '))
            if (!child.trimmed().isEmpty())
                seconds += processTreeCpuSeconds(child.trimmed().toInt());
    }
    return seconds;
}

} // namespace loadscope::test
