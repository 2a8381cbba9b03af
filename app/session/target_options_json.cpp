#include "app/session/target_options_json.h"

#include "app/session/target_rules.h"

#include <QJsonArray>
#include <algorithm>
#include <utility>

namespace loadscope::app {

namespace {

constexpr int kMaxPipeline = 1024;

bool isOneOf(const QString& text, const std::vector<QString>& allowed) {
    return std::find(allowed.begin(), allowed.end(), text) != allowed.end();
}

// The "tls" object of HttpOptions (https) and TcpRrOptions (raw TLS), whose TLS fields share
// their names: only the options that differ from their defaults.
template <typename Options> QJsonObject tlsToJson(const Options& options) {
    QJsonObject tls;
    if (options.tlsInsecure)
        tls.insert(QStringLiteral("insecure"), true);
    if (!options.tlsCaFile.isEmpty())
        tls.insert(QStringLiteral("caFile"), options.tlsCaFile);
    if (!options.tlsCertFile.isEmpty())
        tls.insert(QStringLiteral("certFile"), options.tlsCertFile);
    if (!options.tlsKeyFile.isEmpty())
        tls.insert(QStringLiteral("keyFile"), options.tlsKeyFile);
    if (!options.tlsResume)
        tls.insert(QStringLiteral("resume"), false);
    if (!options.tlsVersion.isEmpty())
        tls.insert(QStringLiteral("version"), options.tlsVersion);
    return tls;
}

template <typename Options> void tlsFromJson(const JsonReader& tls, Options& options) {
    options.tlsInsecure = tls.boolean(u"insecure", false);
    options.tlsCaFile = tls.string(u"caFile", {});
    options.tlsCertFile = tls.string(u"certFile", {});
    options.tlsKeyFile = tls.string(u"keyFile", {});
    options.tlsResume = tls.boolean(u"resume", true);
    options.tlsVersion = tls.string(u"version", {});
    if (const auto checked = checkTlsVersion(options.tlsVersion); tls.ok() && !checked)
        tls.failKey(u"version", checked.error().message);
    // The rule's verdict, in the file's own names.
    if (tls.ok() && !checkTlsClientKey(options.tlsCertFile, options.tlsKeyFile))
        tls.failKey(u"keyFile", QStringLiteral("is set without certFile"));
}

} // namespace

QJsonObject httpToJson(const HttpOptions& http) {
    QJsonArray headers;
    for (const auto& [name, value] : http.headers)
        headers.append(
            QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("value"), value}});
    QJsonObject json{
        {QStringLiteral("url"), http.url},
        {QStringLiteral("method"), http.method},
        {QStringLiteral("headers"), headers},
        {QStringLiteral("bodyFile"), http.bodyFile},
        {QStringLiteral("contentType"), http.contentType},
        {QStringLiteral("keepAlive"), http.keepAlive},
        {QStringLiteral("pipeline"), http.pipeline},
    };
    // Written only when set, so that files without it read the same.
    if (http.acceptVariableLength)
        json.insert(QStringLiteral("acceptVariableLength"), true);
    if (http.http10)
        json.insert(QStringLiteral("http10"), true);
    // HTTP/2 options: an object only for an HTTP/2 target.
    if (http.http2)
        json.insert(
            QStringLiteral("http2"),
            QJsonObject{{QStringLiteral("maxConcurrentStreams"), http.maxConcurrentStreams},
                        {QStringLiteral("windowBits"), http.windowBits},
                        {QStringLiteral("connectionWindowBits"), http.connectionWindowBits}});
    // TLS options (https URLs): an object only when one differs from its default.
    if (const QJsonObject tls = tlsToJson(http); !tls.isEmpty())
        json.insert(QStringLiteral("tls"), tls);
    return json;
}

HttpOptions httpFromJson(const JsonReader& json) {
    HttpOptions http;
    http.url = json.string(u"url");
    http.method = json.string(u"method", http.method);
    if (json.ok() && http.method.trimmed().isEmpty())
        json.failKey(u"method", QStringLiteral("is empty"));
    const JsonArrayReader headers = json.array(u"headers", false);
    for (qsizetype i = 0; i < headers.size() && json.ok(); ++i) {
        const JsonReader header = headers.objectAt(i);
        QString name = header.string(u"name");
        if (const auto checked = checkHeaderName(name); header.ok() && !checked)
            header.failKey(u"name", checked.error().message);
        http.headers.emplace_back(std::move(name), header.string(u"value"));
    }
    http.bodyFile = json.string(u"bodyFile", {});
    http.contentType = json.string(u"contentType", {});
    http.keepAlive = json.boolean(u"keepAlive", http.keepAlive);
    http.pipeline = int(json.integer(u"pipeline", 1, kMaxPipeline, http.pipeline));
    http.acceptVariableLength = json.boolean(u"acceptVariableLength", http.acceptVariableLength);
    http.http10 = json.boolean(u"http10", http.http10);
    if (const auto h2 = json.optionalObject(u"http2")) {
        http.http2 = true;
        http.maxConcurrentStreams =
            int(h2->integer(u"maxConcurrentStreams", 1, kMaxHttp2Streams, 1));
        http.windowBits = int(h2->integer(u"windowBits", 0, kMaxHttp2WindowBits, http.windowBits));
        http.connectionWindowBits = int(h2->integer(u"connectionWindowBits", 0, kMaxHttp2WindowBits,
                                                    http.connectionWindowBits));
    }
    if (const auto tls = json.optionalObject(u"tls"))
        tlsFromJson(*tls, http);
    return http;
}

QJsonObject memcacheToJson(const MemcacheOptions& memcache) {
    QJsonObject json{
        {QStringLiteral("ratio"),
         QStringLiteral("%1:%2").arg(memcache.setRatio).arg(memcache.getRatio)},
        {QStringLiteral("keyPattern"), memcache.keyPattern},
        {QStringLiteral("keyMinimum"), double(memcache.keyMinimum)},
        {QStringLiteral("keyMaximum"), double(memcache.keyMaximum)},
        {QStringLiteral("keyPrefix"), memcache.keyPrefix},
        {QStringLiteral("valueSize"), memcache.valueSize},
        {QStringLiteral("pipeline"), memcache.pipeline},
        {QStringLiteral("preload"), memcache.preload},
    };
    if (memcache.keyStddev > 0)
        json.insert(QStringLiteral("keyStddev"), memcache.keyStddev);
    if (memcache.keyMedian)
        json.insert(QStringLiteral("keyMedian"), *memcache.keyMedian);
    return json;
}

MemcacheOptions memcacheFromJson(const JsonReader& json) {
    MemcacheOptions memcache;
    if (json.has(u"ratio")) {
        const QString ratio = json.string(u"ratio");
        if (const auto parsed = parseMemcacheRatio(ratio)) {
            memcache.setRatio = parsed->sets;
            memcache.getRatio = parsed->gets;
        } else if (json.ok()) {
            json.failKey(u"ratio",
                         QStringLiteral("is \"%1\", expected SET:GET such as 1:10").arg(ratio));
        }
    }
    memcache.keyPattern = json.string(u"keyPattern", memcache.keyPattern);
    if (json.ok() && !checkKeyPattern(memcache.keyPattern))
        json.failUnknownValue(u"keyPattern", memcache.keyPattern);
    memcache.keyMinimum = json.count(u"keyMinimum", memcache.keyMinimum);
    memcache.keyMaximum = json.count(u"keyMaximum", memcache.keyMaximum);
    if (json.ok() && memcache.keyMaximum < memcache.keyMinimum)
        json.failKey(u"keyMaximum", QStringLiteral("is below keyMinimum"));
    memcache.keyPrefix = json.string(u"keyPrefix", memcache.keyPrefix);
    memcache.valueSize = int(json.integer(u"valueSize", 0, kMaxMessageSize, memcache.valueSize));
    memcache.pipeline = int(json.integer(u"pipeline", 1, kMaxPipeline, memcache.pipeline));
    memcache.preload = json.boolean(u"preload", memcache.preload);
    memcache.keyStddev = json.number(u"keyStddev", 0, 1e300, memcache.keyStddev);
    if (json.has(u"keyMedian"))
        memcache.keyMedian = json.number(u"keyMedian", 0, 1e300);
    return memcache;
}

QJsonObject redisToJson(const RedisOptions& redis) {
    // The workload's keys as memcache writes them, and the protocol beside them.
    QJsonObject json = memcacheToJson(redis.workload);
    json.insert(QStringLiteral("protocol"), redis.protocol);
    if (!redis.commands.empty()) {
        QJsonArray commands;
        for (const RedisCommand& command : redis.commands)
            commands.append(QJsonObject{{QStringLiteral("command"), command.command},
                                        {QStringLiteral("ratio"), command.ratio},
                                        {QStringLiteral("keyPattern"), command.keyPattern}});
        json.insert(QStringLiteral("commands"), commands);
    }
    return json;
}

RedisOptions redisFromJson(const JsonReader& json) {
    RedisOptions redis;
    redis.workload = memcacheFromJson(json);
    redis.protocol = json.string(u"protocol", redis.protocol);
    if (json.ok() && !checkRedisProtocol(redis.protocol))
        json.failUnknownValue(u"protocol", redis.protocol);
    const JsonArrayReader commands = json.array(u"commands", false);
    for (qsizetype i = 0; i < commands.size() && json.ok(); ++i) {
        const JsonReader entry = commands.objectAt(i);
        RedisCommand command;
        command.command = entry.string(u"command");
        command.ratio = int(entry.integer(u"ratio", 1, kMaxRedisCommandRatio, command.ratio));
        command.keyPattern = entry.string(u"keyPattern", command.keyPattern);
        if (!json.ok())
            break;
        if (auto checked = checkRedisCommand(command); !checked) {
            entry.failKey(u"command",
                          QStringLiteral("is \"%1\": %2")
                              .arg(printable(command.command), printable(checked.error().message)));
            break;
        }
        redis.commands.push_back(command);
    }
    return redis;
}

QJsonObject tcpRrToJson(const TcpRrOptions& tcpRr) {
    QJsonObject json{
        {QStringLiteral("requestSize"), tcpRr.requestSize},
        {QStringLiteral("responseSize"), tcpRr.responseSize},
        {QStringLiteral("connectPerRequest"), tcpRr.connectPerRequest},
    };
    // Raw TLS: the object says TLS is on, so it is written even when every option is a default.
    if (tcpRr.tls)
        json.insert(QStringLiteral("tls"), tlsToJson(tcpRr));
    return json;
}

TcpRrOptions tcpRrFromJson(const JsonReader& json) {
    TcpRrOptions tcpRr;
    tcpRr.requestSize = int(json.integer(u"requestSize", 1, kMaxMessageSize, tcpRr.requestSize));
    tcpRr.responseSize = int(json.integer(u"responseSize", 1, kMaxMessageSize, tcpRr.responseSize));
    tcpRr.connectPerRequest = json.boolean(u"connectPerRequest", tcpRr.connectPerRequest);
    if (const auto tls = json.optionalObject(u"tls")) {
        tcpRr.tls = true;
        tlsFromJson(*tls, tcpRr);
    }
    return tcpRr;
}

QJsonObject udpRrToJson(const UdpRrOptions& udpRr) {
    QJsonObject json{
        {QStringLiteral("requestSize"), udpRr.requestSize},
        {QStringLiteral("responseSize"), udpRr.responseSize},
    };
    if (udpRr.burst > 0)
        json.insert(QStringLiteral("burst"), udpRr.burst);
    return json;
}

UdpRrOptions udpRrFromJson(const JsonReader& json) {
    UdpRrOptions udpRr;
    udpRr.requestSize = int(json.integer(u"requestSize", 1, kMaxDatagramBytes, udpRr.requestSize));
    udpRr.responseSize =
        int(json.integer(u"responseSize", 1, kMaxDatagramBytes, udpRr.responseSize));
    udpRr.burst = int(json.integer(u"burst", 0, kMaxUdpBurst, udpRr.burst));
    return udpRr;
}

QJsonObject udpStreamToJson(const UdpStreamOptions& udpStream) {
    return {{QStringLiteral("messageSize"), udpStream.messageSize}};
}

UdpStreamOptions udpStreamFromJson(const JsonReader& json) {
    UdpStreamOptions udpStream;
    udpStream.messageSize =
        int(json.integer(u"messageSize", 1, kMaxDatagramBytes, udpStream.messageSize));
    return udpStream;
}

QJsonObject labPlacementToJson(const LabPlacement& lab) {
    QJsonArray options;
    for (const auto& [key, value] : lab.serverOptions)
        options.append(QJsonObject{{QStringLiteral("key"), key}, {QStringLiteral("value"), value}});
    return {{QStringLiteral("mode"), lab.mode},
            {QStringLiteral("server"), lab.server},
            {QStringLiteral("serverOptions"), options}};
}

LabPlacement labPlacementFromJson(const JsonReader& json) {
    LabPlacement lab;
    lab.mode = json.string(u"mode");
    if (json.ok() && !isOneOf(lab.mode, labModeIds()))
        json.failUnknownValue(u"mode", lab.mode);
    lab.server = json.string(u"server");
    if (json.ok() && !isOneOf(lab.server, labServerKinds()))
        json.failUnknownValue(u"server", lab.server);
    const JsonArrayReader options = json.array(u"serverOptions", false);
    for (qsizetype i = 0; i < options.size() && json.ok(); ++i) {
        const JsonReader option = options.objectAt(i);
        QString key = option.string(u"key");
        if (option.ok() && (key.isEmpty() || key.contains(QLatin1Char('='))))
            option.failKey(
                u"key",
                QStringLiteral("is \"%1\", expected a name without '='").arg(printable(key)));
        QString value = option.string(u"value");
        // The lab's own rule, on load: what `lab sandbox --server-opt` would
        // refuse when the sweep starts is refused here, with its field.
        if (option.ok()) {
            const auto ranges = labServerOptionRanges(lab.server);
            const bool known = std::any_of(ranges.begin(), ranges.end(),
                                           [&](const auto& range) { return range.key == key; });
            if (auto checked = checkLabServerOption(lab.server, key, value); !checked)
                option.failKey(
                    known ? u"value" : u"key",
                    QStringLiteral("is not what the lab takes (%1)").arg(checked.error().message));
        }
        lab.serverOptions.emplace_back(std::move(key), std::move(value));
    }
    return lab;
}

QJsonObject labSetupToJson(const LabSetup& lab) {
    QJsonArray modes;
    for (const QString& mode : lab.modes)
        modes.append(mode);
    QJsonObject json{{QStringLiteral("mtu"), lab.mtu},
                     {QStringLiteral("clientCpus"), lab.clientCpus},
                     {QStringLiteral("serverCpus"), lab.serverCpus},
                     {QStringLiteral("modes"), modes}};
    if (!lab.host.isEmpty())
        json.insert(QStringLiteral("host"), lab.host);
    // Added after the first lab: written when not the default, the wire.
    if (lab.client != LabClientPlacement::Wire)
        json.insert(QStringLiteral("clientPlacement"), labClientPlacementId(lab.client));
    return json;
}

LabSetup labSetupFromJson(const JsonReader& json) {
    LabSetup lab;
    lab.mtu = int(json.integer(u"mtu", kMinLabMtu, kMaxLabMtu, lab.mtu));
    lab.clientCpus = json.string(u"clientCpus", {});
    lab.serverCpus = json.string(u"serverCpus", {});
    // Only the syntax: a session may name another machine's CPUs.
    for (const auto& [key, cpus] :
         {std::pair{u"clientCpus", &lab.clientCpus}, std::pair{u"serverCpus", &lab.serverCpus}})
        if (json.ok())
            if (auto parsed = parseCpuList(*cpus); !parsed)
                json.failKey(QStringView(key), QStringLiteral("is \"%1\", not a CPU list (%2)")
                                                   .arg(printable(*cpus), parsed.error().message));
    const JsonArrayReader modes = json.array(u"modes", false);
    for (qsizetype i = 0; i < modes.size() && json.ok(); ++i) {
        const QString mode = modes.stringAt(i);
        if (json.ok() && !isOneOf(mode, labModeIds()))
            json.fail(modes.pathAt(i),
                      QStringLiteral("has an unknown value \"%1\"").arg(printable(mode)));
        lab.modes.push_back(mode);
    }
    lab.host = json.string(u"host", {});
    if (json.ok() && !lab.host.isEmpty()) {
        if (auto checked = checkHostName(lab.host); !checked)
            json.failKey(u"host", checked.error().message);
    }
    const QString client = json.string(u"clientPlacement", labClientPlacementId(lab.client));
    if (json.ok()) {
        if (const auto placement = labClientPlacementFromId(client))
            lab.client = *placement;
        else
            json.failUnknownValue(u"clientPlacement", client);
    }
    // What `lab sandbox` would refuse when the sweep starts is refused here, with its field.
    if (json.ok()) {
        if (auto placed = checkLabClientPlacement(lab.client, lab.modes); !placed)
            json.failKey(u"clientPlacement",
                         QStringLiteral("is \"%1\", which not every lab mode can have (%2)")
                             .arg(client, placed.error().message));
    }
    return lab;
}

QJsonObject hostToJson(const Host& host) {
    QJsonObject json{{QStringLiteral("name"), host.name},
                     {QStringLiteral("destination"), host.destination}};
    if (host.command != QLatin1String(kDefaultHostCommand))
        json.insert(QStringLiteral("command"), host.command);
    return json;
}

Host hostFromJson(const JsonReader& json) {
    Host host;
    host.name = json.string(u"name");
    if (json.ok()) {
        if (auto checked = checkHostName(host.name); !checked)
            json.failKey(u"name", checked.error().message);
    }
    host.destination = json.string(u"destination");
    if (json.ok()) {
        if (auto checked = checkSshDestination(host.destination); !checked)
            json.failKey(u"destination", checked.error().message);
    }
    host.command = json.string(u"command", host.command);
    if (json.ok()) {
        if (auto checked = checkHostCommand(host.command); !checked)
            json.failKey(u"command", checked.error().message);
    }
    return host;
}

} // namespace loadscope::app
