# SPDX-License-Identifier: BSD-3-Clause
"""
The L4 load balancer (lb): a VIP's connections spread over its backends by
weighted Maglev hashing; in NAT mode destinations and sources rewritten,
in DSR mode the packet sent unchanged to the backend's MAC; sessions,
draining, rescheduling, drops and views.

    clients 198.51.100.0/24 -- R1 -- v10 (cli) t [nfvd] v20 (srv) -- backends 10.0.0.11-.14
                                     203.0.113.1/24     10.0.0.254/24
    VIP 192.0.2.100:80/tcp and :53/udp (not an address of nfvd's: routed to it by R1)

Both VLANs are on one pcap port, so one capture holds the exchange in
order, and "--burst 1" makes nfvd take it a packet at a time. Expected
frames are built by scapy with fresh checksums, so a byte-exact match also
checks the incremental checksum updates.
"""
import collections
import time

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw

from nfvdlib import CtlError, Nfvd, drops, pcap_mac
from test_nat44 import (assert_error_checksums, frags, fresh, icmp_error, q_tcp, q_udp, quoted,
                        retranslate, routed_frag)

T = pcap_mac(0)
R1 = "02:00:00:00:01:01"
BMAC = "02:00:00:00:02:%02x"
VIP = "192.0.2.100"
C, C2 = "198.51.100.10", "198.51.100.20"
BACKENDS = ["10.0.0.11", "10.0.0.12", "10.0.0.13", "10.0.0.14"]

CONFIG = [
    "vlan add cli dev t id 10",
    "vlan add srv dev t id 20",
    "addr add 203.0.113.1/24 dev cli",
    "addr add 10.0.0.254/24 dev srv",
    "neigh add 203.0.113.2 lladdr %s dev cli" % R1,
    "route add 198.51.100.0/24 via 203.0.113.2",
] + ["neigh add %s lladdr %s dev srv" % (b, BMAC % (i + 11)) for i, b in enumerate(BACKENDS)]


def from_cli(l3):
    return Ether(dst=T, src=R1) / Dot1Q(vlan=10) / l3


def from_srv(l3, backend):
    return Ether(dst=T, src=BMAC % (BACKENDS.index(backend) + 11)) / Dot1Q(vlan=20) / l3


def routed(l3):
    l3 = IP(bytes(l3))
    l3.ttl -= 1
    return fresh(l3)


def to_cli(l3):
    return bytes(Ether(dst=R1, src=T) / Dot1Q(vlan=10) / routed(l3))


def to_srv(l3, backend):
    return bytes(Ether(dst=BMAC % (BACKENDS.index(backend) + 11), src=T) / Dot1Q(vlan=20) /
                 routed(l3))


def tcp(src, dst, sport, dport, flags, payload=b""):
    return IP(src=src, dst=dst, ttl=64) / TCP(sport=sport, dport=dport, flags=flags,
                                              seq=1000, ack=2000) / payload


def udp(src, dst, sport, dport, payload=b"q"):
    return IP(src=src, dst=dst, ttl=64) / UDP(sport=sport, dport=dport) / payload


def start(tmp_path, frames, extra_cfg=(), args=()):
    nfvd = Nfvd(tmp_path)
    nfvd.extra_args = ["--burst", "1", *args]
    nfvd.add_port("t", rx=frames)
    nfvd.cmd(*CONFIG, *extra_cfg)
    nfvd.start()
    return nfvd


def from_new(l3, index):
    """A frame from R1 on a port added while nfvd runs (pcap index, untagged)."""
    return Ether(dst=pcap_mac(index), src=R1) / l3


def backend_of(frame):
    """The backend a frame leaving on srv goes to (its destination), or None."""
    e = Ether(frame)
    return e[IP].dst if e[Dot1Q].vlan == 20 else None


def test_tcp_connection_byte_exact(tmp_path):
    """A client's connection to the VIP goes to one backend, whose replies
    leave from the VIP; the session is established and counted; a packet
    to another port of the VIP is routed untouched (here: to R1, the VIP's
    route)."""
    svc = ["lb service add %s:80 proto tcp" % VIP,
           "lb backend add %s:80 proto tcp 10.0.0.11:8080" % VIP,
           "lb backend add %s:80 proto tcp 10.0.0.12:8080" % VIP,
           "route add %s/32 via 203.0.113.2" % VIP]
    # First pass: which backend the 5-tuple is scheduled to.
    nfvd = start(tmp_path / "a", [from_cli(tcp(C, VIP, 40000, 80, "S"))], svc)
    nfvd.wait_processed({"t": 1})
    sess = nfvd.ctl("lb show sessions")["session_list"]
    nfvd.stop()
    assert len(sess) == 1
    b, bport = sess[0]["backend"], sess[0]["backend_port"]
    assert (b, bport) in [("10.0.0.11", 8080), ("10.0.0.12", 8080)], sess
    seq = [
        (from_cli(tcp(C, VIP, 40000, 80, "S")), to_srv(tcp(C, b, 40000, 8080, "S"), b)),
        (from_srv(tcp(b, C, 8080, 40000, "SA"), b), to_cli(tcp(VIP, C, 80, 40000, "SA"))),
        (from_cli(tcp(C, VIP, 40000, 80, "A")), to_srv(tcp(C, b, 40000, 8080, "A"), b)),
        (from_cli(tcp(C, VIP, 40000, 80, "PA", b"GET /")),
         to_srv(tcp(C, b, 40000, 8080, "PA", b"GET /"), b)),
        (from_srv(tcp(b, C, 8080, 40000, "PA", b"200 OK"), b),
         to_cli(tcp(VIP, C, 80, 40000, "PA", b"200 OK"))),
        # Another port of the VIP: not a service, routed as it is.
        (from_cli(tcp(C, VIP, 40001, 81, "S")), to_cli(tcp(C, VIP, 40001, 81, "S"))),
    ]
    nfvd = start(tmp_path / "b", [f for f, _ in seq], svc)
    st = nfvd.wait_processed({"t": len(seq)})
    assert drops(st) == {}, drops(st)
    sh = nfvd.ctl("lb show sessions")
    assert (sh["fwd"], sh["rev"], sh["scheduled"], sh["rescheduled"]) == (3, 2, 1, 0), sh
    assert sh["sessions"] == 1 and sh["by_state"]["tcp_established"] == 1, sh
    s = sh["session_list"][0]
    assert (s["client"], s["client_port"], s["vip"], s["vip_port"], s["backend"],
            s["backend_port"], s["packets_fwd"], s["packets_rev"]) == (
        C, 40000, VIP, 80, b, 8080, 3, 2), s
    svcv = sh["services"][0]
    assert (svcv["vip"], svcv["port"], svcv["proto"], svcv["mode"], svcv["sessions"]) == (
        VIP, 80, "tcp", "nat", 1), svcv
    assert sorted((x["addr"], x["port"], x["weight"]) for x in svcv["backends"]) == [
        ("10.0.0.11", 8080, 1), ("10.0.0.12", 8080, 1)]
    assert sum(x["maglev_entries"] for x in svcv["backends"]) == 65537
    assert st["lb"]["fwd"] == 3 and st["lb"]["rev"] == 2
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]


def test_weights_and_stickiness(tmp_path):
    """2,000 UDP flows over weights 1:1:2: the Maglev table's entries are in
    exactly that proportion, the flows within a few percent of it, and each
    flow's second datagram goes where its first went."""
    flows = [(C if i % 2 else C2, 10000 + i) for i in range(2000)]
    frames = [from_cli(udp(c, VIP, p, 53)) for c, p in flows] * 2
    nfvd = start(tmp_path, frames, [
        "lb service add %s:53 proto udp" % VIP,
        "lb backend add %s:53 proto udp 10.0.0.11" % VIP,
        "lb backend add %s:53 proto udp 10.0.0.12 weight 1" % VIP,
        "lb backend add %s:53 proto udp 10.0.0.13 weight 2" % VIP])
    st = nfvd.wait_processed({"t": len(frames)})
    assert drops(st) == {}, drops(st)
    sh = nfvd.ctl("lb show")
    ent = {x["addr"]: x["maglev_entries"] for x in sh["services"][0]["backends"]}
    assert abs(ent["10.0.0.13"] - 2 * ent["10.0.0.11"]) <= 2, ent
    assert abs(ent["10.0.0.11"] - ent["10.0.0.12"]) <= 1, ent
    assert sh["scheduled"] == 2000 and sh["fwd"] == 4000 and sh["sessions"] == 2000, sh
    out = nfvd.stop()["t"]
    assert len(out) == 4000
    first, second = [backend_of(f) for f in out[:2000]], [backend_of(f) for f in out[2000:]]
    assert first == second
    share = collections.Counter(first)
    assert abs(share["10.0.0.11"] / 2000 - 0.25) < 0.04, share
    assert abs(share["10.0.0.12"] / 2000 - 0.25) < 0.04, share
    assert abs(share["10.0.0.13"] / 2000 - 0.50) < 0.04, share
    # Each datagram is the original with only the destination (and TTL,
    # checksums) changed.
    for (c, p), f in zip(flows, out[:2000]):
        b = backend_of(f)
        assert f == to_srv(udp(c, b, p, 53), b)


def test_backend_removal_moves_few_flows_and_syn_reschedules(tmp_path):
    """1,000 connections over four backends; one is deleted; every client
    sends its SYN again (a new connection is always scheduled afresh): the
    deleted backend's flows move, and nearly all the others stay (Maglev's
    minimal disruption)."""
    flows = [(C, 20000 + i) for i in range(1000)]
    syns = [from_cli(tcp(c, VIP, p, 80, "S")) for c, p in flows]
    cfg = ["lb service add %s:80 proto tcp" % VIP] + [
        "lb backend add %s:80 proto tcp %s" % (VIP, b) for b in BACKENDS]
    nfvd = start(tmp_path, syns, cfg)
    nfvd.wait_processed({"t": 1000})
    nfvd.ctl("lb backend del %s:80 proto tcp 10.0.0.14" % VIP)
    nfvd.add_port_now("again", rx=[from_new(tcp(c, VIP, p, 80, "S"), 1) for c, p in flows])
    st = nfvd.wait_processed({"again": 1000})
    assert drops(st) == {}, drops(st)
    sh = nfvd.ctl("lb show")
    assert sh["scheduled"] == 2000 and sh["rescheduled"] == 1000, sh
    assert sorted(x["addr"] for x in sh["services"][0]["backends"]) == BACKENDS[:3]
    out = nfvd.stop()["t"]
    assert len(out) == 2000, len(out)
    before, after = [backend_of(f) for f in out[:1000]], [backend_of(f) for f in out[1000:]]
    assert "10.0.0.14" not in after
    moved = sum(1 for a, b in zip(before, after) if a != "10.0.0.14" and a != b)
    kept = sum(1 for a in before if a != "10.0.0.14")
    assert 650 < kept < 850 and moved <= kept * 0.05, (moved, kept)


def test_drain_keeps_sessions_and_no_backend_drops(tmp_path):
    """Weight 0 drains a backend: its session goes on, no new flow reaches
    it; with every backend drained a new connection is dropped as
    lb/no_backend."""
    nfvd = start(tmp_path, [], ["lb service add %s:53 proto udp" % VIP,
                                "lb backend add %s:53 proto udp 10.0.0.11" % VIP])
    nfvd.add_port_now("a", rx=[from_new(udp(C, VIP, 7000, 53), 1)])
    nfvd.wait_processed({"a": 1})
    nfvd.ctl("lb backend add %s:53 proto udp 10.0.0.12 weight 1" % VIP)
    nfvd.ctl("lb backend add %s:53 proto udp 10.0.0.11 weight 0" % VIP)
    new = [from_new(udp(C, VIP, 7001 + i, 53), 2) for i in range(50)]
    nfvd.add_port_now("b", rx=[from_new(udp(C, VIP, 7000, 53, b"again"), 2)] + new)
    nfvd.wait_processed({"b": 51})
    nfvd.ctl("lb backend add %s:53 proto udp 10.0.0.12 weight 0" % VIP)
    nfvd.add_port_now("c", rx=[from_new(udp(C, VIP, 9000, 53), 3),
                               from_new(udp(C, VIP, 7000, 53, b"still"), 3)])
    st = nfvd.wait_processed({"c": 2})
    assert drops(st) == {"lb/no_backend": 1}, drops(st)
    sh = nfvd.ctl("lb show")
    assert sh["no_backend"] == 1 and sh["scheduled"] == 51, sh
    w = {x["addr"]: (x["weight"], x["maglev_entries"]) for x in sh["services"][0]["backends"]}
    assert w == {"10.0.0.11": (0, 0), "10.0.0.12": (0, 0)}, w
    # Added again without a weight: the default weight, 1, back in service;
    # the same backend is not listed twice.
    nfvd.ctl("lb backend add %s:53 proto udp 10.0.0.12" % VIP)
    w = {x["addr"]: (x["weight"], x["maglev_entries"])
         for x in nfvd.ctl("lb show")["services"][0]["backends"]}
    assert w == {"10.0.0.11": (0, 0), "10.0.0.12": (1, 65537)}, w
    assert len(nfvd.ctl("lb show")["services"][0]["backends"]) == 2
    out = nfvd.stop()["t"]
    assert len(out) == 53, len(out)
    assert out[0] == to_srv(udp(C, "10.0.0.11", 7000, 53), "10.0.0.11")
    assert out[1] == to_srv(udp(C, "10.0.0.11", 7000, 53, b"again"), "10.0.0.11")
    assert {backend_of(f) for f in out[2:52]} == {"10.0.0.12"}
    assert out[52] == to_srv(udp(C, "10.0.0.11", 7000, 53, b"still"), "10.0.0.11")


def test_table_full_expiry_and_service_delete(tmp_path):
    flows = [from_cli(udp(C, VIP, 30000 + i, 53)) for i in range(70)]
    nfvd = start(tmp_path, flows, ["lb service add %s:53 proto udp" % VIP,
                                   "lb backend add %s:53 proto udp 10.0.0.11" % VIP,
                                   "lb set timeout udp 1"], args=["--lb-sessions", "64"])
    st = nfvd.wait_processed({"t": 70})
    assert drops(st) == {"lb/table_full": 6}, drops(st)
    sh = nfvd.ctl("lb show")
    assert sh["sessions"] == 64 and sh["table_full"] == 6 and sh["max_sessions"] == 64, sh
    assert sh["timeouts"]["udp"] == 1
    time.sleep(1.5)
    assert nfvd.ctl("lb show")["sessions"] == 0
    # After the service is gone, the VIP is only routed (no route: dropped).
    nfvd.ctl("lb service del %s:53 proto udp" % VIP)
    assert nfvd.ctl("lb show")["services"] == []
    nfvd.add_port_now("late", rx=[from_new(udp(C, VIP, 30000, 53), 1)])
    st = nfvd.wait_processed({"late": 1})
    d = drops(st)
    assert d.get("lb/table_full") == 6 and sum(d.values()) == 7, d
    out = nfvd.stop()
    assert len(out["t"]) == 64 and out["late"] == []


def test_ttl_expiring_packets_are_not_translated(tmp_path):
    """Mode nat: a packet that would be translated with TTL 1 (a new
    connection, one of a session either way) is not, nor makes a session:
    it gets ICMP time exceeded quoting it as it came, so neither side
    learns the other's address."""
    b = "10.0.0.11"

    def t1(l3):
        l3 = l3.copy()
        l3.ttl = 1
        return fresh(l3)

    def time_exceeded(l3, src, back):
        orig = bytes(l3)
        err = IP(src=src, dst=IP(orig).src, tos=0xC0, ttl=64, id=0, flags=0, proto=1) / ICMP(
            type=11, code=0) / Raw(orig)
        return bytes(back / IP(bytes(err)))

    to_r1 = Ether(dst=R1, src=T) / Dot1Q(vlan=10)
    to_b = Ether(dst=BMAC % 11, src=T) / Dot1Q(vlan=20)
    new1 = t1(tcp(C, VIP, 40000, 80, "S"))
    rev1 = t1(tcp(b, C, 8080, 40001, "SA"))
    fwd1 = t1(tcp(C, VIP, 40001, 80, "A"))
    seq = [
        (from_cli(new1), time_exceeded(new1, "203.0.113.1", to_r1)),
        (from_cli(tcp(C, VIP, 40001, 80, "S")), to_srv(tcp(C, b, 40001, 8080, "S"), b)),
        (from_srv(rev1, b), time_exceeded(rev1, "10.0.0.254", to_b)),
        (from_cli(fwd1), time_exceeded(fwd1, "203.0.113.1", to_r1)),
    ]
    nfvd = start(tmp_path, [f for f, _ in seq], [
        "lb service add %s:80 proto tcp" % VIP,
        "lb backend add %s:80 proto tcp %s:8080" % (VIP, b),
        "route add %s/32 via 203.0.113.2" % VIP])
    st = nfvd.wait_processed({"t": len(seq)})
    assert drops(st) == {"lb/ttl_expired": 3}, drops(st)
    assert len(nfvd.ctl("lb show sessions")["session_list"]) == 1
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]


def test_dsr_sends_the_packet_unchanged_to_the_backend(tmp_path):
    """Direct server return: the client's packets keep the VIP as
    destination and go to the backend's MAC (a router hop: TTL one less);
    the backend answers from the VIP through nfvd as plain routed traffic,
    untouched."""
    b = "10.0.0.12"
    seq = [
        (from_cli(tcp(C, VIP, 40000, 80, "S")), to_srv(tcp(C, VIP, 40000, 80, "S"), b)),
        (from_cli(tcp(C, VIP, 40000, 80, "A", b"GET /")),
         to_srv(tcp(C, VIP, 40000, 80, "A", b"GET /"), b)),
        (from_srv(tcp(VIP, C, 80, 40000, "PA", b"200 OK"), b),
         to_cli(tcp(VIP, C, 80, 40000, "PA", b"200 OK"))),
    ]
    nfvd = start(tmp_path, [f for f, _ in seq], [
        "lb service add %s:80 proto tcp mode dsr" % VIP,
        "lb backend add %s:80 proto tcp %s" % (VIP, b)])
    st = nfvd.wait_processed({"t": len(seq)})
    assert drops(st) == {}, drops(st)
    sh = nfvd.ctl("lb show sessions")
    assert sh["services"][0]["mode"] == "dsr"
    assert (sh["fwd"], sh["rev"], sh["scheduled"]) == (2, 0, 1), sh
    s = sh["session_list"][0]
    assert (s["backend"], s["backend_port"], s["packets_fwd"]) == (b, 80, 2), s
    with pytest.raises(CtlError) as e:
        nfvd.ctl("lb backend add %s:80 proto tcp 10.0.0.11:8080" % VIP)
    assert "takes the service's port" in e.value.stdout + e.value.stderr
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]


def test_fragments_follow_their_first(tmp_path):
    """Fragmented datagrams through the load balancer: a first fragment (it
    carries the ports) is scheduled and translated as any packet of its
    session; the later ones get what it got: mode nat, the backend's
    address to the VIP, the VIP's from the backend (each fragment equal to
    scapy's fragment of the datagram translated whole, so the first's UDP
    checksum is the whole datagram's); mode dsr, the backend's MAC, the
    packet unchanged. A later fragment to the VIP whose first was not seen
    is routed as it came (frag_unknown)."""
    b = "10.0.0.12"
    big = bytes(range(256)) * 2
    q = udp(C, VIP, 7000, 53, big)
    q.id = 100
    r = udp(b, C, 5353, 7000, big[::-1])
    r.id = 200
    d = udp(C2, VIP, 7001, 54, big)
    d.id = 300
    orphan = frags(udp(C, VIP, 7002, 53, big))[1]

    def eth(dst, src, vlan):
        return Ether(dst=dst, src=src) / Dot1Q(vlan=vlan, type=0x0800)

    cli_in, srv_in = eth(T, R1, 10), eth(T, BMAC % 12, 20)
    to_c, to_b = eth(R1, T, 10), eth(BMAC % 12, T, 20)
    seq = []
    for l3, want, l2_in, l2_out in [
            (q, retranslate(q, dst=b, dport=5353), cli_in, to_b),
            (r, retranslate(r, src=VIP, sport=53), srv_in, to_c),
            (d, d, cli_in, to_b)]:
        got, exp = frags(l3), frags(want)
        assert len(got) == len(exp) > 2
        seq += [(bytes(l2_in) + g, routed_frag(e, l2_out)) for g, e in zip(got, exp)]
    nfvd = start(tmp_path, [f for f, _ in seq] + [bytes(cli_in) + orphan], [
        "route add %s/32 via 203.0.113.2" % VIP,
        "lb service add %s:53 proto udp" % VIP,
        "lb backend add %s:53 proto udp %s:5353" % (VIP, b),
        "lb service add %s:54 proto udp mode dsr" % VIP,
        "lb backend add %s:54 proto udp %s" % (VIP, b)])
    st = nfvd.wait_processed({"t": len(seq) + 1})
    assert drops(st) == {}, drops(st)
    sh = nfvd.ctl("lb show sessions")
    n_later = len(frags(q)) - 1
    assert (sh["fwd"], sh["rev"], sh["scheduled"]) == (2, 1, 2), sh
    assert (sh["frag_fwd"], sh["frag_rev"], sh["frag_unknown"]) == (2 * n_later, n_later, 1), sh
    assert st["lb"]["frag_fwd"] == 2 * n_later
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq] + [routed_frag(orphan, to_c)]


def test_dsr_unresolved_backend_is_asked_for_and_dropped_meanwhile(tmp_path):
    """A direct-return backend on the link whose MAC nfvd does not know: nfvd
    asks for it (ARP, from the backend's link) without waiting for traffic;
    a packet for it meanwhile is dropped as lb/backend_unresolved, and one
    for a backend with no route as lb/backend_no_route."""
    nfvd = start(tmp_path, [], [
        "lb service add %s:80 proto tcp mode dsr" % VIP,
        "lb backend add %s:80 proto tcp 10.0.0.50" % VIP,
        "lb service add %s:81 proto tcp mode dsr" % VIP,
        "lb backend add %s:81 proto tcp 172.16.0.1" % VIP])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        rows = [n for n in nfvd.ctl("neigh show")["neighbors"] if n["address"] == "10.0.0.50"]
        if rows:
            break
        time.sleep(0.1)
    assert rows and rows[0]["dev"] == "srv", rows
    nfvd.add_port_now("c2", rx=[from_new(tcp(C, VIP, 40000, 80, "S"), 1),
                                from_new(tcp(C, VIP, 40000, 81, "S"), 1)])
    st = nfvd.wait_processed({"c2": 2})
    assert drops(st) == {"lb/backend_unresolved": 1, "lb/backend_no_route": 1}, drops(st)
    out = nfvd.stop()["t"]
    asks = [Ether(f) for f in out]
    assert asks and all(a[Dot1Q].vlan == 20 and a[ARP].op == 1 and a[ARP].pdst == "10.0.0.50"
                        and a[ARP].psrc == "10.0.0.254" for a in asks), [a.summary() for a in asks]


@pytest.mark.parametrize("cmd,err", [
    ("lb service add 203.0.113.100 proto tcp", "bad service"),
    ("lb service add 192.0.2.100:0 proto tcp", "bad port"),
    ("lb service add 192.0.2.100:80 proto sctp", "bad protocol"),
    ("lb service add 192.0.2.100:80 proto tcp mode foo", "bad mode"),
    ("lb service add 192.0.2.100:80 proto tcp", "exists"),
    ("lb service del 192.0.2.100:81 proto tcp", "no service"),
    ("lb backend add 192.0.2.100:81 proto tcp 10.0.0.11", "no service"),
    ("lb backend add 192.0.2.100:80 proto tcp 10.0.0.300", "bad backend"),
    ("lb service add 255.255.255.255:80 proto tcp", "the broadcast address"),
    ("lb service add 224.0.0.1:80 proto udp", "a multicast address"),
    ("lb backend add 192.0.2.100:80 proto tcp 0.0.0.0:80", "the unspecified address"),
    ("lb backend add 192.0.2.100:80 proto tcp 127.0.0.1", "a loopback address"),
    ("lb backend add 192.0.2.100:80 proto tcp 10.0.0.12 weight 10001", "bad weight"),
    ("lb backend add 192.0.2.100:80 proto tcp 10.0.0.12 height 1", "expected 'weight'"),
    ("lb backend del 192.0.2.100:80 proto tcp 10.0.0.99", "no backend"),
    ("lb set timeout tcp-foo 5", "unknown timeout"),
    ("lb show everything", "unexpected 'everything'"),
])
def test_bad_commands(tmp_path, cmd, err):
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("t")
    nfvd.cmd(*CONFIG, "lb service add %s:80 proto tcp" % VIP,
             "lb backend add %s:80 proto tcp 10.0.0.11" % VIP)
    nfvd.start()
    before = nfvd.ctl("lb show")
    with pytest.raises(CtlError) as e:
        nfvd.ctl(cmd)
    assert err in e.value.stdout + e.value.stderr, e.value
    assert nfvd.ctl("lb show") == before
    nfvd.stop()


def two_workers(tmp_path, rx_c, services):
    """Clients' port c (receiving rx_c) polled by worker 1 (lcore 2), the
    backends' port s by worker 0 (lcore 1); the services given."""
    nfvd = Nfvd(tmp_path)
    nfvd.lcores = ["--lcores", "0@0,1@0,2@1"]
    c = nfvd.add_port("c", rx=rx_c)
    s = nfvd.add_port("s")
    nfvd.cmd("worker set 2 rxq c:0", "worker set 1 rxq s:0",
             "addr add 203.0.113.1/24 dev c", "addr add 10.0.0.254/24 dev s",
             "neigh add 203.0.113.2 lladdr %s dev c" % R1,
             "route add 198.51.100.0/24 via 203.0.113.2",
             *["neigh add %s lladdr %s dev s" % (b, BMAC % (i + 11))
               for i, b in enumerate(BACKENDS)],
             *services)
    nfvd.start()
    return nfvd, c, s


def test_two_workers_hand_packets_to_the_session_owner(tmp_path):
    """Clients reach the VIP through port c, polled by worker 1 (lcore 2);
    the backends answer through port s, whose frames here are given to
    worker 0 ("punt inject"). Each session lives on the worker its client's
    address and port name: a client's packet on the wrong worker is handed
    over before it is scheduled, a backend's reply likewise. Every packet
    is translated as with one worker, byte for byte; the counters add up."""
    from test_nat44 import client_owner, wait_counter
    clients = [("198.51.100.%d" % (i + 1), 42000 + i) for i in range(12)]
    owners = [client_owner(a, p) for a, p in clients]
    assert 0 in owners and 1 in owners, owners
    nfvd, c, s = two_workers(tmp_path, [Ether(dst=pcap_mac(0), src=R1) / tcp(a, VIP, p, 80, "S")
                                        for a, p in clients],
                             ["lb service add %s:80 proto tcp" % VIP,
                              *["lb backend add %s:80 proto tcp %s:8080" % (VIP, b)
                                for b in BACKENDS]])
    st = nfvd.wait_processed({"c": len(clients)})
    workers = nfvd.ctl("show workers")
    assert {q: w["lcore"] for w in workers["workers"] for q in w["rxqs"]} == \
        {"c:0": 2, "s:0": 1}, workers
    moved = owners.count(0)
    assert st["lb"]["handoff_out"] == moved and st["lb"]["handoff_in"] == moved, st["lb"]
    sess = nfvd.ctl("lb show sessions")["session_list"]
    assert sorted((x["client"], x["client_port"], x["worker"]) for x in sess) == \
        sorted((a, p, o) for (a, p), o in zip(clients, owners))
    backend = {(x["client"], x["client_port"]): x["backend"] for x in sess}
    replies = [(tcp(backend[(a, p)], a, 8080, p, "SA"), tcp(VIP, a, 80, p, "SA"))
               for a, p in clients]
    for (a, p), (pkt, _) in zip(clients, replies):
        b = backend[(a, p)]
        nfvd.ctl("punt", "inject", "dev", "s", "hex",
                 bytes(Ether(dst=s.mac, src=BMAC % (BACKENDS.index(b) + 11)) / pkt).hex())
    st = wait_counter(nfvd, "lb", "rev", len(clients))
    moved += owners.count(1)
    assert st["lb"]["handoff_out"] == moved and st["lb"]["handoff_in"] == moved, st["lb"]
    assert st["lb"]["handoff_full"] == 0
    assert st["lb"]["fwd"] == len(clients) and st["lb"]["rev"] == len(clients), st["lb"]
    assert st["lb"]["scheduled"] == len(clients)
    assert drops(st) == {}, drops(st)
    out = nfvd.stop()
    want_s = [bytes(Ether(dst=BMAC % (BACKENDS.index(backend[(a, p)]) + 11), src=s.mac) /
                    routed(tcp(a, backend[(a, p)], p, 8080, "S"))) for a, p in clients]
    want_c = [bytes(Ether(dst=R1, src=c.mac) / routed(x)) for _, x in replies]
    assert sorted(out["s"]) == sorted(want_s)
    assert sorted(out["c"]) == sorted(want_c)


def test_two_workers_hand_fragments_after_their_first(tmp_path):
    """Later fragments carry no ports to find their session's owner by: they
    follow their first fragment. Two clients' datagrams come in on c
    (worker 1): the one whose session lives on worker 0 is handed there
    fragment by fragment; the backend's replies, taken by worker 0 from s,
    likewise to worker 1 for the other. Byte for byte, exact counters."""
    from test_nat44 import client_owner, wait_counter
    b = "10.0.0.11"
    clients = [("198.51.100.3", 42000), ("198.51.100.1", 42000)]
    owners = [client_owner(a, p) for a, p in clients]
    assert owners == [0, 1], owners
    big = bytes(range(256)) * 2
    dgrams = [udp(a, VIP, p, 53, big) for a, p in clients]
    back = [udp(b, a, 5353, p, big[::-1]) for a, p in clients]
    for i, x in enumerate(dgrams + back):
        x.id = 10 + i
    eth = Ether(dst=pcap_mac(0), src=R1, type=0x0800)
    nfvd, c, s = two_workers(tmp_path, [bytes(eth) + f for x in dgrams for f in frags(x)],
                             ["lb service add %s:53 proto udp" % VIP,
                              "lb backend add %s:53 proto udp %s:5353" % (VIP, b)])
    n_later = len(frags(dgrams[0])) - 1
    wait_counter(nfvd, "lb", "frag_fwd", 2 * n_later)
    for x in back:
        for f in frags(x):
            nfvd.ctl("punt", "inject", "dev", "s", "hex",
                     (bytes(Ether(dst=s.mac, src=BMAC % 11, type=0x0800)) + f).hex())
    st = wait_counter(nfvd, "lb", "frag_rev", 2 * n_later)
    n = st["lb"]
    assert (n["fwd"], n["rev"], n["frag_unknown"], n["handoff_full"]) == (2, 2, 0, 0), n
    # One client's datagram to worker 0, the other's reply to worker 1.
    assert n["handoff_out"] == n["handoff_in"] == 2 * (n_later + 1), n
    assert drops(st) == {}, drops(st)
    out = nfvd.stop()
    want_s = [routed_frag(f, Ether(dst=BMAC % 11, src=s.mac, type=0x0800))
              for x in dgrams for f in frags(retranslate(x, dst=b, dport=5353))]
    want_c = [routed_frag(f, Ether(dst=R1, src=c.mac, type=0x0800))
              for x in back for f in frags(retranslate(x, src=VIP, sport=53))]
    assert sorted(out["s"]) == sorted(want_s)
    assert sorted(out["c"]) == sorted(want_c)


# ---- ICMP errors about balanced connections -------------------------------------------------

RT = "198.51.100.1"    # a router beyond R1, on the clients' side
RB = "10.0.0.253"      # a router on the backends' side
RB_MAC = "02:00:00:00:02:fd"


def err_to_cli(l3):
    l3 = l3.copy()
    l3.ttl -= 1
    return bytes(Ether(dst=R1, src=T) / Dot1Q(vlan=10) / IP(bytes(l3)))


def err_to_srv(l3, backend):
    l3 = l3.copy()
    l3.ttl -= 1
    return bytes(Ether(dst=BMAC % (BACKENDS.index(backend) + 11), src=T) / Dot1Q(vlan=20) /
                 IP(bytes(l3)))


def test_icmp_errors_about_nat_mode_connections(tmp_path):
    """Mode nat, as IPVS does it: a router between nfvd and the backend
    (time exceeded, fragmentation needed) or the backend itself (port
    unreachable) about a client's packet as the backend got it: the error
    reaches the client from the VIP, with the VIP and port in the quote. A
    router on the clients' side about a backend's reply as the client got
    it (from the VIP), sent to the VIP: the error reaches the backend, with
    its own address and port in the quote. An error of no session, or
    truncated, is routed as it came; errors make no session and are not
    the sessions' packets."""
    b = "10.0.0.11"
    reply = q_tcp(VIP, C, 80, 40000, "PA", ttl=5, payload=b"z" * 200)
    seq = [
        (from_cli(tcp(C, VIP, 40000, 80, "S")), to_srv(tcp(C, b, 40000, 8080, "S"), b)),
        (from_srv(tcp(b, C, 8080, 40000, "SA"), b), to_cli(tcp(VIP, C, 80, 40000, "SA"))),
        (from_cli(udp(C, VIP, 5000, 53)), to_srv(udp(C, b, 5000, 53), b)),
        (Ether(dst=T, src=RB_MAC) / Dot1Q(vlan=20) /
         icmp_error(RB, C, 11, 0, quoted(q_tcp(C, b, 40000, 8080, "S"), 28)),
         err_to_cli(icmp_error(VIP, C, 11, 0, quoted(q_tcp(C, VIP, 40000, 80, "S"), 28)))),
        (Ether(dst=T, src=RB_MAC) / Dot1Q(vlan=20) /
         icmp_error(RB, C, 3, 4, quoted(q_tcp(C, b, 40000, 8080, "A", ttl=9,
                                             payload=b"w" * 300)), mtu=1400),
         err_to_cli(icmp_error(VIP, C, 3, 4, quoted(q_tcp(C, VIP, 40000, 80, "A", ttl=9,
                                                          payload=b"w" * 300)), mtu=1400))),
        (from_srv(icmp_error(b, C, 3, 3, quoted(q_udp(C, b, 5000, 53, ttl=63))), b),
         err_to_cli(icmp_error(VIP, C, 3, 3, quoted(q_udp(C, VIP, 5000, 53, ttl=63))))),
        (from_cli(icmp_error(RT, VIP, 3, 4, quoted(reply), mtu=1280)),
         err_to_srv(icmp_error(RT, b, 3, 4, quoted(
             q_tcp(b, C, 8080, 40000, "PA", ttl=5, payload=b"z" * 200)), mtu=1280), b)),
        # No session (another client port), truncated: routed as they came.
        (from_cli(icmp_error(RT, VIP, 11, 0, quoted(q_tcp(VIP, C, 80, 40099, "SA")))),
         err_to_cli(icmp_error(RT, VIP, 11, 0, quoted(q_tcp(VIP, C, 80, 40099, "SA"))))),
        (from_cli(icmp_error(RT, VIP, 11, 0, quoted(reply, 20))),
         err_to_cli(icmp_error(RT, VIP, 11, 0, quoted(reply, 20)))),
    ]
    nfvd = start(tmp_path, [f for f, _ in seq], [
        "lb service add %s:80 proto tcp" % VIP,
        "lb backend add %s:80 proto tcp %s:8080" % (VIP, b),
        "lb service add %s:53 proto udp" % VIP,
        "lb backend add %s:53 proto udp %s" % (VIP, b),
        "route add %s/32 via 203.0.113.2" % VIP])
    st = nfvd.wait_processed({"t": len(seq)})
    assert drops(st) == {}, drops(st)
    sh = nfvd.ctl("lb show sessions")
    assert {k: sh[k] for k in ("fwd", "rev", "scheduled", "icmp_error_fwd", "icmp_error_rev",
                               "icmp_error_no_session", "icmp_error_truncated")} == {
        "fwd": 2, "rev": 1, "scheduled": 2, "icmp_error_fwd": 1, "icmp_error_rev": 3,
        "icmp_error_no_session": 1, "icmp_error_truncated": 1}, sh
    assert st["lb"]["icmp_error_rev"] == 3
    assert sorted((s["proto"], s["packets_fwd"], s["packets_rev"])
                  for s in sh["session_list"]) == [("tcp", 1, 1), ("udp", 1, 0)]
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]
    for frame in out["t"][3:8]:
        assert_error_checksums(frame)


def test_icmp_error_about_a_dsr_connection_goes_to_the_backend(tmp_path):
    """Mode dsr: the backend answers the client from the VIP itself, so an
    error about its reply (fragmentation needed on the client's path) comes
    to the VIP, at nfvd: it goes to the backend, unchanged, as the client's
    packets do (IPVS's direct routing does the same)."""
    b = "10.0.0.12"
    err = icmp_error(RT, VIP, 3, 4, quoted(q_tcp(VIP, C, 80, 40000, "A", ttl=7,
                                                 payload=b"d" * 100)), mtu=1400)
    seq = [
        (from_cli(tcp(C, VIP, 40000, 80, "S")), to_srv(tcp(C, VIP, 40000, 80, "S"), b)),
        (from_cli(err), err_to_srv(err, b)),
    ]
    nfvd = start(tmp_path, [f for f, _ in seq], [
        "lb service add %s:80 proto tcp mode dsr" % VIP,
        "lb backend add %s:80 proto tcp %s" % (VIP, b)])
    st = nfvd.wait_processed({"t": len(seq)})
    assert drops(st) == {}, drops(st)
    sh = nfvd.ctl("lb show sessions")
    assert (sh["fwd"], sh["icmp_error_fwd"], sh["session_list"][0]["packets_fwd"]) == (1, 1, 1)
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]


def test_two_workers_hand_icmp_errors_to_the_session_owner(tmp_path):
    """A mode nat session on worker 1 (its client's address and port hash
    there; its SYN came in on c, which worker 1 polls). ICMP errors about it
    that worker 0 takes ("punt inject"), one from the backends' side about
    the client's packet, one to the VIP about the backend's reply, are
    handed to worker 1 and translated, byte for byte."""
    from test_nat44 import client_owner, wait_counter
    b = "10.0.0.11"
    cl, cp = next((a, p) for a, p in (("198.51.100.%d" % i, 43000 + i) for i in range(1, 64))
                  if client_owner(a, p) == 1)
    nfvd = Nfvd(tmp_path)
    nfvd.lcores = ["--lcores", "0@0,1@0,2@1"]
    c = nfvd.add_port("c", rx=[Ether(dst=pcap_mac(0), src=R1) / tcp(cl, VIP, cp, 80, "S")])
    s = nfvd.add_port("s")
    nfvd.cmd("worker set 2 rxq c:0", "worker set 1 rxq s:0",
             "addr add 203.0.113.1/24 dev c", "addr add 10.0.0.254/24 dev s",
             "neigh add 203.0.113.2 lladdr %s dev c" % R1,
             "route add 198.51.100.0/24 via 203.0.113.2",
             "neigh add %s lladdr %s dev s" % (b, BMAC % 11),
             "lb service add %s:80 proto tcp" % VIP,
             "lb backend add %s:80 proto tcp %s:8080" % (VIP, b))
    nfvd.start()
    st = nfvd.wait_processed({"c": 1})
    assert st["lb"]["handoff_out"] == 0 and st["lb"]["fwd"] == 1, st["lb"]
    to_client = icmp_error(RB, cl, 11, 0, quoted(q_tcp(cl, b, cp, 8080, "S")))
    to_vip = icmp_error(RT, VIP, 3, 4, quoted(q_tcp(VIP, cl, 80, cp, "SA")), mtu=1400)
    nfvd.ctl("punt", "inject", "dev", "s", "hex",
             bytes(Ether(dst=s.mac, src=RB_MAC) / to_client).hex())
    wait_counter(nfvd, "lb", "icmp_error_rev", 1)
    nfvd.ctl("punt", "inject", "dev", "c", "hex", bytes(Ether(dst=c.mac, src=R1) / to_vip).hex())
    st = wait_counter(nfvd, "lb", "icmp_error_fwd", 1)
    assert drops(st) == {}, drops(st)
    assert (st["lb"]["handoff_out"], st["lb"]["handoff_in"], st["lb"]["icmp_error_no_session"],
            st["lb"]["scheduled"]) == (2, 2, 0, 1), st["lb"]
    out = nfvd.stop()

    def routed_err(l3, dst_mac, src_mac):
        l3 = l3.copy()
        l3.ttl -= 1
        return bytes(Ether(dst=dst_mac, src=src_mac) / IP(bytes(l3)))

    assert out["c"] == [routed_err(icmp_error(VIP, cl, 11, 0, quoted(
        q_tcp(cl, VIP, cp, 80, "S"))), R1, c.mac)]
    assert out["s"] == [
        bytes(Ether(dst=BMAC % 11, src=s.mac) / routed(tcp(cl, b, cp, 8080, "S"))),
        routed_err(icmp_error(RT, b, 3, 4, quoted(q_tcp(b, cl, 8080, cp, "SA")), mtu=1400),
                   BMAC % 11, s.mac)]


def test_nfvds_own_errors_quote_the_packets_as_their_senders_sent_them(tmp_path):
    """nfvd's own fragmentation needed about packets lb_in translated (the
    port's MTU is 1280, both packets DF and larger): a client's segment to
    the VIP, given to the backend, gets the error from nfvd's address on
    the client's side quoting the segment as the client sent it (to the
    VIP and port 80, TTL as it came), never the backend; the backend's
    reply, given the VIP as source, gets it at the backend quoting the
    reply as the backend sent it. Byte for byte, every checksum."""
    b = "10.0.0.11"

    def big(l3):
        l3 = l3.copy()
        l3.flags = "DF"
        return IP(bytes(l3))

    seg = big(tcp(C, VIP, 40000, 80, "PA", b"m" * 1360))
    reply = big(tcp(b, C, 8080, 40000, "PA", b"r" * 1360))

    def frag_needed(src, quote, back):
        err = IP(src=src, dst=quote.src, tos=0xC0, ttl=64, id=0, flags=0) / ICMP(
            type=3, code=4, nexthopmtu=1280) / Raw(bytes(quote)[:548])
        return bytes(back / IP(bytes(err)))

    seq = [
        (from_cli(tcp(C, VIP, 40000, 80, "S")), to_srv(tcp(C, b, 40000, 8080, "S"), b)),
        (from_cli(seg), frag_needed("203.0.113.1", seg, Ether(dst=R1, src=T) / Dot1Q(vlan=10))),
        (from_srv(reply, b), frag_needed("10.0.0.254", reply,
                                         Ether(dst=BMAC % 11, src=T) / Dot1Q(vlan=20))),
    ]
    nfvd = Nfvd(tmp_path)
    nfvd.extra_args = ["--burst", "1"]
    nfvd.add_port("t", rx=[f for f, _ in seq], opts=" mtu 1280")
    nfvd.cmd(*CONFIG, "lb service add %s:80 proto tcp" % VIP,
             "lb backend add %s:80 proto tcp %s:8080" % (VIP, b))
    nfvd.start()
    st = nfvd.wait_processed({"t": len(seq)})
    assert drops(st) == {"ip4_rewrite/frag_needed": 2}, drops(st)
    sh = nfvd.ctl("lb show sessions")
    assert {k: sh[k] for k in ("fwd", "rev", "icmp_error_fwd", "icmp_error_rev",
                               "icmp_error_no_session")} == {
        "fwd": 2, "rev": 1, "icmp_error_fwd": 1, "icmp_error_rev": 1,
        "icmp_error_no_session": 0}, sh
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]
    for frame in out["t"][1:]:
        assert_error_checksums(frame)
