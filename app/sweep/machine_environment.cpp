#include "app/sweep/machine_environment.h"

#include <QFile>
#include <QSysInfo>
#include <QThread>

namespace loadscope::app {

namespace {

QString readCpuModel() {
    QFile file(QStringLiteral("/proc/cpuinfo"));
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return {};
    QString fallback;
    // /proc files report size 0, so read line by line rather than by size.
    for (int lines = 0; lines < 10000 && !file.atEnd(); ++lines) {
        const QString line = QString::fromUtf8(file.readLine());
        const qsizetype colon = line.indexOf(QLatin1Char(':'));
        if (colon < 0)
            continue;
        const QString key = line.left(colon).trimmed();
        const QString value = line.mid(colon + 1).trimmed();
        if (key == u"model name" && !value.isEmpty())
            return value;
        if ((key == u"Hardware" || key == u"Processor" || key == u"cpu model") &&
            fallback.isEmpty())
            fallback = value;
    }
    return fallback;
}

} // namespace

QString cpuModelName() {
    static const QString model = readCpuModel();
    return model;
}

RunEnvironment currentRunEnvironment(const QDateTime& startedAt) {
    RunEnvironment environment;
    environment.startedAt = startedAt;
    environment.hostName = QSysInfo::machineHostName();
    environment.kernel = QSysInfo::kernelType() + QLatin1Char(' ') + QSysInfo::kernelVersion();
    environment.cpuModel = cpuModelName();
    environment.cores = QThread::idealThreadCount();
    environment.loadscopeVersion = QStringLiteral(LOADSCOPE_VERSION);
    return environment;
}

} // namespace loadscope::app
