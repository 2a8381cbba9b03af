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
    // /proc files report size 0, which makes atEnd() true at once; readAll()
    // reads on to the real end.
    const QList<QByteArray> lines = file.readAll().split('\n');
    QString fallback;
    for (const QByteArray& raw : lines) {
        const QString line = QString::fromUtf8(raw);
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
