#include "app/sweep/target_probe.h"

#include "app/agent/agent_safety.h"
#include "app/common/printable_text.h"
#include "app/sweep/load_spec_builder.h"
#include "engine/http2_protocol.h"
#include "engine/protocol.h"

#include <QCoroSignal>
#include <QElapsedTimer>
#include <QNetworkProxy>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QTimer>
#include <algorithm>

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
    // Shown in the window as the server wrote it, control characters escaped.
    if (!ok)
        return printableText(error);
    QStringList parts;
    if (!serverSoftware.isEmpty())
        parts << printableText(serverSoftware);
    if (statusCode > 0)
        parts << QStringLiteral("HTTP %1").arg(statusCode);
    if (httpVersion.startsWith(QLatin1String("h2")))
        parts << QStringLiteral("over %1").arg(httpVersion);
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
    if (m_socket)
        m_socket->abort();
    // Queued, so that the caller of abort() is not re-entered by the probe's end.
    QMetaObject::invokeMethod(m_wakeup, &ProbeWakeup::wake, Qt::QueuedConnection);
}

Result<void> TargetProbe::configureTls(QSslSocket& socket, const engine::TlsSpec& tls) {
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setProtocol(tls.version == engine::TlsVersion::Tls12   ? QSsl::TlsV1_2
                              : tls.version == engine::TlsVersion::Tls13 ? QSsl::TlsV1_3
                                                                         : QSsl::TlsV1_2OrLater);
    configuration.setPeerVerifyMode(tls.verify ? QSslSocket::VerifyPeer : QSslSocket::VerifyNone);
    // The files' text as the builder read it (checked_file_reader.h): the
    // probe opens no path itself.
    if (tls.verify && !tls.caFile.empty()) {
        const QString file = QString::fromStdString(tls.caFile);
        const QList<QSslCertificate> authorities =
            QSslCertificate::fromData(QByteArray::fromStdString(tls.caPem));
        if (authorities.isEmpty())
            return invalidInput(QStringLiteral("no certificate in CA file '%1'").arg(file));
        configuration.setCaCertificates(authorities);
    }
    if (!tls.certFile.empty()) {
        const QString file = QString::fromStdString(tls.certFile);
        const QList<QSslCertificate> chain =
            QSslCertificate::fromData(QByteArray::fromStdString(tls.certPem));
        const QByteArray pem =
            QByteArray::fromStdString(tls.keyFile.empty() ? tls.certPem : tls.keyPem);
        QSslKey key;
        for (QSsl::KeyAlgorithm algorithm : {QSsl::Ec, QSsl::Rsa})
            if (key.isNull() && !pem.isEmpty())
                key = QSslKey(pem, algorithm);
        if (chain.isEmpty() || key.isNull())
            return invalidInput(
                QStringLiteral("cannot read the client certificate '%1'").arg(file));
        configuration.setLocalCertificateChain(chain);
        configuration.setPrivateKey(key);
    }
    if (!tls.alpn.empty())
        configuration.setAllowedNextProtocols({QByteArray::fromStdString(tls.alpn)});
    socket.setSslConfiguration(configuration);
    return {};
}

QCoro::Task<> TargetProbe::nextEvent() {
    // Events before this point need no wake-up: the caller looked at the
    // state they left before awaiting the next one.
    m_wakeup->arm();
    co_await qCoro(m_wakeup, &ProbeWakeup::wakeupAvailable);
}

QCoro::Task<ProbeResult> TargetProbe::probe(Target target, std::chrono::milliseconds timeout) {
    m_aborted = false;
    ProbeResult result;
    QElapsedTimer clock;
    clock.start();
    // A lab target's address leads out of the machine from here: refused
    // before any lookup or socket.
    if (auto allowed = checkConnection(target, Connector::ThisProcess); !allowed) {
        result.error = allowed.error().message;
        co_return result;
    }
    // The one builder: what the engine would refuse, the probe refuses with
    // the same words, and an HTTP probe sends the engine's own request bytes.
    const auto draft = draftLoadSpec(target, 1, SweepPlan{});
    if (!draft) {
        result.error = draft.error().message;
        co_return result;
    }
    const Endpoint endpoint = draft->endpoint;
    const bool http = target.protocol == TargetProtocol::Http;

    QSslSocket socket;
    // The engine connects directly; a proxy from the environment would make
    // the probe test a different path.
    socket.setProxy(QNetworkProxy::NoProxy);
    const engine::TlsSpec& tls = draft->spec.tls;
    QString tlsError;
    if (tls.enabled) {
        // The engine's verification, so that a certificate it would refuse
        // is named here, before a sweep counts every request as a TLS failure.
        if (auto configured = configureTls(socket, tls); !configured) {
            result.error = configured.error().message;
            co_return result;
        }
        connect(&socket, &QSslSocket::sslErrors, &socket, [&](const QList<QSslError>& errors) {
            if (tlsError.isEmpty() && !errors.isEmpty())
                tlsError = QStringLiteral("TLS certificate verification failed: %1")
                               .arg(errors.constFirst().errorString());
        });
        connect(&socket, &QSslSocket::encrypted, m_wakeup, &ProbeWakeup::wake);
    }
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
    const auto noReply = [&] {
        return QStringLiteral("no response from %1 within %2 s")
            .arg(hostForDisplay(endpoint), secondsText(timeout));
    };

    if (tls.enabled)
        socket.connectToHostEncrypted(endpoint.host, endpoint.port,
                                      QString::fromStdString(tls.serverName));
    else
        socket.connectToHost(endpoint.host, endpoint.port);
    const auto connected = [&] {
        return socket.state() == QAbstractSocket::ConnectedState &&
               (!tls.enabled || socket.isEncrypted());
    };
    while (!connected() && socket.state() != QAbstractSocket::UnconnectedState && !expired() &&
           !m_aborted)
        co_await nextEvent();
    if (!connected() && tls.enabled && !m_aborted &&
        (!tlsError.isEmpty() || socket.state() == QAbstractSocket::UnconnectedState)) {
        result.error = !tlsError.isEmpty()
                           ? tlsError
                           : QStringLiteral("TLS handshake with %1 failed: %2")
                                 .arg(hostForDisplay(endpoint), socket.errorString());
        socket.abort();
        co_return result;
    }
    if (!connected()) {
        result.error = m_aborted ? QStringLiteral("probe aborted")
                       : expired()
                           ? (http ? noReply()
                                   : QStringLiteral("no connection to %1 within %2 s")
                                         .arg(hostForDisplay(endpoint), secondsText(timeout)))
                           : socketError(socket.error(), socket.errorString(), endpoint);
        socket.abort();
        co_return result;
    }

    const bool http2 = http && target.http.http2;
    if (http2 && tls.enabled) {
        // The engine offers only h2, so a server that chose nothing (or http/1.1) fails every
        // request of a sweep; say it now, in one line.
        const QByteArray chosen = socket.sslConfiguration().nextNegotiatedProtocol();
        if (chosen != engine::kAlpnHttp2) {
            result.error =
                QStringLiteral("%1 refused HTTP/2 by ALPN (offered h2, it chose %2)")
                    .arg(hostForDisplay(endpoint),
                         chosen.isEmpty() ? QStringLiteral("none")
                                          : printableText(QString::fromLatin1(chosen.left(40))));
            socket.abort();
            co_return result;
        }
    }

    if (http) {
        const auto session = draft->spec.protocol->newSession(0, draft->spec.seed);
        std::string request;
        session->appendRequest(request);
        m_sentRequest = QByteArray::fromStdString(request);
        socket.write(m_sentRequest);
        QByteArray statusLine;
        engine::FeedResult fed;
        bool closed = false;
        while (fed.status == engine::FeedResult::Status::NeedMore && !closed && !expired() &&
               !m_aborted) {
            const QByteArray bytes = socket.readAll();
            if (statusLine.size() < 256)
                statusLine += bytes.left(256);
            std::string_view rest(bytes.constData(), size_t(bytes.size()));
            while (!rest.empty() && fed.status == engine::FeedResult::Status::NeedMore) {
                const engine::FeedResult part = session->feed(rest);
                rest.remove_prefix(std::min(part.consumed, rest.size()));
                fed = part;
                if (part.status == engine::FeedResult::Status::NeedMore)
                    break;
            }
            if (fed.status != engine::FeedResult::Status::NeedMore)
                break;
            if (socket.state() != QAbstractSocket::ConnectedState && socket.bytesAvailable() == 0) {
                closed = true;
                fed = session->finishAtEof();
                break;
            }
            co_await nextEvent();
        }
        result.elapsedMs = double(clock.nsecsElapsed()) / 1e6;
        if (fed.status == engine::FeedResult::Status::Complete) {
            result.statusCode = fed.info.statusCode;
            result.serverSoftware = QString::fromStdString(std::string(session->serverSoftware()));
            result.documentLength = qint64(fed.info.bodyBytes);
            result.httpVersion = http2 ? QString::fromLatin1(tls.enabled ? "h2" : "h2c")
                                       : QString::fromLatin1(statusLine.left(8));
            result.ok = result.statusCode < 400;
            if (!result.ok) {
                // "HTTP/1.1 404 Not Found": the reason phrase after the code.
                const QByteArray first = statusLine.left(statusLine.indexOf('\r'));
                const QString reason = QString::fromLatin1(first.mid(first.indexOf(' ', 9) + 1));
                result.error = QStringLiteral("HTTP %1 %2 for %3")
                                   .arg(result.statusCode)
                                   .arg(reason, target.http.url);
            }
        } else if (m_aborted) {
            result.error = QStringLiteral("probe aborted");
        } else if (http2 && statusLine.startsWith("HTTP/1.")) {
            // An HTTP/1 server reads the h2c preface as a request it cannot parse, and answers
            // (or closes) in HTTP/1.1: the h2 parser would only call that a framing error.
            result.error = QStringLiteral("%1 answered in HTTP/1, not HTTP/2: it does not speak "
                                          "h2c by prior knowledge (%2)")
                               .arg(hostForDisplay(endpoint),
                                    printableText(QString::fromLatin1(
                                        statusLine.left(statusLine.indexOf('\r')).left(60))));
        } else if (fed.status == engine::FeedResult::Status::Malformed && !closed) {
            result.error = QStringLiteral("%1 sent a malformed response: %2")
                               .arg(hostForDisplay(endpoint),
                                    QString::fromStdString(std::string(session->lastError())));
        } else if (closed) {
            result.error = QStringLiteral("%1 closed the connection without a response")
                               .arg(hostForDisplay(endpoint));
        } else {
            result.error = noReply();
        }
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
