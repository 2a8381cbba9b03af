#pragma once

// Sessions with results built by hand for the session suites: engine
// histograms are filled directly, so every figure a test checks is known.

#include "app/session/session.h"
#include "engine/histogram.h"

#include <QByteArray>
#include <QDateTime>
#include <QTimeZone>
#include <string>
#include <utility>
#include <vector>

namespace loadscope::test {

inline QByteArray histogramBytes(const engine::Histogram& histogram) {
    const std::string bytes = histogram.serialize();
    return QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size()));
}

// `latencyNs` are (value, count) pairs recorded into the total histogram.
inline app::PointResult measuredResult(const QUuid& target, int concurrency, int repetition,
                                       uint64_t complete, double seconds,
                                       const std::vector<std::pair<int64_t, uint64_t>>& latencyNs) {
    app::PointResult result;
    result.targetId = target;
    result.concurrency = concurrency;
    result.repetition = repetition;
    result.source.tool = QStringLiteral("loadscope");
    result.source.toolVersion = QStringLiteral("0.1.0");
    result.environment.startedAt =
        QDateTime(QDate(2026, 11, 30), QTime(10, 0, repetition, 250), QTimeZone(3600));
    result.environment.hostName = QStringLiteral("bench-1");
    result.environment.kernel = QStringLiteral("6.1.0-18-amd64");
    result.environment.cpuModel = QStringLiteral("Test CPU @ 2.0GHz");
    result.environment.cores = 2;
    result.environment.loadscopeVersion = QStringLiteral("0.1.0");
    result.environment.threadPlacement = QStringLiteral("pinned to CPUs 0,1");
    result.complete = complete;
    result.durationSeconds = seconds;
    result.threads = 2;
    result.bytesTotal = complete * 5141;
    result.bytesBody = complete * 4897;
    result.bytesSent = complete * 80;
    result.keepAlive = complete;
    result.statusCodes[200] = complete;
    result.serverSoftware = QStringLiteral("loadscope-serve/0.1");
    result.documentLength = 4897;

    engine::Histogram total;
    engine::Histogram connect;
    for (const auto& [value, count] : latencyNs) {
        total.recordN(value, count);
        connect.recordN(0, count);
    }
    result.totalHistogram = histogramBytes(total);
    result.total = app::summarize(total);
    result.connectHistogram = histogramBytes(connect);
    result.connect = app::summarize(connect);
    return result;
}

// An ab report as an importer would hold it: printed figures, no histograms.
inline app::PointResult importedResult(const QUuid& target, int concurrency, int repetition,
                                       double requestsPerSecond, double p99Ms) {
    app::PointResult result;
    result.targetId = target;
    result.concurrency = concurrency;
    result.repetition = repetition;
    result.source.kind = app::ResultSource::Kind::Imported;
    result.source.tool = QStringLiteral("ab");
    result.source.toolVersion = QStringLiteral("2.3");
    result.source.file = QStringLiteral("/home/user/notes/ab-nat.txt");
    result.source.fingerprint = QStringLiteral("3f2a");
    result.complete = 100000;
    result.durationSeconds = 100000 / requestsPerSecond;
    result.reportedRequestsPerSecond = requestsPerSecond;
    result.reportedTransferKiBps = 1234.5;
    result.total.minMs = 0.1;
    result.total.meanMs = 1.5;
    result.total.sdMs = 0.4;
    result.total.maxMs = 12;
    result.total.percentilesMs = {{50, 1.0}, {66, 1.2}, {99, p99Ms}, {100, 12}};
    result.connect.meanMs = 0;
    return result;
}

// A fixed-rate result of a rate sweep as a test states it: the rate level,
// the rate achieved and the corrected p50/p99/p99.9 (ms); the uncorrected
// p99 is a tenth of the corrected one.
inline app::PointResult rateResult(const QUuid& target, int connections, double offeredRate,
                                   int repetition, double achievedRate, double p50Ms, double p99Ms,
                                   double p999Ms) {
    app::PointResult result;
    result.targetId = target;
    result.concurrency = connections;
    result.repetition = repetition;
    result.source.tool = QStringLiteral("loadscope");
    result.loadModel = app::LoadModel::FixedRate;
    result.offeredRate = offeredRate;
    result.durationSeconds = 10;
    result.complete = uint64_t(achievedRate * 10);
    result.threads = 2;
    result.total.meanMs = p50Ms;
    result.total.percentilesMs = {{50, p50Ms}, {99, p99Ms}, {99.9, p999Ms}};
    result.uncorrected.percentilesMs = {{50, p50Ms / 10}, {99, p99Ms / 10}, {99.9, p999Ms / 10}};
    return result;
}

inline app::Target httpTarget(const QString& name, app::DeploymentMode mode, int port, int index) {
    app::Target target = app::makeTarget(name, mode, index);
    target.http.url = QStringLiteral("http://127.0.0.1:%1/").arg(port);
    return target;
}

// Two http targets (host, container-nat) at c=1 whose requests/s (in 1 s) are
// given per repetition; every request of the other target takes otherNs.
inline app::Session twoTargetRates(const std::vector<uint64_t>& host,
                                   const std::vector<uint64_t>& other, int64_t otherNs,
                                   app::SweepOrder order = app::SweepOrder::Interleaved) {
    app::Session session;
    session.plan.order = order;
    session.targets.push_back(httpTarget(QStringLiteral("host"), app::DeploymentMode::Host, 80, 0));
    session.targets.push_back(
        httpTarget(QStringLiteral("container-nat"), app::DeploymentMode::ContainerNat, 8080, 1));
    session.baselineTargetId = session.targets[0].id;
    for (size_t i = 0; i < host.size(); ++i)
        session.results.push_back(
            measuredResult(session.targets[0].id, 1, int(i), host[i], 1.0, {{1'000'000, 10}}));
    for (size_t i = 0; i < other.size(); ++i)
        session.results.push_back(
            measuredResult(session.targets[1].id, 1, int(i), other[i], 1.0, {{otherNs, 10}}));
    return session;
}

// Two http targets (host, container-nat), levels 1 and 10, three repetitions,
// every point measured. requests/s at c=1: host 100, 110, 120 and nat 90, 95,
// 100; at c=10 ten times that.
inline app::Session twoTargetSession() {
    app::Session session;
    session.name = QStringLiteral("nginx: host vs NAT");
    session.notes = QStringLiteral("docker run -p 8080:80 nginx");
    session.targets.push_back(httpTarget(QStringLiteral("host"), app::DeploymentMode::Host, 80, 0));
    session.targets.push_back(
        httpTarget(QStringLiteral("container-nat"), app::DeploymentMode::ContainerNat, 8080, 1));
    session.baselineTargetId = session.targets[0].id;
    session.plan.concurrencyLevels = {1, 10};
    session.plan.durationSeconds = 1;
    session.plan.repetitions = 3;
    const uint64_t hostCounts[] = {100, 110, 120};
    const uint64_t natCounts[] = {90, 95, 100};
    for (int level : session.plan.concurrencyLevels) {
        for (int repetition = 0; repetition < 3; ++repetition) {
            const auto r = static_cast<size_t>(repetition);
            session.results.push_back(measuredResult(
                session.targets[0].id, level, repetition, hostCounts[r] * uint64_t(level), 1.0,
                {{250'000, 50}, {1'000'000 + 100'000 * repetition, 45}, {9'000'000, 5}}));
            session.results.push_back(measuredResult(
                session.targets[1].id, level, repetition, natCounts[r] * uint64_t(level), 1.0,
                {{300'000, 50}, {1'500'000, 45}, {12'000'000 + 10'000 * repetition, 5}}));
        }
    }
    return session;
}

} // namespace loadscope::test
