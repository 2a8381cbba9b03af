#pragma once

#include <QMap>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <memory>

// Real servers from Debian's packages, started by a test on 127.0.0.1 and a
// free port, stopped when the object goes away.
namespace loadscope::testing {

// A port that was free a moment ago (bound to 0, then released).
quint16 freeLoopbackPort();

// Waits (bounded) until something accepts on 127.0.0.1:port.
bool waitForListener(quint16 port, int timeoutMs = 5000);

class NginxPeer {
public:
    // nginx-light, one worker, serving a document of `documentBytes` at "/".
    explicit NginxPeer(qsizetype documentBytes = 4897);
    ~NginxPeer();

    bool isRunning() const { return m_port != 0; }
    QString error() const { return m_error; }
    quint16 port() const { return m_port; }
    QString url() const;

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    quint16 m_port = 0;
    QString m_error;
};

class MemcachedPeer {
public:
    explicit MemcachedPeer(int megabytes = 64, int threads = 1);
    ~MemcachedPeer();

    bool isRunning() const { return m_port != 0; }
    QString error() const { return m_error; }
    quint16 port() const { return m_port; }
    // The server's "stats" counters (cmd_get, cmd_set, get_hits, ...).
    QMap<QString, qint64> stats() const;

private:
    QProcess m_process;
    quint16 m_port = 0;
    QString m_error;
};

// The "stats" counters (cmd_get, cmd_set, get_hits, ...) of the memcached on
// 127.0.0.1:port; empty when it does not answer within a few seconds.
QMap<QString, qint64> memcachedStats(quint16 port);

} // namespace loadscope::testing
