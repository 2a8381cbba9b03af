#pragma once

#include "app/common/result.h"
#include "app/session/sweep_plan.h"
#include "app/session/target.h"
#include "engine/cpu_sampler.h"
#include "engine/progress.h"
#include "engine/run_result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <optional>

// The load agent protocol, version 2 (DESIGN.md "The load agent protocol"):
// one JSON object per line, "\n"-terminated, over the agent's stdin (requests)
// and stdout (replies), whether the agent is a child process, runs inside the
// lab or on another host behind ssh. Every message has "type"; the first
// request is "hello" with the client's "protocol" version, which the agent
// answers with its own hello or refuses with one error.
//
//   client -> agent
//     {"type":"hello","protocol":2,"software":"loadscope 0.1.0"}
//     {"type":"ping","id":N}
//     {"type":"run","id":N,"target":{session Target},"plan":{session SweepPlan},
//      "concurrency":C,"rate":R,"preload":false,
//      ["startAtUs":T],["allow":["HOST:PORT",...]],
//      ["serverCpu":{"pid":P,"children":true,"cgroup":"/sys/fs/cgroup/..."}]}
//     {"type":"cancel","id":N}
//     {"type":"watch","id":N,["serverCpu":{...}],["process":"nginx"],
//      ["container":"web"],["atUs":T]}
//     {"type":"unwatch","id":N}
//   agent -> client
//     {"type":"hello","protocol":2,"software":"...","netns":inode,
//      ["host":"name"],["cpus":N],["kernel":"6.1.0"]}
//     {"type":"pong","id":N,"clockUs":T}
//     {"type":"progress","id":N,"progress":{engine Progress}}
//     {"type":"result","id":N,"result":{engine RunResult},["measuredFromUs":T]}
//     {"type":"window","id":N,"cpu":{engine CpuWindow},"fromUs":T,"toUs":T,
//      "server":"what was watched"}
//     {"type":"error","id":N,"message":"one line"}   (id 0: not about a request)
//
// Times "...Us" are microseconds since the epoch on the agent's clock
// (CLOCK_REALTIME): the client measures each agent's offset from its own
// clock with pings and names the moment a run starts in the agent's time.
// Keys in [brackets] are optional, written only when set, and an agent that does
// not know one ignores it (its results then lack that figure), so they need no
// new protocol version; new message types do.
//
// These functions are the mapping only; load_agent.h and agent_client.h do the I/O.
namespace loadscope::app {

inline constexpr int kAgentProtocolVersion = 2;
// A line longer than this is refused rather than buffered: a result with
// every histogram is a few hundred KiB at most.
inline constexpr qsizetype kMaxAgentLineBytes = qsizetype(64) << 20;

// One point for the agent to run: what the spec builder takes, so that the
// agent builds the engine LoadSpec with the one builder (load_spec_builder.h).
struct AgentRunRequest {
    Target target; // its address is where the agent connects
    SweepPlan plan;
    int concurrency = 1;
    double rate = 0;      // requests/s over all connections; 0: closed loop
    bool preload = false; // the target's unmeasured memcached preload instead
    // Whose CPU is the server's, as the agent's /proc names it: the lab's server
    // of the target's mode. Empty: no server figure. (Threads are never sent:
    // they are the client process's own.)
    engine::ServerCpuSource serverCpu = {};
    // When the run starts, on the agent's clock (µs since the epoch): the
    // moment several hosts start together; 0: at once.
    int64_t startAtUs = 0;
    // The endpoints ("HOST:PORT") of the targets the user chose to load from
    // this agent's host; outside the lab the agent sends only to loopback and
    // to these (agent_safety.h).
    QStringList allow = {};
};

// A server whose CPU an agent on its host watches over a point's measured
// window: a PID (with children) or cgroup, or a process or container found
// there by name.
struct AgentWatchRequest {
    engine::ServerCpuSource serverCpu;
    QString process;   // the oldest process of this name, with its children
    QString container; // its cgroup, found through docker or podman
    // When the window begins, on the agent's clock; 0: at once.
    int64_t atUs = 0;
};

// What an agent watched: the machine's and the server's CPU between its two
// samples, and the samples' times on its clock.
struct AgentWindow {
    engine::CpuWindow cpu;
    int64_t fromUs = 0;
    int64_t toUs = 0;
    QString server; // what it took for the server: "nginx: pid 812 with its children"
};

struct AgentMessage {
    enum class Type {
        Hello,
        Run,
        Cancel,
        Progress,
        Result,
        Error,
        Ping,
        Pong,
        Watch,
        Unwatch,
        Window
    };
    Type type = Type::Error;
    uint64_t id = 0; // the request a message is about

    int protocol = kAgentProtocolVersion; // hello
    QString software;                     // hello: "loadscope 0.1.0"
    uint64_t netns = 0;                   // hello from the agent: its network namespace inode
    QString hostName;                     // hello from the agent: its machine's name
    int cpus = 0;                         // hello from the agent: CPUs online there
    QString kernel;                       // hello from the agent: its kernel's release
    int64_t clockUs = 0;                  // pong: the agent's clock when it answered
    std::optional<AgentRunRequest> run;
    std::shared_ptr<const engine::Progress> progress;
    std::shared_ptr<const engine::RunResult> result;
    int64_t measuredFromUs = 0; // result: its measured time's start on the agent's clock
    std::optional<AgentWatchRequest> watch;
    std::optional<AgentWindow> window;
    QString message; // error: one line
};

// The agent's hello, saying where it runs (netns, host name, CPUs, kernel).
AgentMessage agentHello(uint64_t netns = 0);
// The client's hello.
AgentMessage clientHello();
AgentMessage agentError(uint64_t id, QString message);

// The message as one line, "\n" included.
QByteArray encodeAgentMessage(const AgentMessage& message);
// One line (with or without its "\n") back into a message, or one Format
// error naming what is wrong: "not JSON ...", "field "type" has an unknown value ...".
Result<AgentMessage> decodeAgentMessage(QByteArrayView line);

// What an agent says of a client's hello: nothing when it speaks that version.
// `clientSoftware` names the other end in the refusal.
Result<void> checkAgentProtocol(int clientVersion, const QString& clientSoftware = {});

// The one line a version skew between the two ends comes to, from their
// hellos: empty when both run the same Loadscope.
QString versionSkewLine(const QString& agentSoftware);

} // namespace loadscope::app
