#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Firewall smoke suite: a stateful firewall between two Linux hosts.
#
#   nfvacl-h1 (inside, eth0 10.202.1.2/24) -- veth nfvacl-v1 == nfvd p1 10.202.1.1
#   nfvacl-h2 (outside, eth0 10.202.2.2/24) -- veth nfvacl-v2 == nfvd p2 10.202.2.1
#
# ACL lan_in (one rule: reflect) on p1 in, ACL lan_out (no rule: deny) on p1
# out. What h1 opens toward h2 (ping, TCP through socat and iperf3) works;
# what h2 opens toward h1 (a TCP SYN to a port h1 listens on, a ping) is
# dropped and counted; flows are gone once their (short) timeouts pass.
# Neighbors are resolved by ARP on both sides.
#
# Run from the repository root as root:  NFVD_BUILD=build bash tests/smoke/suites/acl.sh
set -uo pipefail

BUILD=${NFVD_BUILD:-build}
NFVD=$BUILD/src/nfvd
NFVCTL=$BUILD/src/nfvctl
PY=/usr/bin/python3
H1=nfvacl-h1
H2=nfvacl-h2
V1=nfvacl-v1
V2=nfvacl-v2
PREFIX=nfvacl-$$
WORK=$(mktemp -d /tmp/nfvacl.XXXXXX)
SOCK=$WORK/api.sock
NFVD_PID=
BG=()
N_PASS=0
N_FAIL=0

pass() { printf 'PASS  [acl] %s\n' "$*"; N_PASS=$((N_PASS + 1)); }
fail() { printf 'FAIL  [acl] %s\n' "$*"; N_FAIL=$((N_FAIL + 1)); }
info() { printf '      %s\n' "$*"; }
ctl() { timeout 10 "$NFVCTL" -s "$SOCK" "$@"; }
json() { "$PY" -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
drop_count() { # drop_count NODE/REASON
	ctl --json show drops | json "sum(x['packets'] for x in d['drops'] if x['node'] + '/' + x['reason'] == '$1')"
}

cleanup() {
	set +e
	if [ -n "$NFVD_PID" ]; then
		kill -TERM "$NFVD_PID" 2>/dev/null
		for _ in $(seq 100); do kill -0 "$NFVD_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$NFVD_PID" 2>/dev/null
		wait "$NFVD_PID" 2>/dev/null
	fi
	for pid in "${BG[@]}"; do kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
	for ns in "$H1" "$H2"; do
		if ip netns list | grep -qw "^$ns"; then
			for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
			ip netns del "$ns"
		fi
	done
	ip link del "$V1" 2>/dev/null
	ip link del "$V2" 2>/dev/null
	rm -rf "/var/run/dpdk/$PREFIX"
	[ "${NFVACL_KEEP:-0}" = 1 ] && echo "acl: logs in $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

finish() {
	echo "$N_PASS passed, $N_FAIL failed"
	[ "$N_FAIL" -eq 0 ] && [ "$N_PASS" -gt 0 ]
	exit $?
}

for t in ip socat iperf3 ping ethtool; do
	command -v "$t" >/dev/null || { fail "tool '$t' missing"; finish; }
done
[ -x "$NFVD" ] || { fail "$NFVD not built"; finish; }

for ns in "$H1" "$H2"; do ip netns del "$ns" 2>/dev/null; done
ip link del "$V1" 2>/dev/null
ip link del "$V2" 2>/dev/null
setup_host() { # setup_host NS VETH N
	ip netns add "$1" || return 1
	ip link add "$2" type veth peer name eth0 netns "$1" || return 1
	sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ethtool -K "$2" tx off rx off gso off gro off tso off >/dev/null 2>&1
	ip netns exec "$1" ethtool -K eth0 tx off rx off gso off gro off tso off >/dev/null 2>&1
	ip link set "$2" up && ip -n "$1" link set lo up && ip -n "$1" link set eth0 up &&
		ip -n "$1" addr add "10.202.$3.2/24" dev eth0 &&
		ip -n "$1" route add default via "10.202.$3.1"
}
if setup_host "$H1" "$V1" 1 && setup_host "$H2" "$V2" 2; then
	pass "topology: $H1 (inside) - nfvd - $H2 (outside)"
else
	fail "topology setup failed"
	finish
fi

cat >"$WORK/startup.conf" <<EOF
port add p1 dev net_af_packet0,iface=$V1
port add p2 dev net_af_packet1,iface=$V2
addr add 10.202.1.1/24 dev p1
addr add 10.202.2.1/24 dev p2
acl add lan_in
acl rule add lan_in prio 10 action reflect
acl add lan_out
acl attach lan_in dev p1 in
acl attach lan_out dev p1 out
conntrack set timeout tcp-established 4
conntrack set timeout tcp-fin-wait 2
conntrack set timeout tcp-time-wait 2
conntrack set timeout tcp-close 2
conntrack set timeout tcp-syn-sent 2
conntrack set timeout tcp-syn-recv 2
conntrack set timeout udp 2
conntrack set timeout udp-stream 2
conntrack set timeout icmp 2
EOF
"$NFVD" -l 0,1 --no-huge -m 1024 --no-shconf --no-pci --file-prefix "$PREFIX" -- \
	-c "$WORK/startup.conf" -s "$SOCK" >"$WORK/nfvd.log" 2>&1 &
NFVD_PID=$!
for _ in $(seq 300); do [ -S "$SOCK" ] && break; sleep 0.1; done
if [ ! -S "$SOCK" ]; then
	fail "nfvd did not start: $(tail -n 3 "$WORK/nfvd.log")"
	finish
fi
pass "nfvd up: reflect on p1 in, default deny on p1 out"

# Outward: ping.
out=$(ip netns exec "$H1" ping -n -c 5 -i 0.1 -W 1 10.202.2.2 2>&1)
if grep -q " 0% packet loss" <<<"$out"; then
	pass "ping $H1 -> $H2 through the reflect rule (5/5)"
else
	fail "ping $H1 -> $H2: $(grep transmitted <<<"$out")"
fi

# Outward: TCP with socat (an echo server in h2).
ip netns exec "$H2" timeout 30 socat TCP-LISTEN:7001,reuseaddr,fork EXEC:cat &
BG+=($!)
ip netns exec "$H1" timeout 30 socat TCP-LISTEN:7002,reuseaddr,fork EXEC:cat &
BG+=($!)
sleep 0.5
reply=$(echo "through the firewall" | ip netns exec "$H1" timeout 5 socat -t 1 - TCP:10.202.2.2:7001 2>&1)
if [ "$reply" = "through the firewall" ]; then
	pass "TCP $H1 -> $H2:7001 (socat echo)"
else
	fail "TCP $H1 -> $H2:7001 (socat): '$reply'"
fi
est=$(ctl --json conntrack show | json "d['created']")
[ "${est:-0}" -ge 2 ] && pass "conntrack recorded the flows ($est created)" ||
	fail "conntrack created $est flows (expected >= 2)"

# Outward: iperf3 TCP for two seconds.
ip netns exec "$H2" timeout 20 iperf3 -s -1 -B 10.202.2.2 -p 5202 >"$WORK/iperf-s.log" 2>&1 &
BG+=($!)
sleep 0.5
if ip netns exec "$H1" timeout 20 iperf3 -c 10.202.2.2 -p 5202 -t 2 -J >"$WORK/iperf.json" 2>&1; then
	mbps=$(json "int(d['end']['sum_received']['bits_per_second'] / 1e6)" <"$WORK/iperf.json")
	pass "iperf3 TCP $H1 -> $H2: $mbps Mbit/s"
else
	fail "iperf3 TCP $H1 -> $H2: $(tail -n 2 "$WORK/iperf.json")"
fi

# Inward, unsolicited: h1 listens on 7002, but a SYN from h2 must not pass.
before=$(drop_count acl/no_match)
if echo x | ip netns exec "$H2" timeout 5 socat -t 1 - TCP:10.202.1.2:7002,connect-timeout=2 \
	>/dev/null 2>&1; then
	fail "TCP $H2 -> $H1:7002 connected: unsolicited SYN passed"
else
	after=$(drop_count acl/no_match)
	if [ "$after" -gt "$before" ]; then
		pass "unsolicited TCP $H2 -> $H1:7002 refused; acl/no_match $before -> $after"
	else
		fail "unsolicited TCP refused but not counted (acl/no_match $before -> $after)"
	fi
fi
out=$(ip netns exec "$H2" ping -n -c 3 -i 0.1 -W 1 10.202.1.2 2>&1)
grep -q " 100% packet loss" <<<"$out" && pass "unsolicited ping $H2 -> $H1 dropped" ||
	fail "unsolicited ping $H2 -> $H1: $(grep transmitted <<<"$out")"

# Expiry: every timeout is 4 s or less.
sleep 5
n=$(ctl --json conntrack show | json "d['count']")
[ "$n" = 0 ] && pass "flows expired after their timeouts (conntrack count 0)" ||
	fail "conntrack count $n after the timeouts: $(ctl conntrack show | head -n 20)"
hits=$(ctl --json acl show lan_in | json "d['acls'][0]['rules'][0]['hits']")
[ "${hits:-0}" -ge 3 ] && pass "acl show: reflect rule hits $hits" || fail "reflect rule hits $hits"

kill -TERM "$NFVD_PID"
wait "$NFVD_PID"
rc=$?
NFVD_PID=
[ "$rc" = 0 ] && grep -q "all mbufs returned" "$WORK/nfvd.log" &&
	pass "nfvd exited 0, every mbuf back" || fail "nfvd exit $rc: $(tail -n 3 "$WORK/nfvd.log")"
finish
