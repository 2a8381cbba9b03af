#include "ui/common/background_settings.h"

#include <QCoreApplication>
#include <QHash>
#include <QMutex>
#include <QMutexLocker>
#include <QSettings>
#include <QThreadPool>

namespace loadscope::ui::settings {

namespace {

// One thread, so that writes reach the file in order.
QThreadPool& writer() {
    static QThreadPool* const pool = [] {
        auto* created = new QThreadPool;
        created->setMaxThreadCount(1);
        // Before the application's names (which QSettings needs) are gone.
        qAddPostRoutine(waitForWrites);
        return created;
    }();
    return *pool;
}

// The values set but not yet stored, each with the number of its write: a
// stored one is let go unless it was set again meanwhile.
struct Pending {
    QVariant value;
    quint64 write = 0;
};
QMutex pendingLock;
QHash<QString, Pending> pending;
quint64 writes = 0;

} // namespace

QVariant value(const QString& key, const QVariant& fallback) {
    {
        const QMutexLocker locker(&pendingLock);
        const auto found = pending.constFind(key);
        if (found != pending.constEnd())
            return found->value;
    }
    return QSettings().value(key, fallback);
}

void setValue(const QString& key, const QVariant& value) {
    quint64 write = 0;
    {
        const QMutexLocker locker(&pendingLock);
        write = ++writes;
        pending.insert(key, {value, write});
    }
    // The names QSettings() would take, read here: the worker may outlive them.
    writer().start([key, value, write, organization = QCoreApplication::organizationName(),
                    application = QCoreApplication::applicationName(),
                    format = QSettings::defaultFormat()] {
        QSettings(format, QSettings::UserScope, organization, application).setValue(key, value);
        const QMutexLocker locker(&pendingLock);
        if (const auto found = pending.constFind(key);
            found != pending.constEnd() && found->write == write)
            pending.erase(found);
    });
}

void waitForWrites() {
    writer().waitForDone();
}

} // namespace loadscope::ui::settings
