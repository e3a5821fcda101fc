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
# nfvd owns the root-side veth ends through net_af_xdp, then (a second run)
# net_af_packet; if AF_XDP is unavailable the af_xdp run is skipped and
# af_packet is used. nfvd has no ARP/ND yet: neighbors are static on both sides.
#
# Run from the repository root:  NFVD_BUILD=build bash tests/smoke/run.sh
# Knobs (environment):
#   NFVSMK_DRIVERS="af_xdp af_packet"  drivers to run, in order
#   NFVSMK_EAL_MEM="--no-huge -m 2048"  EAL memory options (e.g. "" for hugepages)
#   NFVSMK_MIN_TCP_MBPS=100             TCP throughput floor (a sanity bar, not a benchmark)
#   NFVSMK_UDP_RATE=100M                iperf3 UDP offered rate
#   NFVSMK_MAX_UDP_LOSS=1               UDP loss ceiling in percent (h2 socket overflows excluded)
#   NFVSMK_PORT_OPTS="rxd 4096"         extra "port add" options
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
V1=nfvsmk-v1
V2=nfvsmk-v2
PREFIX=nfvsmk-$$ # EAL --file-prefix: unique per run
# Drop reasons that a healthy run may show: the ones this test provokes
# (TTL / hop limit), the hosts' own IPv6/IPv4 multicast chatter (MLD, router
# solicitations, IGMP), and TX back-pressure under iperf3 load.
EXPECTED_DROPS="ip4_rewrite/ttl_expired ip6_rewrite/hop_limit_expired
ip6_input/multicast_destination ip6_input/link_local ip6_lookup/l2_multicast
ip4_input/multicast_destination ip4_lookup/l2_broadcast port_tx/queue_full"

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

# json EXPR: evaluates the Python expression EXPR with d = the JSON on stdin.
json() { "$PY" -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
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
	for ns in "$H1" "$H2"; do
		if ip netns list | grep -qw "^$ns"; then
			for pid in $(ip netns pids "$ns" 2>/dev/null); do
				kill -KILL "$pid" 2>/dev/null
			done
			ip netns del "$ns"
		fi
	done
	ip link del "$V1" 2>/dev/null
	ip link del "$V2" 2>/dev/null
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
for ns in "$H1" "$H2"; do
	if ip netns list | grep -qw "^$ns"; then
		echo "smoke: removing stale namespace $ns"
		for pid in $(ip netns pids "$ns"); do kill -KILL "$pid" 2>/dev/null || true; done
		ip netns del "$ns"
	fi
done
ip link del "$V1" 2>/dev/null || true
ip link del "$V2" 2>/dev/null || true

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

offloads_off() { # offloads_off IFACE [NS]
	local k

	if [ -n "${2:-}" ]; then k=$(ip netns exec "$2" ethtool -k "$1"); else k=$(ethtool -k "$1"); fi
	grep -q '^tx-checksumming: off' <<<"$k" && grep -q '^rx-checksumming: off' <<<"$k" &&
		grep -q '^generic-segmentation-offload: off' <<<"$k"
}

if setup_host "$H1" "$V1" 1 && setup_host "$H2" "$V2" 2; then
	pass "topology: namespaces $H1, $H2; veths $V1, $V2"
else
	fail "topology setup failed"
	finish
	exit 1
fi
if offloads_off "$V1" && offloads_off "$V2" && offloads_off eth0 "$H1" && offloads_off eth0 "$H2"; then
	pass "offloads off on all four veth ends (tx/rx checksum, gso, gro, tso)"
else
	fail "could not turn checksum/segmentation offloads off on the veths"
fi
MAC_V1=$(cat "/sys/class/net/$V1/address")
MAC_V2=$(cat "/sys/class/net/$V2/address")
MAC_H1=$(ip netns exec "$H1" cat /sys/class/net/eth0/address)
MAC_H2=$(ip netns exec "$H2" cat /sys/class/net/eth0/address)

# --------------------------------------------------------------------- nfvd run
start_nfvd() { # start_nfvd DRIVER: 0 ready, 2 driver unavailable, 1 other failure
	local drv=$1 conf=$WORK/startup-$1.conf

	SOCK=$WORK/nfvd-$drv.sock
	LOG=$WORK/nfvd-$drv.log
	cat >"$conf" <<-EOF
		# nfvd smoke test, driver $drv
		port add p1 dev net_${drv}0,iface=$V1 $PORT_OPTS
		port add p2 dev net_${drv}1,iface=$V2 $PORT_OPTS
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
			# A failed "port add" (startup lines 2-3) means the driver cannot
			# be used here; anything else is an nfvd failure.
			grep -q "startup-$drv.conf:[23]: " "$LOG" && return 2
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

run_driver() {
	local drv=$1 rc out json_out v bps retr ok port

	DRV=$drv
	rc=0
	start_nfvd "$drv" || rc=$?
	if [ $rc -eq 2 ]; then
		skip "net_$drv unavailable here: $(grep -m1 "startup-$drv.conf:[23]: " "$LOG" | sed 's/^nfvd: [^ ]*: //')"
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
	v=$(json '" ".join("%s=%s/%s" % (p["name"], p["driver"], p["mac"].lower()) for p in d["ports"])' \
		<<<"$json_out" 2>/dev/null || echo "unreadable")
	if [ "$v" = "p1=net_$drv/$MAC_V1 p2=net_$drv/$MAC_V2" ]; then
		pass "port show: p1, p2 on net_$drv with the veth MACs"
	else
		fail "port show: expected p1=net_$drv/$MAC_V1 p2=net_$drv/$MAC_V2, got '$v'"
	fi
	MAC_P1=$(json '[p["mac"] for p in d["ports"] if p["name"] == "p1"][0]' <<<"$json_out" 2>/dev/null ||
		echo "$MAC_V1")
	MAC_P2=$(json '[p["mac"] for p in d["ports"] if p["name"] == "p2"][0]' <<<"$json_out" 2>/dev/null ||
		echo "$MAC_V2")

	# Static neighbors, both sides.
	ok=true
	ip -n "$H1" neigh replace 10.201.1.1 lladdr "$MAC_P1" dev eth0 nud permanent || ok=false
	ip -n "$H1" -6 neigh replace fd00:201:1::1 lladdr "$MAC_P1" dev eth0 nud permanent || ok=false
	ip -n "$H2" neigh replace 10.201.2.1 lladdr "$MAC_P2" dev eth0 nud permanent || ok=false
	ip -n "$H2" -6 neigh replace fd00:201:2::1 lladdr "$MAC_P2" dev eth0 nud permanent || ok=false
	for cmd in "neigh add 10.201.1.2 lladdr $MAC_H1 dev p1" \
		"neigh add fd00:201:1::2 lladdr $MAC_H1 dev p1" \
		"neigh add 10.201.2.2 lladdr $MAC_H2 dev p2" \
		"neigh add fd00:201:2::2 lladdr $MAC_H2 dev p2"; do
		# shellcheck disable=SC2086
		out=$(ctl $cmd 2>&1) || { ok=false; info "nfvctl $cmd: $out"; }
	done
	if $ok; then
		pass "static neighbors on the hosts and in nfvd (nfvctl neigh add)"
	else
		fail "static neighbors could not be installed"
	fi

	# (1) forwarding, IPv4 and IPv6
	check "ping h1 -> h2 IPv4 (20, 0% loss)" ping_ok "$H1" 20 10.201.2.2
	check "ping h1 -> h2 IPv6 (20, 0% loss)" ping_ok "$H1" 20 -6 fd00:201:2::2

	# (2) nfvd answers echo requests for its own addresses
	check "ping nfvd 10.201.1.1 from h1 (echo reply)" ping_ok "$H1" 5 10.201.1.1
	check "ping nfvd fd00:201:1::1 from h1 (ICMPv6 echo reply)" ping_ok "$H1" 5 -6 fd00:201:1::1
	check "ping nfvd's far address 10.201.2.1 (on p2) from h1" ping_ok "$H1" 5 10.201.2.1

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

	# (6) counters
	json_out=$(ctl --json show stats) || json_out='{}'
	v=$(json 'd["packets"]["forwarded"]' <<<"$json_out" 2>/dev/null || echo 0)
	info "nfvd: $(json '"received %d forwarded %d dropped %d; icmp errors %d, echo replies %d; icmp6 errors %d, echo replies %d" % (d["packets"]["received"], d["packets"]["forwarded"], d["packets"]["dropped"], d["icmp"]["errors_sent"], d["icmp"]["echo_replies"], d["icmp6"]["errors_sent"], d["icmp6"]["echo_replies"])' <<<"$json_out" 2>/dev/null || echo "stats unreadable")"
	info "ports: $(json '"; ".join("%s rx %d tx %d missed %d rx_err %d tx_err %d nombuf %d" % (p["name"], p["rx_packets"], p["tx_packets"], p["rx_missed"], p["rx_errors"], p["tx_errors"], p["rx_nombuf"]) for p in d["ports"])' <<<"$json_out" 2>/dev/null || echo "?")"
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
