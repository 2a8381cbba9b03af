#pragma once

// Every process's CPU as its own /proc/PID/stat counts it: the truth a machine-wide figure
// (other load) is checked against on a machine that other processes share. Each process's
// utime + stime is what the scheduler ran it (its runtime, interrupts it served included where
// the kernel charges them to it), read per process and never from /proc/stat's counters.

#include <QDir>
#include <QFile>
#include <map>
#include <set>
#include <unistd.h>

namespace loadscope::test {

struct ProcessCpuTicks {
    int ppid = 0;
    uint64_t own = 0;    // utime + stime, of every thread, living or ended
    uint64_t reaped = 0; // cutime + cstime: the children it waited for
    bool softirqThread = false;
};

using ProcessCensus = std::map<int, ProcessCpuTicks>;

inline ProcessCensus processCensus() {
    ProcessCensus census;
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool numeric = false;
        const int pid = entry.toInt(&numeric);
        if (!numeric)
            continue;
        QFile file(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = file.readAll();
        const qsizetype close = line.lastIndexOf(')');
        if (close < 0)
            continue;
        const QList<QByteArray> f = line.mid(close + 2).split(' ');
        // state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17)
        ProcessCpuTicks ticks;
        ticks.ppid = f.value(1).toInt();
        ticks.own = f.value(11).toULongLong() + f.value(12).toULongLong();
        ticks.reaped = f.value(13).toULongLong() + f.value(14).toULongLong();
        ticks.softirqThread = line.contains("(ksoftirqd/");
        census[pid] = ticks;
    }
    return census;
}

// CPU seconds the processes used between two censuses, but those in `leftOut` and the
// kernel's softirq threads: a process at both ends by its difference (with the children it
// reaped meanwhile), one born between by all of it. One that ended between is in its parent's
// reaped time (or its parent's parent's, or init's), whole: what it had used before the first
// census is taken out again.
inline double cpuSecondsBetween(const ProcessCensus& before, const ProcessCensus& after,
                                const std::set<int>& leftOut = {}) {
    int64_t ticks = 0;
    for (const auto& [pid, now] : after) {
        if (leftOut.count(pid) || now.softirqThread)
            continue;
        const auto then = before.find(pid);
        if (then == before.end())
            ticks += int64_t(now.own + now.reaped);
        else
            ticks +=
                int64_t(now.own + now.reaped) - int64_t(then->second.own + then->second.reaped);
    }
    for (const auto& [pid, then] : before) {
        if (!after.count(pid))
            ticks -= int64_t(then.own + then.reaped);
    }
    return double(ticks) / double(sysconf(_SC_CLK_TCK));
}

} // namespace loadscope::test
