#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A VXLAN gateway between the kernel's VXLAN device and a plain Ethernet
# host, bridged by nfvd:
#
#   vx-h1: eth0 10.204.1.2/24 -- veth vx-v1 == nfvd p1 10.204.1.1/24 (underlay)
#          vxk0 (kernel vxlan id 42, remote 10.204.1.1) 10.204.9.1/24
#   vx-h2: eth0 10.204.9.2/24 -- veth vx-v2 == nfvd p2 (no address)
#
#   nfvd: vxlan vxl vni 42 local 10.204.1.1 remote 10.204.1.2;
#         bridge br0 = { p2, vxl }
#
# h1 and h2 ping each other and run a short TCP transfer (iperf3) across
# the bridge: h1's frames arrive in VXLAN datagrams, are decapsulated and
# bridged to p2; h2's are encapsulated to the VTEP nfvd learned h1's MAC
# from. nfvd resolves the VTEP by ARP on p1. "fdb show" lists both hosts'
# MACs (h1's on vxl with its VTEP, h2's on p2). A capture of vxl (filter
# "icmp") holds the inner frames of a ping across the tunnel, byte for
# byte those the kernel's vxk0 sent and received (tcpdump on it), the
# kernel's sent as nfvd's "in" and its received as nfvd's "out".
#
# Run from the repository root as root:  NFVD_BUILD=build bash tests/smoke/suites/vxlan.sh
set -uo pipefail
. tests/smoke/lib.sh
suite_init vxlan vx
H1=vx-h1
H2=vx-h2

suite_need ping iperf3 ethtool ip tcpdump tshark
if suite_host "$H1" vx-v1 10.204.1.2/24 && suite_host "$H2" vx-v2 10.204.9.2/24 &&
	ip -n "$H1" link add vxk0 type vxlan id 42 remote 10.204.1.1 local 10.204.1.2 \
		dstport 4789 dev eth0 &&
	ip -n "$H1" addr add 10.204.9.1/24 dev vxk0 && ip -n "$H1" link set vxk0 up &&
	ip -n "$H2" link set eth0 mtu 1450; then
	pass "topology: $H1 (kernel vxlan id 42) - nfvd bridge - $H2"
else
	fail "topology setup failed"
	suite_finish
fi
MAC1=$(ip -n "$H1" -j link show vxk0 | json 'd[0]["address"]')
MAC2=$(ip -n "$H2" -j link show eth0 | json 'd[0]["address"]')

cat >"$WORK/startup.conf" <<CONF
port add p1 dev net_af_packet0,iface=vx-v1
port add p2 dev net_af_packet1,iface=vx-v2
addr add 10.204.1.1/24 dev p1
vxlan add vxl vni 42 local 10.204.1.1 remote 10.204.1.2
bridge add br0
bridge port add br0 dev p2
bridge port add br0 dev vxl
CONF
suite_start_nfvd
pass "nfvd up: br0 = { p2, vxl (VNI 42 to 10.204.1.2) }"

suite_ping "$H1" 10.204.9.2 "$H1 (vxlan) -> $H2 (bridged port)"
suite_ping "$H2" 10.204.9.1 "$H2 (bridged port) -> $H1 (vxlan)"
suite_iperf3 "$H2" "$H1" 10.204.9.1 5204 "$H2 -> $H1 across the bridge and the tunnel"
suite_iperf3 "$H1" "$H2" 10.204.9.2 5205 "$H1 -> $H2 across the tunnel and the bridge"

fdb=$(ctl --json fdb show dev br0)
got=$(json '" ".join(sorted("%s@%s%s" % (e["mac"].lower(), e["port"], "/" + e["remote"] if "remote" in e else "") for e in d["fdb"] if e["type"] == "learned"))' <<<"$fdb")
want=$(printf '%s\n' "$MAC1@vxl/10.204.1.2" "$MAC2@p2" | sort | paste -sd ' ' -)
[ "$got" = "$want" ] && pass "fdb show: $got" || fail "fdb show: '$got' (want '$want')"

rows=$(ctl --json port show vxl)
v=$(json '"%d %d" % (d["ports"][0]["rx_packets"] > 0, d["ports"][0]["tx_packets"] > 0)' <<<"$rows")
[ "$v" = "1 1" ] && pass "vxl counts frames both ways" || fail "vxl counters: $rows"
d=$(ctl --json show drops | json '" ".join("%s/%s" % (x["node"], x["reason"]) for x in d["drops"] if x["node"].startswith("vxlan") or x["node"].startswith("bridge"))')
[ -z "$d" ] && pass "no VXLAN or bridge drop" || fail "drops: $d"

# The tunnel's inner frames: nfvd's capture of vxl against the kernel's
# own view of vxk0.
suite_tcpdump "$H1" vxk0 "$WORK/vxk0.pcap" icmp
if ctl capture start dev vxl both file "$WORK/vxl.pcapng" filter icmp >"$WORK/cap.txt" 2>&1 &&
   ip netns exec "$H1" ping -n -c 3 -i 0.1 -W 1 10.204.9.2 >"$WORK/ping.log" 2>&1; then
	sleep 0.5
	suite_tcpdump_stop
	ctl capture stop dev vxl >>"$WORK/cap.txt" 2>&1
	# Each side's frames in order: nfvd's "in" (direction 1) are what
	# the kernel sent (its source MAC, h1's), nfvd's "out" what it received.
	v=$("$PY" - "$WORK/vxl.pcapng" "$WORK/vxk0.pcap" "$MAC1" <<'PY' 2>"$WORK/py.err"
import subprocess, sys
import scapy.layers.l2  # noqa: F401 (Ethernet frames)
from scapy.utils import rdpcap
nfvd, kernel, mac = sys.argv[1], sys.argv[2], sys.argv[3].lower()
dirs = subprocess.run(["tshark", "-n", "-r", nfvd, "-T", "fields", "-e",
                       "frame.interface_name", "-e", "frame.packet_flags_direction"],
                      capture_output=True, text=True).stdout.split("\n")[:-1]
got = [bytes(p) for p in rdpcap(nfvd)]
want = [bytes(p) for p in rdpcap(kernel)]
sent = [f for f in want if f[6:12].hex(":") == mac]
received = [f for f in want if f[6:12].hex(":") != mac]
got_in = [f for f, d in zip(got, dirs) if d == "vxl\t0x00000001"]
got_out = [f for f, d in zip(got, dirs) if d == "vxl\t0x00000002"]
ok = len(got) == len(dirs) == 6 and got_in == sent and got_out == received and len(sent) == 3
print("ok" if ok else "nfvd %d frames %s, kernel sent %d received %d, in %d out %d" %
      (len(got), sorted(set(dirs)), len(sent), len(received), len(got_in), len(got_out)))
PY
)
	[ "$v" = "ok" ] && pass "capture of vxl: the 6 inner ICMP frames, byte for byte the kernel's (3 in, 3 out)" ||
		fail "capture of vxl: $v $(cat "$WORK/py.err") ($(cat "$WORK/cap.txt"))"
else
	fail "capture of vxl or ping: $(cat "$WORK/cap.txt"; tail -2 "$WORK/ping.log")"
	suite_tcpdump_stop
fi

info "drops: $(ctl --json show drops | json '" ".join("%s/%s=%d" % (x["node"], x["reason"], x["packets"]) for x in d["drops"])')"
suite_stop_nfvd
suite_finish
