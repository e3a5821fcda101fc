# SPDX-License-Identifier: BSD-3-Clause
"""
Connection tracking behind "reflect" rules.

    H0 10.0.0.1 -- v10 (lan)  t [nfvd]  v20 (wan) -- S 198.18.0.0/16 via 10.1.0.1
                   10.0.0.254/24         10.1.0.254/24

Both VLANs are on one pcap port, so one capture holds the whole exchange
in order, and "--burst 1" makes nfvd take it one packet at a time. ACL
"lan_in" (reflect everything) is attached to lan in; ACL "lan_out" (no
rule: deny) to lan out. What the inside opens comes back; nothing else
does. TCP goes through its states (syn_sent, syn_recv, established,
fin_wait, time_wait, close on RST), UDP, ICMP echo (by identifier), IPv6.
Timeouts (set short), the table's maximum, flush, and two workers each
keeping their own flows.
"""
import os
import socket
import struct
import time

from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import ICMPv6DestUnreach, IPv6, IPv6ExtHdrHopByHop
from scapy.layers.l2 import Dot1Q, Ether

from nfvdlib import CtlError, Nfvd, drops, pcap_mac
from test_acl import acl_cache  # noqa: F401 (autouse: each test with the ACL cache on and off)

T = pcap_mac(0)
H0 = "02:00:00:00:00:01"
R1 = "02:00:00:00:01:01"
H = "10.0.0.1"
S = "198.18.0.10"
S2 = "198.18.0.20"
H6, S6 = "2001:db8:a::1", "2001:db8:100::10"

CONFIG = [
    "vlan add lan dev t id 10",
    "vlan add wan dev t id 20",
    "addr add 10.0.0.254/24 dev lan",
    "addr add 2001:db8:a::fe/64 dev lan",
    "addr add 10.1.0.254/24 dev wan",
    "addr add 2001:db8:b::fe/64 dev wan",
    "neigh add %s lladdr %s dev lan" % (H, H0),
    "neigh add %s lladdr %s dev lan" % (H6, H0),
    "neigh add 10.1.0.1 lladdr %s dev wan" % R1,
    "neigh add 2001:db8:b::1 lladdr %s dev wan" % R1,
    "route add 198.18.0.0/16 via 10.1.0.1",
    "route add 2001:db8:100::/48 via 2001:db8:b::1",
    "acl add lan_in",
    "acl rule add lan_in prio 10 action reflect",
    "acl add lan_out",
    "acl attach lan_in dev lan in",
    "acl attach lan_out dev lan out",
]


def out_pkt(l3):
    """Inside to outside: in on VLAN 10, out on VLAN 20."""
    return Ether(dst=T, src=H0) / Dot1Q(vlan=10) / l3


def in_pkt(l3):
    return Ether(dst=T, src=R1) / Dot1Q(vlan=20) / l3


def routed(frame):
    l3 = frame[Dot1Q].payload.copy()
    if IP in l3:
        l3[IP].ttl -= 1
        del l3[IP].chksum
    else:
        l3[IPv6].hlim -= 1
    if frame[Dot1Q].vlan == 10:
        return bytes(Ether(dst=R1, src=T) / Dot1Q(vlan=20) / l3)
    return bytes(Ether(dst=H0, src=T) / Dot1Q(vlan=10) / l3)


def tcp(src, dst, sport, dport, flags, v6=False):
    """A segment of a connection from a client port (1024 and up) to a
    server port whose sequence numbers agree with the handshake (the
    client's first is 1000, the server's 5000), so that connection
    tracking's window checks pass it."""
    ip = IPv6(src=src, dst=dst, hlim=64) if v6 else IP(src=src, dst=dst, ttl=64)
    client = sport >= 1024
    if "S" in flags:
        seq, ack = (1000, 0) if client else (5000, 1001)
    else:
        seq, ack = (1001, 5001) if client else (5001, 1001)
    if "A" not in flags:
        ack = 0
    return ip / TCP(sport=sport, dport=dport, flags=flags, seq=seq, ack=ack)



def run_trunk(tmp_path, seq, extra_cfg=()):
    """nfvd with CONFIG, the trunk t replaying seq a packet at a time; the
    instance and its stats once every frame went through."""
    nfvd = Nfvd(tmp_path)
    nfvd.extra_args = ["--burst", "1"]
    nfvd.add_port("t", rx=seq)
    nfvd.cmd(*CONFIG, *extra_cfg)
    nfvd.start()
    return nfvd, nfvd.wait_processed({"t": len(seq)})

def show(nfvd):
    return nfvd.ctl("conntrack show")


def test_flow_tables_taken_at_the_first_reflect_rule(tmp_path):
    """The connection tables take their memory when the first reflect rule
    is about to be published, not at start: nfvd starts in 512 MB with room
    asked for 16M flows, stateless ACLs attach, and a reflect rule it has no
    memory for is refused with a clear error (attached, or added to an
    attached ACL) and changes nothing: the ACLs it held stay as they were,
    traffic keeps flowing and nfvd stays up."""
    seq = [out_pkt(IP(src=H, dst=S, ttl=64) / UDP(sport=5000 + i, dport=53))
           for i in range(8)]
    nfvd = Nfvd(tmp_path, mem_mb=512)
    nfvd.extra_args = ["--conntrack-size", str(1 << 24)]
    nfvd.add_port("t", rx=seq)
    nfvd.cmd(*[c for c in CONFIG if not c.startswith("acl attach lan_in")],
             "acl add plain", "acl rule add plain prio 1 action permit")
    nfvd.start()
    st = nfvd.wait_processed({"t": len(seq)})
    assert drops(st) == {}, drops(st)
    before = nfvd.ctl("acl show")
    for cmd in ("acl attach lan_in dev lan in",
                "acl rule add lan_out prio 5 proto udp action reflect"):
        try:
            nfvd.ctl(cmd)
            raise AssertionError("%r accepted without memory for its flows" % cmd)
        except CtlError as e:
            assert "conntrack: no memory for 16777216 flows per worker" in str(e), str(e)
    assert nfvd.ctl("acl show") == before
    assert show(nfvd)["count"] == 0
    # A stateless ACL still attaches.
    nfvd.ctl("acl attach plain dev wan in")
    assert [a["attached"] for a in nfvd.ctl("acl show plain")["acls"]] == \
        [[{"dev": "wan", "dir": "in"}]]
    out = nfvd.stop()
    assert out["t"] == [routed(f) for f in seq]


def test_reflect_tcp_udp_icmp_states(tmp_path):
    passes = [
        out_pkt(tcp(H, S, 40000, 80, "S")),
        in_pkt(tcp(S, H, 80, 40000, "SA")),
        out_pkt(tcp(H, S, 40000, 80, "A")),
        in_pkt(tcp(S, H, 80, 40000, "PA") / b"hello"),
        out_pkt(IP(src=H, dst=S, ttl=64) / UDP(sport=5353, dport=53) / b"q"),
        in_pkt(IP(src=S, dst=H, ttl=64) / UDP(sport=53, dport=5353) / b"a"),
        out_pkt(IP(src=H, dst=S, ttl=64) / ICMP(type=8, id=7, seq=1) / b"ping"),
        in_pkt(IP(src=S, dst=H, ttl=64) / ICMP(type=0, id=7, seq=1) / b"ping"),
        out_pkt(tcp(H6, S6, 40001, 443, "S", v6=True)),
        in_pkt(tcp(S6, H6, 443, 40001, "SA", v6=True)),
        # A second TCP connection is closed with FINs both ways, a third reset.
        out_pkt(tcp(H, S, 40002, 80, "S")),
        in_pkt(tcp(S, H, 80, 40002, "SA")),
        out_pkt(tcp(H, S, 40002, 80, "A")),
        out_pkt(tcp(H, S, 40002, 80, "FA")),
        in_pkt(tcp(S, H, 80, 40002, "FA")),
        out_pkt(tcp(H, S, 40003, 80, "S")),
        in_pkt(tcp(S, H, 80, 40003, "R")),
    ]
    denied = [
        in_pkt(tcp(S2, H, 80, 40000, "S")),                       # unsolicited SYN
        in_pkt(tcp(S, H, 81, 40000, "SA")),                       # another port
        in_pkt(IP(src=S, dst=H, ttl=64) / UDP(sport=53, dport=5354) / b"a"),
        in_pkt(IP(src=S, dst=H, ttl=64) / ICMP(type=0, id=8, seq=1) / b"ping"),
        in_pkt(tcp(S6, H6, 443, 40009, "SA", v6=True)),
    ]
    seq = []
    for i, f in enumerate(passes):
        seq.append(f)
        if i < len(denied):
            seq.append(denied[i])
    nfvd, st = run_trunk(tmp_path, seq)
    assert drops(st) == {"acl/no_match": len(denied)}, drops(st)
    ct = show(nfvd)
    assert ct["count"] == 6, ct
    want_states = {"established": 1, "udp_stream": 1, "icmp": 1, "syn_recv": 1,
                   "time_wait": 1, "close": 1}
    assert {k: v for k, v in ct["by_state"].items() if v} == want_states, ct["by_state"]
    e = {(x["proto"], x["dport"]): x for x in ct["entries"]}
    assert e[("tcp", 80)]["src"] == H and e[("tcp", 80)]["dev"] == "lan"
    assert e[("udp", 53)]["packets_orig"] == 1 and e[("udp", 53)]["packets_reply"] == 1
    assert e[("icmp", 7)]["sport"] == 7
    assert e[("tcp", 443)]["src"] == H6
    assert st["conntrack"]["created"] == 6
    assert st["acl"]["flow_hits"] == len(passes) - 6 and st["acl"]["permitted"] == 6
    hits = nfvd.ctl("acl show lan_in")["acls"][0]["rules"][0]["hits"]
    assert hits == 6
    nfvd.ctl("conntrack flush")
    assert show(nfvd)["count"] == 0
    out = nfvd.stop()
    assert out["t"] == [routed(f) for f in passes]


def test_timeouts_max_and_late_replies(tmp_path):
    flows = [out_pkt(IP(src=H, dst=S, ttl=64) / UDP(sport=6000 + i, dport=53) / b"q")
             for i in range(3)]
    nfvd = Nfvd(tmp_path)
    nfvd.extra_args = ["--burst", "1"]
    nfvd.add_port("t", rx=flows + [out_pkt(tcp(H, S, 40000, 80, "S"))])
    nfvd.cmd(*CONFIG, "conntrack set max 3", "conntrack set timeout udp 1",
             "conntrack set timeout tcp-syn-sent 2")
    nfvd.start()
    st = nfvd.wait_processed({"t": 4})
    # Three UDP flows fill the table: the TCP SYN finds it full.
    assert drops(st) == {"conntrack/table_full": 1}, drops(st)
    ct = show(nfvd)
    assert ct["count"] == 3 and ct["max"] == 3 and ct["table_full"] == 1
    assert ct["timeouts"]["udp"] == 1 and ct["timeouts"]["tcp-established"] == 432000
    time.sleep(1.5)
    assert show(nfvd)["count"] == 0          # expired
    # A reply that comes after its flow expired meets lan_out's default deny;
    # it enters by another port (the trunk's capture is spent).
    nfvd.add_port_now("late", rx=[
        Ether(dst=pcap_mac(1), src=R1) /
        IP(src=S, dst=H, ttl=64) / UDP(sport=53, dport=6000) / b"late"])
    st = nfvd.wait_processed({"late": 1})
    assert drops(st) == {"conntrack/table_full": 1, "acl/no_match": 1}, drops(st)
    assert st["conntrack"]["expired"] >= 1
    out = nfvd.stop()
    assert out["t"] == [routed(f) for f in flows]
    assert out["late"] == []


def test_flow_cache_hits_and_expired_entries(tmp_path):
    """The flow cache in front of the table (IPv4 TCP/UDP): the first reply
    of a flow is found by the table and cached, later ones by the cache;
    every hit is counted as the table would count it (conntrack hits, acl
    flow_hits, the flow's packets). A cached flow that expired is not let
    through by its cache entry: the table forgets it and the rules decide
    (lan_out: deny), while another flow keeps the table from being empty
    (so the cache is consulted)."""
    q = out_pkt(IP(src=H, dst=S, ttl=64) / UDP(sport=7000, dport=53) / b"q")
    a = in_pkt(IP(src=S, dst=H, ttl=64) / UDP(sport=53, dport=7000) / b"a")
    syn = out_pkt(tcp(H, S, 40100, 80, "S"))
    synack = in_pkt(tcp(S, H, 80, 40100, "SA"))
    seq = [q, a, a, a, syn, synack, synack]
    nfvd, st = run_trunk(tmp_path, seq, extra_cfg=["conntrack set timeout udp-stream 1"])
    assert drops(st) == {}, drops(st)
    # Replies: three UDP, two TCP; the outbound SYN and query created flows.
    assert st["conntrack"]["hits"] == 5 and st["acl"]["flow_hits"] == 5, st["conntrack"]
    assert st["conntrack"]["created"] == 2
    ents = {e["sport"]: e for e in show(nfvd)["entries"]}
    assert ents[7000]["state"] == "udp_stream"
    assert ents[40100]["state"] == "syn_recv"
    time.sleep(1.5)                          # the UDP flow expires; the TCP one lives
    nfvd.add_port_now("late", rx=[
        Ether(dst=pcap_mac(1), src=R1) /
        IP(src=S, dst=H, ttl=64) / UDP(sport=53, dport=7000) / b"late"])
    st = nfvd.wait_processed({"late": 1})
    assert drops(st) == {"acl/no_match": 1}, drops(st)
    assert st["conntrack"]["expired"] == 1 and st["conntrack"]["hits"] == 5
    assert [e["sport"] for e in show(nfvd)["entries"]] == [40100]
    out = nfvd.stop()
    assert out["t"] == [routed(f) for f in seq]
    assert out["late"] == []


SYM_KEY = bytes([0x6d, 0x5a] * 20)


def toeplitz(data, key=SYM_KEY):
    """The Toeplitz hash bit by bit (the reference for nfvd's folded one)."""
    k, klen, h = int.from_bytes(key, "big"), len(key) * 8, 0
    for i in range(len(data) * 8):
        if data[i // 8] >> (7 - i % 8) & 1:
            h ^= (k >> (klen - 32 - i)) & 0xffffffff
    return h


def owner(l3, workers=2):
    """The worker that owns l3's flow: the symmetric hash of its addresses,
    and ports for TCP and UDP, modulo the workers."""
    ip = l3[IP]
    data = socket.inet_aton(ip.src) + socket.inet_aton(ip.dst)
    if TCP in ip or UDP in ip:
        l4 = ip[TCP] if TCP in ip else ip[UDP]
        data += struct.pack("!HH", l4.sport, l4.dport)
    return toeplitz(data) % workers


def test_two_workers_hand_flows_to_their_owner(tmp_path):
    """Port a (the inside: lan_in reflect, lan_out deny) is polled by worker
    0 (lcore 1); the replies come in on port b, polled by worker 1 (lcore 2),
    and go out through a. Each packet of a flow is handed to the worker
    that owns the flow (the symmetric hash of its tuple modulo 2) at the
    ACL node: replies pass, whichever worker received them; unsolicited
    inbound packets are denied; the handoff counters are exact."""
    flows = []
    for i in range(12):
        flows.append(tcp(H, S, 41000 + i, 80, "S"))
        flows.append(IP(src=H, dst=S2, ttl=64) / UDP(sport=5000 + i, dport=53) / b"q")
    flows.append(IP(src=H, dst=S, ttl=64) / ICMP(type=8, id=9, seq=1) / b"ping")
    flows.append(IP(src="10.0.0.2", dst=S2, ttl=64) / ICMP(type=8, id=10, seq=1) / b"ping")
    replies = []
    for f in flows:
        if TCP in f:
            replies.append(tcp(S, H, 80, f[TCP].sport, "SA"))
        elif UDP in f:
            replies.append(IP(src=f[IP].dst, dst=H, ttl=64) /
                           UDP(sport=53, dport=f[UDP].sport) / b"a")
        else:
            replies.append(IP(src=f[IP].dst, dst=f[IP].src, ttl=64) /
                           ICMP(type=0, id=f[ICMP].id, seq=1) / b"ping")
    unsolicited = [tcp(S, H, 80, 43000 + i, "S") for i in range(8)] + [
        IP(src=S2, dst=H, ttl=64) / UDP(sport=53, dport=6000 + i) / b"x" for i in range(8)]
    own = {0: 0, 1: 0}
    for f in flows:
        own[owner(f)] += 1
    assert own[0] > 0 and own[1] > 0, own          # both workers own some flows
    R2 = "02:00:00:00:02:01"
    nfvd = Nfvd(tmp_path)
    nfvd.lcores = ["--lcores", "0@0,1@0,2@1"]
    a = nfvd.add_port("a", rx=[Ether(dst=pcap_mac(0), src=H0) / f for f in flows])
    nfvd.add_port("o")
    nfvd.cmd("worker set 1 rxq a:0,o:0",
             "addr add 10.0.0.254/24 dev a", "addr add 10.1.0.254/24 dev o",
             "neigh add %s lladdr %s dev a" % (H, H0),
             "neigh add 10.0.0.2 lladdr %s dev a" % H0,
             "neigh add 10.1.0.1 lladdr %s dev o" % R1,
             "route add 198.18.0.0/16 via 10.1.0.1",
             "acl add lan_in", "acl rule add lan_in prio 10 action reflect",
             "acl add lan_out",
             "acl attach lan_in dev a in", "acl attach lan_out dev a out",
             # The replies come in a second phase: however slow a loaded
             # machine makes the test, its UDP and ICMP flows (30 s by
             # default) must not expire before them.
             "conntrack set timeout udp 600", "conntrack set timeout icmp 600")
    nfvd.start()
    st = nfvd.wait_processed({"a": len(flows)})
    assert drops(st) == {}, drops(st)
    assert st["acl"]["handoff_out"] == own[1] and st["acl"]["handoff_in"] == own[1], st["acl"]
    ct = show(nfvd)
    assert ct["count"] == len(flows), ct
    # Each flow lives on its owner.
    by_tuple = {(e["src"], e["dst"], e["sport"], e["dport"]): e["worker"] for e in ct["entries"]}
    for f in flows:
        l4 = f[TCP] if TCP in f else f[UDP] if UDP in f else None
        key = (f[IP].src, f[IP].dst, l4.sport if l4 else f[ICMP].id,
               l4.dport if l4 else f[ICMP].id)
        assert by_tuple[key] == owner(f), (key, by_tuple)
    # The other direction comes in on b, which worker 1 polls.
    back = replies + unsolicited
    nfvd.add_port_now("b", rx=[Ether(dst=pcap_mac(2), src=R2) / x for x in back])
    st = nfvd.wait_processed({"b": len(back)})
    workers = nfvd.ctl("show workers")
    polled = {q: w["lcore"] for w in workers["workers"] for q in w["rxqs"]}
    assert polled == {"a:0": 1, "o:0": 1, "b:0": 2}, workers
    assert drops(st) == {"acl/no_match": len(unsolicited)}, drops(st)
    moved = own[1] + sum(1 for x in back if owner(x) == 0)
    assert st["acl"]["handoff_out"] == moved and st["acl"]["handoff_in"] == moved, st["acl"]
    assert st["acl"]["handoff_full"] == 0
    assert st["acl"]["flow_hits"] == len(replies), st["acl"]
    out = nfvd.stop()
    want_l3 = sorted(bytes(_dec_ttl(IP(bytes(x)))) for x in replies)
    assert sorted(bytes(Ether(g)[IP]) for g in out["a"]) == want_l3
    assert all(Ether(g).dst == H0 and Ether(g).src == a.mac for g in out["a"])


def _dec_ttl(ip):
    ip.ttl -= 1
    del ip.chksum
    return IP(bytes(ip))


def seg(src, dst, sport, dport, flags, seq, ack, window, options=None, data=b"", v6=False):
    ip = IPv6(src=src, dst=dst, hlim=64) if v6 else IP(src=src, dst=dst, ttl=64)
    t = TCP(sport=sport, dport=dport, flags=flags, seq=seq % (1 << 32), ack=ack % (1 << 32),
            window=window, options=options or [])
    return ip / t / data if data else ip / t


def test_tcp_reset_outside_the_window_is_dropped(tmp_path):
    """After the handshake each side's last ACK and largest window are known:
    a reset whose sequence number is outside [ACK, ACK + window) of its
    receiver is dropped (conntrack/invalid_rst) and the flow stays
    established; one inside closes it. A window scale from both SYNs scales
    later windows (RFC 7323), so a reset 64 KB ahead is inside a scaled
    window and outside an unscaled one. A flow picked up in the middle
    (no SYN seen) is not checked."""
    passes = [
        # Flow 1: no window scale. H's window 2000 from ack 5001.
        out_pkt(seg(H, S, 40000, 80, "S", 1000, 0, 4000)),
        in_pkt(seg(S, H, 80, 40000, "SA", 5000, 1001, 3000)),
        out_pkt(seg(H, S, 40000, 80, "A", 1001, 5001, 2000)),
        # Flow 2: both SYNs scale by 2^7; H advertises 1000 << 7 = 128,000.
        out_pkt(seg(H, S, 40001, 80, "S", 1000, 0, 4000, [("WScale", 7)])),
        in_pkt(seg(S, H, 80, 40001, "SA", 9000, 1001, 3000, [("WScale", 7)])),
        out_pkt(seg(H, S, 40001, 80, "A", 1001, 9001, 1000)),
        in_pkt(seg(S, H, 80, 40001, "R", 9001 + 65536, 0, 0)),        # inside: closes
        in_pkt(seg(S, H, 80, 40000, "R", 5001 + 1999, 0, 0)),         # last byte inside
        # Flow 3, picked up in the middle (no SYN seen, scales unknown): a
        # reset is not checked.
        out_pkt(seg(H, S, 40002, 80, "A", 1001, 7001, 1000)),
        in_pkt(seg(S, H, 80, 40002, "R", 7001 + 100000, 0, 0)),
    ]
    dropped = [
        in_pkt(seg(S, H, 80, 40000, "R", 5001 + 2000, 0, 0)),         # one past the window
        in_pkt(seg(S, H, 80, 40000, "R", 5000, 0, 0)),                # before the ACK
        out_pkt(seg(H, S, 40000, 80, "R", 1001 + 100000, 0, 0)),     # S's window: 3000
    ]
    seq = passes[:6] + dropped + passes[6:]
    nfvd, st = run_trunk(tmp_path, seq)
    assert drops(st) == {"conntrack/invalid_rst": len(dropped)}, drops(st)
    assert st["conntrack"]["invalid_rst"] == len(dropped)
    ct = show(nfvd)
    assert {e["sport"]: e["state"] for e in ct["entries"]} == {40000: "close", 40001: "close",
                                                               40002: "close"}
    out = nfvd.stop()
    assert out["t"] == [routed(f) for f in passes]


def window_exchange():
    """(frame, passes) in order: TCP connections whose segments fall in or
    out of the windows (Linux's tcp_in_window checks I-IV, conntrack.c)."""
    W = 1 << 32
    out = lambda *a, **k: out_pkt(seg(H, S, *a, **k))    # noqa: E731
    back = lambda *a, **k: in_pkt(seg(S, H, *a, **k))    # noqa: E731
    d100, d10 = b"x" * 100, b"y" * 10
    return [
        # A: no window scale. S advertises 3000 in its SYN+ACK: H may send
        # up to 1001 + 3000; after S acknowledges 1101 with 3000, to 4101.
        (out(40010, 80, "S", 1000, 0, 4000), True),
        (back(80, 40010, "SA", 5000, 1001, 3000), True),
        (out(40010, 80, "A", 1001, 5001, 2000), True),
        (out(40010, 80, "PA", 1001, 5001, 2000, data=d100), True),
        (back(80, 40010, "A", 5001, 1101, 3000), True),
        (out(40010, 80, "PA", 1001, 5001, 2000, data=d100), True),    # retransmission
        (out(40010, 80, "PA", 4102, 5001, 2000, data=d10), False),    # I: past 1101 + 3000
        (out(40010, 80, "PA", 1101 - 10000, 5001, 2000, data=d100), False),  # II: too old
        (back(80, 40010, "A", 5001, 1101 + 50000, 3000), False),      # III: acks unsent data
        (back(80, 40010, "A", 5001, (1101 - 70000) % W, 3000), False),  # IV: ack too old
        (back(80, 40010, "PA", 5001, 1101, 3000, data=d10), True),
        (out(40010, 80, "FA", 1101, 5011, 2000), True),
        (back(80, 40010, "FA", 5011, 1102, 3000), True),
        (out(40010, 80, "A", 1102, 5012, 2000), True),
        # B: both SYNs scale by 2^7. S's 500 is 64,000 bytes: H may send
        # up to 1001 + 64000; H's 1000 is 128,000: S up to 9001 + 128000.
        (out(40011, 80, "S", 1000, 0, 4000, [("WScale", 7)]), True),
        (back(80, 40011, "SA", 9000, 1001, 3000, [("WScale", 7)]), True),
        (out(40011, 80, "A", 1001, 9001, 1000), True),
        (back(80, 40011, "A", 9001, 1001, 500), True),
        (out(40011, 80, "PA", 51001, 9001, 1000, data=d100), True),
        (out(40011, 80, "PA", 65002, 9001, 1000, data=d10), False),   # one past the edge
        (back(80, 40011, "PA", 109001, 51101, 500, data=d10), True),
        (back(80, 40011, "PA", 137002, 51101, 500, data=d10), False),  # one past the edge
        # C: only H's SYN offers a scale, so windows are not scaled: what
        # B let through is out of C's window.
        (out(40012, 80, "S", 1000, 0, 4000, [("WScale", 7)]), True),
        (back(80, 40012, "SA", 9000, 1001, 3000), True),
        (out(40012, 80, "A", 1001, 9001, 1000), True),
        (back(80, 40012, "A", 9001, 1001, 500), True),
        (out(40012, 80, "PA", 51001, 9001, 1000, data=d100), False),
        (out(40012, 80, "PA", 1001, 9001, 1000, data=b"z" * 400), True),
        # D: picked up in the middle (no SYN seen): not enforced.
        (out(40013, 80, "A", 1001, 7001, 1000), True),
        (back(80, 40013, "PA", 7001 + 1000000, 1001, 1000, data=d10), True),
        # E: IPv6; S's acknowledgment of all 1000 bytes H sent is right
        # only if their length was counted.
        (out_pkt(seg(H6, S6, 40014, 443, "S", 1000, 0, 4000, v6=True)), True),
        (in_pkt(seg(S6, H6, 443, 40014, "SA", 5000, 1001, 3000, v6=True)), True),
        (out_pkt(seg(H6, S6, 40014, 443, "A", 1001, 5001, 2000, v6=True)), True),
        (out_pkt(seg(H6, S6, 40014, 443, "PA", 1001, 5001, 2000, data=b"w" * 1000, v6=True)),
         True),
        (out_pkt(seg(H6, S6, 40014, 443, "PA", 4002, 5001, 2000, data=d10, v6=True)), False),
        (in_pkt(seg(S6, H6, 443, 40014, "A", 5001, 2001, 3000, v6=True)), True),
        (in_pkt(seg(S6, H6, 443, 40014, "A", 5001, 2002, 3000, v6=True)), False),  # III
    ]


def test_tcp_segments_outside_the_windows_are_dropped(tmp_path):
    """TCP window tracking (Linux's nf_conntrack_proto_tcp, strict by
    default): in-window data and retransmissions pass; a segment beyond
    what the receiver allows, one older than a window, an acknowledgment
    of data never sent or far too old are dropped (conntrack/out_of_window,
    counted) and leave the flow as it was; window scales from both SYNs
    are honoured, from one only they are not; a flow picked up in the
    middle is not enforced; IPv6 segment lengths are counted."""
    ex = window_exchange()
    seq = [f for f, _ in ex]
    passes = [f for f, ok in ex if ok]
    dropped = len(ex) - len(passes)
    nfvd, st = run_trunk(tmp_path, seq)
    assert drops(st) == {"conntrack/out_of_window": dropped}, drops(st)
    assert st["conntrack"]["out_of_window"] == dropped
    assert st["conntrack"]["invalid_rst"] == 0
    ct = show(nfvd)
    assert ct["tcp_liberal"] is False
    assert {e["sport"]: e["state"] for e in ct["entries"]} == {
        40010: "time_wait", 40011: "established", 40012: "established",
        40013: "established", 40014: "established"}, ct["entries"]
    out = nfvd.stop()
    assert out["t"] == [routed(f) for f in passes]


def test_tcp_liberal_lets_out_of_window_segments_through(tmp_path):
    """"conntrack set tcp-liberal on" (Linux's nf_conntrack_tcp_be_liberal):
    the same exchange passes whole, nothing is counted out of window; off
    again restores the default; a bad value is refused."""
    ex = window_exchange()
    seq = [f for f, _ in ex]
    nfvd, st = run_trunk(tmp_path, seq, extra_cfg=["conntrack set tcp-liberal on"])
    assert drops(st) == {}, drops(st)
    assert st["conntrack"]["out_of_window"] == 0
    assert show(nfvd)["tcp_liberal"] is True
    try:
        nfvd.ctl("conntrack set tcp-liberal maybe")
        raise AssertionError("tcp-liberal maybe accepted")
    except CtlError as e:
        assert "bad tcp-liberal 'maybe'" in str(e), str(e)
    nfvd.ctl("conntrack set tcp-liberal off")
    assert show(nfvd)["tcp_liberal"] is False
    out = nfvd.stop()
    assert out["t"] == [routed(f) for f in seq]


def test_icmp_errors_about_a_tracked_flow_pass(tmp_path):
    """An ICMP error (destination unreachable, time exceeded; ICMPv6 too)
    whose embedded header is a tracked flow's passes lan_out (RELATED,
    counted); one about an unknown flow meets the default deny. The flow
    itself is not changed by it."""
    R = "10.1.0.1"
    udp_out = IP(src=H, dst=S, ttl=64) / UDP(sport=5353, dport=53) / b"q"
    tcp_out = tcp(H, S, 40000, 80, "S")
    ping_out = IP(src=H, dst=S, ttl=64) / ICMP(type=8, id=7, seq=1) / b"ping"
    udp6_out = IPv6(src=H6, dst=S6, hlim=64) / UDP(sport=5353, dport=53) / b"q"
    udp6_hbh_out = IPv6(src=H6, dst=S6, hlim=64) / IPv6ExtHdrHopByHop() / UDP(
        sport=5354, dport=53) / b"q"

    def err(inner, t=3, c=3):
        return IP(src=R, dst=H, ttl=64) / ICMP(type=t, code=c) / bytes(inner)[:28]

    passes = [
        out_pkt(udp_out), out_pkt(tcp_out), out_pkt(ping_out), out_pkt(udp6_out),
        in_pkt(err(udp_out)),
        in_pkt(err(tcp_out, t=11, c=0)),
        in_pkt(err(ping_out, t=3, c=1)),
        in_pkt(IPv6(src="2001:db8:b::1", dst=H6, hlim=64) / ICMPv6DestUnreach(code=4) /
               bytes(udp6_out)),
        # An IPv6 flow with a hop-by-hop header: its error too (the
        # embedded header's extension headers are walked as the packet's).
        out_pkt(udp6_hbh_out),
        in_pkt(IPv6(src="2001:db8:b::1", dst=H6, hlim=64) / ICMPv6DestUnreach(code=4) /
               bytes(udp6_hbh_out)),
    ]
    denied = [
        in_pkt(err(IP(src=H, dst=S, ttl=64) / UDP(sport=5354, dport=53) / b"q")),
        in_pkt(err(IP(src=H, dst=S2, ttl=64) / UDP(sport=5353, dport=53) / b"q", t=11, c=0)),
        in_pkt(err(IP(src=H, dst=S, ttl=64) / ICMP(type=8, id=8, seq=1) / b"ping")),
        in_pkt(IP(src=R, dst=H, ttl=64) / ICMP(type=3, code=3) / bytes(udp_out)[:10]),  # cut
    ]
    seq = passes + denied
    nfvd, st = run_trunk(tmp_path, seq)
    assert drops(st) == {"acl/no_match": len(denied)}, drops(st)
    assert st["conntrack"]["related"] == 5 and st["conntrack"]["created"] == 5
    ct = show(nfvd)
    e = {x["proto"] + str(x["dport"]): x for x in ct["entries"]}
    assert e["udp53"]["packets_reply"] == 0 and e["tcp80"]["state"] == "syn_sent", e
    out = nfvd.stop()
    assert out["t"] == [routed(f) for f in passes]


def test_echo_requests_from_outside_and_a_removed_interface(tmp_path):
    """An echo flow lets replies back, not requests: an outside host
    pinging with the inside's identifier meets the rules (denied) and does
    not end the flow: the inside's next ping and its reply are its. A removed interface's flows
    go with it: the interface that gets its id (a new VLAN with a deny-all
    ACL) does not let the old flow's replies in."""
    ping = lambda typ: IP(src=H, dst=S, ttl=64) / ICMP(type=typ, id=77, seq=1) / b"p"
    pong = lambda typ: IP(src=S, dst=H, ttl=64) / ICMP(type=typ, id=77, seq=1) / b"p"
    udp_out = IP(src=H, dst=S, ttl=64) / UDP(sport=5353, dport=53) / b"q"
    seq = [out_pkt(ping(8)), in_pkt(pong(0)), in_pkt(pong(8)), out_pkt(ping(8)),
           in_pkt(pong(0)), out_pkt(udp_out)]
    passes = [seq[0], seq[1], seq[3], seq[4], seq[5]]
    nfvd, st = run_trunk(tmp_path, seq)
    assert drops(st) == {"acl/no_match": 1}, drops(st)
    assert st["conntrack"]["created"] == 2, st["conntrack"]
    ct = show(nfvd)
    assert ct["count"] == 2 and {x["dev"] for x in ct["entries"]} == {"lan"}, ct
    nfvd.ctl("vlan del lan")
    nfvd.ctl("vlan add guest dev t id 30")
    nfvd.ctl("addr add 10.0.0.254/24 dev guest")
    nfvd.ctl("neigh add %s lladdr %s dev guest" % (H, H0))
    nfvd.ctl("acl add guest_out")
    nfvd.ctl("acl attach guest_out dev guest out")
    assert show(nfvd)["count"] == 0
    reply = Ether(dst=pcap_mac(1), src=R1) / IP(src=S, dst=H, ttl=64) / UDP(
        sport=53, dport=5353) / b"a"
    nfvd.add_port_now("inj", rx=[reply])
    st = nfvd.wait_processed({"inj": 1})
    assert drops(st) == {"acl/no_match": 2}, drops(st)
    out = nfvd.stop()
    assert out["t"] == [routed(f) for f in passes]


def test_fragments(tmp_path):
    """A first fragment carries its ports: it is tracked with its flow (the
    reply's first fragment passes lan_out). A non-first fragment has no
    ports: the connection table does not know it and only rules without
    ports match it, so it passes lan_out only through such a rule."""
    payload = bytes(range(48))
    udp = UDP(sport=53, dport=7000, len=8 + len(payload), chksum=0)
    first = IP(src=S, dst=H, ttl=64, id=77, flags="MF", frag=0, proto=17) / (bytes(udp) +
                                                                            payload[:16])
    later = IP(src=S, dst=H, ttl=64, id=77, frag=3, proto=17) / payload[16:]
    later2 = IP(src=S2, dst=H, ttl=64, id=78, frag=3, proto=17) / payload[16:]
    passes = [
        out_pkt(IP(src=H, dst=S, ttl=64) / UDP(sport=7000, dport=53) / b"q"),
        in_pkt(first),
        in_pkt(later2),          # lan_out prio 20: src S2, no ports
    ]
    denied = [in_pkt(later)]     # prio 10 asks for ports: no match, then the default
    seq = passes[:2] + denied + passes[2:]
    nfvd, st = run_trunk(tmp_path, seq, extra_cfg=[
        "acl rule add lan_out prio 10 src %s/32 proto udp sport 53 action permit" % S,
        "acl rule add lan_out prio 20 src %s/32 proto udp action permit" % S2])
    assert drops(st) == {"acl/no_match": 1}, drops(st)
    assert st["acl"]["flow_hits"] == 1 and st["conntrack"]["created"] == 1
    rules = nfvd.ctl("acl show lan_out")["acls"][0]["rules"]
    assert [r["hits"] for r in rules] == [0, 1]
    out = nfvd.stop()
    assert out["t"] == [routed(f) for f in passes]


def test_ports_with_rss_get_the_symmetric_key(tmp_path):
    """A port with two RX queues on a device with RSS (net_tap) is given the
    symmetric Toeplitz key (0x6d5a repeated, the device's key size) over
    IP, TCP and UDP, and port show says so; a pcap port has no RSS."""
    nfvd = Nfvd(tmp_path, mem_mb=1024)
    nfvd.add_port("pc", rx=[])
    nfvd.cmd("port add tp dev net_tap0,iface=s2atap%d rxq 2" % (os.getpid() % 10000))
    nfvd.start()
    ports = {p["name"]: p for p in nfvd.ctl("port show")["ports"]}
    assert ports["pc"]["rss"] is None
    rss = ports["tp"]["rss"]
    assert rss["symmetric"] is True
    assert rss["key"] == "6d5a" * 20, rss
    assert {"ipv4", "ipv4-tcp", "ipv4-udp", "ipv6", "ipv6-tcp", "ipv6-udp"} <= set(rss["hash"])
    nfvd.stop()
