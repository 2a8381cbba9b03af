#pragma once

// A process's CPU time as /proc counts it, read by a test as the truth a
// server CPU figure is checked against.

#include <QDir>
#include <QFile>
#include <QString>
#include <cmath>

namespace loadscope::test {

// The run time the scheduler gave `pid`'s live threads and every process below it, in seconds,
// to the nanosecond: each thread's /proc/PID/task/TID/schedstat (its first field). utime + stime
// come to the same time in 10 ms ticks, so this is the truth a tick-counted figure is held to
// within a tick or two, not ten. Threads that have exited are not in it.
inline double processTreeRunSeconds(int pid) {
    double seconds = 0;
    const QDir tasks(QStringLiteral("/proc/%1/task").arg(pid));
    for (const QString& task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile schedstat(tasks.filePath(task + QStringLiteral("/schedstat")));
        if (schedstat.open(QIODevice::ReadOnly))
            seconds += schedstat.readAll().split(' ').value(0).toDouble() / 1e9;
        QFile children(tasks.filePath(task + QStringLiteral("/children")));
        if (!children.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray& child : children.readAll().split(' '))
            if (!child.trimmed().isEmpty())
                seconds += processTreeRunSeconds(child.trimmed().toInt());
    }
    return seconds;
}

// Empty when `measured` (whose: "the agent's") is within 10 % of the scheduler's `truth`;
// otherwise what the two were.
inline QString offTheSchedulersRunTime(const QString& whose, double measured, double truth) {
    if (std::abs(measured - truth) <= 0.1 * truth)
        return {};
    return QStringLiteral("%1 %2 s, the scheduler's %3 s: off by more than 10 %")
        .arg(whose)
        .arg(measured)
        .arg(truth);
}

} // namespace loadscope::test
