#pragma once

#include "local_peers.h"
#include "stop_with_test.h"

#include <QMap>
#include <QProcess>

namespace loadscope::testing {

using MemcachedStats = QMap<QString, qint64>;

// memcached with options MemcachedPeer does not take (a tiny memory that
// refuses new items instead of evicting), started and stopped here.
class OutOfMemoryMemcached {
public:
    OutOfMemoryMemcached() {
        for (int attempt = 0; attempt < 5 && m_port == 0; ++attempt) {
            const quint16 port = freeLoopbackPort();
            stopWithTest(m_process);
            m_process.start(QStringLiteral("/usr/bin/memcached"),
                            {QStringLiteral("-l"), QStringLiteral("127.0.0.1"),
                             QStringLiteral("-p"), QString::number(port), QStringLiteral("-U"),
                             QStringLiteral("0"), QStringLiteral("-t"), QStringLiteral("1"),
                             QStringLiteral("-m"), QStringLiteral("2"), QStringLiteral("-I"),
                             QStringLiteral("512k"), QStringLiteral("-M"), QStringLiteral("-u"),
                             QStringLiteral("root")});
            if (m_process.waitForStarted(5000) && waitForListener(port))
                m_port = port;
            else
                stop();
        }
    }
    ~OutOfMemoryMemcached() { stop(); }

    quint16 port() const { return m_port; }

    MemcachedStats stats() const { return memcachedStats(m_port); }

private:
    void stop() {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.terminate();
        if (!m_process.waitForFinished(5000)) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    QProcess m_process;
    quint16 m_port = 0;
};

} // namespace loadscope::testing
