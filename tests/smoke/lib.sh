# SPDX-License-Identifier: BSD-3-Clause
#
# What the namespace suites (tests/smoke/suites/*.sh) share: result lines,
# the API client, Linux hosts behind veths, starting nfvd and stopping it
# with the check that every mbuf came back, and the cleanup on exit.
#
#   . tests/smoke/lib.sh
#   suite_init NAME TAG      # TAG begins every namespace, veth and file prefix
#   suite_host "$TAG-h1" "$TAG-v1" 10.9.1.2/24 10.9.1.1 [fd00:9:1::2/64 fd00:9:1::1]
#   cat >"$WORK/startup.conf" <<EOF ... EOF
#   suite_start_nfvd [nfvd options...]     # EAL options: $EAL (set before to change)
#   ... pass / fail ...
#   suite_stop_nfvd
#   suite_finish
#
# A suite with more to clean (daemons it started) defines suite_on_cleanup;
# background processes whose pid is appended to BG are killed on exit.
# SUITE_KEEP=1 keeps the work directory (logs, captures) for a look.

suite_init() { # suite_init NAME TAG
	SUITE=$1
	TAG=$2
	BUILD=${NFVD_BUILD:-build}
	NFVD=$BUILD/src/nfvd
	NFVCTL=$BUILD/src/nfvctl
	PY=/usr/bin/python3
	PREFIX=$TAG-$$
	WORK=$(mktemp -d "/tmp/$TAG.XXXXXX")
	SOCK=$WORK/api.sock
	LOG=$WORK/nfvd.log
	EAL=(-l 0,1 --no-huge -m 1024 --no-shconf --no-pci)
	NFVD_PID=
	N_PASS=0
	N_FAIL=0
	S_NETNS=()
	S_LINKS=()
	BG=()
	trap suite_cleanup EXIT
	trap 'exit 130' INT # so that the EXIT trap runs
	trap 'exit 143' TERM
	if [ "$(id -u)" -ne 0 ]; then
		fail "needs root"
		suite_finish
	fi
	for t in "$NFVD" "$NFVCTL"; do
		[ -x "$t" ] || { fail "$t not built"; suite_finish; }
	done
}

pass() { printf 'PASS  [%s] %s\n' "$SUITE" "$*"; N_PASS=$((N_PASS + 1)); }
fail() { printf 'FAIL  [%s] %s\n' "$SUITE" "$*"; N_FAIL=$((N_FAIL + 1)); }
skip() { printf 'SKIP  [%s] %s\n' "$SUITE" "$*"; }
info() { printf '      %s\n' "$*"; }
ctl() { timeout 10 "$NFVCTL" -s "$SOCK" "$@"; }
# json EXPR [ARGS...]: EXPR evaluated on the JSON document on stdin as d.
json() { "$PY" -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$@"; }
drop_count() { # drop_count NODE/REASON: packets dropped under it
	ctl --json show drops |
		json "sum(x['packets'] for x in d['drops'] if x['node'] + '/' + x['reason'] == '$1')"
}

suite_need() { # suite_need TOOL...: fail the suite when one is missing
	for t in "$@"; do
		command -v "$t" >/dev/null || { fail "tool '$t' missing (make deps)"; suite_finish; }
	done
}

# Exit with the suite's result: 0 when something passed and nothing failed.
suite_finish() {
	echo "$SUITE: $N_PASS passed, $N_FAIL failed"
	[ "$N_FAIL" -eq 0 ] && [ "$N_PASS" -gt 0 ]
	exit $?
}

suite_del_netns() { # suite_del_netns NS: its processes killed, then it
	ip netns list | grep -qw "^$1" || return 0
	for pid in $(ip netns pids "$1" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
	ip netns del "$1" 2>/dev/null
}

suite_cleanup() {
	set +e
	trap - EXIT
	declare -F suite_on_cleanup >/dev/null && suite_on_cleanup
	if [ -n "$NFVD_PID" ]; then
		kill -TERM "$NFVD_PID" 2>/dev/null
		for _ in $(seq 100); do kill -0 "$NFVD_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$NFVD_PID" 2>/dev/null
		wait "$NFVD_PID" 2>/dev/null
	fi
	for pid in "${BG[@]}"; do kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
	for ns in "${S_NETNS[@]}"; do suite_del_netns "$ns"; done
	for l in "${S_LINKS[@]}"; do ip link del "$l" 2>/dev/null; done
	rm -rf "/var/run/dpdk/$PREFIX"
	if [ "${SUITE_KEEP:-0}" = 1 ]; then echo "$SUITE: logs in $WORK"; else rm -rf "$WORK"; fi
}

# An empty namespace NS (loopback up), removed on exit (and first, if a
# run before left it behind).
suite_netns() {
	suite_del_netns "$1"
	ip netns add "$1" || return 1
	S_NETNS+=("$1")
	ip -n "$1" link set lo up
}

# A veth whose end VETH stays in the root namespace (for nfvd), up, and
# whose other end is eth0 in NS, left down (its IPv6 settings must come
# first, or it sends DAD probes from ::); checksum offloads off on both
# (af_packet and af_xdp hand nfvd what the kernel sends as is).
suite_veth() { # suite_veth NS VETH
	ip link del "$2" 2>/dev/null
	ip link add "$2" type veth peer name eth0 netns "$1" || return 1
	S_LINKS+=("$2")
	sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
	ethtool -K "$2" tx off rx off gso off gro off tso off >/dev/null 2>&1
	ip netns exec "$1" ethtool -K eth0 tx off rx off gso off gro off tso off >/dev/null 2>&1
	ip link set "$2" up
}

# A Linux host: namespace NS with eth0 on veth VETH; with ADDR4 (and GW4 its
# default route), and ADDR6 / GW6 likewise (no DAD; without them, IPv6 is
# off in the host, so that it sends no chatter).
suite_host() { # suite_host NS VETH [ADDR4/LEN GW4 [ADDR6/LEN GW6]]
	local ns=$1 veth=$2
	suite_netns "$ns" && suite_veth "$ns" "$veth" || return 1
	if [ -n "${5:-}" ]; then
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.eth0.accept_dad=0
	else
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	fi
	ip -n "$ns" link set eth0 up || return 1
	if [ -n "${3:-}" ]; then
		ip -n "$ns" addr add "$3" dev eth0 || return 1
		[ -z "${4:-}" ] || ip -n "$ns" route add default via "$4" || return 1
	fi
	if [ -n "${5:-}" ]; then
		ip -n "$ns" addr add "$5" dev eth0 nodad || return 1
		[ -z "${6:-}" ] || ip -n "$ns" -6 route add default via "$6" || return 1
	fi
}

# nfvd with the EAL options in EAL, the startup file $WORK/startup.conf and
# the API socket $SOCK, logging to $LOG; returns once it answers on the API.
# The suite fails and ends if it does not.
suite_start_nfvd() { # suite_start_nfvd [nfvd options...]
	"$NFVD" "${EAL[@]}" --file-prefix "$PREFIX" -- -c "$WORK/startup.conf" -s "$SOCK" "$@" \
		>"$LOG" 2>&1 &
	NFVD_PID=$!
	for _ in $(seq 300); do
		[ -S "$SOCK" ] && ctl help >/dev/null 2>&1 && return 0
		kill -0 "$NFVD_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "nfvd did not start: $(tail -n 3 "$LOG" | paste -sd ' ' -)"
	suite_finish
}

# SIGTERM; passes when nfvd exits 0 and reports every mbuf back in its pool.
suite_stop_nfvd() {
	local rc
	kill -TERM "$NFVD_PID"
	wait "$NFVD_PID"
	rc=$?
	NFVD_PID=
	if [ "$rc" = 0 ] && grep -q "all mbufs returned" "$LOG"; then
		pass "nfvd exits 0, every mbuf back in its pool"
	else
		fail "nfvd exit $rc: $(tail -n 3 "$LOG" | paste -sd ' ' -)"
	fi
}

# Ends the background processes started so far (timeout passes the TERM
# on to what it runs).
suite_bg_stop() {
	local pid
	for pid in "${BG[@]}"; do kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
	BG=()
}

# nfvd again with two workers: every af_packet port of the startup file
# with two queues (the kernel's packet fanout spreads the flows over them),
# worker lcore 1 polling queue 0 of each of PORTs, lcore 2 queue 1; the
# control thread shares the first CPU with lcore 1. Passes when the queue
# map is that.
suite_two_workers() { # suite_two_workers PORT...
	local p q0="" q1="" w
	EAL=(--lcores 0@0,1@0,2@1 --no-huge -m 1024 --no-shconf --no-pci)
	for p in "$@"; do
		q0+="${q0:+,}$p:0"
		q1+="${q1:+,}$p:1"
	done
	sed -e 's/iface=[^ ]*/&,qpairs=2 rxq 2 txq 2/' "$WORK/startup.conf" >"$WORK/startup2.conf"
	{ cat "$WORK/startup2.conf"; echo "worker set 1 rxq $q0"; echo "worker set 2 rxq $q1"; } \
		>"$WORK/startup.conf"
	suite_start_nfvd
	w=$(ctl --json show workers | json '" ".join("%d:%s" % (x["lcore"], ",".join(x["rxqs"])) for x in d["workers"])')
	[ "$w" = "1:$q0 2:$q1" ] && pass "two workers up: $w" || fail "workers: '$w' (want '1:$q0 2:$q1')"
}

# Passes when show stats' BLOCK handed packets to other workers and each
# was taken in (out = in). Packets a full ring refused (dropped as
# BLOCK/handoff_full) are reported, not failed: here a worker shares its
# CPU, and while it waits for the scheduler the other can fill its ring.
suite_handoff_ok() { # suite_handoff_ok BLOCK WHAT
	local h ho hi hf
	h=$(ctl --json show stats |
		json "'%d %d %d' % tuple(d['$1']['handoff_' + k] for k in ('out', 'in', 'full'))")
	read -r ho hi hf <<<"$h"
	if [ "$ho" -gt 0 ] && [ "$ho" = "$hi" ]; then
		pass "$2 handed to their owner: $ho out, as many in ($hf refused by a full ring)"
	else
		fail "$1 handoff out / in / full: $h"
	fi
}

# Passes when the TCP entries of list KEY of "CMD" (--json) are on both
# workers (an entry's "worker").
suite_both_workers() { # suite_both_workers "CMD" KEY WHAT
	local v
	v=$(ctl --json $1 | json "' '.join('%d:%d' % (w, sum(1 for e in d['$2'] if e['worker'] == w and e['proto'] == 'tcp')) for w in (0, 1))")
	if [[ "$v" =~ ^0:[1-9][0-9]*\ 1:[1-9][0-9]*$ ]]; then
		pass "$3 on both workers (worker:entries $v)"
	else
		fail "$3 by worker: $v"
	fi
}

# Passes when N TCP connections from namespace NS to ADDR:PORT (an echo
# server) each get their line back.
suite_tcp_echoes() { # suite_tcp_echoes NS ADDR PORT N WHAT
	local ok=0 i reply
	for i in $(seq "$4"); do
		reply=$(echo "conn $i" | ip netns exec "$1" timeout 5 socat -t 1 - "TCP:$2:$3" 2>&1)
		[ "$reply" = "conn $i" ] && ok=$((ok + 1))
	done
	[ "$ok" = "$4" ] && pass "$4 TCP connections $5 (socat echo)" ||
		fail "TCP connections $5: $ok of $4 echoed"
}

# tcpdump in namespace NS on interface DEV into FILE (its messages in
# FILE.log), with the filter words FILTER..., in the background until
# suite_tcpdump_stop; returns once it listens. --immediate-mode: each frame
# to the file as it comes; without it the kernel hands tcpdump a block of
# frames on a timeout, and a tcpdump stopped before that counts the frames
# "received by filter" but writes none of them.
suite_tcpdump() { # suite_tcpdump NS DEV FILE FILTER...
	local ns=$1 dev=$2 file=$3
	shift 3
	ip netns exec "$ns" tcpdump -n -i "$dev" --immediate-mode -w "$file" -U "$@" \
		>"$file.log" 2>&1 &
	DUMP_PID=$!
	BG+=("$DUMP_PID")
	for _ in $(seq 1 100); do
		grep -q "listening on" "$file.log" && return 0
		sleep 0.1
	done
}

suite_tcpdump_stop() {
	[ -n "${DUMP_PID:-}" ] || return 0
	kill "$DUMP_PID" 2>/dev/null
	wait "$DUMP_PID" 2>/dev/null
	DUMP_PID=
}

# Passes when five pings from namespace NS to DST all come back.
suite_ping() { # suite_ping NS DST WHAT
	local out
	out=$(ip netns exec "$1" ping -n -c 5 -i 0.1 -W 1 "$2" 2>&1)
	if grep -q " 0% packet loss" <<<"$out"; then
		pass "ping $3 (5/5)"
	else
		fail "ping $3: $(grep transmitted <<<"$out")"
	fi
}

# Two seconds of iperf3 TCP from namespace CLIENT to a server in SERVER
# listening on ADDR:PORT (the client connects to TO, ADDR by default: a
# load balancer's VIP); passes with the rate when the test completes.
suite_iperf3() { # suite_iperf3 CLIENT SERVER ADDR PORT WHAT [TO]
	local mbps rtx
	ip netns exec "$2" timeout 20 iperf3 -s -1 -B "$3" -p "$4" >"$WORK/iperf-s.log" 2>&1 &
	BG+=($!)
	sleep 0.5
	# iperf3 can exit 0 with an error in its JSON (a stream reset mid-test).
	if ip netns exec "$1" timeout 20 iperf3 -c "${6:-$3}" -p "$4" -t 2 -J >"$WORK/iperf.json" 2>&1 &&
		json "'error' not in d and d['end']['sum_received']['bytes'] > 0" \
			<"$WORK/iperf.json" 2>/dev/null | grep -qx True; then
		mbps=$(json "int(d['end']['sum_received']['bits_per_second'] / 1e6)" <"$WORK/iperf.json")
		rtx=$(json "d['end']['sum_sent'].get('retransmits', 0)" <"$WORK/iperf.json")
		pass "iperf3 TCP $5: $mbps Mbit/s ($rtx retransmits)"
	else
		fail "iperf3 TCP $5: $(json "d.get('error', '')" <"$WORK/iperf.json" 2>/dev/null ||
			tail -n 2 "$WORK/iperf.json")"
	fi
}
