#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# NAT44 between two Linux hosts: h1 inside, h2 outside with no route back
# to the inside network, so only nfvd's source NAT brings replies home.
#
#   nfvnat-h1 (inside, eth0 10.203.1.2/24) -- veth nfvnat-v1 == nfvd p1 10.203.1.1
#   nfvnat-h2 (outside, eth0 10.203.2.2/24) -- veth nfvnat-v2 == nfvd p2 10.203.2.1
#
# "nat44 snat add src 10.203.1.0/24 dev p2": h1's ping, TCP (socat echo,
# iperf3) and UDP reach h2, whose capture shows only nfvd's address as
# source. "nat44 dnat add dev p2 proto tcp dport 8080 to 10.203.1.2:7000":
# h2 connecting to 10.203.2.1:8080 talks to h1's server on port 7000, which
# sees h2's own address. Neighbors are resolved by ARP on both sides.
# Fragmented pings and UDP through source NAT, on af_xdp ports.
#
# Run from the repository root as root:  NFVD_BUILD=build bash tests/smoke/suites/nat44.sh
set -uo pipefail
. tests/smoke/lib.sh
suite_init nat44 nfvnat
H1=nfvnat-h1
H2=nfvnat-h2

suite_need socat iperf3 ping tcpdump ethtool
if suite_host "$H1" nfvnat-v1 10.203.1.2/24 10.203.1.1 &&
	suite_host "$H2" nfvnat-v2 10.203.2.2/24; then
	pass "topology: $H1 (inside) - nfvd - $H2 (outside, no route to the inside)"
else
	fail "topology setup failed"
	suite_finish
fi

cat >"$WORK/startup.conf" <<EOF
port add p1 dev net_af_packet0,iface=nfvnat-v1
port add p2 dev net_af_packet1,iface=nfvnat-v2
addr add 10.203.1.1/24 dev p1
addr add 10.203.2.1/24 dev p2
nat44 snat add src 10.203.1.0/24 dev p2
nat44 dnat add dev p2 proto tcp dport 8080 to 10.203.1.2:7000
EOF
suite_start_nfvd
pass "nfvd up: snat 10.203.1.0/24 behind p2, p2:8080 -> 10.203.1.2:7000"

ip netns exec "$H2" tcpdump -n -i eth0 --immediate-mode -w "$WORK/h2.pcap" -U 'ip and not arp' \
	>"$WORK/tcpdump.log" 2>&1 &
BG+=($!)
for _ in $(seq 100); do grep -q "listening on" "$WORK/tcpdump.log" && break; sleep 0.1; done

suite_ping "$H1" 10.203.2.2 "$H1 -> $H2 through source NAT"

ip netns exec "$H2" timeout 30 socat TCP-LISTEN:7001,reuseaddr,fork EXEC:cat &
BG+=($!)
ip netns exec "$H2" timeout 30 socat UDP-RECVFROM:7002,fork EXEC:cat &
BG+=($!)
ip netns exec "$H1" timeout 30 socat TCP-LISTEN:7000,reuseaddr,fork SYSTEM:'echo "$SOCAT_PEERADDR"' &
BG+=($!)
sleep 0.5
reply=$(echo "behind the nat" | ip netns exec "$H1" timeout 5 socat -t 1 - TCP:10.203.2.2:7001 2>&1)
[ "$reply" = "behind the nat" ] && pass "TCP $H1 -> $H2:7001 (socat echo)" ||
	fail "TCP $H1 -> $H2:7001: '$reply'"
reply=$(echo "udp too" | ip netns exec "$H1" timeout 5 socat -t 1 - UDP:10.203.2.2:7002 2>&1)
[ "$reply" = "udp too" ] && pass "UDP $H1 -> $H2:7002 (socat echo)" ||
	fail "UDP $H1 -> $H2:7002: '$reply'"

suite_iperf3 "$H1" "$H2" 10.203.2.2 5203 "$H1 -> $H2 through source NAT"

# Destination NAT: h2 connects to nfvd's address, port 8080; h1's server
# (port 7000) answers with the peer address it saw.
reply=$(ip netns exec "$H2" timeout 5 socat -u TCP:10.203.2.1:8080 STDOUT 2>&1)
[ "$reply" = "10.203.2.2" ] && pass "DNAT $H2 -> 10.203.2.1:8080 reached $H1:7000, which saw $reply" ||
	fail "DNAT $H2 -> 10.203.2.1:8080: '$reply'"

sleep 0.3
kill "${BG[0]}" 2>/dev/null
wait "${BG[0]}" 2>/dev/null
srcs=$(tcpdump -n -r "$WORK/h2.pcap" 2>/dev/null | awk '$2 == "IP" {split($3, a, "."); print a[1]"."a[2]"."a[3]"."a[4]}' | sort -u | paste -sd ' ' -)
if [ "$srcs" = "10.203.2.1 10.203.2.2" ]; then
	pass "$H2 saw only nfvd's address and its own as sources ($srcs)"
else
	fail "sources seen by $H2: '$srcs' (want '10.203.2.1 10.203.2.2')"
fi

st=$(ctl --json nat44 show sessions)
v=$(json '" ".join(sorted(set("%s/%s" % (s["kind"], s["proto"]) for s in d["session_list"])))' <<<"$st")
[ "$v" = "dnat/tcp snat/icmp snat/tcp snat/udp" ] && pass "nat44 show sessions: $v" ||
	fail "session kinds: '$v'"
d=$(ctl --json show drops | json '" ".join("%s/%s" % (x["node"], x["reason"]) for x in d["drops"] if x["node"].startswith("nat44"))')
[ -z "$d" ] && pass "no NAT drop" || fail "NAT drops: $d"

info "drops: $(ctl --json show drops | json '" ".join("%s/%s=%d" % (x["node"], x["reason"], x["packets"]) for x in d["drops"])')"
suite_stop_nfvd

# Fragmented datagrams, on af_xdp ports (the af_packet driver's packet
# fanout has the kernel reassemble fragments before nfvd sees them):
# 3000-byte pings (three fragments each way, the identifier and the ICMP
# checksum in the first) and a 4400-byte UDP echo, through source NAT.
suite_bg_stop
sed -i 's/net_af_packet\([01]\)/net_af_xdp\1/' "$WORK/startup.conf"
suite_start_nfvd
pass "nfvd up on af_xdp ports, the same NAT rules"
ip netns exec "$H2" timeout 20 socat UDP-RECVFROM:7002,fork EXEC:cat &
BG+=($!)
sleep 0.3
out=$(ip netns exec "$H1" ping -n -c 3 -i 0.2 -W 1 -s 3000 10.203.2.2 2>&1)
grep -q " 0% packet loss" <<<"$out" && pass "ping -s 3000 $H1 -> $H2 through source NAT (fragments)" ||
	fail "ping -s 3000 through source NAT: $(grep transmitted <<<"$out")"
big=$(printf 'fragmented %.0s' $(seq 400))
reply=$(printf '%s' "$big" | ip netns exec "$H1" timeout 5 socat -t 1 -b 8192 - UDP:10.203.2.2:7002 2>&1)
[ "$reply" = "$big" ] && pass "UDP ${#big} bytes $H1 -> $H2:7002 and back, fragmented (socat echo)" ||
	fail "UDP ${#big} bytes through NAT: ${#reply} bytes back"
v=$(ctl --json nat44 show | json '"%d %d %d" % (d["frag_in2out"], d["frag_out2in"], d["frag_unknown"])')
read -r f_out f_in f_unk <<<"$v"
# Three pings of two later fragments each, the datagram's two: 8 each way.
[ "$f_out" = 8 ] && [ "$f_in" = 8 ] && [ "$f_unk" = 0 ] &&
	pass "later fragments translated: $f_out leaving, $f_in arriving, none unknown" ||
	fail "fragment counters: in2out $f_out, out2in $f_in, unknown $f_unk"
d=$(ctl --json show drops | json '" ".join("%s/%s" % (x["node"], x["reason"]) for x in d["drops"] if x["node"] not in ("arp_input",))')
[ -z "$d" ] && pass "no drop" || fail "drops: $d"
suite_stop_nfvd
sed -i 's/net_af_xdp\([01]\)/net_af_packet\1/' "$WORK/startup.conf"

# Two workers. Each port has two queues (the kernel's packet fanout spreads
# the flows over them by their hash); worker lcore 1 polls queue 0 of both
# ports, lcore 2 queue 1. A reply to nfvd's outside address hashes apart
# from its flow's inside packets, so about half of them come in on the
# worker that does not own the session, which must hand them to the owner;
# likewise DNAT clients and the server's replies.
suite_bg_stop
suite_two_workers p1 p2
ip netns exec "$H2" timeout 60 socat TCP-LISTEN:7001,reuseaddr,fork EXEC:cat &
BG+=($!)
ip netns exec "$H1" timeout 60 socat TCP-LISTEN:7000,reuseaddr,fork SYSTEM:'echo "$SOCAT_PEERADDR"' &
BG+=($!)
sleep 0.5
N_CONN=24
suite_tcp_echoes "$H1" 10.203.2.2 7001 "$N_CONN" "$H1 -> $H2:7001 through source NAT, two workers"
ok=0
for i in $(seq "$N_CONN"); do
	reply=$(ip netns exec "$H2" timeout 5 socat -u TCP:10.203.2.1:8080 STDOUT 2>&1)
	[ "$reply" = "10.203.2.2" ] && ok=$((ok + 1))
done
[ "$ok" = "$N_CONN" ] && pass "$N_CONN DNAT connections $H2 -> 10.203.2.1:8080 -> $H1:7000, two workers" ||
	fail "DNAT, two workers: $ok of $N_CONN answered with the client's address"
suite_ping "$H1" 10.203.2.2 "$H1 -> $H2 through source NAT, two workers"
suite_iperf3 "$H1" "$H2" 10.203.2.2 5204 "$H1 -> $H2 through source NAT, two workers"

suite_both_workers "nat44 show sessions" session_list "TCP sessions"
suite_handoff_ok nat44 "packets of NAT sessions"
d=$(ctl --json show drops | json '" ".join("%s/%s" % (x["node"], x["reason"]) for x in d["drops"] if x["node"].startswith("nat44") and x["reason"] != "handoff_full")')
[ -z "$d" ] && pass "no NAT drop with two workers (but full handoff rings, reported above)" || fail "NAT drops, two workers: $d"
suite_stop_nfvd
suite_finish
