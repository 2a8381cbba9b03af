// The CPU profile: the kernel path rules on call chains as the kernel records
// them, kallsyms, the process role rules, and live profiles checked against
// servers whose CPU per request is known (a busy loop timed by the server
// thread's own CPU clock) and a CPU hog's own /proc counters.
#include "busy_rr_server.h"
#include "engine/cpu_profiler.h"
#include "engine/kernel_paths.h"
#include "engine/kernel_symbols.h"
#include "engine/load_run.h"
#include "engine/profile_roles.h"
#include "engine/tcp_protocol.h"
#include "engine/text_file.h"
#include "loopback_http_spec.h"
#include "tsan_fork_options.h"

#include <QProcess>
#include <QTest>
#include <csignal>
#include <linux/close_range.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace loadscope::engine;
using loadscope::testing::BusyRrServer;
using namespace std::chrono_literals;

Q_DECLARE_METATYPE(loadscope::engine::CpuPath)
using Chain = std::vector<std::string>;
Q_DECLARE_METATYPE(Chain)

namespace {

constexpr auto kServerCpu = 300us;

LoadSpec tcpRrSpec(uint16_t port) {
    LoadSpec spec;
    spec.protocol = std::make_shared<TcpRrProtocol>(TcpRrSpec{});
    spec.target = *SocketAddress::fromNumeric("127.0.0.1", port);
    spec.concurrency = 1;
    spec.threads = 1;
    spec.duration = 1500ms;
    spec.requestTimeout = 5s;
    spec.profile = true;
    return spec;
}

double microsPerRequest(const CpuProfile& profile, uint64_t samples, const RunResult& run) {
    return double(samples) * double(profile.periodNs) / 1e3 / double(run.successful());
}

// utime + stime of a process, in seconds.
double processCpuSeconds(int pid) {
    const auto stat = readTextFile("/proc/" + std::to_string(pid) + "/stat");
    const auto parsed = stat ? parseProcessStat(*stat) : std::nullopt;
    return parsed ? double(parsed->ticks) / double(CpuSampler::ticksPerSecond()) : 0;
}

// A process of its own that turns on a CPU until it is killed (30 s at most).
class CpuHog {
public:
    CpuHog() {
        const pid_t parent = getpid();
        m_pid = fork();
        if (m_pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(1);
            // Nothing of the test's (a server's stdin pipe) stays open in here.
            close_range(3, ~0U, 0);
            alarm(30);
            volatile uint64_t x = 0;
            for (;;)
                x = x + 1;
        }
    }
    ~CpuHog() {
        if (m_pid > 0) {
            kill(m_pid, SIGKILL);
            waitpid(m_pid, nullptr, 0);
        }
    }
    int pid() const { return m_pid; }

private:
    pid_t m_pid = -1;
};

} // namespace

class TestCpuProfile : public QObject {
    Q_OBJECT

private:
    // Live profiles need perf events on every CPU: skipped, with the reason, where refused.
    static bool profilingAllowed(QString* why) {
        CpuProfiler probe(ServerCpuSource{});
        if (probe.open()) {
            probe.finish();
            return true;
        }
        *why = QString::fromStdString(probe.finish().unavailable);
        return false;
    }

private Q_SLOTS:
    void pathRules_data() {
        QTest::addColumn<Chain>("leafFirst");
        QTest::addColumn<CpuPath>("path");
        const auto row = [](const char* name, Chain chain, CpuPath path) {
            QTest::newRow(name) << chain << path;
        };
        // Chains as perf records them on this kernel, leaf first.
        row("copy out of a socket",
            {"rep_movs_alternative", "_copy_to_iter", "__skb_datagram_iter",
             "skb_copy_datagram_iter", "tcp_recvmsg_locked", "tcp_recvmsg", "inet_recvmsg",
             "sock_recvmsg", "__sys_recvfrom", "do_syscall_64"},
            CpuPath::Copy);
        row("a lock under conntrack",
            {"_raw_spin_lock", "nf_conntrack_in", "nf_hook_slow", "ip_rcv", "__netif_receive_skb",
             "process_backlog", "__napi_poll", "net_rx_action", "handle_softirqs"},
            CpuPath::Conntrack);
        row("conntrack's confirm", {"nf_confirm", "nf_hook_slow", "ip_output"}, CpuPath::Conntrack);
        row("a memcpy inside conntrack",
            {"memcpy_orig", "nf_ct_get_tuple_skb", "nf_conntrack_in", "nf_hook_slow"},
            CpuPath::Conntrack);
        row("NAT's rewrite",
            {"nf_nat_ipv4_manip_pkt", "nf_nat_manip_pkt", "nf_nat_inet_fn", "nf_hook_slow",
             "ip_forward"},
            CpuPath::Nat);
        row("the DNAT rule", {"nft_nat_eval", "nft_do_chain", "nft_do_chain_ipv4", "nf_hook_slow"},
            CpuPath::Nat);
        row("a rule's match", {"nft_meta_get_eval", "nft_do_chain", "nft_do_chain_ipv4"},
            CpuPath::Nftables);
        row("the hook walk", {"nf_hook_slow", "ip_rcv", "__netif_receive_skb_one_core"},
            CpuPath::Nftables);
        row("the bridge",
            {"br_handle_frame_finish", "br_handle_frame", "__netif_receive_skb_core",
             "process_backlog"},
            CpuPath::Bridge);
        row("the veth",
            {"veth_xmit", "dev_hard_start_xmit", "__dev_queue_xmit", "ip_finish_output2"},
            CpuPath::Veth);
        row("macvlan", {"macvlan_start_xmit", "dev_hard_start_xmit"}, CpuPath::Macvlan);
        row("a packet socket", {"tpacket_rcv", "__netif_receive_skb_core"}, CpuPath::Tap);
        row("TCP's ack", {"tcp_ack", "tcp_rcv_established", "tcp_v4_do_rcv", "tcp_v4_rcv"},
            CpuPath::TcpIp);
        row("a socket buffer's allocation",
            {"kmem_cache_alloc_node_noprof", "__alloc_skb", "tcp_stream_alloc_skb",
             "tcp_sendmsg_locked", "tcp_sendmsg"},
            CpuPath::TcpIp);
        row("a wake-up",
            {"_raw_spin_unlock_irqrestore", "try_to_wake_up", "__wake_up_common",
             "sock_def_readable", "tcp_data_queue"},
            CpuPath::Scheduler);
        row("a context switch",
            {"finish_task_switch", "__schedule", "schedule", "schedule_hrtimeout_range", "ep_poll",
             "do_epoll_wait"},
            CpuPath::Scheduler);
        row("epoll's own work", {"ep_poll_callback", "__wake_up_common"}, CpuPath::Socket);
        row("the system call's entry", {"do_syscall_64", "entry_SYSCALL_64_after_hwframe"},
            CpuPath::Socket);
        row("the softirq loop", {"net_rx_action", "handle_softirqs", "do_softirq"},
            CpuPath::Softirq);
        row("GRO under NAPI", {"napi_gro_receive", "virtnet_poll"}, CpuPath::Softirq);
        row("softirq work on an idle CPU is not idle",
            {"tcp_v4_rcv", "ip_protocol_deliver_rcu", "ip_local_deliver", "__netif_receive_skb",
             "process_backlog", "net_rx_action", "handle_softirqs", "irq_exit_rcu",
             "pv_native_safe_halt", "default_idle", "do_idle", "cpu_startup_entry"},
            CpuPath::TcpIp);
        row("nothing named", {"kmalloc_trace", "some_function_no_rule_names"},
            CpuPath::OtherKernel);
    }

    void pathRules() {
        QFETCH(Chain, leafFirst);
        QFETCH(CpuPath, path);
        std::vector<std::string_view> chain(leafFirst.begin(), leafFirst.end());
        const KernelPathVerdict verdict = classifyKernelChain(chain);
        QVERIFY(!verdict.idle);
        QCOMPARE(verdict.path, path);
    }

    void anIdleCpuIsIdle() {
        const std::vector<std::string_view> chain{"pv_native_safe_halt", "default_idle",
                                                  "default_idle_call", "do_idle",
                                                  "cpu_startup_entry"};
        QVERIFY(classifyKernelChain(chain).idle);
    }

    // A rule that an earlier, broader one always wins against would be dead:
    // each rule's own name (its prefix) must get its own path.
    void noRuleIsShadowed() {
        for (const KernelPathRule& rule : kernelPathRules()) {
            std::string_view name = rule.pattern;
            if (name.ends_with('*'))
                name.remove_suffix(1);
            const auto path = pathOfFunction(name);
            QVERIFY2(
                path && *path == rule.path,
                qPrintable(QStringLiteral("%1 goes to %2, not %3")
                               .arg(QLatin1String(rule.pattern.data(), rule.pattern.size()),
                                    QLatin1String(cpuPathId(path.value_or(CpuPath::User)).data()),
                                    QLatin1String(cpuPathId(rule.path).data()))));
        }
    }

    void kallsymsText() {
        const KernelSymbols symbols =
            KernelSymbols::parse("ffffffff81000000 T _stext\n"
                                 "ffffffff81000000 T _text\n"
                                 "ffffffff81000100 t tcp_ack.isra.0\n"
                                 "ffffffff81000200 D some_data\n"
                                 "ffffffff81000300 T nf_hook_slow\n"
                                 "ffffffffc0001000 t nf_conntrack_in\t[nf_conntrack]\n"
                                 "malformed line\n");
        QCOMPARE(symbols.size(), size_t(4));
        QVERIFY(!symbols.hidden());
        QCOMPARE(symbols.lookup(0xffffffff81000000), std::string_view("_stext"));
        QCOMPARE(symbols.lookup(0xffffffff81000150), std::string_view("tcp_ack"));
        // A data symbol bounds nothing: the function before it still holds the address.
        QCOMPARE(symbols.lookup(0xffffffff81000250), std::string_view("tcp_ack"));
        QCOMPARE(symbols.lookup(0xffffffff81000300), std::string_view("nf_hook_slow"));
        QCOMPARE(symbols.lookup(0xffffffffc0001010), std::string_view("nf_conntrack_in"));
        QCOMPARE(symbols.lookup(0x1000), std::string_view());
        const KernelSymbols hidden = KernelSymbols::parse("0000000000000000 T _stext\n"
                                                          "0000000000000000 t tcp_ack\n");
        QVERIFY(hidden.hidden());
        QCOMPARE(hidden.size(), size_t(0));
    }

    void relaysByName() {
        QVERIFY(ProfileRoles::isRelay("docker-proxy", {}));
        QVERIFY(ProfileRoles::isRelay("slirp4netns", {}));
        QVERIFY(ProfileRoles::isRelay("ovs-vswitchd", {}));
        using namespace std::string_view_literals;
        QVERIFY(ProfileRoles::isRelay("loadscope-cli",
                                      "/usr/bin/loadscope-cli\0serve\0proxy\0--port\0"
                                      "8081\0"sv));
        QVERIFY(!ProfileRoles::isRelay("loadscope-cli",
                                       "/usr/bin/loadscope-cli\0serve\0http\0--port\0"
                                       "8080\0"sv));
        QVERIFY(!ProfileRoles::isRelay("nginx", "nginx: worker process\0"sv));
        QVERIFY(!ProfileRoles::isRelay("proxy", "/bin/other\0serve\0proxy\0"sv));
    }

    void serverCgroupMembership() {
        const auto in = &ProfileRoles::inCgroup;
        QVERIFY(
            in("/sys/fs/cgroup/system.slice/nginx.service", "0::/system.slice/nginx.service\n"));
        // A process in a cgroup below the server's counts; a sibling does not.
        QVERIFY(in("/sys/fs/cgroup/system.slice/docker-1.scope/",
                   "0::/system.slice/docker-1.scope/init\n"));
        QVERIFY(
            !in("/sys/fs/cgroup/system.slice/docker-1.scope", "0::/system.slice/docker-2.scope\n"));
        QVERIFY(!in("/sys/fs/cgroup/system.slice/docker-1.scope", "0::/\n"));
        QVERIFY(in("/sys/fs/cgroup/cpuacct/docker/abc", "4:cpu,cpuacct:/docker/abc\n0::/\n"));
    }

    // A server thread of this process that spends 300 us of its own CPU on
    // every request: its role, server, is given that time per request, and
    // the samples add up to every CPU's whole window.
    void serverThreadTimeIsAttributed() {
        QString why;
        if (!profilingAllowed(&why))
            QSKIP(qPrintable(why));
        BusyRrServer server({kServerCpu, 1, 1, 0});
        QVERIFY(server.isListening());
        LoadSpec spec = tcpRrSpec(server.port());
        spec.warmup = 200ms;
        spec.serverCpu.threads = {server.threadId()};
        const int64_t serverCpuBefore = server.threadCpuNs();
        const uint64_t answeredBefore = server.answered();
        const RunResult run = loadscope::testing::runToEnd(spec);
        const double serverCpuPerAnswer = double(server.threadCpuNs() - serverCpuBefore) / 1e3 /
                                          double(server.answered() - answeredBefore);
        const CpuProfile& profile = run.profile;
        QVERIFY2(profile.sampled(), profile.unavailable.c_str());
        QVERIFY(run.successful() > 500);
        const double server_us =
            microsPerRequest(profile, profile.roleSamples(ProcessRole::Server), run);
        qInfo("server %.1f us per request by the profile, %.1f by its thread's clock, busy "
              "loop %lld us; %llu samples, %llu idle, %llu lost, %llu stolen",
              server_us, serverCpuPerAnswer, static_cast<long long>(kServerCpu.count()),
              static_cast<unsigned long long>(profile.samples),
              static_cast<unsigned long long>(profile.idleSamples),
              static_cast<unsigned long long>(profile.lostSamples),
              static_cast<unsigned long long>(profile.stolenSamples));
        const double known = double(kServerCpu.count());
        QVERIFY2(std::abs(server_us - known) <= 0.1 * known,
                 qPrintable(QString::number(server_us)));
        QVERIFY2(std::abs(server_us - serverCpuPerAnswer) <= 0.1 * serverCpuPerAnswer,
                 qPrintable(QString::number(server_us)));
        // Most of it is the busy loop's, in user space.
        QVERIFY(profile.counts[size_t(ProcessRole::Server)][size_t(CpuPath::User)] >
                profile.roleSamples(ProcessRole::Server) / 2);
        // One sample a millisecond on each CPU, over the window the CPU figures cover,
        // but the periods the timer came past while the hypervisor held a CPU.
        const double expected = run.cpu.wallSeconds * 1e9 / double(profile.periodNs) * profile.cpus;
        const uint64_t periods = profile.samples + profile.skippedPeriods;
        QVERIFY2(std::abs(double(periods) - expected) <= 0.05 * expected,
                 qPrintable(QStringLiteral("%1 samples and %2 skipped periods for %3")
                                .arg(profile.samples)
                                .arg(profile.skippedPeriods)
                                .arg(expected)));
        QCOMPARE(profile.lostSamples, uint64_t(0));
        const bool serverStack =
            std::any_of(profile.stacks.begin(), profile.stacks.end(), [](const FoldedStack& s) {
                return s.frames.find(" [server]") != std::string::npos;
            });
        QVERIFY(serverStack);
    }

    // The same server as a process of its own, found by its PID, beside a
    // process that turns on a CPU: the hog is other load, never the server's,
    // and the profile gives it the CPU its own /proc counters say it used.
    void serverProcessAndAHog() {
        QString why;
        if (!profilingAllowed(&why))
            QSKIP(qPrintable(why));
        QProcess server;
        server.start(QStringLiteral(BUSY_RR_SERVER), {QString::number(kServerCpu.count())});
        QVERIFY(server.waitForStarted(5000));
        QVERIFY(server.waitForReadyRead(5000));
        const uint16_t port = uint16_t(server.readLine().trimmed().toUInt());
        QVERIFY(port > 0);
        CpuHog hog;
        QVERIFY(hog.pid() > 0);
        LoadSpec spec = tcpRrSpec(port);
        spec.serverCpu.pid = int(server.processId());
        const double hogBefore = processCpuSeconds(hog.pid());
        const RunResult run = loadscope::testing::runToEnd(spec);
        const double hogSeconds = processCpuSeconds(hog.pid()) - hogBefore;
        server.closeWriteChannel();
        QVERIFY(server.waitForFinished(5000));
        const CpuProfile& profile = run.profile;
        QVERIFY2(profile.sampled(), profile.unavailable.c_str());
        const double server_us =
            microsPerRequest(profile, profile.roleSamples(ProcessRole::Server), run);
        // The hog is this program forked: its name, as other load. (Every
        // other process of the machine is other load too.)
        uint64_t hogSamples = 0;
        for (const FoldedStack& stack : profile.stacks)
            if (stack.frames.starts_with("tst_cpu_profile [other]"))
                hogSamples += stack.samples;
        const double otherSeconds = double(hogSamples * profile.periodNs) / 1e9;
        qInfo("server %.1f us per request; the hog %.3f s by the profile, %.3f s by its "
              "/proc counters over a %.3f s window",
              server_us, otherSeconds, hogSeconds, run.cpu.wallSeconds);
        const double known = double(kServerCpu.count());
        QVERIFY2(std::abs(server_us - known) <= 0.1 * known,
                 qPrintable(QString::number(server_us)));
        QVERIFY(hogSeconds > 0.05); // a loaded machine gives it little, but never nothing
        // The hog's counters run from before the run to after it (ticks of
        // 10 ms): the window is inside that, so other is at most that and
        // not much less.
        QVERIFY2(otherSeconds <= hogSeconds * 1.05 + 0.03,
                 qPrintable(QString::number(otherSeconds)));
        QVERIFY2(otherSeconds >= hogSeconds * 0.85 - 0.03,
                 qPrintable(QString::number(otherSeconds)));
        const bool hogAsServer =
            std::any_of(profile.stacks.begin(), profile.stacks.end(), [](const FoldedStack& s) {
                return s.frames.starts_with("tst_cpu_profile [server]");
            });
        QVERIFY(!hogAsServer);
    }
};

QTEST_GUILESS_MAIN(TestCpuProfile)
#include "tst_cpu_profile.moc"
