# SPDX-License-Identifier: BSD-3-Clause
"""
Interfaces with features on the IP arcs, on the fused path.

ip4_fast / ip6_fast hand a burst that passed their input checks but came in
by an interface with an ingress feature straight to that feature (their own
entry of the ingress arc): ip4_input / ip6_input do not run again. The
lookup nodes, and the fused nodes when nothing is on the ingress side, hand
what they forward to an interface with an egress feature to that feature,
rewritten (their own entry of the egress arc): the rewrite nodes do not
run. Each case runs on the fused path and under "debug fastpath off" (the
chain from ip4_input / ip6_input), and both must send exactly the packets
expected, in order, and name the same drops.

    p0 (rx; ACL "ain" in) [nfvd] p1 (ACL "aout" out) -- GW1
                                 p2 (no feature)     -- GW2
"""
import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import nfvdlib
from topo import routed4, routed6

BURST = 32
H0 = "02:00:00:00:00:0a"
GW1, GW2 = "02:00:00:00:01:01", "02:00:00:00:02:01"
DENIED_OUT = {4: "198.18.1.66", 6: "2001:db8:1::66"}  # aout denies these


def router(nfvd, rx, acl_in=True, acl_out=True):
    n = nfvd()
    n.add_port("p0", rx=rx)
    n.add_port("p1")
    n.add_port("p2")
    n.cmd("neigh set resolve off",
          "addr add 10.0.0.1/24 dev p0", "addr add 10.1.0.1/24 dev p1",
          "addr add 10.2.0.1/24 dev p2", "addr add 2001:db8:a::1/64 dev p0",
          "addr add 2001:db8:f1::1/64 dev p1", "addr add 2001:db8:f2::1/64 dev p2",
          "neigh add 10.1.0.2 lladdr %s dev p1" % GW1,
          "neigh add 10.2.0.2 lladdr %s dev p2" % GW2,
          "neigh add 2001:db8:f1::2 lladdr %s dev p1" % GW1,
          "neigh add 2001:db8:f2::2 lladdr %s dev p2" % GW2,
          "route add 198.18.1.0/24 via 10.1.0.2", "route add 198.18.2.0/24 via 10.2.0.2",
          "route add 2001:db8:1::/48 via 2001:db8:f1::2",
          "route add 2001:db8:2::/48 via 2001:db8:f2::2",
          # No neighbor for these: unresolved.
          "route add 198.18.9.0/24 via 10.1.0.9", "route add 2001:db8:9::/48 via 2001:db8:f1::9")
    if acl_in:
        n.cmd("acl add ain", "acl rule add ain prio 1 proto udp dport 7 action deny",
              "acl rule add ain prio 2 action permit", "acl attach ain dev p0 in")
    if acl_out:
        n.cmd("acl add aout",
              "acl rule add aout prio 1 dst %s/32 action deny" % DENIED_OUT[4],
              "acl rule add aout prio 2 dst %s/128 action deny" % DENIED_OUT[6],
              "acl rule add aout prio 3 action permit", "acl attach aout dev p1 out")
    return n


def frame(i, fam, out, host=None, dport=9, ttl=64, dst=None):
    """A UDP frame to p0's MAC, numbered i, to port out (1 or 2)."""
    host = 1 + i % 250 if host is None else host
    if fam == 4:
        l3 = IP(src="10.0.0.%d" % (2 + i % 200), dst=dst or "198.18.%d.%d" % (out, host), ttl=ttl)
    else:
        l3 = IPv6(src="2001:db8:a::%x" % (2 + i), dst=dst or "2001:db8:%d::%x" % (out, host),
                  hlim=ttl)
    return Ether(dst=nfvdlib.pcap_mac(0), src=H0) / l3 / UDP(sport=1000 + i, dport=dport) / Raw(
        b"%06d" % i)


def traffic(fam, n_frames, acl_in=True):
    """Frames to p1 and p2 in turn; every 7th to UDP port 7 (ain denies it),
    every 5th to p1 to the address aout denies. Returns (frames, the number
    ain denies, the number aout denies: those ain lets through)."""
    frames, d_in, d_out = [], 0, 0
    for i in range(n_frames):
        out = 1 + i % 2
        dport = 7 if i % 7 == 3 else 9
        to_denied = out == 1 and i % 5 == 1
        dst = DENIED_OUT[fam] if to_denied else None
        frames.append(frame(i, fam, out, dport=dport, dst=dst))
        if acl_in and dport == 7:
            d_in += 1
        elif to_denied:
            d_out += 1
    return frames, d_in, d_out


def expected(frames, fam, port, acl_in=True, acl_out=True):
    gw = {1: GW1, 2: GW2}[port]
    want = []
    for f in frames:
        l3 = f[IP] if fam == 4 else f[IPv6]
        if not l3.dst.startswith("198.18.%d." % port if fam == 4 else "2001:db8:%d::" % port):
            continue
        if acl_in and f[UDP].dport == 7:
            continue
        if acl_out and l3.dst == DENIED_OUT[fam]:
            continue
        want.append(bytes(routed4(f, gw, nfvdlib.pcap_mac(port)) if fam == 4 else
                         routed6(f, gw, nfvdlib.pcap_mac(port))))
    return want


def nodes(n):
    """show graph: node name -> packets."""
    out = {}
    for x in n.ctl("show graph")["nodes"]:
        out[x["node"]] = out.get(x["node"], 0) + x["packets"]
    return out


@pytest.mark.parametrize("fam,path", [(4, "fast"), (4, "chain"), (4, "reroute"),
                                      (6, "fast"), (6, "chain"), (6, "reroute")])
def test_ingress_and_egress_features(nfvd, fam, path):
    """ACLs in on p0 and out on p1: every packet through acl_in, the lookup
    and (to p1) acl_out, none through the input node (fast) nor the
    rewrite node (either path). An ACL keeps the route: on the fused path
    packets are forwarded before acl_in and the lookup sends them on by
    their output port. "reroute": the lookup routes each of them again, as
    after a feature change on the way, through the rewrite node, its TTL or
    hop limit restored first: the same packets leave."""
    n_frames = 8 * BURST
    frames, d_in, d_out = traffic(fam, n_frames)
    n = router(nfvd, frames)
    if path == "chain":
        n.cmd("debug fastpath off")
    if path == "reroute":
        n.cmd("debug reroute on")
    n.start()
    st = n.wait_processed({"p0": n_frames})
    assert nfvdlib.drops(st) == {"acl/denied": d_in + d_out}, nfvdlib.drops(st)
    assert st["packets"]["forwarded"] == n_frames - d_in - d_out
    g = nodes(n)
    x = "ip%d" % fam
    to_p1 = sum(1 for i in range(n_frames) if i % 2 == 0 and i % 7 != 3)
    if path != "chain":
        assert g["%s_fast" % x] == n_frames, g
        assert g.get("%s_input" % x, 0) == 0, g
    else:
        assert g.get("%s_fast" % x, 0) == 0, g
        assert g["%s_input" % x] == n_frames, g
    assert g["acl_in%d" % fam] == n_frames, g
    assert g["%s_lookup" % x] == n_frames - d_in, g
    rerouted = n_frames - d_in if path == "reroute" else 0
    assert g.get("%s_rewrite" % x, 0) == rerouted, g
    assert st[x]["routed_again"] == rerouted, st[x]
    assert st["ip%d" % (10 - fam)]["routed_again"] == 0
    assert g["acl_out%d" % fam] == to_p1, g
    out = n.stop()
    for port in (1, 2):
        assert out["p%d" % port] == expected(frames, fam, port), port


@pytest.mark.parametrize("path", ["fast", "chain"])
@pytest.mark.parametrize("fam", [4, 6])
def test_egress_feature_only(nfvd, fam, path):
    """An ACL out on p1 alone: the fused node forwards everything, handing
    p1's share to acl_out rewritten; nothing takes the chain."""
    n_frames = 6 * BURST
    frames, _d_in, d_out = traffic(fam, n_frames, acl_in=False)
    n = router(nfvd, frames, acl_in=False)
    if path == "chain":
        n.cmd("debug fastpath off")
    n.start()
    st = n.wait_processed({"p0": n_frames})
    assert nfvdlib.drops(st) == {"acl/denied": d_out}, nfvdlib.drops(st)
    g = nodes(n)
    x = "ip%d" % fam
    if path == "fast":
        assert g["%s_fast" % x] == n_frames, g
        for node in ("input", "lookup", "rewrite"):
            assert g.get("%s_%s" % (x, node), 0) == 0, g
    else:
        assert g["%s_input" % x] == g["%s_lookup" % x] == n_frames, g
        assert g.get("%s_rewrite" % x, 0) == 0, g
    assert g["acl_out%d" % fam] == n_frames // 2, g
    out = n.stop()
    for port in (1, 2):
        assert out["p%d" % port] == expected(frames, fam, port, acl_in=False), port


@pytest.mark.parametrize("path", ["fast", "chain"])
@pytest.mark.parametrize("fam", [4, 6])
def test_what_the_features_path_leaves_to_the_chain(nfvd, fam, path):
    """With ACLs in and out: in one burst, TTL / hop limit 1, no route, an
    unresolved next hop and a denied packet beside good ones; in another,
    a bad IPv4 header checksum (or an IPv6 payload length beyond the frame)
    that sends that burst to the input node. Each drop is named as the
    chain names it, the ICMP errors go back out of p0, the good packets
    leave in order."""
    x = "ip%d" % fam
    net9 = "198.18.9.1" if fam == 4 else "2001:db8:9::1"
    net7 = "198.18.7.1" if fam == 4 else "2001:db8:7::1"
    first = [frame(0, fam, 1, ttl=1), frame(1, fam, 1, dst=net7), frame(2, fam, 1, dst=net9),
             frame(3, fam, 2, dport=7), frame(4, fam, 1), frame(5, fam, 2)]
    first += [frame(i, fam, 1 + i % 2) for i in range(6, BURST)]
    second = [frame(i, fam, 1 + i % 2) for i in range(BURST, 2 * BURST)]
    bad = second[5]
    if fam == 4:
        bad[IP].chksum = 0x1234
    else:
        bad[IPv6].plen = 200
    frames = first + second
    n = router(nfvd, frames)
    for i in range(len(frames)):     # the way back for the ICMP errors
        n.cmd("neigh add 10.0.0.%d lladdr %s dev p0" % (2 + i % 200, H0),
              "neigh add 2001:db8:a::%x lladdr %s dev p0" % (2 + i, H0))
    if path == "chain":
        n.cmd("debug fastpath off")
    n.start()
    st = n.wait_processed({"p0": len(frames)})
    if fam == 4:
        want = {"ip4_rewrite/ttl_expired": 1, "ip4_lookup/no_route": 1,
                "ip4_rewrite/neigh_unresolved": 1, "ip4_input/bad_checksum": 1,
                "acl/denied": 1}
    else:
        want = {"ip6_rewrite/hop_limit_expired": 1, "ip6_lookup/no_route": 1,
                "ip6_rewrite/neigh_unresolved": 1, "ip6_input/bad_payload_length": 1,
                "acl/denied": 1}
    assert nfvdlib.drops(st) == want, nfvdlib.drops(st)
    g = nodes(n)
    if path == "fast":
        # The first burst passed the input checks: handed to acl_in from
        # the fused node; the second went to the input node whole.
        assert g["%s_fast" % x] == 2 * BURST and g["%s_input" % x] == BURST, g
    else:
        assert g["%s_input" % x] == 2 * BURST, g
    # The rewrite node sees only what it must decide: TTL 1, the
    # unresolved next hop and the two ICMP errors nfvd built.
    assert g["%s_rewrite" % x] == 4, g
    out = n.stop()
    good = [f for f in frames[4:] if f is not bad]
    for port in (1, 2):
        assert out["p%d" % port] == expected(good, fam, port), port
    assert len(out["p0"]) == 2    # time exceeded, unreachable


@pytest.mark.parametrize("fam,reroute", [(4, False), (4, True), (6, False), (6, True)])
def test_features_change_under_routed_traffic(nfvd, fam, reroute):
    """An ACL in on p0 keeps the route: ip4_fast forwards p0's packets
    before it (rewritten, output port chosen) and ip4_lookup sends them on
    by that port, without a second lookup. While a long stream runs (each
    burst held back, so that it lasts), a feature that may change the route
    (NAT44's on p0, for a DNAT rule on a port the traffic does not use) and
    one that keeps it (a policer no packet exceeds) go on and off p0 again
    and again: a packet routed before such a change and looked at again at
    the arc's end is routed once more, its TTL as it came. Every packet
    leaves exactly as routed once, in order; nothing is dropped but what
    the ACL denies; every mbuf comes back. With "debug reroute on", every
    packet forwarded before the ACL (none while NAT44 is on p0) is routed
    again at the arc's end. IPv6: the policer alone goes on and off (every
    IPv6 ingress feature keeps the route)."""
    reps = 40
    base, d_in, _ = traffic(fam, 4 * BURST, acl_in=True)
    frames = base * reps
    n = router(nfvd, frames, acl_in=True, acl_out=False)
    n.cmd("policer add big cir 10G cbs 10000000", "debug rx-delay-us 300")
    if reroute:
        n.cmd("debug reroute on")
    n.start()
    lines = []
    for k in range(30):
        if fam == 4:
            lines += ["nat44 dnat add dev p0 proto tcp dport 8080 to 10.1.0.5:80",
                      "policer attach big dev p0 in",
                      "nat44 dnat del dev p0 proto tcp dport 8080",
                      "policer detach big dev p0 in"]
        else:
            lines += ["policer attach big dev p0 in", "policer detach big dev p0 in"]
    n.ctl_batch(lines)
    st = n.wait_processed({"p0": len(frames)}, timeout=120)
    assert nfvdlib.drops(st) == {"acl/denied": d_in * reps}, nfvdlib.drops(st)
    assert st["packets"]["forwarded"] == len(frames) - d_in * reps
    x = "ip%d" % fam
    if reroute and fam == 4:
        # Those forwarded before the ACL: not while NAT44 was on p0.
        assert 0 < st[x]["routed_again"] <= len(frames) - d_in * reps, st[x]
    elif reroute:
        assert st[x]["routed_again"] == len(frames) - d_in * reps, st[x]
    elif fam == 6:
        # No IPv6 ingress feature changes the route: no gen moves.
        assert st[x]["routed_again"] == 0, st[x]
    out = n.stop()
    for port in (1, 2):
        assert out["p%d" % port] == expected(frames, fam, port, acl_out=False), port
