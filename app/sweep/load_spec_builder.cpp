#include "app/sweep/load_spec_builder.h"

#include "app/common/checked_file_reader.h"
#include "app/report/error_reply_counting_protocol.h"
#include "engine/available_memory.h"
#include "engine/http2_protocol.h"
#include "engine/http_protocol.h"
#include "engine/redis_protocol.h"
#include "engine/tcp_protocol.h"
#include "engine/udp_protocol.h"

#include <QCoroSignal>
#include <QFileInfo>
#include <QHostAddress>
#include <QHostInfo>
#include <QObject>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>
#include <utility>

namespace loadscope::app {

namespace {

using std::chrono::duration;
using std::chrono::duration_cast;
using std::chrono::nanoseconds;

// A preload of more keys would run for many minutes and outgrow any memcached.
constexpr uint64_t kMaxPreloadKeys = 100'000'000;

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

// Inside the lab (`lab sandbox` sets LOADSCOPE_LAB_SERVER_HOST_PID for its command), the server
// host's network counters are read through the process the lab keeps in its namespace; the
// client's, the server's and the machine's the engine finds itself.
std::vector<engine::NetNamespaceSource> labNetNamespaces() {
    bool ok = false;
    const int pid = qEnvironmentVariableIntValue("LOADSCOPE_LAB_SERVER_HOST_PID", &ok);
    if (!ok || pid <= 0)
        return {};
    return {{engine::NetRole::ServerHost, pid}};
}

Error engineProblem(const std::string& problem) {
    return invalidInput(QString::fromStdString(problem));
}

struct HttpParts {
    std::shared_ptr<const engine::Protocol> protocol;
    Endpoint endpoint;
    engine::TlsSpec tls;
};

// The TLS options of `options` (HttpOptions for https, TcpRrOptions for raw TLS), checked.
template <typename Options>
Result<engine::TlsSpec> tlsSpec(const Options& options, bool enabled, std::string serverName) {
    engine::TlsSpec tls;
    tls.enabled = enabled;
    tls.serverName = std::move(serverName);
    tls.verify = !options.tlsInsecure;
    tls.caFile = options.tlsCaFile.trimmed().toStdString();
    tls.certFile = options.tlsCertFile.trimmed().toStdString();
    tls.keyFile = options.tlsKeyFile.trimmed().toStdString();
    tls.resume = options.tlsResume;
    const QString version = options.tlsVersion.trimmed();
    if (auto checked = checkTlsVersion(version); !checked)
        return checked.error();
    if (auto checked = checkTlsClientKey(options.tlsCertFile, options.tlsKeyFile); !checked)
        return checked.error();
    if (version == QLatin1String("1.2"))
        tls.version = engine::TlsVersion::Tls12;
    else if (version == QLatin1String("1.3"))
        tls.version = engine::TlsVersion::Tls13;
    if (!enabled)
        return tls;
    // Read here, through the checked reader, never by OpenSSL from the path
    // (engine/tls_pem.h): a FIFO or a device is refused at once. A CA file
    // serves only verification: with --insecure it is not read.
    const auto read = [](const QString& what, const std::string& path,
                         std::string& into) -> Result<void> {
        if (path.empty())
            return {};
        auto text = readPemFile(what, QString::fromStdString(path));
        if (!text)
            return text.error();
        into = std::move(*text);
        return {};
    };
    if (tls.verify)
        if (auto done = read(QStringLiteral("CA file"), tls.caFile, tls.caPem); !done)
            return done.error();
    if (auto done = read(QStringLiteral("client certificate"), tls.certFile, tls.certPem); !done)
        return done.error();
    if (auto done = read(QStringLiteral("client key"), tls.keyFile, tls.keyPem); !done)
        return done.error();
    return tls;
}

Result<HttpParts> httpProtocol(const HttpOptions& options) {
    std::string urlError;
    const auto url = engine::parseHttpUrl(options.url.trimmed().toStdString(), &urlError);
    if (!url)
        return engineProblem(urlError);
    engine::HttpRequestSpec request;
    request.host = url->hostHeader;
    request.pathAndQuery = url->pathAndQuery;
    request.keepAlive = options.keepAlive;
    request.acceptVariableLength = options.acceptVariableLength;
    request.http10 = options.http10;
    // A method, header or content type goes on the wire as typed: each is
    // checked so that none can end the line and start another request.
    if (auto checked = checkHttpMethod(options.method); !checked)
        return checked.error();
    request.method = options.method.trimmed().toUpper().toStdString();
    if (!options.bodyFile.isEmpty()) {
        if (auto checked = checkContentType(options.contentType); !checked)
            return checked.error();
        // Held twice for the whole run (the spec and the request bytes built
        // from it), and once more while it is read; never once per connection.
        const qint64 size = QFileInfo(options.bodyFile).size();
        if (const auto problem =
                engine::requestMemoryProblem(3 * uint64_t(std::max<qint64>(size, 0)),
                                             "body file " + options.bodyFile.toStdString() +
                                                 " of " + std::to_string(size) + " bytes"))
            return engineProblem(*problem);
        const Result<QByteArray> body = readRegularFile(options.bodyFile, kMaxBodyFileBytes);
        if (!body) {
            QString problem = body.error().message;
            problem.remove(QStringLiteral("cannot be read: "));
            return makeError(
                body.error().code,
                QStringLiteral("cannot read body file %1: %2").arg(body.error().file, problem));
        }
        request.body.assign(body->constData(), size_t(body->size()));
        request.contentType = options.contentType.isEmpty() ? std::string("text/plain")
                                                            : options.contentType.toStdString();
    }
    for (const auto& [name, value] : options.headers) {
        if (auto checked = checkHeaderName(name); !checked)
            return checked.error();
        if (auto checked = checkHeaderValue(name, value); !checked)
            return checked.error();
        request.headers.emplace_back(name.trimmed().toStdString(), value.trimmed().toStdString());
    }
    if (auto checked = checkHttp2(options); !checked)
        return checked.error();
    if (options.pipeline > 1 && !options.keepAlive)
        return invalidInput(QStringLiteral("pipelining needs keep-alive"));
    auto tls = tlsSpec(options, url->tls, url->host);
    if (!tls)
        return tls.error();
    try {
        if (options.http2) {
            engine::Http2Settings settings;
            settings.windowBits = options.windowBits;
            settings.connectionWindowBits = options.connectionWindowBits;
            settings.tls = url->tls;
            if (url->tls)
                tls->alpn = engine::kAlpnHttp2;
            return HttpParts{
                std::make_shared<const engine::Http2Protocol>(std::move(request), settings),
                Endpoint{QString::fromStdString(url->host), url->port}, *tls};
        }
        return HttpParts{std::make_shared<const engine::HttpProtocol>(std::move(request)),
                         Endpoint{QString::fromStdString(url->host), url->port}, *tls};
    } catch (const std::bad_alloc&) {
        // The estimate above passed, but the memory went elsewhere meanwhile.
        return invalidInput(QStringLiteral("not enough memory to build the request"));
    }
}

Result<std::shared_ptr<const engine::Protocol>>
socketProtocol(const Target& target, int concurrency, const SweepPlan& plan) {
    switch (target.protocol) {
    case TargetProtocol::Http:
        break; // see httpProtocol()
    case TargetProtocol::Memcache: {
        auto spec = memcacheWorkload(target.memcache, concurrency);
        if (!spec)
            return spec.error();
        if (target.memcache.preload) {
            const uint64_t keys = engine::MemcachePreloadProtocol(*spec).keyCount();
            if (keys > kMaxPreloadKeys)
                return invalidInput(QStringLiteral("a preload of %1 keys is more than %2: narrow "
                                                   "the key range")
                                        .arg(keys)
                                        .arg(kMaxPreloadKeys));
        }
        // The engine counts every error reply as one Exception; the wrapper
        // tells ERROR, CLIENT_ERROR and SERVER_ERROR apart.
        return std::shared_ptr<const engine::Protocol>(
            std::make_shared<const ErrorReplyCountingProtocol>(
                std::make_shared<const engine::MemcacheProtocol>(std::move(*spec))));
    }
    case TargetProtocol::Redis: {
        auto spec = redisWorkload(target.redis, concurrency);
        if (!spec)
            return spec.error();
        if (target.redis.workload.preload) {
            const uint64_t keys = engine::RedisPreloadProtocol(*spec).keyCount();
            if (keys > kMaxPreloadKeys)
                return invalidInput(QStringLiteral("a preload of %1 keys is more than %2: narrow "
                                                   "the key range")
                                        .arg(keys)
                                        .arg(kMaxPreloadKeys));
        }
        // Error replies are told apart by their class in the engine itself
        // (ProtocolSession::errorReplyCode()): no wrapper.
        return std::shared_ptr<const engine::Protocol>(
            std::make_shared<const engine::RedisProtocol>(std::move(*spec)));
    }
    case TargetProtocol::TcpRr: {
        if (target.tcpRr.requestSize < 1 || target.tcpRr.responseSize < 1)
            return invalidInput(
                QStringLiteral("request and response sizes must be at least 1 byte"));
        engine::TcpRrSpec spec;
        spec.requestSize = uint32_t(target.tcpRr.requestSize);
        spec.responseSize = uint32_t(target.tcpRr.responseSize);
        spec.connectPerTransaction = target.tcpRr.connectPerRequest;
        if (const auto problem = engine::validateTcpRrSpec(spec))
            return engineProblem(*problem);
        return std::shared_ptr<const engine::Protocol>(
            std::make_shared<const engine::TcpRrProtocol>(spec));
    }
    case TargetProtocol::TcpStream: {
        if (plan.limit != PointLimit::Duration)
            return invalidInput(QStringLiteral("tcp-stream sends without replies, so its points "
                                               "need a duration, not a request count"));
        if (target.tcpStream.chunkSize < 1)
            return invalidInput(QStringLiteral("chunk size must be at least 1 byte"));
        engine::TcpStreamSpec spec;
        spec.chunkSize = uint32_t(target.tcpStream.chunkSize);
        if (const auto problem = engine::validateTcpStreamSpec(spec))
            return engineProblem(*problem);
        return std::shared_ptr<const engine::Protocol>(
            std::make_shared<const engine::TcpStreamProtocol>(spec));
    }
    case TargetProtocol::UdpRr: {
        if (auto checked = checkUdpRr(target.udpRr); !checked)
            return checked.error();
        engine::UdpRrSpec spec;
        spec.requestSize = uint32_t(target.udpRr.requestSize);
        spec.responseSize = uint32_t(target.udpRr.responseSize);
        if (const auto problem = engine::validateUdpRrSpec(spec))
            return engineProblem(*problem);
        return std::shared_ptr<const engine::Protocol>(
            std::make_shared<const engine::UdpRrProtocol>(spec));
    }
    case TargetProtocol::UdpStream: {
        if (plan.limit != PointLimit::Duration)
            return invalidInput(QStringLiteral("udp-stream sends without replies, so its points "
                                               "need a duration, not a request count"));
        if (auto checked = checkUdpStream(target.udpStream); !checked)
            return checked.error();
        engine::UdpStreamSpec spec;
        spec.messageSize = uint32_t(target.udpStream.messageSize);
        if (const auto problem = engine::validateUdpStreamSpec(spec))
            return engineProblem(*problem);
        return std::shared_ptr<const engine::Protocol>(
            std::make_shared<const engine::UdpStreamProtocol>(spec));
    }
    }
    return makeError(ErrorCode::Internal, QStringLiteral("unknown protocol"));
}

int pipelineOf(const Target& target) {
    switch (target.protocol) {
    case TargetProtocol::Http:
        return target.http.http2 ? target.http.maxConcurrentStreams : target.http.pipeline;
    case TargetProtocol::Memcache:
        return target.memcache.pipeline;
    case TargetProtocol::UdpRr:
        return 1 + target.udpRr.burst;
    case TargetProtocol::Redis:
        return target.redis.workload.pipeline;
    case TargetProtocol::TcpRr:
    case TargetProtocol::TcpStream:
    case TargetProtocol::UdpStream:
        break;
    }
    return 1;
}

} // namespace

namespace {

// memtier's workload model as memcached and Redis share it, checked by the
// rules they share; each protocol's own follow.
Result<engine::MemcacheSpec> workloadSpec(const MemcacheOptions& options, int connections) {
    engine::MemcacheSpec spec;
    if (options.setRatio < 0 || options.getRatio < 0 || options.setRatio + options.getRatio == 0)
        return invalidInput(QStringLiteral("ratio %1:%2 sends nothing")
                                .arg(options.setRatio)
                                .arg(options.getRatio));
    spec.setRatio = uint32_t(options.setRatio);
    spec.getRatio = uint32_t(options.getRatio);
    if (auto checked = checkKeyPattern(options.keyPattern); !checked)
        return checked.error();
    engine::parseMemcacheKeyPatterns(options.keyPattern.trimmed().toUpper().toStdString(),
                                     spec.setKeyPattern, spec.getKeyPattern);
    if (options.keyMinimum > options.keyMaximum)
        return invalidInput(QStringLiteral("the key minimum (%1) is greater than the key "
                                           "maximum (%2)")
                                .arg(options.keyMinimum)
                                .arg(options.keyMaximum));
    spec.keyMinimum = options.keyMinimum;
    spec.keyMaximum = options.keyMaximum;
    if (!(std::isfinite(options.keyStddev) && options.keyStddev >= 0))
        return invalidInput(QStringLiteral("the key standard deviation cannot be negative"));
    spec.keyStddev = options.keyStddev;
    spec.keyMedian = options.keyMedian;
    spec.keyPrefix = options.keyPrefix.toStdString();
    if (options.valueSize < 1)
        return invalidInput(QStringLiteral("value size must be at least 1 byte"));
    spec.valueSize = uint32_t(options.valueSize);
    spec.connections = uint32_t(std::max(connections, 1));
    return spec;
}

} // namespace

Result<engine::MemcacheSpec> memcacheWorkload(const MemcacheOptions& options, int connections) {
    auto spec = workloadSpec(options, connections);
    if (!spec)
        return spec.error();
    if (const auto problem = engine::validateMemcacheSpec(*spec))
        return engineProblem(*problem);
    return spec;
}

Result<engine::RedisSpec> redisWorkload(const RedisOptions& options, int connections) {
    engine::RedisSpec spec;
    if (auto checked = checkRedisProtocol(options.protocol); !checked)
        return checked.error();
    const QString protocol = options.protocol.trimmed();
    spec.handshake = protocol == QLatin1String("resp3")   ? engine::RedisHandshake::Resp3
                     : protocol == QLatin1String("resp2") ? engine::RedisHandshake::Resp2
                                                          : engine::RedisHandshake::None;
    MemcacheOptions workload = options.workload;
    if (!options.commands.empty() && workload.setRatio + workload.getRatio <= 0)
        workload.setRatio = 1; // the commands replace the ratio, which then says nothing
    auto common = workloadSpec(workload, connections);
    if (!common)
        return common.error();
    spec.workload = std::move(*common);
    for (const RedisCommand& command : options.commands) {
        if (auto checked = checkRedisCommand(command); !checked)
            return checked.error();
        engine::RedisCommandSpec parsed;
        engine::parseRedisCommand(command.command.toStdString(), parsed.arguments);
        parsed.ratio = uint32_t(command.ratio);
        parsed.keyPattern = *engine::keyPatternFromLetter(
            command.keyPattern.trimmed().toUpper().front().toLatin1());
        spec.commands.push_back(std::move(parsed));
    }
    if (const auto problem = engine::validateRedisSpec(spec))
        return engineProblem(*problem);
    return spec;
}

Result<LoadSpecDraft> draftLoadSpec(const Target& target, int concurrency, const SweepPlan& plan,
                                    double rate) {
    LoadSpecDraft draft;
    engine::LoadSpec& spec = draft.spec;
    if (target.protocol == TargetProtocol::Http) {
        auto http = httpProtocol(target.http);
        if (!http)
            return http.error();
        spec.protocol = std::move(http->protocol);
        draft.endpoint = http->endpoint;
        spec.tls = std::move(http->tls);
    } else {
        if (target.address.trimmed().isEmpty())
            return invalidInput(QStringLiteral("no address given (HOST:PORT)"));
        auto protocol = socketProtocol(target, concurrency, plan);
        if (!protocol)
            return protocol.error();
        spec.protocol = std::move(*protocol);
        if (target.protocol == TargetProtocol::TcpRr && target.tcpRr.tls) {
            auto endpoint = parseEndpoint(target.address);
            if (!endpoint)
                return endpoint.error();
            auto tls = tlsSpec(target.tcpRr, true, endpoint->host.toStdString());
            if (!tls)
                return tls.error();
            spec.tls = std::move(*tls);
            spec.tls.alpn.clear(); // raw TLS names no application protocol
        }
    }
    // For http an address sends the connections elsewhere than the URL says
    // (a proxy, a NAT port) while the URL still gives Host and path.
    if (!target.address.trimmed().isEmpty()) {
        auto endpoint = parseEndpoint(target.address);
        if (!endpoint)
            return endpoint.error();
        draft.endpoint = *endpoint;
    }

    // Every quantity within its one range before any arithmetic turns it
    // into the engine's (nanoseconds, a schedule's gaps): the agent's
    // requests come here without a plan check of their own.
    if (concurrency < 1 || concurrency > kMaxConcurrency)
        return invalidInput(QStringLiteral("concurrency %1 is out of range (1 to %2)")
                                .arg(concurrency)
                                .arg(kMaxConcurrency));
    if (!(std::isfinite(target.responseTimeoutSeconds) && target.responseTimeoutSeconds > 0))
        return invalidInput(QStringLiteral("the response timeout must be more than 0 seconds"));
    if (auto checked = checkSeconds(QStringLiteral("the response timeout"),
                                    target.responseTimeoutSeconds, kMinSeconds);
        !checked)
        return checked.error();
    if (plan.limit == PointLimit::Duration)
        if (auto checked = checkSeconds(QStringLiteral("duration per point"), plan.durationSeconds,
                                        kMinSeconds);
            !checked)
            return checked.error();
    for (const auto& [what, seconds] :
         {std::pair{QStringLiteral("time limit per point"), plan.requestsTimeLimitSeconds},
          std::pair{QStringLiteral("warm-up"), plan.warmupSeconds}})
        if (auto checked = checkSeconds(what, seconds, 0); !checked)
            return checked.error();
    if (plan.timerSlackUs < 0 || plan.timerSlackUs > kMaxTimerSlackUs)
        return invalidInput(QStringLiteral("timer slack must be 0 to %1 us").arg(kMaxTimerSlackUs));
    if (plan.threads < 0 || plan.threads > kMaxThreads)
        return invalidInput(
            QStringLiteral("threads must be 0 (one per core) to %1").arg(kMaxThreads));
    if (auto checked = checkCpusExist(plan.cpus); !checked)
        return checked.error();
    if (rate != 0)
        if (auto checked = checkRate(rate); !checked)
            return checked.error();
    spec.concurrency = uint32_t(concurrency);
    spec.rate = rate;
    spec.arrival = plan.arrival;
    spec.timerSlack = std::chrono::microseconds(plan.timerSlackUs);
    spec.wakeCoalescing = plan.wakeCoalescing;
    spec.profile = plan.profile;
    spec.threads = threadCount(plan.threads);
    spec.pipeline = uint32_t(std::max(1, pipelineOf(target)));
    spec.cpus = plan.cpus;
    spec.warmup = seconds(std::max(0.0, plan.warmupSeconds));
    spec.requestTimeout = seconds(target.responseTimeoutSeconds);
    if (plan.limit == PointLimit::Requests) {
        spec.requests = plan.requestsPerPoint;
        if (auto checked = checkRequestsCoverConcurrency(spec.requests, spec.concurrency); !checked)
            return checked.error();
        if (plan.requestsTimeLimitSeconds > 0)
            spec.duration = seconds(plan.requestsTimeLimitSeconds);
    } else {
        spec.duration = seconds(plan.durationSeconds);
    }
    spec.netNamespaces = labNetNamespaces();
    return draft;
}

QCoro::Task<Result<engine::SocketAddress>> resolveEndpoint(Endpoint endpoint) {
    const std::string host = endpoint.host.toStdString();
    if (auto numeric = engine::SocketAddress::fromNumeric(host, endpoint.port))
        co_return *numeric;
    // Deleted later, not at the end of this scope: QCoro resumes the
    // coroutine from an event delivered to the lookup object itself.
    auto* lookup = new HostLookup;
    QHostInfo::lookupHost(endpoint.host, lookup,
                          [lookup](const QHostInfo& info) { lookup->deliver(info); });
    const QHostInfo info = co_await qCoro(lookup, &HostLookup::lookupFinished);
    lookup->deleteLater();
    if (info.error() != QHostInfo::NoError || info.addresses().isEmpty())
        co_return makeError(ErrorCode::Unreachable,
                            QStringLiteral("cannot resolve host '%1': %2")
                                .arg(endpoint.host, info.error() == QHostInfo::NoError
                                                        ? QStringLiteral("no address")
                                                        : info.errorString()));
    // Prefer IPv4 as ab and wrk effectively do: "localhost" then means 127.0.0.1.
    const QList<QHostAddress> addresses = info.addresses();
    const auto v4 = std::find_if(addresses.begin(), addresses.end(), [](const QHostAddress& a) {
        return a.protocol() == QAbstractSocket::IPv4Protocol;
    });
    const QHostAddress chosen = v4 != addresses.end() ? *v4 : addresses.first();
    if (auto address =
            engine::SocketAddress::fromNumeric(chosen.toString().toStdString(), endpoint.port))
        co_return *address;
    co_return makeError(ErrorCode::Unreachable,
                        QStringLiteral("host '%1' resolved to an unusable address %2")
                            .arg(endpoint.host, chosen.toString()));
}

Result<std::optional<engine::LoadSpec>> memcachePreloadSpec(const Target& target,
                                                            const engine::LoadSpec& measured) {
    std::shared_ptr<const engine::Protocol> protocol;
    uint64_t keyCount = 0;
    uint64_t span = 0; // keys - 1, never overflows
    if (target.protocol == TargetProtocol::Memcache && target.memcache.preload) {
        auto spec = memcacheWorkload(target.memcache, 1);
        if (!spec)
            return spec.error();
        auto memcache = std::make_shared<const engine::MemcachePreloadProtocol>(*spec);
        keyCount = memcache->keyCount();
        span = spec->keyMaximum - spec->keyMinimum;
        protocol = std::move(memcache);
    } else if (target.protocol == TargetProtocol::Redis && target.redis.workload.preload) {
        auto spec = redisWorkload(target.redis, 1);
        if (!spec)
            return spec.error();
        auto redis = std::make_shared<const engine::RedisPreloadProtocol>(*spec);
        keyCount = redis->keyCount();
        span = spec->workload.keyMaximum - spec->workload.keyMinimum;
        protocol = std::move(redis);
    } else {
        return std::optional<engine::LoadSpec>();
    }
    // A few connections per thread keep every worker busy without making the
    // preload itself a concurrency test; the protocol covers the range once
    // however the engine spreads the requests over them.
    const uint32_t threads = std::max(measured.threads, 1u);
    uint64_t connections = uint64_t(threads) * 4;
    if (span < connections - 1)
        connections = span + 1;
    engine::LoadSpec preload;
    preload.target = measured.target;
    preload.threads = threads;
    preload.cpus = measured.cpus;
    preload.concurrency = uint32_t(connections);
    preload.pipeline = measured.pipeline;
    preload.requestTimeout = measured.requestTimeout;
    preload.requests = keyCount;
    preload.protocol = std::move(protocol);
    return std::optional<engine::LoadSpec>(std::move(preload));
}

} // namespace loadscope::app

#include "load_spec_builder.moc"
