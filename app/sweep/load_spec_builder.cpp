#include "app/sweep/load_spec_builder.h"

#include "engine/http_protocol.h"
#include "engine/memcache_protocol.h"
#include "engine/tcp_protocol.h"

#include <QCoroSignal>
#include <QFile>
#include <QHostAddress>
#include <QHostInfo>
#include <QObject>
#include <QThread>
#include <algorithm>
#include <chrono>

namespace loadscope::app {

namespace {

using std::chrono::duration;
using std::chrono::duration_cast;
using std::chrono::nanoseconds;

// QHostInfo reports through a callback; a signal turns it into something a
// coroutine can await on the caller's own event loop.
class HostLookup : public QObject {
    Q_OBJECT

public:
    void deliver(const QHostInfo& info) { Q_EMIT lookupFinished(info); }

Q_SIGNALS:
    void lookupFinished(const QHostInfo& info);
};

nanoseconds seconds(double s) {
    return duration_cast<nanoseconds>(duration<double>(s));
}

std::optional<std::shared_ptr<const engine::Protocol>>
httpProtocol(const HttpOptions& options, Endpoint* endpoint, QString* error) {
    std::string urlError;
    const auto url = engine::parseHttpUrl(options.url.toStdString(), &urlError);
    if (!url) {
        *error = QString::fromStdString(urlError);
        return std::nullopt;
    }
    engine::HttpRequestSpec request;
    request.host = url->hostHeader;
    request.pathAndQuery = url->pathAndQuery;
    request.keepAlive = options.keepAlive;
    if (!options.method.trimmed().isEmpty())
        request.method = options.method.trimmed().toUpper().toStdString();
    if (!options.bodyFile.isEmpty()) {
        QFile file(options.bodyFile);
        if (!file.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("cannot read body file %1: %2")
                         .arg(options.bodyFile, file.errorString());
            return std::nullopt;
        }
        request.body = file.readAll().toStdString();
        request.contentType = options.contentType.isEmpty() ? std::string("text/plain")
                                                            : options.contentType.toStdString();
    }
    for (const auto& [name, value] : options.headers) {
        if (name.trimmed().isEmpty()) {
            *error = QStringLiteral("a header without a name (value '%1')").arg(value);
            return std::nullopt;
        }
        request.headers.emplace_back(name.trimmed().toStdString(), value.trimmed().toStdString());
    }
    if (options.pipeline > 1 && !options.keepAlive) {
        *error = QStringLiteral("pipelining needs keep-alive");
        return std::nullopt;
    }
    *endpoint = {QString::fromStdString(url->host), url->port};
    return std::make_shared<const engine::HttpProtocol>(std::move(request));
}

std::optional<engine::MemcacheSpec> memcacheSpec(const MemcacheOptions& options, int concurrency,
                                                 QString* error) {
    engine::MemcacheSpec spec;
    if (options.setRatio < 0 || options.getRatio < 0 || options.setRatio + options.getRatio == 0) {
        *error =
            QStringLiteral("ratio %1:%2 sends nothing").arg(options.setRatio).arg(options.getRatio);
        return std::nullopt;
    }
    spec.setRatio = uint32_t(options.setRatio);
    spec.getRatio = uint32_t(options.getRatio);
    if (!engine::parseMemcacheKeyPatterns(options.keyPattern.toStdString(), spec.setKeyPattern,
                                          spec.getKeyPattern)) {
        *error =
            QStringLiteral("key pattern '%1' is not SET:GET of R, S or G").arg(options.keyPattern);
        return std::nullopt;
    }
    spec.keyMinimum = options.keyMinimum;
    spec.keyMaximum = options.keyMaximum;
    spec.keyPrefix = options.keyPrefix.toStdString();
    if (options.valueSize < 0) {
        *error = QStringLiteral("value size cannot be negative");
        return std::nullopt;
    }
    spec.valueSize = uint32_t(options.valueSize);
    spec.connections = uint32_t(std::max(concurrency, 1));
    if (const auto problem = engine::validateMemcacheSpec(spec)) {
        *error = QString::fromStdString(*problem);
        return std::nullopt;
    }
    return spec;
}

std::optional<std::shared_ptr<const engine::Protocol>>
protocolFor(const Target& target, int concurrency, const SweepPlan& plan, QString* error) {
    switch (target.protocol) {
    case TargetProtocol::Http:
        break; // needs the endpoint too; see draftLoadSpec()
    case TargetProtocol::Memcache: {
        auto spec = memcacheSpec(target.memcache, concurrency, error);
        if (!spec)
            return std::nullopt;
        return std::make_shared<const engine::MemcacheProtocol>(std::move(*spec));
    }
    case TargetProtocol::TcpRr: {
        if (target.tcpRr.requestSize < 1 || target.tcpRr.responseSize < 1) {
            *error = QStringLiteral("request and response sizes must be at least 1 byte");
            return std::nullopt;
        }
        engine::TcpRrSpec spec;
        spec.requestSize = uint32_t(target.tcpRr.requestSize);
        spec.responseSize = uint32_t(target.tcpRr.responseSize);
        spec.connectPerTransaction = target.tcpRr.connectPerRequest;
        if (const auto problem = engine::validateTcpRrSpec(spec)) {
            *error = QString::fromStdString(*problem);
            return std::nullopt;
        }
        return std::make_shared<const engine::TcpRrProtocol>(spec);
    }
    case TargetProtocol::TcpStream: {
        if (plan.limit != PointLimit::Duration) {
            *error = QStringLiteral("tcp-stream sends without replies, so its points need a "
                                    "duration, not a request count");
            return std::nullopt;
        }
        if (target.tcpStream.chunkSize < 1) {
            *error = QStringLiteral("chunk size must be at least 1 byte");
            return std::nullopt;
        }
        engine::TcpStreamSpec spec;
        spec.chunkSize = uint32_t(target.tcpStream.chunkSize);
        if (const auto problem = engine::validateTcpStreamSpec(spec)) {
            *error = QString::fromStdString(*problem);
            return std::nullopt;
        }
        return std::make_shared<const engine::TcpStreamProtocol>(spec);
    }
    }
    *error = QStringLiteral("unknown protocol");
    return std::nullopt;
}

int pipelineOf(const Target& target) {
    switch (target.protocol) {
    case TargetProtocol::Http:
        return target.http.pipeline;
    case TargetProtocol::Memcache:
        return target.memcache.pipeline;
    case TargetProtocol::TcpRr:
    case TargetProtocol::TcpStream:
        break;
    }
    return 1;
}

} // namespace

uint32_t planThreadCount(const SweepPlan& plan) {
    if (plan.threads > 0)
        return uint32_t(plan.threads);
    return uint32_t(std::max(1, QThread::idealThreadCount()));
}

std::optional<Endpoint> parseEndpoint(const QString& text, QString* error) {
    const QString trimmed = text.trimmed();
    QString host;
    QString portText;
    if (trimmed.startsWith(QLatin1Char('['))) {
        const qsizetype close = trimmed.indexOf(QLatin1Char(']'));
        if (close < 0 || trimmed.mid(close + 1, 1) != QLatin1String(":")) {
            *error = QStringLiteral("address '%1' is not [IPv6]:PORT").arg(text);
            return std::nullopt;
        }
        host = trimmed.mid(1, close - 1);
        portText = trimmed.mid(close + 2);
    } else {
        const qsizetype colon = trimmed.lastIndexOf(QLatin1Char(':'));
        if (colon <= 0 || trimmed.indexOf(QLatin1Char(':')) != colon) {
            *error = QStringLiteral("address '%1' is not HOST:PORT").arg(text);
            return std::nullopt;
        }
        host = trimmed.left(colon);
        portText = trimmed.mid(colon + 1);
    }
    bool ok = false;
    const uint port = portText.toUInt(&ok);
    if (!ok || port == 0 || port > 65535 || host.isEmpty()) {
        *error = QStringLiteral("address '%1' needs a host and a port from 1 to 65535").arg(text);
        return std::nullopt;
    }
    return Endpoint{host, quint16(port)};
}

std::optional<LoadSpecDraft> draftLoadSpec(const Target& target, int concurrency,
                                           const SweepPlan& plan, QString* error) {
    LoadSpecDraft draft;
    engine::LoadSpec& spec = draft.spec;
    if (target.protocol == TargetProtocol::Http) {
        auto protocol = httpProtocol(target.http, &draft.endpoint, error);
        if (!protocol)
            return std::nullopt;
        spec.protocol = std::move(*protocol);
    } else {
        if (target.address.trimmed().isEmpty()) {
            *error = QStringLiteral("no address given (HOST:PORT)");
            return std::nullopt;
        }
        auto protocol = protocolFor(target, concurrency, plan, error);
        if (!protocol)
            return std::nullopt;
        spec.protocol = std::move(*protocol);
    }
    // For http an address sends the connections elsewhere than the URL says
    // (a proxy, a NAT port) while the URL still gives Host and path.
    if (!target.address.trimmed().isEmpty()) {
        auto endpoint = parseEndpoint(target.address, error);
        if (!endpoint)
            return std::nullopt;
        draft.endpoint = *endpoint;
    }

    if (concurrency < 1 || concurrency > kMaxConcurrency) {
        *error = QStringLiteral("concurrency %1 is out of range").arg(concurrency);
        return std::nullopt;
    }
    spec.concurrency = uint32_t(concurrency);
    spec.threads = planThreadCount(plan);
    spec.pipeline = uint32_t(std::max(1, pipelineOf(target)));
    spec.cpus = plan.cpus;
    spec.warmup = seconds(std::max(0.0, plan.warmupSeconds));
    if (plan.limit == PointLimit::Requests) {
        spec.requests = plan.requestsPerPoint;
        if (spec.requests < spec.concurrency) {
            *error = QStringLiteral("%1 requests per point are fewer than concurrency %2")
                         .arg(spec.requests)
                         .arg(concurrency);
            return std::nullopt;
        }
    } else {
        spec.duration = seconds(plan.durationSeconds);
    }
    return draft;
}

QCoro::Task<ResolvedAddress> resolveEndpoint(Endpoint endpoint) {
    ResolvedAddress resolved;
    const std::string host = endpoint.host.toStdString();
    if (auto numeric = engine::SocketAddress::fromNumeric(host, endpoint.port)) {
        resolved.address = *numeric;
        co_return resolved;
    }
    // Deleted later, not at the end of this scope: QCoro resumes the
    // coroutine from an event delivered to the lookup object itself.
    auto* lookup = new HostLookup;
    QHostInfo::lookupHost(endpoint.host, lookup,
                          [lookup](const QHostInfo& info) { lookup->deliver(info); });
    const QHostInfo info = co_await qCoro(lookup, &HostLookup::lookupFinished);
    lookup->deleteLater();
    if (info.error() != QHostInfo::NoError || info.addresses().isEmpty()) {
        resolved.error = QStringLiteral("cannot resolve host '%1': %2")
                             .arg(endpoint.host, info.error() == QHostInfo::NoError
                                                     ? QStringLiteral("no address")
                                                     : info.errorString());
        co_return resolved;
    }
    // Prefer IPv4 as ab and wrk effectively do: "localhost" then means 127.0.0.1.
    const QList<QHostAddress> addresses = info.addresses();
    const auto v4 = std::find_if(addresses.begin(), addresses.end(), [](const QHostAddress& a) {
        return a.protocol() == QAbstractSocket::IPv4Protocol;
    });
    const QHostAddress chosen = v4 != addresses.end() ? *v4 : addresses.first();
    resolved.address =
        engine::SocketAddress::fromNumeric(chosen.toString().toStdString(), endpoint.port);
    if (!resolved.address)
        resolved.error = QStringLiteral("host '%1' resolved to an unusable address %2")
                             .arg(endpoint.host, chosen.toString());
    co_return resolved;
}

QCoro::Task<LoadSpecBuild> buildLoadSpec(Target target, int concurrency, SweepPlan plan) {
    LoadSpecBuild build;
    auto draft = draftLoadSpec(target, concurrency, plan, &build.error);
    if (!draft)
        co_return build;
    const ResolvedAddress resolved = co_await resolveEndpoint(draft->endpoint);
    if (!resolved.address) {
        build.error = resolved.error;
        co_return build;
    }
    draft->spec.target = *resolved.address;
    if (const auto problem = engine::validateLoadSpec(draft->spec)) {
        build.error = QString::fromStdString(*problem);
        co_return build;
    }
    build.spec = std::move(draft->spec);
    co_return build;
}

std::optional<engine::LoadSpec>
memcachePreloadSpec(const Target& target, const engine::LoadSpec& measured, QString* error) {
    if (target.protocol != TargetProtocol::Memcache || !target.memcache.preload)
        return std::nullopt;
    auto spec = memcacheSpec(target.memcache, 1, error);
    if (!spec)
        return std::nullopt;
    // A few connections per thread keep every worker busy without making the
    // preload itself a concurrency test; the protocol covers the range once
    // however the engine spreads the requests over them.
    const uint32_t threads = std::max(measured.threads, 1u);
    const uint64_t span = spec->keyMaximum - spec->keyMinimum; // keys - 1, never overflows
    uint64_t connections = uint64_t(threads) * 4;
    if (span < connections - 1)
        connections = span + 1;
    auto protocol = std::make_shared<const engine::MemcachePreloadProtocol>(*spec);
    engine::LoadSpec preload;
    preload.target = measured.target;
    preload.threads = threads;
    preload.cpus = measured.cpus;
    preload.concurrency = uint32_t(connections);
    preload.pipeline = measured.pipeline;
    preload.requests = protocol->keyCount();
    preload.protocol = std::move(protocol);
    return preload;
}

} // namespace loadscope::app

#include "load_spec_builder.moc"
