#include "app/session/target_rules.h"

#include "app/common/printable_text.h"
#include "app/session/target.h"
#include "engine/memcache_protocol.h"
#include "engine/redis_protocol.h"

#include <QRegularExpression>
#include <QStringList>
#include <QThread>
#include <algorithm>
#include <cstring>
#include <optional>
#include <unistd.h>

namespace loadscope::app {

QString endpointText(const Endpoint& endpoint) {
    const QString host = endpoint.host.contains(QLatin1Char(':'))
                             ? QStringLiteral("[%1]").arg(endpoint.host)
                             : endpoint.host;
    return QStringLiteral("%1:%2").arg(host).arg(endpoint.port);
}

Result<Endpoint> parseEndpoint(const QString& text) {
    static const QRegularExpression pattern(
        QStringLiteral("^(?:\\[([0-9A-Fa-f:.]+)\\]|([^:\\[\\]\\s]+)):([0-9]{1,5})$"));
    const auto match = pattern.match(text.trimmed());
    const int port = match.hasMatch() ? match.captured(3).toInt() : 0;
    if (!match.hasMatch() || port < 1 || port > 65535)
        return invalidInput(
            QStringLiteral("expected HOST:PORT (e.g. 127.0.0.1:11211 or [::1]:11211), not '%1'")
                .arg(text));
    return Endpoint{match.captured(1).isEmpty() ? match.captured(2) : match.captured(1),
                    quint16(port)};
}

namespace {

bool isTchar(QChar c) {
    const char16_t u = c.unicode();
    if ((u >= u'0' && u <= u'9') || (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z'))
        return true;
    return u < 0x80 && std::strchr("!#$%&'*+-.^_`|~", char(u)) != nullptr && u != 0;
}

// The first character a header value may not hold, or none: every control
// character but HTAB (RFC 9110 5.5 field-vchar, obs-text allowed).
std::optional<QChar> forbiddenInValue(const QString& value) {
    for (const QChar c : value) {
        const char16_t u = c.unicode();
        if ((u < 0x20 && u != u'\t') || u == 0x7f)
            return c;
    }
    return std::nullopt;
}

QString characterName(QChar c) {
    switch (c.unicode()) {
    case u'\r':
        return QStringLiteral("a carriage return (CR)");
    case u'\n':
        return QStringLiteral("a line feed (LF)");
    case 0:
        return QStringLiteral("a NUL byte");
    default:
        return QStringLiteral("the control character %1").arg(printableText(QString(c)));
    }
}

// `field` ("the content type") holds only what a header value may.
Result<void> checkValueBytes(const QString& field, const QString& value) {
    if (const auto bad = forbiddenInValue(value))
        return invalidInput(QStringLiteral("%1 holds %2, which HTTP does not allow in a header")
                                .arg(field, characterName(*bad)));
    return {};
}

} // namespace

bool isHttpToken(const QString& text) {
    return !text.isEmpty() && std::all_of(text.begin(), text.end(), isTchar);
}

Result<void> checkHeaderName(const QString& name) {
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty())
        return invalidInput(QStringLiteral("a header needs a name"));
    if (!isHttpToken(trimmed))
        return invalidInput(QStringLiteral("header name '%1' is not an HTTP token: no spaces, "
                                           "colons, control characters or non-ASCII")
                                .arg(printableText(trimmed)));
    return {};
}

Result<void> checkHttpMethod(const QString& method) {
    const QString trimmed = method.trimmed();
    if (trimmed.isEmpty())
        return invalidInput(QStringLiteral("the method is empty: give one such as GET or POST"));
    if (!isHttpToken(trimmed))
        return invalidInput(QStringLiteral("method '%1' is not an HTTP token: one word such as "
                                           "GET or POST, no spaces or control characters")
                                .arg(printableText(trimmed)));
    return {};
}

Result<void> checkHeaderValue(const QString& name, const QString& value) {
    return checkValueBytes(
        QStringLiteral("the value of header '%1'").arg(printableText(name.trimmed())), value);
}

Result<void> checkContentType(const QString& contentType) {
    return checkValueBytes(QStringLiteral("the content type"), contentType);
}

Result<std::vector<int>> parseCpuList(const QString& text) {
    // A machine with more CPUs than this is not something to run on.
    constexpr int kMaxCpu = 65535;
    static const QRegularExpression item(QStringLiteral("^(\\d+)(?:-(\\d+))?$"));
    std::vector<int> cpus;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString trimmed = part.trimmed();
        if (trimmed.isEmpty())
            continue;
        const QRegularExpressionMatch match = item.match(trimmed);
        if (!match.hasMatch())
            return invalidInput(
                QStringLiteral("'%1' is not a CPU number or range such as 0-3").arg(trimmed));
        bool firstOk = false;
        bool lastOk = true;
        const int first = match.captured(1).toInt(&firstOk);
        const int last = match.hasCaptured(2) ? match.captured(2).toInt(&lastOk) : first;
        if (!firstOk || !lastOk || first > kMaxCpu || last > kMaxCpu)
            return invalidInput(QStringLiteral("CPU numbers go up to %1").arg(kMaxCpu));
        if (last < first)
            return invalidInput(QStringLiteral("the range %1 runs backwards").arg(trimmed));
        for (int cpu = first; cpu <= last; ++cpu) {
            if (std::find(cpus.begin(), cpus.end(), cpu) == cpus.end())
                cpus.push_back(cpu);
        }
    }
    return cpus;
}

Result<void> checkCpusExist(const std::vector<int>& cpus) {
    const long configured = sysconf(_SC_NPROCESSORS_CONF);
    for (int cpu : cpus) {
        if (cpu < 0 || cpu >= configured)
            return invalidInput(QStringLiteral("CPU %1 does not exist: this machine has CPUs 0 "
                                               "to %2")
                                    .arg(cpu)
                                    .arg(configured - 1));
    }
    return {};
}

uint32_t threadCount(int requested) {
    if (requested > 0)
        return uint32_t(requested);
    return uint32_t(std::max(1, QThread::idealThreadCount()));
}

Result<MemcacheRatio> parseMemcacheRatio(const QString& text) {
    uint32_t sets = 0;
    uint32_t gets = 0;
    if (!engine::parseMemcacheRatio(text.trimmed().toStdString(), sets, gets) ||
        sets > uint32_t(std::numeric_limits<int>::max()) ||
        gets > uint32_t(std::numeric_limits<int>::max()))
        return invalidInput(
            QStringLiteral("ratio wants SETS:GETS such as 1:10 (not both 0), not '%1'").arg(text));
    return MemcacheRatio{int(sets), int(gets)};
}

Result<void> checkKeyPattern(const QString& pattern) {
    engine::KeyPattern set{};
    engine::KeyPattern get{};
    if (!engine::parseMemcacheKeyPatterns(pattern.trimmed().toUpper().toStdString(), set, get))
        return invalidInput(QStringLiteral("key pattern wants SET:GET, each R, S or G (e.g. "
                                           "R:R), not '%1'")
                                .arg(pattern));
    return {};
}

namespace {

Result<void> checkDatagramSize(int size, const char* what) {
    if (size >= 1 && size <= kMaxDatagramBytes)
        return {};
    return invalidInput(QStringLiteral("the %1 must be from 1 to %2 bytes (a UDP datagram), not %3")
                            .arg(QLatin1String(what))
                            .arg(kMaxDatagramBytes)
                            .arg(size));
}

} // namespace

Result<void> checkUdpRr(const UdpRrOptions& options) {
    if (auto checked = checkDatagramSize(options.requestSize, "request size"); !checked)
        return checked;
    if (auto checked = checkDatagramSize(options.responseSize, "response size"); !checked)
        return checked;
    if (options.burst < 0 || options.burst > kMaxUdpBurst)
        return invalidInput(QStringLiteral("the burst must be from 0 to %1 requests, not %2")
                                .arg(kMaxUdpBurst)
                                .arg(options.burst));
    return {};
}

Result<void> checkUdpStream(const UdpStreamOptions& options) {
    return checkDatagramSize(options.messageSize, "message size");
}

Result<void> checkRedisProtocol(const QString& protocol) {
    const QString p = protocol.trimmed();
    if (p == QLatin1String("redis") || p == QLatin1String("resp2") || p == QLatin1String("resp3"))
        return {};
    return invalidInput(
        QStringLiteral("Redis protocol '%1' is not one of redis, resp2 and resp3").arg(p));
}

Result<void> checkRedisCommand(const RedisCommand& command) {
    std::vector<engine::RedisCommandArgument> arguments;
    if (const auto problem = engine::parseRedisCommand(command.command.toStdString(), arguments))
        return invalidInput(QStringLiteral("command '%1': %2")
                                .arg(command.command, QString::fromStdString(*problem)));
    if (command.ratio < 1 || command.ratio > kMaxRedisCommandRatio)
        return invalidInput(QStringLiteral("command '%1': its ratio %2 is not 1 to %3")
                                .arg(command.command)
                                .arg(command.ratio)
                                .arg(kMaxRedisCommandRatio));
    const QString pattern = command.keyPattern.trimmed().toUpper();
    if (pattern.size() != 1 || !engine::keyPatternFromLetter(pattern.front().toLatin1()))
        return invalidInput(QStringLiteral("command '%1': key pattern '%2' is not R, S or G")
                                .arg(command.command, command.keyPattern));
    return {};
}

Result<void> checkRequestsCoverConcurrency(uint64_t requests, uint64_t concurrency) {
    if (requests > 0 && requests < concurrency)
        return invalidInput(QStringLiteral("cannot use a concurrency level (%1) greater than the "
                                           "number of requests (%2)")
                                .arg(concurrency)
                                .arg(requests));
    return {};
}

Result<void> checkTlsVersion(const QString& version) {
    const QString v = version.trimmed();
    if (v.isEmpty() || v == QLatin1String("1.2") || v == QLatin1String("1.3"))
        return {};
    return invalidInput(QStringLiteral("TLS version '%1' is not one of 1.2 and 1.3").arg(v));
}

Result<void> checkTlsClientKey(const QString& certFile, const QString& keyFile) {
    if (keyFile.trimmed().isEmpty() || !certFile.trimmed().isEmpty())
        return {};
    return invalidInput(
        QStringLiteral("the client key '%1' is given without its client certificate")
            .arg(keyFile.trimmed()));
}

Result<void> checkHttp2(const HttpOptions& options) {
    if (!options.http2)
        return {};
    if (options.pipeline > 1)
        return invalidInput(QStringLiteral("HTTP/2 has streams, not pipelining: give the streams "
                                           "per connection (--max-concurrent-streams) instead"));
    if (options.http10)
        return invalidInput(QStringLiteral("HTTP/1.0 and HTTP/2 cannot be combined"));
    if (options.maxConcurrentStreams < 1 || options.maxConcurrentStreams > kMaxHttp2Streams)
        return invalidInput(QStringLiteral("max concurrent streams %1 is out of range (1-%2)")
                                .arg(options.maxConcurrentStreams)
                                .arg(kMaxHttp2Streams));
    for (const int bits : {options.windowBits, options.connectionWindowBits})
        if (bits < 0 || bits > kMaxHttp2WindowBits)
            return invalidInput(QStringLiteral("window bits %1 are out of range (0-%2, as h2load)")
                                    .arg(bits)
                                    .arg(kMaxHttp2WindowBits));
    return {};
}

Result<int> parseServerPid(const QString& text) {
    bool ok = false;
    const qlonglong pid = text.trimmed().toLongLong(&ok);
    if (!ok || pid < 1 || pid > kMaxPid)
        return invalidInput(
            QStringLiteral("server PID '%1' is not a process id (1 to %2)").arg(text).arg(kMaxPid));
    return int(pid);
}

Result<void> checkServerCgroup(const QString& path) {
    if (!path.startsWith(QLatin1Char('/')))
        return invalidInput(
            QStringLiteral("server cgroup '%1' is not an absolute directory path, as "
                           "/sys/fs/cgroup/system.slice/nginx.service")
                .arg(printableText(path)));
    if (std::any_of(path.begin(), path.end(), [](QChar c) { return c.unicode() < 0x20; }))
        return invalidInput(QStringLiteral("server cgroup '%1' holds a control character")
                                .arg(printableText(path)));
    return {};
}

std::vector<LabServerOptionRange> labServerOptionRanges(const QString& server) {
    std::vector<LabServerOptionRange> ranges;
    if (server == u"http" || server == u"nginx" || server == u"apache")
        ranges = {{QStringLiteral("size"), 0, kMaxLabDocumentBytes}};
    else if (server == u"echo")
        ranges = {{QStringLiteral("request-size"), 1, 1u << 20},
                  {QStringLiteral("response-size"), 1, 1u << 20}};
    else if (server == u"memcached" || server == u"redis")
        ranges = {{QStringLiteral("memory"), 1, 65536}};
    else if (server == u"udp-echo")
        ranges = {{QStringLiteral("response-size"), 1, uint64_t(kMaxDatagramBytes)}};
    else if (server != u"sink" && server != u"udp-sink")
        return {}; // not a server the lab has
    // How many backend pods the lab's cluster-ip mode runs the server in (lab_topology.h's
    // kMaxBackends), whatever the server.
    ranges.push_back({QStringLiteral("backends"), 1, 16});
    return ranges;
}

Result<void> checkLabServerOption(const QString& server, const QString& key, const QString& value) {
    const std::vector<LabServerOptionRange> ranges = labServerOptionRanges(server);
    const auto known =
        std::find_if(ranges.begin(), ranges.end(),
                     [&](const LabServerOptionRange& range) { return range.key == key; });
    if (known == ranges.end()) {
        QStringList names;
        for (const LabServerOptionRange& range : ranges)
            names.append(range.key);
        return invalidInput(QStringLiteral("%1: %2 takes %3")
                                .arg(printableText(key), server,
                                     names.isEmpty() ? QStringLiteral("no options")
                                                     : names.join(QStringLiteral(", "))));
    }
    // Digits only: toULongLong would take "+1" and " 1", and the value goes
    // on a command line and into a server's configuration as written.
    bool ok = !value.isEmpty() && std::all_of(value.begin(), value.end(),
                                              [](QChar c) { return c >= u'0' && c <= u'9'; });
    const qulonglong number = ok ? value.toULongLong(&ok) : 0;
    if (!ok || number < known->minimum || number > known->maximum)
        return invalidInput(QStringLiteral("%1=%2: expected a whole number from %3 to %4")
                                .arg(key, printableText(value))
                                .arg(known->minimum)
                                .arg(known->maximum));
    return {};
}

QString labServerHostRefusal(const QString& mode) {
    if (mode == QLatin1String("overlay-vxlan"))
        return QStringLiteral("its path is pod to pod across two nodes, and a client on the "
                              "server's own node does not cross the overlay");
    if (mode == QLatin1String("macvlan") || mode == QLatin1String("ipvlan"))
        return QStringLiteral("the server host cannot reach its own %1 child: the parent "
                              "device's own traffic never enters its children")
            .arg(mode);
    if (mode == QLatin1String("ovs-bridge"))
        return QStringLiteral("the userspace switch's ports are the wire device and the "
                              "container's veth, not the server host's own stack, so the host "
                              "does not reach the container through it");
    return {};
}

Result<void> checkLabClientPlacement(LabClientPlacement placement,
                                     const std::vector<QString>& modes) {
    if (placement == LabClientPlacement::Wire)
        return {};
    for (const QString& mode : modes) {
        if (const QString why = labServerHostRefusal(mode); !why.isEmpty())
            return invalidInput(QStringLiteral("client placement %1: %2 cannot have it: %3")
                                    .arg(labClientPlacementId(placement), mode, why));
    }
    return {};
}

} // namespace loadscope::app
