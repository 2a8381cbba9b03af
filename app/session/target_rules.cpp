#include "app/session/target_rules.h"

#include "app/common/printable_text.h"
#include "app/session/target.h"
#include "engine/memcache_protocol.h"

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
    if (server == u"http" || server == u"nginx" || server == u"apache")
        return {{QStringLiteral("size"), 0, kMaxLabDocumentBytes}};
    if (server == u"echo")
        return {{QStringLiteral("request-size"), 1, 1u << 20},
                {QStringLiteral("response-size"), 1, 1u << 20}};
    if (server == u"memcached")
        return {{QStringLiteral("memory"), 1, 65536}};
    return {};
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

} // namespace loadscope::app
