#pragma once

#include "app/common/result.h"
#include "app/session/target.h"
#include "engine/tls_spec.h"

#include <QByteArray>
#include <QCoroTask>
#include <QObject>
#include <QPointer>
#include <QString>
#include <chrono>

class QAbstractSocket;
class QSslSocket;

namespace loadscope::app {

class ProbeWakeup;

// What one pre-flight request told about a target, so that a typo in a URL or
// a port costs seconds instead of a whole sweep.
struct ProbeResult {
    bool ok = false;
    QString serverSoftware;     // HTTP "Server" header, or "memcached 1.6.18"
    qint64 documentLength = -1; // HTTP body bytes of the probe response; -1 when none
    int statusCode = 0;         // HTTP status; 0 for the other protocols
    // The HTTP the answer came in: "HTTP/1.1" or "HTTP/1.0" (the status line's), "h2" (agreed
    // by ALPN) or "h2c" (prior knowledge, answered in HTTP/2); empty for the other protocols.
    QString httpVersion;
    QString error;        // one line when !ok: "connection refused by 127.0.0.1:8080"
    double elapsedMs = 0; // lookup + connect + one request

    // One line for a log or a status bar: "nginx/1.22.1, HTTP 200, 615 bytes, 1.2 ms", with
    // "over h2" / "over h2c" after the status for HTTP/2, or the error.
    QString summary() const;
};

inline constexpr std::chrono::milliseconds kDefaultProbeTimeout{5000};

// One probe of one target over Qt's asynchronous QTcpSocket: for http the
// very request the engine will send (the builder's HttpProtocol writes the
// bytes, its parser reads the response), memcached's "version", or a bare
// connect for tcp-rr and tcp-stream. An HTTP/2 target must be answered in
// HTTP/2: h2 agreed by ALPN, or HTTP/2 frames after the h2c preface; a server
// that speaks only HTTP/1.1 is one line saying so. A lab target is not probed: the gate
// (checkConnection()) refuses it before any socket. Everything is awaited on the caller's
// event loop; nothing blocks it.
// abort() ends a probe in progress at once with "probe aborted".
class TargetProbe : public QObject {
    Q_OBJECT

public:
    explicit TargetProbe(QObject* parent = nullptr);
    ~TargetProbe() override;

    // `target` is copied before the first suspension, so a temporary is fine.
    QCoro::Task<ProbeResult> probe(Target target,
                                   std::chrono::milliseconds timeout = kDefaultProbeTimeout);
    void abort();

    // The bytes of the last HTTP request sent (empty before one was).
    QByteArray sentRequest() const { return m_sentRequest; }

private:
    // An https probe verifies as the engine does (the spec's CA file,
    // --insecure, client certificate, TLS version).
    static Result<void> configureTls(QSslSocket& socket, const engine::TlsSpec& tls);
    // Resumes after the next event of the probe (socket, reply, deadline, abort).
    QCoro::Task<> nextEvent();

    ProbeWakeup* m_wakeup = nullptr;
    QPointer<QAbstractSocket> m_socket;
    QByteArray m_sentRequest;
    bool m_aborted = false;
};

// Convenience for a one-off probe that nobody needs to abort.
QCoro::Task<ProbeResult> probeTarget(Target target,
                                     std::chrono::milliseconds timeout = kDefaultProbeTimeout);

} // namespace loadscope::app

Q_DECLARE_METATYPE(loadscope::app::ProbeResult)
