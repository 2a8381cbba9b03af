#pragma once

// What every task on the machine ran, as the scheduler charged it: the truth a machine-wide
// figure (other load) is checked against on a machine that other processes share. The
// scheduler's runtime of a task holds the interrupts it served where the kernel charges them
// to it, and nothing of /proc/stat's tick-sampled columns is read.
//
// The root cpuacct group's usage (cgroup v1) adds up every task's runtime, of tasks that ended
// too. Without it, every process's own /proc/PID/stat (a census before and after), which loses
// what a process that ended in between used when its CPU reached no process alive at the end.

#include <QDir>
#include <QFile>
#include <QString>
#include <algorithm>
#include <map>
#include <optional>
#include <unistd.h>

namespace loadscope::test {

struct ProcessCpuTicks {
    int ppid = 0;
    uint64_t startTime = 0; // tells a PID reused between two censuses from the same process
    uint64_t own = 0;       // utime + stime, of every thread, living or ended
    uint64_t reaped = 0;    // cutime + cstime: the children it waited for
    bool softirqThread = false;
    QByteArray name;

    uint64_t total() const { return own + reaped; }
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
        const qsizetype open = line.indexOf('(');
        const qsizetype close = line.lastIndexOf(')');
        if (open < 0 || close < 0)
            continue;
        const QList<QByteArray> f = line.mid(close + 2).split(' ');
        // state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17) ... starttime(22)
        ProcessCpuTicks ticks;
        ticks.ppid = f.value(1).toInt();
        ticks.own = f.value(11).toULongLong() + f.value(12).toULongLong();
        ticks.reaped = f.value(13).toULongLong() + f.value(14).toULongLong();
        ticks.startTime = f.value(19).toULongLong();
        ticks.name = line.mid(open + 1, close - open - 1);
        ticks.softirqThread = ticks.name.startsWith("ksoftirqd/");
        census[pid] = ticks;
    }
    return census;
}

// What every process but the kernel's softirq threads used between two censuses.
struct CensusDifference {
    double seconds = 0;
    // Empty when every process that ended between the two is accounted for; else which was
    // lost: its CPU reached no process alive at the end (its reaper ignores its children, or
    // ended too), so the figure misses what it used meanwhile.
    QString lost;
};

// A process at both ends counts by its difference, with the children it reaped meanwhile; one
// born between by all of it. One that ended between is in the reaped time of the first of its
// ancestors still alive, whole: what it had used before the first census is taken out of that
// again, as far as that ancestor's reaped time grew.
inline CensusDifference cpuBetween(const ProcessCensus& before, const ProcessCensus& after) {
    const auto alive = [&after](int pid, const ProcessCpuTicks& then) {
        const auto now = after.find(pid);
        return now != after.end() && now->second.startTime == then.startTime;
    };
    CensusDifference d;
    std::map<int, int64_t> earlier; // per surviving ancestor: its ended descendants' earlier CPU
    for (const auto& [pid, then] : before) {
        if (alive(pid, then) || then.total() == 0)
            continue;
        int ancestor = then.ppid;
        for (int depth = 0; depth < 64 && ancestor > 0; ++depth) {
            const auto up = before.find(ancestor);
            if (up == before.end() || alive(ancestor, up->second))
                break;
            ancestor = up->second.ppid;
        }
        const auto up = before.find(ancestor);
        if (up == before.end() || !alive(ancestor, up->second)) {
            d.lost = QString::fromLatin1(then.name);
            continue;
        }
        earlier[ancestor] += int64_t(then.total());
    }
    int64_t ticks = 0;
    for (const auto& [pid, now] : after) {
        if (now.softirqThread)
            continue;
        const auto then = before.find(pid);
        if (then == before.end() || then->second.startTime != now.startTime) {
            ticks += int64_t(now.total());
            continue;
        }
        const int64_t reaped = int64_t(now.reaped) - int64_t(then->second.reaped);
        int64_t taken = 0;
        if (const auto e = earlier.find(pid); e != earlier.end()) {
            taken = std::min(e->second, reaped);
            if (e->second > reaped)
                d.lost = QStringLiteral("a child of %1").arg(QString::fromLatin1(now.name));
        }
        ticks += int64_t(now.own) - int64_t(then->second.own) + reaped - taken;
    }
    d.seconds = double(ticks) / double(sysconf(_SC_CLK_TCK));
    return d;
}

// Every task's runtime since boot, in nanoseconds: the root cpuacct group's usage, where
// cgroup v1's cpuacct is mounted (cgroup v2's root cpu.stat is /proc/stat's columns again).
inline std::optional<uint64_t> tasksRuntimeNs() {
    for (const char* path :
         {"/sys/fs/cgroup/cpuacct/cpuacct.usage", "/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage"}) {
        QFile file(QString::fromLatin1(path));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        bool ok = false;
        const uint64_t ns = file.readAll().trimmed().toULongLong(&ok);
        if (ok)
            return ns;
    }
    return std::nullopt;
}

// The kernel's softirq threads' runtime together, in nanoseconds (/proc/PID/schedstat).
inline uint64_t softirqThreadsRuntimeNs(const ProcessCensus& census) {
    uint64_t ns = 0;
    for (const auto& [pid, process] : census) {
        QFile file(QStringLiteral("/proc/%1/schedstat").arg(pid));
        if (process.softirqThread && file.open(QIODevice::ReadOnly))
            ns += file.readAll().split(' ').value(0).toULongLong();
    }
    return ns;
}

} // namespace loadscope::test
