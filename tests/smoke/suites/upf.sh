#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The UPF between a gNB and a data network with real peers:
#
#   up-gnb: eth0 10.215.1.2/24 -- veth up-v1 == nfvd p1 10.215.1.1 (N3)
#           n4   10.215.4.2/24 -- veth up-n4 (kernel, root namespace) 10.215.4.1 (N4)
#   up-dn:  eth0 10.215.2.2/24, default via 10.215.2.1 -- veth up-v2 == nfvd p2 10.215.2.1 (N6)
#   UE 10.60.0.2: behind the gNB; nfvd has no route to it, its session attracts
#   its traffic.
#
# The gNB namespace plays gNB and SMF (tests/smoke/upf_peer.py, scapy's
# contrib.pfcp and contrib.gtp over UDP sockets): PFCP association, session
# establishment (the UPF chooses the uplink TEID, the downlink FAR
# buffers), modification (the gNB's F-TEID), G-PDUs carrying the UE's
# pings and UDP to the DN, whose Linux kernel and socat answer: each answer
# comes back as a G-PDU from N3 to the gNB with the FAR's TEID, its inner
# packet checked byte for byte; a second modification changes the TEID;
# deletion, after which uplink and downlink are dropped under their names.
# nfvd resolves the gNB and the DN by ARP. PORT_DRIVER=af_xdp runs nfvd's
# ports on net_af_xdp instead of net_af_packet.
#
# Run from the repository root as root:  NFVD_BUILD=build bash tests/smoke/suites/upf.sh
set -uo pipefail
. tests/smoke/lib.sh
suite_init upf up
GNB=up-gnb
DN=up-dn
DRV=${PORT_DRIVER:-af_packet}

suite_need socat ping ethtool ip
# N4 is a kernel veth between the gNB's namespace and nfvd's (the root one).
ip link del up-n4 2>/dev/null
if suite_host "$GNB" up-v1 10.215.1.2/24 && suite_host "$DN" up-v2 10.215.2.2/24 10.215.2.1 &&
	ip link add up-n4 type veth peer name n4 netns "$GNB" && S_LINKS+=(up-n4) &&
	ip addr add 10.215.4.1/24 dev up-n4 && ip link set up-n4 up &&
	ip -n "$GNB" addr add 10.215.4.2/24 dev n4 && ip -n "$GNB" link set n4 up; then
	pass "topology: $GNB (gNB + SMF) - nfvd (N3 p1, N6 p2, N4 10.215.4.1) - $DN"
else
	fail "topology setup failed"
	suite_finish
fi

cat >"$WORK/startup.conf" <<EOF
port add p1 dev net_${DRV}0,iface=up-v1
port add p2 dev net_${DRV}1,iface=up-v2
addr add 10.215.1.1/24 dev p1
addr add 10.215.2.1/24 dev p2
upf set n3 10.215.1.1 dev p1
upf pfcp listen 10.215.4.1 node-id upf.up.test
EOF
suite_start_nfvd
pass "nfvd up: N3 10.215.1.1 on p1 ($DRV), N4 10.215.4.1:8805"

# The DN's UDP service: answers each datagram with what it got and from whom.
ip netns exec "$DN" timeout 60 socat UDP4-RECVFROM:7777,fork \
	SYSTEM:"read l; echo dn got \$l from \$SOCAT_PEERADDR port \$SOCAT_PEERPORT" &
BG+=($!)
sleep 0.3

ip netns exec "$GNB" timeout 60 "$PY" tests/smoke/upf_peer.py 10.215.4.1 10.215.1.1 10.215.1.2 \
	10.60.0.2 10.215.2.2 "$DN" "$NFVCTL" "$SOCK" >"$WORK/peer.out" 2>"$WORK/peer.err"
rc=$?
while IFS= read -r line; do
	case "$line" in
	"PASS "*) pass "${line#PASS }" ;;
	"FAIL "*) fail "${line#FAIL }" ;;
	*) info "${line#INFO }" ;;
	esac
done <"$WORK/peer.out"
[ "$rc" = 0 ] || fail "upf_peer.py exited $rc: $(tail -n 5 "$WORK/peer.err" | paste -sd ' ' -)"

d=$(ctl --json show drops | json '" ".join("%s/%s=%d" % (x["node"], x["reason"], x["packets"]) for x in d["drops"] if x["node"].startswith("upf"))')
want="upf_downlink/far_buffer=1 upf_gtpu/no_pdr=1"
[ "$(tr ' ' '\n' <<<"$d" | sort | paste -sd ' ' -)" = "$want" ] &&
	pass "UPF drops are the two the test caused: $want" || fail "UPF drops: '$d' (want '$want')"
info "drops: $(ctl --json show drops | json '" ".join("%s/%s=%d" % (x["node"], x["reason"], x["packets"]) for x in d["drops"])')"
suite_stop_nfvd
suite_finish
