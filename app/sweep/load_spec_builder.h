#pragma once

#include "app/session/sweep_plan.h"
#include "app/session/target.h"
#include "engine/load_spec.h"

#include <QCoroTask>
#include <QString>
#include <cstdint>
#include <optional>

// Target + concurrency + plan -> engine::LoadSpec. Split in two so that the
// part that can take long (a DNS lookup) is awaited, never blocking a GUI
// thread: draftLoadSpec() checks and builds everything but the address;
// resolveEndpoint() turns the host into a SocketAddress (numeric hosts at
// once, names through QHostInfo).
namespace loadscope::app {

// Where the load goes before name resolution: the target's address when it
// has one, else the host and port of its URL.
struct Endpoint {
    QString host; // without brackets for IPv6
    quint16 port = 0;
};

struct LoadSpecDraft {
    engine::LoadSpec spec; // complete except spec.target
    Endpoint endpoint;
};

// One line on failure, naming what is wrong ("bad URL ...", "https is not
// supported ...", "cannot read body file ..."); the caller prefixes the target.
std::optional<LoadSpecDraft> draftLoadSpec(const Target& target, int concurrency,
                                           const SweepPlan& plan, QString* error);

// "HOST:PORT" or "[v6]:PORT"; one line on failure.
std::optional<Endpoint> parseEndpoint(const QString& text, QString* error);

struct ResolvedAddress {
    std::optional<engine::SocketAddress> address;
    QString error; // "cannot resolve host 'nosuch.example': Host not found"
};
QCoro::Task<ResolvedAddress> resolveEndpoint(Endpoint endpoint);

struct LoadSpecBuild {
    std::optional<engine::LoadSpec> spec;
    QString error;
};
// draftLoadSpec() followed by resolveEndpoint().
QCoro::Task<LoadSpecBuild> buildLoadSpec(Target target, int concurrency, SweepPlan plan);

// The unmeasured preload of a memcache target: every key of its range set
// once, with the measured spec's address, threads and CPUs. nullopt for any
// other protocol or when the target does not ask for a preload.
std::optional<engine::LoadSpec>
memcachePreloadSpec(const Target& target, const engine::LoadSpec& measured, QString* error);

// Worker threads for a plan: its own number, or one per core when 0.
uint32_t planThreadCount(const SweepPlan& plan);

} // namespace loadscope::app
