#include "engine/run_result.h"

#include <algorithm>

namespace loadscope::engine {

void accumulate(RunResult& into, const RunResult& part) {
    into.complete += part.complete;
    into.failed += part.failed;
    for (size_t i = 0; i < kErrorClassCount; ++i)
        into.errors[i] += part.errors[i];
    into.non2xx += part.non2xx;
    into.keepAlive += part.keepAlive;
    into.connectionsOpened += part.connectionsOpened;
    into.streamsStalled += part.streamsStalled;
    into.answersDuplicate += part.answersDuplicate;
    into.answersLate += part.answersLate;
    into.answersStray += part.answersStray;
    into.answersOutOfOrder += part.answersOutOfOrder;
    into.datagramsSent += part.datagramsSent;
    into.sendErrors += part.sendErrors;
    into.sinkReports += part.sinkReports;
    into.sinkDatagrams += part.sinkDatagrams;
    into.sinkBytes += part.sinkBytes;
    into.sinkOutOfOrder += part.sinkOutOfOrder;
    into.sinkDuplicates += part.sinkDuplicates;
    for (const auto& [code, count] : part.statusCodes)
        into.statusCodes[code] += count;
    for (const auto& [code, count] : part.errorReplyCodes)
        into.errorReplyCodes[code] += count;
    into.bytesTotal += part.bytesTotal;
    into.bytesBody += part.bytesBody;
    into.bytesSent += part.bytesSent;
    into.durationSeconds = std::max(into.durationSeconds, part.durationSeconds);
    into.threads += part.threads;
    if (into.serverSoftware.empty())
        into.serverSoftware = part.serverSoftware;
    if (into.documentLength < 0)
        into.documentLength = part.documentLength;
    if (into.firstError.empty())
        into.firstError = part.firstError;
    into.total.merge(part.total);
    into.uncorrected.merge(part.uncorrected);
    into.tls.merge(part.tls);
    into.tlsHandshakes += part.tlsHandshakes;
    into.tlsResumed += part.tlsResumed;
    if (into.tlsProtocol.empty())
        into.tlsProtocol = part.tlsProtocol;
    if (into.tlsCipher.empty())
        into.tlsCipher = part.tlsCipher;
    into.offeredRate += part.offeredRate;
    into.maxBacklog += part.maxBacklog;
    into.clientSaturated = into.clientSaturated || part.clientSaturated;
    into.connect.merge(part.connect);
    into.waiting.merge(part.waiting);
    into.processing.merge(part.processing);
    for (const OperationStats& op : part.operations) {
        auto mine = std::find_if(into.operations.begin(), into.operations.end(),
                                 [&](const OperationStats& o) { return o.name == op.name; });
        if (mine == into.operations.end()) {
            into.operations.push_back(op);
            continue;
        }
        mine->count += op.count;
        mine->hits += op.hits;
        mine->misses += op.misses;
        mine->bytesReceived += op.bytesReceived;
        mine->latency.merge(op.latency);
    }
    into.hits += part.hits;
    into.misses += part.misses;
    into.threadCpus.insert(into.threadCpus.end(), part.threadCpus.begin(), part.threadCpus.end());
    into.clientCpuSeconds += part.clientCpuSeconds;
    // Another machine's CPU is not this one's: the first sampled window is kept.
    if (!into.cpu.valid)
        into.cpu = part.cpu;
    into.cancelled = into.cancelled || part.cancelled;
    into.unreachable = into.unreachable || part.unreachable;
}

} // namespace loadscope::engine
