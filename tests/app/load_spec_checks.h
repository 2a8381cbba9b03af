#pragma once

#include "engine/load_spec.h"

#include <QString>
#include <QStringList>
#include <string>
#include <typeinfo>

// Field-by-field comparison of two LoadSpecs, the workload included: the
// same protocol type and properties, and the same request bytes from the
// same sessions (a few connections, a few requests each, so that random keys
// and per-connection starts are compared too).
namespace loadscope::testing {

// The first `requests` requests of connection `connection`, as the engine sends them.
inline std::string requestBytes(const engine::Protocol& protocol, uint32_t connection,
                                uint64_t seed, int requests = 4) {
    auto session = protocol.newSession(connection, seed);
    std::string out;
    if (protocol.isStream())
        return std::string(protocol.streamChunk());
    for (int i = 0; i < requests; ++i)
        session->appendRequest(out);
    return out;
}

// Empty when `a` and `b` run the same load; else one line per difference.
inline QString loadSpecDifferences(const engine::LoadSpec& a, const engine::LoadSpec& b) {
    QStringList differences;
    const auto differ = [&](const char* field, auto x, auto y) {
        if (!(x == y))
            differences << QString::fromLatin1(field);
    };
    differ("target", a.target.toString(), b.target.toString());
    differ("concurrency", a.concurrency, b.concurrency);
    differ("threads", a.threads, b.threads);
    differ("pipeline", a.pipeline, b.pipeline);
    differ("requests", a.requests, b.requests);
    differ("duration", a.duration, b.duration);
    differ("warmup", a.warmup, b.warmup);
    differ("requestTimeout", a.requestTimeout, b.requestTimeout);
    differ("connectTimeout", a.connectTimeout, b.connectTimeout);
    differ("cpus", a.cpus, b.cpus);
    differ("progressInterval", a.progressInterval, b.progressInterval);
    differ("seed", a.seed, b.seed);
    differ("rate", a.rate, b.rate);
    differ("arrival", a.arrival, b.arrival);
    differ("timerSlack", a.timerSlack, b.timerSlack);
    differ("wakeCoalescing", a.wakeCoalescing, b.wakeCoalescing);
    differ("profile", a.profile, b.profile);
    if (!a.protocol || !b.protocol) {
        differ("protocol", bool(a.protocol), bool(b.protocol));
        return differences.join(QLatin1Char('\n'));
    }
    const engine::Protocol& p = *a.protocol;
    const engine::Protocol& q = *b.protocol;
    differ("protocol type", std::string(typeid(p).name()), std::string(typeid(q).name()));
    differ("operationNames", p.operationNames(), q.operationNames());
    differ("keepAlive", p.keepAlive(), q.keepAlive());
    differ("checksDocumentLength", p.checksDocumentLength(), q.checksDocumentLength());
    differ("isStream", p.isStream(), q.isStream());
    differ("streamChunk", std::string(p.streamChunk()), std::string(q.streamChunk()));
    const engine::DatagramShape* pd = p.datagrams();
    const engine::DatagramShape* qd = q.datagrams();
    differ("datagrams", bool(pd), bool(qd));
    if (pd && qd) {
        differ("datagram payload", std::string(pd->payload), std::string(qd->payload));
        differ("answer size", pd->answerBytes, qd->answerBytes);
        differ("sequenced", pd->sequenced, qd->sequenced);
    }
    for (uint32_t connection : {0u, 1u, 7u})
        if (requestBytes(p, connection, a.seed) != requestBytes(q, connection, b.seed))
            differences << QStringLiteral("request bytes of connection %1").arg(connection);
    return differences.join(QLatin1Char('\n'));
}

} // namespace loadscope::testing
