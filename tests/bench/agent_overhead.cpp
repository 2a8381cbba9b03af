// The cost of the load agent: the same point (one HTTP target, closed loop,
// fixed duration) run in-process (LoadRunBridge), through `loadscope-cli lab
// agent` (AgentClient, no lab: loopback) and, with --ssh, through the same
// agent behind ssh (as a host's agent: `ssh ... loadscope-cli lab agent`, the
// run request allowing the server's endpoint), in an order that turns each
// round, against one embedded HTTP server on 127.0.0.1. Prints requests/s of
// each round and the ratios of the medians to in-process.
//
//   agent_overhead --cli build/release/bin/loadscope-cli [--rounds 5]
//                  [--seconds 5] [--connections 100] [--threads 1]
//                  [--ssh DESTINATION [--ssh-config FILE]]
// ssh_agent_overhead.sh runs it with --ssh against a test sshd of its own.
#include "app/remote/ssh_command.h"
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
#include <memory>
#include <vector>

using namespace loadscope;

namespace {

struct Options {
    QString cli;
    int rounds = 5;
    double seconds = 5;
    int connections = 100;
    int threads = 1;
    QString ssh;       // an SSH destination: the agent over ssh as well
    QString sshConfig; // ssh -F
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
    std::unique_ptr<app::AgentClient> overSsh;
    if (!options.ssh.isEmpty()) {
        app::Host host;
        host.name = QStringLiteral("bench");
        host.destination = options.ssh;
        host.command = options.cli;
        app::SshOptions ssh;
        ssh.configFile = options.sshConfig;
        overSsh = std::make_unique<app::AgentClient>(app::sshAgentCommand(host, ssh));
        overSsh->setExitDescriber([host](int code, bool crashed, const QString& line) {
            return app::describeSshExit(host, code, crashed, line);
        });
        const auto opened = co_await overSsh->open(std::chrono::seconds(20));
        if (!opened) {
            std::fprintf(stderr, "agent_overhead: %s\n", qPrintable(opened.error().message));
            co_return 1;
        }
    }
    const int ways = overSsh ? 3 : 2;
    std::vector<double> rates[3];
    std::printf("round  in-process rps  agent rps%s  agent/in-process%s\n",
                overSsh ? "  ssh agent rps" : "", overSsh ? "  ssh/in-process" : "");
    for (int round = 0; round < options.rounds; ++round) {
        double rps[3] = {0, 0, 0};
        // The order turns each round: drift over a round falls on each alike.
        for (int k = 0; k < ways; ++k) {
            const int way = (round + k) % ways;
            app::PointRun* run = nullptr;
            if (way == 1) {
                run = agent.newRun({target, plan, options.connections, 0, false});
            } else if (way == 2) {
                app::AgentRunRequest request{target, plan, options.connections, 0, false};
                request.allow = {QStringLiteral("127.0.0.1:%1").arg(server.port())};
                run = overSsh->newRun(std::move(request));
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
            rps[way] = result->requestsPerSecond();
        }
        for (int way = 0; way < ways; ++way)
            rates[way].push_back(rps[way]);
        if (overSsh)
            std::printf("%5d  %14.0f  %9.0f  %13.0f  %16.3f  %15.3f\n", round + 1, rps[0], rps[1],
                        rps[2], rps[1] / rps[0], rps[2] / rps[0]);
        else
            std::printf("%5d  %14.0f  %9.0f  %16.3f\n", round + 1, rps[0], rps[1], rps[1] / rps[0]);
    }
    const double local = median(rates[0]);
    if (overSsh)
        std::printf("median %13.0f  %9.0f  %13.0f  %16.3f  %15.3f  (goal: within 2 %%)\n", local,
                    median(rates[1]), median(rates[2]), median(rates[1]) / local,
                    median(rates[2]) / local);
    else
        std::printf("median %13.0f  %9.0f  %16.3f  (goal: within 2 %%)\n", local, median(rates[1]),
                    median(rates[1]) / local);
    if (overSsh)
        co_await overSsh->close();
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
    const QCommandLineOption ssh(QStringLiteral("ssh"),
                                 QStringLiteral("also through the agent behind ssh to DEST"),
                                 QStringLiteral("DEST"));
    const QCommandLineOption sshConfig(QStringLiteral("ssh-config"), QStringLiteral("ssh -F"),
                                       QStringLiteral("file"));
    parser.addOptions({cli, rounds, seconds, connections, threads, ssh, sshConfig});
    parser.process(app);
    Options options;
    options.cli = parser.value(cli);
    options.rounds = std::clamp(parser.value(rounds).toInt(), 1, 100);
    options.seconds = std::clamp(parser.value(seconds).toDouble(), 0.5, 60.0);
    options.connections = std::clamp(parser.value(connections).toInt(), 1, 10000);
    options.threads = std::clamp(parser.value(threads).toInt(), 1, 64);
    options.ssh = parser.value(ssh);
    options.sshConfig = parser.value(sshConfig);
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
