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
# dropped and counted; Linux's TCP passes the window checks; flows are gone once their (short) timeouts pass.
# Then stateless ACLs on p1 in and p2 out, which acl_in4 decides together
# (acl "fused") for iperf3's segments.
# Neighbors are resolved by ARP on both sides.
#
# Run from the repository root as root:  NFVD_BUILD=build bash tests/smoke/suites/acl.sh
set -uo pipefail
. tests/smoke/lib.sh
suite_init acl nfvacl
H1=nfvacl-h1
H2=nfvacl-h2
V1=nfvacl-v1
V2=nfvacl-v2

suite_need socat iperf3 ping ethtool
# The ports and addresses of every startup file here.
startup_ports() {
	cat <<EOF
port add p1 dev net_af_packet0,iface=$V1
port add p2 dev net_af_packet1,iface=$V2
addr add 10.202.1.1/24 dev p1
addr add 10.202.2.1/24 dev p2
EOF
}
if suite_host "$H1" "$V1" 10.202.1.2/24 10.202.1.1 &&
	suite_host "$H2" "$V2" 10.202.2.2/24 10.202.2.1; then
	pass "topology: $H1 (inside) - nfvd - $H2 (outside)"
else
	fail "topology setup failed"
	suite_finish
fi

{ startup_ports; cat <<EOF; } >"$WORK/startup.conf"
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
suite_start_nfvd
pass "nfvd up: reflect on p1 in, default deny on p1 out"

# Outward: ping.
suite_ping "$H1" 10.202.2.2 "$H1 -> $H2 through the reflect rule"

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
suite_iperf3 "$H1" "$H2" 10.202.2.2 5202 "$H1 -> $H2"
# Linux's TCP stays inside the windows connection tracking checks.
oow=$(ctl --json show stats | json "d['conntrack']['out_of_window']")
[ "$oow" = 0 ] && pass "real TCP (socat, iperf3): no segment out of window" ||
	fail "real TCP: $oow segments dropped out of window (conntrack/out_of_window)"

# A TCP connection from NS to ADDR:PORT must fail, its SYN dropped by an
# ACL and counted under acl/no_match.
tcp_refused() { # tcp_refused NS ADDR:PORT WHAT
	local before after
	before=$(drop_count acl/no_match)
	if echo x | ip netns exec "$1" timeout 5 socat -t 1 - TCP:$2,connect-timeout=2 \
		>/dev/null 2>&1; then
		fail "TCP $1 -> $2 connected: $3 passed"
	else
		after=$(drop_count acl/no_match)
		[ "$after" -gt "$before" ] &&
			pass "$3: TCP $1 -> $2 refused; acl/no_match $before -> $after" ||
			fail "$3: TCP $1 -> $2 refused but not counted (acl/no_match $before -> $after)"
	fi
}
# Inward, unsolicited: h1 listens on 7002, but a SYN from h2 must not pass.
unsolicited_syn() { # unsolicited_syn WHAT
	tcp_refused "$H2" 10.202.1.2:7002 "unsolicited SYN$1"
}
unsolicited_syn ""
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

suite_stop_nfvd

# Two workers, each polling one queue of both ports (two-queue af_packet
# ports: the kernel's fanout spreads the flows). A flow's state lives on
# the worker its symmetric hash names; packets received by the other one
# are handed to it, so TCP keeps working and unsolicited SYNs stay out.
sed -i -e '/^conntrack set timeout/s/ [0-9]*$/ 30/' "$WORK/startup.conf"
suite_bg_stop
suite_two_workers p1 p2
ip netns exec "$H2" timeout 60 socat TCP-LISTEN:7001,reuseaddr,fork EXEC:cat &
BG+=($!)
ip netns exec "$H1" timeout 60 socat TCP-LISTEN:7002,reuseaddr,fork EXEC:cat &
BG+=($!)
sleep 0.5
suite_tcp_echoes "$H1" 10.202.2.2 7001 24 "$H1 -> $H2:7001 through the reflect rule, two workers"
suite_ping "$H1" 10.202.2.2 "$H1 -> $H2 through the reflect rule, two workers"
suite_iperf3 "$H1" "$H2" 10.202.2.2 5203 "$H1 -> $H2, two workers"
suite_both_workers "conntrack show" entries "TCP flows"
suite_handoff_ok acl "packets of tracked flows"
# Not asserted: here a worker shares its CPU with the control thread and
# the hosts, and a packet can wait in its queue for a scheduler tick
# while the other worker passes later ones of the flow: a segment that
# late can be out of the windows conntrack checks.
info "segments out of window with two workers: $(ctl --json show stats | json 'd["conntrack"]["out_of_window"]')"
unsolicited_syn " with two workers"
suite_stop_nfvd

# Stateless ACLs in and out, one worker: lan_tcp on p1 in and wan_tcp on p2
# out permit TCP to port 5204 and ICMP, nothing else (default deny); each
# is the only feature of its arc, so acl_in4 decides both ACLs at once for
# the segments whose decisions it finds cached (acl "fused"). The replies
# come back through p2 in and p1 out, which have no ACL.
suite_bg_stop
EAL=(-l 0,1 --no-huge -m 1024 --no-shconf --no-pci)
{ startup_ports; cat <<EOF; } >"$WORK/startup.conf"
acl add lan_tcp
acl rule add lan_tcp prio 10 proto tcp dport 5204 action permit
acl rule add lan_tcp prio 20 proto icmp action permit
acl add wan_tcp
acl rule add wan_tcp prio 10 proto tcp dport 5204 action permit
acl rule add wan_tcp prio 20 proto icmp action permit
acl attach lan_tcp dev p1 in
acl attach wan_tcp dev p2 out
EOF
suite_start_nfvd
pass "nfvd up: stateless ACLs on p1 in and p2 out"
suite_ping "$H1" 10.202.2.2 "$H1 -> $H2 through both ACLs"
suite_iperf3 "$H1" "$H2" 10.202.2.2 5204 "$H1 -> $H2:5204 through both ACLs"
stats=$(ctl --json show stats)
fused=$(json "d['acl']['fused']" <<<"$stats")
permitted=$(json "d['acl']['permitted']" <<<"$stats")
# Each fused segment is two decisions (in and out) among the permitted.
if [ "${fused:-0}" -gt 1000 ] && [ "$permitted" -ge $((2 * fused)) ]; then
	pass "acl_in4 decided both ACLs for $fused segments ($permitted decisions permitted)"
else
	fail "fused $fused, permitted $permitted (iperf3's segments should mostly be fused)"
fi
h_in=$(ctl --json acl show lan_tcp | json "d['acls'][0]['rules'][0]['hits']")
h_out=$(ctl --json acl show wan_tcp | json "d['acls'][0]['rules'][0]['hits']")
[ "$h_in" = "$h_out" ] && [ "$h_in" -gt "$fused" ] &&
	pass "port 5204 rule hits in = out ($h_in), fused ones counted in both" ||
	fail "port 5204 rule hits: in $h_in, out $h_out (fused $fused)"
tcp_refused "$H1" 10.202.2.2:7001 "a port lan_tcp does not permit"
suite_stop_nfvd
suite_finish
