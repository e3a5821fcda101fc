# SPDX-License-Identifier: BSD-3-Clause
"""
ARP (RFC 826) and IPv6 neighbor discovery (RFC 4861) on net_pcap ports:
replies and advertisements byte for byte, next hops resolved with the
packets held meanwhile and released with the right MACs, the hold bound,
failure answered with ICMP unreachable, gratuitous ARP and unsolicited NA,
static entries kept, the state machine on short timers, the punt policer
under a flood, the counters in every view. Every frame nfvd sends is
compared with one scapy builds independently.

    H0 10.0.0.1 2001:db8:a::1 -- p0 10.0.0.254/24 2001:db8:a::fe/64
                                 [nfvd]
    R1 10.1.0.1 2001:db8:b::1 -- p1 10.1.0.254/24 2001:db8:b::fe/64

Frames that must reach nfvd after something it sent (a reply to its
request) are injected with "punt inject dev NAME hex HEX", which hands
them to eth_input as if the port had received them.
"""
import json
import time
import urllib.request

from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.inet6 import (ICMPv6DestUnreach, ICMPv6EchoReply, ICMPv6EchoRequest,
                                ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr,
                                ICMPv6NDOptSrcLLAddr, IPv6)
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw
from scapy.utils6 import in6_getnsma, in6_getnsmac, in6_mactoifaceid, inet_pton

from nfvdlib import drops, pcap_mac
import socket

P0, P1 = pcap_mac(0), pcap_mac(1)
H0 = "02:00:00:00:00:01"
H0B = "02:00:00:00:00:0b"   # H0's new MAC
R1 = "02:00:00:00:01:01"
S2 = "02:00:00:00:00:02"    # a static neighbor's MAC
BCAST = "ff:ff:ff:ff:ff:ff"

BASE = [
    "addr add 10.0.0.254/24 dev p0",
    "addr add 2001:db8:a::fe/64 dev p0",
    "addr add 10.1.0.254/24 dev p1",
    "addr add 2001:db8:b::fe/64 dev p1",
    "route add 198.51.100.0/24 via 10.1.0.1",
    "route add 2001:db8:100::/48 via 2001:db8:b::1",
]


def ll(mac):
    """The EUI-64 link-local address of a MAC (RFC 4291 appendix A)."""
    a = "fe80::" + in6_mactoifaceid(mac).lower()
    return socket.inet_ntop(socket.AF_INET6, inet_pton(socket.AF_INET6, a))


def sn(addr):
    """Solicited-node multicast address and MAC of an IPv6 address."""
    a = socket.inet_ntop(socket.AF_INET6, in6_getnsma(inet_pton(socket.AF_INET6, addr)))
    return a, in6_getnsmac(inet_pton(socket.AF_INET6, a))


def arp_req(src_mac, psrc, pdst, dst=BCAST):
    return Ether(dst=dst, src=src_mac) / ARP(op=1, hwsrc=src_mac, psrc=psrc, pdst=pdst)


def arp_reply(src_mac, psrc, dst_mac, pdst):
    return Ether(dst=dst_mac, src=src_mac) / ARP(op=2, hwsrc=src_mac, psrc=psrc,
                                                 hwdst=dst_mac, pdst=pdst)


def ns(src_mac, src, target, dst=None, dst_mac=None, hlim=255):
    if dst is None:
        dst, dst_mac = sn(target)
    return (Ether(dst=dst_mac, src=src_mac) / IPv6(src=src, dst=dst, hlim=hlim) /
            ICMPv6ND_NS(tgt=target) / ICMPv6NDOptSrcLLAddr(lladdr=src_mac))


def na(src_mac, target, dst_mac, dst, s=1, o=1, r=0, lladdr=None):
    return (Ether(dst=dst_mac, src=src_mac) / IPv6(src=target, dst=dst, hlim=255) /
            ICMPv6ND_NA(tgt=target, R=r, S=s, O=o) /
            ICMPv6NDOptDstLLAddr(lladdr=lladdr or src_mac))


def udp4(dst, tag, src="10.0.0.1", ttl=64):
    return Ether(dst=P0, src=H0) / IP(src=src, dst=dst, ttl=ttl) / UDP(sport=1000, dport=2000) / \
        Raw(tag.encode())


def udp6(dst, tag, src="2001:db8:a::1", hlim=64):
    return Ether(dst=P0, src=H0) / IPv6(src=src, dst=dst, hlim=hlim) / \
        UDP(sport=1000, dport=2000) / Raw(tag.encode())


def routed(frame, dmac, smac):
    """What nfvd sends for a forwarded frame: TTL / hop limit one less."""
    l3 = frame.payload.copy()
    if IP in l3:
        l3[IP].ttl -= 1
        del l3[IP].chksum
    else:
        l3[IPv6].hlim -= 1
    return bytes(Ether(dst=dmac, src=smac) / l3)


def inject(d, port, frame):
    d.ctl("punt", "inject", "dev", port, "hex", bytes(frame).hex())


def neigh(d, **filt):
    """{address: entry} of "neigh show"."""
    out = {}
    for e in d.api("neigh show")["neighbors"]:
        if e.get("lladdr"):
            e["lladdr"] = e["lladdr"].lower()
        if all(e.get(k) == v for k, v in filt.items()):
            out[e["address"]] = e
    return out


def wait_for(pred, timeout=10.0, what="condition"):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for %s" % what)
        time.sleep(0.01)


def wait_state(d, addr, state, timeout=10.0):
    return wait_for(lambda: neigh(d).get(addr, {}).get("state") == state and neigh(d)[addr],
                    timeout, "%s %s (now %s)" % (addr, state, neigh(d).get(addr)))


def wait_idle(d, timeout=10.0):
    """Every mbuf back in its pool (nothing held, punted or injected)."""
    wait_for(lambda: d.stats()["tables"]["mbufs_in_use"] == 0, timeout, "mbufs back")
    time.sleep(0.05)
    return d.stats()


def kinds(frames):
    """Splits transmitted frames into ARP, ND and the rest."""
    arp, nd, other = [], [], []
    for f in frames:
        p = Ether(f)
        if ARP in p:
            arp.append(f)
        elif ICMPv6ND_NS in p or ICMPv6ND_NA in p:
            nd.append(f)
        else:
            other.append(f)
    return arp, nd, other


def start(nfvd, rx0=(), rx1=(), extra=()):
    d = nfvd()
    d.add_port("p0", rx=list(rx0))
    d.add_port("p1", rx=list(rx1))
    d.cmd(*BASE, *extra)
    d.start()
    return d


# ---- answers ----------------------------------------------------------------


def test_linux_defaults(nfvd):
    d = start(nfvd)
    p = d.ctl("neigh params")
    assert p == {"resolve": True, "reachable_ms": 30000, "retrans_ms": 1000, "delay_ms": 5000,
                 "gc_ms": 60000, "probes": 3, "solicits": 3, "hold": 16, "max": 4096}
    d.stop()


def test_arp_reply_bytes(nfvd):
    frames = [
        arp_req(H0, "10.0.0.1", "10.0.0.254") / Raw(b"\x00" * 18),  # padded to 60 bytes
        arp_req(H0, "10.0.0.1", "10.0.0.77"),      # nobody's: no reply (arping)
        arp_req(H0, "10.0.0.1", "10.1.0.254"),     # p1's address asked on p0: no proxy ARP
        arp_req(H0, "10.0.0.1", "10.0.0.254", dst=P0),  # unicast request (a probe)
    ]
    d = start(nfvd, rx0=frames)
    st = d.wait_processed({"p0": len(frames)})
    n = neigh(d)
    assert n["10.0.0.1"]["lladdr"] == H0 and n["10.0.0.1"]["state"] == "stale"
    assert n["10.0.0.1"]["dev"] == "p0" and n["10.0.0.1"]["vrf"] == "default"
    assert drops(st)["arp_input/not_ours"] == 2
    q = {x["name"]: x for x in st["punt"]["queues"]}
    assert q["arp"]["punted"] == 4 and q["arp"]["policed"] == 0
    assert st["neigh"]["events"]["arp_replies_sent"] == 2
    out = d.stop()
    want = bytes(Ether(dst=H0, src=P0) / ARP(op=2, hwsrc=P0, psrc="10.0.0.254", hwdst=H0,
                                             pdst="10.0.0.1"))
    assert out["p0"] == [want, want]
    assert out["p1"] == []


def test_nd_advertisement_bytes(nfvd):
    p0ll = ll(P0)
    frames = [
        ns(H0, "2001:db8:a::1", "2001:db8:a::fe"),                        # multicast NS
        ns(H0, "2001:db8:a::1", "2001:db8:a::fe", dst="2001:db8:a::fe", dst_mac=P0),  # NUD
        ns(H0, ll(H0), p0ll),                                             # for our link-local
        ns(H0, "2001:db8:a::1", "2001:db8:a::77"),                        # not ours
        ns(H0, "2001:db8:a::1", "2001:db8:a::fe", hlim=64),               # RFC 4861 7.1.1
        Ether(dst=P0, src=H0) / IPv6(src=ll(H0), dst=p0ll) / ICMPv6EchoRequest(id=7, seq=1) /
        Raw(b"ping-ll"),
    ]
    bad = ns(H0, "2001:db8:a::1", "2001:db8:a::fe")
    bad[ICMPv6ND_NS].cksum = 0x1234
    frames.append(bad)
    d = start(nfvd, rx0=frames)
    st = d.wait_processed({"p0": len(frames)})
    dr = drops(st)
    assert dr["nd_input/not_ours"] == 1
    assert dr["nd_input/bad_nd"] == 2
    n = neigh(d)
    assert n["2001:db8:a::1"]["lladdr"] == H0 and n["2001:db8:a::1"]["state"] == "stale"
    assert n[ll(H0)]["lladdr"] == H0
    out = d.stop()
    want_na = bytes(na(P0, "2001:db8:a::fe", H0, "2001:db8:a::1", r=1, s=1, o=1))
    want_ll = bytes(na(P0, p0ll, H0, ll(H0), r=1, s=1, o=1))
    want_echo = bytes(Ether(dst=H0, src=P0) / IPv6(src=p0ll, dst=ll(H0), hlim=64) /
                      ICMPv6EchoReply(id=7, seq=1) / Raw(b"ping-ll"))
    # The unicast solicitation takes ip6_local's way: the order may differ.
    assert sorted(out["p0"]) == sorted([want_na, want_na, want_ll, want_echo])


# ---- resolution ------------------------------------------------------------------


def test_resolve_hold_release_v4(nfvd):
    """Three packets via an unresolved gateway are held, one ARP request goes
    out, the reply releases them with R1's MAC. Five to a connected host
    overflow its hold queue of three: the two oldest are dropped, named."""
    via = [udp4("198.51.100.%d" % i, "via-%d" % i) for i in range(3)]
    conn = [udp4("10.1.0.2", "conn-%d" % i) for i in range(5)]
    # Retransmissions 10 s apart: however slow the test is to answer, one
    # request per neighbor goes out.
    d = start(nfvd, rx0=via + conn, extra=["neigh set hold 3 retrans 10000"])
    wait_for(lambda: neigh(d).get("10.1.0.1", {}).get("held") == 3 and
             neigh(d).get("10.1.0.2", {}).get("held") == 3, what="held packets")
    assert neigh(d)["10.1.0.1"]["state"] == "incomplete"
    R2 = "02:00:00:00:01:02"
    inject(d, "p1", arp_reply(R1, "10.1.0.1", P1, "10.1.0.254"))
    inject(d, "p1", arp_reply(R2, "10.1.0.2", P1, "10.1.0.254"))
    st = wait_idle(d)
    n = neigh(d)
    assert n["10.1.0.1"]["state"] == "reachable" and n["10.1.0.1"]["lladdr"] == R1
    assert n["10.1.0.2"]["state"] == "reachable" and n["10.1.0.2"]["lladdr"] == R2
    dr = drops(st)
    assert dr["neigh_hold/hold_overflow"] == 2
    ev = st["neigh"]["events"]
    assert ev["held"] == 8 and ev["released"] == 6 and ev["hold_overflow"] == 2
    assert ev["arp_requests_sent"] == 2 and ev["confirmed"] == 2
    # A host route to the learned neighbor exists, with source "neighbor".
    routes = {r["prefix"]: r for r in d.ctl("route show")["routes"]}
    assert "10.1.0.2/32" in routes
    out = d.stop()
    arp, _nd, other = kinds(out["p1"])
    req = lambda t: bytes(Ether(dst=BCAST, src=P1) / ARP(op=1, hwsrc=P1, psrc="10.1.0.254",
                                                          hwdst="00:00:00:00:00:00", pdst=t))
    assert arp == [req("10.1.0.1"), req("10.1.0.2")]
    assert sorted(other) == sorted([routed(f, R1, P1) for f in via] +
                                   [routed(f, R2, P1) for f in conn[2:]])


def test_resolve_hold_release_v6(nfvd):
    pkts = [udp6("2001:db8:100::%d" % i, "v6-%d" % i) for i in range(1, 4)]
    d = start(nfvd, rx0=pkts, extra=["neigh set retrans 10000"])  # one solicitation
    wait_for(lambda: neigh(d).get("2001:db8:b::1", {}).get("held") == 3, what="held")
    inject(d, "p1", na(R1, "2001:db8:b::1", P1, ll(P1), s=1, o=1))
    wait_idle(d)
    assert neigh(d)["2001:db8:b::1"]["state"] == "reachable"
    out = d.stop()
    _arp, nd, other = kinds(out["p1"])
    dst, dmac = sn("2001:db8:b::1")
    # From p1's address on the target's prefix (RFC 4861 7.2.2: any of the
    # interface's; a host without a link-local address can answer it).
    want_ns = bytes(Ether(dst=dmac, src=P1) / IPv6(src="2001:db8:b::fe", dst=dst, hlim=255) /
                    ICMPv6ND_NS(tgt="2001:db8:b::1") / ICMPv6NDOptSrcLLAddr(lladdr=P1))
    assert nd == [want_ns]
    assert other == [routed(f, R1, P1) for f in pkts]


def test_fused_path_falls_back_and_echo_resolves(nfvd):
    """A whole burst of plain IPv4 (ip4_fast's case) to an unresolved next hop
    takes the chain and is held; nfvd's own echo reply to a host it has no
    entry for resolves the host too (ping from an unknown host)."""
    pkts = [udp4("198.51.100.9", "fast-%d" % i) for i in range(3)]
    ping = Ether(dst=P0, src=H0) / IP(src="10.0.0.1", dst="10.0.0.254") / ICMP(id=1, seq=1)
    d = start(nfvd, rx0=pkts + [ping], extra=["neigh set retrans 10000"])
    wait_for(lambda: neigh(d).get("10.1.0.1", {}).get("held") == 3, what="held")
    wait_for(lambda: neigh(d).get("10.0.0.1", {}).get("held") == 1, what="echo reply held")
    inject(d, "p1", arp_reply(R1, "10.1.0.1", P1, "10.1.0.254"))
    inject(d, "p0", arp_reply(H0, "10.0.0.1", P0, "10.0.0.254"))
    wait_idle(d)
    out = d.stop()
    _a, _n, other1 = kinds(out["p1"])
    assert other1 == [routed(f, R1, P1) for f in pkts]
    _a, _n, other0 = kinds(out["p0"])
    assert len(other0) == 1 and Ether(other0[0])[ICMP].type == 0
    assert Ether(other0[0]).dst == H0


def test_failure_icmp_unreachable(nfvd):
    """No answer to three solicitations (100 ms apart here): the held packets
    become ICMP host unreachable (RFC 1812 4.3.3.1) / ICMPv6 address
    unreachable (RFC 4443 3.1, code 3), and the entry is failed."""
    p4 = udp4("10.1.0.9", "lost4")
    p6 = udp6("2001:db8:b::9", "lost6")
    d = start(nfvd, rx0=[p4, p6], extra=["neigh set retrans 100",
                                         "neigh add 10.0.0.1 lladdr %s dev p0" % H0,
                                         "neigh add 2001:db8:a::1 lladdr %s dev p0" % H0])
    wait_state(d, "10.1.0.9", "failed", 5)
    wait_state(d, "2001:db8:b::9", "failed", 5)
    st = wait_idle(d)
    assert drops(st)["neigh_hold/resolution_failed"] == 2
    assert st["icmp"]["errors_sent"] == 1 and st["icmp6"]["errors_sent"] == 1
    assert st["neigh"]["events"]["failed"] == 2
    out = d.stop()
    arp, nd, _ = kinds(out["p1"])
    assert len(arp) == 3 and len(nd) == 3
    err4 = Ether(out["p0"][0])
    assert err4[ICMP].type == 3 and err4[ICMP].code == 1 and err4[IP].src == "10.0.0.254"
    assert bytes(err4[ICMP].payload)[:28] == bytes(p4[IP])[:28]
    err6 = Ether(out["p0"][1])
    assert ICMPv6DestUnreach in err6 and err6[ICMPv6DestUnreach].code == 3
    assert err6.dst == H0 and err6[IPv6].src == "2001:db8:a::fe"


def test_gratuitous_arp_unsolicited_na_and_static(nfvd):
    frames = [
        arp_req(H0, "10.0.0.1", "10.0.0.254"),            # learned: stale, H0
        ns(H0, "2001:db8:a::1", "2001:db8:a::fe"),        # learned: stale, H0
        arp_req(H0, "10.0.0.2", "10.0.0.254"),            # a static neighbor asks
    ]
    d = start(nfvd, rx0=frames, extra=["neigh add 10.0.0.2 lladdr %s dev p0" % S2])
    d.wait_processed({"p0": len(frames)})
    # Gratuitous ARP (request, sender = target) with a new MAC; an unsolicited
    # NA with override; and a gratuitous ARP claiming the static neighbor.
    inject(d, "p0", Ether(dst=BCAST, src=H0B) / ARP(op=1, hwsrc=H0B, psrc="10.0.0.1",
                                                   pdst="10.0.0.1"))
    inject(d, "p0", na(H0B, "2001:db8:a::1", "33:33:00:00:00:01", "ff02::1", s=0, o=1))
    inject(d, "p0", Ether(dst=BCAST, src=H0B) / ARP(op=2, hwsrc=H0B, psrc="10.0.0.2",
                                                   hwdst=BCAST, pdst="10.0.0.2"))
    wait_for(lambda: neigh(d)["10.0.0.1"]["lladdr"] == H0B and
             neigh(d)["2001:db8:a::1"]["lladdr"] == H0B, what="new MACs learned")
    wait_idle(d)
    inject(d, "p0", udp4("10.0.0.1", "to-h0", src="10.1.0.1"))
    inject(d, "p0", udp4("10.0.0.2", "to-static", src="10.1.0.1"))
    inject(d, "p0", udp6("2001:db8:a::1", "to-h0-6", src="2001:db8:b::1"))
    st = wait_idle(d)
    n = neigh(d)
    # Stale, then used: delay.
    assert n["10.0.0.1"]["lladdr"] == H0B and n["10.0.0.1"]["state"] in ("stale", "delay")
    assert n["2001:db8:a::1"]["lladdr"] == H0B
    assert n["10.0.0.2"]["lladdr"] == S2 and n["10.0.0.2"]["state"] == "static"
    assert [e["state"] for e in neigh(d).values()].count("static") == 1
    assert st["neigh"]["events"]["mac_changed"] == 2
    assert st["neigh"]["events"]["static_kept"] >= 2
    out = d.stop()
    _a, _n, other = kinds(out["p0"])
    # By destination (a learned entry first used goes through the control
    # side once, the static one does not: the order may differ).
    dmacs = sorted((Ether(f)[IP].dst if IP in Ether(f) else Ether(f)[IPv6].dst, Ether(f).dst)
                   for f in other)
    assert dmacs == [("10.0.0.1", H0B), ("10.0.0.2", S2), ("2001:db8:a::1", H0B)]


def test_off_link_senders_are_answered_not_learned(nfvd):
    """A sender that is not on the receiving port's subnets (here one of
    p1's, and one behind a route via p1) is answered but not learned: a
    learned neighbor brings its host route, which would take that
    address's traffic away from p1. A duplicate address detection probe
    (NS from ::) for our address is answered to all nodes."""
    att = "02:00:00:00:0a:0a"
    d = start(nfvd)
    for psrc in ("10.1.0.2", "198.51.100.7"):
        inject(d, "p0", arp_req(att, psrc, "10.0.0.254"))
    inject(d, "p0", arp_reply(att, "10.1.0.2", P0, "10.0.0.254"))
    inject(d, "p0", ns(att, "2001:db8:b::2", "2001:db8:a::fe"))
    inject(d, "p0", na(att, "2001:db8:b::2", P0, "2001:db8:a::fe", s=1, o=1))
    dad_dst, dad_mac = sn("2001:db8:a::fe")
    inject(d, "p0", Ether(dst=dad_mac, src=att) / IPv6(src="::", dst=dad_dst, hlim=255) /
           ICMPv6ND_NS(tgt="2001:db8:a::fe"))
    st = wait_idle(d)
    assert neigh(d) == {}
    routes = {r["prefix"] for r in d.ctl("route show")["routes"]}
    assert not routes & {"10.1.0.2/32", "198.51.100.7/32", "2001:db8:b::2/128"}, routes
    ev = st["neigh"]["events"]
    assert ev["off_link"] == 3 and ev["created"] == 0, ev
    assert ev["arp_replies_sent"] == 2 and ev["na_sent"] == 2, ev
    assert drops(st) == {"arp_input/reply_received": 1,
                         "nd_input/advertisement_received": 1}, drops(st)
    out = d.stop()
    rep = lambda pdst: bytes(Ether(dst=att, src=P0) / ARP(
        op=2, hwsrc=P0, psrc="10.0.0.254", hwdst=att, pdst=pdst))
    assert out["p0"] == [rep("10.1.0.2"), rep("198.51.100.7"),
                         bytes(na(P0, "2001:db8:a::fe", att, "2001:db8:b::2", r=1, s=1, o=1)),
                         bytes(na(P0, "2001:db8:a::fe", "33:33:00:00:00:01", "ff02::1",
                                  r=1, s=0, o=1))]
    assert out["p1"] == []


def test_gateway_off_the_ports_subnets_resolves(nfvd):
    """A gateway named with its port but outside that port's subnets ("via
    GW dev NAME") is resolved: the answer to nfvd's own request confirms
    the entry it made (only new entries from requests need the sender on
    the link)."""
    d = start(nfvd, extra=["neigh set retrans 10000",
                           "route add 192.0.2.0/24 via 10.9.9.1 dev p1"])
    inject(d, "p0", udp4("192.0.2.5", "off"))
    wait_for(lambda: neigh(d).get("10.9.9.1", {}).get("held") == 1, what="held packet")
    inject(d, "p1", arp_reply(R1, "10.9.9.1", P1, "10.1.0.254"))
    st = wait_idle(d)
    assert neigh(d)["10.9.9.1"]["state"] == "reachable", neigh(d)
    assert drops(st) == {"arp_input/reply_received": 1}, drops(st)
    out = d.stop()
    _arp, _nd, other = kinds(out["p1"])
    assert other == [routed(udp4("192.0.2.5", "off"), R1, P1)]


def test_held_packets_of_removed_neighbors_are_counted(nfvd):
    """Packets held for a neighbor whose entry goes (neigh flush, its
    interface moved to another VRF) are counted as neighbor_removed, and a
    gratuitous ARP request for another address as an announcement."""
    d = start(nfvd, rx0=[udp4("10.1.0.9", "a%d" % i) for i in range(3)] +
              [udp4("198.51.100.5", "b%d" % i) for i in range(2)] +
              [udp6("2001:db8:a::9", "c%d" % i, src="2001:db8:b::1") for i in range(2)],
              extra=["neigh set retrans 10000", "vrf add blue"])
    wait_for(lambda: neigh(d).get("10.1.0.9", {}).get("held") == 3 and
             neigh(d).get("10.1.0.1", {}).get("held") == 2 and
             neigh(d).get("2001:db8:a::9", {}).get("held") == 2, what="held packets")
    d.ctl("neigh", "flush", "dev", "p0")
    d.ctl("port", "set", "p1", "vrf", "blue")
    inject(d, "p0", Ether(dst=BCAST, src=H0) / ARP(op=1, hwsrc=H0, psrc="10.0.0.1",
                                                  pdst="10.0.0.1"))
    st = wait_idle(d)
    assert drops(st) == {"neigh_hold/neighbor_removed": 7,
                         "arp_input/reply_received": 1}, drops(st)
    assert neigh(d) == {}
    assert d.api("neigh show vrf blue")["neighbors"] == []
    d.stop()


def test_states_and_timers(nfvd):
    """reachable -> stale after the reachable time (0.5-1.5 x 300 ms here);
    used while stale -> delay -> probe (3 unicast requests) -> failed; a
    stale entry nobody uses is collected after gc.

    Every state the test waits for lasts long enough to be seen on a loaded
    machine: while the test answers a solicitation, retransmissions are 3 s
    apart (incomplete lasts 9 s); the short-lived reachable state is known
    from nfvd's own counter (resolved); delay lasts 1 s and probe 3 s."""
    ev = lambda: d.stats()["neigh"]["events"]
    d = start(nfvd, extra=["neigh set reachable 300 delay 1000 retrans 3000 gc 100000"])
    inject(d, "p0", udp4("198.51.100.1", "first"))
    wait_state(d, "10.1.0.1", "incomplete")
    inject(d, "p1", arp_reply(R1, "10.1.0.1", P1, "10.1.0.254"))
    wait_for(lambda: ev()["resolved"] == 1, what="resolved")
    wait_state(d, "10.1.0.1", "stale", 5)
    d.ctl("neigh set retrans 1000")
    inject(d, "p0", udp4("198.51.100.1", "second"))
    wait_state(d, "10.1.0.1", "delay", 3)
    wait_state(d, "10.1.0.1", "probe", 3)
    wait_state(d, "10.1.0.1", "failed", 5)
    # A new packet solicits again (broadcast) and is held.
    d.ctl("neigh set retrans 3000")
    inject(d, "p0", udp4("198.51.100.1", "third"))
    wait_state(d, "10.1.0.1", "incomplete")
    inject(d, "p1", arp_reply(R1, "10.1.0.1", P1, "10.1.0.254"))
    wait_for(lambda: ev()["resolved"] == 2, what="resolved again")
    d.ctl("neigh set gc 200")
    wait_for(lambda: "10.1.0.1" not in neigh(d), 3, "gc of the stale entry")
    st = wait_idle(d)
    assert st["neigh"]["events"]["gc"] == 1 and st["neigh"]["events"]["used_stale"] == 1
    assert st["neigh"]["events"]["failed"] == 1
    out = d.stop()
    arp, _n, other = kinds(out["p1"])
    ops = [(Ether(f).dst, Ether(f)[ARP].op) for f in arp]
    assert ops == [(BCAST, 1), (R1, 1), (R1, 1), (R1, 1), (BCAST, 1)]
    assert [bytes(Ether(f)[Raw]) for f in other] == [b"first", b"second", b"third"]


def test_static_entries_never_age(nfvd):
    d = start(nfvd, extra=["neigh set reachable 100 delay 100 retrans 50 gc 200",
                           "neigh add 10.1.0.1 lladdr %s dev p1" % R1])
    time.sleep(0.6)
    n = neigh(d)
    assert n["10.1.0.1"]["state"] == "static" and n["10.1.0.1"]["lladdr"] == R1
    # A reply with another MAC is not learned over it.
    inject(d, "p1", arp_reply("02:00:00:00:01:99", "10.1.0.1", P1, "10.1.0.254"))
    wait_idle(d)
    assert neigh(d)["10.1.0.1"]["lladdr"] == R1
    # A learned entry beside it: the text view (columns from the first row,
    # the static one) still shows the learned entry's age (README: "state,
    # age"); the static entry has none.
    inject(d, "p1", arp_req(H0, "10.1.0.7", "10.1.0.254"))
    wait_for(lambda: "10.1.0.7" in neigh(d), what="the learned entry")
    assert not {"age", "probes", "held"} & set(n["10.1.0.1"])
    text = d.ctl_result("neigh", "show", "dev", "p1", json_out=False).stdout.splitlines()
    assert text[1].split() == ["address", "lladdr", "dev", "state", "vrf", "age", "probes",
                               "held"], text[1]
    rows = {line.split()[0]: line.split() for line in text[2:]}
    assert rows["10.1.0.1"][3:] == ["static", "default", "-", "-", "-"], rows
    assert rows["10.1.0.7"][3] in ("stale", "reachable") and \
        float(rows["10.1.0.7"][5]) >= 0 and rows["10.1.0.7"][6:] == ["0", "0"], rows
    d.stop()


# ---- flood -----------------------------------------------------------------------


def test_arp_flood_policed(nfvd):
    """Thousands of ARP requests a second for our address: the "arp" punt
    queue's policer (100/s here, bursts of 10) lets a few through, drops the
    rest as punt/policed, and routed traffic in the same bursts is forwarded
    in full."""
    flood = [arp_req("02:00:00:10:%02x:%02x" % (i >> 8, i & 255), "10.0.0.%d" % (1 + i % 200),
                     "10.0.0.254") for i in range(3000)]
    data = [udp4("198.51.100.%d" % (i % 250), "d%d" % i) for i in range(300)]
    mix = []
    for i in range(3000):
        mix.append(flood[i])
        if i % 10 == 0:
            mix.append(data[i // 10])
    d = start(nfvd, rx0=mix, extra=["punt set arp rate 100 burst 10",
                                    "neigh add 10.1.0.1 lladdr %s dev p1" % R1])
    st = d.wait_processed({"p0": len(mix)})
    q = {x["name"]: x for x in st["punt"]["queues"]}
    dr = drops(st)
    assert dr["punt/policed"] == q["arp"]["policed"] > 2000
    assert q["arp"]["punted"] + q["arp"]["policed"] + q["arp"]["queue_full"] == 3000
    assert st["neigh"]["events"]["arp_replies_sent"] == q["arp"]["punted"]
    out = d.stop()
    assert len(out["p1"]) == 300
    assert out["p1"] == [routed(f, R1, P1) for f in data]


def test_table_full_is_a_named_drop(nfvd):
    pkts = [udp4("10.1.0.%d" % i, "t%d" % i) for i in range(10, 20)]
    d = start(nfvd, rx0=pkts, extra=["neigh set max 4 retrans 100"])
    st = wait_idle(d)
    assert drops(st)["neigh_hold/table_full"] == 6
    assert st["neigh"]["entries"] == 4
    d.stop()


def test_counters_in_every_view(nfvd):
    port = 19000 + (time.monotonic_ns() // 1000) % 2000
    d = nfvd()
    d.add_port("p0", rx=[arp_req(H0, "10.0.0.1", "10.0.0.254")])
    d.add_port("p1")
    d.cmd(*BASE)
    d.extra_args = ["--metrics", "127.0.0.1:%d" % port]
    d.start()
    st = d.wait_processed({"p0": 1})
    assert st["neigh"]["events"]["arp_requests_received"] == 1
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
        text = r.read().decode()
    assert 'nfvd_punt_packets_total{queue="arp",outcome="punted"} 1' in text
    assert 'nfvd_neigh_events_total{event="arp_replies_sent"} 1' in text
    assert 'nfvd_neigh_entries{state="stale"} 1' in text
    d.stop()
