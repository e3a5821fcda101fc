#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Path-MTU discovery through the load balancer, with real Linux peers:
# nfvd's own "fragmentation needed" about a client's segment that lb_in
# gave a backend must quote the segment as the client sent it (to the
# VIP), or the client's TCP cannot find its connection and the transfer
# stalls.
#
#   nfvli-c (client,  eth0 10.206.1.2/24) -- veth nfvli-v1 == nfvd p1 10.206.1.1
#   nfvli-b (backend, eth0 10.206.2.2/24) -- veth nfvli-v2 == nfvd p2 10.206.2.1, mtu 1400
#
# VIP 10.206.9.100, TCP port 80 to the backend's port 8080, whose server
# answers with the number of bytes it got. The backend advertises an MSS
# for 1500 bytes, so the client's first full segments are too big for p2:
# nfvd answers each with fragmentation needed (mtu 1400), lb_own_icmp_error
# puts the VIP back in its quote, and the client's kernel lowers the path
# MTU to the VIP and sends smaller segments.
#
# Run from the repository root as root:  NFVD_BUILD=build bash tests/smoke/suites/lb_icmp.sh
set -uo pipefail
. tests/smoke/lib.sh
suite_init lb_icmp nfvli
C=nfvli-c
B=nfvli-b
VIP=10.206.9.100

suite_need socat ethtool
if suite_host "$C" nfvli-v1 10.206.1.2/24 10.206.1.1 &&
	suite_host "$B" nfvli-v2 10.206.2.2/24 10.206.2.1; then
	pass "topology: $C - nfvd - $B"
else
	fail "topology setup failed"
	suite_finish
fi

cat >"$WORK/startup.conf" <<EOF
port add p1 dev net_af_packet0,iface=nfvli-v1
port add p2 dev net_af_packet1,iface=nfvli-v2 mtu 1400
addr add 10.206.1.1/24 dev p1
addr add 10.206.2.1/24 dev p2
lb service add $VIP:80 proto tcp
lb backend add $VIP:80 proto tcp 10.206.2.2:8080
EOF
suite_start_nfvd
pass "nfvd up: $VIP:80/tcp -> $B:8080, p2's MTU 1400"

ip netns exec "$B" timeout 60 socat TCP-LISTEN:8080,reuseaddr,fork SYSTEM:'wc -c' &
BG+=($!)
sleep 0.5
out=$(ip -n "$C" route get "$VIP" 2>&1)
grep -q " mtu " <<<"$out" && fail "$C's route to the VIP has an MTU before the transfer: $out"

# 200,000 bytes to the VIP; the server's count comes back once they are in.
reply=$(head -c 200000 /dev/zero | ip netns exec "$C" timeout 15 socat -t 10 - "TCP:$VIP:80" 2>&1)
[ "$reply" = "200000" ] && pass "200000 bytes $C -> $VIP:80 -> $B:8080 through MTU 1400" ||
	fail "transfer to the VIP: '$reply' (want '200000')"
out=$(ip -n "$C" route get "$VIP" 2>&1)
if grep -q " mtu 1400" <<<"$out"; then
	pass "$C caches the path MTU to the VIP: $(paste -sd ' ' - <<<"$out" | tr -s ' ')"
else
	fail "$C's route to the VIP has no 'mtu 1400': $out"
fi

# Every fragmentation needed nfvd sent about the client's segments was
# put back (icmp_error_rev: one each), none went unmatched.
fn=$(drop_count ip4_rewrite/frag_needed)
v=$(ctl --json lb show | json '"%d %d %d" % (d["icmp_error_rev"], d["icmp_error_fwd"], d["icmp_error_no_session"])')
if [ "$fn" -gt 0 ] && [ "$v" = "$fn 0 0" ]; then
	pass "nfvd's $fn fragmentation needed about the client's segments all quote the VIP (lb icmp_error_rev $fn)"
else
	fail "frag_needed drops $fn; lb icmp_error_rev, _fwd, _no_session: $v"
fi

suite_stop_nfvd
suite_finish
