#pragma once

#include "app/common/result.h"
#include "app/session/target.h"

#include <QString>
#include <cstdint>
#include <vector>

// The rules a target's and a plan's fields obey, each written once and used
// by the CLI's flags, the window's fields, session loading and the spec
// builder alike, so that what one of them accepts none of the others refuses.
namespace loadscope::app {

struct HttpOptions;
struct UdpRrOptions;
struct UdpStreamOptions;
struct RedisCommand;

// Where the load goes before name resolution.
struct Endpoint {
    QString host; // without brackets for IPv6
    quint16 port = 0;

    friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// "HOST:PORT" or "[v6]:PORT", port 1 to 65535.
Result<Endpoint> parseEndpoint(const QString& text);
// The endpoint as parseEndpoint() reads it.
QString endpointText(const Endpoint& endpoint);

// The bytes HTTP allows on the wire, so that what is typed cannot put a
// second request or header there (RFC 9110 5.1, 5.5, 9.1). Each refusal is
// one line naming the field.
//
// A token (RFC 9110 tchar): not empty, letters, digits and !#$%&'*+-.^_`|~.
bool isHttpToken(const QString& text);
// A header name is a token (spaces, colons and non-ASCII refused).
Result<void> checkHeaderName(const QString& name);
// A method is a token: "GET", "PROPFIND"; not empty, no spaces.
Result<void> checkHttpMethod(const QString& method);
// A header value holds no control character but HTAB: no CR or LF (which
// would end the header and start another), no NUL.
Result<void> checkHeaderValue(const QString& name, const QString& value);
// The Content-Type of a body (-T) as a header value.
Result<void> checkContentType(const QString& contentType);

// A TLS version to offer alone: "1.2" or "1.3"; empty means either.
Result<void> checkTlsVersion(const QString& version);
// A client key goes with a client certificate: a key file without a certificate file is
// refused (a certificate without a key file has its key inside). Paths as typed; whether the
// files are there is a question for the machine that runs.
Result<void> checkTlsClientKey(const QString& certFile, const QString& keyFile);

// HTTP/2's settings as h2load takes them: 1 to kMaxHttp2Streams streams per
// connection (-m), flow-control windows of 2^bits - 1 bytes for bits 0 to
// kMaxHttp2WindowBits (-w, -W).
inline constexpr int kMaxHttp2Streams = 1024;
inline constexpr int kMaxHttp2WindowBits = 30;
// An HTTP/2 target's settings are in range and it asks for none of the
// HTTP/1 options HTTP/2 has no meaning for (a pipeline deeper than 1,
// HTTP/1.0). Nothing to say about an HTTP/1 target.
Result<void> checkHttp2(const HttpOptions& options);

// Where a target's server CPU is read (Target::serverPid, serverCgroup). Only the
// syntax: whether the process or cgroup is there is a question for the machine
// that runs the sweep, and an absent one costs the server figure, not the run.
// A PID is 1 to the kernel's PID_MAX_LIMIT.
inline constexpr int kMaxPid = 1 << 22;
// "1234": the server's PID, as the window's field takes it.
Result<int> parseServerPid(const QString& text);
// An absolute directory path, one line: "/sys/fs/cgroup/system.slice/nginx.service".
Result<void> checkServerCgroup(const QString& path);

// CPU numbers and ranges as taskset takes them, "0-3,8", in the order given
// (worker thread i is pinned to the i-th CPU). Empty text: no pinning. Only
// the syntax: a session may name CPUs of another machine.
Result<std::vector<int>> parseCpuList(const QString& text);
// Every CPU exists on this machine (what a run here needs).
Result<void> checkCpusExist(const std::vector<int>& cpus);

// Worker threads of a run: `requested`, or one per core when 0.
uint32_t threadCount(int requested);

// A memcached set:get ratio, "1:10"; not both 0.
struct MemcacheRatio {
    int sets = 1;
    int gets = 10;
};
Result<MemcacheRatio> parseMemcacheRatio(const QString& text);
// memtier's --key-pattern, SET:GET of R, S or G.
Result<void> checkKeyPattern(const QString& pattern);

// UDP (udp-rr, udp-stream): a datagram of 1 to kMaxDatagramBytes, the largest UDP payload
// over IPv4 (netperf caps -m there too); netperf's -b of 0 to kMaxUdpBurst more requests
// outstanding on a socket. Each refusal is one line naming the option.
inline constexpr int kMaxDatagramBytes = 65507;
inline constexpr int kMaxUdpBurst = 256;
Result<void> checkUdpRr(const UdpRrOptions& options);
Result<void> checkUdpStream(const UdpStreamOptions& options);
// memtier_benchmark's -P for Redis: "redis", "resp2" or "resp3".
Result<void> checkRedisProtocol(const QString& protocol);
// memtier's --command-ratio goes up to this.
inline constexpr int kMaxRedisCommandRatio = 1'000'000;
// One --command: its words split as memtier splits them (quotes, __key__,
// __data__), a ratio of 1 to kMaxRedisCommandRatio, a key pattern R, S or G.
Result<void> checkRedisCommand(const RedisCommand& command);

// A lab server's options (`lab sandbox --server-opt KEY=VALUE`, a lab
// target's "serverOptions"): the keys a server kind ("http", "nginx", ...)
// takes, each a whole number in a range. The document of http, nginx and
// apache is at most kMaxLabDocumentBytes: the lab waits 5 s for each mode's
// server to listen, and the embedded server builds its document before it
// does (64 MiB took 0.8 s on a loaded two-core machine, 1 GiB 11 s).
inline constexpr uint64_t kMaxLabDocumentBytes = uint64_t(64) << 20;
struct LabServerOptionRange {
    QString key;
    uint64_t minimum = 0;
    uint64_t maximum = 0;
};
// The options `server` takes: every server of the lab "backends" (cluster-ip's pods), and its
// own; none for a kind the lab has not.
std::vector<LabServerOptionRange> labServerOptionRanges(const QString& server);
// One option: "size=-1: expected a whole number from 0 to 67108864",
// "colour: nginx takes size" (the caller names where it came from).
Result<void> checkLabServerOption(const QString& server, const QString& key, const QString& value);

// Why a lab mode cannot have its load client on the server host
// (LabClientPlacement::ServerHost), or empty when it can: a path across two
// nodes (overlay-vxlan) has no client on the server's own node, and the host
// cannot reach a child of its own device (macvlan, ipvlan) or a container on
// a switch its own stack is not a port of (ovs-bridge).
QString labServerHostRefusal(const QString& mode);
// Every mode of `modes` can have its client where `placement` puts it; else one
// line naming the first mode that cannot and why ("client placement
// server-host: overlay-vxlan cannot have it: ..."). The one rule for `lab
// sandbox --client-placement`, a session's lab and the window's choice.
Result<void> checkLabClientPlacement(LabClientPlacement placement,
                                     const std::vector<QString>& modes);

// ab's rule: a point ends after its requests, so it cannot open more
// connections than it has requests.
Result<void> checkRequestsCoverConcurrency(uint64_t requests, uint64_t concurrency);

} // namespace loadscope::app
