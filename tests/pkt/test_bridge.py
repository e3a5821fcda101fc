# SPDX-License-Identifier: BSD-3-Clause
"""
L2 bridges: learning, flooding of broadcast / multicast / unknown unicast to
the other ports only, unicast to the learned port, ageing, the reserved group
addresses, named drops, counters, fdb show, and every mbuf back.

    A -- p0 --+
    B -- p1 --+-- br0 [nfvd]
    C -- p2 --+

Phases: a port set down is not polled, so p1 (and its frames) start down and
come up once p0's frames are through: B's frames are bridged after A's.
"""
import time

from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.l2 import ARP, Dot1Q, Ether

from nfvdlib import CtlError, Nfvd, drops, pcap_mac
from topo import icmp4_error

A = "02:00:00:00:00:0a"
B = "02:00:00:00:00:0b"
C = "02:00:00:00:00:0c"
BCAST = "ff:ff:ff:ff:ff:ff"
MCAST = "01:00:5e:01:02:03"


def frame(src, dst, tag):
    return bytes(Ether(src=src, dst=dst) / IP(src="10.9.0.1", dst="10.9.0.2") /
                 UDP(sport=1000, dport=2000) / (b"br-%s" % tag))


def arp(src):
    return bytes(Ether(src=src, dst=BCAST) / ARP(hwsrc=src, psrc="10.9.0.1", pdst="10.9.0.2"))


def fdb(nfvd, dev=None):
    out = nfvd.ctl("fdb show" + (" dev %s" % dev if dev else ""))["fdb"]
    return {(e["mac"].lower(), e["port"], e["type"]) for e in out}


def rows(nfvd):
    return {p["name"]: p for p in nfvd.ctl("port show")["ports"]}


def three_ports(tmp_path, in0, in1, in2=(), ageing=None):
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=in0)
    nfvd.add_port("p1", rx=in1)
    nfvd.add_port("p2", rx=list(in2))
    nfvd.cmd("bridge add br0" + (" ageing %d" % ageing if ageing else ""),
             "bridge port add br0 dev p0",
             "bridge port add br0 dev p1",
             "bridge port add br0 dev p2",
             "port set p1 down")
    nfvd.start()
    return nfvd


def test_learn_flood_forward(tmp_path):
    in0 = [arp(A),                          # broadcast: flooded, A learned on p0
           frame(A, B, b"1"),               # B unknown: flooded
           frame(A, MCAST, b"2"),           # multicast: flooded
           frame(A, "01:80:c2:00:00:00", b"stp"),  # reserved group: not forwarded
           frame(A, A, b"self"),            # learned on its own port: dropped
           frame(MCAST, B, b"bad")]         # multicast source: dropped
    in1 = [frame(B, A, b"3"),               # A known: p0 only
           frame(B, C, b"4"),               # C unknown: p0 and p2
           frame(B, A, b"5")]
    nfvd = three_ports(tmp_path, in0, in1)
    st = nfvd.wait_processed({"p0": len(in0)})
    assert fdb(nfvd) >= {(A, "p0", "learned")}
    nfvd.ctl("port set p1 up")
    st = nfvd.wait_processed({"p0": len(in0), "p1": len(in1)})
    assert drops(st) == {"bridge_input/reserved_group": 1, "bridge_input/same_port": 1,
                         "bridge_input/bad_source": 1}
    br_mac = rows(nfvd)["br0"]["mac"].lower()
    assert fdb(nfvd) == {(A, "p0", "learned"), (B, "p1", "learned"),
                         (br_mac, "br0", "static")}
    assert fdb(nfvd, "br0") == fdb(nfvd)
    r = rows(nfvd)
    assert r["br0"]["kind"] == "bridge" and r["br0"]["admin_up"] is True
    assert r["br0"]["ports"] == ["p0", "p1", "p2"] and r["br0"]["ageing"] == 300
    # In: A's but the one from a multicast source, B's. Out: A's floods to
    # p2 (p1 down), then B's to p0, p0 and p2, p0.
    assert r["br0"]["rx_packets"] == 5 + 3
    assert r["br0"]["tx_packets"] == 3 + 1 + 2 + 1
    s = nfvd.stats()["bridge"]
    assert (s["learned"], s["flooded"], s["fdb_full"]) == (2, 4, 0)
    out = nfvd.stop()
    assert out["p2"] == [in0[0], in0[1], in0[2], in1[1]]
    assert out["p0"] == [in1[0], in1[1], in1[2]]
    assert out["p1"] == []


def test_ageing(tmp_path):
    in0 = [arp(A)]
    in1 = [frame(B, A, b"after")]   # A aged out: flooded to p0 and p2
    nfvd = three_ports(tmp_path, in0, in1, ageing=1)
    nfvd.wait_processed({"p0": 1})
    assert (A, "p0", "learned") in fdb(nfvd)
    age = [e for e in nfvd.ctl("fdb show")["fdb"] if e["mac"].lower() == A][0]
    assert age["bridge"] == "br0" and age["age"] in (0, 1)
    time.sleep(1.3)
    assert (A, "p0", "learned") not in fdb(nfvd)
    nfvd.ctl("port set p1 up")
    nfvd.wait_processed({"p0": 1, "p1": 1})
    assert {(m, p) for m, p, t in fdb(nfvd) if t == "learned"} == {(B, "p1")}
    out = nfvd.stop()
    assert out["p2"] == [in0[0], in1[0]]
    assert out["p0"] == [in1[0]]


def test_bridge_down_no_ports_and_commands(tmp_path):
    in0 = [arp(A), frame(A, B, b"x")]
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=in0)
    nfvd.add_port("p1", rx=[frame(B, A, b"y")] * 2)
    nfvd.add_port("p2")
    nfvd.cmd("bridge add br0 ageing 60", "bridge add br1",
             "bridge port add br0 dev p0", "bridge port add br1 dev p1",
             "port set br1 down")
    nfvd.start()
    st = nfvd.wait_processed({"p0": 2, "p1": 2})
    # br0 has no other port; br1 is down.
    assert drops(st) == {"bridge_input/no_ports": 2, "bridge_input/bridge_down": 2}
    r = rows(nfvd)
    assert r["br1"]["admin_up"] is False and r["br0"]["ageing"] == 60
    assert r["br0"]["mac"] != r["br1"]["mac"]
    for line, msg in [
            ("bridge add br0", "interface br0 already exists"),
            ("bridge add 9x", "bad interface name '9x'"),
            ("bridge add br2 ageing 0", "bad ageing '0' (expected 1-1000000 seconds)"),
            ("bridge add br2 aging 5", "unexpected 'aging' (expected 'ageing' or 'mac')"),
            ("bridge add br2 mac 01:00:00:00:00:01", "bad mac '01:00:00:00:00:01'"),
            ("bridge add br2 ageing", "missing value after 'ageing'"),
            ("bridge port add br0 dev p1", "p1 is already a port of bridge br1"),
            ("bridge port add br0 dev nope", "unknown interface 'nope'"),
            ("bridge port add nope dev p2", "no bridge named nope"),
            ("bridge port add br0 dev br1", "br1 cannot be a bridge port"),
            ("bridge port add br0 if p2", "unexpected 'if' (expected 'dev')"),
            ("bridge port move br0 dev p2", "unexpected 'move' (expected add or del)"),
            ("bridge port del br0 dev p2", "p2 is not a port of bridge br0"),
            ("bridge del p0", "no bridge named p0"),
            ("fdb show dev nope", "no bridge named nope"),
            ("fdb show br0", "unexpected 'br0'"),
            ("fdb show port br0", "unexpected 'port' (expected 'dev')")]:
        try:
            nfvd.ctl(*line.split())
            raise AssertionError("%s succeeded" % line)
        except CtlError as e:
            assert msg in str(e), (line, str(e))
    assert nfvd.ctl("bridge show br0")["bridges"][0]["ports"] == ["p0"]
    nfvd.ctl("bridge port del br0 dev p0")
    assert rows(nfvd)["br0"]["ports"] == []
    nfvd.ctl("bridge port add br0 dev p0")
    # A port that goes leaves its bridge; a bridge that goes frees its ports.
    nfvd.ctl("port del p0")
    assert rows(nfvd)["br0"]["ports"] == []
    nfvd.ctl("bridge del br1")
    assert "br1" not in rows(nfvd)
    nfvd.ctl("bridge port add br0 dev p1")
    assert [e["port"] for e in nfvd.ctl("fdb show dev br0")["fdb"]] == ["br0"]
    nfvd.stop()


# The gateway topology: br0 = { p1, p2 } with 10.8.0.254/24 (B1 and B2
# behind it), p0 10.0.0.254/24 and p3 10.3.0.254/24 (H3 behind it) routed.
GW_BR = "02:00:00:00:0b:fe"
GW_B1, GW_B2, GW_H3 = "02:00:00:00:0b:01", "02:00:00:00:0b:02", "02:00:00:00:03:01"


class Gateway:
    """The gateway test's frames: into p1, B1's ARP request for br0's
    address (req) and a packet to br0's MAC routed out of p0 (out_udp);
    into p3, packets routed into the bridge to B1 (in_b1) and B2 (in_b2);
    and what nfvd sends: its ARP reply (reply), the routed packets
    (routed())."""
    req = Ether(src=GW_B1, dst=BCAST) / ARP(op=1, hwsrc=GW_B1, psrc="10.8.0.1",
                                            pdst="10.8.0.254")
    out_udp = Ether(src=GW_B1, dst=GW_BR) / IP(src="10.8.0.1", dst="10.0.0.1", ttl=9) / \
        UDP(sport=7, dport=8) / b"out"
    in_b1 = IP(src="10.3.0.1", dst="10.8.0.1", ttl=9) / UDP(sport=7, dport=8) / b"in-b1"
    in_b2 = IP(src="10.3.0.1", dst="10.8.0.2", ttl=9) / UDP(sport=7, dport=8) / b"in-b2"
    reply = bytes(Ether(src=GW_BR, dst=GW_B1) / ARP(op=2, hwsrc=GW_BR, psrc="10.8.0.254",
                                                    hwdst=GW_B1, pdst="10.8.0.1"))

    @staticmethod
    def routed(pkt, src, dst):
        p = pkt.copy()
        p[IP].ttl -= 1
        del p[IP].chksum
        return bytes(Ether(src=src, dst=dst) / p)

    @staticmethod
    def start(tmp_path, in1, *extra):
        """nfvd on the topology, in1 into p1, the two into p3 (p3 down
        until p1's frames are through: then up, and those waited for);
        extra commands before it starts."""
        p3 = pcap_mac(3)
        nfvd = Nfvd(tmp_path)
        nfvd.add_port("p0")
        nfvd.add_port("p1", rx=[bytes(f) for f in in1])
        nfvd.add_port("p2")
        nfvd.add_port("p3", rx=[bytes(Ether(src=GW_H3, dst=p3) / Gateway.in_b1),
                                bytes(Ether(src=GW_H3, dst=p3) / Gateway.in_b2)])
        nfvd.cmd("bridge add br0 mac %s" % GW_BR,
                 "bridge port add br0 dev p1", "bridge port add br0 dev p2",
                 "addr add 10.8.0.254/24 dev br0",
                 "addr add 10.0.0.254/24 dev p0", "addr add 10.3.0.254/24 dev p3",
                 "neigh add 10.0.0.1 lladdr 02:00:00:00:00:01 dev p0",
                 "neigh add 10.3.0.1 lladdr %s dev p3" % GW_H3,
                 "neigh add 10.8.0.1 lladdr %s dev br0" % GW_B1,
                 "neigh add 10.8.0.2 lladdr %s dev br0" % GW_B2,
                 *extra, "port set p3 down")
        nfvd.start()
        nfvd.wait_processed({"p1": len(in1)})
        return nfvd

    @staticmethod
    def finish(nfvd, in1):
        """p3 up; the stats once its two packets are through."""
        nfvd.ctl("port set p3 up")
        return nfvd.wait_processed({"p1": len(in1), "p3": 2})


def test_bridge_gateway(tmp_path):
    """addr add on a bridge makes it the gateway of its ports (a BVI): it
    answers ARP through the bridge, routes what its ports send to its MAC,
    and routes into the bridge (FDB lookup, or flooding when unknown)."""
    g = Gateway
    in1 = [g.req, g.out_udp]
    nfvd = g.start(tmp_path, in1)
    assert fdb(nfvd) == {(GW_B1, "p1", "learned"), (GW_BR, "br0", "static")}
    st = g.finish(nfvd, in1)
    assert drops(st) == {}
    r = rows(nfvd)["br0"]
    # In: B1's two frames; out: the ARP reply, the flood of B1's request to
    # p2, in_b1 to p1, in_b2 to p1 and p2.
    assert (r["rx_packets"], r["tx_packets"]) == (2, 5)
    out = nfvd.stop()
    assert out["p0"] == [g.routed(g.out_udp[IP], pcap_mac(0), "02:00:00:00:00:01")]
    # The ARP reply through the bridge to B1; then in_b1 to B1 (learned on
    # p1), in_b2 flooded (B2 never seen).
    assert out["p1"] == [g.reply, g.routed(g.in_b1, GW_BR, GW_B1),
                         g.routed(g.in_b2, GW_BR, GW_B2)]
    assert out["p2"] == [bytes(g.req), g.routed(g.in_b2, GW_BR, GW_B2)]


def test_vlan_port(tmp_path):
    """A VLAN sub-interface as a bridge port: its frames are bridged with
    the tag removed, frames to it leave its port tagged. C on p3 comes up
    once A and B are learned."""
    def tagged(f, vlan):
        e = Ether(f)
        return bytes(Ether(src=e.src, dst=e.dst) / Dot1Q(vlan=vlan) / e.payload)
    a_bc = arp(A)                                     # to p2, and v10 (tagged)
    b_bc = frame(B, BCAST, b"b")                      # from v10: to p0, p2 untagged
    c_b, c_a = frame(C, B, b"cb"), frame(C, A, b"ca")
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=[a_bc])
    nfvd.add_port("p1", rx=[tagged(b_bc, 10), tagged(b_bc, 20)])
    nfvd.add_port("p2")
    nfvd.add_port("p3", rx=[c_b, c_a])
    nfvd.cmd("vlan add v10 dev p1 id 10", "vlan add v30 dev p2 id 30", "bridge add br0",
             "bridge port add br0 dev p0", "bridge port add br0 dev v10",
             "bridge port add br0 dev p2", "bridge port add br0 dev p3", "port set p3 down")
    nfvd.start()
    nfvd.wait_processed({"p0": 1, "p1": 2})
    assert {(m, p) for m, p, t in fdb(nfvd) if t == "learned"} == {(A, "p0"), (B, "v10")}
    nfvd.ctl("port set p3 up")
    st = nfvd.wait_processed({"p0": 1, "p1": 2, "p3": 2})
    assert drops(st) == {"vlan_input/unknown_vlan": 1}
    for line, msg in [("bridge port add br0 dev p1", "p1 has VLAN v10, a port of bridge br0"),
                      ("bridge port add br0 dev v30",
                       "v30 is on p2, a port of bridge br0 (which takes its tagged frames)")]:
        try:
            nfvd.ctl(*line.split())
            raise AssertionError("%s succeeded" % line)
        except CtlError as e:
            assert msg in str(e), (line, str(e))
    out = nfvd.stop()
    assert out["p1"] == [tagged(a_bc, 10), tagged(c_b, 10)]
    assert out["p0"] == [b_bc, c_a]
    assert sorted(out["p2"]) == sorted([a_bc, b_bc])
    assert out["p3"] == []     # down while A and B flooded


def test_mtu(tmp_path):
    """A frame whose L2 payload (less the Ethernet header, and less an
    802.1Q tag it carries) is over a member's MTU does not leave by that
    member: known unicast is dropped, a flood skips that member only, each
    member not sent to is one bridge_input/mtu_exceeded drop. A VLAN member
    has its port's MTU, its tag added on top.

        A -- p0 (mtu 1500) --+
        B -- p1 (mtu 1400) --+-- br0 --+-- p3 (mtu 1500) -- D
        C -- p2 (mtu 1400) v20 --------+

    p3 comes up once A, B and C are learned (their broadcasts flooded)."""
    D = "02:00:00:00:0b:03"

    def sized(src, dst, payload, vlan=None):
        """A frame with an L2 payload (IPv4 packet) of payload bytes."""
        l3 = IP(src="10.77.0.3", dst="10.77.0.4") / UDP(sport=1, dport=2) / \
            (b"Z" * (payload - 28))
        eth = Ether(src=src, dst=dst)
        return bytes(eth / Dot1Q(vlan=vlan) / l3 if vlan is not None else eth / l3)

    def tagged(f, vlan):
        e = Ether(f)
        return bytes(Ether(src=e.src, dst=e.dst) / Dot1Q(vlan=vlan) / e.payload)
    a_bc, b_bc, c_bc = frame(A, BCAST, b"a"), frame(B, BCAST, b"b"), frame(C, BCAST, b"c")
    to_b = sized(D, B, 1400)                  # p1's MTU: sent
    to_b_over = sized(D, B, 1401)             # dropped
    to_c = sized(D, C, 1400)                  # v20: sent, 1418 bytes with its tag
    to_c_over = sized(D, C, 1401)             # dropped
    to_b_tagged = sized(D, B, 1400, vlan=5)   # 1418 bytes, its tag not counted: sent
    to_b_tagged_over = sized(D, B, 1401, vlan=5)
    unknown = bytes(Ether(src=D, dst="02:00:00:00:0e:55") /
                    IP(src="10.77.0.3", dst="10.77.0.4") / UDP(sport=1, dport=2) /
                    (b"Z" * 1373))            # 1401: flooded to p0 only
    bc_1500 = sized(D, BCAST, 1500)           # p0 only
    bc_1501 = sized(D, BCAST, 1501)           # no member: the frame and two copies dropped
    to_a = sized(D, A, 1500)
    in3 = [to_b, to_b_over, to_c, to_c_over, to_b_tagged, to_b_tagged_over, unknown,
           bc_1500, bc_1501, to_a]
    assert len(unknown) == 1415
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=[a_bc])
    nfvd.add_port("p1", rx=[b_bc], opts=" mtu 1400")
    nfvd.add_port("p2", rx=[tagged(c_bc, 20)], opts=" mtu 1400")
    nfvd.add_port("p3", rx=in3)
    nfvd.cmd("vlan add v20 dev p2 id 20", "bridge add br0",
             "bridge port add br0 dev p0", "bridge port add br0 dev p1",
             "bridge port add br0 dev v20", "bridge port add br0 dev p3", "port set p3 down")
    nfvd.start()
    nfvd.wait_processed({"p0": 1, "p1": 1, "p2": 1})
    assert {(m, p) for m, p, t in fdb(nfvd) if t == "learned"} == \
        {(A, "p0"), (B, "p1"), (C, "v20")}
    nfvd.ctl("port set p3 up")
    st = nfvd.wait_processed({"p0": 1, "p1": 1, "p2": 1, "p3": len(in3)})
    # One each: to_b_over, to_c_over, to_b_tagged_over; two each (p1, v20):
    # unknown, bc_1500; three (p0, p1, v20): bc_1501.
    assert drops(st) == {"bridge_input/mtu_exceeded": 10}
    r = rows(nfvd)
    assert (r["p1"]["mtu"], r["v20"]["mtu"], r["p0"]["mtu"]) == (1400, 1400, 1500)
    # In: 3 broadcasts, then D's 10. Out: the broadcasts 2 each; to_b,
    # to_c, to_b_tagged, unknown, bc_1500, to_a.
    assert (r["br0"]["rx_packets"], r["br0"]["tx_packets"]) == (3 + 10, 6 + 6)
    assert nfvd.stats()["bridge"]["flooded"] == 3 + 2
    out = nfvd.stop()
    assert sorted(out["p0"][:2]) == sorted([b_bc, c_bc])
    assert out["p0"][2:] == [unknown, bc_1500, to_a]
    assert sorted(out["p1"][:2]) == sorted([a_bc, c_bc])
    assert out["p1"][2:] == [to_b, to_b_tagged]
    assert sorted(out["p2"][:2]) == sorted([tagged(a_bc, 20), tagged(b_bc, 20)])
    assert out["p2"][2:] == [tagged(to_c, 20)]
    assert len(out["p2"][2]) == 1418
    assert out["p3"] == []     # down while the others flooded


def test_priority_tagged(tmp_path):
    """A member's priority-tagged frame (802.1Q tag with VID 0: a priority,
    no VLAN) is its untagged frame: the tag goes before the frame is
    learned and bridged, and the bridge's address answers it. Frames
    tagged with a VLAN are bridged as they are."""
    BR = "02:00:00:00:0b:fe"
    ping = IP(src="10.8.0.1", dst="10.8.0.254") / ICMP(type=8, id=1, seq=1) / b"vid0"
    bc = IP(src="10.8.0.1", dst="10.8.0.255") / UDP(sport=7, dport=8) / b"bc"
    uni = IP(src="10.8.0.1", dst="10.8.0.2") / UDP(sport=7, dport=8) / b"to-b"
    in0 = [Ether(src=A, dst=BR) / Dot1Q(vlan=0, prio=3) / ping,
           Ether(src=A, dst=BCAST) / Dot1Q(vlan=0, prio=5) / bc,
           Ether(src=A, dst=B) / Dot1Q(vlan=0) / uni,
           Ether(src=A, dst=B) / Dot1Q(vlan=7) / uni]
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=[bytes(f) for f in in0])
    nfvd.add_port("p1")
    nfvd.cmd("bridge add br0 mac %s" % BR, "bridge port add br0 dev p0",
             "bridge port add br0 dev p1", "addr add 10.8.0.254/24 dev br0",
             "neigh add 10.8.0.1 lladdr %s dev br0" % A)
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(in0)})
    # The broadcast's copy for the bridge's interface (not routed).
    assert drops(st) == {"ip4_lookup/l2_broadcast": 1}
    assert st["icmp"]["echo_replies"] == 1
    assert fdb(nfvd) == {(A, "p0", "learned"), (BR, "br0", "static")}
    r = rows(nfvd)["br0"]
    # In: the four frames; out: the echo reply, the broadcast and both
    # unicast frames to p1 (B unknown).
    assert (r["rx_packets"], r["tx_packets"]) == (4, 4)
    out = nfvd.stop()
    reply = Ether(src=BR, dst=A) / IP(src="10.8.0.254", dst="10.8.0.1", ttl=64, id=ping.id,
                                      flags=ping.flags) / \
        ICMP(type=0, id=1, seq=1) / b"vid0"
    assert out["p0"] == [bytes(reply)]
    assert out["p1"] == [bytes(Ether(src=A, dst=BCAST) / bc), bytes(Ether(src=A, dst=B) / uni),
                         bytes(in0[3])]


def test_mtu_follows_members(tmp_path):
    """The bridge's own MTU is its members' smallest, as Linux sets it (1500
    without members), and follows members joining and leaving: a packet
    routed into the bridge over it is refused as for any interface, with an
    ICMP error (fragmentation needed, the bridge's MTU), not sent to the
    members that take it and dropped at the others.

        H0 -- p0 --+        +-- p1, p2 (mtu 1500)
                    [nfvd] br0 (10.8.0.254/24)
        H3 -- p3 --+        +-- p4 (mtu 1280), a member from the second packet on
    """
    BR, B1 = "02:00:00:00:0b:fe", "02:00:00:00:0b:01"
    H0, H3 = "02:00:00:00:03:00", "02:00:00:00:03:03"
    P0, P3 = pcap_mac(0), pcap_mac(3)

    def big(src_mac, dst_mac, src, n):
        """A DF packet of 1400 bytes to B1."""
        return bytes(Ether(src=src_mac, dst=dst_mac) /
                     IP(src=src, dst="10.8.0.1", ttl=9, flags="DF", id=n) /
                     UDP(sport=7, dport=8) / (b"B" * (1400 - 28)))
    first, second = big(H0, P0, "10.3.0.1", 1), big(H3, P3, "10.4.0.1", 2)
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=[first])
    nfvd.add_port("p1")
    nfvd.add_port("p2")
    nfvd.add_port("p3", rx=[second])
    nfvd.add_port("p4", opts=" mtu 1280")

    def assert_mtu(want):
        assert rows(nfvd)["br0"]["mtu"] == want

    nfvd.cmd("bridge add br0 mac %s" % BR, "bridge port add br0 dev p1", "bridge port add br0 dev p2",
             "addr add 10.8.0.254/24 dev br0",
             "addr add 10.3.0.254/24 dev p0", "addr add 10.4.0.254/24 dev p3",
             "neigh add 10.3.0.1 lladdr %s dev p0" % H0,
             "neigh add 10.4.0.1 lladdr %s dev p3" % H3,
             "neigh add 10.8.0.1 lladdr %s dev br0" % B1,
             "port set p0 down", "port set p3 down")
    nfvd.start()
    assert_mtu(1500)
    nfvd.ctl("port set p0 up")
    nfvd.wait_processed({"p0": 1})
    nfvd.ctl("bridge port add br0 dev p4")
    assert_mtu(1280)
    nfvd.ctl("port set p3 up")
    st = nfvd.wait_processed({"p0": 1, "p3": 1})
    assert drops(st) == {"ip4_rewrite/frag_needed": 1}
    nfvd.ctl("bridge port del br0 dev p4")
    assert_mtu(1500)
    nfvd.ctl("bridge port del br0 dev p1")
    nfvd.ctl("bridge port del br0 dev p2")
    assert_mtu(1500)
    nfvd.ctl("bridge port add br0 dev p4")
    assert_mtu(1280)
    nfvd.ctl("port del p4")   # a member going: the bridge has none left
    assert_mtu(1500)
    out = nfvd.stop()

    routed = Ether(first)[IP].copy()
    routed.ttl -= 1
    del routed.chksum
    routed = bytes(Ether(src=BR, dst=B1) / routed)
    # The first packet, flooded (B1 not yet learned), to p1 and p2.
    assert out["p1"] == [routed] and out["p2"] == [routed]
    assert out["p0"] == []
    err = icmp4_error(second, "10.4.0.254", ("p3", H3, P3), 3, 4, mtu=1280)
    assert out["p3"] == [bytes(err)]
