# SPDX-License-Identifier: BSD-3-Clause
"""
VLAN sub-interfaces (802.1Q), a module added through the registry: tagged
frames in, tagged frames out, byte for byte; per-VLAN counters; unknown
VLANs and interfaces that are down dropped under named reasons; the
sub-interfaces go with their port.

    H0 10.0.0.1 -- p0 10.0.0.254/24  [nfvd]  p1 (trunk) -- v10 10.10.0.254/24 -- R10 10.10.0.1
                                                        -- v20 10.20.0.254/24    R20 10.20.0.1
                                                               2001:db8:20::fe/64    2001:db8:20::1
"""
from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether

from nfvdlib import CtlError, Nfvd, drops, pcap_mac

P0, P1 = pcap_mac(0), pcap_mac(1)
H0 = "02:00:00:00:00:01"
R10 = "02:00:00:00:10:01"
R20 = "02:00:00:00:20:01"
OTHER = "02:00:00:00:09:09"

CONFIG = [
    "vlan add v10 dev p1 id 10",
    "vlan add v20 dev p1 id 20",
    "addr add 10.0.0.254/24 dev p0",
    "addr add 10.10.0.254/24 dev v10",
    "addr add 10.20.0.254/24 dev v20",
    "addr add 2001:db8:20::fe/64 dev v20",
    "addr add 2001:db8:a::fe/64 dev p0",
    "neigh add 10.0.0.1 lladdr %s dev p0" % H0,
    "neigh add 2001:db8:a::1 lladdr %s dev p0" % H0,
    "neigh add 10.10.0.1 lladdr %s dev v10" % R10,
    "neigh add 10.20.0.1 lladdr %s dev v20" % R20,
    "neigh add 2001:db8:20::1 lladdr %s dev v20" % R20,
    "route add 198.51.100.0/24 via 10.10.0.1",
]


def udp4(src, dst, tag, ttl=64):
    return IP(src=src, dst=dst, ttl=ttl) / UDP(sport=4000, dport=5000) / (b"vlan-%s" % tag)


def routed(frame_l3, dst_mac, src_mac, vlan=None):
    """What nfvd sends: the L3 packet with TTL/hop limit one less, in a new
    Ethernet header, tagged when vlan is given."""
    l3 = frame_l3.copy()
    if IP in l3:
        l3[IP].ttl -= 1
        del l3[IP].chksum
    else:
        l3[IPv6].hlim -= 1
    eth = Ether(dst=dst_mac, src=src_mac)
    return bytes(eth / Dot1Q(vlan=vlan) / l3 if vlan is not None else eth / l3)


def rows(nfvd):
    return {p["name"]: p for p in nfvd.ctl("port show")["ports"]}


def test_vlan_forwarding_both_ways(tmp_path):
    to10 = [udp4("10.0.0.1", "10.10.0.1", b"a%d" % i) for i in range(3)]
    via10 = [udp4("10.0.0.1", "198.51.100.7", b"r%d" % i) for i in range(2)]
    to20v6 = IPv6(src="2001:db8:a::1", dst="2001:db8:20::1") / UDP() / b"v6"
    from20 = [udp4("10.20.0.1", "10.0.0.1", b"b%d" % i) for i in range(2)]
    ping20 = IP(src="10.20.0.1", dst="10.20.0.254") / ICMP(id=7, seq=1) / b"ping"
    in0 = [Ether(dst=P0, src=H0) / p for p in to10 + via10] + [Ether(dst=P0, src=H0) / to20v6]
    in1 = ([Ether(dst=P1, src=R20) / Dot1Q(vlan=20) / p for p in from20] +
           [Ether(dst=P1, src=R20) / Dot1Q(vlan=20) / ping20,
            Ether(dst=P1, src=R20) / Dot1Q(vlan=30) / udp4("10.30.0.1", "10.0.0.1", b"u"),
            Ether(dst=OTHER, src=R10) / Dot1Q(vlan=10) / udp4("10.10.0.1", "10.0.0.1", b"o")])
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=in0)
    nfvd.add_port("p1", rx=in1)
    nfvd.cmd(*CONFIG)
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(in0), "p1": len(in1)})
    assert drops(st) == {"vlan_input/unknown_vlan": 1, "eth_input/other_host": 1}
    r = rows(nfvd)
    assert (r["v10"]["kind"], r["v10"]["parent"], r["v10"]["vlan_id"]) == ("vlan", "p1", 10)
    assert r["v10"]["mac"].lower() == P1
    assert (r["v10"]["rx_packets"], r["v10"]["tx_packets"]) == (0, 5)
    assert (r["v20"]["rx_packets"], r["v20"]["tx_packets"]) == (3, 2)
    assert r["p1"]["rx_packets"] == len(in1) and r["p1"]["tx_packets"] == 7
    # The text view's columns are every row's keys: the ports come first and
    # have no parent or VLAN id, the VLANs' show theirs.
    text = nfvd.ctl_result("port", "show", json_out=False).stdout.splitlines()
    assert text[0] == "ports:"
    head = text[1].split()
    cells = {line.split()[0]: dict(zip(head, line.split())) for line in text[2:]}
    assert sorted(cells) == ["p0", "p1", "v10", "v20"]
    assert [(cells[n]["parent"], cells[n]["vlan_id"]) for n in sorted(cells)] == \
        [("-", "-"), ("-", "-"), ("p1", "10"), ("p1", "20")]
    out = nfvd.stop()
    want1 = ([routed(p, R10, P1, 10) for p in to10 + via10] +
             [routed(to20v6, R20, P1, 20)])
    reply = (IP(src="10.20.0.254", dst="10.20.0.1", ttl=64, id=0) /
             ICMP(type=0, id=7, seq=1) / b"ping")
    got_reply = [f for f in out["p1"] if ICMP in Ether(f)]
    assert len(got_reply) == 1
    g = Ether(got_reply[0])
    assert g[Dot1Q].vlan == 20 and g[Ether].dst == R20 and g[IP].dst == "10.20.0.1"
    assert g[ICMP].type == 0 and bytes(g[ICMP].payload) == b"ping"
    assert reply[ICMP].id == g[ICMP].id
    assert [f for f in out["p1"] if ICMP not in Ether(f)] == want1
    assert out["p0"] == [routed(p, H0, P0) for p in from20]


def test_vlan_down_and_errors(tmp_path):
    in0 = [Ether(dst=P0, src=H0) / udp4("10.0.0.1", "10.10.0.1", b"d%d" % i) for i in range(2)]
    in1 = [Ether(dst=P1, src=R10) / Dot1Q(vlan=10) / udp4("10.10.0.1", "10.0.0.1", b"x")]
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=in0)
    nfvd.add_port("p1", rx=in1)
    nfvd.cmd(*CONFIG, "port set v10 down")
    nfvd.start()
    st = nfvd.wait_processed({"p0": 2, "p1": 1})
    assert drops(st) == {"vlan_output/interface_down": 2, "vlan_input/interface_down": 1}
    assert rows(nfvd)["v10"]["admin_up"] is False
    for line, msg in [
            ("vlan add v30 dev p1 id 0", "bad VLAN id '0' (expected 1-4094)"),
            ("vlan add v30 dev p1 id 4095", "bad VLAN id '4095' (expected 1-4094)"),
            ("vlan add v30 dev v10 id 30", "v10 is not a port: VLANs are on ports only"),
            ("vlan add v30 dev p1 id 10", "port p1 already has VLAN 10: v10"),
            ("vlan add v20 dev p1 id 30", "interface v20 already exists"),
            ("vlan add v30 dev nope id 30", "unknown interface 'nope'"),
            ("vlan add v30 dev p1 vid 30", "unexpected 'vid' (expected 'id')"),
            ("vlan del nope", "no VLAN interface named nope"),
            ("vlan del p1", "no VLAN interface named p1"),
            ("port add v10 dev net_null9", "interface v10 already exists")]:
        try:
            nfvd.ctl(*line.split())
            raise AssertionError("%s succeeded" % line)
        except CtlError as e:
            assert msg in str(e), (line, str(e))
    # A VLAN goes with its addresses and routes; its port takes the rest.
    nfvd.ctl("vlan del v20")
    assert "v20" not in rows(nfvd)
    assert not any(x["prefix"].startswith("10.20.") for x in nfvd.ctl("route show")["routes"])
    nfvd.ctl("port del p1")
    assert set(rows(nfvd)) == {"p0"}
    assert not any(x["prefix"].startswith("10.10.") or x["prefix"].startswith("198.51.")
                   for x in nfvd.ctl("route show")["routes"])
    nfvd.stop()


def echo_reply(req, dst_mac, src_mac, vlan=None):
    """nfvd's answer to an echo request (scapy packet from IP on): addresses
    swapped, TTL 64, the rest of the IP header kept, type 0."""
    ip = req[IP]
    l3 = IP(src=ip.dst, dst=ip.src, ttl=64, tos=ip.tos, id=ip.id, flags=ip.flags) / \
        ICMP(type=0, code=0, id=ip[ICMP].id, seq=ip[ICMP].seq) / bytes(ip[ICMP].payload)
    eth = Ether(dst=dst_mac, src=src_mac)
    return bytes(eth / Dot1Q(vlan=vlan) / l3 if vlan is not None else eth / l3)


def test_priority_tagged(tmp_path):
    """A priority-tagged frame (802.1Q tag with VID 0: a priority, no VLAN)
    is its interface's untagged frame: the tag goes and the frame is
    answered or routed as the port's (replies leave untagged, as Linux
    sends them); a VLAN tag behind it is the frame's VLAN; on a VLAN, a
    priority tag inside is that VLAN's untagged frame; two priority tags in
    a row are dropped, named."""
    B1 = "02:00:00:00:0b:01"
    ping = IP(src="10.9.0.1", dst="10.9.0.254") / ICMP(type=8, id=1, seq=1) / b"vid0"
    to10 = udp4("10.9.0.1", "10.10.0.1", b"p0-to-v10")
    from10 = udp4("10.10.0.1", "10.9.0.1", b"v10-to-p0")
    ping10 = IP(src="10.10.0.1", dst="10.10.0.254") / ICMP(type=8, id=2, seq=9) / b"v10"
    in0 = [Ether(src=B1, dst=P0) / Dot1Q(vlan=0, prio=3) / ping,       # answered untagged
           Ether(src=B1, dst=P0) / Dot1Q(vlan=0) / to10,              # routed to v10
           Ether(src=R10, dst=P0) / Dot1Q(vlan=0, prio=1) / Dot1Q(vlan=10) / from10,
           Ether(src=R10, dst=P0) / Dot1Q(vlan=10) / Dot1Q(vlan=0, prio=6) / ping10,
           Ether(src=B1, dst=OTHER) / Dot1Q(vlan=0) / ping,           # another host's
           Ether(src=B1, dst=P0) / Dot1Q(vlan=0) / Dot1Q(vlan=0) / ping]
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=[bytes(f) for f in in0])
    nfvd.cmd("vlan add v10 dev p0 id 10",
             "addr add 10.9.0.254/24 dev p0", "addr add 10.10.0.254/24 dev v10",
             "neigh add 10.9.0.1 lladdr %s dev p0" % B1,
             "neigh add 10.10.0.1 lladdr %s dev v10" % R10)
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(in0)})
    assert drops(st) == {"eth_input/other_host": 1, "vlan_input/priority_tags": 1}
    assert st["icmp"]["echo_replies"] == 2
    r = rows(nfvd)
    # v10's own: the frame tagged 10 behind a priority tag, and its ping.
    assert (r["v10"]["rx_packets"], r["v10"]["tx_packets"]) == (2, 2)
    assert (r["p0"]["rx_packets"], r["p0"]["tx_packets"]) == (len(in0), 4)
    out = nfvd.stop()
    # Echo replies go round ip4_lookup once more: compared in any order.
    assert sorted(out["p0"]) == sorted([echo_reply(ping, B1, P0),
                                        routed(to10, R10, P0, 10),
                                        routed(from10, B1, P0),
                                        echo_reply(ping10, R10, P0, 10)])
