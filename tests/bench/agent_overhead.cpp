// The cost of the load agent: the same point (one HTTP target, closed loop,
// fixed duration) run in-process (LoadRunBridge) and through
// `loadscope-cli lab agent` (AgentClient, no lab: loopback), alternating,
// against one embedded HTTP server on 127.0.0.1. Prints requests/s of each
// round and the ratio of the medians (agent / in-process).
//
//   agent_overhead --cli build/release/bin/loadscope-cli [--rounds 5]
//                  [--seconds 5] [--connections 100] [--threads 1]
#include "app/servers/http_server.h"
#include "app/sweep/agent_client.h"
#include "app/sweep/load_run_bridge.h"
#include "app/sweep/load_spec_builder.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QCoroTask>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <vector>

using namespace loadscope;

namespace {

struct Options {
    QString cli;
    int rounds = 5;
    double seconds = 5;
    int connections = 100;
    int threads = 1;
};

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n == 0 ? 0 : n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

QCoro::Task<app::Result<engine::RunResult>> runOnce(app::PointRun* run) {
    run->start();
    auto result = co_await run->result();
    run->deleteLater();
    co_return result;
}

QCoro::Task<int> bench(Options options) {
    app::HttpServer server;
    if (const auto started = server.start(); !started) {
        std::fprintf(stderr, "agent_overhead: %s\n", qPrintable(started.error().toString()));
        co_return 1;
    }
    app::Target target = app::makeTarget(QStringLiteral("bench"), app::DeploymentMode::Host, 0);
    target.http.url = QStringLiteral("http://127.0.0.1:%1/").arg(server.port());
    app::SweepPlan plan;
    plan.limit = app::PointLimit::Duration;
    plan.durationSeconds = options.seconds;
    plan.threads = options.threads;
    plan.concurrencyLevels = {options.connections};

    app::AgentClient agent({options.cli, QStringLiteral("lab"), QStringLiteral("agent")});
    if (const auto opened = co_await agent.open(std::chrono::seconds(20)); !opened) {
        std::fprintf(stderr, "agent_overhead: %s\n", qPrintable(opened.error().message));
        co_return 1;
    }
    std::vector<double> local;
    std::vector<double> remote;
    std::printf("round  in-process rps  agent rps  agent/in-process\n");
    for (int round = 0; round < options.rounds; ++round) {
        double rps[2] = {0, 0};
        // Alternating which goes first: drift over a round falls on both alike.
        for (int k = 0; k < 2; ++k) {
            const bool viaAgent = (round + k) % 2 == 1;
            app::PointRun* run = nullptr;
            if (viaAgent) {
                run = agent.newRun({target, plan, options.connections, 0, false});
            } else {
                auto draft = app::draftLoadSpec(target, options.connections, plan);
                if (!draft)
                    co_return 1;
                draft->spec.target =
                    *engine::SocketAddress::fromNumeric("127.0.0.1", server.port());
                run = new app::LoadRunBridge(std::move(draft->spec));
            }
            const auto result = co_await runOnce(run);
            if (!result || result->failed > 0) {
                std::fprintf(stderr, "agent_overhead: %s\n",
                             result ? "failed requests" : qPrintable(result.error().message));
                co_return 1;
            }
            rps[viaAgent ? 1 : 0] = result->requestsPerSecond();
        }
        local.push_back(rps[0]);
        remote.push_back(rps[1]);
        std::printf("%5d  %14.0f  %9.0f  %16.3f\n", round + 1, rps[0], rps[1], rps[1] / rps[0]);
    }
    const double ratio = median(remote) / median(local);
    std::printf("median %13.0f  %9.0f  %16.3f  (goal: within 2 %%)\n", median(local),
                median(remote), ratio);
    co_await agent.close();
    server.stop();
    co_return 0;
}

} // namespace

int main(int argc, char* argv[]) {
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption cli(QStringLiteral("cli"), QStringLiteral("loadscope-cli"),
                                 QStringLiteral("path"));
    const QCommandLineOption rounds(QStringLiteral("rounds"), QStringLiteral("rounds"),
                                    QStringLiteral("n"), QStringLiteral("5"));
    const QCommandLineOption seconds(QStringLiteral("seconds"), QStringLiteral("per run"),
                                     QStringLiteral("s"), QStringLiteral("5"));
    const QCommandLineOption connections(QStringLiteral("connections"),
                                         QStringLiteral("connections"), QStringLiteral("n"),
                                         QStringLiteral("100"));
    const QCommandLineOption threads(QStringLiteral("threads"), QStringLiteral("engine threads"),
                                     QStringLiteral("n"), QStringLiteral("1"));
    parser.addOptions({cli, rounds, seconds, connections, threads});
    parser.process(app);
    Options options;
    options.cli = parser.value(cli);
    options.rounds = std::clamp(parser.value(rounds).toInt(), 1, 100);
    options.seconds = std::clamp(parser.value(seconds).toDouble(), 0.5, 60.0);
    options.connections = std::clamp(parser.value(connections).toInt(), 1, 10000);
    options.threads = std::clamp(parser.value(threads).toInt(), 1, 64);
    if (options.cli.isEmpty()) {
        std::fprintf(stderr, "agent_overhead: --cli path/to/loadscope-cli is required\n");
        return 2;
    }
    int status = 1;
    QCoro::connect(bench(options), &app, [&status](int code) {
        status = code;
        // Queued: a bench that ends before exec() starts must still end it.
        QMetaObject::invokeMethod(
            qApp, [code] { QCoreApplication::exit(code); }, Qt::QueuedConnection);
    });
    QCoreApplication::exec();
    return status;
}
