#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ICMP errors through source NAT, with real Linux peers: traceroute and
# path-MTU discovery from an inside host, across a Linux router whose link
# to the outside host has a smaller MTU.
#
#   nfvni-h1 (inside, eth0 10.205.1.2/24) -- veth nfvni-v1 == nfvd p1 10.205.1.1
#                                                            nfvd p2 10.205.2.1 == veth nfvni-v2 --
#   nfvni-r (router, forwarding: eth0 10.205.2.2/24, eth1 10.205.3.1/24 mtu 1400) --
#   nfvni-h3 (outside, eth0 10.205.3.2/24 mtu 1400)
#
# "nat44 snat add src 10.205.1.0/24 dev p2"; the router has no route to the
# inside network, so what reaches h1 from beyond nfvd is what nfvd's NAT
# translated. traceroute from h1 shows nfvd (its own time exceeded), the
# router (its time exceeded, sent to nfvd's outside address about the
# translated probe, translated back to h1) and h3 (port unreachable,
# likewise). "ping -M do" with 1500-byte packets gets the router's
# fragmentation needed (mtu 1400) translated back; h1's kernel caches the
# path MTU and a 1400-byte ping passes. The router and h3 send ICMP errors
# without rate limit (net.ipv4.icmp_ratelimit=0), so each probe is answered.
#
# Run from the repository root as root:  NFVD_BUILD=build bash tests/smoke/suites/nat44_icmp.sh
set -uo pipefail
. tests/smoke/lib.sh
suite_init nat44_icmp nfvni
H1=nfvni-h1
R=nfvni-r
H3=nfvni-h3

suite_need traceroute ping ethtool
if suite_host "$H1" nfvni-v1 10.205.1.2/24 10.205.1.1 &&
	suite_host "$R" nfvni-v2 10.205.2.2/24 &&
	suite_netns "$H3" &&
	ip link add eth1 netns "$R" type veth peer name eth0 netns "$H3" &&
	ip -n "$R" link set eth1 mtu 1400 up &&
	ip -n "$R" addr add 10.205.3.1/24 dev eth1 &&
	ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.icmp_ratelimit=0 &&
	ip netns exec "$H3" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv4.icmp_ratelimit=0 &&
	ip -n "$H3" link set eth0 mtu 1400 up &&
	ip -n "$H3" addr add 10.205.3.2/24 dev eth0 &&
	ip -n "$H3" route add default via 10.205.3.1; then
	pass "topology: $H1 (inside) - nfvd - $R (router, no route to the inside) - mtu 1400 - $H3"
else
	fail "topology setup failed"
	suite_finish
fi

cat >"$WORK/startup.conf" <<EOF
port add p1 dev net_af_packet0,iface=nfvni-v1
port add p2 dev net_af_packet1,iface=nfvni-v2
addr add 10.205.1.1/24 dev p1
addr add 10.205.2.1/24 dev p2
route add 10.205.3.0/24 via 10.205.2.2
nat44 snat add src 10.205.1.0/24 dev p2
EOF
suite_start_nfvd
pass "nfvd up: snat 10.205.1.0/24 behind p2, 10.205.3.0/24 via $R"

# Neighbors resolved, and the path works, before the checks count errors.
suite_ping "$H1" 10.205.3.2 "$H1 -> $H3 through source NAT and $R"

# (a) traceroute: UDP probes, one a hop and one at a time (-N 1: not the
# default 16 at once, which would earn one port unreachable from h3 for
# each probe beyond its hop), a second's wait at most.
out=$(ip netns exec "$H1" timeout 20 traceroute -n -N 1 -w 1 -q 1 -m 5 10.205.3.2 2>&1)
hops=$(tail -n +2 <<<"$out" | awk '{print $1 "=" $2}' | paste -sd ' ' -)
if [ "$hops" = "1=10.205.1.1 2=10.205.2.2 3=10.205.3.2" ]; then
	pass "traceroute $H1 -> $H3: nfvd, the router (time exceeded through the NAT), $H3 ($hops)"
else
	fail "traceroute hops: '$hops' (want '1=10.205.1.1 2=10.205.2.2 3=10.205.3.2'): $out"
fi

# (b) path-MTU discovery: the router's fragmentation needed, translated back.
out=$(ip netns exec "$H1" ping -n -M do -s 1472 -c 1 -W 2 10.205.3.2 2>&1)
if grep -qx "From 10.205.2.2 icmp_seq=1 Frag needed and DF set (mtu = 1400)" <<<"$out"; then
	pass "ping -M do -s 1472: 'From 10.205.2.2 icmp_seq=1 Frag needed and DF set (mtu = 1400)'"
else
	fail "ping -M do -s 1472: $out"
fi
out=$(ip -n "$H1" route get 10.205.3.2 2>&1)
if grep -q " mtu 1400" <<<"$out"; then
	pass "$H1 caches the path MTU: $(paste -sd ' ' - <<<"$out" | tr -s ' ')"
else
	fail "$H1's route to $H3 has no 'mtu 1400': $out"
fi
out=$(ip netns exec "$H1" ping -n -M do -s 1372 -c 1 -W 2 10.205.3.2 2>&1)
if grep -q "^1380 bytes from 10.205.3.2: icmp_seq=1 " <<<"$out" &&
	grep -q " 0% packet loss" <<<"$out"; then
	pass "ping -M do -s 1372 (1400 bytes) reaches $H3 and comes back"
else
	fail "ping -M do -s 1372: $out"
fi

# The counters: the router's two errors (time exceeded, fragmentation
# needed) and h3's port unreachable translated to the inside host; nfvd's
# own time exceeded (hop 1) is one ip4_rewrite/ttl_expired drop (besides
# ARP replies, which arp_input counts under its reason once learned).
v=$(ctl --json nat44 show | json '" ".join("%s=%d" % (k, d["icmp_error_" + k]) for k in ("out2in", "in2out", "no_session", "truncated", "unsupported"))')
want="out2in=3 in2out=0 no_session=0 truncated=0 unsupported=0"
[ "$v" = "$want" ] && pass "nat44 show: icmp_error_ $v" || fail "nat44 icmp_error_ counters: '$v' (want '$want')"
v=$(ctl --json show drops | json '" ".join("%s/%s=%d" % (x["node"], x["reason"], x["packets"]) for x in d["drops"] if x["node"] != "arp_input")')
[ "$v" = "ip4_rewrite/ttl_expired=1" ] && pass "drops: $v (traceroute's first probe)" ||
	fail "drops: '$v' (want 'ip4_rewrite/ttl_expired=1')"

suite_stop_nfvd
suite_finish
