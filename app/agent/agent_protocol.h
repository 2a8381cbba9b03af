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
#include <cstdint>
#include <memory>
#include <optional>

// The load agent protocol, version 1 (DESIGN.md "The load agent protocol"):
// one JSON object per line, "\n"-terminated, over the agent's stdin (requests)
// and stdout (replies). Every message has "type"; the first request is
// "hello" with the client's "protocol" version, which the agent answers with
// its own hello or refuses with one error.
//
//   client -> agent
//     {"type":"hello","protocol":1,"software":"loadscope 0.1.0"}
//     {"type":"run","id":N,"target":{session Target},"plan":{session SweepPlan},
//      "concurrency":C,"rate":R,"preload":false,
//      ["serverCpu":{"pid":P,"children":true,"cgroup":"/sys/fs/cgroup/..."}]}
//     {"type":"cancel","id":N}
//   agent -> client
//     {"type":"hello","protocol":1,"software":"...","netns":inode}
//     {"type":"progress","id":N,"progress":{engine Progress}}
//     {"type":"result","id":N,"result":{engine RunResult}}
//     {"type":"error","id":N,"message":"one line"}   (id 0: not about a run)
//
// Keys in [brackets] are optional, written only when set, and an agent that does
// not know one ignores it (its results then lack that figure), so they need no
// new protocol version.
//
// These functions are the mapping only; load_agent.h and agent_client.h do the I/O.
namespace loadscope::app {

inline constexpr int kAgentProtocolVersion = 1;
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
};

struct AgentMessage {
    enum class Type { Hello, Run, Cancel, Progress, Result, Error };
    Type type = Type::Error;
    uint64_t id = 0; // the run a run, cancel, progress, result or error is about

    int protocol = kAgentProtocolVersion; // hello
    QString software;                     // hello: "loadscope 0.1.0"
    uint64_t netns = 0;                   // hello from the agent: its network namespace inode
    std::optional<AgentRunRequest> run;
    std::shared_ptr<const engine::Progress> progress;
    std::shared_ptr<const engine::RunResult> result;
    QString message; // error: one line
};

AgentMessage agentHello(uint64_t netns = 0);
AgentMessage agentError(uint64_t id, QString message);

// The message as one line, "\n" included.
QByteArray encodeAgentMessage(const AgentMessage& message);
// One line (with or without its "\n") back into a message, or one Format
// error naming what is wrong: "not JSON ...", "field "type" has an unknown value ...".
Result<AgentMessage> decodeAgentMessage(QByteArrayView line);

// What an agent says of a client's hello: nothing when it speaks that version.
Result<void> checkAgentProtocol(int clientVersion);

} // namespace loadscope::app
