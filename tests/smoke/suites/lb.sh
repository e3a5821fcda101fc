#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The load balancer between Linux hosts: a client and two backends, each
# behind its own veth, the backends' default route through nfvd.
#
#   nfvlb-c  (client,  eth0 10.204.1.2/24) -- veth nfvlb-v1 == nfvd p1 10.204.1.1
#   nfvlb-b1 (backend, eth0 10.204.2.2/24) -- veth nfvlb-v2 == nfvd p2 10.204.2.1
#   nfvlb-b2 (backend, eth0 10.204.3.2/24) -- veth nfvlb-v3 == nfvd p3 10.204.3.1
#
# VIP 10.204.9.100 (routed to nfvd by the client's default route): TCP
# port 80 over both backends' port 8080, UDP port 53 over both backends'
# port 5353, TCP port 5201 to b1 only (iperf3: its control and data
# connections must meet one server). The backends' servers answer with
# their name and the client address they saw: connections spread over
# both, each reached with the client's own address, each answered from
# the VIP (socat connects to the VIP, so a reply from anywhere else would
# not reach it). Deleting b2 sends every new connection to b1. TCP port
# 8000 is a direct-return service on b2, which holds the VIP itself.
# Fragmented UDP datagrams to the VIP and back, on af_xdp ports.
#
# Run from the repository root as root:  NFVD_BUILD=build bash tests/smoke/suites/lb.sh
set -uo pipefail
. tests/smoke/lib.sh
suite_init lb nfvlb
C=nfvlb-c
B1=nfvlb-b1
B2=nfvlb-b2
VIP=10.204.9.100

suite_need socat iperf3 ping ethtool
if suite_host "$C" nfvlb-v1 10.204.1.2/24 10.204.1.1 &&
	suite_host "$B1" nfvlb-v2 10.204.2.2/24 10.204.2.1 &&
	suite_host "$B2" nfvlb-v3 10.204.3.2/24 10.204.3.1; then
	pass "topology: $C - nfvd - $B1, $B2"
else
	fail "topology setup failed"
	suite_finish
fi

cat >"$WORK/startup.conf" <<EOF
port add p1 dev net_af_packet0,iface=nfvlb-v1
port add p2 dev net_af_packet1,iface=nfvlb-v2
port add p3 dev net_af_packet2,iface=nfvlb-v3
addr add 10.204.1.1/24 dev p1
addr add 10.204.2.1/24 dev p2
addr add 10.204.3.1/24 dev p3
lb service add $VIP:80 proto tcp
lb backend add $VIP:80 proto tcp 10.204.2.2:8080
lb backend add $VIP:80 proto tcp 10.204.3.2:8080
lb service add $VIP:53 proto udp
lb backend add $VIP:53 proto udp 10.204.2.2:5353
lb backend add $VIP:53 proto udp 10.204.3.2:5353
lb service add $VIP:5201 proto tcp
lb backend add $VIP:5201 proto tcp 10.204.2.2
EOF
suite_start_nfvd
pass "nfvd up: $VIP:80/tcp, :53/udp over b1 and b2, :5201/tcp on b1"

for b in 1 2; do
	ns=nfvlb-b$b
	ip netns exec "$ns" timeout 240 socat TCP-LISTEN:8080,reuseaddr,fork \
		SYSTEM:"echo b$b \$SOCAT_PEERADDR" &
	BG+=($!)
	# One process answers every datagram with its name and the sender's
	# address (socat's UDP fork loses datagrams that arrive while a child
	# starts), and a long one's data after them.
	ip netns exec "$ns" timeout 240 "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 5353))
while True:
    data, peer = s.recvfrom(65536)
    s.sendto(("%s %s\n" % (sys.argv[1], peer[0])).encode() + (data if len(data) > 100 else b""),
             peer)
' b$b &
	BG+=($!)
done
sleep 0.5
suite_ping "$C" 10.204.2.2 "$C -> $B1 (plain routing beside the load balancer)"

# N connections to the VIP's port 80 from distinct source ports (from
# BASE + 1): each answered, by both backends, with the client's address.
vip_tcp() { # vip_tcp N BASE WHAT
	local i n n1 n2 out="$WORK/replies$2"
	: >"$out"
	for i in $(seq "$1"); do
		ip netns exec "$C" timeout 5 socat -u TCP:$VIP:80,sourceport=$(($2 + i)) STDOUT \
			>>"$out" 2>&1
	done
	n=$(grep -c "^b[12] 10.204.1.2$" "$out")
	n1=$(grep -c "^b1 " "$out")
	n2=$(grep -c "^b2 " "$out")
	if [ "$n" = "$1" ] && [ "$n1" -gt 0 ] && [ "$n2" -gt 0 ]; then
		pass "TCP$3: $1 connections to $VIP:80 answered ($n1 by b1, $n2 by b2), each backend saw the client's address"
	else
		fail "TCP to $VIP:80$3: $n of $1 answered as expected (b1 $n1, b2 $n2): $(sort "$out" | uniq -c | head -5)"
	fi
}

# One datagram to the VIP's port 53 from source port SPORT: "q", or SIZE
# bytes that the backend echoes after its line. A connected socket takes
# replies from the VIP only, and the ask ends with its reply (4 s at most
# without one). Prints the reply's first line; fails when an echo is not
# the data sent.
vip_ask() { # vip_ask SPORT [SIZE]
	ip netns exec "$C" timeout 8 "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("", int(sys.argv[2])))
s.connect((sys.argv[1], 53))
s.settimeout(4)
size = int(sys.argv[3])
data = (bytes(range(256)) * (size // 256 + 1))[:size] if size else b"q\n"
s.send(data)
line, _, rest = s.recv(65536).partition(b"\n")
sys.stdout.write(line.decode(errors="replace") + "\n")
sys.exit(0 if not size or rest == data else 1)' "$VIP" "$1" "${2:-0}"
}

# Ten datagrams to the VIP's port 53 from source ports from BASE + 1, each
# answered from the VIP.
vip_udp() { # vip_udp BASE WHAT
	local i n out="$WORK/udp$1"
	: >"$out"
	for i in $(seq 10); do
		vip_ask $(($1 + i)) >>"$out" 2>&1
	done
	n=$(grep -c "^b[12] 10.204.1.2$" "$out")
	[ "$n" = 10 ] && pass "UDP$2: 10 datagrams to $VIP:53 answered from the VIP ($(grep -c '^b1' "$out") by b1)" ||
		fail "UDP to $VIP:53$2: $n of 10 answered: $(sort "$out" | uniq -c | head -4 | tr "\n" " ")"
}

vip_tcp 20 42000 ""
vip_udp 43000 ""

st=$(ctl --json lb show)
v=$(json '"%d %d %d" % (d["scheduled"], d["no_backend"], d["table_full"])' <<<"$st")
[ "$v" = "30 0 0" ] && pass "lb show: 30 sessions scheduled, no drop" || fail "lb show counters: '$v'"

suite_iperf3 "$C" "$B1" 10.204.2.2 5201 "$C -> $VIP:5201 (b1) through the load balancer" $VIP

ctl lb backend del $VIP:80 proto tcp 10.204.3.2:8080 >/dev/null
: >"$WORK/after"
for i in $(seq 10); do
	ip netns exec "$C" timeout 5 socat -u TCP:$VIP:80,sourceport=$((44000 + i)) STDOUT \
		>>"$WORK/after" 2>&1
done
n=$(grep -c "^b1 10.204.1.2$" "$WORK/after")
[ "$n" = 10 ] && pass "after 'lb backend del' of b2: 10 of 10 new connections on b1" ||
	fail "after deleting b2: $n of 10 on b1: $(sort "$WORK/after" | uniq -c | head -3)"

# Direct server return: b2 holds the VIP on its loopback (answering no
# ARP for it) and answers the client itself, from the VIP, through its
# default route (nfvd, as plain routing).
ip netns exec "$B2" ip addr add $VIP/32 dev lo
ip netns exec "$B2" sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
ip netns exec "$B2" timeout 30 socat TCP-LISTEN:8000,reuseaddr,fork \
	SYSTEM:"echo dsr b2 \$SOCAT_SOCKADDR \$SOCAT_PEERADDR" &
BG+=($!)
ctl lb service add $VIP:8000 proto tcp mode dsr >/dev/null &&
	ctl lb backend add $VIP:8000 proto tcp 10.204.3.2 >/dev/null
sleep 0.3
: >"$WORK/dsr"
for i in $(seq 5); do
	ip netns exec "$C" timeout 5 socat -u TCP:$VIP:8000,sourceport=$((45000 + i)) STDOUT \
		>>"$WORK/dsr" 2>&1
done
n=$(grep -c "^dsr b2 $VIP 10.204.1.2$" "$WORK/dsr")
[ "$n" = 5 ] && pass "DSR: 5 connections to $VIP:8000 reached b2 with the VIP as destination, answered by b2 directly" ||
	fail "DSR to $VIP:8000: $n of 5: $(head -3 "$WORK/dsr")"

d=$(ctl --json show drops | json '" ".join("%s/%s" % (x["node"], x["reason"]) for x in d["drops"] if x["node"] == "lb")')
[ -z "$d" ] && pass "no load-balancer drop" || fail "lb drops: $d"
info "drops: $(ctl --json show drops | json '" ".join("%s/%s=%d" % (x["node"], x["reason"], x["packets"]) for x in d["drops"])')"
suite_stop_nfvd

# Fragmented datagrams, on af_xdp ports (the af_packet driver's packet
# fanout has the kernel reassemble fragments before nfvd sees them): five
# 4000-byte datagrams to $VIP:53, three fragments each, and the backends'
# echoes of them, three fragments each, every one from the VIP.
sed -i 's/net_af_packet\([0-2]\)/net_af_xdp\1/' "$WORK/startup.conf"
suite_start_nfvd
pass "nfvd up on af_xdp ports, the same services"
n=0
for i in $(seq 5); do
	line=$(vip_ask $((48000 + i)) 4000 2>&1) && grep -q "^b[12] 10.204.1.2$" <<<"$line" &&
		n=$((n + 1))
done
[ "$n" = 5 ] && pass "UDP: 5 datagrams of 4000 bytes to $VIP:53 and their echoes, fragmented, whole from the VIP" ||
	fail "fragmented UDP through the load balancer: $n of 5 echoed whole"
v=$(ctl --json lb show | json '"%d %d %d" % (d["frag_fwd"], d["frag_rev"], d["frag_unknown"])')
[ "$v" = "10 10 0" ] && pass "later fragments: 10 to the backends, 10 from the VIP, none unknown" ||
	fail "lb fragment counters (fwd rev unknown): '$v'"
suite_stop_nfvd
sed -i 's/net_af_xdp\([0-2]\)/net_af_packet\1/' "$WORK/startup.conf"

# Two workers, each polling one queue of every port (two-queue af_packet
# ports: the kernel's fanout spreads the flows). A session lives on the
# worker its client's address and port name; a client packet or a
# backend's reply received by the other worker is handed to it.
suite_two_workers p1 p2 p3
vip_tcp 24 46000 ", two workers"
vip_udp 47000 ", two workers"
suite_iperf3 "$C" "$B1" 10.204.2.2 5201 "$C -> $VIP:5201 (b1), two workers" $VIP
suite_handoff_ok lb "packets of load-balancer sessions"
d=$(ctl --json show drops | json '" ".join("%s/%s" % (x["node"], x["reason"]) for x in d["drops"] if x["node"] == "lb" and x["reason"] != "handoff_full")')
[ -z "$d" ] && pass "no load-balancer drop with two workers (but full handoff rings, reported above)" || fail "lb drops, two workers: $d"
suite_stop_nfvd
suite_finish
