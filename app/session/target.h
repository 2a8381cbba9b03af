#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringView>
#include <QUuid>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace loadscope::app {

// How the server under test is reached. The modes are the ones users compare;
// Custom carries the user's own words in Target::customMode.
enum class DeploymentMode {
    Host,
    ContainerHostNetwork,
    ContainerNat,
    LinuxBridge,
    OvsBridge,
    Macvlan,
    UserlandProxy,
    Ipvlan,
    RootlessNat,
    ClusterIp,
    PodBridge,
    NodePort,
    OverlayVxlan,
    Sidecar,
    Custom,
};

// Every mode except Custom, in the order a mode picker lists them.
const std::vector<DeploymentMode>& deploymentModes();
// Stable identifier used in session files, CSV and reports: "host",
// "container-host-network", "container-nat", "linux-bridge", "ovs-bridge",
// "macvlan", "userland-proxy", "ipvlan", "rootless-nat", "cluster-ip", "pod-bridge", "node-port",
// "overlay-vxlan", "sidecar"; "custom" for Custom.
QString deploymentModeId(DeploymentMode mode);
// nullopt for anything that is not one of the identifiers above (not even "custom").
std::optional<DeploymentMode> deploymentModeFromId(QStringView id);
// Human label for pickers: "Container (NAT port mapping)".
QString deploymentModeTitle(DeploymentMode mode);

enum class TargetProtocol {
    Http,
    Memcache,
    TcpRr,
    TcpStream,
    UdpRr,
    UdpStream,
    Redis,
};
// How many there are: what a table by protocol is sized by (a CLI key per command).
inline constexpr size_t kTargetProtocolCount = 7;

const std::vector<TargetProtocol>& targetProtocols();
// "http", "memcache", "tcp-rr", "tcp-stream", "udp-rr", "udp-stream", "redis".
QString targetProtocolId(TargetProtocol protocol);
std::optional<TargetProtocol> targetProtocolFromId(QStringView id);

inline constexpr double kDefaultResponseTimeoutSeconds = 30;
// UDP's: a lost datagram costs its socket this long, so it is short, yet long
// past any round trip a lab or a LAN has (netperf's UDP_RR has none: a lost
// datagram stalls it for the rest of the test).
inline constexpr double kDefaultUdpTimeoutSeconds = 1;

// Options of each protocol, with the defaults of the tool users know it from
// (ab, memtier_benchmark, netperf).
struct HttpOptions {
    QString url = QStringLiteral("http://127.0.0.1/");
    QString method = QStringLiteral("GET");
    std::vector<std::pair<QString, QString>> headers; // extra headers, in order
    QString bodyFile;                                 // path of the request body; empty: no body
    QString contentType;                              // for the body
    bool keepAlive = true;
    int pipeline = 1;                  // requests outstanding per connection
    bool acceptVariableLength = false; // ab -l: no Length failures for bodies that vary
    bool http10 = false;               // send HTTP/1.0 requests, as ab does (--http1.0)
    // TLS, for an https:// URL (ignored for http://).
    bool tlsInsecure = false; // accept any certificate (curl -k)
    QString tlsCaFile;        // PEM bundle to verify against; empty: the system store
    QString tlsCertFile;      // client certificate; empty: none
    QString tlsKeyFile;       // its key; empty: in the certificate file
    bool tlsResume = true;    // resume sessions on reconnect; false: every handshake is full
    QString tlsVersion;       // "1.2" or "1.3" only; empty: either
    // HTTP/2 (h2load's options): h2c by prior knowledge on http://, h2 by
    // ALPN on https://; every connection kept alive, `pipeline` unused.
    bool http2 = false;
    int maxConcurrentStreams = 1;  // streams per connection (h2load -m)
    int windowBits = 30;           // stream window (2^bits)-1 (h2load -w)
    int connectionWindowBits = 30; // connection window (2^bits)-1 (h2load -W)

    friend bool operator==(const HttpOptions&, const HttpOptions&) = default;
};

struct MemcacheOptions {
    int setRatio = 1; // memtier --ratio=SET:GET
    int getRatio = 10;
    QString keyPattern = QStringLiteral("R:R"); // memtier --key-pattern, SET:GET of R, S or G
    uint64_t keyMinimum = 0;
    uint64_t keyMaximum = 10'000'000;
    QString keyPrefix = QStringLiteral("memtier-");
    int valueSize = 32; // memtier -d
    int pipeline = 1;
    bool preload = false;            // set every key of the range once before measuring
    double keyStddev = 0;            // memtier --key-stddev of the G pattern; 0: range / 6
    std::optional<double> keyMedian; // memtier --key-median; none: the middle of the range

    friend bool operator==(const MemcacheOptions&, const MemcacheOptions&) = default;
};

// One of memtier_benchmark's --command, with its --command-ratio and
// --command-key-pattern.
struct RedisCommand {
    QString command;                          // "SET __key__ __data__", quoted as memtier takes it
    int ratio = 1;                            // sent this many times in a row
    QString keyPattern = QStringLiteral("R"); // of its __key__ words: R, S or G

    friend bool operator==(const RedisCommand&, const RedisCommand&) = default;
};

// A Redis target: memtier_benchmark's -P redis on the memcache workload model
// (--ratio of SET:GET, --key-pattern, the key range and prefix, -d, --pipeline,
// the preload), or arbitrary commands that replace the SET:GET mix.
struct RedisOptions {
    MemcacheOptions workload;
    // memtier -P: "redis" (RESP2 without a handshake), "resp2" or "resp3"
    // (HELLO 2 or HELLO 3 opens every connection).
    QString protocol = QStringLiteral("redis");
    std::vector<RedisCommand> commands;

    friend bool operator==(const RedisOptions&, const RedisOptions&) = default;
};

struct TcpRrOptions {
    int requestSize = 1; // netperf -r REQ,RESP
    int responseSize = 1;
    bool connectPerRequest = false; // TCP_CRR: a new connection per transaction
    // Raw TLS on every connection (tcp-rr --tls), ALPN offering nothing; the options have the
    // names and meaning of HttpOptions' for https, so one builder and one JSON piece serve both.
    bool tls = false;
    bool tlsInsecure = false;
    QString tlsCaFile;
    QString tlsCertFile;
    QString tlsKeyFile;
    bool tlsResume = true;
    QString tlsVersion;

    friend bool operator==(const TcpRrOptions&, const TcpRrOptions&) = default;
};

struct TcpStreamOptions {
    int chunkSize = 16384; // bytes per send

    friend bool operator==(const TcpStreamOptions&, const TcpStreamOptions&) = default;
};

// netperf UDP_RR: a datagram of requestSize bytes, an answer of responseSize bytes.
struct UdpRrOptions {
    int requestSize = 1; // netperf -r REQ,RESP
    int responseSize = 1;
    int burst = 0; // netperf -b: requests outstanding on a socket beyond the first

    friend bool operator==(const UdpRrOptions&, const UdpRrOptions&) = default;
};

// netperf UDP_STREAM: datagrams of messageSize bytes back to back.
struct UdpStreamOptions {
    // netperf's default -m: the largest UDP payload (a new socket's send buffer is larger).
    int messageSize = 65507;

    friend bool operator==(const UdpStreamOptions&, const UdpStreamOptions&) = default;
};

// A target the deployment lab builds and serves: the
// lab's mode, the server it runs there and that server's options. Its address
// is not the user's: the lab reports it when it is built.
struct LabPlacement {
    QString mode;                                           // one of labModeIds()
    QString server;                                         // one of labServerKinds()
    std::vector<std::pair<QString, QString>> serverOptions; // KEY=VALUE, in order

    friend bool operator==(const LabPlacement&, const LabPlacement&) = default;
};

// Where a lab's load client stands: across the wire from the server host (the
// lab's client namespace), or on the server host itself (its namespace), where
// it reaches each mode as a local client of a docker host or a node does
// (127.0.0.1, a published port through docker-proxy, the host's own address
// DNATed back). One placement per lab, as one wire.
enum class LabClientPlacement { Wire, ServerHost };
// "wire", "server-host"
QString labClientPlacementId(LabClientPlacement placement);
std::optional<LabClientPlacement> labClientPlacementFromId(QStringView id);

// The modes the lab can be asked for: every deploymentModeId() but "custom".
const std::vector<QString>& labModeIds();
// The servers the lab runs: "http", "echo", "sink", "nginx", "apache", "memcached",
// "udp-echo", "udp-sink", "redis".
const std::vector<QString>& labServerKinds();

// One server in one deployment mode. Plain value.
//
// Every option struct is kept so that switching the protocol in an editor
// and back loses nothing; only the active protocol's options are meaningful
// (and only those are saved).
struct Target {
    QUuid id;
    QString name;
    DeploymentMode mode = DeploymentMode::Host;
    QString customMode; // the user's words when mode == Custom
    QString colour;     // "#rrggbb"; kept as text so the model stays free of QtGui
    TargetProtocol protocol = TargetProtocol::Http;
    // Where to connect, "HOST:PORT" (or "[v6]:PORT"). Every protocol but http
    // needs it. For http it may stay empty, meaning the URL's host
    // and port; when set, the connection goes there while the URL still gives
    // the Host header and path (so one URL can be measured through several
    // network paths).
    QString address;
    // Seconds to wait for each response before counting a timeout (ab -s); for
    // UDP, before counting the request lost.
    double responseTimeoutSeconds = kDefaultResponseTimeoutSeconds;
    // Whose CPU is the server's over each point, when the server is local: a
    // process, counted with its children (a master's workers), or a cgroup
    // directory. Unset (0, empty): the process listening on a loopback
    // target's port. A lab target's server is the lab's own, so these go unused.
    int serverPid = 0;
    QString serverCgroup;
    // The server on one of the session's hosts (Session::hosts, by name): its
    // CPU, the host's softirq and other load are read there by that host's
    // agent, serverPid and serverCgroup in that host's terms. Empty: this machine.
    QString serverHost;
    // The server found by name on its host when the sweep starts (the oldest
    // process of that name, with its children), or a container's cgroup found
    // through docker or podman there; instead of serverPid and serverCgroup.
    QString serverProcess;
    QString serverContainer;
    // The hosts whose load agents send this target's load, over SSH, their
    // results merged into the point's (DESIGN.md "Load from several hosts");
    // empty: this machine alone.
    std::vector<QString> loadFrom;

    HttpOptions http;
    MemcacheOptions memcache;
    TcpRrOptions tcpRr;
    TcpStreamOptions tcpStream;
    UdpRrOptions udpRr;
    UdpStreamOptions udpStream;
    RedisOptions redis;
    // Set for a lab target: the sweep runs it through the lab's load agent, at
    // the address the lab reports (`address` and the URL's host are replaced).
    std::optional<LabPlacement> lab;
    // Keys of the file a newer Loadscope wrote that this one does not know,
    // kept as read and saved again (session_json.h).
    QJsonObject unknownFields;

    // The mode as reports and CSV print it: the identifier, or the user's words.
    QString modeLabel() const;
    // The name, or the mode label when the name is empty.
    QString displayName() const;
    // What the target points at: the URL for http, otherwise the address.
    QString endpoint() const;

    friend bool operator==(const Target&, const Target&) = default;
};

// A new target with a fresh id, the given name and mode, and a colour of the
// default palette picked by `index` (so the n-th target of a session gets the
// n-th colour).
Target makeTarget(const QString& name, DeploymentMode mode, int index);
// Distinct, colour-blind-friendly colours, "#rrggbb".
const std::vector<QString>& defaultTargetColours();
// True for "#rrggbb" with hex digits.
bool isValidColour(const QString& colour);

} // namespace loadscope::app
