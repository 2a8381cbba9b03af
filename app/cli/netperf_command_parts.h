#pragma once

// What the netperf-shaped load commands share (tcp-rr, tcp-stream in
// tcp_command.cpp; udp-rr, udp-stream in udp_command.cpp): the peer and -c,
// netperf's -l and -r, and the parse -> build -> run -> print of a command
// once its options are declared.
#include "app/cli/commands.h"
#include "app/cli/one_shot.h"
#include "app/cli/run_options.h"
#include "app/report/netperf_report.h"

#include <QCommandLineParser>
#include <QJsonObject>
#include <cstdint>
#include <optional>
#include <utility>

namespace loadscope::cli::netperf {

inline constexpr double kDefaultSeconds = 10; // netperf's -l
inline constexpr uint64_t kMaxConnections = 1'000'000;
inline constexpr uint64_t kMaxTransactions = uint64_t(1) << 50;

struct Invocation {
    OneShot shot;
    OutputOptions output;
    app::NetperfRunSetup setup;
};

// HOST:PORT and -c, the options every one of these commands has.
void addConnectionOptions(QCommandLineParser& parser);
// A new socket's buffer sizes (of the setup's test, TCP or UDP): what the
// engine's sockets get, since it never sets them.
void readDefaultSocketSizes(int family, app::NetperfRunSetup& setup);
// HOST:PORT and -c into a target of `protocol` and its one-point plan.
app::Result<Invocation> readCommon(const QCommandLineParser& parser, app::TargetProtocol protocol);
// -l SECONDS (default 10) into the plan; netperf's "-l -N" (N transactions)
// and -n are accepted where `transactions` is given; with -n and -l seconds,
// whichever ends first.
app::Result<void> readLength(const QCommandLineParser& parser, app::SweepPlan& plan,
                             std::optional<uint64_t> transactions);
// "REQ,RESP", or "N" for both, as netperf's -r; each from 1 to `maxBytes`.
app::Result<std::pair<int, int>> parseSizes(const QString& text, uint32_t maxBytes);

using ReadInvocation = app::Result<Invocation> (*)(const QCommandLineParser&);
using FormatReport = QString (*)(const engine::RunResult&, const app::NetperfRunSetup&);
using ToJson = QJsonObject (*)(const app::PointResult&, const app::NetperfRunSetup&);

// parse -> build -> run -> print, once the options are declared.
int parseAndRun(QCommandLineParser& parser, const QStringList& arguments, const CliIo& io,
                ReadInvocation read, FormatReport format, ToJson toJson);

} // namespace loadscope::cli::netperf
