#include "engine/kernel_paths.h"

#include <array>

namespace loadscope::engine {

namespace {

using P = CpuPath;

// The one table. A sample's path is that of the first function from the
// leaf of its kernel call chain that a rule here names; within one function
// the first rule that matches wins, so a specific rule comes before a
// broader one (nft_nat_* is NAT before nft_* is the rules'). Functions no
// rule names (locks, allocators, list and hash helpers, RCU) leave the
// sample to their caller. A path's functions:
// - copy: copies between user and kernel memory (not every memcpy: a copy
//   of a few bytes inside conntrack is conntrack's).
// - conntrack, NAT: nf_conntrack and nf_nat, and nftables' nat, masquerade
//   and redirect expressions.
// - nftables rules: the netfilter hook walk and rule evaluation, nftables'
//   and x_tables' (iptables) alike.
// - bridge, veth, macvlan (ipvlan too), OVS (the kernel datapath): those
//   devices' own functions; what the stack does with a frame after a device
//   handed it on is TCP/IP's.
// - tun/tap, packet: tun and tap devices and AF_PACKET sockets, through which
//   user-space datapaths (OVS's netdev datapath, slirp4netns) move frames.
// - softirq/NAPI: the softirq and NAPI loops and network drivers' polls.
// - TCP/IP: TCP, UDP, IP, routing, neighbours, checksums, the device
//   layer's core (dev_queue_xmit, netif_receive_skb, GRO) and socket buffers.
// - socket/syscall: system call entry and exit, the socket layer, file
//   descriptors, epoll, poll and select.
// - scheduler: context switches, wake-ups, run-queue and load accounting.
constexpr std::array kRules{
    // copy
    KernelPathRule{"rep_movs_alternative", P::Copy},
    KernelPathRule{"copy_user_*", P::Copy},
    KernelPathRule{"_copy_to_user", P::Copy},
    KernelPathRule{"_copy_from_user", P::Copy},
    KernelPathRule{"_copy_to_iter", P::Copy},
    KernelPathRule{"_copy_from_iter*", P::Copy},
    KernelPathRule{"copy_page_to_iter", P::Copy},
    KernelPathRule{"copy_page_from_iter*", P::Copy},
    KernelPathRule{"copyin", P::Copy},
    KernelPathRule{"copyout", P::Copy},
    KernelPathRule{"simple_copy_to_iter", P::Copy},
    KernelPathRule{"skb_copy_datagram_iter", P::Copy},
    KernelPathRule{"__skb_datagram_iter", P::Copy},
    KernelPathRule{"skb_copy_datagram_from_iter", P::Copy},
    KernelPathRule{"skb_do_copy_data_nocache", P::Copy},
    KernelPathRule{"csum_partial_copy*", P::Copy},
    KernelPathRule{"csum_and_copy_*", P::Copy},
    // NAT
    KernelPathRule{"nf_nat_*", P::Nat},
    KernelPathRule{"__nf_nat_*", P::Nat},
    KernelPathRule{"nft_nat_*", P::Nat},
    KernelPathRule{"nft_masq_*", P::Nat},
    KernelPathRule{"nft_redir_*", P::Nat},
    KernelPathRule{"l4proto_manip_pkt", P::Nat},
    KernelPathRule{"nf_xfrm_me_harder", P::Nat},
    // conntrack
    KernelPathRule{"nf_conntrack_*", P::Conntrack},
    KernelPathRule{"__nf_conntrack_*", P::Conntrack},
    KernelPathRule{"nf_ct_*", P::Conntrack},
    KernelPathRule{"__nf_ct_*", P::Conntrack},
    KernelPathRule{"nf_confirm", P::Conntrack},
    KernelPathRule{"ipv4_conntrack_*", P::Conntrack},
    KernelPathRule{"ipv6_conntrack_*", P::Conntrack},
    KernelPathRule{"ipv4_confirm", P::Conntrack},
    KernelPathRule{"ipv6_confirm", P::Conntrack},
    KernelPathRule{"init_conntrack*", P::Conntrack},
    KernelPathRule{"resolve_normal_ct", P::Conntrack},
    KernelPathRule{"hash_conntrack*", P::Conntrack},
    KernelPathRule{"get_l4proto", P::Conntrack},
    // nftables rules and the netfilter hooks that run them
    KernelPathRule{"nft_*", P::Nftables},
    KernelPathRule{"__nft_*", P::Nftables},
    KernelPathRule{"nf_tables_*", P::Nftables},
    KernelPathRule{"nf_hook_*", P::Nftables},
    KernelPathRule{"nf_iterate", P::Nftables},
    KernelPathRule{"ipt_do_table", P::Nftables},
    KernelPathRule{"ip6t_do_table", P::Nftables},
    KernelPathRule{"iptable_*", P::Nftables},
    KernelPathRule{"xt_*", P::Nftables},
    KernelPathRule{"ebt_*", P::Nftables},
    // devices
    KernelPathRule{"br_*", P::Bridge},
    KernelPathRule{"__br_*", P::Bridge},
    KernelPathRule{"nbp_*", P::Bridge},
    KernelPathRule{"veth_*", P::Veth},
    KernelPathRule{"__veth_*", P::Veth},
    KernelPathRule{"macvlan_*", P::Macvlan},
    KernelPathRule{"ipvlan_*", P::Macvlan},
    KernelPathRule{"ovs_*", P::Ovs},
    KernelPathRule{"tun_*", P::Tap},
    KernelPathRule{"__tun_*", P::Tap},
    KernelPathRule{"tap_*", P::Tap},
    KernelPathRule{"packet_*", P::Tap},
    KernelPathRule{"__packet_*", P::Tap},
    KernelPathRule{"tpacket_*", P::Tap},
    // softirq and NAPI
    KernelPathRule{"handle_softirqs", P::Softirq},
    KernelPathRule{"__do_softirq", P::Softirq},
    KernelPathRule{"do_softirq*", P::Softirq},
    KernelPathRule{"net_rx_action", P::Softirq},
    KernelPathRule{"net_tx_action", P::Softirq},
    KernelPathRule{"__napi_*", P::Softirq},
    KernelPathRule{"napi_*", P::Softirq},
    KernelPathRule{"process_backlog", P::Softirq},
    KernelPathRule{"run_ksoftirqd", P::Softirq},
    KernelPathRule{"virtnet_*", P::Softirq},
    KernelPathRule{"virtqueue_*", P::Softirq},
    KernelPathRule{"vring_*", P::Softirq},
    KernelPathRule{"e1000*", P::Softirq},
    // TCP/IP and the device layer's core (after napi_* above: napi_gro_receive is NAPI's)
    KernelPathRule{"tcp_*", P::TcpIp},
    KernelPathRule{"__tcp_*", P::TcpIp},
    KernelPathRule{"tcp4_*", P::TcpIp},
    KernelPathRule{"tcp6_*", P::TcpIp},
    KernelPathRule{"udp_*", P::TcpIp},
    KernelPathRule{"__udp*", P::TcpIp},
    KernelPathRule{"ip_*", P::TcpIp},
    KernelPathRule{"__ip_*", P::TcpIp},
    KernelPathRule{"ipv4_*", P::TcpIp},
    KernelPathRule{"ip6_*", P::TcpIp},
    KernelPathRule{"ipv6_*", P::TcpIp},
    KernelPathRule{"inet_*", P::TcpIp},
    KernelPathRule{"__inet_*", P::TcpIp},
    KernelPathRule{"inet6_*", P::TcpIp},
    KernelPathRule{"raw_*", P::TcpIp},
    KernelPathRule{"icmp_*", P::TcpIp},
    KernelPathRule{"fib_*", P::TcpIp},
    KernelPathRule{"fib4_*", P::TcpIp},
    KernelPathRule{"rt_dst_*", P::TcpIp},
    KernelPathRule{"rt_cache_*", P::TcpIp},
    KernelPathRule{"rt_set_nexthop", P::TcpIp},
    KernelPathRule{"dst_*", P::TcpIp},
    KernelPathRule{"neigh_*", P::TcpIp},
    KernelPathRule{"__neigh_*", P::TcpIp},
    KernelPathRule{"arp_*", P::TcpIp},
    KernelPathRule{"eth_*", P::TcpIp},
    KernelPathRule{"csum_*", P::TcpIp},
    KernelPathRule{"__csum*", P::TcpIp},
    KernelPathRule{"skb_*", P::TcpIp},
    KernelPathRule{"__skb_*", P::TcpIp},
    KernelPathRule{"__alloc_skb", P::TcpIp},
    KernelPathRule{"__build_skb*", P::TcpIp},
    KernelPathRule{"build_skb*", P::TcpIp},
    KernelPathRule{"kfree_skb*", P::TcpIp},
    KernelPathRule{"__kfree_skb*", P::TcpIp},
    KernelPathRule{"sk_skb_*", P::TcpIp},
    KernelPathRule{"consume_skb", P::TcpIp},
    KernelPathRule{"__consume_stateless_skb", P::TcpIp},
    KernelPathRule{"dev_*", P::TcpIp},
    KernelPathRule{"__dev_*", P::TcpIp},
    KernelPathRule{"netif_*", P::TcpIp},
    KernelPathRule{"__netif_*", P::TcpIp},
    KernelPathRule{"enqueue_to_backlog", P::TcpIp},
    KernelPathRule{"validate_xmit_*", P::TcpIp},
    KernelPathRule{"sch_direct_xmit", P::TcpIp},
    KernelPathRule{"__qdisc_*", P::TcpIp},
    KernelPathRule{"qdisc_*", P::TcpIp},
    KernelPathRule{"pfifo_*", P::TcpIp},
    KernelPathRule{"fq_codel_*", P::TcpIp},
    KernelPathRule{"loopback_xmit", P::TcpIp},
    KernelPathRule{"gro_*", P::TcpIp},
    KernelPathRule{"__gro_*", P::TcpIp},
    KernelPathRule{"secure_tcp*", P::TcpIp},
    KernelPathRule{"sk_*", P::TcpIp},
    KernelPathRule{"__sk_*", P::TcpIp},
    KernelPathRule{"release_sock", P::TcpIp},
    KernelPathRule{"lock_sock*", P::TcpIp},
    KernelPathRule{"bpf_*", P::TcpIp},
    // socket layer and system calls
    KernelPathRule{"sock_*", P::Socket},
    KernelPathRule{"__sock_*", P::Socket},
    KernelPathRule{"sockfd_*", P::Socket},
    KernelPathRule{"__sys_*", P::Socket},
    KernelPathRule{"__x64_sys_*", P::Socket},
    KernelPathRule{"__ia32_sys_*", P::Socket},
    KernelPathRule{"__arm64_sys_*", P::Socket},
    KernelPathRule{"x64_sys_call", P::Socket},
    KernelPathRule{"do_syscall_*", P::Socket},
    KernelPathRule{"entry_SYSCALL*", P::Socket},
    KernelPathRule{"syscall_*", P::Socket},
    KernelPathRule{"exit_to_user_mode*", P::Socket},
    KernelPathRule{"arch_exit_to_user_mode*", P::Socket},
    KernelPathRule{"ksys_*", P::Socket},
    KernelPathRule{"vfs_read", P::Socket},
    KernelPathRule{"vfs_write", P::Socket},
    KernelPathRule{"vfs_readv", P::Socket},
    KernelPathRule{"vfs_writev", P::Socket},
    KernelPathRule{"do_iter_*", P::Socket},
    KernelPathRule{"new_sync_*", P::Socket},
    KernelPathRule{"rw_verify_area", P::Socket},
    KernelPathRule{"ep_*", P::Socket},
    KernelPathRule{"do_epoll_*", P::Socket},
    KernelPathRule{"__ep_*", P::Socket},
    KernelPathRule{"do_sys_poll", P::Socket},
    KernelPathRule{"do_poll*", P::Socket},
    KernelPathRule{"do_select", P::Socket},
    KernelPathRule{"core_sys_select", P::Socket},
    KernelPathRule{"fdget*", P::Socket},
    KernelPathRule{"__fdget*", P::Socket},
    KernelPathRule{"__fget*", P::Socket},
    KernelPathRule{"fput*", P::Socket},
    KernelPathRule{"__fput*", P::Socket},
    KernelPathRule{"security_socket_*", P::Socket},
    KernelPathRule{"apparmor_socket_*", P::Socket},
    KernelPathRule{"move_addr_to_*", P::Socket},
    KernelPathRule{"import_*", P::Socket},
    KernelPathRule{"__import_*", P::Socket},
    KernelPathRule{"fpregs_*", P::Socket},
    KernelPathRule{"switch_fpu_*", P::Socket},
    KernelPathRule{"__rseq_*", P::Socket},
    KernelPathRule{"rseq_*", P::Socket},
    // scheduler
    KernelPathRule{"schedule*", P::Scheduler},
    KernelPathRule{"__schedule", P::Scheduler},
    KernelPathRule{"__sched_*", P::Scheduler},
    KernelPathRule{"sched_*", P::Scheduler},
    KernelPathRule{"pick_next_*", P::Scheduler},
    KernelPathRule{"pick_task*", P::Scheduler},
    KernelPathRule{"pick_eevdf", P::Scheduler},
    KernelPathRule{"put_prev_*", P::Scheduler},
    KernelPathRule{"set_next_*", P::Scheduler},
    KernelPathRule{"finish_task_switch*", P::Scheduler},
    KernelPathRule{"prepare_task_switch", P::Scheduler},
    KernelPathRule{"__switch_to*", P::Scheduler},
    KernelPathRule{"switch_mm*", P::Scheduler},
    KernelPathRule{"context_switch", P::Scheduler},
    KernelPathRule{"try_to_wake_up", P::Scheduler},
    KernelPathRule{"ttwu_*", P::Scheduler},
    KernelPathRule{"wake_up_*", P::Scheduler},
    KernelPathRule{"__wake_up*", P::Scheduler},
    KernelPathRule{"autoremove_wake_function", P::Scheduler},
    KernelPathRule{"default_wake_function", P::Scheduler},
    KernelPathRule{"enqueue_*", P::Scheduler},
    KernelPathRule{"dequeue_*", P::Scheduler},
    KernelPathRule{"activate_task", P::Scheduler},
    KernelPathRule{"deactivate_task", P::Scheduler},
    KernelPathRule{"update_curr*", P::Scheduler},
    KernelPathRule{"update_load_*", P::Scheduler},
    KernelPathRule{"__update_load_*", P::Scheduler},
    KernelPathRule{"update_cfs_*", P::Scheduler},
    KernelPathRule{"update_rq_clock*", P::Scheduler},
    KernelPathRule{"update_min_vruntime", P::Scheduler},
    KernelPathRule{"reweight_*", P::Scheduler},
    KernelPathRule{"select_task_rq*", P::Scheduler},
    KernelPathRule{"select_idle_*", P::Scheduler},
    KernelPathRule{"wake_affine*", P::Scheduler},
    KernelPathRule{"check_preempt*", P::Scheduler},
    KernelPathRule{"wakeup_preempt*", P::Scheduler},
    KernelPathRule{"resched_curr*", P::Scheduler},
    KernelPathRule{"psi_*", P::Scheduler},
    KernelPathRule{"cpuacct_*", P::Scheduler},
    KernelPathRule{"newidle_balance", P::Scheduler},
    KernelPathRule{"sched_balance_*", P::Scheduler},
    KernelPathRule{"load_balance", P::Scheduler},
    KernelPathRule{"idle_cpu", P::Scheduler},
    KernelPathRule{"available_idle_cpu", P::Scheduler},
};

// The idle loop: a sample here found its CPU with nothing to run.
constexpr std::array<std::string_view, 14> kIdle{
    "do_idle",           "cpu_startup_entry", "default_idle",
    "default_idle_call", "arch_cpu_idle",     "pv_native_safe_halt",
    "native_safe_halt",  "cpuidle_enter",     "cpuidle_enter_state",
    "cpuidle_idle_call", "acpi_idle_*",       "intel_idle*",
    "mwait_idle*",       "poll_idle",
};

bool matches(std::string_view pattern, std::string_view name) {
    if (!pattern.empty() && pattern.back() == '*')
        return name.starts_with(pattern.substr(0, pattern.size() - 1));
    return name == pattern;
}

} // namespace

std::span<const KernelPathRule> kernelPathRules() {
    return kRules;
}

std::optional<CpuPath> pathOfFunction(std::string_view name) {
    for (const KernelPathRule& rule : kRules)
        if (matches(rule.pattern, name))
            return rule.path;
    return std::nullopt;
}

bool isIdleFunction(std::string_view name) {
    for (const std::string_view pattern : kIdle)
        if (matches(pattern, name))
            return true;
    return false;
}

KernelPathVerdict classifyKernelChain(std::span<const std::string_view> leafFirst) {
    for (const std::string_view name : leafFirst) {
        if (name.empty())
            continue;
        if (const auto path = pathOfFunction(name))
            return {*path, false};
        if (isIdleFunction(name))
            return {CpuPath::OtherKernel, true};
    }
    return {CpuPath::OtherKernel, false};
}

} // namespace loadscope::engine
