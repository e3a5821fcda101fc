#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ARP/NS flood against nfvd from a real namespace: a raw socket in h1 sends
# ARP requests for nfvd's address (new sender each time) and neighbor
# solicitations as fast as it can while h1 pings h2 through nfvd. The
# flood is policed (punt/policed counted), the pings go on, nfvd still
# answers ARP, the neighbor table stays within its bound, and nfvd exits
# clean with every mbuf back.
#
#   nfvarp-h1 (eth0 10.202.1.2/24, fd00:202:1::2/64) -- nfvarp-v1 == p1 [nfvd] p2 == nfvarp-v2 -- nfvarp-h2
#
# Run as root from the repository root: NFVD_BUILD=build bash tests/smoke/suites/arp_nd.sh
set -uo pipefail
. tests/smoke/lib.sh
suite_init arp_nd nfvarp
H1=nfvarp-h1
H2=nfvarp-h2
V1=nfvarp-v1
V2=nfvarp-v2

suite_need arping ping ethtool
for n in 1 2; do
	suite_host "nfvarp-h$n" "nfvarp-v$n" "10.202.$n.2/24" "10.202.$n.1" \
		"fd00:202:$n::2/64" "fd00:202:$n::1" || { fail "topology setup failed"; suite_finish; }
done

cat >"$WORK/startup.conf" <<EOF
port add p1 dev net_af_packet0,iface=$V1
port add p2 dev net_af_packet1,iface=$V2
addr add 10.202.1.1/24 dev p1
addr add 10.202.2.1/24 dev p2
addr add fd00:202:1::1/64 dev p1
addr add fd00:202:2::1/64 dev p2
# A policer one raw socket can overflow (the default is 10,000/s a worker).
punt set arp rate 1000 burst 100
punt set nd rate 1000 burst 100
EOF
suite_start_nfvd
pass "nfvd on net_af_packet, only port add and addr add"

if ip netns exec "$H1" ping -n -c 5 -i 0.1 -W 1 10.202.2.2 | grep -q " 0% packet loss"; then
	pass "ping h1 -> h2 before the flood (neighbors resolved by ARP)"
else
	fail "ping h1 -> h2 before the flood"
fi

# The flood: ARP requests for 10.202.1.1 from ever new senders, and NS for
# fd00:202:1::1, as fast as one raw socket sends them, for 5 s.
ip netns exec "$H1" timeout 20 "$PY" - >"$WORK/flood.log" 2>&1 <<'EOF' &
import socket, struct, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
def csum(b):
    if len(b) % 2:
        b += b"\0"
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16:
        t = (t & 0xffff) + (t >> 16)
    return ~t & 0xffff
tgt = socket.inet_pton(socket.AF_INET6, "fd00:202:1::1")
sn = socket.inet_pton(socket.AF_INET6, "ff02::1:ff00:1")
n, end = 0, time.monotonic() + 5
while time.monotonic() < end:
    for _ in range(256):
        mac = struct.pack("!HI", 0x0200, 0x10000000 + n)
        sip = struct.pack("!I", 0x0aca0000 + 1024 + n % 60000)   # 10.202.x.y
        arp = (b"\xff" * 6 + mac + b"\x08\x06" + struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) +
               mac + sip + b"\0" * 6 + socket.inet_aton("10.202.1.1"))
        s.send(arp)
        src = socket.inet_pton(socket.AF_INET6, "fd00:202:1::%x" % (0x100 + n % 60000))
        icmp = struct.pack("!BBHI", 135, 0, 0, 0) + tgt + bytes([1, 1]) + mac
        ph = src + sn + struct.pack("!I3xB", len(icmp), 58)
        icmp = icmp[:2] + struct.pack("!H", csum(ph + icmp)) + icmp[4:]
        ip6 = struct.pack("!IHBB", 0x60000000, len(icmp), 58, 255) + src + sn
        s.send(b"\x33\x33\xff\x00\x00\x01" + mac + b"\x86\xdd" + ip6 + icmp)
        n += 1
print(n)
EOF
FLOOD=$!
sleep 0.5
out=$(ip netns exec "$H1" ping -n -c 200 -i 0.02 -W 1 10.202.2.2 2>&1)
wait "$FLOOD"
sent=$(tail -n 1 "$WORK/flood.log")
info "flood: $sent ARP requests and $sent neighbor solicitations sent in 5 s"
rcv=$(grep -oE '[0-9]+ received' <<<"$out" | cut -d' ' -f1)
# The pings share h1's veth, and nfvd's packet socket ring on it, with the
# flood: what the kernel loses there never reaches nfvd. nfvd's own part is
# checked below: nothing it received was dropped but the flood's excess.
if [ "${rcv:-0}" -ge 20 ]; then
	pass "ping h1 -> h2 during the flood: ${rcv}/200 answered (forwarding goes on)"
else
	fail "ping h1 -> h2 during the flood: ${rcv:-0}/200 answered"
fi
st=$(ctl --json show stats)
# Besides the flood's reasons, the hosts' own multicast chatter (MLD reports,
# router solicitations, IGMP), which nfvd does not route, may be dropped.
v=$(json '" ".join("%s/%s" % (x["node"], x["reason"]) for x in d["drops"] if x["node"] not in ("punt", "arp_input", "nd_input") and (x["node"], x["reason"]) not in (("ip6_input", "multicast_destination"), ("ip4_input", "multicast_destination"), ("ip6_lookup", "l2_multicast")))' <<<"$st")
if [ -z "$v" ]; then
	pass "no forwarding drop in nfvd during the flood (only punt/, arp_input/, nd_input/ reasons and multicast chatter)"
else
	fail "drops other than the flood's: $v"
fi
v=$(json '" ".join("%s:%d/%d" % (q["name"], q["punted"], q["policed"]) for q in d["punt"]["queues"] if q["name"] in ("arp", "nd"))' <<<"$st")
info "punt queues (punted/policed): $v"
info "drops: $(json '" ".join("%s/%s=%d" % (x["node"], x["reason"], x["packets"]) for x in d["drops"])' <<<"$st")"
info "ports: $(json '" ".join("%s rx %d tx %d missed %d" % (p["name"], p["rx_packets"], p["tx_packets"], p["rx_missed"]) for p in d["ports"])' <<<"$st")"
pol=$(json 'sum(x["packets"] for x in d["drops"] if (x["node"], x["reason"]) == ("punt", "policed"))' <<<"$st")
qpol=$(json 'sum(q["policed"] for q in d["punt"]["queues"])' <<<"$st")
if [ "${pol:-0}" -gt 0 ] && [ "$pol" = "$qpol" ]; then
	pass "the flood is policed: $pol dropped as punt/policed (the queues count the same)"
else
	fail "punt/policed drops $pol, queues' policed $qpol (expected equal and > 0)"
fi
v=$(json 'd["neigh"]["entries"] <= d["neigh"]["max_entries"]' <<<"$st")
if [ "$v" = True ]; then
	pass "neighbor table within its bound: $(json 'd["neigh"]["entries"]' <<<"$st") entries"
else
	fail "neighbor table over its bound"
fi
out=$(ip netns exec "$H1" timeout 10 arping -c 2 -w 3 -I eth0 10.202.1.1 2>&1)
if grep -q "Received 2 response" <<<"$out"; then
	pass "arping nfvd after the flood: 2 replies"
else
	fail "arping nfvd after the flood: $(tail -n 1 <<<"$out")"
fi
suite_stop_nfvd
suite_finish
