# SPDX-License-Identifier: BSD-3-Clause
"""
NAT44: source NAT behind the outside interface's address (or a range),
destination NAT of a port, sessions, their drops and views.

    H 10.0.0.1, 10.0.0.2 -- v10 (lan)  t [nfvd]  v20 (wan) -- R1 203.0.113.2
                          10.0.0.254/24          203.0.113.1/24
                                                  198.51.100.0/24 via R1

Both VLANs are on one pcap port, so one capture holds the exchange in
order, and "--burst 1" makes nfvd take it a packet at a time. Every
expected frame is built by scapy with its checksums computed afresh, so a
byte-exact match also checks nfvd's incremental checksum updates.
"""
import time

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_Router_Alert, fragment, in4_chksum
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw
from scapy.utils import checksum

from nfvdlib import CtlError, Nfvd, drops, pcap_mac

T = pcap_mac(0)
H0 = "02:00:00:00:00:01"
R1 = "02:00:00:00:01:01"
H, H2 = "10.0.0.1", "10.0.0.2"
SRV = "10.0.0.5"
OUT = "203.0.113.1"
S, S2 = "198.51.100.10", "198.51.100.20"

CONFIG = [
    "vlan add lan dev t id 10",
    "vlan add wan dev t id 20",
    "addr add 10.0.0.254/24 dev lan",
    "addr add %s/24 dev wan" % OUT,
    "neigh add %s lladdr %s dev lan" % (H, H0),
    "neigh add %s lladdr %s dev lan" % (H2, H0),
    "neigh add %s lladdr %s dev lan" % (SRV, H0),
    "neigh add 203.0.113.2 lladdr %s dev wan" % R1,
    "route add 198.51.100.0/24 via 203.0.113.2",
    "nat44 snat add src 10.0.0.0/24 dev wan",
]


def from_lan(l3):
    return Ether(dst=T, src=H0) / Dot1Q(vlan=10) / l3


def from_wan(l3):
    return Ether(dst=T, src=R1) / Dot1Q(vlan=20) / l3


def fresh(l3):
    """l3 with its checksums left for scapy to compute."""
    l3 = l3.copy()
    del l3[IP].chksum
    for layer in (TCP, UDP, ICMP):
        if layer in l3 and not (layer is UDP and l3[UDP].chksum == 0):
            del l3[layer].chksum
    return l3


def to_wan(l3):
    """What leaves wan (routed: TTL one less)."""
    l3 = IP(bytes(l3))
    l3.ttl -= 1
    return bytes(Ether(dst=R1, src=T) / Dot1Q(vlan=20) / fresh(l3))


def to_lan(l3):
    l3 = IP(bytes(l3))
    l3.ttl -= 1
    return bytes(Ether(dst=H0, src=T) / Dot1Q(vlan=10) / fresh(l3))


def tcp(src, dst, sport, dport, flags, payload=b""):
    return IP(src=src, dst=dst, ttl=64) / TCP(sport=sport, dport=dport, flags=flags,
                                              seq=1000, ack=2000) / payload


def udp(src, dst, sport, dport, payload=b"q"):
    return IP(src=src, dst=dst, ttl=64) / UDP(sport=sport, dport=dport) / payload


def echo(src, dst, typ, ident):
    return IP(src=src, dst=dst, ttl=64) / ICMP(type=typ, id=ident, seq=1) / b"ping"


def run(tmp_path, frames, extra_cfg=(), args=()):
    nfvd = Nfvd(tmp_path)
    nfvd.extra_args = ["--burst", "1", *args]
    nfvd.add_port("t", rx=frames)
    nfvd.cmd(*CONFIG, *extra_cfg)
    nfvd.start()
    st = nfvd.wait_processed({"t": len(frames)})
    return nfvd, st


def sessions(nfvd):
    return nfvd.ctl("nat44 show sessions")


def test_snat_tcp_udp_icmp_and_replies(tmp_path):
    """Inside hosts reach the outside from the wan address, ports kept; the
    replies come back to them; a second host using the same source port
    toward the same remote endpoint gets another port (1024, the first of
    the worker's share), toward another remote it keeps its own."""
    seq = [
        (from_lan(tcp(H, S, 40000, 80, "S")), to_wan(tcp(OUT, S, 40000, 80, "S"))),
        (from_wan(tcp(S, OUT, 80, 40000, "SA")), to_lan(tcp(S, H, 80, 40000, "SA"))),
        (from_lan(tcp(H, S, 40000, 80, "A")), to_wan(tcp(OUT, S, 40000, 80, "A"))),
        (from_wan(tcp(S, OUT, 80, 40000, "PA", b"hello")),
         to_lan(tcp(S, H, 80, 40000, "PA", b"hello"))),
        # The same source port from H2 to the same remote endpoint: port 1024.
        (from_lan(tcp(H2, S, 40000, 80, "S")), to_wan(tcp(OUT, S, 1024, 80, "S"))),
        (from_wan(tcp(S, OUT, 80, 1024, "SA")), to_lan(tcp(S, H2, 80, 40000, "SA"))),
        # ... and to another remote endpoint: its own port.
        (from_lan(tcp(H2, S2, 40000, 80, "S")), to_wan(tcp(OUT, S2, 40000, 80, "S"))),
        (from_lan(udp(H, S, 5353, 53)), to_wan(udp(OUT, S, 5353, 53))),
        (from_wan(udp(S, OUT, 53, 5353, b"a")), to_lan(udp(S, H, 53, 5353, b"a"))),
        # An identifier below the worker's share: the next free one (1025).
        (from_lan(echo(H, S, 8, 7)), to_wan(echo(OUT, S, 8, 1025))),
        (from_wan(echo(S, OUT, 0, 1025)), to_lan(echo(S, H, 0, 7))),
    ]
    nfvd, st = run(tmp_path, [f for f, _ in seq])
    assert drops(st) == {}, drops(st)
    sh = sessions(nfvd)
    assert sh["sessions"] == 5 and sh["created"] == 5, sh
    assert sh["in2out"] == 6 and sh["out2in"] == 5, sh
    assert {k: v for k, v in sh["by_state"].items() if v} == {
        "tcp_established": 2, "tcp_transitory": 1, "udp": 1, "icmp": 1}, sh["by_state"]
    e = {(x["inside"], x["remote"], x["proto"]): x for x in sh["session_list"]}
    s = e[(H2, S, "tcp")]
    assert (s["kind"], s["inside_port"], s["outside"], s["outside_port"], s["remote_port"],
            s["dev"]) == ("snat", 40000, OUT, 1024, 80, "wan"), s
    assert (e[(H, S, "icmp")]["inside_port"], e[(H, S, "icmp")]["outside_port"]) == (7, 1025)
    assert e[(H, S, "udp")]["packets_in2out"] == 1 and e[(H, S, "udp")]["packets_out2in"] == 1
    assert st["nat44"]["in2out"] == 6
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]


def test_dnat_port_forward(tmp_path):
    """wan:8080 goes to the inside server 10.0.0.5:80; its replies leave from
    wan:8080; traffic to another port of wan's address is nfvd's own."""
    seq = [
        (from_wan(tcp(S, OUT, 5555, 8080, "S")), to_lan(tcp(S, SRV, 5555, 80, "S"))),
        (from_lan(tcp(SRV, S, 80, 5555, "SA")), to_wan(tcp(OUT, S, 8080, 5555, "SA"))),
        (from_wan(tcp(S, OUT, 5555, 8080, "A")), to_lan(tcp(S, SRV, 5555, 80, "A"))),
        (from_wan(udp(S, OUT, 5555, 5353)), to_lan(udp(S, SRV, 5555, 53))),
        (from_lan(udp(SRV, S, 53, 5555, b"a")), to_wan(udp(OUT, S, 5353, 5555, b"a"))),
    ]
    other = from_wan(tcp(S, OUT, 5555, 8081, "S"))   # no rule: to nfvd itself
    nfvd, st = run(tmp_path, [f for f, _ in seq] + [other], extra_cfg=[
        "nat44 dnat add dev wan proto tcp dport 8080 to %s:80" % SRV,
        "nat44 dnat add dev wan proto udp dport 5353 to %s:53" % SRV])
    d = drops(st)
    assert sum(d.values()) == 1 and list(d)[0].startswith("ip4_local/"), d
    sh = sessions(nfvd)
    assert sh["sessions"] == 2, sh
    kinds = {(x["kind"], x["proto"], x["inside_port"], x["outside_port"]) for x in sh["session_list"]}
    assert kinds == {("dnat", "tcp", 80, 8080), ("dnat", "udp", 53, 5353)}, kinds
    assert [r["dport"] for r in sh["dnat"]] == [8080, 5353]
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]


def time_exceeded_to_wan(l3):
    """ICMP time exceeded about l3 as it came in by wan: from wan's address,
    back through wan (RFC 792, RFC 1812 4.3.2: tos 0xc0, TTL 64, id 0)."""
    orig = bytes(l3)
    err = IP(src=OUT, dst=IP(orig).src, tos=0xC0, ttl=64, id=0, flags=0, proto=1) / ICMP(
        type=11, code=0) / Raw(orig)
    return bytes(Ether(dst=R1, src=T) / Dot1Q(vlan=20) / IP(bytes(err)))


def test_ttl_expiring_packets_are_not_translated(tmp_path):
    """A packet that nat44_in would translate, with TTL 1: a new DNAT
    connection, the reply of an SNAT session. Neither is translated nor
    makes a session: each gets ICMP time exceeded quoting it as it came,
    so the inside address is not shown (a router that translated it
    first would put the quoted header back)."""
    dnat1 = fresh(IP(src=S, dst=OUT, ttl=1) / TCP(sport=5555, dport=8080, flags="S",
                                                 seq=1000, ack=2000))
    reply1 = fresh(IP(src=S, dst=OUT, ttl=1) / UDP(sport=53, dport=5353) / b"a")
    seq = [
        (from_wan(dnat1), time_exceeded_to_wan(dnat1)),
        (from_lan(udp(H, S, 5353, 53)), to_wan(udp(OUT, S, 5353, 53))),
        (from_wan(reply1), time_exceeded_to_wan(reply1)),
        (from_wan(tcp(S, OUT, 5555, 8080, "S")), to_lan(tcp(S, SRV, 5555, 80, "S"))),
    ]
    nfvd, st = run(tmp_path, [f for f, _ in seq], extra_cfg=[
        "nat44 dnat add dev wan proto tcp dport 8080 to %s:80" % SRV])
    assert drops(st) == {"nat44_in/ttl_expired": 2}, drops(st)
    sh = sessions(nfvd)
    assert sh["sessions"] == 2 and sh["created"] == 2 and sh["out2in"] == 1, sh
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]


def test_udp_without_checksum_and_address_range(tmp_path):
    """A UDP datagram without checksum keeps none; with "to A-B" the outside
    address is one of the range, the same for every session of a host."""
    nochk = IP(src=H, dst=S, ttl=64) / UDP(sport=7000, dport=53, chksum=0) / b"x"
    frames = [from_lan(nochk), from_lan(udp(H, S, 7001, 53)), from_lan(udp(H, S2, 7002, 53))]
    nfvd, st = run(tmp_path, frames,
                   extra_cfg=["nat44 snat del src 10.0.0.0/24 dev wan",
                              "nat44 snat add src 10.0.0.0/24 dev wan to "
                              "203.0.113.100-203.0.113.103"])
    assert drops(st) == {}, drops(st)
    sh = sessions(nfvd)
    addrs = {x["outside"] for x in sh["session_list"]}
    assert len(addrs) == 1, addrs
    a = addrs.pop()
    assert a in ["203.0.113.10%d" % i for i in range(4)], a
    assert sh["snat"] == [{"src": "10.0.0.0/24", "dev": "wan", "to": "203.0.113.100-203.0.113.103",
                           "iface_address": False}]
    out = nfvd.stop()
    want0 = IP(src=a, dst=S, ttl=63) / UDP(sport=7000, dport=53, chksum=0) / b"x"
    assert out["t"][0] == bytes(Ether(dst=R1, src=T) / Dot1Q(vlan=20) / fresh(want0))
    assert IP(out["t"][0][18:])[UDP].chksum == 0
    assert out["t"][1:] == [to_wan(udp(a, S, 7001, 53)), to_wan(udp(a, S2, 7002, 53))]


def test_show_names_a_single_outside_address_once(tmp_path):
    """An snat rule "to A", or "to A-A" (a pool of one address), is shown
    "A", as written; a range "A-B", the interface's address and the dnat
    rules as before. The JSON view (keys unchanged) and the text view."""
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("t")
    nfvd.cmd(*CONFIG[:-1],
             "nat44 snat add src 10.0.0.0/24 dev wan to 203.0.113.100",
             "nat44 snat add src 10.1.0.0/24 dev wan to 203.0.113.7-203.0.113.7",
             "nat44 snat add src 10.2.0.0/24 dev wan to 203.0.113.8-203.0.113.9",
             "nat44 snat add src 10.3.0.0/24 dev wan",
             "nat44 dnat add dev wan proto tcp dport 8080 to 10.0.0.2")
    nfvd.start()
    sh = nfvd.ctl("nat44 show")
    assert sh["snat"] == [
        {"src": "10.0.0.0/24", "dev": "wan", "to": "203.0.113.100", "iface_address": False},
        {"src": "10.1.0.0/24", "dev": "wan", "to": "203.0.113.7", "iface_address": False},
        {"src": "10.2.0.0/24", "dev": "wan", "to": "203.0.113.8-203.0.113.9",
         "iface_address": False},
        {"src": "10.3.0.0/24", "dev": "wan", "to": OUT, "iface_address": True}], sh["snat"]
    assert sh["dnat"] == [{"dev": "wan", "proto": "tcp", "dport": 8080, "to": "10.0.0.2",
                           "to_port": 8080}], sh["dnat"]
    text = nfvd.ctl_result("nat44", "show", json_out=False).stdout.splitlines()
    snat = [line.split() for line in text[text.index("snat:") + 1:text.index("dnat:")]]
    assert snat == [["src", "dev", "to", "iface_address"],
                    ["10.0.0.0/24", "wan", "203.0.113.100", "no"],
                    ["10.1.0.0/24", "wan", "203.0.113.7", "no"],
                    ["10.2.0.0/24", "wan", "203.0.113.8-203.0.113.9", "no"],
                    ["10.3.0.0/24", "wan", OUT, "yes"]], text
    nfvd.stop()


def frags(l3, size=48):
    """l3's fragments (scapy's fragment(): the L4 checksum over the whole
    datagram), each as bytes of its IP header and data."""
    return [bytes(f) for f in fragment(l3, fragsize=size)]


def retranslate(l3, **fields):
    """l3 (a UDP or ICMP datagram) with its addresses (src, dst) or L4
    fields (sport, dport; id) changed, its IP id kept, checksums afresh."""
    l3 = IP(bytes(l3))
    for k, v in fields.items():
        setattr(l3 if k in ("src", "dst") else l3[UDP] if UDP in l3 else l3[ICMP], k, v)
    return fresh(l3)


def routed_frag(frag, l2):
    """A fragment (bytes) as nfvd forwards it: TTL one less, the IP header
    checksum computed afresh, nothing else touched (a later fragment has no
    L4 header, a first one's L4 checksum is the whole datagram's)."""
    ip = IP(frag)
    ip.ttl -= 1
    del ip.chksum
    hdr = bytes(ip)[:ip.ihl * 4]
    return bytes(l2) + hdr + frag[ip.ihl * 4:]


def test_fragments_are_translated(tmp_path):
    """Fragmented datagrams through NAT (as VPP's shallow virtual
    reassembly does it): a first fragment carries the ports and is
    translated as a packet of its session (its L4 checksum, the whole
    datagram's, updated: each fragment must equal scapy's fragment of the
    datagram translated whole); the later ones get the address of their
    first. Leaving (UDP, an echo request whose identifier changes) and
    arriving (the replies, DNAT to a server). A later fragment of no first
    fragment translated leaving is dropped (nat44_out/fragment), arriving it
    is left as it came (to nfvd itself, whose reassembly holds it until its
    timeout, 1 s here); both counted frag_unknown."""
    big = bytes(range(256)) * 2
    up = udp(H, S, 6000, 53, big)
    up.id = 100
    down = udp(S, OUT, 53, 6000, big[::-1])
    down.id = 200
    ping = echo(H, S, 8, 7) / Raw(big)      # identifier 7: 1024 outside
    ping.id = 300
    pong = echo(S, OUT, 0, 1024) / Raw(big)
    pong.id = 400
    client = udp(S2, OUT, 7777, 5353, big)  # DNAT to 10.0.0.5:53
    client.id = 500
    orphan_out = frags(udp(H, S, 6001, 53, big))[1]   # its first never sent
    orphan_in = frags(udp(S, OUT, 53, 6001, big))[1]

    def l2(dst, src, vlan):
        return Ether(dst=dst, src=src) / Dot1Q(vlan=vlan, type=0x0800)

    lan_in, wan_in = l2(T, H0, 10), l2(T, R1, 20)
    lan_out, wan_out = l2(H0, T, 10), l2(R1, T, 20)
    seq = []
    for l3, want, src_l2, dst_l2 in [
            (up, retranslate(up, src=OUT), lan_in, wan_out),
            (down, retranslate(down, dst=H), wan_in, lan_out),
            (ping, retranslate(ping, src=OUT, id=1024), lan_in, wan_out),
            (pong, retranslate(pong, dst=H, id=7), wan_in, lan_out),
            (client, retranslate(client, dst=SRV, dport=53), wan_in, lan_out)]:
        got, exp = frags(l3), frags(want)
        assert len(got) == len(exp) > 2
        seq += [(bytes(src_l2) + g, routed_frag(e, dst_l2)) for g, e in zip(got, exp)]
    frames = [f for f, _ in seq] + [bytes(lan_in) + orphan_out, bytes(wan_in) + orphan_in]
    nfvd, st = run(tmp_path, frames, extra_cfg=[
        "nat44 dnat add dev wan proto udp dport 5353 to %s:53" % SRV],
        args=["--reassembly-timeout", "1"])
    d = drops(st)
    assert d.pop("nat44_out/fragment") == 1, d
    assert d == {"ip4_local/reassembly_timeout": 1}, d
    sh = sessions(nfvd)
    n_later = sum(len(frags(x)) - 1 for x in (up, ping))
    n_later_in = sum(len(frags(x)) - 1 for x in (down, pong, client))
    assert (sh["in2out"], sh["out2in"]) == (2, 3), sh
    assert (sh["frag_in2out"], sh["frag_out2in"], sh["frag_unknown"]) == (
        n_later, n_later_in, 2), sh
    assert sh["sessions"] == 3, sh
    assert st["nat44"]["frag_in2out"] == n_later
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]


def test_drops_fragments_unsupported_full_and_expiry(tmp_path):
    # A later fragment whose first was never seen (a first one makes a
    # session: here, table_full).
    frag = IP(src=H, dst=S, ttl=64, id=9, frag=3) / Raw(b"f" * 16)
    gre = IP(src=H, dst=S, ttl=64, proto=47) / Raw(b"\x00\x00\x08\x00")
    unreach = IP(src=H, dst=S, ttl=64) / ICMP(type=3, code=3) / IP(src=S, dst=H) / UDP()
    other = IP(src="10.9.0.1", dst=S, ttl=64) / UDP(sport=9, dport=9) / b"z"  # no rule
    frames = [from_lan(udp(H, S, 6000, 53)), from_lan(udp(H, S, 6001, 53)),
              from_lan(frag), from_lan(gre), from_lan(unreach),
              Ether(dst=T, src=H0) / Dot1Q(vlan=10) / other]
    nfvd, st = run(tmp_path, frames, extra_cfg=[
        "route add 10.9.0.0/24 via 10.0.0.1", "nat44 set max 1", "nat44 set timeout udp 1"])
    assert drops(st) == {"nat44_out/table_full": 1, "nat44_out/fragment": 1,
                         "nat44_out/unsupported": 1,
                         "nat44_out/icmp_error_no_session": 1}, drops(st)
    sh = sessions(nfvd)
    assert sh["sessions"] == 1 and sh["table_full"] == 1 and sh["max_sessions"] == 1, sh
    assert sh["timeouts"] == {"tcp-established": 7440, "tcp-transitory": 240, "udp": 1,
                              "icmp": 60}
    time.sleep(1.5)
    assert sessions(nfvd)["sessions"] == 0
    # A reply after the session expired is nfvd's own (no NAT), dropped locally.
    nfvd.add_port_now("late", rx=[Ether(dst=pcap_mac(1), src=R1) /
                                  udp(S, OUT, 53, 6000, b"late")])
    st = nfvd.wait_processed({"late": 1})
    assert sum(drops(st).values()) == 5
    nfvd.ctl("nat44 flush")
    out = nfvd.stop()
    assert out["t"] == [to_wan(udp(OUT, S, 6000, 53)), to_wan(other)]
    assert out["late"] == []


@pytest.mark.parametrize("cmd,err", [
    ("nat44 snat add src 10.0.0.0/33 dev wan", "bad IPv4 prefix"),
    ("nat44 snat add src 10.0.0.1/24 dev wan", "bad IPv4 prefix"),
    ("nat44 snat add src 10.0.0.0/24 dev nope", "unknown interface 'nope'"),
    ("nat44 snat add src 10.0.0.0/24 dev wan", "exists"),
    ("nat44 snat add src 10.0.0.0/24 dev wan to 1.2.3.9-1.2.3.1", "bad address range"),
    ("nat44 snat add src 10.0.0.0/24 dev wan from 1.2.3.4", "expected 'to'"),
    ("nat44 snat del src 10.1.0.0/24 dev wan", "no snat rule"),
    ("nat44 dnat add dev wan proto sctp dport 80 to 10.0.0.5", "bad protocol"),
    ("nat44 dnat add dev wan proto tcp dport 0 to 10.0.0.5", "bad port"),
    ("nat44 dnat add dev wan proto tcp dport 80 to 10.0.0.5:99999", "bad port"),
    ("nat44 dnat add dev wan proto tcp dport 80 to nowhere", "bad IPv4 address"),
    ("nat44 dnat add dev wan proto tcp dport 80 to 224.0.0.1:23", "a multicast address"),
    ("nat44 dnat add dev wan proto tcp dport 80 to 255.255.255.255", "the broadcast address"),
    ("nat44 dnat add dev wan proto tcp dport 80 to 127.0.0.1", "a loopback address"),
    ("nat44 snat add src 10.1.0.0/24 dev wan to 0.0.0.0-0.0.0.9", "the unspecified address"),
    ("nat44 dnat del dev wan proto tcp dport 81", "no dnat rule"),
    ("nat44 set timeout tcp-foo 5", "unknown timeout"),
    ("nat44 set max 99999999999", "bad number"),
    ("nat44 show everything", "unexpected 'everything'"),
])
def test_bad_commands(tmp_path, cmd, err):
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("t")
    nfvd.cmd(*CONFIG)
    nfvd.start()
    before = nfvd.ctl("nat44 show")
    with pytest.raises(CtlError) as e:
        nfvd.ctl(cmd)
    assert err in e.value.stdout + e.value.stderr, e.value
    assert nfvd.ctl("nat44 show") == before
    nfvd.stop()


@pytest.mark.parametrize("opt,add,show", [
    ("--nat44-sessions", "nat44 snat add src 10.0.0.0/24 dev wan", "nat44 show sessions"),
    ("--lb-sessions", "lb service add 192.0.2.100:80 proto tcp", "lb show sessions"),
])
def test_session_tables_that_do_not_fit_are_not_kept(tmp_path, opt, add, show):
    """Session tables too big for nfvd's memory (16M sessions in 512 MB):
    the first rule that needs them is refused, and so is the same rule
    again (the half-built tables are not kept for it to run on); shows
    answer, and a packet injected afterwards is routed untranslated."""
    nfvd = Nfvd(tmp_path)
    nfvd.mem_mb = 512
    nfvd.extra_args = [opt, str(1 << 24)]
    nfvd.add_port("t")
    nfvd.cmd(*CONFIG[:-1])               # no NAT rule yet
    nfvd.start()
    for _ in range(2):
        with pytest.raises(CtlError) as e:
            nfvd.ctl(add)
        assert "no memory for 16777216" in e.value.stdout + e.value.stderr, e.value
    assert nfvd.ctl(show)["sessions"] == 0
    frame = from_lan(udp(H, S, 1000, 53))
    nfvd.ctl("punt", "inject", "dev", "t", "hex", bytes(frame).hex())
    nfvd.wait_processed({})
    out = nfvd.stop()
    assert out["t"] == [to_wan(udp(H, S, 1000, 53))]


def _crc32c_word(data4, init):
    """rte_hash_crc_4byte(data, init): CRC-32C (reflected 0x82F63B78) of the
    four bytes as they sit in memory, from init, without inversion."""
    crc = init
    for b in data4:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc


def client_owner(addr, port, workers=2):
    """The worker owning the DNAT sessions of client addr:port (nat44.h)."""
    port_be = int.from_bytes(port.to_bytes(2, "big"), "little")
    return _crc32c_word(bytes(int(x) for x in addr.split(".")), port_be) % workers


def wait_counter(nfvd, block, key, want, timeout=20.0):
    """Waits until show stats' block[key] is want (injected frames and the
    handoff rings are not in the pools' in-use count), then until the graph
    is idle; returns the final show stats."""
    deadline = time.monotonic() + timeout
    while nfvd.stats()[block][key] != want:
        assert time.monotonic() < deadline, (block, key, want, nfvd.stats()[block])
        time.sleep(0.01)
    return nfvd.wait_processed({})


def two_workers(tmp_path, rx_a, hosts, extra=()):
    """Two workers: a (receiving rx_a) polled by worker 1 (lcore 2), b by
    worker 0 (lcore 1); SNAT of 10.0.0.0/24 behind b; hosts on a."""
    nfvd = Nfvd(tmp_path)
    nfvd.lcores = ["--lcores", "0@0,1@0,2@1"]
    a = nfvd.add_port("a", rx=rx_a)
    b = nfvd.add_port("b")
    nfvd.cmd("worker set 2 rxq a:0", "worker set 1 rxq b:0",
             "addr add 10.0.0.254/24 dev a", "addr add %s/24 dev b" % OUT,
             *["neigh add %s lladdr %s dev a" % (h, H0) for h in hosts],
             "neigh add 203.0.113.2 lladdr %s dev b" % R1,
             "route add 198.51.100.0/24 via 203.0.113.2",
             *extra,
             "nat44 snat add src 10.0.0.0/24 dev b")
    nfvd.start()
    nfvd.wait_processed({"a": len(rx_a)})
    return nfvd, a, b


def test_two_workers_hand_packets_to_the_session_owner(tmp_path):
    """Inside port a is polled by worker 1 (lcore 2). An SNAT session lives
    on the worker its inside address and port hash to, wherever its packets
    come in: HA's and HB's flows hash to worker 1 and make their sessions
    there, with outside ports from worker 1's share (from 33280), or the
    inside port when it is in that share; HC's flow hashes to worker 0 and
    is handed there, keeping its port (in worker 0's share). What "punt
    inject" gives worker 0 as received on the outside port b: the replies
    (handed to the owner of their destination port), DNAT clients (each
    handed to the worker its address and port hash to) and, as received on
    a, the DNAT server's replies (handed the same way). Every packet is
    translated as with one worker, byte for byte; the handoff counters are
    exact."""
    HA, HB, HC = "10.0.0.3", "10.0.0.6", "10.0.0.1"
    out_flows = [
        (tcp(HA, S, 40000, 80, "S"), 40000, 1),       # in worker 1's share: kept
        (udp(HA, S, 2000, 53), 33280, 1),             # worker 0's: the first of 1's
        (echo(HA, S, 8, 10), 33281, 1),               # identifier 10: no worker's
        (tcp(HB, S, 40000, 80, "S"), 33282, 1),       # 40000 taken toward S:80
        (udp(HB, S2, 50000, 53), 50000, 1),
        (udp(HC, S2, 2000, 53), 2000, 0),             # handed to worker 0: kept
    ]

    def inside_port(f):
        return f[TCP].sport if TCP in f else f[UDP].sport if UDP in f else f[ICMP].id

    assert [client_owner(f[IP].src, inside_port(f)) for f, _, _ in out_flows] == [
        o for _, _, o in out_flows]
    clients = ["192.0.2.%d" % i for i in range(1, 13)]
    owners = [client_owner(cl, 51000 + i) for i, cl in enumerate(clients)]
    assert 0 in owners and 1 in owners, owners
    nfvd, a, b = two_workers(
        tmp_path, [Ether(dst=pcap_mac(0), src=H0) / f for f, _, _ in out_flows],
        [HA, HB, HC, SRV], ["route add 192.0.2.0/24 via 203.0.113.2",
                            "nat44 dnat add dev b proto tcp dport 8080 to %s:80" % SRV])
    st = wait_counter(nfvd, "nat44", "in2out", len(out_flows))
    moved = sum(1 for _, _, o in out_flows if o != 1)
    assert st["nat44"]["handoff_out"] == moved and st["nat44"]["handoff_in"] == moved, \
        st["nat44"]
    workers = nfvd.ctl("show workers")
    polled = {q: w["lcore"] for w in workers["workers"] for q in w["rxqs"]}
    assert polled == {"a:0": 2, "b:0": 1}, workers
    ses = sessions(nfvd)["session_list"]
    assert sorted((s["inside"], s["inside_port"], s["outside_port"], s["worker"])
                  for s in ses) == sorted(
        (f[IP].src, inside_port(f), port, o) for f, port, o in out_flows)

    def replies():
        for f, port, _ in out_flows:
            if TCP in f:
                yield (tcp(f[IP].dst, OUT, 80, port, "SA"), tcp(f[IP].dst, f[IP].src, 80,
                                                                  f[TCP].sport, "SA"))
            elif UDP in f:
                yield (udp(f[IP].dst, OUT, 53, port, b"a"),
                       udp(f[IP].dst, f[IP].src, 53, f[UDP].sport, b"a"))
            else:
                yield (echo(f[IP].dst, OUT, 0, port), echo(f[IP].dst, f[IP].src, 0, 10))

    back = list(replies())
    syns = [(tcp(cl, OUT, 51000 + i, 8080, "S"), tcp(cl, SRV, 51000 + i, 80, "S"))
            for i, cl in enumerate(clients)]
    for pkt, _ in back + syns:
        nfvd.ctl("punt", "inject", "dev", "b", "hex",
                 bytes(Ether(dst=b.mac, src=R1) / pkt).hex())
    st = wait_counter(nfvd, "nat44", "out2in", len(back) + len(syns))
    # Each reply to the owner of its destination port: those of worker 1's.
    moved += sum(1 for _, _, o in out_flows if o == 1) + owners.count(1)
    assert st["nat44"]["handoff_out"] == moved and st["nat44"]["handoff_in"] == moved, \
        st["nat44"]
    dn = [s for s in sessions(nfvd)["session_list"] if s["kind"] == "dnat"]
    assert sorted((s["remote"], s["remote_port"], s["worker"]) for s in dn) == sorted(
        (cl, 51000 + i, owners[i]) for i, cl in enumerate(clients))
    # The server's replies, as received on a by worker 0.
    srv = [(tcp(SRV, cl, 80, 51000 + i, "SA"), tcp(OUT, cl, 8080, 51000 + i, "SA"))
           for i, cl in enumerate(clients)]
    for pkt, _ in srv:
        nfvd.ctl("punt", "inject", "dev", "a", "hex",
                 bytes(Ether(dst=a.mac, src=H0) / pkt).hex())
    st = wait_counter(nfvd, "nat44", "in2out", len(out_flows) + len(srv))
    moved += owners.count(1)
    assert st["nat44"]["handoff_out"] == moved and st["nat44"]["handoff_in"] == moved, \
        st["nat44"]
    assert st["nat44"]["handoff_full"] == 0
    assert drops(st) == {}, drops(st)
    assert st["nat44"]["out2in"] == len(back) + len(syns)
    assert st["nat44"]["in2out"] == len(out_flows) + len(srv)
    out = nfvd.stop()

    def routed(l3, dst_mac, src_mac):
        l3 = IP(bytes(l3))
        l3.ttl -= 1
        return bytes(Ether(dst=dst_mac, src=src_mac) / fresh(l3))

    want_b = [routed(tcp(OUT, S, 40000, 80, "S"), R1, b.mac),
              routed(udp(OUT, S, 33280, 53), R1, b.mac),
              routed(echo(OUT, S, 8, 33281), R1, b.mac),
              routed(tcp(OUT, S, 33282, 80, "S"), R1, b.mac),
              routed(udp(OUT, S2, 50000, 53), R1, b.mac),
              routed(udp(OUT, S2, 2000, 53), R1, b.mac)]
    want_b += [routed(x, R1, b.mac) for _, x in srv]
    want_a = [routed(x, H0, a.mac) for _, x in back + syns]
    assert sorted(out["b"]) == sorted(want_b)
    assert sorted(out["a"]) == sorted(want_a)


def test_two_workers_hand_fragments_after_their_first(tmp_path):
    """Later fragments carry no ports to find their session's owner by: they
    follow their first fragment. HC's datagram (session on worker 0) comes
    in on a (worker 1): its first fragment is handed to worker 0 and the
    others after it; HA's (worker 1, outside port 33280) is translated where
    it came. The replies, as received on b by worker 0: HA's handed to
    worker 1 (the owner of port 33280) fragment by fragment, HC's
    translated on worker 0. Byte for byte, exact counters."""
    HA, HC = "10.0.0.3", "10.0.0.1"
    assert (client_owner(HC, 2000), client_owner(HA, 2000)) == (0, 1)
    big = bytes(range(256)) * 2
    dgrams = [udp(HC, S2, 2000, 53, big), udp(HA, S, 2000, 53, big)]
    for i, d in enumerate(dgrams):
        d.id = 10 + i
    eth_a = Ether(dst=pcap_mac(0), src=H0, type=0x0800)
    nfvd, a, b = two_workers(tmp_path, [bytes(eth_a) + f for d in dgrams for f in frags(d)],
                             [HA, HC])
    n_frags = len(frags(dgrams[0]))
    st = wait_counter(nfvd, "nat44", "frag_in2out", 2 * (n_frags - 1))
    assert st["nat44"]["in2out"] == 2
    back = [udp(S2, OUT, 53, 2000, big[::-1]), udp(S, OUT, 53, 33280, big[::-1])]
    for i, d in enumerate(back):
        d.id = 20 + i
    for d in back:
        for f in frags(d):
            nfvd.ctl("punt", "inject", "dev", "b", "hex",
                     (bytes(Ether(dst=b.mac, src=R1, type=0x0800)) + f).hex())
    st = wait_counter(nfvd, "nat44", "frag_out2in", 2 * (n_frags - 1))
    n = st["nat44"]
    assert (n["in2out"], n["out2in"], n["frag_unknown"], n["handoff_full"]) == (2, 2, 0, 0), n
    # HC's datagram to worker 0, HA's reply to worker 1: every fragment.
    assert n["handoff_out"] == n["handoff_in"] == 2 * n_frags, n
    assert drops(st) == {}, drops(st)
    out = nfvd.stop()
    want_b = [routed_frag(f, Ether(dst=R1, src=b.mac, type=0x0800))
              for d, o in zip(dgrams, (2000, 33280))
              for f in frags(retranslate(d, src=OUT, sport=o))]
    want_a = [routed_frag(f, Ether(dst=H0, src=a.mac, type=0x0800))
              for d, h in zip(back, (HC, HA)) for f in frags(retranslate(d, dst=h, dport=2000))]
    assert sorted(out["b"]) == sorted(want_b)
    assert sorted(out["a"]) == sorted(want_a)


# ---- ICMP errors about translated connections ---------------------------------------------

RT = "198.51.100.1"   # a router beyond R1
RL = "10.0.0.253"     # a router on the lan, between nfvd and the inside hosts
RL_MAC = "02:00:00:00:00:fd"


def quoted(l3, n=None):
    """l3's bytes (checksums computed) as an ICMP error quotes them: whole,
    or the first n bytes (n=28: its IP header and 8 bytes, RFC 792)."""
    b = bytes(l3)
    return b if n is None else b[:n]


def q_udp(src, dst, sport, dport, ttl=1, payload=b"q", chksum=None):
    return IP(src=src, dst=dst, ttl=ttl) / UDP(sport=sport, dport=dport, chksum=chksum) / payload


def q_tcp(src, dst, sport, dport, flags, ttl=1, payload=b""):
    return IP(src=src, dst=dst, ttl=ttl) / TCP(sport=sport, dport=dport, flags=flags, seq=1000,
                                               ack=2000) / payload


def q_echo(src, dst, typ, ident, ttl=1):
    return IP(src=src, dst=dst, ttl=ttl) / ICMP(type=typ, id=ident, seq=1) / b"ping"


def with_options(l3):
    """l3 with four bytes of IP options (a router alert)."""
    l3 = l3.copy()
    l3.options = [IPOption_Router_Alert()]
    return l3


def icmp_error(src, dst, typ, code, quote, ttl=64, mtu=0):
    """An ICMP error quoting the bytes quote, its IP and ICMP checksums
    computed by scapy (type 3 code 4 carries the next-hop MTU)."""
    icmp = ICMP(type=typ, code=code, nexthopmtu=mtu) if (typ, code) == (3, 4) else \
        ICMP(type=typ, code=code)
    return IP(src=src, dst=dst, ttl=ttl, id=77) / icmp / Raw(quote)


def err_to_lan(l3):
    """An ICMP error as nfvd routes it to lan: built afresh, TTL one less."""
    l3 = l3.copy()
    l3.ttl -= 1
    return bytes(Ether(dst=H0, src=T) / Dot1Q(vlan=10) / IP(bytes(l3)))


def err_to_wan(l3):
    l3 = l3.copy()
    l3.ttl -= 1
    return bytes(Ether(dst=R1, src=T) / Dot1Q(vlan=20) / IP(bytes(l3)))


def from_rl(l3):
    return Ether(dst=T, src=RL_MAC) / Dot1Q(vlan=10) / l3


def assert_error_checksums(frame, l2_len=18):
    """Checks every checksum of an ICMP error frame independently of how
    it was built: the outer IP header, the ICMP message, the quoted IP
    header, and the quoted TCP / UDP / echo checksum when the quote holds
    the whole quoted packet (a UDP checksum 0 stays 0). Returns the quote."""
    ip = frame[l2_len:]
    ihl = (ip[0] & 15) * 4
    assert checksum(ip[:ihl]) == 0, "outer IP header checksum"
    icmp = ip[ihl:int.from_bytes(ip[2:4], "big")]
    assert checksum(icmp) == 0, "ICMP checksum"
    q = icmp[8:]
    qihl = (q[0] & 15) * 4
    assert checksum(q[:qihl]) == 0, "quoted IP header checksum"
    qtot = int.from_bytes(q[2:4], "big")
    if len(q) >= qtot:
        l4 = q[qihl:qtot]
        if q[9] == 1:
            assert checksum(l4) == 0, "quoted echo checksum"
        elif q[9] == 6 or (q[9] == 17 and l4[6:8] != b"\0\0"):
            assert in4_chksum(q[9], IP(q), l4) == 0, "quoted L4 checksum"
    return q


def nat_counters(nfvd):
    sh = sessions(nfvd)
    return {k: sh[k] for k in ("in2out", "out2in", "icmp_error_in2out", "icmp_error_out2in",
                               "icmp_error_no_session", "icmp_error_truncated",
                               "icmp_error_unsupported")}


def test_icmp_errors_about_udp_snat_sessions(tmp_path):
    """A router beyond sends time exceeded and fragmentation needed (with
    its next-hop MTU) to the outside address about datagrams that left
    translated; the remote itself sends port unreachable quoting 8 bytes.
    Each reaches the inside host with the outer destination and the quoted
    source address and port put back, the quoted IP and UDP checksums
    updated (a UDP checksum of 0 stays 0) and the ICMP checksum right.
    The errors make no session and do not count as the sessions' packets."""
    seq = [
        (from_lan(udp(H, S, 5353, 53)), to_wan(udp(OUT, S, 5353, 53))),
        # H2, same port to the same remote endpoint: outside port 1024.
        (from_lan(udp(H2, S, 5353, 53)), to_wan(udp(OUT, S, 1024, 53))),
        (from_lan(q_udp(H, S, 7000, 53, ttl=64, chksum=0)),
         to_wan(q_udp(OUT, S, 7000, 53, ttl=64, chksum=0))),
        (from_wan(icmp_error(RT, OUT, 11, 0, quoted(q_udp(OUT, S, 1024, 53)))),
         err_to_lan(icmp_error(RT, H2, 11, 0, quoted(q_udp(H2, S, 5353, 53))))),
        (from_wan(icmp_error(RT, OUT, 3, 4, quoted(q_udp(OUT, S, 5353, 53, ttl=60)), mtu=1400)),
         err_to_lan(icmp_error(RT, H, 3, 4, quoted(q_udp(H, S, 5353, 53, ttl=60)), mtu=1400))),
        (from_wan(icmp_error(RT, OUT, 3, 4, quoted(q_udp(OUT, S, 7000, 53, chksum=0)),
                             mtu=1280)),
         err_to_lan(icmp_error(RT, H, 3, 4, quoted(q_udp(H, S, 7000, 53, chksum=0)),
                               mtu=1280))),
        (from_wan(icmp_error(S, OUT, 3, 3, quoted(q_udp(OUT, S, 1024, 53, ttl=50), 28))),
         err_to_lan(icmp_error(S, H2, 3, 3, quoted(q_udp(H2, S, 5353, 53, ttl=50), 28)))),
    ]
    nfvd, st = run(tmp_path, [f for f, _ in seq])
    assert drops(st) == {}, drops(st)
    assert nat_counters(nfvd) == {
        "in2out": 3, "out2in": 0, "icmp_error_in2out": 0, "icmp_error_out2in": 4,
        "icmp_error_no_session": 0, "icmp_error_truncated": 0, "icmp_error_unsupported": 0}
    assert st["nat44"]["icmp_error_out2in"] == 4
    sh = sessions(nfvd)
    assert sh["sessions"] == 3 and sh["created"] == 3, sh
    assert all(x["packets_out2in"] == 0 for x in sh["session_list"]), sh["session_list"]
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]
    quotes = [assert_error_checksums(frame) for frame in out["t"][3:]]
    # The quoted UDP checksums: updated, and the one that was 0 left 0.
    assert [q[26:28] == b"\0\0" for q in quotes] == [False, False, True, False]


def test_icmp_errors_about_a_tcp_snat_session(tmp_path):
    """Errors about TCP segments that left translated: a quote of 8 bytes
    of TCP (ports and sequence number, no checksum to update), one of the
    whole segment (its TCP checksum updated), one where only the address
    changes (the port was kept). The sessions' TCP state is not touched."""
    seg = q_tcp(OUT, S, 1024, 80, "PA", ttl=3, payload=b"x" * 100)
    seq = [
        (from_lan(tcp(H, S, 40000, 80, "S")), to_wan(tcp(OUT, S, 40000, 80, "S"))),
        (from_lan(tcp(H2, S, 40000, 80, "S")), to_wan(tcp(OUT, S, 1024, 80, "S"))),
        (from_wan(icmp_error(RT, OUT, 11, 0, quoted(q_tcp(OUT, S, 1024, 80, "S"), 28))),
         err_to_lan(icmp_error(RT, H2, 11, 0, quoted(q_tcp(H2, S, 40000, 80, "S"), 28)))),
        (from_wan(icmp_error(RT, OUT, 3, 4, quoted(seg), mtu=1280)),
         err_to_lan(icmp_error(RT, H2, 3, 4, quoted(
             q_tcp(H2, S, 40000, 80, "PA", ttl=3, payload=b"x" * 100)), mtu=1280))),
        (from_wan(icmp_error(RT, OUT, 11, 0, quoted(q_tcp(OUT, S, 40000, 80, "S")))),
         err_to_lan(icmp_error(RT, H, 11, 0, quoted(q_tcp(H, S, 40000, 80, "S"))))),
        # The quoted header with options (24 bytes): the ports are past them.
        (from_wan(icmp_error(RT, OUT, 11, 0, quoted(with_options(q_tcp(OUT, S, 1024, 80, "A"))))),
         err_to_lan(icmp_error(RT, H2, 11, 0, quoted(with_options(
             q_tcp(H2, S, 40000, 80, "A")))))),
    ]
    nfvd, st = run(tmp_path, [f for f, _ in seq])
    assert drops(st) == {}, drops(st)
    c = nat_counters(nfvd)
    assert (c["icmp_error_out2in"], c["out2in"], c["in2out"]) == (4, 0, 2), c
    sh = sessions(nfvd)
    assert [(x["state"], x["packets_out2in"]) for x in sh["session_list"]] == [
        ("tcp_transitory", 0)] * 2, sh["session_list"]
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]
    for frame in out["t"][2:]:
        assert_error_checksums(frame)


def test_icmp_errors_about_an_echo_session(tmp_path):
    """Time exceeded from a router beyond about an echo request that left
    with identifier 1024 reaches the inside host with its own identifier
    (7) and the echo checksum updated; time exceeded from a router on the
    lan about the translated echo reply leaves with the outside address as
    source and the outside identifier in the quote."""
    seq = [
        (from_lan(echo(H, S, 8, 7)), to_wan(echo(OUT, S, 8, 1024))),
        (from_wan(echo(S, OUT, 0, 1024)), to_lan(echo(S, H, 0, 7))),
        (from_wan(icmp_error(RT, OUT, 11, 0, quoted(q_echo(OUT, S, 8, 1024)))),
         err_to_lan(icmp_error(RT, H, 11, 0, quoted(q_echo(H, S, 8, 7))))),
        (from_rl(icmp_error(RL, S, 11, 0, quoted(q_echo(S, H, 0, 7)))),
         err_to_wan(icmp_error(OUT, S, 11, 0, quoted(q_echo(S, OUT, 0, 1024))))),
    ]
    nfvd, st = run(tmp_path, [f for f, _ in seq])
    assert drops(st) == {}, drops(st)
    c = nat_counters(nfvd)
    assert (c["icmp_error_out2in"], c["icmp_error_in2out"], c["in2out"], c["out2in"]) == (
        1, 1, 1, 1), c
    sh = sessions(nfvd)
    assert [(x["proto"], x["packets_in2out"], x["packets_out2in"])
            for x in sh["session_list"]] == [("icmp", 1, 1)], sh
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]
    for frame in out["t"][2:]:
        assert_error_checksums(frame)


DNAT_CFG = ["nat44 dnat add dev wan proto tcp dport 8080 to %s:80" % SRV,
            "nat44 dnat add dev wan proto udp dport 5353 to %s:53" % SRV]


def test_icmp_errors_about_dnat_sessions_reach_the_server(tmp_path):
    """Errors about the server's replies as they left (from wan's address
    and the forwarded port), sent to wan's address by a router beyond,
    reach the server with its own address and port in the quote."""
    seq = [
        (from_wan(udp(S, OUT, 5555, 5353)), to_lan(udp(S, SRV, 5555, 53))),
        (from_lan(udp(SRV, S, 53, 5555, b"a")), to_wan(udp(OUT, S, 5353, 5555, b"a"))),
        (from_wan(tcp(S, OUT, 6000, 8080, "S")), to_lan(tcp(S, SRV, 6000, 80, "S"))),
        (from_lan(tcp(SRV, S, 80, 6000, "SA")), to_wan(tcp(OUT, S, 8080, 6000, "SA"))),
        (from_wan(icmp_error(RT, OUT, 11, 0, quoted(q_udp(OUT, S, 5353, 5555, payload=b"a")))),
         err_to_lan(icmp_error(RT, SRV, 11, 0, quoted(q_udp(SRV, S, 53, 5555, payload=b"a"))))),
        (from_wan(icmp_error(RT, OUT, 3, 4, quoted(q_tcp(OUT, S, 8080, 6000, "SA")), mtu=1400)),
         err_to_lan(icmp_error(RT, SRV, 3, 4, quoted(q_tcp(SRV, S, 80, 6000, "SA")),
                               mtu=1400))),
    ]
    nfvd, st = run(tmp_path, [f for f, _ in seq], extra_cfg=DNAT_CFG)
    assert drops(st) == {}, drops(st)
    c = nat_counters(nfvd)
    assert (c["icmp_error_out2in"], c["icmp_error_in2out"]) == (2, 0), c
    assert sessions(nfvd)["sessions"] == 2
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]
    for frame in out["t"][4:]:
        assert_error_checksums(frame)


def test_icmp_errors_from_inside_about_translated_connections_leave_translated(tmp_path):
    """Errors leaving by wan about packets that came in translated: the
    DNAT server's port unreachable about a client's datagram, an inside
    host's port unreachable about an SNAT session's reply, a lan router's
    fragmentation needed about a client's segment to the server. Each
    leaves from wan's address with the outside address and port in the
    quote (the inside ones are never shown)."""
    seq = [
        (from_wan(udp(S, OUT, 5555, 5353)), to_lan(udp(S, SRV, 5555, 53))),
        (from_wan(tcp(S, OUT, 6000, 8080, "PA", b"y" * 64)),
         to_lan(tcp(S, SRV, 6000, 80, "PA", b"y" * 64))),
        (from_lan(udp(H, S, 4000, 53)), to_wan(udp(OUT, S, 4000, 53))),
        (from_lan(udp(H2, S, 4000, 53)), to_wan(udp(OUT, S, 1024, 53))),
        (from_wan(udp(S, OUT, 53, 1024, b"late")), to_lan(udp(S, H2, 53, 4000, b"late"))),
        (from_lan(icmp_error(SRV, S, 3, 3, quoted(q_udp(S, SRV, 5555, 53, ttl=63)))),
         err_to_wan(icmp_error(OUT, S, 3, 3, quoted(q_udp(S, OUT, 5555, 5353, ttl=63))))),
        (from_lan(icmp_error(H2, S, 3, 3, quoted(q_udp(S, H2, 53, 4000, ttl=63,
                                                      payload=b"late")))),
         err_to_wan(icmp_error(OUT, S, 3, 3, quoted(q_udp(S, OUT, 53, 1024, ttl=63,
                                                          payload=b"late"))))),
        (from_rl(icmp_error(RL, S, 3, 4, quoted(q_tcp(S, SRV, 6000, 80, "PA", ttl=63,
                                                      payload=b"y" * 64)), mtu=576)),
         err_to_wan(icmp_error(OUT, S, 3, 4, quoted(q_tcp(S, OUT, 6000, 8080, "PA", ttl=63,
                                                          payload=b"y" * 64)), mtu=576))),
    ]
    nfvd, st = run(tmp_path, [f for f, _ in seq], extra_cfg=DNAT_CFG)
    assert drops(st) == {}, drops(st)
    c = nat_counters(nfvd)
    assert (c["icmp_error_in2out"], c["icmp_error_out2in"], c["icmp_error_no_session"]) == (
        3, 0, 0), c
    assert sessions(nfvd)["sessions"] == 4
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq]
    for frame in out["t"][5:]:
        assert_error_checksums(frame)


def test_icmp_errors_of_no_session_are_left_as_they_were(tmp_path):
    """Errors whose quote is of no session are not translated, as before:
    to the outside address they are nfvd's own (dropped by ip4_local, as
    with no NAT), one about an echo reply leaving (never translated) too;
    one to an inside address (plain routing) is forwarded as it is; one
    from an inside host leaving by wan is dropped, under its own reason.
    Each is counted; none makes a session."""
    to_h = icmp_error(RT, H, 11, 0, quoted(q_udp(H, S, 1234, 53)))
    seq = [
        (from_lan(udp(H, S, 5353, 53)), to_wan(udp(OUT, S, 5353, 53))),
        (from_wan(icmp_error(RT, OUT, 11, 0, quoted(q_udp(OUT, S, 9999, 53)))), None),
        (from_wan(icmp_error(RT, OUT, 11, 0, quoted(q_udp(OUT, S2, 5353, 53)))), None),
        (from_wan(icmp_error(RT, OUT, 11, 0, quoted(q_echo(OUT, S, 0, 5353)))), None),
        (from_wan(to_h), err_to_lan(to_h)),
        (from_lan(icmp_error(H, S, 3, 3, quoted(q_udp(S, H, 53, 6666)))), None),
    ]
    nfvd, st = run(tmp_path, [f for f, _ in seq])
    assert drops(st) == {"ip4_local/unsupported_protocol": 3,
                         "nat44_out/icmp_error_no_session": 1}, drops(st)
    c = nat_counters(nfvd)
    assert (c["icmp_error_no_session"], c["icmp_error_in2out"], c["icmp_error_out2in"]) == (
        5, 0, 0), c
    assert sessions(nfvd)["sessions"] == 1 and sessions(nfvd)["created"] == 1
    out = nfvd.stop()
    assert out["t"] == [want for _, want in seq if want is not None]


def test_malformed_icmp_errors(tmp_path):
    """ICMP errors nfvd cannot translate: too short to quote an IPv4
    header and 8 bytes, a quoted header that is not IPv4, claims more
    header or fewer bytes than there are, or quotes what NAT never
    translates (GRE, a non-first fragment, an ICMP error). To the outside
    address they pass untranslated (nfvd's own: dropped by ip4_local); to
    an inside address they are forwarded as they are; from an inside host
    they are dropped under named reasons. Each is counted; nothing is read
    beyond the packet (the quotes end where the frame ends)."""
    good = quoted(q_udp(OUT, S, 5353, 53))
    bad_version = bytes([0x65]) + good[1:]
    long_ihl = bytes([0x4F]) + good[1:28]
    short_total = good[:2] + (24).to_bytes(2, "big") + good[4:]
    gre = quoted(IP(src=OUT, dst=S, ttl=1, proto=47) / Raw(b"\x00\x00\x08\x00" * 2))
    nonfirst = quoted(IP(src=OUT, dst=S, ttl=1, proto=17, frag=8) / Raw(b"\x14\xe9\x00\x35" * 4))
    about_err = quoted(icmp_error(S, OUT, 3, 3, quoted(q_udp(OUT, S, 5353, 53), 28), ttl=1))
    inbound = [
        (b"\x45\x00", "truncated"),
        (good[:27], "truncated"),
        (bad_version, "truncated"),
        (long_ihl, "truncated"),
        (short_total, "truncated"),
        (gre, "unsupported"),
        (nonfirst, "unsupported"),
        (about_err, "unsupported"),
    ]
    transit = icmp_error(RT, H, 11, 0, good[:20])
    outbound = [
        (quoted(q_udp(S, H, 53, 5353), 24), "truncated"),
        (quoted(IP(src=S, dst=H, ttl=1, proto=47) / Raw(b"\x00" * 8)), "unsupported"),
        (quoted(icmp_error(S, H, 11, 0, b"\x45" + b"\x00" * 27, ttl=1)), "unsupported"),
    ]
    frames = [from_lan(udp(H, S, 5353, 53))]
    frames += [from_wan(icmp_error(RT, OUT, 11, 0, q)) for q, _ in inbound]
    frames += [from_wan(transit)]
    frames += [from_lan(icmp_error(H, S, 3, 3, q)) for q, _ in outbound]
    nfvd, st = run(tmp_path, frames)
    assert drops(st) == {"ip4_local/unsupported_protocol": len(inbound),
                         "nat44_out/icmp_error_truncated": 1,
                         "nat44_out/icmp_error_unsupported": 2}, drops(st)
    c = nat_counters(nfvd)
    assert (c["icmp_error_truncated"], c["icmp_error_unsupported"], c["icmp_error_no_session"],
            c["icmp_error_in2out"], c["icmp_error_out2in"]) == (7, 5, 0, 0, 0), c
    assert sessions(nfvd)["sessions"] == 1
    out = nfvd.stop()
    assert out["t"] == [to_wan(udp(OUT, S, 5353, 53)), err_to_lan(transit)]


def test_nfvds_own_error_about_a_dnat_packet_shows_the_outside_endpoint(tmp_path):
    """A client's DF segment to the forwarded port, too big for the link to
    the server: nfvd's own fragmentation needed (from wan's address) quotes
    it as the client sent it (wan's address and port 8080), not as
    translated toward the inside server: nat44_out translates nfvd's
    errors too."""
    big = IP(src=S, dst=OUT, ttl=64, flags="DF") / TCP(sport=6000, dport=8080, flags="PA",
                                                      seq=1000, ack=2000) / (b"m" * 1360)
    big = IP(bytes(big))
    nfvd = Nfvd(tmp_path)
    nfvd.extra_args = ["--burst", "1"]
    nfvd.add_port("t", rx=[from_wan(big)], opts=" mtu 1280")
    nfvd.cmd(*CONFIG, *DNAT_CFG)
    nfvd.start()
    st = nfvd.wait_processed({"t": 1})
    assert drops(st) == {"ip4_rewrite/frag_needed": 1}, drops(st)
    c = nat_counters(nfvd)
    assert (c["out2in"], c["icmp_error_in2out"]) == (1, 1), c
    out = nfvd.stop()
    want = IP(src=OUT, dst=S, tos=0xC0, ttl=64, id=0, flags=0) / ICMP(
        type=3, code=4, nexthopmtu=1280) / Raw(bytes(big)[:548])
    assert out["t"] == [bytes(Ether(dst=R1, src=T) / Dot1Q(vlan=20) / want)]
    assert_error_checksums(out["t"][0])


def test_two_workers_hand_icmp_errors_to_the_session_owner(tmp_path):
    """An SNAT session on worker 1 (HA's inside port hashes there; outside
    port 33280, the first of its share): an ICMP error about it received
    by worker 0 (injected as arriving on b) is handed to worker 1, which
    translates it to the inside host; one from the inside host about the
    session's reply, also taken by worker 0 (injected as arriving on a), is
    handed over too and leaves translated. Byte for byte, exact handoff
    counters."""
    HA = "10.0.0.3"
    assert client_owner(HA, 2000) == 1
    nfvd, a, b = two_workers(tmp_path, [Ether(dst=pcap_mac(0), src=H0) / udp(HA, S, 2000, 53)],
                             [HA])
    wait_counter(nfvd, "nat44", "in2out", 1)
    inbound = icmp_error(RT, OUT, 3, 4, quoted(q_udp(OUT, S, 33280, 53)), mtu=1400)
    outbound = icmp_error(HA, S, 3, 3, quoted(q_udp(S, HA, 53, 2000, ttl=63)))
    nfvd.ctl("punt", "inject", "dev", "b", "hex",
             bytes(Ether(dst=b.mac, src=R1) / inbound).hex())
    st = wait_counter(nfvd, "nat44", "icmp_error_out2in", 1)
    nfvd.ctl("punt", "inject", "dev", "a", "hex",
             bytes(Ether(dst=a.mac, src=H0) / outbound).hex())
    st = wait_counter(nfvd, "nat44", "icmp_error_in2out", 1)
    assert drops(st) == {}, drops(st)
    n = st["nat44"]
    assert (n["handoff_out"], n["handoff_in"], n["handoff_full"], n["icmp_error_no_session"],
            n["created"]) == (2, 2, 0, 0, 1), n
    out = nfvd.stop()

    def routed(l3, dst_mac, src_mac):
        l3 = l3.copy()
        l3.ttl -= 1
        return bytes(Ether(dst=dst_mac, src=src_mac) / IP(bytes(l3)))

    assert out["a"] == [routed(icmp_error(RT, HA, 3, 4, quoted(q_udp(HA, S, 2000, 53)),
                                          mtu=1400), H0, a.mac)]
    assert out["b"] == [routed(udp(OUT, S, 33280, 53), R1, b.mac),
                        routed(icmp_error(OUT, S, 3, 3, quoted(q_udp(S, OUT, 53, 33280,
                                                                     ttl=63))), R1, b.mac)]
