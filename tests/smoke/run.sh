#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# nfvd smoke test: real Linux hosts in network namespaces, routed by nfvd.
#
#   nfvsmk-h1 (eth0 10.201.1.2/24, fd00:201:1::2/64)
#        |  veth
#   nfvsmk-v1 == nfvd port p1 (10.201.1.1, fd00:201:1::1)
#                 nfvd
#   nfvsmk-v2 == nfvd port p2 (10.201.2.1, fd00:201:2::1)
#        |  veth
#   nfvsmk-h2 (eth0 10.201.2.2/24, fd00:201:2::2/64)
#
#   nfvd port p3 (no address) == nfvsmk-v3, a VLAN trunk:
#     nfvd vlan v10 (id 10, 10.201.10.1, fd00:201:10::1)
#     nfvd vlan v20 (id 20, 10.201.20.1, fd00:201:20::1)
#        |  veth
#   nfvsmk-h3 eth0 (untagged: no address, no IPv6), the kernel's 802.1Q devices on it:
#     eth0.10 10.201.10.2/24, fd00:201:10::2/64
#     eth0.30 10.201.30.2/24, a VLAN nfvd does not have (its frames are dropped)
#     eth0.20 10.201.20.2/24, fd00:201:20::2/64, moved to namespace nfvsmk-h4 so
#             that VLAN 10 -> VLAN 20 traffic is routed by nfvd, not h3's kernel
#   On a kernel without 802.1Q devices, eth0.10/20/30 are veths and
#   vlan_trunk.py in h3 tags and untags their frames on eth0 (setup_trunk).
#
# nfvd owns the root-side veth ends through net_af_xdp, then (a second run)
# net_af_packet; if AF_XDP is unavailable the af_xdp run is skipped and
# af_packet is used. No neighbor is static anywhere: nfvd gets only "port add"
# and "addr add", and resolves its neighbors (ARP, ND) as the hosts resolve it.
# The VLAN scenario (6) needs tcpdump in h3 for its tag check (skipped without).
#
# Run from the repository root:  NFVD_BUILD=build bash tests/smoke/run.sh
# Knobs (environment):
#   NFVSMK_DRIVERS="af_xdp af_packet"  drivers to run, in order
#   NFVSMK_EAL_MEM="--no-huge -m 2048"  EAL memory options (e.g. "" for hugepages)
#   NFVSMK_MIN_TCP_MBPS=100             TCP throughput floor (a sanity bar, not a benchmark)
#   NFVSMK_UDP_RATE=100M                iperf3 UDP offered rate
#   NFVSMK_MAX_UDP_LOSS=1               UDP loss ceiling in percent (h2 socket overflows excluded)
#   NFVSMK_PORT_OPTS="rxd 4096"         extra "port add" options
#   NFVSMK_VLAN_PEER=auto               VLAN peer: kernel (802.1Q devices), user
#                                       (vlan_trunk.py), auto (kernel if it has them)
#   NFVSMK_KEEP=1                       keep the work directory (logs) at exit
# Prints PASS/FAIL per check, ends with "N passed, M failed"; exit 1 on any failure.
set -euo pipefail

BUILD=${NFVD_BUILD:-build}
NFVD=$BUILD/src/nfvd
NFVCTL=$BUILD/src/nfvctl
DRIVERS=${NFVSMK_DRIVERS:-af_xdp af_packet}
EAL_MEM=${NFVSMK_EAL_MEM-"--no-huge -m 2048"}
MIN_TCP_MBPS=${NFVSMK_MIN_TCP_MBPS:-100}
UDP_RATE=${NFVSMK_UDP_RATE:-100M}
MAX_UDP_LOSS=${NFVSMK_MAX_UDP_LOSS:-1}
PORT_OPTS=${NFVSMK_PORT_OPTS:-}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

H1=nfvsmk-h1
H2=nfvsmk-h2
H3=nfvsmk-h3
H4=nfvsmk-h4
V1=nfvsmk-v1
V2=nfvsmk-v2
V3=nfvsmk-v3
VLAN_PEER=${NFVSMK_VLAN_PEER:-auto}
VLAN_PEER_WHY=
SMOKE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VLAN_PINGS=5 # echo requests per VLAN ping check
VLAN_RETRIES=0 # VLAN checks run twice (a neighbor probe in the count)
VLAN_WARM_REPLIES=0 # echo replies of the last VLAN warm-up (the tcpdump check counts them)
PREFIX=nfvsmk-$$ # EAL --file-prefix: unique per run
# Drop reasons that a healthy run may show: the ones this test provokes
# (TTL / hop limit, arping an address nfvd does not have), the hosts' own
# IPv6/IPv4 multicast chatter (MLD, router solicitations, IGMP), TX
# back-pressure under iperf3 load, the frames of h3's VLAN 30, which nfvd
# does not have, and the ARP replies and neighbor advertisements nfvd
# learns from and the solicitations for the hosts' addresses (ends, not
# losses: show drops names every packet that ends in nfvd).
EXPECTED_DROPS="ip4_rewrite/ttl_expired ip6_rewrite/hop_limit_expired
ip6_input/multicast_destination ip6_input/link_local ip6_lookup/l2_multicast
ip4_input/multicast_destination ip4_lookup/l2_broadcast port_tx/queue_full
vlan_input/unknown_vlan arp_input/not_ours arp_input/reply_received
nd_input/not_ours nd_input/advertisement_received nd_input/router_discovery"

N_PASS=0
N_FAIL=0
DRV=setup
NFVD_PID=
BG_PIDS=()
T_START=$SECONDS
WORK=

# fd 3/4: the terminal's stdout/stderr, for messages from traps, which can
# run while a command's output is redirected to a file.
exec 3>&1 4>&2

pass() { printf 'PASS  [%s] %s\n' "$DRV" "$*"; N_PASS=$((N_PASS + 1)); }
fail() { printf 'FAIL  [%s] %s\n' "$DRV" "$*"; N_FAIL=$((N_FAIL + 1)); }
skip() { printf 'SKIP  [%s] %s\n' "$DRV" "$*"; }
info() { printf '      %s\n' "$*"; }
in_h1() { ip netns exec "$H1" "$@"; }
in_h2() { ip netns exec "$H2" "$@"; }
in_h3() { ip netns exec "$H3" "$@"; }
in_h4() { ip netns exec "$H4" "$@"; }

# json EXPR: evaluates the Python expression EXPR with d = the JSON on stdin.
json() { "$PY" -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$@"; }
ctl() { timeout 10 "$NFVCTL" -s "$SOCK" "$@"; }

stop_nfvd() { # stop_nfvd: SIGTERM, wait up to 15 s; sets NFVD_RC (124 if it had to be killed)
	NFVD_RC=0
	[ -n "$NFVD_PID" ] || return 0
	kill -TERM "$NFVD_PID" 2>/dev/null || true
	for _ in $(seq 150); do
		kill -0 "$NFVD_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$NFVD_PID" 2>/dev/null; then
		kill -KILL "$NFVD_PID" 2>/dev/null || true
		wait "$NFVD_PID" 2>/dev/null || true
		NFVD_RC=124
	else
		wait "$NFVD_PID" 2>/dev/null || NFVD_RC=$?
	fi
	NFVD_PID=
}

cleanup() {
	local rc=$?

	set +e
	trap - EXIT INT TERM
	exec 1>&3 2>&4
	stop_nfvd
	for pid in "${BG_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for ns in "$H1" "$H2" "$H4" "$H3"; do
		if ip netns list | grep -qw "^$ns"; then
			for pid in $(ip netns pids "$ns" 2>/dev/null); do
				kill -KILL "$pid" 2>/dev/null
			done
			ip netns del "$ns"
		fi
	done
	ip link del "$V1" 2>/dev/null
	ip link del "$V2" 2>/dev/null
	ip link del "$V3" 2>/dev/null
	# EAL's runtime directory (only a telemetry socket is left if nfvd was killed)
	[ -n "$PREFIX" ] && rm -rf "/var/run/dpdk/$PREFIX"
	if [ -n "$WORK" ]; then
		if [ "${NFVSMK_KEEP:-0}" = 1 ]; then
			echo "smoke: logs kept in $WORK"
		else
			rm -rf "$WORK"
		fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "smoke: interrupted, cleaning up" >&3; exit 130' INT
trap 'echo "smoke: terminated, cleaning up" >&3; exit 143' TERM

finish() {
	echo "smoke: run time $((SECONDS - T_START)) s"
	echo "$N_PASS passed, $N_FAIL failed"
	[ "$N_FAIL" -eq 0 ] && [ "$N_PASS" -gt 0 ]
}

# ---------------------------------------------------------------- prerequisites
prereq_ok=true
if [ "$(id -u)" -ne 0 ]; then
	fail "must run as root (network namespaces, veth, AF_XDP)"
	prereq_ok=false
fi
for f in "$NFVD" "$NFVCTL"; do
	if [ ! -x "$f" ]; then
		fail "$f not built (run 'make build' or set NFVD_BUILD)"
		prereq_ok=false
	fi
done
for t in ip ethtool ping iperf3 timeout ss; do
	if ! command -v "$t" >/dev/null; then
		fail "tool '$t' missing (apt-get install iproute2 ethtool iputils-ping iperf3)"
		prereq_ok=false
	fi
done
if ! $prereq_ok; then
	finish
	exit 1
fi
WORK=$(mktemp -d /tmp/nfvsmk.XXXXXX)

# --------------------------------------------------------------------- topology
# Leftovers of an aborted earlier run (same fixed names) would make setup fail.
for ns in "$H1" "$H2" "$H4" "$H3"; do
	if ip netns list | grep -qw "^$ns"; then
		echo "smoke: removing stale namespace $ns"
		for pid in $(ip netns pids "$ns"); do kill -KILL "$pid" 2>/dev/null || true; done
		ip netns del "$ns"
	fi
done
ip link del "$V1" 2>/dev/null || true
ip link del "$V2" 2>/dev/null || true
ip link del "$V3" 2>/dev/null || true

setup_host() { # setup_host NS VETH N
	local ns=$1 v=$2 n=$3

	ip netns add "$ns"
	ip link add "$v" type veth peer name eth0 netns "$ns"
	# The root-side end belongs to nfvd: no kernel IPv6 on it.
	sysctl -qw "net.ipv6.conf.$v.disable_ipv6=1"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.eth0.accept_dad=0
	ip link set "$v" up
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0 up
	# Checksum/segmentation offloads off: nfvd forwards what it gets, and a
	# partial checksum or a 64 KB GSO frame must not cross the data plane.
	ethtool -K "$v" tx off rx off gso off gro off tso off >/dev/null 2>&1 || true
	ip netns exec "$ns" ethtool -K eth0 tx off rx off gso off gro off tso off \
		>/dev/null 2>&1 || true
	ip -n "$ns" addr add "10.201.$n.2/24" dev eth0
	ip -n "$ns" addr add "fd00:201:$n::2/64" dev eth0 nodad
	ip -n "$ns" route add default via "10.201.$n.1"
	ip -n "$ns" -6 route add default via "fd00:201:$n::1"
}

# setup_trunk: h3's veth to nfvd's p3 and the VLAN peer on it: eth0.10,
# eth0.30 in h3 and eth0.20 in h4, each in its VLAN. The peer (VLAN_PEER) is
# the kernel's 802.1Q devices on h3's eth0 ("kernel"), or, on a kernel built
# without them, ordinary veths whose frames vlan_trunk.py, in h3, tags onto
# eth0 and untags from it ("user"); "auto" (NFVSMK_VLAN_PEER) takes the
# kernel's when it has them.
# Nothing untagged leaves h3 (no address on eth0, IPv6 off), so nfvd's
# counters see only what the checks send: no DAD, no router solicitations
# and no link-local address on the IPv6 VLANs (the MLD reports for their
# addresses go out once, at setup, well before the checks), IPv6 off on
# eth0.30; neighbors are resolved (ARP, ND) on both sides.
setup_trunk() {
	local ns id dev

	ip netns add "$H3" && ip netns add "$H4" || return 1
	ip link add "$V3" type veth peer name eth0 netns "$H3" || return 1
	sysctl -qw "net.ipv6.conf.$V3.disable_ipv6=1"
	in_h3 sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1 || return 1
	# The VLAN interfaces' IPv6 settings come from their namespace's
	# defaults (a device that moves to another namespace gets that one's).
	for ns in "$H3" "$H4"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.accept_dad=0 \
			net.ipv6.conf.default.router_solicitations=0 || return 1
	done
	ip link set "$V3" up
	ip -n "$H3" link set lo up
	ip -n "$H4" link set lo up
	ip -n "$H3" link set eth0 up || return 1
	# As for the other veths, and tx-vlan-hw-insert (txvlan) off on h3's
	# eth0, for the kernel's VLAN devices: with it on, they leave the tag
	# beside the frame (skb metadata) and the veth hands it so to its peer,
	# where XDP, hence net_af_xdp, does not see it; with it off, the tag is
	# written into the frame data.
	ethtool -K "$V3" tx off rx off gso off gro off tso off >/dev/null 2>&1 || true
	in_h3 ethtool -K eth0 tx off rx off gso off gro off tso off txvlan off >/dev/null 2>&1 || true
	if [ "$VLAN_PEER" != user ] &&
		ip -n "$H3" link add link eth0 name eth0.10 type vlan id 10 2>"$WORK/vlan-probe.err"; then
		VLAN_PEER=kernel
		ip -n "$H3" link add link eth0 name eth0.20 type vlan id 20 || return 1
		ip -n "$H3" link add link eth0 name eth0.30 type vlan id 30 || return 1
		ip -n "$H3" link set eth0.20 netns "$H4" || return 1
	elif [ "$VLAN_PEER" = kernel ]; then
		echo "smoke: no kernel VLAN device: $(head -n 1 "$WORK/vlan-probe.err")" >&2
		return 1
	else
		VLAN_PEER_WHY=$(head -n 1 "$WORK/vlan-probe.err" 2>/dev/null || true)
		VLAN_PEER=user
		ip -n "$H3" link add eth0.10 type veth peer name vt10 || return 1
		ip -n "$H3" link add eth0.30 type veth peer name vt30 || return 1
		ip -n "$H3" link add vt20 type veth peer name eth0.20 netns "$H4" || return 1
		for id in 10 20 30; do
			in_h3 sysctl -qw "net.ipv6.conf.vt$id.disable_ipv6=1" || return 1
			in_h3 ethtool -K "vt$id" tx off rx off gso off gro off tso off >/dev/null 2>&1 || true
			ip -n "$H3" link set "vt$id" up || return 1
		done
		in_h3 timeout 900 "$PY" "$SMOKE_DIR/vlan_trunk.py" eth0 10=vt10 20=vt20 30=vt30 \
			>"$WORK/vlan_trunk.log" 2>&1 &
		VLAN_TRUNK_PID=$!
		BG_PIDS+=("$VLAN_TRUNK_PID")
		for _ in $(seq 50); do
			grep -q '^ready$' "$WORK/vlan_trunk.log" && break
			kill -0 "$VLAN_TRUNK_PID" 2>/dev/null || break
			sleep 0.1
		done
		if ! grep -q '^ready$' "$WORK/vlan_trunk.log"; then
			echo "smoke: vlan_trunk.py did not start: $(tail -n 1 "$WORK/vlan_trunk.log")" >&2
			return 1
		fi
	fi
	for id in 10 20 30; do
		ns=$H3
		[ "$id" = 20 ] && ns=$H4
		dev=eth0.$id
		ip netns exec "$ns" ethtool -K "$dev" tx off rx off gso off gro off tso off \
			>/dev/null 2>&1 || true
		if [ "$id" = 30 ]; then
			ip netns exec "$ns" sysctl -qw "net.ipv6.conf.eth0/$id.disable_ipv6=1" || return 1
		else
			ip -n "$ns" link set "$dev" addrgenmode none || return 1
		fi
		ip -n "$ns" link set "$dev" up || return 1
		ip -n "$ns" addr add "10.201.$id.2/24" dev "$dev" || return 1
		[ "$id" = 30 ] && continue
		ip -n "$ns" addr add "fd00:201:$id::2/64" dev "$dev" nodad || return 1
		ip -n "$ns" route add default via "10.201.$id.1" || return 1
		ip -n "$ns" -6 route add default via "fd00:201:$id::1" || return 1
	done
}

offloads_off() { # offloads_off IFACE [NS]
	local k

	if [ -n "${2:-}" ]; then k=$(ip netns exec "$2" ethtool -k "$1"); else k=$(ethtool -k "$1"); fi
	grep -q '^tx-checksumming: off' <<<"$k" && grep -q '^rx-checksumming: off' <<<"$k" &&
		grep -q '^generic-segmentation-offload: off' <<<"$k"
}

if setup_host "$H1" "$V1" 1 && setup_host "$H2" "$V2" 2 && setup_trunk; then
	pass "topology: namespaces $H1, $H2, $H3 (VLANs 10, 30), $H4 (VLAN 20); veths $V1, $V2, $V3; VLAN peer: $VLAN_PEER"
else
	fail "topology setup failed"
	finish
	exit 1
fi
if offloads_off "$V1" && offloads_off "$V2" && offloads_off "$V3" && offloads_off eth0 "$H1" &&
	offloads_off eth0 "$H2" && offloads_off eth0 "$H3" && offloads_off eth0.10 "$H3" &&
	offloads_off eth0.30 "$H3" && offloads_off eth0.20 "$H4"; then
	pass "offloads off on the six veth ends and the three VLAN devices (tx/rx checksum, gso, gro, tso)"
else
	fail "could not turn checksum/segmentation offloads off on the veths and VLAN devices"
fi
if [ "$VLAN_PEER" = user ] && [ -n "$VLAN_PEER_WHY" ]; then
	skip "kernel 802.1Q devices unavailable ('ip link add ... type vlan': $VLAN_PEER_WHY): VLAN peer vlan_trunk.py instead"
elif [ "$VLAN_PEER" = user ]; then
	skip "kernel 802.1Q devices not used (NFVSMK_VLAN_PEER=user): VLAN peer vlan_trunk.py"
elif in_h3 ethtool -k eth0 | grep -q '^tx-vlan-offload: off'; then
	pass "$H3 eth0: tx-vlan-offload (tx-vlan-hw-insert) off: the VLAN devices write their tags in the frame data"
else
	fail "$H3 eth0: tx-vlan-offload still on: $(in_h3 ethtool -k eth0 | grep '^tx-vlan-offload')"
fi
MAC_V1=$(cat "/sys/class/net/$V1/address")
MAC_V2=$(cat "/sys/class/net/$V2/address")
MAC_V3=$(cat "/sys/class/net/$V3/address")
MAC_H1=$(ip netns exec "$H1" cat /sys/class/net/eth0/address)
MAC_H2=$(ip netns exec "$H2" cat /sys/class/net/eth0/address)
# (The kernel's VLAN devices have their parent's MAC: eth0's, both.)
MAC_H3_10=$(in_h3 cat /sys/class/net/eth0.10/address)
MAC_H4_20=$(in_h4 cat /sys/class/net/eth0.20/address)

# --------------------------------------------------------------------- nfvd run
start_nfvd() { # start_nfvd DRIVER: 0 ready, 2 driver unavailable, 1 other failure
	local drv=$1 conf=$WORK/startup-$1.conf

	SOCK=$WORK/nfvd-$drv.sock
	LOG=$WORK/nfvd-$drv.log
	cat >"$conf" <<-EOF
		# nfvd smoke test, driver $drv
		port add p1 dev net_${drv}0,iface=$V1 $PORT_OPTS
		port add p2 dev net_${drv}1,iface=$V2 $PORT_OPTS
		port add p3 dev net_${drv}2,iface=$V3 $PORT_OPTS
		addr add 10.201.1.1/24 dev p1
		addr add 10.201.2.1/24 dev p2
		addr add fd00:201:1::1/64 dev p1
		addr add fd00:201:2::1/64 dev p2
	EOF
	# --no-shconf, not --in-memory: DPDK 22.11 refuses --in-memory with --no-huge.
	# shellcheck disable=SC2086
	"$NFVD" -l 0,1 $EAL_MEM --no-shconf --no-pci --file-prefix "$PREFIX" -- \
		-c "$conf" -s "$SOCK" >"$LOG" 2>&1 &
	NFVD_PID=$!
	for _ in $(seq 300); do
		[ -S "$SOCK" ] && return 0
		if ! kill -0 "$NFVD_PID" 2>/dev/null; then
			stop_nfvd
			# A failed "port add" (startup lines 2-4) means the driver cannot
			# be used here; anything else is an nfvd failure.
			grep -q "startup-$drv.conf:[234]: " "$LOG" && return 2
			return 1
		fi
		sleep 0.1
	done
	return 1
}

# check DESCRIPTION COMMAND...: PASS when the command succeeds, else FAIL.
check() {
	local what=$1

	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

ping_ok() { # ping_ok NS COUNT ARGS...: 0 % loss
	local ns=$1 count=$2 out

	shift 2
	out=$(ip netns exec "$ns" timeout 20 ping -n -c "$count" -i 0.05 -W 1 "$@" 2>&1) || true
	info "$(grep -E 'packets transmitted' <<<"$out" || echo "ping: ${out##*$'\n'}")"
	grep -q " 0% packet loss" <<<"$out"
}

iperf_server() { # iperf_server PORT: background one-shot server in h2
	local port=$1

	in_h2 timeout 20 iperf3 -s -1 -B 10.201.2.2 -p "$port" >"$WORK/iperf-s-$port.log" 2>&1 &
	IPERF_SRV=$!
	BG_PIDS+=("$IPERF_SRV")
	for _ in $(seq 50); do
		[ -n "$(in_h2 ss -Hltn "sport = :$port" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	return 1
}

iperf_server_done() {
	for _ in $(seq 30); do
		kill -0 "$IPERF_SRV" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$IPERF_SRV" 2>/dev/null || true
	wait "$IPERF_SRV" 2>/dev/null || true
}

# nfvd_died: true (after reporting a failure) when nfvd is gone mid-run.
nfvd_died() {
	kill -0 "$NFVD_PID" 2>/dev/null && return 1
	stop_nfvd
	fail "nfvd is no longer running (exit code $NFVD_RC); remaining checks of this driver skipped; log tail:"
	tail -n 15 "$LOG" | sed 's/^/      | /'
	return 0
}

iperf_error() { # iperf_error FILE: iperf3's complaint, if any
	local e

	e=$(json 'd.get("error", "")' <"$1" 2>/dev/null) || e=$(head -n 1 "$1")
	[ -z "$e" ] || info "| iperf3: $e"
}

# path_counters: where packets can be lost on the h1 -> h2 path, as
# "ring nfvd_missed nfvd_drops nfvd_tx_errors h2_socket":
#   ring       frames the kernel could not put in nfvd's AF_XDP RX ring (the
#              veth's XDP drops; DPDK 22.11's PMD leaves them out of rx_missed).
#              af_packet's ring drops are visible only to the socket's owner:
#              "n/a"
#   nfvd_*     nfvd's rx_missed, drops (all reasons), tx_errors
#   h2_socket  h2's UdpRcvbufErrors: the receiving socket overflowed
path_counters() {
	local ring=n/a st

	if [ "$DRV" = af_xdp ]; then
		ring=$(ethtool -S "$V1" 2>/dev/null | awk '/rx_queue_0_drops:/ { n += $2 } END { print n + 0 }')
	fi
	st=$(ctl --json show stats 2>/dev/null |
		json '"%d %d %d" % (sum(p["rx_missed"] for p in d["ports"]), d["packets"]["dropped"], sum(p["tx_errors"] for p in d["ports"]))' \
			2>/dev/null) || st="0 0 0"
	echo "$ring $st $(in_h2 nstat -az UdpRcvbufErrors 2>/dev/null | awk '/UdpRcvbufErrors/ { print $2 + 0 }')"
}

# path_losses BEFORE AFTER: prints the deltas; sets H2_SOCKET_LOSS
path_losses() {
	local -a a b
	local ring=n/a

	read -r -a a <<<"$1"
	read -r -a b <<<"$2"
	H2_SOCKET_LOSS=$((${b[4]:-0} - ${a[4]:-0}))
	[ "${a[0]}" = n/a ] || ring=$((b[0] - a[0]))
	info "losses by place: kernel->nfvd ring $ring, nfvd rx_missed $((b[1] - a[1])), nfvd drops $((b[2] - a[2])), nfvd tx_errors $((b[3] - a[3])), h2 UDP socket $H2_SOCKET_LOSS"
}

# vlan_snap: the counters the VLAN checks account for, as 13 numbers: rx
# packets, rx bytes, tx packets, tx bytes of v10, v20 and p3 (port show),
# then the vlan_input/unknown_vlan drops (show drops); '?' for any unreadable.
# One Python start for both (it is most of the time a check takes).
vlan_snap() {
	{ ctl --json port show; echo; ctl --json show drops; } 2>/dev/null | "$PY" -S -c '
import json, sys
try:
    t, dec = sys.stdin.read().strip(), json.JSONDecoder()
    ports, end = dec.raw_decode(t)
    drops = dec.raw_decode(t[end:].lstrip())[0]
    by = {p["name"]: p for p in ports["ports"]}
    v = [by.get(n, {}).get(k, "?") for n in ("v10", "v20", "p3")
         for k in ("rx_packets", "rx_bytes", "tx_packets", "tx_bytes")]
    v.append(sum(x["packets"] for x in drops["drops"]
                 if (x["node"], x["reason"]) == ("vlan_input", "unknown_vlan")))
except Exception:
    v = ["?"] * 13
print(" ".join(str(x) for x in v))
' 2>/dev/null || echo "? ? ? ? ? ? ? ? ? ? ? ? ?"
}

vlan_delta() { # vlan_delta BEFORE AFTER: the 13 differences ('?' if unreadable)
	local -a a b
	local i out=""

	read -r -a a <<<"$1"
	read -r -a b <<<"$2"
	for i in $(seq 0 12); do
		if [[ "${a[i]:-?}" =~ ^[0-9]+$ && "${b[i]:-?}" =~ ^[0-9]+$ ]]; then
			out+=" $((b[i] - a[i]))"
		else
			out+=" ?"
		fi
	done
	echo "${out# }"
}

vlan_show() { # vlan_show DELTA: readable
	local -a x

	read -r -a x <<<"$1"
	echo "v10 rx ${x[0]}/${x[1]} B tx ${x[2]}/${x[3]} B; v20 rx ${x[4]}/${x[5]} B tx ${x[6]}/${x[7]} B; p3 rx ${x[8]}/${x[9]} B tx ${x[10]}/${x[11]} B; unknown_vlan ${x[12]}"
}

# vlan_ping DESC EXPECT NS PING_ARGS...: VLAN_PINGS echo requests from NS,
# then the counters moved by exactly EXPECT from VLAN_LAST (the last snapshot):
#   EXPECT = "V10RX V10TX V20RX V20TX P3RX P3TX UNKNOWN RXLEN TXLEN [HOW]":
#   packets in each place, the untagged frame lengths of what nfvd receives
#   and sends (a tagged frame is 4 bytes more), and what ping must see: every
#   echo answered (HOW empty), no answer (HOW "noreply"), or an ICMP time
#   exceeded error for every one, from the address HOW names ("ttl:ADDR").
# Waits up to 2 s for the counters to get there; VLAN_LAST is the new snapshot.
vlan_ping() {
	local what=$1 ns=$3 out snap got want ok=true how
	local -a e

	local attempt

	read -r -a e <<<"$2"
	how=${e[9]:-}
	shift 3
	# A neighbor may re-confirm (an ARP or ND probe of nfvd or of a host:
	# every 15-45 s while used) during a check: its frames are counted too,
	# and the check is run once more.
	for attempt in 1 2; do
	ok=true
	# ping ends when every request has its answer (reply or error); -W is
	# how long it waits for the last one (all it does when none comes).
	out=$(ip netns exec "$ns" timeout 10 ping -n -c "$VLAN_PINGS" -i 0.02 \
		-W "$([ "$how" = noreply ] && echo 0.3 || echo 2)" "$@" 2>&1) || true
	case $how in
	"") grep -q " 0% packet loss" <<<"$out" || ok=false ;;
	noreply) grep -q "^$VLAN_PINGS packets transmitted, 0 received" <<<"$out" || ok=false ;;
	ttl:*)
		[ "$(grep -cE "^From ${how#ttl:} .*(Time to live exceeded|Time exceeded: Hop limit)" \
			<<<"$out")" = "$VLAN_PINGS" ] || ok=false
		;;
	esac
	want="${e[0]} $((e[0] * e[7])) ${e[1]} $((e[1] * e[8])) ${e[2]} $((e[2] * e[7])) ${e[3]} $((e[3] * e[8]))"
	want+=" ${e[4]} $((e[4] * (e[7] + 4))) ${e[5]} $((e[5] * (e[8] + 4))) ${e[6]}"
	for _ in $(seq 20); do
		snap=$(vlan_snap)
		got=$(vlan_delta "$VLAN_LAST" "$snap")
		[ "$got" = "$want" ] && break
		sleep 0.1
	done
	VLAN_LAST=$snap
	[ "$got" = "$want" ] || ok=false
	$ok && break
	[ "$attempt" = 1 ] && info "($what: counters off by a neighbor probe? once more)" &&
		VLAN_RETRIES=$((VLAN_RETRIES + 1))
	done
	if $ok; then
		pass "$what; $(vlan_show "$got")"
	else
		fail "$what"
		info "ping: $(grep -E 'packets transmitted' <<<"$out" || echo "${out##*$'\n'}")"
		info "counters moved by: $(vlan_show "$got")"
		info "expected:          $(vlan_show "$want")"
	fi
}

# vlan_del_add: "vlan del v20" while h4 pings nfvd: its VLAN is unknown
# from then on; then v20 again, as new: counters from zero, traffic through.
vlan_del_add() {
	local n=$VLAN_PINGS out before snap v ok=true cmd
	local -a d

	out=$(ctl vlan del v20 2>&1) || info "nfvctl vlan del v20: $out"
	before=$(vlan_snap)
	out=$(in_h4 timeout 10 ping -n -c "$n" -i 0.02 -W 0.3 10.201.20.1 2>&1) || true
	for _ in $(seq 20); do
		snap=$(vlan_snap)
		read -r -a d <<<"$(vlan_delta "$before" "$snap")"
		[ "${d[8]}" = "$n" ] && [ "${d[12]}" = "$n" ] && break
		sleep 0.1
	done
	v=$(ctl --json port show 2>/dev/null | json '" ".join(p["name"] for p in d["ports"])' 2>/dev/null ||
		echo "unreadable")
	if [ "$v" = "p1 p2 p3 v10" ] && [ "${d[8]}" = "$n" ] && [ "${d[12]}" = "$n" ] &&
		grep -q "^$n packets transmitted, 0 received" <<<"$out"; then
		pass "vlan del v20: port show p1 p2 p3 v10; $n pings from $H4 dropped as vlan_input/unknown_vlan, no reply"
	else
		fail "vlan del v20: port show '$v' (expected 'p1 p2 p3 v10'); p3 rx +${d[8]}, unknown_vlan +${d[12]} (expected +$n each)"
		info "ping: $(grep -E 'packets transmitted' <<<"$out" || echo "${out##*$'\n'}")"
	fi
	for cmd in "vlan add v20 dev p3 id 20" "addr add 10.201.20.1/24 dev v20" \
		"addr add fd00:201:20::1/64 dev v20"; do
		# shellcheck disable=SC2086
		out=$(ctl $cmd 2>&1) || { ok=false; info "nfvctl $cmd: $out"; }
	done
	VLAN_LAST=$(vlan_snap)
	read -r -a d <<<"$VLAN_LAST"
	if $ok && [ "${d[4]} ${d[5]} ${d[6]} ${d[7]}" = "0 0 0 0" ]; then
		pass "vlan add v20 again (addresses): port show v20 rx 0/0 B tx 0/0 B, a new interface"
	else
		fail "vlan add v20 again: port show v20 rx ${d[4]}/${d[5]} B tx ${d[6]}/${d[7]} B (expected 0/0 B, 0/0 B: a new interface starts from zero)"
	fi
	# The new v20 has no neighbor yet: resolved first, outside the count
	# (its echo replies, as many as the warm-up needed, go into the
	# tcpdump check).
	VLAN_WARM_REPLIES=0
	vlan_warm_up "$H4 10.201.20.1 10.201.20.2 v20"
	VLAN_LAST=$(vlan_snap)
	vlan_ping "ping VLAN 10 -> VLAN 20 again ($H3 -> $H4) IPv4 ($n, 0% loss)" \
		"$n $n $n $n $((2 * n)) $((2 * n)) 0 98 98" "$H3" 10.201.20.2
}

# neigh_state ADDR DEV: nfvd's state of neighbor ADDR on DEV ("none" if absent).
neigh_state() {
	ctl --json neigh show dev "$2" 2>/dev/null |
		json '([n["state"] for n in d["neighbors"] if n["address"] == sys.argv[2]] + ["none"])[0]' \
			"$1" 2>/dev/null || echo "?"
}

# vlan_warm_up "NS NFVD_ADDR HOST_ADDR DEV"...: pings nfvd from each host so
# that both sides resolve each other, then waits (up to 20 s: nfvd's delay
# before its first probe is 5 s; a pair not there yet is pinged again every
# 2 s, as frames get lost on a busy machine) until nfvd has confirmed each
# host (reachable) and each host has nfvd reachable.
vlan_warm_up() {
	local q ns a h dev st hs got ping_now t_end=$((SECONDS + 20)) last_ping=-10
	local -a f

	while [ "$SECONDS" -lt "$t_end" ]; do
		st=ok
		ping_now=false
		[ $((SECONDS - last_ping)) -ge 2 ] && ping_now=true && last_ping=$SECONDS
		for q in "$@"; do
			read -r -a f <<<"$q"
			ns=${f[0]} a=${f[1]} h=${f[2]} dev=${f[3]}
			hs=$(ip netns exec "$ns" ip neigh show "$a" 2>/dev/null)
			if [ "$(neigh_state "$h" "$dev")" != reachable ] || ! grep -q REACHABLE <<<"$hs"; then
				st=wait
				if $ping_now; then
					# Replies counted: the tcpdump checks expect them.
					got=$(ip netns exec "$ns" timeout 5 ping -n -c 2 -i 0.2 -W 1 "$a" 2>/dev/null |
						sed -n 's/.* \([0-9]*\) received.*/\1/p') || true
					VLAN_WARM_REPLIES=$((VLAN_WARM_REPLIES + ${got:-0}))
				fi
			fi
		done
		[ "$st" = ok ] && break
		sleep 0.1
	done
	if [ "$st" != ok ]; then
		for q in "$@"; do
			read -r -a f <<<"$q"
			info "warm-up: nfvd's ${f[2]} on ${f[3]}: $(neigh_state "${f[2]}" "${f[3]}"); ${f[0]}: $(ip netns exec "${f[0]}" ip neigh show "${f[1]}" 2>/dev/null)"
		done
	fi
}

# vlan_checks: (6) of run_driver. p3 carries VLANs 10 and 20 of h3's veth;
# h3's eth0.10, h4's eth0.20 and h1 (untagged, on p1) reach one another
# through nfvd; h3's eth0.30 is a VLAN nfvd does not know. Every check counts
# exactly, bytes too. Under net_af_xdp the counts of v10 and v20 also show
# that the peer's tags were in the frame data: a tag beside the frame never
# reaches XDP, and the frame would be p3's, untagged (and still routed).
vlan_checks() {
	local ok=true cmd out v n=$VLAN_PINGS tcpd='' cap=$WORK/vlan-$DRV.tcpdump want t0=$SECONDS

	for cmd in "vlan add v10 dev p3 id 10" "vlan add v20 dev p3 id 20" \
		"addr add 10.201.10.1/24 dev v10" "addr add fd00:201:10::1/64 dev v10" \
		"addr add 10.201.20.1/24 dev v20" "addr add fd00:201:20::1/64 dev v20"; do
		# shellcheck disable=SC2086
		out=$(ctl $cmd 2>&1) || { ok=false; info "nfvctl $cmd: $out"; }
	done
	if $ok; then
		pass "vlan add v10, v20 on p3 and their addresses (no neighbor typed in)"
	else
		fail "VLAN setup failed; VLAN checks skipped"
		return 0
	fi
	v=$(ctl --json port show 2>/dev/null | json '" ".join("%s=%s/%s/%s/%s/%s" % (p["name"], p["kind"], p.get("parent"), p.get("vlan_id"), p["mac"].lower(), p["admin_up"]) for p in d["ports"] if p["kind"] != "port")' 2>/dev/null ||
		echo "unreadable")
	if [ "$v" = "v10=vlan/p3/10/$MAC_V3/True v20=vlan/p3/20/$MAC_V3/True" ]; then
		pass "port show: v10, v20 of kind vlan, parent p3, VLAN ids 10, 20, p3's MAC, up"
	else
		fail "port show: expected v10=vlan/p3/10/$MAC_V3/True v20=vlan/p3/20/$MAC_V3/True, got '$v'"
	fi

	# Neighbors first (ARP, ND, both sides, until confirmed), so that the
	# counted checks below see only their own frames.
	vlan_warm_up "$H3 10.201.10.1 10.201.10.2 v10" "$H3 fd00:201:10::1 fd00:201:10::2 v10" \
		"$H4 10.201.20.1 10.201.20.2 v20" "$H4 fd00:201:20::1 fd00:201:20::2 v20"

	# Every frame that comes into h3's eth0 (nfvd's), tags included.
	if command -v tcpdump >/dev/null; then
		in_h3 timeout 30 tcpdump -i eth0 -Q in -nn -e -l -p >"$cap" 2>"$cap.err" &
		tcpd=$!
		BG_PIDS+=("$tcpd")
		for _ in $(seq 50); do
			grep -q "listening on" "$cap.err" && break
			sleep 0.1
		done
		grep -q "listening on" "$cap.err" || { info "tcpdump: $(head -n 1 "$cap.err")"; tcpd=; }
	fi

	# Frame lengths, untagged: echo 98 (IPv4) / 118 (IPv6); full-size
	# packets 1514; time exceeded 14 + 28 + 84 (IPv4) / 14 + 48 + 104 (IPv6).
	VLAN_LAST=$(vlan_snap)
	#        V10RX V10TX V20RX V20TX P3RX P3TX UNKNOWN RXLEN TXLEN [HOW]
	vlan_ping "ping $H3 eth0.10 -> h1 IPv4 ($n, 0% loss)" \
		"$n $n 0 0 $n $n 0 98 98" "$H3" 10.201.1.2
	vlan_ping "ping $H3 eth0.10 -> h1 IPv6 ($n, 0% loss)" \
		"$n $n 0 0 $n $n 0 118 118" "$H3" -6 fd00:201:1::2
	vlan_ping "ping h1 -> $H3 eth0.10 IPv4 ($n, 0% loss)" \
		"$n $n 0 0 $n $n 0 98 98" "$H1" 10.201.10.2
	vlan_ping "ping h1 -> $H3 eth0.10 IPv6 ($n, 0% loss)" \
		"$n $n 0 0 $n $n 0 118 118" "$H1" -6 fd00:201:10::2
	vlan_ping "ping $H3 eth0.10 -> h1 IPv4, 1500-byte packets, DF ($n, 0% loss)" \
		"$n $n 0 0 $n $n 0 1514 1514" "$H3" -s 1472 -M "do" 10.201.1.2
	vlan_ping "ping $H3 eth0.10 -> h1 IPv6, 1500-byte packets ($n, 0% loss)" \
		"$n $n 0 0 $n $n 0 1514 1514" "$H3" -6 -s 1452 -M "do" fd00:201:1::2
	vlan_ping "ping VLAN 10 -> VLAN 20 ($H3 -> $H4, hairpin on p3) IPv4 ($n, 0% loss)" \
		"$n $n $n $n $((2 * n)) $((2 * n)) 0 98 98" "$H3" 10.201.20.2
	vlan_ping "ping VLAN 10 -> VLAN 20 ($H3 -> $H4, hairpin on p3) IPv6 ($n, 0% loss)" \
		"$n $n $n $n $((2 * n)) $((2 * n)) 0 118 118" "$H3" -6 fd00:201:20::2
	vlan_ping "ping nfvd 10.201.10.1 (v10) from $H3 ($n, 0% loss)" \
		"$n $n 0 0 $n $n 0 98 98" "$H3" 10.201.10.1
	vlan_ping "ping nfvd fd00:201:10::1 (v10) from $H3 ($n, 0% loss)" \
		"$n $n 0 0 $n $n 0 118 118" "$H3" -6 fd00:201:10::1
	vlan_ping "ping -t 1 $H3 eth0.10 -> h1: $n 'Time to live exceeded' from 10.201.10.1" \
		"$n $n 0 0 $n $n 0 98 126 ttl:10.201.10.1" "$H3" -t 1 10.201.1.2
	vlan_ping "ping -6 -t 1 $H3 eth0.10 -> h1: $n 'Time exceeded: Hop limit' from fd00:201:10::1" \
		"$n $n 0 0 $n $n 0 118 166 ttl:fd00:201:10::1" "$H3" -6 -t 1 fd00:201:1::2
	# A broadcast ping: no neighbor to resolve first (h3 has none for VLAN 30).
	vlan_ping "ping -b out of $H3 eth0.30 (VLAN 30, unknown to nfvd): $n dropped as vlan_input/unknown_vlan, no reply" \
		"0 0 0 0 $n 0 $n 98 98 noreply" "$H3" -b 10.201.30.255
	vlan_del_add

	# The tags of what nfvd sent to h3 and h4: replies for eth0.10 tagged
	# 10, for eth0.20 tagged 20; nothing untagged and nothing for VLAN 30.
	if [ -n "$tcpd" ]; then
		sleep 0.2
		kill -TERM "$tcpd" 2>/dev/null || true
		for _ in $(seq 30); do
			kill -0 "$tcpd" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$tcpd" 2>/dev/null || true
		wait "$tcpd" 2>/dev/null || true
		v=$("$PY" -c '
import collections, re, sys
n = collections.Counter()
for line in open(sys.argv[1]):
    if not line.strip() or re.search(r"ARP|neighbor (solicitation|advertisement)", line):
        continue  # neighbor resolution: not what the checks count
    tag = re.search(r": vlan (\d+),", line)
    dst = re.search(r" > ([0-9a-f.:]+): ", line)
    echo = re.search(r": ICMP6?,? echo (request|reply)", line)
    n["%s:%s:%s" % ("vlan" + tag.group(1) if tag else "untagged", dst.group(1) if dst else "?",
                    echo.group(1) if echo else "other")] += 1
print(" ".join("%s=%d" % kv for kv in sorted(n.items())))
' "$cap" 2>&1)
		want="vlan10:10.201.10.2:other=$n vlan10:10.201.10.2:reply=$((5 * n))"
		want+=" vlan10:10.201.10.2:request=$n vlan10:fd00:201:10::2:other=$n"
		want+=" vlan10:fd00:201:10::2:reply=$((4 * n)) vlan10:fd00:201:10::2:request=$n"
		# (and the echo replies of the warm-up of the new v20: 2 a round)
		want+=" vlan20:10.201.20.2:reply=$VLAN_WARM_REPLIES"
		want+=" vlan20:10.201.20.2:request=$((2 * n)) vlan20:fd00:201:20::2:request=$n"
		if [ "$v" != "$want" ] && [ "$VLAN_RETRIES" -gt 0 ]; then
			skip "tcpdump in $H3: a VLAN check ran twice, the frame counts cannot be exact ($v)"
		elif [ "$v" = "$want" ]; then
			pass "tcpdump in $H3: $((16 * n)) frames from nfvd, tagged 10 for eth0.10, 20 for eth0.20; none untagged, none for VLAN 30"
		else
			fail "tcpdump in $H3: frames from nfvd by tag:destination:echo"
			info "got:      $v"
			info "expected: $want"
		fi
	else
		skip "tcpdump not installed (or did not start): VLAN tags on the wire not checked"
	fi
	info "VLAN checks: $((SECONDS - t0)) s"
}

run_driver() {
	local drv=$1 rc out json_out v bps retr ok port

	DRV=$drv
	rc=0
	start_nfvd "$drv" || rc=$?
	if [ $rc -eq 2 ]; then
		skip "net_$drv unavailable here: $(grep -m1 "startup-$drv.conf:[234]: " "$LOG" | sed 's/^nfvd: [^ ]*: //')"
		grep -E '^[a-z_]+\(\): ' "$LOG" | head -n 3 | sed 's/^/      | /' # the PMD's own words
		return 2
	elif [ $rc -ne 0 ]; then
		fail "nfvd did not start on net_$drv (no API socket); log tail:"
		tail -n 15 "$LOG" | sed 's/^/      | /'
		stop_nfvd
		return 1
	fi
	pass "nfvd started on net_$drv, ports from the startup file, API socket up"

	# Ports: driver, and the MAC nfvd reports is the root-side veth's MAC (the
	# hosts' static neighbors point at it).
	json_out=$(ctl --json port show) || json_out='{"ports": []}'
	v=$(json '" ".join("%s=%s/%s" % (p["name"], p["driver"], p["mac"].lower()) for p in d["ports"] if p["kind"] == "port")' \
		<<<"$json_out" 2>/dev/null || echo "unreadable")
	if [ "$v" = "p1=net_$drv/$MAC_V1 p2=net_$drv/$MAC_V2 p3=net_$drv/$MAC_V3" ]; then
		pass "port show: p1, p2, p3 on net_$drv with the veth MACs"
	else
		fail "port show: expected p1=net_$drv/$MAC_V1 p2=net_$drv/$MAC_V2 p3=net_$drv/$MAC_V3, got '$v'"
	fi
	MAC_P1=$(json '[p["mac"] for p in d["ports"] if p["name"] == "p1"][0]' <<<"$json_out" 2>/dev/null ||
		echo "$MAC_V1")
	MAC_P2=$(json '[p["mac"] for p in d["ports"] if p["name"] == "p2"][0]' <<<"$json_out" 2>/dev/null ||
		echo "$MAC_V2")
	MAC_P3=$(json '[p["mac"] for p in d["ports"] if p["name"] == "p3"][0]' <<<"$json_out" 2>/dev/null ||
		echo "$MAC_V3")

	# No neighbor is typed in, on either side: the hosts resolve nfvd and
	# nfvd resolves them (ARP, ND), from the first ping on.
	v=$(ctl --json neigh show 2>/dev/null | json 'len(d["neighbors"])' 2>/dev/null || echo "?")
	if [ "$v" = 0 ]; then
		pass "neigh show: no neighbor before any traffic (only port add and addr add)"
	else
		fail "neigh show: $v neighbors before any traffic (expected none)"
	fi

	# (1) forwarding, IPv4 and IPv6
	check "ping h1 -> h2 IPv4 (20, 0% loss)" ping_ok "$H1" 20 10.201.2.2
	check "ping h1 -> h2 IPv6 (20, 0% loss)" ping_ok "$H1" 20 -6 fd00:201:2::2

	# (2) nfvd answers echo requests for its own addresses
	check "ping nfvd 10.201.1.1 from h1 (echo reply)" ping_ok "$H1" 5 10.201.1.1
	check "ping nfvd fd00:201:1::1 from h1 (ICMPv6 echo reply)" ping_ok "$H1" 5 -6 fd00:201:1::1
	check "ping nfvd's far address 10.201.2.1 (on p2) from h1" ping_ok "$H1" 5 10.201.2.1
	# Its EUI-64 link-local address (RFC 4291 appendix A), like Linux's.
	LL_P1=$("$PY" -c 'import sys; m = [int(x, 16) for x in sys.argv[1].split(":")]; m[0] ^= 2
print("fe80::%x:%x:%x:%x" % (m[0] << 8 | m[1], m[2] << 8 | 0xff, 0xfe00 | m[3], m[4] << 8 | m[5]))' "$MAC_V1")
	check "ping nfvd's link-local $LL_P1 (EUI-64 of p1's MAC) from h1" \
		ping_ok "$H1" 5 -6 "$LL_P1%eth0"

	# (2b) what was learned: the hosts' MACs in nfvd, nfvd's in the hosts
	v=$(ctl --json neigh show 2>/dev/null | json '" ".join(sorted("%s=%s/%s/%s" % (n["address"], (n["lladdr"] or "").lower(), n["dev"], n["state"] in ("reachable", "stale", "delay", "probe")) for n in d["neighbors"] if not n["address"].startswith("fe80")))' 2>/dev/null || echo "unreadable")
	want="10.201.1.2=$MAC_H1/p1/True 10.201.2.2=$MAC_H2/p2/True fd00:201:1::2=$MAC_H1/p1/True fd00:201:2::2=$MAC_H2/p2/True"
	if [ "$v" = "$want" ]; then
		pass "neigh show: h1 and h2 learned, IPv4 and IPv6, with their MACs, states resolved"
	else
		fail "neigh show: expected '$want', got '$v'"
	fi
	v=$(ctl --json neigh show 2>/dev/null | json '",".join(sorted(set(k for n in d["neighbors"] for k in n)))' 2>/dev/null || echo "?")
	if [ "$v" = "address,age,dev,held,lladdr,probes,state,vrf" ]; then
		pass "neigh show --json: address, lladdr, dev, state, vrf (and age, probes, held)"
	else
		fail "neigh show --json fields: $v"
	fi
	if ip -n "$H1" neigh show 10.201.1.1 | grep -qi "lladdr $MAC_V1" &&
		ip -n "$H1" -6 neigh show fd00:201:1::1 | grep -qi "lladdr $MAC_V1" &&
		ip -n "$H2" neigh show 10.201.2.1 | grep -qi "lladdr $MAC_V2"; then
		pass "the hosts resolved nfvd's addresses to its ports' MACs (ARP, ND)"
	else
		fail "the hosts did not resolve nfvd: $(ip -n "$H1" neigh show | paste -sd ';' -)"
	fi

	# (2c) arping: nfvd answers for its own address, never for another (no proxy ARP)
	if command -v arping >/dev/null; then
		out=$(in_h1 timeout 10 arping -c 2 -w 3 -I eth0 10.201.1.1 2>&1) || true
		if grep -q "Received 2 response" <<<"$out" && grep -qi "\[$MAC_V1\]" <<<"$out"; then
			pass "arping 10.201.1.1 (nfvd's): 2 replies from $MAC_V1"
		else
			fail "arping 10.201.1.1: $(tail -n 2 <<<"$out" | paste -sd ' ' -)"
		fi
		out=$(in_h1 timeout 10 arping -c 2 -w 2 -I eth0 10.201.1.77 2>&1) || true
		if grep -q "Received 0 response" <<<"$out"; then
			pass "arping 10.201.1.77 (not nfvd's, on p1's subnet): no reply"
		else
			fail "arping 10.201.1.77: expected no reply: $(tail -n 2 <<<"$out" | paste -sd ' ' -)"
		fi
		out=$(in_h1 timeout 10 arping -c 2 -w 2 -I eth0 10.201.2.1 2>&1) || true
		if grep -q "Received 0 response" <<<"$out"; then
			pass "arping 10.201.2.1 (nfvd's, but on p2) from h1 on p1: no reply (no proxy ARP)"
		else
			fail "arping 10.201.2.1 on p1: expected no reply: $(tail -n 2 <<<"$out" | paste -sd ' ' -)"
		fi
	else
		fail "arping not installed (apt-get install iputils-arping)"
	fi

	# (2d) a route via a gateway behind a host, resolved when first used
	ok=true
	in_h2 ip addr replace 10.201.99.1/32 dev lo || ok=false
	in_h2 ip addr replace fd00:201:99::1/128 dev lo || ok=false
	for cmd in "route add 10.201.99.0/24 via 10.201.2.2" "route add fd00:201:99::/48 via fd00:201:2::2" \
		"neigh flush dev p2"; do
		# shellcheck disable=SC2086
		out=$(ctl $cmd 2>&1) || { ok=false; info "nfvctl $cmd: $out"; }
	done
	if $ok && [ "$(neigh_state 10.201.2.2 p2)" = none ]; then
		check "ping h1 -> 10.201.99.1 (route via h2, gateway resolved on first use; 10, 0% loss)" \
			ping_ok "$H1" 10 10.201.99.1
		check "ping h1 -> fd00:201:99::1 (route via h2's IPv6 address; 10, 0% loss)" \
			ping_ok "$H1" 10 -6 fd00:201:99::1
		v="$(neigh_state 10.201.2.2 p2)/$(neigh_state fd00:201:2::2 p2)"
		if [[ "$v" =~ ^(reachable|stale|delay|probe)/(reachable|stale|delay|probe)$ ]]; then
			pass "the gateways 10.201.2.2 and fd00:201:2::2 resolved by nfvd ($v)"
		else
			fail "gateways after the pings: $v"
		fi
	else
		fail "route via a gateway behind h2 could not be set up (or neigh flush left an entry)"
	fi

	nfvd_died && return 3

	# (3) TTL / hop limit expiry answered by the router's address on p1
	out=$(in_h1 timeout 10 ping -n -c 3 -i 0.2 -W 1 -t 1 10.201.2.2 2>&1) || true
	if grep -q "From 10.201.1.1 .*Time to live exceeded" <<<"$out"; then
		pass "ping -t 1 h1 -> h2: 'Time to live exceeded' from 10.201.1.1"
	else
		fail "ping -t 1 h1 -> h2: expected 'Time to live exceeded' from 10.201.1.1"
		sed 's/^/      | /' <<<"$out" | tail -n 5
	fi
	out=$(in_h1 timeout 10 ping -6 -n -c 3 -i 0.2 -W 1 -t 1 fd00:201:2::2 2>&1) || true
	if grep -q "From fd00:201:1::1 .*Time exceeded: Hop limit" <<<"$out"; then
		pass "ping -6 -t 1 h1 -> h2: 'Time exceeded: Hop limit' from fd00:201:1::1"
	else
		fail "ping -6 -t 1 h1 -> h2: expected 'Time exceeded: Hop limit' from fd00:201:1::1"
		sed 's/^/      | /' <<<"$out" | tail -n 5
	fi

	nfvd_died && return 3

	# (4) TCP throughput h1 -> h2
	port=5201
	if iperf_server $port; then
		local before

		before=$(path_counters)
		in_h1 timeout 15 iperf3 -c 10.201.2.2 -p $port -t 5 -J --connect-timeout 3000 \
			>"$WORK/tcp-$drv.json" 2>&1 || true
		iperf_server_done
		bps=$(json 'd["end"]["sum_received"]["bits_per_second"]' <"$WORK/tcp-$drv.json" 2>/dev/null ||
			echo 0)
		retr=$(json 'd["end"]["sum_sent"].get("retransmits", "?")' <"$WORK/tcp-$drv.json" 2>/dev/null ||
			echo "?")
		path_losses "$before" "$(path_counters)"
		v=$(awk -v b="$bps" 'BEGIN { printf "%.2f", b / 1e9 }')
		if awk -v b="$bps" -v m="$MIN_TCP_MBPS" 'BEGIN { exit !(b > m * 1e6) }'; then
			pass "iperf3 TCP h1 -> h2, 5 s: $v Gbit/s received ($retr retransmits)"
		else
			fail "iperf3 TCP h1 -> h2, 5 s: $v Gbit/s (floor $MIN_TCP_MBPS Mbit/s)"
			iperf_error "$WORK/tcp-$drv.json"
		fi
		TCP_RESULT+=("$drv: $v Gbit/s TCP, $retr retransmits")
	else
		fail "iperf3 server in h2 did not start"
	fi

	nfvd_died && return 3

	# (5) UDP at a modest rate: loss stays low
	port=5202
	if iperf_server $port; then
		local before lost total pct path_pct

		before=$(path_counters)
		in_h1 timeout 10 iperf3 -c 10.201.2.2 -p $port -u -b "$UDP_RATE" -t 3 -J \
			--connect-timeout 3000 \
			>"$WORK/udp-$drv.json" 2>&1 || true
		iperf_server_done
		lost=$(json 'd["end"]["sum"]["lost_packets"]' <"$WORK/udp-$drv.json" 2>/dev/null || echo "?")
		total=$(json 'd["end"]["sum"]["packets"]' <"$WORK/udp-$drv.json" 2>/dev/null || echo "?")
		pct=$(json '"%.3f" % d["end"]["sum"]["lost_percent"]' <"$WORK/udp-$drv.json" 2>/dev/null ||
			echo 100)
		path_losses "$before" "$(path_counters)"
		# Overflows of h2's own socket buffer (a busy receiver) are not the data
		# plane's: the ceiling applies to what was lost on the way.
		path_pct=$(awk -v l="$lost" -v s="$H2_SOCKET_LOSS" -v t="$total" \
			'BEGIN { if (t + 0 == 0) print 100; else { x = l - s; if (x < 0) x = 0; printf "%.3f", 100 * x / t } }')
		if awk -v p="$path_pct" -v m="$MAX_UDP_LOSS" 'BEGIN { exit !(p <= m) }'; then
			pass "iperf3 UDP $UDP_RATE h1 -> h2, 3 s: $lost/$total lost ($pct %; on the path $path_pct %)"
		else
			fail "iperf3 UDP $UDP_RATE h1 -> h2, 3 s: $lost/$total lost ($pct %; on the path $path_pct %, ceiling $MAX_UDP_LOSS %)"
			iperf_error "$WORK/udp-$drv.json"
		fi
		UDP_RESULT+=("$drv: $UDP_RATE UDP, $lost/$total lost ($pct %), $H2_SOCKET_LOSS of them in h2's socket")
	else
		fail "iperf3 server in h2 did not start"
	fi

	nfvd_died && return 3

	# (5b) h2 gets a new MAC and says so (gratuitous ARP, unsolicited NA:
	# arp_notify, ndisc_notify): nfvd learns it, traffic goes on.
	local mac_new=02:00:5e:00:02:02
	# Both of h2's entries exist first (what an unsolicited NA updates).
	in_h1 ping -n -c 1 -W 1 10.201.2.2 >/dev/null 2>&1 || true
	in_h1 ping -6 -n -c 1 -W 1 fd00:201:2::2 >/dev/null 2>&1 || true
	in_h2 sysctl -qw net.ipv4.conf.eth0.arp_notify=1 net.ipv6.conf.eth0.ndisc_notify=1 || true
	if ip -n "$H2" link set eth0 address "$mac_new"; then
		v=
		for _ in $(seq 30); do
			v=$(ctl --json neigh show dev p2 2>/dev/null | json '" ".join(sorted("%s=%s" % (n["address"], (n["lladdr"] or "").lower()) for n in d["neighbors"] if n["address"] in ("10.201.2.2", "fd00:201:2::2")))' 2>/dev/null)
			[ "$v" = "10.201.2.2=$mac_new fd00:201:2::2=$mac_new" ] && break
			sleep 0.1
		done
		if [ "$v" = "10.201.2.2=$mac_new fd00:201:2::2=$mac_new" ]; then
			pass "h2's MAC changed to $mac_new: re-learned by nfvd (IPv4 and IPv6)"
		else
			fail "h2's MAC changed to $mac_new: nfvd has '$v'"
		fi
		check "ping h1 -> h2 IPv4 after h2's MAC change (10, 0% loss)" ping_ok "$H1" 10 10.201.2.2
		check "ping h1 -> h2 IPv6 after h2's MAC change (10, 0% loss)" ping_ok "$H1" 10 -6 fd00:201:2::2
		ip -n "$H2" link set eth0 address "$MAC_H2" || true
	else
		fail "could not change h2's MAC"
	fi

	nfvd_died && return 3

	# (6) VLAN sub-interfaces: the kernel's 802.1Q devices as the peers
	vlan_checks

	nfvd_died && return 3

	# (7) counters
	json_out=$(ctl --json show stats) || json_out='{}'
	v=$(json 'd["packets"]["forwarded"]' <<<"$json_out" 2>/dev/null || echo 0)
	info "nfvd: $(json '"received %d forwarded %d dropped %d; icmp errors %d, echo replies %d; icmp6 errors %d, echo replies %d" % (d["packets"]["received"], d["packets"]["forwarded"], d["packets"]["dropped"], d["icmp"]["errors_sent"], d["icmp"]["echo_replies"], d["icmp6"]["errors_sent"], d["icmp6"]["echo_replies"])' <<<"$json_out" 2>/dev/null || echo "stats unreadable")"
	info "ports: $(json '"; ".join("%s rx %d tx %d missed %d rx_err %d tx_err %d nombuf %d" % (p["name"], p["rx_packets"], p["tx_packets"], p["rx_missed"], p["rx_errors"], p["tx_errors"], p["rx_nombuf"]) for p in d["ports"])' <<<"$json_out" 2>/dev/null || echo "?")"
	info "neigh: $(json '" ".join("%s=%d" % kv for kv in sorted(d["neigh"]["events"].items()) if kv[1])' <<<"$json_out" 2>/dev/null || echo "?")"
	info "punt: $(json '" ".join("%s punted %d policed %d" % (q["name"], q["punted"], q["policed"]) for q in d["punt"]["queues"])' <<<"$json_out" 2>/dev/null || echo "?")"
	if [ "${v:-0}" -gt 0 ] 2>/dev/null; then
		pass "show stats: $v packets forwarded"
	else
		fail "show stats: no packet forwarded (packets.forwarded = '$v')"
	fi
	local unexpected="" reason
	json_out=$(ctl --json show drops) || { json_out='{"drops": []}'; unexpected=" (show drops failed)"; }
	while read -r reason count; do
		[ -n "$reason" ] || continue
		info "drop $reason: $count"
		grep -qw -- "$reason" <<<"$EXPECTED_DROPS" || unexpected+=" $reason($count)"
	done < <(json '"\n".join("%s/%s %d" % (x["node"], x["reason"], x["packets"]) for x in d["drops"])' \
		<<<"$json_out" 2>/dev/null || echo "show_drops/unreadable 0")
	if [ -z "$unexpected" ]; then
		pass "show drops: only expected reasons"
	else
		fail "show drops: unexpected reasons:$unexpected"
	fi

	# Clean exit: SIGTERM -> exit 0, every mbuf back in its pool.
	stop_nfvd
	if [ "$NFVD_RC" -eq 0 ]; then
		pass "nfvd exits 0 on SIGTERM"
	else
		fail "nfvd exit code $NFVD_RC on SIGTERM (expected 0)"
	fi
	if grep -q "nfvd: exit: all mbufs returned to their pools" "$LOG"; then
		pass "nfvd: exit: all mbufs returned to their pools"
	else
		fail "mbufs not all returned at exit: $(grep -E 'mbufs (not|never) returned' "$LOG" |
			sed 's/^nfvd: //' | paste -sd ';' - | grep . || echo "no 'nfvd: exit:' line in the log")"
		if [ "$drv" = af_xdp ]; then
			info "(net_af_xdp keeps 2048 mbufs per RX queue in its fill ring, plus TX not yet"
			info " completed, and DPDK 22.11 does not give them back at close)"
		fi
	fi
	return 0
}

TCP_RESULT=()
UDP_RESULT=()
RAN=()
for drv in $DRIVERS; do
	case $drv in
	af_xdp | af_packet) ;;
	*)
		DRV=$drv
		fail "unknown driver '$drv' in NFVSMK_DRIVERS (af_xdp, af_packet)"
		continue
		;;
	esac
	rc=0
	run_driver "$drv" || rc=$? # checks handle their own failures: no errexit inside
	if [ $rc -eq 0 ] || [ $rc -eq 3 ]; then # 3: nfvd died during the run (reported)
		RAN+=("$drv")
	elif [ $rc -eq 2 ] && [ "$drv" = af_xdp ] && ! grep -qw af_packet <<<"$DRIVERS"; then
		echo "smoke: AF_XDP unavailable, falling back to af_packet"
		DRIVERS="$DRIVERS af_packet"
		rc=0
		run_driver af_packet || rc=$?
		if [ $rc -eq 0 ] || [ $rc -eq 3 ]; then RAN+=(af_packet); fi
	fi
done
DRV=summary
if [ ${#RAN[@]} -eq 0 ]; then
	fail "no driver could be used (tried: $DRIVERS)"
fi
echo "smoke: drivers run: ${RAN[*]:-none}"
for r in "${TCP_RESULT[@]}" "${UDP_RESULT[@]}"; do echo "smoke: $r"; done
finish
