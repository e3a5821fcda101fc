# SPDX-License-Identifier: BSD-3-Clause
"""
VXLAN (RFC 7348) interfaces as bridge ports: decapsulation of what reaches
nfvd's address on UDP 4789 with the tunnel's VNI, learning of the inner
source MAC with its remote VTEP, encapsulation to the learned VTEP for known
unicast and to every remote for flooded frames (head-end replication),
routed out through the FIB with outer TTL 64, header checksum, UDP checksum
0; named drops; frames byte for byte; every mbuf back.

    R1 192.0.2.2, R2 192.0.2.3 -- p0 192.0.2.1/24 (underlay, out)
    p2 198.51.100.1/24 (underlay, in: the VTEPs' packets arrive here)
    br0 = { p1 (host H), p3 (host W), vx0 vni 100 local 192.0.2.1 remote R1 remote R2 }

Phases: a port set down is not polled; p2 and p3 start down and come up in
turn, so each phase's frames are bridged after the previous phase's.
"""
from scapy.layers.inet import IP, UDP, defragment
from scapy.layers.l2 import ARP, Ether
from scapy.layers.vxlan import VXLAN

import nfvdlib
from nfvdlib import CtlError, Nfvd, drops, pcap_mac

P0, P2 = pcap_mac(0), pcap_mac(2)
R1MAC, R2MAC = "02:00:00:00:01:01", "02:00:00:00:01:02"
R1, R2, LOCAL = "192.0.2.2", "192.0.2.3", "192.0.2.1"
H, W, X, Z = ("02:00:00:00:0a:0%d" % i for i in (1, 2, 3, 4))
BCAST = "ff:ff:ff:ff:ff:ff"

CONFIG = [
    "addr add 192.0.2.1/24 dev p0",
    "addr add 198.51.100.1/24 dev p2",
    "neigh add 192.0.2.2 lladdr %s dev p0" % R1MAC,
    "neigh add 192.0.2.3 lladdr %s dev p0" % R2MAC,
    "vxlan add vx0 vni 100 local 192.0.2.1 remote 192.0.2.2 remote 192.0.2.3",
    "bridge add br0",
    "bridge port add br0 dev p1",
    "bridge port add br0 dev p3",
    "bridge port add br0 dev vx0",
]


def inner(src, dst, tag):
    return Ether(src=src, dst=dst) / IP(src="10.50.0.1", dst="10.50.0.2") / \
        UDP(sport=1111, dport=2222) / (b"in-%s" % tag)


def outer(inner_frame, vtep_src, vni=100, dport=4789, dst_mac=P2, **udp):
    """A VTEP's datagram, as it reaches p2 (scapy computes the UDP checksum)."""
    return bytes(Ether(src="02:00:00:00:02:02", dst=dst_mac) /
                 IP(src=vtep_src, dst=LOCAL, ttl=60) / UDP(sport=50000, dport=dport, **udp) /
                 VXLAN(vni=vni) / inner_frame)


def encapsulated(inner_frame, remote, remote_mac, sport, vni=100, dport=4789):
    """What nfvd sends towards a VTEP, its outer identification 0 (see
    outer_out)."""
    return bytes(Ether(src=P0, dst=remote_mac) /
                 IP(src=LOCAL, dst=remote, ttl=64, id=0, flags=0) /
                 UDP(sport=sport, dport=dport, chksum=0) / VXLAN(vni=vni, flags=0x08) /
                 inner_frame)


def outer_out(frames, n):
    """nfvd's encapsulated frames with their outer identification 0, after
    checking that the n of them (DF clear: they may be fragmented) have
    one each (RFC 6864), numbered one after the other (one worker)."""
    frames, ids = nfvdlib.zero_ip_ids(frames, lambda f: nfvdlib.udp_dport(f) is not None)
    assert len(ids) == n, ids
    assert sorted((i - ids[0]) % 65536 for i in ids) == list(range(n)), ids
    return frames


def fdb(nfvd):
    return {(e["mac"].lower(), e["port"], e.get("remote")) for e in nfvd.ctl("fdb show")["fdb"]
            if e["type"] == "learned"}


def rows(nfvd):
    return {p["name"]: p for p in nfvd.ctl("port show")["ports"]}


def test_vxlan_bridge(tmp_path):
    h_arp = Ether(src=H, dst=BCAST) / ARP(hwsrc=H, psrc="10.50.0.1", pdst="10.50.0.9")
    in1 = [bytes(h_arp)]                                 # phase 1: flooded to R1 and R2
    x_to_h = inner(X, H, b"x")
    z_bc = inner(Z, BCAST, b"z")
    bad_sum = bytearray(outer(inner(X, H, b"bad"), R1))
    bad_sum[14 + 20 + 6] ^= 0x55                         # UDP checksum
    no_i = Ether(src="02:00:00:00:02:02", dst=P2) / IP(src=R1, dst=LOCAL) / \
        UDP(sport=50000, dport=4789) / VXLAN(vni=100, flags=0) / inner(X, H, b"noi")
    in2 = [outer(x_to_h, R1),                            # phase 2: to H on p1
           outer(inner(X, H, b"vni"), R1, vni=200),      # no tunnel with VNI 200
           bytes(bad_sum),
           bytes(no_i),
           outer(inner(X, H, b"zero"), R1, chksum=0),    # checksum 0: accepted
           outer(z_bc, R2)]                              # flooded to p1 only
    w_x = inner(W, X, b"wx")
    w_z = inner(W, Z, b"wz")
    in3 = [bytes(w_x), bytes(w_z)]                       # phase 3: one VTEP each
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0")
    nfvd.add_port("p1", rx=in1)
    nfvd.add_port("p2", rx=in2)
    nfvd.add_port("p3", rx=in3)
    nfvd.cmd(*CONFIG, "port set p2 down", "port set p3 down")
    nfvd.start()
    nfvd.wait_processed({"p1": 1})
    nfvd.ctl("port set p2 up")
    nfvd.wait_processed({"p1": 1, "p2": len(in2)})
    assert fdb(nfvd) == {(H, "p1", None), (X, "vx0", R1), (Z, "vx0", R2)}
    nfvd.ctl("port set p3 up")
    st = nfvd.wait_processed({"p1": 1, "p2": len(in2), "p3": 2})
    assert drops(st) == {"vxlan_input/bad_vni": 1, "vxlan_input/bad_udp_checksum": 1,
                         "vxlan_input/bad_flags": 1}
    assert fdb(nfvd) == {(H, "p1", None), (X, "vx0", R1), (Z, "vx0", R2), (W, "p3", None)}
    # The text view shows the remote VTEP too, though its first row (the
    # bridge's own MAC) has none.
    text = nfvd.ctl_result("fdb", "show", json_out=False).stdout.splitlines()
    assert text[1].split() == ["mac", "bridge", "port", "type", "age", "remote"], text[1]
    fdb_text = {line.split()[0].lower(): line.split() for line in text[2:]}
    assert [fdb_text[m][2::3] for m in (X, Z, H, W)] == \
        [["vx0", R1], ["vx0", R2], ["p1", "-"], ["p3", "-"]], fdb_text
    r = rows(nfvd)
    vx = r["vx0"]
    assert (vx["kind"], vx["vni"], vx["local"], vx["remotes"], vx["dstport"], vx["bridge"]) == \
        ("vxlan", 100, LOCAL, [R1, R2], 4789, "br0")
    assert vx["admin_up"] is True and vx["mtu"] == 1450 and len(vx["mac"]) == 17
    assert (vx["rx_packets"], vx["tx_packets"]) == (3, 4)
    assert vx["rx_bytes"] == len(bytes(x_to_h)) + len(bytes(inner(X, H, b"zero"))) + \
        len(bytes(z_bc))
    out = nfvd.stop()
    # Phase 1: one copy per remote, the same source port (the flow's hash).
    assert len(out["p0"]) == 4
    out["p0"] = outer_out(out["p0"], 4)
    sport = UDP(out["p0"][0][34:42]).sport
    assert 49152 <= sport <= 65535
    assert out["p0"][:2] == [encapsulated(h_arp, R1, R1MAC, sport),
                             encapsulated(h_arp, R2, R2MAC, sport)]
    # Phase 3: to the VTEP each MAC was learned from.
    sport_x = UDP(out["p0"][2][34:42]).sport
    sport_z = UDP(out["p0"][3][34:42]).sport
    assert out["p0"][2:] == [encapsulated(w_x, R1, R1MAC, sport_x),
                             encapsulated(w_z, R2, R2MAC, sport_z)]
    assert out["p1"] == [bytes(x_to_h), bytes(inner(X, H, b"zero")), bytes(z_bc)]
    assert out["p3"] == []     # down while Z's broadcast was flooded
    assert out["p2"] == []


def test_vxlan_drops_dstport_and_commands(tmp_path):
    f = inner(X, H, b"1")
    in2 = [outer(f, R1, dport=8472),                     # vx1: not a bridge port
           outer(f, R1, dport=4789, vni=7),              # vx7: bridged, no remote: flood drops
           bytes(Ether(src="02:00:00:00:02:02", dst=P2) / IP(src=R1, dst="198.51.100.1") /
                 UDP(sport=50000, dport=4789) / VXLAN(vni=100) / f),   # no tunnel there
           outer(f, R1, dport=4789, vni=9)]              # vx9 is down
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0")
    nfvd.add_port("p1")
    nfvd.add_port("p2", rx=in2)
    nfvd.cmd("addr add 192.0.2.1/24 dev p0", "addr add 198.51.100.1/24 dev p2",
             "vxlan add vx1 vni 100 local 192.0.2.1 dstport 8472",
             "vxlan add vx7 vni 7 local 192.0.2.1",
             "vxlan add vx9 vni 9 local 192.0.2.1 remote 192.0.2.2",
             "bridge add br0", "bridge port add br0 dev vx7",
             "bridge add br9", "bridge port add br9 dev vx9", "port set vx9 down")
    nfvd.start()
    st = nfvd.wait_processed({"p2": len(in2)})
    assert drops(st) == {"vxlan_input/not_bridged": 1, "bridge_input/no_ports": 1,
                         "vxlan_input/no_tunnel": 1, "vxlan_input/interface_down": 1}
    assert rows(nfvd)["vx1"]["dstport"] == 8472
    show = nfvd.ctl("vxlan show vx7")["vxlans"]
    assert show == [{"name": "vx7", "vni": 7, "local": "192.0.2.1", "remotes": [],
                     "dstport": 4789, "bridge": "br0"}]
    for line, msg in [
            ("vxlan add vx2 vni 100 local 192.0.2.1 dstport 8472",
             "vx1 already has VNI 100 on this local address and port"),
            ("vxlan add vx2 vni 16777216 local 192.0.2.1", "bad VNI '16777216'"),
            ("vxlan add vx2 vni 5 local 2001:db8::1", "IPv6 VTEPs are not supported"),
            ("vxlan add vx2 vni 5 local 192.0.2.1 remote 224.0.0.1", "bad remote '224.0.0.1'"),
            ("vxlan add vx2 vni 5 local 192.0.2.1 remote 192.0.2.1",
             "a remote is the local address"),
            ("vxlan add vx2 vni 5 local 192.0.2.1 remote 1.1.1.1 remote 1.1.1.1",
             "remote 1.1.1.1 given twice"),
            ("vxlan add vx2 vni 5 remote 1.1.1.1 local", "missing value after 'local'"),
            ("vxlan add vx2 vni 5 remote 1.1.1.1 dstport 1", "missing 'local IP'"),
            ("vxlan add vx2 local 192.0.2.1 remote 1.1.1.1", "missing 'vni N'"),
            ("vxlan add vx2 vni 5 local 192.0.2.1 dstport 0", "bad dstport '0'"),
            ("vxlan add vx2 vni 5 local 192.0.2.1 ttl 3", "unexpected 'ttl'"),
            ("vxlan add vx1 vni 5 local 192.0.2.1", "interface vx1 already exists"),
            ("vxlan del p0", "no VXLAN interface named p0"),
            ("vxlan show nope", "no VXLAN interface named nope")]:
        try:
            nfvd.ctl(*line.split())
            raise AssertionError("%s succeeded" % line)
        except CtlError as e:
            assert msg in str(e), (line, str(e))
    # A VXLAN interface that goes leaves its bridge.
    nfvd.ctl("vxlan del vx7")
    assert rows(nfvd)["br0"]["ports"] == [] and "vx7" not in rows(nfvd)
    nfvd.ctl("vxlan del vx1")
    nfvd.ctl("vxlan add vx1 vni 100 local 192.0.2.1 dstport 8472")
    nfvd.stop()


def test_flood_longer_than_a_slice(tmp_path):
    """A burst of 32 broadcast frames flooded to 12 remote VTEPs: 384 copies
    reach the underlay's nodes in one walk, more than a node's arrays hold
    (RTE_GRAPH_BURST_SIZE, 256), so the walk hands them over in slices.
    Every copy leaves, byte for byte, in order per frame; the worker counts
    the sliced streams; every mbuf comes back."""
    n_remotes, n_frames = 12, 32
    remotes = ["192.0.2.%d" % (10 + i) for i in range(n_remotes)]
    macs = ["02:00:00:00:03:%02x" % i for i in range(n_remotes)]
    frames = [inner(H, BCAST, b"%03d" % i) for i in range(n_frames)]
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0")
    nfvd.add_port("p1", rx=[bytes(f) for f in frames])
    nfvd.cmd("addr add 192.0.2.1/24 dev p0",
             *["neigh add %s lladdr %s dev p0" % (r, m) for r, m in zip(remotes, macs)],
             "vxlan add vx0 vni 100 local 192.0.2.1 " +
             " ".join("remote %s" % r for r in remotes),
             "bridge add br0", "bridge port add br0 dev p1", "bridge port add br0 dev vx0")
    nfvd.start()
    st = nfvd.wait_processed({"p1": n_frames})
    assert drops(st) == {}, drops(st)
    assert rows(nfvd)["vx0"]["tx_packets"] == n_frames * n_remotes
    sliced = sum(w["sliced_streams"] for w in nfvd.ctl("show workers")["workers"])
    assert sliced > 0, nfvd.ctl("show workers")
    out = nfvd.stop()
    got = outer_out(out["p0"], len(out["p0"]))
    assert len(got) == n_frames * n_remotes
    sport = {}
    for b in got:
        sport.setdefault(bytes(b[14 + 20 + 8 + 8:]), UDP(b[34:42]).sport)
    want = sorted(encapsulated(f, r, m, sport[bytes(f)])
                  for f in frames for r, m in zip(remotes, macs))
    assert sorted(got) == want
    for f in frames:   # each frame's copies in the order of the remotes
        mine = [b for b in got if bytes(b[50:]) == bytes(f)]
        assert [IP(b[14:34]).dst for b in mine] == remotes


def test_mtu(tmp_path):
    """Decapsulated frames bridged out take the members' MTU as any other:
    a flood skips p1 (mtu 1400) for a frame with an L2 payload over 1400;
    frames into the tunnel take its MTU (1450, so that the outer packet
    fits the underlay's 1500): known unicast over it is dropped, a flood
    skips it. Each member not sent to is one bridge_input/mtu_exceeded.

        br0 = { p1 (mtu 1400), p3, p4 (host V, up in phase 2), vx0 remote R1 }"""
    V = "02:00:00:00:0a:05"

    def sized(src, dst, payload):
        """An inner frame with an L2 payload (IPv4 packet) of payload bytes."""
        return Ether(src=src, dst=dst) / IP(src="10.50.0.1", dst="10.50.0.2") / \
            UDP(sport=1111, dport=2222) / (b"V" * (payload - 28))
    d_1400 = sized(X, BCAST, 1400)            # to p1, p3
    d_1401 = sized(X, BCAST, 1401)            # to p3 only
    d_1450 = sized(X, H, 1450)                # unknown: to p3 only
    in2 = [outer(f, R1) for f in (d_1400, d_1401, d_1450)]
    e_1450 = sized(V, X, 1450)                # to R1: a 1500-byte outer packet
    e_1451 = sized(V, X, 1451)                # over vx0's MTU: dropped
    e_bc = sized(V, BCAST, 1451)              # to p3 only
    in4 = [bytes(f) for f in (e_1450, e_1451, e_bc)]
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0")
    nfvd.add_port("p1", opts=" mtu 1400")
    nfvd.add_port("p2", rx=in2)
    nfvd.add_port("p3")
    nfvd.add_port("p4", rx=in4)
    nfvd.cmd("addr add 192.0.2.1/24 dev p0", "addr add 198.51.100.1/24 dev p2",
             "neigh add 192.0.2.2 lladdr %s dev p0" % R1MAC,
             "vxlan add vx0 vni 100 local 192.0.2.1 remote 192.0.2.2", "bridge add br0",
             "bridge port add br0 dev p1", "bridge port add br0 dev p3",
             "bridge port add br0 dev p4", "bridge port add br0 dev vx0", "port set p4 down")
    nfvd.start()
    nfvd.wait_processed({"p2": len(in2)})
    assert fdb(nfvd) == {(X, "vx0", R1)}
    nfvd.ctl("port set p4 up")
    st = nfvd.wait_processed({"p2": len(in2), "p4": len(in4)})
    # p1: d_1401, d_1450, e_bc; vx0: e_1451, e_bc.
    assert drops(st) == {"bridge_input/mtu_exceeded": 5}
    r = rows(nfvd)
    assert (r["vx0"]["rx_packets"], r["vx0"]["tx_packets"]) == (3, 1)
    assert (r["br0"]["rx_packets"], r["br0"]["tx_packets"]) == (6, 2 + 1 + 1 + 1 + 1)
    out = nfvd.stop()
    assert out["p1"] == [bytes(d_1400)]
    assert out["p3"] == [bytes(d_1400), bytes(d_1401), bytes(d_1450), bytes(e_bc)]
    assert len(out["p0"]) == 1 and len(out["p0"][0]) == 14 + 1500
    out["p0"] = outer_out(out["p0"], 1)
    sport = UDP(out["p0"][0][34:42]).sport
    assert out["p0"] == [encapsulated(e_1450, R1, R1MAC, sport)]
    assert out["p4"] == [] and out["p2"] == []


def test_outer_packets_fragmented_apart(tmp_path):
    """An underlay MTU (1000) below the outer packets' size: nfvd cuts
    each outer packet (DF clear, as Linux's vxlan sends it) and, each with
    its own identification, the receiver puts each datagram together from
    its own fragments (with one identification for all, the fragments of
    two datagrams in flight would be joined wrongly).

        br0 = { p4, vx0 remote R1 over p0 (mtu 1000) }"""
    frames = [Ether(src="02:00:00:00:0a:05", dst=X) / IP(src="10.50.0.1", dst="10.50.0.2") /
              UDP(sport=1111 + k, dport=2222) / (bytes([65 + k]) * 1372) for k in range(2)]
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", opts=" mtu 1000")
    nfvd.add_port("p4", rx=[bytes(f) for f in frames])
    nfvd.cmd("addr add 192.0.2.1/24 dev p0",
             "neigh add 192.0.2.2 lladdr %s dev p0" % R1MAC,
             "vxlan add vx0 vni 100 local 192.0.2.1 remote 192.0.2.2", "bridge add br0",
             "bridge port add br0 dev p4", "bridge port add br0 dev vx0")
    nfvd.start()
    st = nfvd.wait_processed({"p4": 2})
    out = nfvd.stop()
    assert (st["ip4"]["fragmented"], st["ip4"]["fragments"]) == (2, 4)
    assert drops(st) == {}
    frags = [Ether(f) for f in out["p0"]]
    assert len(frags) == 4 and all(len(f) <= 14 + 1000 for f in out["p0"])
    ids = [f[IP].id for f in frags]
    assert ids[0] == ids[1] != ids[2] == ids[3], ids
    whole = defragment([f[IP] for f in frags])
    assert len(whole) == 2
    got, _ids = nfvdlib.zero_ip_ids([bytes(Ether(src=P0, dst=R1MAC) / w) for w in whole])
    sports = [UDP(bytes(w[UDP])).sport for w in whole]
    assert got == [encapsulated(f, R1, R1MAC, s) for f, s in zip(frames, sports)]
