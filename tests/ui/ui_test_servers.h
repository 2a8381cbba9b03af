#pragma once

// The ui suites' servers: the embedded HTTP server and a userland proxy in
// front of it on loopback ports the kernel picks, and a session comparing
// the two ("direct" vs "proxy") the way the demo session does.

#include "app/servers/http_server.h"
#include "app/servers/tcp_proxy.h"
#include "app/session/session.h"

#include <QString>
#include <memory>
#include <string>

namespace loadscope::test {

// Started by the constructor (on `httpPort` and `proxyPort` when given and
// free, else on ports the kernel picks), stopped by the destructor.
class UiHttpServers {
public:
    explicit UiHttpServers(uint16_t httpPort = 0, uint16_t proxyPort = 0) {
        if (!startHttp(httpPort) && !(httpPort != 0 && startHttp(0)))
            return;
        if (!startProxy(proxyPort) && !(proxyPort != 0 && startProxy(0)))
            m_proxy.reset();
    }
    ~UiHttpServers() {
        if (m_proxy)
            m_proxy->stop();
        if (m_http)
            m_http->stop();
    }
    UiHttpServers(const UiHttpServers&) = delete;
    UiHttpServers& operator=(const UiHttpServers&) = delete;

    bool isRunning() const { return m_http && m_proxy; }
    QString error() const { return m_error; }
    quint16 httpPort() const { return m_http->port(); }
    quint16 proxyPort() const { return m_proxy->port(); }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1/").arg(httpPort()); }
    QString proxyUrl() const { return QStringLiteral("http://127.0.0.1:%1/").arg(proxyPort()); }

private:
    bool startHttp(uint16_t port) {
        app::HttpServerConfig config;
        config.port = port;
        config.threads = 2;
        m_http = std::make_unique<app::HttpServer>(config);
        return started(m_http);
    }
    bool startProxy(uint16_t port) {
        app::TcpProxyConfig config;
        config.port = port;
        config.upstreamPort = m_http->port();
        m_proxy = std::make_unique<app::TcpProxy>(config);
        return started(m_proxy);
    }

    // Starts `server`, or keeps why it did not start and lets it go.
    template <typename Server> bool started(std::unique_ptr<Server>& server) {
        if (const auto result = server->start(); !result) {
            m_error = result.error().toString();
            server.reset();
        }
        return server != nullptr;
    }

    QString m_error;
    std::unique_ptr<app::HttpServer> m_http;
    std::unique_ptr<app::TcpProxy> m_proxy;
};

// direct vs proxy: one target straight to the server, one through the
// relay; levels 1 and 4, two repetitions of `requests` requests, one engine
// thread: eight short points.
inline app::Session directVsProxy(const UiHttpServers& servers, uint64_t requests = 300) {
    app::Session session;
    session.name = QStringLiteral("direct vs proxy");
    app::Target direct = app::makeTarget(QStringLiteral("direct"), app::DeploymentMode::Host, 0);
    direct.http.url = servers.url();
    app::Target proxy =
        app::makeTarget(QStringLiteral("proxy"), app::DeploymentMode::UserlandProxy, 1);
    proxy.http.url = servers.proxyUrl();
    session.targets = {direct, proxy};
    session.baselineTargetId = direct.id;
    session.plan.concurrencyLevels = {1, 4};
    session.plan.limit = app::PointLimit::Requests;
    session.plan.requestsPerPoint = requests;
    session.plan.threads = 1;
    session.plan.repetitions = 2;
    session.plan.order = app::SweepOrder::Interleaved;
    return session;
}

} // namespace loadscope::test
