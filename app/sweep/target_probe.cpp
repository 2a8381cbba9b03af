#include "app/sweep/target_probe.h"

#include "app/sweep/load_spec_builder.h"
#include "engine/http_protocol.h"

#include <QCoroSignal>
#include <QElapsedTimer>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>

namespace loadscope::app {

// Funnels every event a probe waits for (socket state, bytes, reply end,
// deadline, abort) into one signal, so the coroutine awaits one thing and then
// looks at what changed. A bare QCoro wait on, say, readyRead would sleep
// through a reset connection until its timeout.
//
// The signal fires at most once per arm(): QCoro resumes a signal's awaiter
// through a queued call, and a second emission before that call ran would
// queue a call into an awaiter that no longer exists.
class ProbeWakeup : public QObject {
    Q_OBJECT

public:
    using QObject::QObject;
    void arm() { m_armed = true; }
    void wake() {
        if (!m_armed)
            return;
        m_armed = false;
        Q_EMIT wakeupAvailable();
    }

Q_SIGNALS:
    void wakeupAvailable();

private:
    bool m_armed = false;
};

namespace {

QString hostForDisplay(const Endpoint& endpoint) {
    const QString host = endpoint.host.contains(QLatin1Char(':'))
                             ? QStringLiteral("[%1]").arg(endpoint.host)
                             : endpoint.host;
    return QStringLiteral("%1:%2").arg(host).arg(endpoint.port);
}

QString secondsText(std::chrono::milliseconds timeout) {
    return QString::number(double(timeout.count()) / 1000.0, 'g', 3);
}

QString socketError(QAbstractSocket::SocketError error, const QString& text,
                    const Endpoint& endpoint) {
    switch (error) {
    case QAbstractSocket::ConnectionRefusedError:
        return QStringLiteral("connection refused by %1").arg(hostForDisplay(endpoint));
    case QAbstractSocket::HostNotFoundError:
        return QStringLiteral("cannot resolve host '%1'").arg(endpoint.host);
    case QAbstractSocket::RemoteHostClosedError:
        return QStringLiteral("%1 closed the connection without a reply")
            .arg(hostForDisplay(endpoint));
    default:
        return QStringLiteral("%1: %2").arg(hostForDisplay(endpoint), text);
    }
}

} // namespace

QString ProbeResult::summary() const {
    if (!ok)
        return error;
    QStringList parts;
    if (!serverSoftware.isEmpty())
        parts << serverSoftware;
    if (statusCode > 0)
        parts << QStringLiteral("HTTP %1").arg(statusCode);
    if (documentLength >= 0)
        parts << QStringLiteral("%1 bytes").arg(documentLength);
    if (parts.isEmpty())
        parts << QStringLiteral("connected");
    parts << QStringLiteral("%1 ms").arg(elapsedMs, 0, 'f', 1);
    return parts.join(QStringLiteral(", "));
}

TargetProbe::TargetProbe(QObject* parent)
    : QObject(parent)
    , m_wakeup(new ProbeWakeup(this)) {}

TargetProbe::~TargetProbe() = default;

void TargetProbe::abort() {
    m_aborted = true;
    if (m_reply)
        m_reply->abort();
    if (m_socket)
        m_socket->abort();
    // Queued, so that the caller of abort() is not re-entered by the probe's end.
    QMetaObject::invokeMethod(m_wakeup, &ProbeWakeup::wake, Qt::QueuedConnection);
}

QCoro::Task<> TargetProbe::nextEvent() {
    // Events before this point need no wake-up: the caller looked at the
    // state they left before awaiting the next one.
    m_wakeup->arm();
    co_await qCoro(m_wakeup, &ProbeWakeup::wakeupAvailable);
}

QCoro::Task<ProbeResult> TargetProbe::probe(Target target, std::chrono::milliseconds timeout) {
    m_aborted = false;
    if (target.protocol == TargetProtocol::Http)
        co_return co_await probeHttp(std::move(target), timeout);
    co_return co_await probeSocket(std::move(target), timeout);
}

QCoro::Task<ProbeResult> TargetProbe::probeHttp(Target target, std::chrono::milliseconds timeout) {
    ProbeResult result;
    QElapsedTimer clock;
    clock.start();
    // The engine's own checks first: what it would refuse, the probe refuses
    // with the same words.
    const auto draft = draftLoadSpec(target, 1, SweepPlan{}, &result.error);
    if (!draft)
        co_return result;
    std::string urlError;
    const auto url = engine::parseHttpUrl(target.http.url.toStdString(), &urlError);
    const Endpoint endpoint = draft->endpoint;
    const QString authority = hostForDisplay(endpoint);
    QNetworkRequest request(QUrl::fromEncoded(
        QByteArray("http://" + authority.toUtf8() + QByteArray::fromStdString(url->pathAndQuery))));
    // The connection may go elsewhere than the URL's host (a proxy, a NAT
    // port); the server still sees the URL's Host, as in the measured run.
    request.setRawHeader("Host", QByteArray::fromStdString(url->hostHeader));
    request.setRawHeader("User-Agent", "Loadscope probe");
    if (!target.http.keepAlive)
        request.setRawHeader("Connection", "close");
    for (const auto& [name, value] : target.http.headers)
        request.setRawHeader(name.trimmed().toUtf8(), value.trimmed().toUtf8());
    // The engine follows no redirect and speaks HTTP/1.1 only; the probe
    // reports what the engine will meet.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute,
                         QNetworkRequest::AlwaysNetwork);
    QByteArray body;
    if (!target.http.bodyFile.isEmpty()) {
        QFile file(target.http.bodyFile);
        if (file.open(QIODevice::ReadOnly))
            body = file.readAll();
        request.setHeader(QNetworkRequest::ContentTypeHeader, target.http.contentType.isEmpty()
                                                                  ? QStringLiteral("text/plain")
                                                                  : target.http.contentType);
    }

    if (!m_network) {
        m_network = new QNetworkAccessManager(this);
        // The engine connects directly; a proxy from the environment would
        // make the probe test a different path.
        m_network->setProxy(QNetworkProxy::NoProxy);
    }
    const QByteArray method = target.http.method.trimmed().toUpper().toLatin1();
    QNetworkReply* reply = method == "HEAD" ? m_network->head(request)
                           : method.isEmpty() || method == "GET"
                               ? m_network->get(request)
                               : m_network->sendCustomRequest(request, method, body);
    m_reply = reply;
    connect(reply, &QNetworkReply::finished, m_wakeup, &ProbeWakeup::wake);
    QTimer deadline;
    deadline.setSingleShot(true);
    bool timedOut = false;
    connect(&deadline, &QTimer::timeout, reply, [reply, &timedOut] {
        timedOut = true;
        reply->abort();
    });
    deadline.start(timeout);
    while (!reply->isFinished())
        co_await nextEvent();
    deadline.stop();
    result.elapsedMs = double(clock.nsecsElapsed()) / 1e6;

    const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    if (status.isValid() && status.toInt() > 0 && !m_aborted && !timedOut) {
        result.statusCode = status.toInt();
        result.serverSoftware = QString::fromLatin1(reply->rawHeader("Server"));
        result.documentLength = reply->readAll().size();
        result.ok = result.statusCode < 400;
        if (!result.ok)
            result.error =
                QStringLiteral("HTTP %1 %2 for %3")
                    .arg(result.statusCode)
                    .arg(reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString(),
                         target.http.url);
    } else if (m_aborted) {
        result.error = QStringLiteral("probe aborted");
    } else if (timedOut) {
        result.error =
            QStringLiteral("no response from %1 within %2 s").arg(authority, secondsText(timeout));
    } else {
        switch (reply->error()) {
        case QNetworkReply::ConnectionRefusedError:
            result.error = QStringLiteral("connection refused by %1").arg(authority);
            break;
        case QNetworkReply::HostNotFoundError:
            result.error = QStringLiteral("cannot resolve host '%1'").arg(endpoint.host);
            break;
        case QNetworkReply::RemoteHostClosedError:
            result.error =
                QStringLiteral("%1 closed the connection without a response").arg(authority);
            break;
        default:
            result.error = QStringLiteral("%1: %2").arg(authority, reply->errorString());
            break;
        }
    }
    reply->deleteLater();
    co_return result;
}

QCoro::Task<ProbeResult> TargetProbe::probeSocket(Target target,
                                                  std::chrono::milliseconds timeout) {
    ProbeResult result;
    QElapsedTimer clock;
    clock.start();
    const auto draft = draftLoadSpec(target, 1, SweepPlan{}, &result.error);
    if (!draft)
        co_return result;
    const Endpoint endpoint = draft->endpoint;

    QTcpSocket socket;
    m_socket = &socket;
    QTimer deadline;
    deadline.setSingleShot(true);
    // QCoro resumes through a queued call, so the coroutine never runs inside
    // one of the socket's own signals and may end and destroy the socket.
    connect(&deadline, &QTimer::timeout, m_wakeup, &ProbeWakeup::wake);
    connect(&socket, &QAbstractSocket::stateChanged, m_wakeup, &ProbeWakeup::wake);
    connect(&socket, &QIODevice::readyRead, m_wakeup, &ProbeWakeup::wake);
    connect(&socket, &QAbstractSocket::errorOccurred, m_wakeup, &ProbeWakeup::wake);
    deadline.start(timeout);
    const auto expired = [&] {
        return !deadline.isActive();
    };

    socket.connectToHost(endpoint.host, endpoint.port);
    while (socket.state() != QAbstractSocket::ConnectedState &&
           socket.state() != QAbstractSocket::UnconnectedState && !expired() && !m_aborted)
        co_await nextEvent();
    if (socket.state() != QAbstractSocket::ConnectedState) {
        result.error = m_aborted   ? QStringLiteral("probe aborted")
                       : expired() ? QStringLiteral("no connection to %1 within %2 s")
                                         .arg(hostForDisplay(endpoint), secondsText(timeout))
                                   : socketError(socket.error(), socket.errorString(), endpoint);
        socket.abort();
        co_return result;
    }

    if (target.protocol == TargetProtocol::Memcache) {
        socket.write("version\r\n");
        while (!socket.canReadLine() && socket.state() == QAbstractSocket::ConnectedState &&
               !expired() && !m_aborted)
            co_await nextEvent();
        if (!socket.canReadLine()) {
            result.error = m_aborted ? QStringLiteral("probe aborted")
                           : expired()
                               ? QStringLiteral("no reply to 'version' from %1 within %2 s")
                                     .arg(hostForDisplay(endpoint), secondsText(timeout))
                               : socketError(socket.error(), socket.errorString(), endpoint);
            socket.abort();
            co_return result;
        }
        const QByteArray line = socket.readLine(256).trimmed();
        if (!line.startsWith("VERSION ")) {
            result.error = QStringLiteral("%1 is not a memcached server: it answered '%2' to "
                                          "'version'")
                               .arg(hostForDisplay(endpoint), QString::fromLatin1(line.left(60)));
            socket.abort();
            co_return result;
        }
        result.serverSoftware =
            QStringLiteral("memcached %1").arg(QString::fromLatin1(line.mid(8)));
    }
    result.elapsedMs = double(clock.nsecsElapsed()) / 1e6;
    result.ok = true;
    socket.abort();
    co_return result;
}

QCoro::Task<ProbeResult> probeTarget(Target target, std::chrono::milliseconds timeout) {
    // On the heap and deleted later: the probe ends in an event delivered to
    // its own child, which must outlive that delivery.
    auto* probe = new TargetProbe;
    const ProbeResult result = co_await probe->probe(std::move(target), timeout);
    probe->deleteLater();
    co_return result;
}

} // namespace loadscope::app

#include "target_probe.moc"
