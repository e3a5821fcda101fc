# SPDX-License-Identifier: BSD-3-Clause
"""
Malformed and edge-case frames: nothing of this may be forwarded, and each
frame must be counted under exactly the right drop reason.

Each case runs alone so that its verdict is checked on its own: in one nfvd
(topology of topo.py), a port "probe" without address is added at run time
with a pcap holding the case's single frame, the counters are compared before
and after, and the port is removed again. Frames sent to ME are rewritten to
the MAC address of the probe port (each probed pcap device gets a new one).
A few valid frames among them must come out of p1 byte for byte.
"""
from collections import Counter

import pytest
from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.inet6 import (ICMPv6DestUnreach, ICMPv6EchoRequest, ICMPv6ND_Redirect, IPv6,
                                 IPv6ExtHdrDestOpt, IPv6ExtHdrHopByHop)
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether
from scapy.packet import Padding, Raw

import nfvdlib
from cases import ICMP_COUNTERS, Case, command_of, drop, fwd4, fwd6
from topo import H0, OTHER, P1, R1, build_topology

ME = "02:70:63:61:70:ee"   # placeholder: the probe port's MAC
E = Ether(dst=ME, src=H0)
BCAST = "ff:ff:ff:ff:ff:ff"
NO_SRC4 = {"icmp__no_source_address": 1}   # the probe has no address: no ICMP error
NO_SRC6 = {"icmp6__no_source_address": 1}


def ip(dst="198.51.100.7", **kw):
    kw.setdefault("src", "10.0.0.1")
    return IP(dst=dst, **kw)


def ip6(dst="2001:db8:100::7", **kw):
    kw.setdefault("src", "2001:db8:a::1")
    return IPv6(dst=dst, **kw)


def flip_bit(pkt, byte, bit=0):
    """pkt as Raw bytes with one bit flipped."""
    b = bytearray(bytes(pkt))
    b[byte] ^= 1 << bit
    return Raw(bytes(b))


CASES = [
    # ---- Ethernet ----------------------------------------------------------------------
    Case("1-byte frame", "probe", Raw(b"\x02"), drop("eth_input/too_short")),
    Case("10-byte frame", "probe", Raw(bytes(E)[:10]), drop("eth_input/too_short")),
    Case("13-byte frame", "probe", Raw(bytes(E)[:13]), drop("eth_input/too_short")),
    Case("unicast frame for another MAC", "probe",
         Ether(dst=OTHER, src=H0) / ip() / UDP() / Raw(b"m1"), drop("eth_input/other_host")),
    # The probe port has no address: nothing to answer (arp_nd, no proxy ARP),
    # and a reply nobody asked for teaches nothing.
    Case("ARP request (broadcast)", "probe",
         Ether(dst=BCAST, src=H0) / ARP(op=1, psrc="10.0.0.1", pdst="10.0.0.254"),
         drop("arp_input/not_ours")),
    Case("ARP reply to us", "probe",
         Ether(dst=ME, src=H0) / ARP(op=2, psrc="10.0.0.1", pdst="10.0.0.254"),
         drop("arp_input/reply_received")),
    Case("ARP for IPv6 protocol type", "probe",
         Ether(dst=BCAST, src=H0) / ARP(op=1, ptype=0x86dd, plen=4, psrc="10.0.0.1",
                                        pdst="10.0.0.254"),
         drop("arp_input/bad_arp")),
    Case("802.1Q tagged IPv4, no VLAN interface", "probe",
         Ether(dst=ME, src=H0) / Dot1Q(vlan=10) / ip() / UDP() / Raw(b"m2"),
         drop("vlan_input/unknown_vlan")),
    Case("802.1Q tag cut short", "probe",
         Ether(dst=ME, src=H0, type=0x8100) / Raw(b"\x00"),
         drop("vlan_input/too_short")),
    Case("802.1ad tagged", "probe",
         Ether(dst=ME, src=H0) / Dot1AD(vlan=20) / Dot1Q(vlan=10) / ip() / UDP(),
         drop("eth_input/vlan")),
    Case("LLDP", "probe",
         Ether(dst="01:80:c2:00:00:0e", src=H0, type=0x88CC) / Raw(b"\x02\x07\x04" + b"\0" * 40),
         drop("eth_input/unknown_ethertype")),
    Case("802.3 length field, LLC", "probe",
         Ether(dst=ME, src=H0, type=46) / Raw(b"\x42\x42\x03" + b"\0" * 43),
         drop("eth_input/unknown_ethertype")),
    Case("MPLS", "probe",
         Ether(dst=ME, src=H0, type=0x8847) / Raw(b"\x00\x01\x01\x40") / ip() / UDP(),
         drop("eth_input/unknown_ethertype")),
    # ---- IPv4 header --------------------------------------------------------------------
    Case("IPv4 ethertype, no IP header at all", "probe",
         Ether(dst=ME, src=H0, type=0x0800), drop("ip4_input/too_short")),
    Case("IPv4 header cut at 19 bytes", "probe",
         Ether(dst=ME, src=H0, type=0x0800) / Raw(bytes(ip())[:19]),
         drop("ip4_input/too_short")),
    Case("IHL 6 but only 20 bytes of packet", "probe",
         Ether(dst=ME, src=H0, type=0x0800) / Raw(b"\x46" + bytes(ip(len=20))[1:20]),
         drop("ip4_input/bad_ihl")),
    Case("IPv6 packet in an IPv4 ethertype: version 6", "probe",
         Ether(dst=ME, src=H0, type=0x0800) / ip6() / UDP() / Raw(b"m3"),
         drop("ip4_input/bad_version")),
    Case("version 0", "probe",
         Ether(dst=ME, src=H0, type=0x0800) / Raw(b"\x05" + bytes(ip() / UDP())[1:]),
         drop("ip4_input/bad_version")),
    Case("IHL 4", "probe", E / ip(ihl=4) / UDP() / Raw(b"m4"), drop("ip4_input/bad_ihl")),
    Case("IHL 0", "probe", E / ip(ihl=0) / UDP() / Raw(b"m5"), drop("ip4_input/bad_ihl")),
    Case("IHL 15 beyond a 40-byte packet", "probe",
         Ether(dst=ME, src=H0, type=0x0800)
         / Raw(b"\x4f" + bytes(ip() / UDP() / Raw(b"m6" * 6))[1:]),
         drop("ip4_input/bad_ihl")),
    Case("bad header checksum", "probe", E / ip(chksum=0x1234) / UDP() / Raw(b"m7"),
         drop("ip4_input/bad_checksum")),
    Case("bad header checksum (checksum field zero)", "probe",
         E / ip(chksum=0) / UDP() / Raw(b"m8"), drop("ip4_input/bad_checksum")),
    Case("header checksum off by one bit, with options", "probe",
         Ether(dst=ME, src=H0, type=0x0800)
         / flip_bit(ip(options=b"\x01\x01\x01\x00") / UDP() / Raw(b"m9"), byte=10),
         drop("ip4_input/bad_checksum")),
    Case("total length 19, below the header", "probe",
         E / ip(len=19) / UDP() / Raw(b"m9."), drop("ip4_input/bad_total_length")),
    Case("total length 0", "probe",
         E / ip(len=0) / UDP() / Raw(b"m10"), drop("ip4_input/bad_total_length")),
    Case("total length 100, frame holds 34 bytes of IP", "probe",
         E / ip(len=100) / UDP() / Raw(b"m11m11"), drop("ip4_input/bad_total_length")),
    Case("total length one byte beyond the frame", "probe",
         E / ip(len=20 + 8 + 5) / UDP(len=12) / Raw(b"m12!"), drop("ip4_input/bad_total_length")),
    Case("TTL 0 (valid otherwise)", "probe", E / ip(ttl=0) / UDP() / Raw(b"m13"),
         drop("ip4_rewrite/ttl_expired", **NO_SRC4)),
    # ---- IPv4 addresses (RFC 1812 5.3.7) ------------------------------------------------
] + [
    Case("martian source %s" % s, "probe", E / ip(src=s) / UDP() / Raw(b"m14"),
         drop("ip4_input/martian_source"))
    for s in ("0.0.0.0", "0.1.2.3", "127.0.0.1", "127.255.255.255", "224.0.0.1",
              "239.255.255.250", "240.0.0.1", "255.255.255.255")
] + [
    Case("martian destination %s" % d, "probe", E / ip(dst=d) / UDP() / Raw(b"m15"),
         drop("ip4_input/martian_destination"))
    for d in ("0.0.0.0", "0.0.0.5", "127.0.0.1", "127.255.255.254", "240.0.0.1",
              "254.255.255.255")
] + [
    Case("multicast destination 224.0.0.5", "probe",
         Ether(dst="01:00:5e:00:00:05", src=H0) / ip("224.0.0.5") / Raw(b"m16"),
         drop("ip4_input/multicast_destination")),
    Case("multicast destination 239.1.1.1 to our MAC", "probe",
         E / ip("239.1.1.1") / UDP() / Raw(b"m17"), drop("ip4_input/multicast_destination")),
    Case("limited broadcast 255.255.255.255", "probe",
         Ether(dst=BCAST, src=H0) / ip("255.255.255.255") / UDP(dport=67) / Raw(b"m18"),
         drop("ip4_input/broadcast_destination")),
    Case("martian source and broadcast destination: the source is checked first", "probe",
         Ether(dst=BCAST, src=H0) / ip("255.255.255.255", src="0.0.0.0") / UDP(dport=67),
         drop("ip4_input/martian_source")),
    Case("link-layer broadcast to a routed destination", "probe",
         Ether(dst=BCAST, src=H0) / ip() / UDP() / Raw(b"m19"), drop("ip4_lookup/l2_broadcast")),
    # RFC 1812 5.3.4 comes first: a link-layer broadcast not for a local
    # address is not forwarded, whatever its route.
    Case("link-layer broadcast to a blackholed destination", "probe",
         Ether(dst=BCAST, src=H0) / ip("203.0.113.1") / UDP() / Raw(b"m20"),
         drop("ip4_lookup/l2_broadcast")),
    # ---- IPv6 header --------------------------------------------------------------------
    Case("IPv6 ethertype, no IPv6 header at all", "probe",
         Ether(dst=ME, src=H0, type=0x86DD), drop("ip6_input/too_short")),
    Case("IPv6 ethertype, header cut at 39 bytes", "probe",
         Ether(dst=ME, src=H0, type=0x86DD) / Raw(bytes(ip6())[:39]),
         drop("ip6_input/too_short")),
    Case("IPv4 packet in an IPv6 ethertype: version 4", "probe",
         Ether(dst=ME, src=H0, type=0x86DD) / ip() / UDP() / Raw(b"m21" * 8),
         drop("ip6_input/bad_version")),
    Case("IPv6 payload length beyond the frame", "probe",
         E / ip6(plen=100) / UDP() / Raw(b"m22"), drop("ip6_input/bad_payload_length")),
    Case("IPv6 payload length one beyond the frame", "probe",
         E / ip6(plen=13) / UDP(len=12) / Raw(b"m23!"), drop("ip6_input/bad_payload_length")),
    Case("IPv6 hop limit 0 (valid otherwise)", "probe", E / ip6(hlim=0) / UDP() / Raw(b"m24"),
         drop("ip6_rewrite/hop_limit_expired", **NO_SRC6)),
] + [
    Case("IPv6 martian source %s" % s, "probe", E / ip6(src=s) / UDP() / Raw(b"m25"),
         drop("ip6_input/martian_source"))
    for s in ("::", "::1", "ff02::1", "ff0e::1")
] + [
    Case("IPv6 martian destination %s" % d, "probe", E / ip6(d) / UDP() / Raw(b"m26"),
         drop("ip6_input/martian_destination"))
    for d in ("::", "::1")
] + [
    Case("IPv6 multicast destination %s" % d, "probe",
         Ether(dst="33:33:00:00:00:01", src=H0) / ip6(d) / UDP() / Raw(b"m27"),
         drop("ip6_input/multicast_destination"))
    for d in ("ff02::1", "ff05::1:3", "ff0e::101")
] + [
    Case("IPv6 link-local source fe80::1", "probe", E / ip6(src="fe80::1") / UDP(),
         drop("ip6_input/link_local")),
    Case("IPv6 link-local destination fe80::1", "probe", E / ip6("fe80::1") / UDP(),
         drop("ip6_input/link_local")),
    Case("IPv6 link-local destination febf:ffff::1 (end of fe80::/10)", "probe",
         E / ip6("febf:ffff::1") / UDP(), drop("ip6_input/link_local")),
    Case("IPv6 fec0::1 is not link-local: no route", "probe", E / ip6("fec0::1") / UDP(),
         drop("ip6_lookup/no_route", **NO_SRC6)),
    Case("IPv6 link-layer multicast to a routed destination", "probe",
         Ether(dst="33:33:00:00:00:01", src=H0) / ip6() / UDP() / Raw(b"m28"),
         drop("ip6_lookup/l2_multicast")),
    Case("IPv6 echo request from a link-local source to us", "probe",
         E / ip6("2001:db8:b::fe", src="fe80::1") / ICMPv6EchoRequest(),
         drop("ip6_input/link_local")),
    Case("IPv6 IPv4-mapped source ::ffff:10.0.0.1", "probe",
         E / ip6(src="::ffff:10.0.0.1") / UDP() / Raw(b"m29"), drop("ip6_input/martian_source")),
    Case("IPv6 IPv4-mapped destination ::ffff:198.51.100.7", "probe",
         E / ip6("::ffff:198.51.100.7") / UDP() / Raw(b"m30"),
         drop("ip6_input/martian_destination")),
    # RFC 4443 2.4 e: no error about an error or a redirect, wherever the
    # ICMPv6 header is (not_allowed is counted before the missing source).
    Case("IPv6 hop limit 1, an ICMPv6 error behind a destination options header", "probe",
         E / ip6(hlim=1) / IPv6ExtHdrDestOpt() / ICMPv6DestUnreach() / ip6("2001:db8:a::1",
                                                                          src="2001:db8:100::7"),
         drop("ip6_rewrite/hop_limit_expired", icmp6__not_allowed=1)),
    Case("IPv6 hop limit 1, an ICMPv6 error behind hop-by-hop and destination options", "probe",
         E / ip6(hlim=1) / IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt() / ICMPv6DestUnreach(),
         drop("ip6_rewrite/hop_limit_expired", icmp6__not_allowed=1)),
    Case("IPv6 hop limit 1, an echo request behind a destination options header", "probe",
         E / ip6(hlim=1) / IPv6ExtHdrDestOpt() / ICMPv6EchoRequest(),
         drop("ip6_rewrite/hop_limit_expired", **NO_SRC6)),
    Case("ICMPv6 redirect with no route", "probe",
         E / ip6("2001:db8:ffff::1") / ICMPv6ND_Redirect(tgt="2001:db8::1", dst="2001:db8::2"),
         drop("ip6_lookup/no_route", icmp6__not_allowed=1)),
    # ---- IPv4 link-local (RFC 3927 7: never forwarded) ---------------------------------
    Case("IPv4 link-local source 169.254.1.1", "probe",
         E / ip(src="169.254.1.1") / UDP() / Raw(b"m31"), drop("ip4_input/link_local")),
    Case("IPv4 link-local destination 169.254.255.254", "probe",
         E / ip("169.254.255.254") / UDP() / Raw(b"m32"), drop("ip4_input/link_local")),
    # TTL before the next hop: a connected host without neighbor still expires.
    Case("TTL 1 to a connected host without a neighbor", "probe",
         E / ip("10.1.0.77", ttl=1) / UDP() / Raw(b"m33"),
         drop("ip4_rewrite/ttl_expired", **NO_SRC4)),
    # ---- valid frames among them: forwarded -------------------------------------------------
    Case("valid: IPv4 with 30 bytes of Ethernet padding", "probe",
         E / ip(id=900) / UDP() / Raw(b"v1") / Padding(b"\xcc" * 30), fwd4("p1", R1, P1)),
    Case("valid: IPv4 header only, total length 20", "probe",
         E / ip(id=901, proto=253), fwd4("p1", R1, P1)),
    Case("valid: IPv6, no next header, payload length 0", "probe",
         E / ip6(nh=59), fwd6("p1", R1, P1)),
    Case("valid: IPv6 with 7 bytes of padding", "probe",
         E / ip6() / UDP() / Raw(b"v2") / Padding(b"\xdd" * 7), fwd6("p1", R1, P1)),
    Case("valid: IPv4 with 2900 bytes of padding (the frame spans mbufs)", "probe",
         E / ip(id=902) / UDP() / Raw(b"v4") / Padding(b"\xcc" * 2900), fwd4("p1", R1, P1)),
    Case("valid: IPv6 with 2900 bytes of padding (the frame spans mbufs)", "probe",
         E / ip6() / UDP() / Raw(b"v5") / Padding(b"\xdd" * 2900), fwd6("p1", R1, P1)),
    Case("valid: 169.253.255.255 is not link-local", "probe",
         E / ip(src="169.253.255.255", id=903) / UDP() / Raw(b"v6"), fwd4("p1", R1, P1)),
    # The reply nfvd built has no route: no ICMP error about it (to itself).
    Case("valid: ICMP echo to a local address, no way back (no neighbor on probe)", "probe",
         E / ip("10.1.0.254", src="10.9.9.9") / ICMP() / Raw(b"v3"),
         drop("ip4_lookup/no_route", icmp__echo_replies=1, icmp__not_allowed=1)),
]


def with_mac(frame, mac):
    """The frame's bytes, its destination MAC replaced when it is ME."""
    b = bytes(frame)
    placeholder = bytes.fromhex(ME.replace(":", ""))
    if b[:6] == placeholder:
        b = bytes.fromhex(mac.replace(":", "")) + b[6:]
    return b


def run_each_alone(nfvd, cases):
    """Runs each case alone through a fresh probe port of one nfvd; returns the
    list of problems (empty when every case had exactly its verdict)."""
    d = nfvd()
    build_topology(d, {})
    d.start()
    before = d.stats()
    problems = []
    expected_out = []
    probes = []
    for c in cases:
        mac = nfvdlib.pcap_mac(d.n_pcap)
        frame = with_mac(c.frame, mac)
        p = d.add_port_now("probe", rx=[frame])
        assert d.port_stats()["probe"]["mac"].lower() == mac, "pcap MAC numbering changed"
        after = d.wait_processed({"probe": 1})
        d.del_port_now("probe")
        probes.append(p)
        want_drops = Counter(c.verdict.drops)
        got_drops = nfvdlib.drops(after) - nfvdlib.drops(before)
        got_icmp = Counter(nfvdlib.icmp_counters(after)) - Counter(nfvdlib.icmp_counters(before))
        want_icmp = Counter({k: v for k, v in c.verdict.counters.items()})
        fwd = after["packets"]["forwarded"] - before["packets"]["forwarded"]
        rcv = after["packets"]["received"] - before["packets"]["received"]
        outs = c.expected_outputs()
        expected_out += [(port, b, c) for port, b, _pkt in outs]
        if (got_drops, got_icmp, fwd, rcv) != (want_drops, want_icmp, len(outs), 1):
            problems.append("case %r: input %s\n  expected %s; got drops %s, %s, "
                            "received %d, forwarded %d" % (
                                c.name, command_of(c.frame), c.verdict.describe(),
                                dict(got_drops), dict(got_icmp), rcv, fwd))
        before = after
    assert d.ctl("show pools")["mbufs_in_use"] == 0
    outputs = d.stop()
    for p in probes:
        sent = nfvdlib.read_pcap(p.tx_path)
        assert sent == [], "the probe port transmitted %d frame(s)" % len(sent)
    got = outputs["p1"]
    want = [b for port, b, _c in expected_out]
    assert all(port == "p1" for port, _b, _c in expected_out)
    if got != want:
        problems.append("p1 sent %d frames, expected %d (in case order):\n%s" % (
            len(got), len(want), "\n".join("%s\n  want %s\n  got  %s" % (
                c.name, b.hex(), got[i].hex() if i < len(got) else None)
                for i, (_p, b, c) in enumerate(expected_out))))
    return problems


def test_malformed_each_alone(nfvd):
    problems = run_each_alone(nfvd, CASES)
    assert not problems, "\n".join(problems)


# RFC 1812 5.3.4 and the l2_broadcast / l2_multicast reasons ("link-layer
# broadcast/multicast not for a local address"): a frame received as a link-layer
# broadcast is never forwarded, routed or not. Without a route it must be counted
# as l2_broadcast too, not as no_route (which also counts an ICMP error "not allowed").
CASES_L2_NO_ROUTE = [
    Case("link-layer broadcast to an unrouted destination", "probe",
         Ether(dst=BCAST, src=H0) / ip("8.8.8.8") / UDP() / Raw(b"n1"),
         drop("ip4_lookup/l2_broadcast")),
    Case("link-layer multicast to an unrouted destination", "probe",
         Ether(dst="01:00:5e:00:00:09", src=H0) / ip("8.8.4.4") / UDP() / Raw(b"n2"),
         drop("ip4_lookup/l2_broadcast")),
    Case("IPv6 link-layer multicast to an unrouted destination", "probe",
         Ether(dst="33:33:00:00:00:01", src=H0) / ip6("2001:db8:ffff::1") / UDP() / Raw(b"n3"),
         drop("ip6_lookup/l2_multicast")),
]


def test_link_layer_broadcast_without_route(nfvd):
    problems = run_each_alone(nfvd, CASES_L2_NO_ROUTE)
    assert not problems, "\n".join(problems)


def test_malformed_table_is_sane():
    """Every case frame differs from the others (a copy-paste would test nothing new)."""
    frames = [bytes(c.frame) for c in CASES]
    dup = [c.name for c, f in zip(CASES, frames) if frames.count(f) > 1]
    assert not dup, dup
    assert len(CASES) > 60
    assert set(ICMP_COUNTERS) >= {k for c in CASES for k in c.verdict.counters}
