#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Visibility smoke test: real Linux hosts, nfvd between them on net_af_packet.
#
#   vsvis-h1 (eth0 10.202.1.2/24) -- vsvis-v1 == p1 (10.202.1.1)  nfvd
#   vsvis-h2 (eth0 10.202.2.2/24) -- vsvis-v2 == p2 (10.202.2.1)
#   vsvis-h3 (eth0, no address)   -- vsvis-v3 == m: the mirror port
#
# h1 pings h2. Checks: the kernel of h3 (tcpdump on its eth0) sees the
# mirror copies of what p1 receives; a capture of p2 "out" with filter
# "icmp" holds exactly the echo requests, read by tshark; nfcapd (nfdump,
# on the loopback of the root namespace) gets IPFIX records whose packet
# counts are the pings, both ways.
# Run from the repository root:  NFVD_BUILD=build bash tests/smoke/suites/visibility.sh
set -uo pipefail
. tests/smoke/lib.sh
suite_init visibility vsvis
PINGS=5

suite_need tshark tcpdump nfcapd nfdump
suite_host vsvis-h1 vsvis-v1 10.202.1.2/24 10.202.1.1 &&
	suite_host vsvis-h2 vsvis-v2 10.202.2.2/24 10.202.2.1 &&
	suite_host vsvis-h3 vsvis-v3 || { fail "topology setup failed"; suite_finish; }
MAC_H1=$(ip netns exec vsvis-h1 cat /sys/class/net/eth0/address)
MAC_H2=$(ip netns exec vsvis-h2 cat /sys/class/net/eth0/address)

COLLECTOR_PORT=$((20000 + RANDOM % 20000))
mkdir -p "$WORK/flows"
nfcapd -b 127.0.0.1 -p "$COLLECTOR_PORT" -w "$WORK/flows" -t 3600 >"$WORK/nfcapd.log" 2>&1 &
CAP_PID=$!
BG+=("$CAP_PID")

cat >"$WORK/startup.conf" <<CONF
port add p1 dev net_af_packet0,iface=vsvis-v1
port add p2 dev net_af_packet1,iface=vsvis-v2
port add m dev net_af_packet2,iface=vsvis-v3
addr add 10.202.1.1/24 dev p1
addr add 10.202.2.1/24 dev p2
neigh add 10.202.1.2 lladdr $MAC_H1 dev p1
neigh add 10.202.2.2 lladdr $MAC_H2 dev p2
mirror add span dev p1 in to m
capture start dev p2 out file $WORK/p2.pcapng filter "icmp"
flow export ipfix 127.0.0.1:$COLLECTOR_PORT active 60 idle 1
CONF
suite_start_nfvd
P1_MAC=$(ctl --json port show p1 | sed -n 's/.*"mac": *"\([^"]*\)".*/\1/p' | head -1)
P2_MAC=$(ctl --json port show p2 | sed -n 's/.*"mac": *"\([^"]*\)".*/\1/p' | head -1)
ip -n vsvis-h1 neigh replace 10.202.1.1 lladdr "$P1_MAC" dev eth0
ip -n vsvis-h2 neigh replace 10.202.2.1 lladdr "$P2_MAC" dev eth0

suite_tcpdump vsvis-h3 eth0 "$WORK/h3.pcap" icmp
H3_RX0=$(ip netns exec vsvis-h3 cat /sys/class/net/eth0/statistics/rx_packets)

if ip netns exec vsvis-h1 ping -n -c "$PINGS" -i 0.1 -W 1 10.202.2.2 >"$WORK/ping.log" 2>&1; then
	pass "h1 pings h2 through nfvd ($PINGS replies)"
else
	fail "ping h1 -> h2: $(tail -2 "$WORK/ping.log")"
fi
sleep 0.5
suite_tcpdump_stop
H3_RX=$(( $(ip netns exec vsvis-h3 cat /sys/class/net/eth0/statistics/rx_packets) - H3_RX0 ))

ctl mirror show >"$WORK/mirror.txt" 2>&1
n=$(tshark -n -r "$WORK/h3.pcap" -Y "icmp.type == 8 && ip.dst == 10.202.2.2" 2>/dev/null | wc -l)
if [ "$n" -eq "$PINGS" ] && [ "$H3_RX" -eq "$PINGS" ]; then
	pass "mirror: h3's kernel received the $PINGS echo requests p1 received, and nothing else"
else
	fail "mirror: h3 saw $n echo requests, $H3_RX frames (want $PINGS): $(cat "$WORK/mirror.txt"; tshark -n -r "$WORK/h3.pcap" 2>&1 | head; ls -l "$WORK/h3.pcap"; cat "$WORK/h3.pcap.log")"
fi

ctl capture stop dev p2 >"$WORK/capture.txt" 2>&1 || fail "capture stop: $(cat "$WORK/capture.txt")"
n=$(tshark -n -r "$WORK/p2.pcapng" -Y "icmp.type == 8 && ip.dst == 10.202.2.2 && ip.ttl == 63" \
	2>/dev/null | wc -l)
all=$(tshark -n -r "$WORK/p2.pcapng" 2>/dev/null | wc -l)
if [ "$n" -eq "$PINGS" ] && [ "$all" -eq "$PINGS" ]; then
	pass "capture: p2.pcapng holds the $PINGS routed echo requests (TTL 63) and nothing else"
else
	fail "capture: $n routed echo requests, $all frames in all (want $PINGS, $PINGS)"
fi

# The flows end after 1 s idle; their records reach nfcapd.
ok=
for _ in $(seq 1 50); do
	if ctl --json flow show | grep -q '"active_flows": 0' &&
	   ctl --json flow show | grep -q '"records": [1-9]'; then
		ok=1
		break
	fi
	sleep 0.2
done
[ -n "$ok" ] || fail "flows did not end and export: $(ctl flow show)"
kill "$CAP_PID"; wait "$CAP_PID" 2>/dev/null; CAP_PID=
nfdump -q -N -R "$WORK/flows" -o "fmt:%sa|%da|%pr|%pkt" >"$WORK/nfdump.txt" 2>&1
req=$(awk -F'|' '{gsub(/ /,"")} $1=="10.202.1.2" && $2=="10.202.2.2" {s+=$4} END {print s+0}' \
	"$WORK/nfdump.txt")
rep=$(awk -F'|' '{gsub(/ /,"")} $1=="10.202.2.2" && $2=="10.202.1.2" {s+=$4} END {print s+0}' \
	"$WORK/nfdump.txt")
if [ "$req" -eq "$PINGS" ] && [ "$rep" -eq "$PINGS" ]; then
	pass "IPFIX: nfcapd recorded $PINGS packets h1 -> h2 and $PINGS h2 -> h1"
else
	fail "IPFIX: nfcapd recorded $req packets h1 -> h2, $rep h2 -> h1 (want $PINGS each): $(cat "$WORK/nfdump.txt")"
fi

suite_stop_nfvd
suite_finish
