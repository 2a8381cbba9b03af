#pragma once

// The sweep suites' fixture: the embedded HTTP server and a userland proxy in
// front of it, both on 127.0.0.1 and ports the kernel picks, and sessions
// comparing the two ("direct" vs "proxy").

#include "app/servers/http_server.h"
#include "app/servers/tcp_proxy.h"
#include "app/session/session.h"

#include <QString>
#include <QTcpServer>
#include <memory>
#include <string>

namespace loadscope::test {

// Started by the constructor, stopped by the destructor.
class HttpPair {
public:
    HttpPair() {
        app::HttpServerConfig httpConfig;
        m_http = std::make_unique<app::HttpServer>(httpConfig);
        if (!started(*m_http))
            return;
        app::TcpProxyConfig proxyConfig;
        proxyConfig.upstreamPort = m_http->port();
        m_proxy = std::make_unique<app::TcpProxy>(proxyConfig);
        if (!started(*m_proxy))
            m_proxy.reset();
    }
    ~HttpPair() {
        if (m_proxy)
            m_proxy->stop();
        m_http->stop();
    }

    bool isRunning() const { return m_proxy != nullptr; }
    QString error() const { return m_error; }
    quint16 httpPort() const { return m_http->port(); }
    quint16 proxyPort() const { return m_proxy->port(); }
    uint64_t httpActiveConnections() const { return m_http->stats().activeConnections; }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1/").arg(httpPort()); }
    QString proxyAddress() const { return QStringLiteral("127.0.0.1:%1").arg(proxyPort()); }

private:
    bool started(app::TcpServer& server) {
        const auto result = server.start();
        if (!result)
            m_error = result.error().toString();
        return result.ok();
    }

    QString m_error;
    std::unique_ptr<app::HttpServer> m_http;
    std::unique_ptr<app::TcpProxy> m_proxy;
};

// A loopback port nobody listens on: bound by the kernel's pick, then released.
inline quint16 refusedPort() {
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return 0;
    const quint16 port = server.serverPort();
    server.close();
    return port;
}

inline app::Target httpTarget(const QString& name, app::DeploymentMode mode, int index,
                              const QString& url, const QString& address = {}) {
    app::Target target = app::makeTarget(name, mode, index);
    target.protocol = app::TargetProtocol::Http;
    target.http.url = url;
    target.address = address;
    return target;
}

// direct vs proxy (same URL, so the same Host header; the proxy target
// connects through the relay), levels 1 and 4, two repetitions: 8 points of
// `requests` requests each, one engine thread.
inline app::Session directVsProxy(const HttpPair& servers, uint64_t requests = 300) {
    app::Session session;
    session.name = QStringLiteral("direct vs proxy");
    session.targets.push_back(
        httpTarget(QStringLiteral("direct"), app::DeploymentMode::Host, 0, servers.url()));
    session.targets.push_back(httpTarget(QStringLiteral("proxy"),
                                         app::DeploymentMode::UserlandProxy, 1, servers.url(),
                                         servers.proxyAddress()));
    session.baselineTargetId = session.targets.front().id;
    session.plan.concurrencyLevels = {1, 4};
    session.plan.limit = app::PointLimit::Requests;
    session.plan.requestsPerPoint = requests;
    session.plan.threads = 1;
    session.plan.repetitions = 2;
    session.plan.order = app::SweepOrder::Interleaved;
    return session;
}

} // namespace loadscope::test
