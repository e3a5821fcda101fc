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
import time

from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether

from nfvdlib import Nfvd, drops, pcap_mac
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
    ip = IPv6(src=src, dst=dst, hlim=64) if v6 else IP(src=src, dst=dst, ttl=64)
    return ip / TCP(sport=sport, dport=dport, flags=flags, seq=1000, ack=2000)


def show(nfvd):
    return nfvd.ctl("conntrack show")


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
    nfvd = Nfvd(tmp_path)
    nfvd.extra_args = ["--burst", "1"]
    nfvd.add_port("t", rx=seq)
    nfvd.cmd(*CONFIG)
    nfvd.start()
    st = nfvd.wait_processed({"t": len(seq)})
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


def test_two_workers_keep_their_own_flows(tmp_path):
    """Each trunk is polled by its own worker; a flow's two directions stay on
    that worker (the trunk carries both). A reply that comes in on the other
    worker finds no flow there and is denied."""
    def trunk(mac, lan_vid, wan_vid, h, sport):
        return [Ether(dst=mac, src=H0) / Dot1Q(vlan=lan_vid) / tcp(h, S, sport, 80, "S"),
                Ether(dst=mac, src=R1) / Dot1Q(vlan=wan_vid) / tcp(S, h, 80, sport, "SA"),
                Ether(dst=mac, src=H0) / Dot1Q(vlan=lan_vid) / tcp(h, S, sport, 80, "A")]
    t1 = trunk(pcap_mac(0), 11, 21, "10.0.1.1", 41000)
    t2 = trunk(pcap_mac(1), 12, 22, "10.0.2.1", 42000)
    # The reply of t1's flow, coming in on t2's outside (worker 2).
    t2.append(Ether(dst=pcap_mac(1), src=R1) / Dot1Q(vlan=22) / tcp(S, "10.0.1.1", 80, 41000,
                                                                     "A"))
    nfvd = Nfvd(tmp_path)
    nfvd.lcores = ["--lcores", "0@0,1@0,2@1"]
    nfvd.extra_args = ["--burst", "1"]
    nfvd.add_port("t1", rx=t1)
    nfvd.add_port("t2", rx=t2)
    cfg = ["worker set 1 rxq t1:0", "worker set 2 rxq t2:0",
           "acl add lan_in", "acl rule add lan_in prio 10 action reflect", "acl add lan_out"]
    for n, t in ((1, "t1"), (2, "t2")):
        cfg += ["vlan add lan%d dev %s id 1%d" % (n, t, n), "vlan add wan%d dev %s id 2%d" % (n, t, n),
                "addr add 10.0.%d.254/24 dev lan%d" % (n, n),
                "addr add 10.1.%d.254/24 dev wan%d" % (n, n),
                "neigh add 10.0.%d.1 lladdr %s dev lan%d" % (n, H0, n),
                "neigh add 10.1.%d.1 lladdr %s dev wan%d" % (n, R1, n),
                "acl attach lan_in dev lan%d in" % n, "acl attach lan_out dev lan%d out" % n]
    cfg += ["route add 198.18.0.0/16 via 10.1.1.1"]
    nfvd.cmd(*cfg)
    nfvd.start()
    st = nfvd.wait_processed({"t1": len(t1), "t2": len(t2)})
    assert drops(st) == {"acl/no_match": 1}, drops(st)
    ct = show(nfvd)
    assert ct["count"] == 2 and ct["by_state"]["established"] == 2, ct
    assert sorted(e["worker"] for e in ct["entries"]) == [0, 1]
    assert {e["dev"]: e["worker"] for e in ct["entries"]} == {"lan1": 0, "lan2": 1}
    nfvd.stop()
