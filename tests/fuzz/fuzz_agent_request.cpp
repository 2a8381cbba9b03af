// Feeds arbitrary bytes to the load agent's request parser as one line of its
// stdin, as `lab agent` reads them, then what the agent does with a run
// before it would connect: the spec built by the one builder. Nothing runs
// and nothing connects.
//
// Besides the sanitizers' checks (of the parser and the engine's checks; the
// builder itself is built without them, see CMakeLists.txt) it asserts what
// the agent promises: a refusal is one line; a request it takes encodes and
// decodes back to the same request; a run's rate is 0 or within the one
// range; a spec the builder makes from it is one the engine would run, never
// one it refuses for a number (a rate, a time, a concurrency) the builder let
// through before its arithmetic.

#include "app/agent/agent_protocol.h"
#include "app/sweep/load_spec_builder.h"
#include "engine/load_limits.h"
#include "engine/socket_address.h"

#include <QByteArray>
#include <QString>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace loadscope;
using namespace loadscope::app;

namespace {

void check(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "contract violated: %s\n", what);
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray line(reinterpret_cast<const char*>(data), qsizetype(size));
    const Result<AgentMessage> decoded = decodeAgentMessage(line);
    if (!decoded) {
        check(!decoded.error().message.isEmpty(), "a refusal says why");
        check(!decoded.error().message.contains(QLatin1Char('\n')), "a refusal is one line");
        return 0;
    }
    const AgentMessage& message = *decoded;
    const Result<AgentMessage> again = decodeAgentMessage(encodeAgentMessage(message));
    check(again.ok(), "a request taken encodes to one taken again");
    check(again->type == message.type && again->id == message.id, "type and id survive");
    if (message.type != AgentMessage::Type::Run || !message.run)
        return 0;
    AgentRunRequest run = *message.run;
    check(again->run && again->run->rate == run.rate &&
              again->run->concurrency == run.concurrency && again->run->plan == run.plan,
          "a run survives its encoding");
    check(run.rate == 0 || (run.rate >= engine::kMinRate && run.rate <= engine::kMaxRate),
          "a run's rate is 0 or within the one range");
    // No file of this machine's is read here: a fuzzed path could name any.
    run.target.http.bodyFile.clear();
    for (auto* options :
         {&run.target.http.tlsCaFile, &run.target.http.tlsCertFile, &run.target.http.tlsKeyFile,
          &run.target.tcpRr.tlsCaFile, &run.target.tcpRr.tlsCertFile, &run.target.tcpRr.tlsKeyFile})
        options->clear();
    auto draft = draftLoadSpec(run.target, run.concurrency, run.plan, run.rate);
    if (!draft) {
        check(!draft.error().message.contains(QLatin1Char('\n')), "a builder refusal is one line");
        return 0;
    }
    engine::LoadSpec& spec = draft->spec;
    spec.target = *engine::SocketAddress::fromNumeric("127.0.0.1", 9);
    if (const auto problem = engine::validateLoadSpec(spec))
        check(problem->find("rate") == std::string::npos &&
                  problem->find("timeout") == std::string::npos &&
                  problem->find("duration") == std::string::npos &&
                  problem->find("concurrency") == std::string::npos,
              "the builder lets no number through that the engine refuses");
    return 0;
}
