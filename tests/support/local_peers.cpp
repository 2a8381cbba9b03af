#include "local_peers.h"

#include "stop_with_test.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>

namespace loadscope::testing {

quint16 freeLoopbackPort() {
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

bool waitForListener(quint16 port, int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, port);
        if (socket.waitForConnected(200))
            return true;
        QThread::msleep(20);
    }
    return false;
}

namespace {

void stopProcess(QProcess& process) {
    if (process.state() == QProcess::NotRunning)
        return;
    process.terminate();
    if (!process.waitForFinished(5000)) {
        process.kill();
        process.waitForFinished(5000);
    }
}

} // namespace

QString writeSelfSignedCertificate(const QString& directory) {
    QProcess openssl;
    openssl.start(QStringLiteral("openssl"),
                  {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
                   QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                   QStringLiteral("ec_paramgen_curve:P-256"), QStringLiteral("-nodes"),
                   QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"),
                   QStringLiteral("/CN=127.0.0.1"), QStringLiteral("-addext"),
                   QStringLiteral("subjectAltName=IP:127.0.0.1,DNS:localhost"),
                   QStringLiteral("-keyout"), directory + QStringLiteral("/key.pem"),
                   QStringLiteral("-out"), directory + QStringLiteral("/cert.pem")});
    if (!openssl.waitForFinished(20000) || openssl.exitStatus() != QProcess::NormalExit ||
        openssl.exitCode() != 0)
        return QStringLiteral("openssl req failed: ") +
               QString::fromUtf8(openssl.readAllStandardError());
    return {};
}

NginxPeer::NginxPeer(qsizetype documentBytes, Scheme scheme, bool http2, bool logStatuses)
    : m_scheme(scheme) {
    const QString nginx = QStringLiteral("/usr/sbin/nginx");
    if (!QFile::exists(nginx)) {
        m_error = QStringLiteral("nginx is not installed (Debian package nginx-light)");
        return;
    }
    const QString root = m_dir.path();
    QString tls;
    if (scheme == Scheme::Https) {
        if (const QString problem = writeSelfSignedCertificate(root); !problem.isEmpty()) {
            m_error = problem;
            return;
        }
        tls = QStringLiteral(" ssl; ssl_certificate %1/cert.pem; ssl_certificate_key %1/key.pem;"
                             " ssl_protocols TLSv1.2 TLSv1.3")
                  .arg(root);
    }
    if (http2) // nginx 1.22's listen parameter; on a plain listen it is h2c by prior knowledge
        tls.prepend(QStringLiteral(" http2"));
    QDir().mkpath(root + QStringLiteral("/www"));
    QFile page(root + QStringLiteral("/www/index.html"));
    page.open(QIODevice::WriteOnly);
    QByteArray body(documentBytes, 'x');
    page.write(body);
    page.close();
    for (int attempt = 0; attempt < 5 && m_port == 0; ++attempt) {
        const quint16 port = freeLoopbackPort();
        QFile config(root + QStringLiteral("/nginx.conf"));
        config.open(QIODevice::WriteOnly | QIODevice::Truncate);
        // Single-process mode: one worker, stopped with the QProcess.
        const QString accessLog = logStatuses ? QStringLiteral("log_format statuses '$status'; "
                                                               "access_log %1/access.log statuses;")
                                                    .arg(root)
                                              : QStringLiteral("access_log off;");
        config.write(QStringLiteral("daemon off; master_process off;\n"
                                    "error_log %1/error.log; pid %1/nginx.pid;\n"
                                    "events { worker_connections 20000; }\n"
                                    "http { %4 keepalive_requests 1000000;\n"
                                    "  server { listen 127.0.0.1:%2%3; root %1/www; } }\n")
                         .arg(root)
                         .arg(port)
                         .arg(tls, accessLog)
                         .toUtf8());
        config.close();
        stopWithTest(m_process);
        m_process.start(nginx, {QStringLiteral("-p"), root, QStringLiteral("-c"),
                                root + QStringLiteral("/nginx.conf")});
        if (m_process.waitForStarted(5000) && waitForListener(port)) {
            m_port = port;
            return;
        }
        stopProcess(m_process);
    }
    m_error = QStringLiteral("nginx did not start: ") +
              QString::fromUtf8(m_process.readAllStandardError());
}

QList<int> NginxPeer::loggedStatuses() const {
    QFile log(m_dir.path() + QStringLiteral("/access.log"));
    QList<int> statuses;
    if (!log.open(QIODevice::ReadOnly))
        return statuses;
    for (const QByteArray& line : log.readAll().split('\n'))
        if (!line.isEmpty())
            statuses << line.toInt();
    return statuses;
}

NginxPeer::~NginxPeer() {
    stopProcess(m_process);
}

QString NginxPeer::url() const {
    return QStringLiteral("%1://127.0.0.1:%2/")
        .arg(m_scheme == Scheme::Https ? QStringLiteral("https") : QStringLiteral("http"))
        .arg(m_port);
}

std::string NginxPeer::certificatePem() const {
    QFile file(certificatePath());
    return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
}

MemcachedPeer::MemcachedPeer(int megabytes, int threads) {
    const QString memcached = QStringLiteral("/usr/bin/memcached");
    if (!QFile::exists(memcached)) {
        m_error = QStringLiteral("memcached is not installed (Debian package memcached)");
        return;
    }
    for (int attempt = 0; attempt < 5 && m_port == 0; ++attempt) {
        const quint16 port = freeLoopbackPort();
        stopWithTest(m_process);
        m_process.start(memcached,
                        {QStringLiteral("-l"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"),
                         QString::number(port), QStringLiteral("-U"), QStringLiteral("0"),
                         QStringLiteral("-m"), QString::number(megabytes), QStringLiteral("-t"),
                         QString::number(threads), QStringLiteral("-c"), QStringLiteral("4096"),
                         QStringLiteral("-u"), QStringLiteral("root")});
        if (m_process.waitForStarted(5000) && waitForListener(port)) {
            m_port = port;
            return;
        }
        stopProcess(m_process);
    }
    m_error = QStringLiteral("memcached did not start: ") +
              QString::fromUtf8(m_process.readAllStandardError());
}

MemcachedPeer::~MemcachedPeer() {
    stopProcess(m_process);
}

QMap<QString, qint64> memcachedStats(quint16 port) {
    QMap<QString, qint64> values;
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(2000))
        return values;
    socket.write("stats\r\n");
    QByteArray reply;
    QDeadlineTimer deadline(5000);
    while (!reply.endsWith("END\r\n") && !deadline.hasExpired() && socket.waitForReadyRead(1000))
        reply += socket.readAll();
    for (const QByteArray& line : reply.split('\n')) {
        const QList<QByteArray> parts = line.trimmed().split(' ');
        if (parts.size() == 3 && parts.at(0) == "STAT")
            values.insert(QString::fromLatin1(parts.at(1)), parts.at(2).toLongLong());
    }
    return values;
}

QMap<QString, qint64> MemcachedPeer::stats() const {
    return memcachedStats(m_port);
}

RedisPeer::RedisPeer(const QStringList& arguments) {
    const QString redis = QStringLiteral("/usr/bin/redis-server");
    if (!QFile::exists(redis)) {
        m_error = QStringLiteral("redis-server is not installed (Debian package redis-server)");
        return;
    }
    for (int attempt = 0; attempt < 5 && m_port == 0; ++attempt) {
        const quint16 port = freeLoopbackPort();
        stopWithTest(m_process);
        m_process.start(redis, QStringList{QStringLiteral("--port"), QString::number(port),
                                           QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                                           QStringLiteral("--save"), QString(),
                                           QStringLiteral("--appendonly"), QStringLiteral("no"),
                                           QStringLiteral("--daemonize"), QStringLiteral("no"),
                                           QStringLiteral("--dir"), m_dir.path(),
                                           QStringLiteral("--logfile"), QString()} +
                                   arguments);
        if (m_process.waitForStarted(5000) && waitForListener(port)) {
            m_port = port;
            return;
        }
        stopProcess(m_process);
    }
    m_error =
        QStringLiteral("redis-server did not start: ") +
        QString::fromUtf8(m_process.readAllStandardOutput() + m_process.readAllStandardError());
}

RedisPeer::~RedisPeer() {
    stopProcess(m_process);
}

QByteArray RedisPeer::command(const QList<QByteArray>& words) const {
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, m_port);
    if (!socket.waitForConnected(2000))
        return {};
    QByteArray request = '*' + QByteArray::number(words.size()) + "\r\n";
    for (const QByteArray& word : words)
        request += '$' + QByteArray::number(word.size()) + "\r\n" + word + "\r\n";
    socket.write(request);
    QByteArray reply;
    QDeadlineTimer deadline(5000);
    const auto complete = [&] {
        const qsizetype lineEnd = reply.indexOf("\r\n");
        if (lineEnd < 0)
            return false;
        if (!reply.startsWith('$'))
            return true;
        const qsizetype length = reply.mid(1, lineEnd - 1).toLongLong();
        return length < 0 || reply.size() >= lineEnd + 2 + length + 2;
    };
    while (!complete() && !deadline.hasExpired() && socket.waitForReadyRead(1000))
        reply += socket.readAll();
    return complete() ? reply : QByteArray();
}

QMap<QString, QString> RedisPeer::info(const QString& section) const {
    QMap<QString, QString> values;
    const QByteArray reply = command({"INFO", section.toLatin1()});
    for (const QByteArray& line : reply.split('\n')) {
        const QByteArray trimmed = line.trimmed();
        const qsizetype colon = trimmed.indexOf(':');
        if (colon > 0 && !trimmed.startsWith('#') && !trimmed.startsWith('$'))
            values.insert(QString::fromLatin1(trimmed.left(colon)),
                          QString::fromLatin1(trimmed.mid(colon + 1)));
    }
    return values;
}

QMap<QString, qint64> redisInfoFields(const QString& value) {
    QMap<QString, qint64> fields;
    for (const QString& pair : value.split(QLatin1Char(','))) {
        const qsizetype equals = pair.indexOf(QLatin1Char('='));
        bool number = false;
        const qint64 n = pair.mid(equals + 1).toLongLong(&number);
        if (equals > 0 && number)
            fields.insert(pair.left(equals), n);
    }
    return fields;
}

} // namespace loadscope::testing
