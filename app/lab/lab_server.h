#pragma once

#include "app/common/result.h"
#include "app/lab/lab_topology.h"
#include "app/lab/netns_command.h"

#include <QString>
#include <QStringView>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loadscope::app::lab {

// The servers the lab runs, the same one in every mode: the embedded ones, or a Debian
// package's with a configuration the lab writes.
enum class LabServerKind {
    Http,
    Echo,
    Sink,
    Nginx,
    Apache,
    Memcached,
    UdpEcho, // the embedded echo over UDP (serve echo --udp), for udp-rr
    UdpSink, // the embedded sink over UDP (serve sink --udp), for udp-stream
    Redis,
};

const std::vector<LabServerKind>& labServerKinds();
// "http", "echo", "sink", "nginx", "apache", "memcached", "udp-echo", "udp-sink", "redis".
QString labServerKindId(LabServerKind kind);
std::optional<LabServerKind> labServerKindFromId(QStringView id);

struct LabServerSpec {
    LabServerKind kind = LabServerKind::Http;
    // --server-opt KEY=VALUE, in order: http, nginx and apache "size" (document bytes), echo
    // "request-size" and "response-size", udp-echo "response-size", memcached and redis
    // "memory" (MiB).
    std::vector<std::pair<QString, QString>> options;
};

// The options are ones the kind takes, with values it accepts.
Result<void> checkServerSpec(const LabServerSpec& spec);

// How many backend pods a mode of several (cluster-ip) runs the server in: the option
// "backends", which every kind takes, or kDefaultBackends.
int labBackends(const LabServerSpec& spec);

// Whether the kind serves UDP: the lab's relays and readiness check then carry datagrams.
bool servesDatagrams(LabServerKind kind);

// The server's version ("nginx/1.22.1"), or why it cannot run here: the Debian package to
// install, or what keeps the lab from starting it.
Result<QString> labServerVersion(LabServerKind kind, const std::string& cliPath);

// The command that runs `spec` for one mode: its configuration written into `workDir` (a
// directory of the caller's, removed after the run), listening where `endpoint` says, with as
// many threads as `cpus`. Whether the server can run here is labServerVersion()'s answer,
// asked once per lab before the first mode (it runs `apache2 -v` and the like).
Result<SpawnSpec> labServerCommand(const LabServerSpec& spec, const ModeEndpoint& endpoint,
                                   const std::string& workDir, const std::string& cliPath,
                                   const std::vector<int>& cpus);

// Waits until the server of `endpoint` (its process `server`, when > 0) listens where it binds, in
// its own namespace, and then until a connection from `clientNetns` reaches the endpoint, each
// for at most `timeoutMs`. The first wait is what a relaying mode needs: the userland proxy and
// slirp4netns accept the client's connection on their own socket whether or not the server
// behind them listens yet, and reset it when the server refuses theirs. A UDP server (`kind`)
// is ready when it answers a datagram, from its own namespace and then from the client's.
Result<void> waitForServer(const ModeEndpoint& endpoint, int clientNetns, pid_t server,
                           int timeoutMs, LabServerKind kind = LabServerKind::Http);

} // namespace loadscope::app::lab
