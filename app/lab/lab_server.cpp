#include "app/lab/lab_server.h"

#include "app/common/atomic_file_writer.h"
#include "app/lab/subordinate_ids.h"
#include "app/servers/http_server.h"
#include "app/session/target_rules.h"
#include "engine/udp_datagram.h"

#include <QDir>
#include <QFile>
#include <algorithm>
#include <array>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loadscope::app::lab {

namespace {

struct KindName {
    LabServerKind kind;
    const char* id;
};

constexpr std::array<KindName, 9> kKinds{{
    {LabServerKind::Http, "http"},
    {LabServerKind::Echo, "echo"},
    {LabServerKind::Sink, "sink"},
    {LabServerKind::Nginx, "nginx"},
    {LabServerKind::Apache, "apache"},
    {LabServerKind::Memcached, "memcached"},
    {LabServerKind::UdpEcho, "udp-echo"},
    {LabServerKind::UdpSink, "udp-sink"},
    {LabServerKind::Redis, "redis"},
}};

QString option(const LabServerSpec& spec, const QString& key, const QString& fallback) {
    QString value = fallback;
    for (const auto& [name, given] : spec.options) {
        if (name == key)
            value = given;
    }
    return value;
}

Result<void> writeFile(const std::string& path, const QByteArray& bytes) {
    return writeFileAtomically(QString::fromStdString(path), bytes);
}

QString firstLineOf(const std::vector<std::string>& command) {
    auto printed = runInNetns(-1, command);
    if (!printed)
        return {};
    return QString::fromStdString(printed->substr(0, printed->find('\n'))).trimmed();
}

std::string nginxConfig(const ModeEndpoint& endpoint, const std::string& dir, int index) {
    const std::string name = dir + "/nginx-" + std::to_string(index);
    // master_process off: one process, which never switches user, so a user namespace that maps
    // only the caller's uid is enough; every path is the lab's own.
    return "daemon off;\nmaster_process off;\nuser root root;\nworker_processes 1;\n"
           "pid " +
           name + ".pid;\nerror_log " + name +
           ".error.log warn;\n"
           "events { worker_connections 4096; }\n"
           "http {\n  access_log off;\n  default_type text/html;\n"
           "  keepalive_requests 1000000;\n"
           "  client_body_temp_path " +
           name + ".body;\n  proxy_temp_path " + name +
           ".proxy;\n"
           "  fastcgi_temp_path " +
           name + ".fastcgi;\n  uwsgi_temp_path " + name +
           ".uwsgi;\n"
           "  scgi_temp_path " +
           name +
           ".scgi;\n"
           "  server {\n    listen " +
           endpoint.bindAddress + ":" + std::to_string(endpoint.bindPort) + ";\n    root " + dir +
           "/www;\n"
           "    location / { index index.html; }\n  }\n}\n";
}

// Debian's apache2 has only core, so, watchdog, http, log_config, logio, version and unixd built
// in; everything else serving a static page needs is loaded here.
std::string apacheConfig(const ModeEndpoint& endpoint, const std::string& dir, int index) {
    const std::string name = dir + "/apache-" + std::to_string(index);
    std::string config = "ServerRoot " + dir + "\nServerName loadscope-lab\n";
    for (const char* module : {"mpm_event", "authz_core", "dir", "mime"})
        config += std::string("LoadModule ") + module + "_module /usr/lib/apache2/modules/mod_" +
                  module + ".so\n";
    // The parent stays root, binds and opens its logs; the workers drop to www-data, as
    // Debian's service runs them. Debian's mpm_event.conf sizes the workers.
    config += "User www-data\nGroup www-data\nPidFile " + name + ".pid\nErrorLog " + name +
              ".error.log\nLogLevel warn\nDefaultRuntimeDir " + dir +
              "\n"
              "Listen " +
              endpoint.bindAddress + ":" + std::to_string(endpoint.bindPort) +
              "\n"
              "StartServers 2\nMinSpareThreads 25\nMaxSpareThreads 75\nThreadLimit 64\n"
              "ThreadsPerChild 25\nMaxRequestWorkers 150\nMaxConnectionsPerChild 0\n"
              // Unlimited requests per connection, as `ab -k` expects of a benchmark server.
              "KeepAlive On\nMaxKeepAliveRequests 0\n"
              "TypesConfig /dev/null\nAddType text/html .html\nDocumentRoot " +
              dir + "/www\n<Directory " + dir +
              "/www>\n    Require all granted\n</Directory>\nDirectoryIndex index.html\n";
    return config;
}

// Why Apache cannot drop to www-data here, or empty: its workers need www-data's uid and gid
// mapped in the user namespace, which the sandbox does for root, and for anyone else only with
// subordinate ids (subordinate_ids.h; otherwise it maps the caller's one uid). As root, inside
// the sandbox or out, read from /proc/self/uid_map (outside: every id; inside: what the sandbox
// mapped); unprivileged outside it, from what the sandbox will be able to map.
QString apachePrivilegeProblem() {
    const passwd* user = getpwnam("www-data");
    if (!user)
        return QStringLiteral("Apache runs its workers as www-data, which this machine does not "
                              "have");
    const auto mapped = [](const char* file, unsigned id) {
        QFile map(QString::fromLatin1(file));
        if (!map.open(QIODevice::ReadOnly))
            return false;
        for (const QByteArray& line : map.readAll().split('\n')) {
            const QList<QByteArray> fields = line.simplified().split(' ');
            if (fields.size() == 3 && id >= fields[0].toULongLong() &&
                id - fields[0].toULongLong() < fields[2].toULongLong())
                return true;
        }
        return false;
    };
    const QString needs = QStringLiteral("Apache needs root or subordinate ids: its workers drop "
                                         "to www-data, and an unprivileged sandbox maps only the "
                                         "caller's own uid");
    // Outside the sandbox, unprivileged: what the sandbox will be able to map.
    if (geteuid() != 0) {
        if (auto subordinate = subordinateIds(geteuid()); !subordinate)
            return needs + QStringLiteral(" (%1)").arg(subordinate.error().message);
        if (user->pw_uid > kSubordinateIdsWanted || user->pw_gid > kSubordinateIdsWanted)
            return needs;
        return {};
    }
    if (!mapped("/proc/self/uid_map", user->pw_uid) || !mapped("/proc/self/gid_map", user->pw_gid))
        return needs;
    return {};
}

// The lab's web root with the generated document of `size` bytes, readable by a server that
// drops to www-data (the work directory is the sandbox's tmpfs, 0700 until then).
Result<void> writeDocument(const std::string& workDir, size_t size) {
    QFile::remove(QString::fromStdString(workDir + "/www/index.html"));
    if (!QDir().mkpath(QString::fromStdString(workDir + "/www")) ||
        chmod(workDir.c_str(), 0711) != 0 || chmod((workDir + "/www").c_str(), 0755) != 0)
        return makeError(ErrorCode::Io, QStringLiteral("cannot create the lab's web root"));
    if (auto written = writeFile(workDir + "/www/index.html",
                                 QByteArray::fromStdString(HttpServer::makeDocument(size)));
        !written)
        return written;
    if (chmod((workDir + "/www/index.html").c_str(), 0644) != 0)
        return makeError(ErrorCode::Io, QStringLiteral("cannot make the lab's document readable"));
    return {};
}

// The document of the spec's "size" and a web server's configuration `name`.conf in `workDir`;
// the configuration's path.
Result<std::string> writeWebServerFiles(const LabServerSpec& spec, const std::string& workDir,
                                        const std::string& name, const std::string& config) {
    if (auto written = writeDocument(
            workDir, option(spec, QStringLiteral("size"), QStringLiteral("4897")).toULongLong());
        !written)
        return written.error();
    const std::string path = workDir + "/" + name + ".conf";
    if (auto written = writeFile(path, QByteArray::fromStdString(config)); !written)
        return written.error();
    return path;
}

} // namespace

const std::vector<LabServerKind>& labServerKinds() {
    static const std::vector<LabServerKind> kinds = [] {
        std::vector<LabServerKind> all;
        for (const KindName& name : kKinds)
            all.push_back(name.kind);
        return all;
    }();
    return kinds;
}

QString labServerKindId(LabServerKind kind) {
    for (const KindName& name : kKinds) {
        if (name.kind == kind)
            return QString::fromLatin1(name.id);
    }
    return {};
}

std::optional<LabServerKind> labServerKindFromId(QStringView id) {
    for (const KindName& name : kKinds) {
        if (id == QLatin1String(name.id))
            return name.kind;
    }
    return std::nullopt;
}

Result<void> checkServerSpec(const LabServerSpec& spec) {
    // The rule a session's lab target obeys too (target_rules.h).
    for (const auto& [name, value] : spec.options)
        if (auto checked = checkLabServerOption(labServerKindId(spec.kind), name, value); !checked)
            return invalidInput(QStringLiteral("--server-opt ") + checked.error().message);
    return {};
}

int labBackends(const LabServerSpec& spec) {
    return option(spec, QStringLiteral("backends"), QString::number(kDefaultBackends)).toInt();
}

bool servesDatagrams(LabServerKind kind) {
    return kind == LabServerKind::UdpEcho || kind == LabServerKind::UdpSink;
}

Result<QString> labServerVersion(LabServerKind kind, const std::string& cliPath) {
    switch (kind) {
    case LabServerKind::Http:
    case LabServerKind::Echo:
    case LabServerKind::Sink:
    case LabServerKind::UdpEcho:
    case LabServerKind::UdpSink:
        if (cliPath.empty())
            return makeError(ErrorCode::Internal,
                             QStringLiteral("the loadscope-cli executable is not known"));
        return QStringLiteral("loadscope " LOADSCOPE_VERSION);
    case LabServerKind::Nginx: {
        const std::string nginx = findInPath("nginx");
        if (nginx.empty())
            return makeError(ErrorCode::Unreachable,
                             QStringLiteral("nginx is not installed (Debian package nginx-light "
                                            "or nginx)"));
        const QString line = firstLineOf({nginx, "-v"});
        return line.section(QLatin1Char(':'), 1).trimmed();
    }
    case LabServerKind::Memcached: {
        const std::string memcached = findInPath("memcached");
        if (memcached.empty())
            return makeError(
                ErrorCode::Unreachable,
                QStringLiteral("memcached is not installed (Debian package memcached)"));
        return firstLineOf({memcached, "-V"});
    }
    case LabServerKind::Redis: {
        const std::string redis = findInPath("redis-server");
        if (redis.empty())
            return makeError(
                ErrorCode::Unreachable,
                QStringLiteral("redis-server is not installed (Debian package redis-server)"));
        // "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=..."
        const QString line = firstLineOf({redis, "--version"});
        const qsizetype at = line.indexOf(QLatin1String("v="));
        return at < 0 ? line
                      : QStringLiteral("redis %1")
                            .arg(line.mid(at + 2).section(QLatin1Char(' '), 0, 0));
    }
    case LabServerKind::Apache: {
        const std::string apache = findInPath("apache2");
        if (apache.empty())
            return makeError(ErrorCode::Unreachable,
                             QStringLiteral("Apache is not installed (Debian package apache2)"));
        if (const QString problem = apachePrivilegeProblem(); !problem.isEmpty())
            return makeError(ErrorCode::Unreachable, problem);
        // "Server version: Apache/2.4.62 (Debian)"
        return firstLineOf({apache, "-v"}).section(QLatin1Char(':'), 1).trimmed();
    }
    }
    return makeError(ErrorCode::Internal, QStringLiteral("unknown server"));
}

Result<SpawnSpec> labServerCommand(const LabServerSpec& spec, const ModeEndpoint& endpoint,
                                   const std::string& workDir, const std::string& cliPath,
                                   const std::vector<int>& cpus) {
    SpawnSpec command;
    command.netnsFd = endpoint.serverNetns;
    command.cpus = cpus;
    command.ownMountPidUts = endpoint.ownMountPidUts;
    const std::string threads = std::to_string(std::max<size_t>(1, cpus.size()));
    const std::string port = std::to_string(endpoint.bindPort);
    // One configuration per server: a mode's, or each backend's of a mode of several.
    const int index = int(endpoint.mode) * (kMaxBackends + 1) + endpoint.instance;
    // The built-in servers are loadscope-cli's own `serve` commands; they differ only in the
    // options after the shared ones.
    const auto serve = [&](const char* kind, std::vector<std::string> options) {
        std::vector<std::string> argv = {
            cliPath,  "serve", kind,        "--host", endpoint.bindAddress,
            "--port", port,    "--threads", threads};
        argv.insert(argv.end(), options.begin(), options.end());
        return argv;
    };
    switch (spec.kind) {
    case LabServerKind::Http:
        command.argv = serve(
            "http",
            {"--size", option(spec, QStringLiteral("size"), QStringLiteral("4897")).toStdString()});
        break;
    case LabServerKind::Echo:
        command.argv = serve(
            "echo",
            {"--request-size",
             option(spec, QStringLiteral("request-size"), QStringLiteral("1")).toStdString(),
             "--response-size",
             option(spec, QStringLiteral("response-size"), QStringLiteral("1")).toStdString()});
        break;
    case LabServerKind::Sink:
        command.argv = serve("sink", {});
        break;
    case LabServerKind::UdpEcho: {
        // Without a response size every datagram comes back as it came.
        std::vector<std::string> options{"--udp"};
        const QString response = option(spec, QStringLiteral("response-size"), QString());
        if (!response.isEmpty())
            options.insert(options.end(), {"--response-size", response.toStdString()});
        command.argv = serve("echo", options);
        break;
    }
    case LabServerKind::UdpSink:
        command.argv = serve("sink", {"--udp"});
        break;
    case LabServerKind::Nginx: {
        auto config = writeWebServerFiles(spec, workDir, "nginx-" + std::to_string(index),
                                          nginxConfig(endpoint, workDir, index));
        if (!config)
            return config.error();
        command.argv = {
            "nginx", "-e",    workDir + "/nginx-" + std::to_string(index) + ".error.log",
            "-p",    workDir, "-c",
            *config};
        break;
    }
    case LabServerKind::Memcached:
        command.argv = {"memcached",
                        "-l",
                        endpoint.bindAddress,
                        "-p",
                        port,
                        "-U",
                        "0",
                        "-t",
                        threads,
                        "-u",
                        "root",
                        "-m",
                        option(spec, QStringLiteral("memory"), QStringLiteral("64")).toStdString()};
        break;
    case LabServerKind::Redis:
        // No snapshot or log on disk, reachable from the client's namespace (protected mode
        // would refuse it without a password); as memcached -m, a memory bound past which
        // the least recently used keys go.
        command.argv = {"redis-server",
                        "--bind",
                        endpoint.bindAddress,
                        "--port",
                        port,
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--protected-mode",
                        "no",
                        "--daemonize",
                        "no",
                        "--dir",
                        workDir,
                        "--maxmemory",
                        option(spec, QStringLiteral("memory"), QStringLiteral("64")).toStdString() +
                            "mb",
                        "--maxmemory-policy",
                        "allkeys-lru"};
        break;
    case LabServerKind::Apache: {
        auto config = writeWebServerFiles(spec, workDir, "apache-" + std::to_string(index),
                                          apacheConfig(endpoint, workDir, index));
        if (!config)
            return config.error();
        // In the foreground, so that the lab's stop reaches the parent, which stops its workers.
        command.argv = {"apache2", "-d", workDir, "-f", *config, "-DFOREGROUND"};
        break;
    }
    }
    return command;
}

Result<void> waitForServer(const ModeEndpoint& endpoint, int clientNetns, pid_t server,
                           int timeoutMs, LabServerKind kind) {
    if (servesDatagrams(kind)) {
        // The echo answers any datagram, the sink a count query: either way an answer.
        std::string datagram(engine::udp::kCountBytes, '\0');
        engine::udp::writeCountQuery(datagram.data(), {0, 1});
        if (auto answered = waitForDatagramAnswer(
                endpoint.serverNetns, endpoint.bindAddress, endpoint.bindPort, server, timeoutMs,
                QStringLiteral("the server's namespace"), datagram);
            !answered)
            return answered;
        return waitForDatagramAnswer(clientNetns, endpoint.address, endpoint.port, server,
                                     timeoutMs, QStringLiteral("the client namespace"), datagram);
    }
    if (auto listening =
            waitForListener(endpoint.serverNetns, endpoint.bindAddress, endpoint.bindPort, server,
                            timeoutMs, QStringLiteral("the server's namespace"));
        !listening)
        return listening;
    // Reachable the way the load will reach it: from the client, across the wire.
    return waitForListener(clientNetns, endpoint.address, endpoint.port, server, timeoutMs,
                           QStringLiteral("the client namespace"));
}

} // namespace loadscope::app::lab
