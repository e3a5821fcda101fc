# SPDX-License-Identifier: BSD-3-Clause
"""
The fused forwarding nodes (ip4_fast, ip6_fast) against the node chain.

- Bursts that mix IPv4 and IPv6 frames, some of them with link padding, to
  two output ports: eth_input splits each burst between ip4_fast and
  ip6_fast, which trim the padding and forward every frame themselves
  (ip4_input and ip6_input see none), byte for byte what the chain sends
  with "debug fastpath off", still one TX burst per output port and walk;
  show graph counts (and times) the fused nodes.
- One frame that fails the header checks (a bad IPv4 checksum) sends its
  family's share of that burst to the chain, which names the drop; the
  others are forwarded in order.
- TTL / hop limit 1, no route, an unresolved neighbor: the fused nodes hand
  these to the chain, which answers or drops them under the chain's reasons.
- On the chain ("debug fastpath off"), with no egress feature, ip4_lookup
  and ip6_lookup forward and rewrite in one pass: the rewrite nodes see
  only what they must decide (the cases above).
"""
import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Padding, Raw

import nfvdlib
from topo import routed4, routed6

BURST = 32
H0 = "02:00:00:00:00:0a"
GW1, GW2 = "02:00:00:00:01:01", "02:00:00:00:02:01"


def router(nfvd, rx):
    """p0 receives rx; 198.18.1.0/24 and 2001:db8:1::/48 leave by p1,
    198.18.2.0/24 and 2001:db8:2::/48 by p2."""
    n = nfvd()
    n.add_port("p0", rx=rx)
    n.add_port("p1")
    n.add_port("p2")
    # Static neighbors only: a next hop without one drops (no ARP/NS sent).
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
          # No neighbor for this one: unresolved.
          "route add 198.18.9.0/24 via 10.2.0.9", "route add 2001:db8:9::/48 via 2001:db8:f2::9")
    return n


def frame(i, fam, out, padding=0, ttl=64, dst=None):
    """A frame to p0's MAC, numbered i, to port out (1 or 2)."""
    if fam == 4:
        l3 = IP(src="10.0.0.%d" % (2 + i % 200), dst=dst or "198.18.%d.%d" % (out, 1 + i % 250),
                ttl=ttl)
    else:
        l3 = IPv6(src="2001:db8:a::%x" % (2 + i), dst=dst or "2001:db8:%d::%x" % (out, 1 + i),
                  hlim=ttl)
    f = Ether(dst=nfvdlib.pcap_mac(0), src=H0) / l3 / UDP(sport=1000 + i, dport=9) / Raw(
        b"%06d" % i)
    if padding:
        f = f / Padding(b"\xaa" * padding)
    return f


def mixed(n_frames):
    """IPv4 and IPv6 in turn, each to p1 and p2 in turn; every 5th frame
    padded (4 to 40 bytes beyond the IP packet)."""
    out = []
    for i in range(n_frames):
        fam, port = (4, 6)[i % 2], 1 + i // 2 % 2
        out.append(frame(i, fam, port, padding=(4 + i % 37) if i % 5 == 0 else 0))
    return out


def expected(frames, port):
    gw = {1: GW1, 2: GW2}[port]
    want = []
    for f in frames:
        if IP in f and f[IP].dst.startswith("198.18.%d." % port):
            want.append(bytes(routed4(f, gw, nfvdlib.pcap_mac(port))))
        elif IPv6 in f and f[IPv6].dst.startswith("2001:db8:%d::" % port):
            want.append(bytes(routed6(f, gw, nfvdlib.pcap_mac(port))))
    return want


def check_per_family(got, want):
    """got holds want's frames, each family's in want's order (a walk's IPv4
    frames leave before its IPv6 ones: different flows)."""
    assert sorted(got) == sorted(want)
    for et in (b"\x08\x00", b"\x86\xdd"):
        g = [b for b in got if b[12:14] == et]
        w = [b for b in want if b[12:14] == et]
        bad = [i for i, (a, b) in enumerate(zip(g, w)) if a != b]
        assert not bad, "frame %d of ethertype %s: got %s, want %s" % (
            bad[0], et.hex(), g[bad[0]].hex(), w[bad[0]].hex())


def nodes(n):
    """show graph: node name -> (packets, cycles)."""
    out = {}
    for x in n.ctl("show graph")["nodes"]:
        p, c = out.get(x["node"], (0, 0))
        out[x["node"]] = (p + x["packets"], c + x["cycles"])
    return out


@pytest.mark.parametrize("path", ["fast", "chain"])
def test_mixed_padded_bursts(nfvd, path):
    n_frames = 40 * BURST
    frames = mixed(n_frames)
    n = router(nfvd, frames)
    if path == "chain":
        n.cmd("debug fastpath off")
    n.start()
    st = n.wait_processed({"p0": n_frames})
    assert not nfvdlib.drops(st), nfvdlib.drops(st)
    assert st["packets"]["received"] == st["packets"]["forwarded"] == n_frames
    g = nodes(n)
    half = n_frames // 2
    if path == "fast":
        assert g["ip4_fast"][0] == g["ip6_fast"][0] == half, g
        assert g.get("ip4_input", (0, 0))[0] == g.get("ip6_input", (0, 0))[0] == 0, g
        # Timed like every node (one walk in sixteen is sampled).
        assert g["ip4_fast"][1] > 0 and g["ip6_fast"][1] > 0, g
    else:
        assert g.get("ip4_fast", (0, 0))[0] == g.get("ip6_fast", (0, 0))[0] == 0, g
        assert g["ip4_input"][0] == g["ip6_input"][0] == half, g
        # No egress feature anywhere: the lookups forward and rewrite plain
        # transit packets themselves, the rewrite nodes see none.
        assert g["ip4_lookup"][0] == g["ip6_lookup"][0] == half, g
        assert g.get("ip4_rewrite", (0, 0))[0] == g.get("ip6_rewrite", (0, 0))[0] == 0, g
    # Each RX burst of 32: 16 frames for each port, one TX burst each.
    worker = n.api("show workers")["workers"][0]
    assert worker["rx_burst_avg"] == 32.0 and worker["tx_burst_avg"] == 16.0, worker
    out = n.stop()
    for port in (1, 2):
        assert len(out["p%d" % port]) == half
        check_per_family(out["p%d" % port], expected(frames, port))


def test_bad_header_sends_its_family_to_the_chain(nfvd):
    frames = mixed(2 * BURST)
    bad = frames[BURST + 4]              # IPv4, in the second burst
    assert IP in bad
    bad[IP].chksum = 0x1234
    n = router(nfvd, frames)
    for i in range(len(frames)):     # the way back for the ICMP errors
        n.cmd("neigh add 10.0.0.%d lladdr %s dev p0" % (2 + i, H0),
              "neigh add 2001:db8:a::%x lladdr %s dev p0" % (2 + i, H0))
    n.start()
    st = n.wait_processed({"p0": len(frames)})
    assert nfvdlib.drops(st) == {"ip4_input/bad_checksum": 1}, nfvdlib.drops(st)
    g = nodes(n)
    # The second burst's IPv4 frames went to the chain, its IPv6 ones did not.
    assert g["ip4_fast"][0] == BURST and g["ip4_input"][0] == BURST // 2, g
    assert g["ip6_fast"][0] == BURST and g.get("ip6_input", (0, 0))[0] == 0, g
    out = n.stop()
    good = [f for f in frames if f is not bad]
    for port in (1, 2):
        check_per_family(out["p%d" % port], expected(good, port))


def test_what_the_fused_nodes_leave_to_the_chain(nfvd):
    frames = [frame(0, 4, 1, ttl=1), frame(1, 6, 1, ttl=1),
              frame(2, 4, 1, dst="198.18.7.1"), frame(3, 6, 1, dst="2001:db8:7::1"),
              frame(4, 4, 1, dst="198.18.9.1"), frame(5, 6, 1, dst="2001:db8:9::1"),
              frame(6, 4, 1), frame(7, 6, 2)]
    n = router(nfvd, frames)
    for i in range(len(frames)):     # the way back for the ICMP errors
        n.cmd("neigh add 10.0.0.%d lladdr %s dev p0" % (2 + i, H0),
              "neigh add 2001:db8:a::%x lladdr %s dev p0" % (2 + i, H0))
    n.start()
    st = n.wait_processed({"p0": len(frames)})
    assert nfvdlib.drops(st) == {
        "ip4_rewrite/ttl_expired": 1, "ip6_rewrite/hop_limit_expired": 1,
        "ip4_lookup/no_route": 1, "ip6_lookup/no_route": 1,
        "ip4_rewrite/neigh_unresolved": 1, "ip6_rewrite/neigh_unresolved": 1}, \
        nfvdlib.drops(st)
    g = nodes(n)
    assert g["ip4_fast"][0] == g["ip6_fast"][0] == 4, g
    assert g["ip4_input"][0] == g["ip6_input"][0] == 3, g
    out = n.stop()
    # The two good frames, and the ICMP errors (time exceeded, unreachable)
    # sent back out of p0.
    assert out["p1"] == expected([frames[6]], 1)
    assert out["p2"] == expected([frames[7]], 2)
    assert len(out["p0"]) == 4
