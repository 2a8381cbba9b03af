#pragma once

#include <QMap>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <memory>
#include <string>

// Real servers from Debian's packages, started by a test on 127.0.0.1 and a
// free port, stopped when the object goes away.
namespace loadscope::testing {

// A port that was free a moment ago (bound to 0, then released).
quint16 freeLoopbackPort();

// Waits (bounded) until something accepts on 127.0.0.1:port.
bool waitForListener(quint16 port, int timeoutMs = 5000);

// A self-signed EC P-256 certificate for 127.0.0.1 and localhost (subject
// and SAN), made with the openssl command into `directory` as cert.pem and
// key.pem; the error, or empty when both were written.
QString writeSelfSignedCertificate(const QString& directory);

class NginxPeer {
public:
    enum class Scheme { Http, Https };
    // nginx-light, one worker, serving a document of `documentBytes` at "/";
    // with Https, on TLS 1.2 and 1.3 with a certificate of its own (certificatePath()).
    // `http2`: HTTP/2 only, h2c by prior knowledge on Http, h2 by ALPN on Https.
    // `logStatuses`: nginx logs the status of every response it sends (loggedStatuses()).
    explicit NginxPeer(qsizetype documentBytes = 4897, Scheme scheme = Scheme::Http,
                       bool http2 = false, bool logStatuses = false);
    ~NginxPeer();

    bool isRunning() const { return m_port != 0; }
    QString error() const { return m_error; }
    quint16 port() const { return m_port; }
    QString url() const;
    // Https: the server's certificate, which is its own CA.
    QString certificatePath() const { return m_dir.path() + QStringLiteral("/cert.pem"); }
    // Its text, as a TlsSpec's caPem takes it (the engine opens no file).
    std::string certificatePem() const;
    // With logStatuses: the status of each response nginx sent so far, by its access log, in
    // the order it sent them; nginx writes a request's line when it has finished with it.
    QList<int> loggedStatuses() const;

private:
    Scheme m_scheme;
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

// Debian's redis-server on a free loopback port: no snapshot, no append-only
// file, its working directory the test's own; stopped with the test.
class RedisPeer {
public:
    // `arguments` are added to the command line ("--maxmemory", "1mb").
    explicit RedisPeer(const QStringList& arguments = {});
    ~RedisPeer();

    bool isRunning() const { return m_port != 0; }
    QString error() const { return m_error; }
    quint16 port() const { return m_port; }
    QString address() const { return QStringLiteral("127.0.0.1:%1").arg(m_port); }
    // The reply to one command, as the server sent it ("+OK\r\n", "$5\r\nvalue\r\n");
    // empty when none came within a few seconds. Only for replies of one line or one bulk.
    QByteArray command(const QList<QByteArray>& words) const;
    // INFO `section` as its lines say: "cmdstat_set" -> "calls=802,usec=276,...",
    // "keyspace_hits" -> "2839".
    QMap<QString, QString> info(const QString& section) const;

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    quint16 m_port = 0;
    QString m_error;
};

// The fields of an INFO value such as "calls=802,usec=276,rejected_calls=0":
// {"calls": 802, "usec": 276, "rejected_calls": 0}. Fields that are not whole
// numbers are left out.
QMap<QString, qint64> redisInfoFields(const QString& value);

} // namespace loadscope::testing
