// The cost of the load agent: the same point (one HTTP target, closed loop,
// fixed duration) run in-process (LoadRunBridge), through `loadscope-cli lab
// agent` (AgentClient, no lab: loopback) and, with --ssh, through the same
// agent behind ssh (as a host's agent: `ssh ... loadscope-cli lab agent`, the
// run request allowing the server's endpoint), in an order that turns each
// round, against one HTTP server on 127.0.0.1. Prints requests/s of each round,
// the ratios of the medians to in-process, and the median CPU per request of
// the engine's workers and of the server in each way.
//
// The server is a process of its own (`loadscope-cli serve http --threads 1`,
// the embedded server's one loop), as every server a user loads is, so that
// the ways differ by the agent alone. Until 2026-12-06 it ran inside this
// process (--embedded-server still does): the in-process way alone then had
// the server in its own address space. On two CPUs the server's loop and the
// engine's worker wake each other over loopback and often share one CPU,
// handing it to each other 10 000-40 000 times a second (sched:sched_switch),
// thread to thread in one process in-process, process to process through the
// agent. A hand-over between processes costs 30-120 ns more than one between
// threads here (a pipe ping-pong pinned to one CPU), too little to matter at
// these rates, and pinned to one CPU the in-process way ran as fast against
// the server process as against the embedded one; but like is compared with
// like. The agent's own work is small: its protocol thread and this process's
// reading of its lines took about 1 % of the CPU samples of an agent run
// (perf record -p; the monitor thread is the engine's in every way), its
// progress lines are 0.6-0.9 kB ten times a second. See tests/bench/README.md.
//
//   agent_overhead --cli build/release/bin/loadscope-cli [--rounds 5]
//                  [--seconds 5] [--connections 100] [--threads 1]
//                  [--ssh DESTINATION [--ssh-config FILE]] [--embedded-server]
//                  [--server-cpu N] [--client-cpu M]
// --server-cpu and --client-cpu pin the server's loops and every way's engine
// workers (the plan's cpus, which the agent is sent too), alike in every way:
// left to the scheduler, the pair on one CPU or on two moved single rounds by
// a third on a busy machine.
// ssh_agent_overhead.sh runs it with --ssh against a test sshd of its own.
#include "app/remote/ssh_command.h"
#include "app/servers/http_server.h"
#include "app/sweep/agent_client.h"
#include "app/sweep/load_run_bridge.h"
#include "app/sweep/load_spec_builder.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QCoroTask>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <sched.h>
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
    bool embeddedServer = false;
    int serverCpu = -1; // -1: where the scheduler puts it
    int clientCpu = -1;
};

void pinThread(int tid, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (::sched_setaffinity(tid, sizeof set, &set) != 0)
        std::fprintf(stderr, "agent_overhead: cannot pin thread %d to CPU %d\n", tid, cpu);
}

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

// The server as a process of its own: `loadscope-cli serve http` with one
// loop, as the embedded one has, on a free port it names on its first line.
// (Blocking waits: nothing else runs yet, or any more, on this thread.)
int startServerProcess(QProcess& process, const QString& cli, int cpu) {
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    if (cpu >= 0) // before exec: the loop threads it starts inherit it
        process.setChildProcessModifier([cpu] { pinThread(0, cpu); });
    process.start(cli,
                  {QStringLiteral("serve"), QStringLiteral("http"), QStringLiteral("--threads"),
                   QStringLiteral("1"), QStringLiteral("--port"), QStringLiteral("0")});
    while (!process.canReadLine()) {
        if (!process.waitForReadyRead(10'000))
            return 0;
    }
    const QByteArray line = process.readLine().trimmed();
    const QByteArray prefix = "listening on 127.0.0.1:";
    return line.startsWith(prefix) ? line.mid(prefix.size()).toInt() : 0;
}

void stopServerProcess(QProcess& process) {
    if (process.state() == QProcess::NotRunning)
        return;
    process.terminate();
    if (!process.waitForFinished(5000)) {
        process.kill();
        process.waitForFinished(5000);
    }
}

// The server's threads: those of its own process (pid), or this process's
// threads `tids` when it is embedded.
struct ServerThreads {
    qint64 pid = 0;
    std::vector<int> tids;
};

// CPU time the server's threads have run, in ns (schedstat: exact, not ticks).
int64_t serverCpuNs(const ServerThreads& server) {
    QStringList paths;
    if (!server.tids.empty()) {
        for (const int tid : server.tids)
            paths << QStringLiteral("/proc/self/task/%1/schedstat").arg(tid);
    } else {
        const QString dir = QStringLiteral("/proc/%1/task").arg(server.pid);
        for (const QString& tid : QDir(dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            paths << dir + QLatin1Char('/') + tid + QStringLiteral("/schedstat");
    }
    int64_t total = 0;
    for (const QString& path : paths) {
        QFile file(path);
        if (file.open(QIODevice::ReadOnly))
            total += file.readAll().split(' ').value(0).toLongLong();
    }
    return total;
}

QCoro::Task<int> runWays(const Options& options, int port, ServerThreads serverThreads) {
    app::Target target = app::makeTarget(QStringLiteral("bench"), app::DeploymentMode::Host, 0);
    target.http.url = QStringLiteral("http://127.0.0.1:%1/").arg(port);
    app::SweepPlan plan;
    plan.limit = app::PointLimit::Duration;
    plan.durationSeconds = options.seconds;
    plan.threads = options.threads;
    plan.concurrencyLevels = {options.connections};
    if (options.clientCpu >= 0)
        plan.cpus = {options.clientCpu};
    if (options.serverCpu >= 0 || options.clientCpu >= 0)
        std::printf("pinned: server on CPU %d, engine workers on CPU %d (-1: not pinned)\n",
                    options.serverCpu, options.clientCpu);
    std::printf("server: %s\n", options.embeddedServer ? "embedded in this process"
                                                       : "a process of its own (serve http)");
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
    // CPU µs per request: the engine's worker threads over the measured time
    // (the same count in every way, carried in the agent's result), and the
    // server's threads over the whole run (connects and all; alike in every
    // way). The rate depends on the CPU the machine leaves the pair; these do
    // not, or far less, and say whether a way costs more per request.
    std::vector<double> clientUs[3];
    std::vector<double> serverUs[3];
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
                request.allow = {QStringLiteral("127.0.0.1:%1").arg(port)};
                run = overSsh->newRun(std::move(request));
            } else {
                auto draft = app::draftLoadSpec(target, options.connections, plan);
                if (!draft)
                    co_return 1;
                draft->spec.target =
                    *engine::SocketAddress::fromNumeric("127.0.0.1", uint16_t(port));
                run = new app::LoadRunBridge(std::move(draft->spec));
            }
            const int64_t serverBeforeNs = serverCpuNs(serverThreads);
            const auto result = co_await runOnce(run);
            const int64_t serverNs = serverCpuNs(serverThreads) - serverBeforeNs;
            if (!result || result->failed > 0) {
                std::fprintf(stderr, "agent_overhead: %s\n",
                             result ? "failed requests" : qPrintable(result.error().message));
                co_return 1;
            }
            rps[way] = result->requestsPerSecond();
            if (result->complete > 0) {
                clientUs[way].push_back(result->clientCpuSeconds * 1e6 / double(result->complete));
                serverUs[way].push_back(double(serverNs) / 1e3 / double(result->complete));
            }
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
    std::printf("CPU us per request (medians)  engine workers: in-process %.3f  agent %.3f",
                median(clientUs[0]), median(clientUs[1]));
    if (overSsh)
        std::printf("  ssh agent %.3f", median(clientUs[2]));
    std::printf("\n                               server:         in-process %.3f  agent %.3f",
                median(serverUs[0]), median(serverUs[1]));
    if (overSsh)
        std::printf("  ssh agent %.3f", median(serverUs[2]));
    std::printf("\n");
    if (overSsh)
        co_await overSsh->close();
    co_await agent.close();
    co_return 0;
}

QCoro::Task<int> bench(Options options) {
    app::HttpServer server;
    QProcess serverProcess;
    int port = 0;
    if (options.embeddedServer) {
        if (const auto started = server.start(); !started) {
            std::fprintf(stderr, "agent_overhead: %s\n", qPrintable(started.error().toString()));
            co_return 1;
        }
        port = server.port();
        if (options.serverCpu >= 0)
            for (const int tid : server.threadIds())
                pinThread(tid, options.serverCpu);
    } else {
        port = startServerProcess(serverProcess, options.cli, options.serverCpu);
        if (port <= 0)
            std::fprintf(stderr, "agent_overhead: '%s serve http' did not say where it listens\n",
                         qPrintable(options.cli));
    }
    ServerThreads threads;
    if (options.embeddedServer)
        threads.tids = server.threadIds();
    else
        threads.pid = serverProcess.processId();
    const int status = port > 0 ? co_await runWays(options, port, threads) : 1;
    server.stop();
    stopServerProcess(serverProcess);
    co_return status;
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
    const QCommandLineOption embeddedServer(
        QStringLiteral("embedded-server"),
        QStringLiteral("the server inside this process, beside the in-process engine"));
    const QCommandLineOption serverCpu(QStringLiteral("server-cpu"),
                                       QStringLiteral("pin the server's loop to this CPU"),
                                       QStringLiteral("n"), QStringLiteral("-1"));
    const QCommandLineOption clientCpu(QStringLiteral("client-cpu"),
                                       QStringLiteral("pin every way's engine workers to this CPU"),
                                       QStringLiteral("n"), QStringLiteral("-1"));
    parser.addOptions({cli, rounds, seconds, connections, threads, ssh, sshConfig, embeddedServer,
                       serverCpu, clientCpu});
    parser.process(app);
    Options options;
    options.cli = parser.value(cli);
    options.rounds = std::clamp(parser.value(rounds).toInt(), 1, 100);
    options.seconds = std::clamp(parser.value(seconds).toDouble(), 0.5, 60.0);
    options.connections = std::clamp(parser.value(connections).toInt(), 1, 10000);
    options.threads = std::clamp(parser.value(threads).toInt(), 1, 64);
    options.ssh = parser.value(ssh);
    options.sshConfig = parser.value(sshConfig);
    options.embeddedServer = parser.isSet(embeddedServer);
    options.serverCpu = std::clamp(parser.value(serverCpu).toInt(), -1, CPU_SETSIZE - 1);
    options.clientCpu = std::clamp(parser.value(clientCpu).toInt(), -1, CPU_SETSIZE - 1);
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
