#include "app/agent/watched_server.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <algorithm>
#include <unistd.h>

namespace loadscope::app {

namespace {

QByteArray procFile(int pid, const char* name) {
    QFile file(QStringLiteral("/proc/%1/%2").arg(pid).arg(QLatin1String(name)));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.read(64 * 1024);
}

// The start time (field 22 of /proc/PID/stat) and parent of a process.
struct ProcessAge {
    uint64_t startTicks = 0;
    int parent = 0;
};

std::optional<ProcessAge> processAge(int pid) {
    const QByteArray stat = procFile(pid, "stat");
    const qsizetype close = stat.lastIndexOf(')');
    if (close < 0)
        return std::nullopt;
    const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
    // After the name: state(0) ppid(1) ... starttime is field 22 overall, 19 here.
    if (fields.size() < 20)
        return std::nullopt;
    return ProcessAge{fields.at(19).toULongLong(), fields.at(1).toInt()};
}

bool isNamed(int pid, const QString& name) {
    if (QString::fromUtf8(procFile(pid, "comm")).trimmed() == name.left(15) && name.size() <= 15)
        return true;
    const QByteArray cmdline = procFile(pid, "cmdline");
    const QByteArray program = cmdline.left(cmdline.indexOf('\0'));
    return !program.isEmpty() && QFileInfo(QString::fromUtf8(program)).fileName() == name;
}

// The first process of a container, from docker or podman on this host.
std::optional<int> containerPid(const QString& container, QString* why) {
    QStringList said;
    for (const char* tool : {"docker", "podman"}) {
        const QString program = QStandardPaths::findExecutable(QLatin1String(tool));
        if (program.isEmpty())
            continue;
        // Read-only: asks the engine what it runs, starts and changes nothing.
        QProcess inspect;
        inspect.start(program, {QStringLiteral("inspect"), QStringLiteral("--format"),
                                QStringLiteral("{{.State.Pid}}"), container});
        if (!inspect.waitForFinished(5000)) {
            inspect.kill();
            inspect.waitForFinished();
            said << QStringLiteral("%1 inspect did not answer within 5 s").arg(QLatin1String(tool));
            continue;
        }
        bool ok = false;
        const int pid = inspect.readAllStandardOutput().trimmed().toInt(&ok);
        if (inspect.exitCode() == 0 && ok && pid > 0)
            return pid;
        const QList<QByteArray> errors = inspect.readAllStandardError().trimmed().split('\n');
        said << QStringLiteral("%1 inspect: %2")
                    .arg(QLatin1String(tool),
                         errors.last().isEmpty()
                             ? QStringLiteral("no running container of that name")
                             : QString::fromUtf8(errors.last().trimmed()));
    }
    *why = said.isEmpty() ? QStringLiteral("neither docker nor podman is on this host's PATH")
                          : said.join(QStringLiteral("; "));
    return std::nullopt;
}

} // namespace

std::optional<int> oldestProcessNamed(const QString& name) {
    // This process and its ancestors (the shell ssh started it from, sshd)
    // are never the server.
    std::vector<int> mine;
    for (int pid = int(::getpid()); pid > 1;) {
        mine.push_back(pid);
        const auto age = processAge(pid);
        pid = age ? age->parent : 0;
    }
    std::optional<int> oldest;
    uint64_t oldestStart = 0;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& entry : entries) {
        bool numeric = false;
        const int pid = entry.toInt(&numeric);
        if (!numeric || std::find(mine.begin(), mine.end(), pid) != mine.end() ||
            !isNamed(pid, name))
            continue;
        const auto age = processAge(pid);
        if (age && (!oldest || age->startTicks < oldestStart)) {
            oldest = pid;
            oldestStart = age->startTicks;
        }
    }
    return oldest;
}

std::optional<QString> processCgroupDirectory(int pid) {
    for (const QByteArray& line : procFile(pid, "cgroup").split('\n')) {
        if (!line.startsWith("0::"))
            continue;
        const QString directory =
            QDir::cleanPath(QStringLiteral("/sys/fs/cgroup") + QString::fromUtf8(line.mid(3)));
        if (QFileInfo::exists(directory + QStringLiteral("/cpu.stat")))
            return directory;
    }
    return std::nullopt;
}

WatchedServer findWatchedServer(const AgentWatchRequest& request) {
    WatchedServer watched;
    if (!request.serverCpu.empty()) {
        watched.source = request.serverCpu;
        watched.source.threads.clear(); // another process's thread ids mean nothing here
        QStringList parts;
        if (watched.source.pid > 0) {
            if (!QFileInfo::exists(QStringLiteral("/proc/%1/stat").arg(watched.source.pid))) {
                watched.source = {};
                watched.description =
                    QStringLiteral("no process %1 runs on this host").arg(request.serverCpu.pid);
                return watched;
            }
            parts << QStringLiteral("pid %1%2")
                         .arg(watched.source.pid)
                         .arg(watched.source.withChildren ? QStringLiteral(" with its children")
                                                          : QString());
        }
        if (!watched.source.cgroup.empty())
            parts << QStringLiteral("cgroup %1").arg(QString::fromStdString(watched.source.cgroup));
        watched.description = parts.join(QStringLiteral(", "));
        return watched;
    }
    if (!request.process.isEmpty()) {
        if (const auto pid = oldestProcessNamed(request.process)) {
            watched.source.pid = *pid;
            watched.source.withChildren = true; // a master and its workers
            watched.description =
                QStringLiteral("%1: pid %2 with its children").arg(request.process).arg(*pid);
        } else {
            watched.description =
                QStringLiteral("no process named %1 runs on this host").arg(request.process);
        }
        return watched;
    }
    if (!request.container.isEmpty()) {
        QString why;
        const auto pid = containerPid(request.container, &why);
        if (!pid) {
            watched.description = QStringLiteral("container %1: %2").arg(request.container, why);
            return watched;
        }
        if (const auto cgroup = processCgroupDirectory(*pid)) {
            watched.source.cgroup = cgroup->toStdString();
            watched.description =
                QStringLiteral("container %1: cgroup %2").arg(request.container, *cgroup);
        } else {
            watched.source.pid = *pid;
            watched.source.withChildren = true;
            watched.description = QStringLiteral("container %1: pid %2 with its children")
                                      .arg(request.container)
                                      .arg(*pid);
        }
        return watched;
    }
    watched.description = QStringLiteral("no server named: the host's CPU alone");
    return watched;
}

} // namespace loadscope::app
