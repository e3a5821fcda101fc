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

BUILD=${NFVD_BUILD:-build}
NFVD=$BUILD/src/nfvd
NFVCTL=$BUILD/src/nfvctl
PY=/usr/bin/python3
H1=nfvarp-h1
H2=nfvarp-h2
V1=nfvarp-v1
V2=nfvarp-v2
PREFIX=nfvarp-$$
WORK=$(mktemp -d /tmp/nfvarp.XXXXXX)
SOCK=$WORK/api.sock
NFVD_PID=
N_PASS=0
N_FAIL=0

pass() { printf 'PASS  [arp_nd] %s\n' "$*"; N_PASS=$((N_PASS + 1)); }
fail() { printf 'FAIL  [arp_nd] %s\n' "$*"; N_FAIL=$((N_FAIL + 1)); }
info() { printf '      %s\n' "$*"; }
ctl() { timeout 10 "$NFVCTL" -s "$SOCK" "$@"; }
json() { "$PY" -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$@"; }

cleanup() {
	if [ -n "$NFVD_PID" ] && kill -0 "$NFVD_PID" 2>/dev/null; then
		kill -KILL "$NFVD_PID" 2>/dev/null
		wait "$NFVD_PID" 2>/dev/null
	fi
	for ns in "$H1" "$H2"; do
		if ip netns list | grep -qw "^$ns"; then
			for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
			ip netns del "$ns"
		fi
	done
	ip link del "$V1" 2>/dev/null
	ip link del "$V2" 2>/dev/null
	rm -rf "/var/run/dpdk/$PREFIX" "$WORK"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ] || [ ! -x "$NFVD" ]; then
	fail "needs root and $NFVD"
	exit 1
fi
cleanup 2>/dev/null
WORK=$(mktemp -d /tmp/nfvarp.XXXXXX)
SOCK=$WORK/api.sock

for n in 1 2; do
	ns=nfvarp-h$n v=nfvarp-v$n
	ip netns add "$ns"
	ip link add "$v" type veth peer name eth0 netns "$ns"
	sysctl -qw "net.ipv6.conf.$v.disable_ipv6=1"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.eth0.accept_dad=0
	ip link set "$v" up
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0 up
	ethtool -K "$v" tx off rx off gso off gro off tso off >/dev/null 2>&1 || true
	ip netns exec "$ns" ethtool -K eth0 tx off rx off gso off gro off tso off >/dev/null 2>&1 || true
	ip -n "$ns" addr add "10.202.$n.2/24" dev eth0
	ip -n "$ns" addr add "fd00:202:$n::2/64" dev eth0 nodad
	ip -n "$ns" route add default via "10.202.$n.1"
	ip -n "$ns" -6 route add default via "fd00:202:$n::1"
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
"$NFVD" -l 0,1 --no-huge -m 1024 --no-shconf --no-pci --file-prefix "$PREFIX" -- \
	-c "$WORK/startup.conf" -s "$SOCK" >"$WORK/nfvd.log" 2>&1 &
NFVD_PID=$!
for _ in $(seq 300); do [ -S "$SOCK" ] && break; sleep 0.1; done
if [ ! -S "$SOCK" ]; then
	fail "nfvd did not start"
	tail -n 10 "$WORK/nfvd.log"
	exit 1
fi
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
kill -TERM "$NFVD_PID"
wait "$NFVD_PID"
rc=$?
NFVD_PID=
if [ "$rc" = 0 ] && grep -q "all mbufs returned" "$WORK/nfvd.log"; then
	pass "nfvd exits 0, every mbuf back in its pool"
else
	fail "nfvd exit $rc: $(tail -n 2 "$WORK/nfvd.log" | paste -sd ' ' -)"
fi
echo "$N_PASS passed, $N_FAIL failed"
[ "$N_FAIL" -eq 0 ]
