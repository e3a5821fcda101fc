#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A bridge's kernel twin (a BVI's, as VPP's linux-cp gives one), with
# Linux hosts as the peers:
#
#   lb-h1: eth0 10.212.1.2/24 -- veth lb-v1 == nfvd p1 --+
#   lb-h2: eth0 10.212.1.3/24 -- veth lb-v2 == nfvd p2 --+-- br0 10.212.1.1/24
#                                                           twin lb-tw in lb-rtr
#
# TCP both ways between the twin's kernel and h1 (socat): the kernel's
# SYNs and ARP go into the bridge as br0's own frames and reach h1 (not
# h2), h1's answers to br0's MAC are punted to the twin, its ARP copied
# there; h2's ping to 10.212.1.1 is nfvd's to answer. Counters: punted
# and from_twin of br0, no drop but the punted ones.
#
# Run from the repository root as root:  NFVD_BUILD=build bash tests/smoke/suites/lcp_bridge.sh
set -uo pipefail
. tests/smoke/lib.sh
suite_init lcp_bridge lb
H1=lb-h1
H2=lb-h2
RTR=lb-rtr
TW=lb-tw

suite_need ping socat ethtool ip tcpdump
if suite_host "$H1" lb-v1 10.212.1.2/24 && suite_host "$H2" lb-v2 10.212.1.3/24 &&
	suite_netns "$RTR"; then
	pass "topology: $H1, $H2 - nfvd br0 (twin $TW in $RTR)"
else
	fail "topology setup failed"
	suite_finish
fi

cat >"$WORK/startup.conf" <<CONF
port add p1 dev net_af_packet0,iface=lb-v1
port add p2 dev net_af_packet1,iface=lb-v2
bridge add br0
bridge port add br0 dev p1
bridge port add br0 dev p2
addr add 10.212.1.1/24 dev br0
lcp add dev br0 host-if $TW netns $RTR
CONF
suite_start_nfvd
pass "nfvd up: br0 = { p1, p2 }, 10.212.1.1/24, twin $TW in $RTR"

got=$(ip -n "$RTR" -j addr show "$TW" | json '" ".join("%s/%d" % (a["local"], a["prefixlen"]) for a in d[0]["addr_info"] if a["family"] == "inet")')
[ "$got" = "10.212.1.1/24" ] && pass "the twin has br0's address" || fail "twin addresses: '$got'"

ip netns exec "$H1" timeout 30 socat TCP-LISTEN:7001,fork,reuseaddr EXEC:cat \
	>"$WORK/socat-h1.log" 2>&1 &
BG+=($!)
ip netns exec "$RTR" timeout 30 socat TCP-LISTEN:7002,bind=10.212.1.1,fork,reuseaddr EXEC:cat \
	>"$WORK/socat-rtr.log" 2>&1 &
BG+=($!)
suite_tcpdump "$H2" eth0 "$WORK/h2.pcap" tcp
sleep 0.5
suite_tcp_echoes "$RTR" 10.212.1.2 7001 5 "from the twin's kernel to $H1 through br0"
suite_tcp_echoes "$H1" 10.212.1.1 7002 5 "from $H1 to the twin's kernel (punted from br0)"
# What the kernel sent went to h1's port by the FDB, not flooded: h2
# saw no TCP segment.
sleep 0.3
suite_tcpdump_stop
n=$(tcpdump -n -r "$WORK/h2.pcap" 2>/dev/null | wc -l)
[ -s "$WORK/h2.pcap" ] && [ "$n" -eq 0 ] &&
	pass "$H2 saw none of the TCP segments: the kernel's frames went by br0's FDB" ||
	fail "$H2 saw $n TCP segments ($(cat "$WORK/h2.pcap.log"))"
suite_ping "$H2" 10.212.1.1 "$H2 -> br0 (nfvd answers)"

v=$(ctl --json lcp show dev br0 | json '"%d %d" % (d["lcp"][0]["punted"] > 0, d["lcp"][0]["from_twin"] > 0)')
[ "$v" = "1 1" ] && pass "lcp show: br0's twin has punted and returned frames" ||
	fail "lcp show: $(ctl lcp show)"
arp=$(ctl --json show stats | json 'd["lcp"]["punted_by_reason"].get("lcp_copy/arp", 0)')
[ "$arp" -ge 1 ] && pass "ARP for br0 copied to the twin ($arp)" || fail "no ARP copied: $arp"
d=$(ctl --json show drops | json '" ".join("%s/%s" % (x["node"], x["reason"]) for x in d["drops"] if x["node"].startswith("bridge") or x["node"].startswith("lcp"))')
[ -z "$d" ] && pass "no bridge or lcp drop" || fail "drops: $d"

info "drops: $(ctl --json show drops | json '" ".join("%s/%s=%d" % (x["node"], x["reason"], x["packets"]) for x in d["drops"])')"
suite_stop_nfvd
suite_finish
