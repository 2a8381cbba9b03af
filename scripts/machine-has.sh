#!/usr/bin/env bash
# Prints what this machine has for the suites, space-separated, found with
# commands of its own and never with Loadscope's (its `lab check` is what the
# suites test): "sandbox", "mode:NAME" for each lab mode whose links, rules
# and daemons are here, "server:NAME" for each lab server, and "sshd",
# "h2load", "xvfb", "docker-proxy", "cpu-profile". scripts/test.sh passes the
# list to the suites as LOADSCOPE_REQUIRE, where a skip for one of them is a
# failure (tests/support/required_here.h).
#
# The link kinds are tried in a network namespace made for the probe and gone
# with it: nothing in the machine's own namespace is created or changed.
set -uo pipefail
cd "$(dirname "$0")/.."

has=()
on_path() { for program in "$@"; do command -v "$program" >/dev/null || return 1; done; }
# Runs the commands in a private network namespace of their own.
in_private_netns() { unshare -n sh -ec "$1" >/dev/null 2>&1; }

if [ "$(id -u)" = 0 ] && unshare -n -m -p -f --mount-proc true 2>/dev/null; then
  has+=(sandbox)
  base='ip link add probe0 type veth peer name probe1
        ip link add probebr type bridge
        ip link set probe0 master probebr
        nft add table ip probe
        nft add chain ip probe pre "{ type nat hook prerouting priority -100; }"'
  if in_private_netns "$base"; then
    has+=(mode:host mode:container-host-network mode:container-nat mode:userland-proxy
      mode:linux-bridge mode:cluster-ip mode:pod-bridge mode:node-port mode:sidecar)
    in_private_netns "$base
      ip link add probem link probe1 type macvlan mode bridge" && has+=(mode:macvlan)
    in_private_netns "$base
      ip link add probei link probe1 type ipvlan mode l2" && has+=(mode:ipvlan)
    in_private_netns "$base
      ip link add probevx type vxlan id 1 dstport 4789 dev probe0" && has+=(mode:overlay-vxlan)
    # The userspace switch and slirp4netns make their taps through /dev/net/tun.
    tun=false
    { exec 3<>/dev/net/tun; } 2>/dev/null && { exec 3>&-; tun=true; }
    $tun && on_path ovs-vswitchd ovsdb-server ovsdb-tool ovs-vsctl ovs-ofctl ethtool &&
      [ -f /usr/share/openvswitch/vswitch.ovsschema ] && has+=(mode:ovs-bridge)
    $tun && on_path slirp4netns && has+=(mode:rootless-nat)
  fi
fi

# The embedded servers are the product's own; the others are Debian's.
has+=(server:http server:echo server:sink server:udp-echo server:udp-sink)
PATH=$PATH:/usr/sbin:/sbin
on_path nginx && has+=(server:nginx)
on_path apache2 && has+=(server:apache)
on_path memcached && has+=(server:memcached)
on_path redis-server && has+=(server:redis)
on_path sshd && has+=(sshd)
on_path h2load && has+=(h2load)
on_path Xvfb xdotool && has+=(xvfb)
[ -x build/deps/docker-proxy/docker-proxy ] && has+=(docker-proxy)
[ "$(id -u)" = 0 ] && [ -r /proc/sys/kernel/perf_event_paranoid ] && has+=(cpu-profile)

echo "${has[*]}"
