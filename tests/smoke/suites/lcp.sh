#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# lcp smoke suite: kernel twins, netlink route sync under a burst, FRR.
#
#   nfvlcp-peer (eth0 10.211.1.2/24, FRR bgpd AS 65002, lo 172.20.5.1)
#        |  veth nfvlcp-v1
#   nfvd p1 10.211.1.1/24  ---- twin nfvlcp-tw1 in nfvlcp-rtr (FRR zebra+bgpd AS 65001)
#   nfvd p2 10.211.2.1/24
#        |  veth nfvlcp-v2
#   nfvlcp-h2 (eth0 10.211.2.2/24)
#
# 1. Netlink resync: 100,000 routes added on the twin in one burst
#    (ip -batch), then deleted; nfvd runs with a small netlink buffer
#    (--lcp-netlink-rcvbuf) so events are lost (ENOBUFS) and it must
#    resynchronise; at the end of each phase nfvd's kernel routes are
#    exactly the kernel's.
# 2. FRR: the peer announces 1,000 prefixes over BGP to FRR on nfvd's twin
#    (the session itself runs over the twin: ARP and TCP/179 punted, the
#    kernel's answers crossed to p1); they appear in nfvd's table as source
#    kernel proto bgp, h2's traffic to one of them is forwarded by nfvd
#    (p1's TX counter), and once the peer shuts the session they leave.
# 3. OSPF: an adjacency over the twin (hellos to 224.0.0.5 punted from
#    ip4_input's multicast drop), the peer's loopback learned as proto ospf.
# 4. A VLAN sub-interface's twin: a second BGP session over VLAN 100 (the
#    peer's VLAN from vlan_trunk.py), the prefixes through p1.100.
#
# Without nfvd's own ARP/ND (the arp_nd module), nfvd's neighbors and h2's
# are static; with it, none is. The peer and FRR resolve each other through
# the twin either way.
# Run from the repository root:  NFVD_BUILD=build bash tests/smoke/suites/lcp.sh
set -uo pipefail
. tests/smoke/lib.sh
suite_init lcp nfvlcp
FRR=/usr/lib/frr
N_ROUTES=${NFVLCP_ROUTES:-100000}
N_BGP=${NFVLCP_BGP_PREFIXES:-1000}

PEER=nfvlcp-peer
RTR=nfvlcp-rtr
H2=nfvlcp-h2
V1=nfvlcp-v1
V2=nfvlcp-v2
TW=nfvlcp-tw1
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

frr_stop() {
	local ns=$1
	for d in ospfd bgpd zebra; do
		local pf=$WORK/frr-$ns/$d.pid
		[ -f "$pf" ] && kill "$(cat "$pf")" 2>/dev/null
	done
}

suite_on_cleanup() {
	frr_stop "$PEER"
	frr_stop "$RTR"
}

# ---- topology ------------------------------------------------------------------------
suite_netns $RTR &&
	suite_host $PEER $V1 10.211.1.2/24 &&
	suite_host $H2 $V2 10.211.2.2/24 10.211.2.1 || { fail "topology setup failed"; suite_finish; }
ip -n $PEER addr add 172.20.5.1/32 dev lo
ip -n $PEER addr add 172.21.0.1/32 dev lo
ip -n $PEER route add 10.211.2.0/24 via 10.211.1.1
MAC_PEER=$(ip -n $PEER -br link show eth0 | awk '{print $3}')
MAC_H2=$(ip -n $H2 -br link show eth0 | awk '{print $3}')
MAC_P2=$(cat /sys/class/net/$V2/address)

cat >"$WORK/startup.conf" <<EOF
port add p1 dev net_af_packet0,iface=$V1
port add p2 dev net_af_packet1,iface=$V2
addr add 10.211.1.1/24 dev p1
addr add 10.211.2.1/24 dev p2
lcp add dev p1 host-if $TW netns $RTR
EOF
EAL=(-l 0,1 --no-huge -m 2048 --no-shconf --no-pci)
suite_start_nfvd --max-routes4 262144 --lcp-netlink-rcvbuf 65536
# Static neighbors only while nfvd has no ARP/ND of its own (arp_nd).
if ctl --json show graph | grep -q '"arp_input"'; then
	echo "lcp: nfvd resolves its neighbors itself: no static neighbor"
else
	ctl neigh add 10.211.1.2 lladdr "$MAC_PEER" dev p1 >/dev/null
	ctl neigh add 10.211.2.2 lladdr "$MAC_H2" dev p2 >/dev/null
	ip -n $H2 neigh add 10.211.2.1 lladdr "$MAC_P2" dev eth0
fi
if ip -n $RTR -br addr show $TW | grep -q 10.211.1.1/24; then
	pass "twin $TW in $RTR has nfvd's address"
else
	fail "twin $TW: $(ip -n $RTR -br addr show $TW 2>&1)"
fi

# nfvd's kernel routes (prefixes, sorted) and the kernel's on the twin
# within 100.64.0.0/10, host routes written with /32.
nfvd_kernel_routes() {
	ctl --json route show | $PY -c '
import json, sys
for r in json.load(sys.stdin)["routes"]:
    if r["source"] == "kernel" and r["prefix"].startswith("100."):
        print(r["prefix"])' | sort
}
kernel_routes() {
	ip -n $RTR -4 route show dev $TW | awk '$1 ~ /^100\./ {p=$1; if (p !~ /\//) p=p"/32"; print p}' | sort
}
stat_of() { # netlink counter
	ctl --json show stats | $PY -c "import json,sys; print(json.load(sys.stdin)['lcp']['netlink']['$1'])"
}
kernel_count() { # nfvd's kernel routes now
	ctl --json show stats | $PY -c "import json,sys; print(json.load(sys.stdin)['lcp']['netlink']['routes'])"
}
wait_equal() { # phase-name expected-count baseline
	local i n t0 t1
	t0=$(date +%s.%N)
	for i in $(seq 1200); do
		n=$(kernel_count)
		[ "$n" -eq $(($2 + $3)) ] && break
		sleep 0.1
	done
	sleep 0.3 # a resync may still be due: it must change nothing
	t1=$(date +%s.%N)
	if diff <(nfvd_kernel_routes) <(kernel_routes) >"$WORK/diff-$1" && \
		[ "$(kernel_routes | wc -l)" -eq "$2" ]; then
		pass "$1: nfvd's kernel routes equal the kernel's ($2), $(elapsed "$t0" "$t1") s after ip -batch returned"
	else
		fail "$1: nfvd's kernel routes differ from the kernel's ($(wc -l <"$WORK/diff-$1") diff lines)"
	fi
}

# ---- 1. 100k routes in one burst, then deleted ----------------------------------------------
$PY - "$N_ROUTES" "$TW" >"$WORK/add.batch" <<'EOF'
import sys
n, dev = int(sys.argv[1]), sys.argv[2]
for i in range(n):
    print("route add 100.%d.%d.%d/32 via 10.211.1.2 dev %s proto static" %
          (64 + (i >> 16), (i >> 8) & 255, i & 255, dev))
EOF
sed 's/^route add/route del/' "$WORK/add.batch" >"$WORK/del.batch"
ov0=$(stat_of overruns)
rs0=$(stat_of resyncs)
base=$(kernel_count)
t0=$(date +%s.%N)
ip -n $RTR -batch "$WORK/add.batch"
t1=$(date +%s.%N)
echo "lcp: ip -batch added $N_ROUTES routes in $(elapsed "$t0" "$t1") s"
wait_equal "burst add" "$N_ROUTES" "$base"
ip -n $RTR -batch "$WORK/del.batch"
wait_equal "burst delete" 0 "$base"
ov=$(stat_of overruns)
rs=$(stat_of resyncs)
if [ "$ov" -gt "$ov0" ] && [ "$rs" -gt "$rs0" ]; then
	pass "events were lost (ENOBUFS $((ov - ov0)) times) and repaired by $((rs - rs0)) resyncs"
else
	fail "the resync path was not exercised (overruns $ov0 -> $ov, resyncs $rs0 -> $rs)"
fi

# ---- 2. FRR: BGP over the twin ------------------------------------------------------------
if [ -n "${NFVLCP_SKIP_FRR:-}" ]; then
	echo "lcp: FRR part skipped (NFVLCP_SKIP_FRR)"
elif ! [ -x $FRR/bgpd ] || ! [ -x $FRR/zebra ]; then
	fail "FRR is not installed (Debian package frr)"
else
	frr_start() { # ns as router-id neighbor neighbor-as [networks]
		local ns=$1 dir=$WORK/frr-$1
		mkdir -p "$dir"
		{
			echo "frr defaults traditional"
			echo "hostname $ns"
			echo "log file $dir/frr.log"
			echo "router bgp $2"
			echo " bgp router-id $3"
			echo " no bgp ebgp-requires-policy"
			echo " no bgp network import-check"
			echo " neighbor $4 remote-as $5"
			echo " neighbor $4 timers 3 10"
			echo " neighbor $4 timers connect 1"
			echo " neighbor $4 advertisement-interval 0"
			if [ "${6:-0}" -gt 0 ]; then
				echo " address-family ipv4 unicast"
				$PY -c "
for i in range($6):
    print('  network 172.%d.%d.0/24' % (20 + i // 256, i % 256))"
				echo " exit-address-family"
			fi
		} >"$dir/bgpd.conf"
		echo "hostname $ns" >"$dir/zebra.conf"
		chown -R frr:frr "$dir" 2>/dev/null
		chmod 755 "$WORK" "$dir"
		ip netns exec "$ns" $FRR/zebra -d -N "$ns" -f "$dir/zebra.conf" -i "$dir/zebra.pid" \
			-z "$dir/zserv.api" --vty_socket "$dir" >"$dir/zebra.out" 2>&1
		ip netns exec "$ns" $FRR/bgpd -d -N "$ns" -f "$dir/bgpd.conf" -i "$dir/bgpd.pid" \
			-z "$dir/zserv.api" --vty_socket "$dir" >"$dir/bgpd.out" 2>&1
	}
	vty() { local ns=$1; shift; vtysh --vty_socket "$WORK/frr-$ns" "$@" 2>&1; }
	bgp_count() {
		ctl --json route show | $PY -c '
import json, sys
print(sum(1 for r in json.load(sys.stdin)["routes"]
          if r["source"] == "kernel" and r.get("proto") == "bgp"))'
	}
	frr_start $RTR 65001 10.211.1.1 10.211.1.2 65002
	frr_start $PEER 65002 10.211.1.2 10.211.1.1 65001 "$N_BGP"
	t0=$(date +%s)
	n=0
	for _ in $(seq 600); do
		n=$(bgp_count)
		[ "$n" -ge "$N_BGP" ] && break
		sleep 0.1
	done
	t1=$(date +%s)
	if [ "$n" -eq "$N_BGP" ]; then
		pass "$N_BGP BGP prefixes in nfvd's table as source kernel proto bgp ($((t1 - t0)) s after FRR started)"
	else
		fail "$n of $N_BGP BGP prefixes in nfvd's table"
		vty $RTR -c "show bgp summary" | tail -5
	fi
	r=$(ctl --json route show 172.20.5.0/24 | $PY -c '
import json, sys
r = json.load(sys.stdin)["routes"][0]
print(r["source"], r.get("proto"), r["via"], r["dev"])')
	if [ "$r" = "kernel bgp 10.211.1.2 p1" ]; then
		pass "route show 172.20.5.0/24: $r"
	else
		fail "route show 172.20.5.0/24: $r"
	fi
	p1_tx() { ctl --json port show p1 | $PY -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["tx_packets"])'; }
	tx0=$(p1_tx)
	if ip netns exec $H2 ping -c 20 -i 0.01 -W 1 -q 172.20.5.1 >"$WORK/ping.out" 2>&1; then
		tx1=$(p1_tx)
		if [ $((tx1 - tx0)) -ge 20 ]; then
			pass "h2 -> 172.20.5.1 (BGP route) forwarded by nfvd: p1 sent $((tx1 - tx0)) packets"
		else
			fail "ping answered but p1 sent only $((tx1 - tx0)) packets"
		fi
	else
		fail "h2 cannot reach 172.20.5.1 over the BGP route: $(tail -2 "$WORK/ping.out")"
	fi
	st=$(ctl --json show stats | $PY -c '
import json, sys
l = json.load(sys.stdin)["lcp"]
print(l["punted_by_reason"]["ip4_local/unsupported_protocol"], l["punted_by_reason"]["lcp_copy/arp"], l["from_twin"])')
	read -r punted_tcp punted_arp from_twin <<<"$st"
	if [ "$punted_tcp" -gt 0 ] && [ "$punted_arp" -gt 0 ] && [ "$from_twin" -gt 0 ]; then
		pass "BGP ran over the twin: punted TCP $punted_tcp, ARP $punted_arp; from the twin $from_twin"
	else
		fail "punt counters: TCP $punted_tcp ARP $punted_arp from twin $from_twin"
	fi
	# Withdrawn: the peer shuts the session.
	vty $PEER -c "configure terminal" -c "router bgp 65002" -c "neighbor 10.211.1.1 shutdown" >/dev/null
	t0=$(date +%s.%N)
	for _ in $(seq 300); do
		n=$(bgp_count)
		[ "$n" -eq 0 ] && break
		sleep 0.1
	done
	t1=$(date +%s.%N)
	if [ "$n" -eq 0 ]; then
		pass "withdrawn: the BGP prefixes left nfvd's table in $(elapsed "$t0" "$t1") s"
	else
		fail "withdrawn: $n BGP prefixes still in nfvd's table"
	fi
fi

# ---- 3. OSPF over the twin ----------------------------------------------------------------
if [ -z "${NFVLCP_SKIP_FRR:-}" ] && [ -x $FRR/ospfd ]; then
	ospf_start() { # ns router-id interface
		local ns=$1 dir=$WORK/frr-$1
		cat >"$dir/ospfd.conf" <<-EOF
			hostname $ns
			log file $dir/frr.log
			interface $3
			 ip ospf hello-interval 1
			 ip ospf dead-interval 4
			router ospf
			 ospf router-id $2
			 network 10.211.1.0/24 area 0
			 network 172.21.0.1/32 area 0
		EOF
		chown frr:frr "$dir/ospfd.conf" 2>/dev/null
		ip netns exec "$ns" $FRR/ospfd -d -N "$ns" -f "$dir/ospfd.conf" -i "$dir/ospfd.pid" \
			-z "$dir/zserv.api" --vty_socket "$dir" >"$dir/ospfd.out" 2>&1
	}
	ospf_start $RTR 10.211.1.1 $TW
	ospf_start $PEER 10.211.1.2 eth0
	r=
	for _ in $(seq 300); do
		r=$(ctl --json route show 172.21.0.1/32 2>/dev/null | $PY -c '
import json, sys
r = json.load(sys.stdin)["routes"][0]
print(r["source"], r.get("proto"), r["via"], r["dev"])' 2>/dev/null)
		[ "$r" = "kernel ospf 10.211.1.2 p1" ] && break
		sleep 0.1
	done
	if [ "$r" = "kernel ospf 10.211.1.2 p1" ]; then
		pass "OSPF adjacency over the twin: 172.21.0.1/32 $r"
	else
		fail "OSPF: route 172.21.0.1/32: '$r'; $(vty $RTR -c 'show ip ospf neighbor' | tail -2)"
	fi
	n=$(ctl --json show stats | $PY -c '
import json, sys
print(json.load(sys.stdin)["lcp"]["punted_by_reason"]["ip4_input/multicast_destination"])')
	if [ "$n" -gt 0 ]; then
		pass "OSPF hellos (224.0.0.5) punted to the twin: $n"
	else
		fail "no multicast punted"
	fi
fi

# ---- 4. BGP over a VLAN sub-interface's twin -------------------------------------------------
# nfvd's p1.100 (VLAN 100 on p1) gets a twin; the peer's VLAN 100 is a veth
# end, eth0.100, whose frames vlan_trunk.py tags onto its eth0 (and untags
# from it): kernels without 802.1Q devices have no "type vlan". FRR on the
# twins opens a second session over the VLAN; the first one is shut by now,
# so the peer's prefixes come back through p1.100.
if [ -z "${NFVLCP_SKIP_FRR:-}" ] && [ -x $FRR/bgpd ] && [ -x $FRR/zebra ]; then
	TWV=nfvlcp-tw1v
	ip -n $PEER link add eth0.100 type veth peer name vt100 &&
		ip netns exec $PEER sysctl -qw net.ipv6.conf.eth0/100.disable_ipv6=1 \
			net.ipv6.conf.vt100.disable_ipv6=1 &&
		ip netns exec $PEER ethtool -K vt100 tx off rx off gso off gro off tso off >/dev/null 2>&1
	ip netns exec $PEER ethtool -K eth0.100 tx off rx off gso off gro off tso off >/dev/null 2>&1
	ip -n $PEER link set vt100 up && ip -n $PEER link set eth0.100 up &&
		ip -n $PEER addr add 10.211.3.2/24 dev eth0.100 || fail "VLAN 100 in $PEER"
	ip netns exec $PEER timeout 300 $PY tests/smoke/vlan_trunk.py eth0 100=vt100 \
		>"$WORK/vlan_trunk.log" 2>&1 &
	BG+=($!)
	for _ in $(seq 50); do
		grep -q '^ready$' "$WORK/vlan_trunk.log" && break
		sleep 0.1
	done
	ctl vlan add p1.100 dev p1 id 100 >/dev/null &&
		ctl addr add 10.211.3.1/24 dev p1.100 >/dev/null &&
		ctl lcp add dev p1.100 host-if $TWV netns $RTR >/dev/null || fail "lcp add dev p1.100"
	if ! ctl --json show graph | grep -q '"arp_input"'; then
		ctl neigh add 10.211.3.2 lladdr "$(ip -n $PEER -br link show eth0.100 | awk '{print $3}')" \
			dev p1.100 >/dev/null
	fi
	if ip -n $RTR -br addr show $TWV | grep -q 10.211.3.1/24 &&
		[ "$(ip -n $RTR -br link show $TWV | awk '{print $3}')" = \
			"$(ctl --json port show p1 | $PY -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["mac"])')" ]; then
		pass "twin $TWV of p1.100 in $RTR has its address and p1's MAC"
	else
		fail "twin $TWV: $(ip -n $RTR -br addr show $TWV 2>&1)"
	fi
	vty $RTR -c "configure terminal" -c "router bgp 65001" \
		-c "neighbor 10.211.3.2 remote-as 65002" -c "neighbor 10.211.3.2 timers 3 10" \
		-c "neighbor 10.211.3.2 timers connect 1" \
		-c "neighbor 10.211.3.2 advertisement-interval 0" >/dev/null
	vty $PEER -c "configure terminal" -c "router bgp 65002" \
		-c "neighbor 10.211.3.1 remote-as 65001" -c "neighbor 10.211.3.1 timers 3 10" \
		-c "neighbor 10.211.3.1 timers connect 1" \
		-c "neighbor 10.211.3.1 advertisement-interval 0" >/dev/null
	want="kernel bgp 10.211.3.2 p1.100"
	t0=$(date +%s)
	for _ in $(seq 300); do
		r=$(ctl --json route show 172.20.5.0/24 2>/dev/null | $PY -c '
import json, sys
r = json.load(sys.stdin)["routes"][0]
print(r["source"], r.get("proto"), r["via"], r["dev"])' 2>/dev/null)
		[ "$r" = "$want" ] && [ "$(bgp_count)" -eq "$N_BGP" ] && break
		sleep 0.1
	done
	t1=$(date +%s)
	if [ "$r" = "$want" ] && [ "$(bgp_count)" -eq "$N_BGP" ]; then
		pass "BGP over the VLAN twin: $N_BGP prefixes, 172.20.5.0/24 $r ($((t1 - t0)) s)"
	else
		fail "BGP over the VLAN twin: 172.20.5.0/24 '$r', $(bgp_count) prefixes; $(vty $RTR -c 'show bgp summary' | tail -3)"
	fi
	vlan_tx() { ctl --json port show p1.100 | $PY -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["tx_packets"])'; }
	tx0=$(vlan_tx)
	if ip netns exec $H2 ping -c 20 -i 0.01 -W 1 -q 172.20.5.1 >"$WORK/ping-vlan.out" 2>&1; then
		tx1=$(vlan_tx)
		if [ $((tx1 - tx0)) -ge 20 ]; then
			pass "h2 -> 172.20.5.1 forwarded out of p1.100: $((tx1 - tx0)) packets"
		else
			fail "ping answered but p1.100 sent only $((tx1 - tx0)) packets"
		fi
	else
		fail "h2 cannot reach 172.20.5.1 through p1.100: $(tail -2 "$WORK/ping-vlan.out")"
	fi
	st=$(ctl --json lcp show dev p1.100 | $PY -c '
import json, sys
r = json.load(sys.stdin)["lcp"][0]
print(r["punted"], r["from_twin"])')
	read -r punted from_twin <<<"$st"
	if [ "$punted" -gt 0 ] && [ "$from_twin" -gt 0 ]; then
		pass "the VLAN session ran over its twin: punted $punted, from the twin $from_twin"
	else
		fail "lcp show dev p1.100: punted $punted, from the twin $from_twin"
	fi
	ctl lcp del dev p1.100 >/dev/null || fail "lcp del dev p1.100"
fi

ctl lcp del dev p1 >/dev/null || fail "lcp del"
suite_stop_nfvd
suite_finish
