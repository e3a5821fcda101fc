# SPDX-License-Identifier: BSD-3-Clause
"""
Golden packet tests of the IPv4 and IPv6 forwarding graph: one nfvd, the
topology of topo.py, every case below sent once; each expected frame is
checked byte for byte and every counter exactly (see cases.py).

Columns: name, ingress port, the scapy expression of the input, verdict.
Packets to an ECMP group leave by one of its members, exact bytes; which one
is not predicted, but every packet of a flow (a UDP or TCP flow, the
fragments of one datagram) must take the same, and the flows of each group
must spread over all its members.
"""
from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_NOP
from scapy.layers.inet6 import (ICMPv6DestUnreach, ICMPv6EchoRequest, ICMPv6PacketTooBig,
                                ICMPv6TimeExceeded, IPv6, IPv6ExtHdrDestOpt)
from scapy.layers.l2 import Ether
from scapy.packet import Padding, Raw

from cases import Case, check_counters, check_outputs, drop, echo4, echo6, ecmp4, ecmp6
from cases import err4, err6, frag4, fwd4, fwd6
from topo import ECMP4, ECMP6, H0, H3, P0, P1, P2, P3, R1, R1LL, R2, R2B, R2LL, build_topology, ip, ip6, pad

E = Ether(dst=P0, src=H0)     # from H0, on p0
E1 = Ether(dst=P1, src=R1)    # from R1, on p1
E3 = Ether(dst=P3, src=H3)    # from H3, on p3 (a port without address)
BCAST = "ff:ff:ff:ff:ff:ff"



CASES_IP4 = [
    Case("forward via the /24 to R1", "p0",
         E / ip("198.51.100.7", id=101) / UDP(sport=1001, dport=53) / Raw(b"g101"),
         fwd4("p1", R1, P1)),
    Case("the longer /25 wins: to R2", "p0",
         E / ip("198.51.100.200", id=102) / UDP(sport=1002, dport=53) / Raw(b"g102"),
         fwd4("p2", R2, P2)),
    Case("/25 boundary: .127 stays on the /24", "p0",
         E / ip("198.51.100.127", id=103) / UDP(sport=1003, dport=53) / Raw(b"g103"),
         fwd4("p1", R1, P1)),
    Case("/25 boundary: .128 takes the /25", "p0",
         E / ip("198.51.100.128", id=104) / UDP(sport=1004, dport=53) / Raw(b"g104"),
         fwd4("p2", R2, P2)),
    Case("TCP, DSCP and ECN bits kept", "p0",
         E / ip("198.51.100.9", id=105, tos=0xB9) / TCP(sport=40000, dport=80, flags="S"),
         fwd4("p1", R1, P1)),
    Case("IP options (IHL 6) forwarded untouched", "p0",
         E / ip("198.51.100.10", id=106, options=[IPOption_NOP()] * 4) / UDP() / Raw(b"g106"),
         fwd4("p1", R1, P1)),
    Case("Ethernet padding after the IP packet is trimmed", "p0",
         E / ip("198.51.100.11", id=107) / UDP(sport=7, dport=7) / Raw(b"p")
         / Padding(b"\xaa" * 17),
         fwd4("p1", R1, P1)),
    Case("TTL 2 is forwarded with TTL 1", "p0",
         E / ip("198.51.100.12", id=108, ttl=2) / UDP() / Raw(b"g108"),
         fwd4("p1", R1, P1)),
    Case("TTL 255 is forwarded with TTL 254", "p0",
         E / ip("198.51.100.13", id=0xFFFF, ttl=255, flags="DF") / UDP() / Raw(b"g109"),
         fwd4("p1", R1, P1)),
    Case("TTL 1: time exceeded", "p0",
         E / ip("198.51.100.14", id=110, ttl=1) / UDP(sport=1010, dport=33434) / Raw(b"g110"),
         err4("ip4_rewrite/ttl_expired", 11, 0)),
    Case("TTL 0: time exceeded", "p0",
         E / ip("198.51.100.15", id=111, ttl=0) / UDP(sport=1011, dport=33434) / Raw(b"g111"),
         err4("ip4_rewrite/ttl_expired", 11, 0)),
    Case("TTL 1, 1000-byte packet: the quote stops at 576 bytes", "p0",
         E / ip("198.51.100.16", id=112, ttl=1) / UDP() / pad(972, b"g112"),
         err4("ip4_rewrite/ttl_expired", 11, 0)),
    Case("TTL 1 echo request in transit: time exceeded", "p0",
         E / ip("198.51.100.17", id=113, ttl=1) / ICMP(id=5, seq=113) / Raw(b"g113"),
         err4("ip4_rewrite/ttl_expired", 11, 0)),
    Case("TTL 1 ICMP error in transit: no error about an error", "p0",
         E / ip("198.51.100.18", id=114, ttl=1) / ICMP(type=3, code=1) / Raw(b"g114"),
         drop("ip4_rewrite/ttl_expired", icmp__not_allowed=1)),
    Case("TTL 1 first fragment: time exceeded", "p0",
         E / ip("198.51.100.19", id=115, ttl=1, flags="MF") / UDP() / Raw(b"g115-----"),
         err4("ip4_rewrite/ttl_expired", 11, 0)),
    Case("TTL 1 later fragment: no ICMP", "p0",
         E / ip("198.51.100.20", id=116, ttl=1, frag=100, proto=17) / Raw(b"g116----"),
         drop("ip4_rewrite/ttl_expired", icmp__not_allowed=1)),
    Case("later fragment forwarded", "p0",
         E / ip("198.51.100.21", id=117, frag=100, proto=17) / Raw(b"g117----"),
         fwd4("p1", R1, P1)),
    Case("TTL 1 with IP options: the quote holds them", "p0",
         E / ip("198.51.100.28", id=143, ttl=1, options=[IPOption_NOP()] * 8) / UDP()
         / Raw(b"g143"),
         err4("ip4_rewrite/ttl_expired", 11, 0)),
    Case("hairpin: in and out of p1", "p1",
         E1 / IP(src="10.1.0.1", dst="198.51.100.29", id=144) / UDP() / Raw(b"g144"),
         fwd4("p1", R1, P1)),
    Case("TTL 1 arriving on p1: the error comes from p1's address", "p1",
         E1 / IP(src="10.1.0.1", dst="198.51.100.30", id=145, ttl=1) / UDP() / Raw(b"g145"),
         err4("ip4_rewrite/ttl_expired", 11, 0, ingress="p1")),
    Case("no route, arriving on p1: the error comes from p1's address", "p1",
         E1 / IP(src="10.1.0.1", dst="9.9.9.9", id=146) / UDP() / Raw(b"g146"),
         err4("ip4_lookup/no_route", 3, 0, ingress="p1")),
    # RFC 1812 4.3.2.4: from an address of the port the error leaves by.
    Case("TTL 1 arriving on p1 from a host behind p0: the error leaves p0 from p0's address",
         "p1", E1 / IP(src="10.0.0.1", dst="198.51.100.31", id=190, ttl=1) / UDP() /
         Raw(b"g190"), err4("ip4_rewrite/ttl_expired", 11, 0, ingress="p1", back="p0")),
    Case("TTL 1 from a source without neighbor: the error has no way back", "p0",
         E / IP(src="10.0.0.2", dst="198.51.100.22", id=118, ttl=1) / UDP() / Raw(b"g118"),
         drop("ip4_rewrite/ttl_expired", "ip4_rewrite/neigh_unresolved", icmp__errors_sent=1)),
    Case("TTL 1 on a port without address: no ICMP source", "p3",
         E3 / IP(src="10.3.0.1", dst="198.51.100.23", id=119, ttl=1) / UDP() / Raw(b"g119"),
         drop("ip4_rewrite/ttl_expired", icmp__no_source_address=1)),
    Case("no route: net unreachable", "p0",
         E / ip("8.8.8.8", id=120) / UDP(sport=1020, dport=53) / Raw(b"g120"),
         err4("ip4_lookup/no_route", 3, 0)),
    Case("no route on a port without address: no ICMP source", "p3",
         E3 / IP(src="10.3.0.1", dst="8.8.4.4", id=121) / UDP() / Raw(b"g121"),
         drop("ip4_lookup/no_route", icmp__no_source_address=1)),
    Case("blackhole route: silent drop", "p0",
         E / ip("203.0.113.9", id=122) / UDP() / Raw(b"g122"),
         drop("ip4_lookup/blackhole")),
    Case("gateway without neighbor", "p0",
         E / ip("192.0.2.1", id=123) / UDP() / Raw(b"g123"),
         drop("ip4_rewrite/neigh_unresolved")),
    Case("connected host with a neighbor entry", "p0",
         E / ip("10.1.0.1", id=124) / UDP() / Raw(b"g124"),
         fwd4("p1", R1, P1)),
    Case("connected host without neighbor entry", "p0",
         E / ip("10.1.0.77", id=125) / UDP() / Raw(b"g125"),
         drop("ip4_rewrite/neigh_unresolved")),
    Case("no DF, 1501 bytes, mtu 1500: two fragments", "p0",
         E / ip("198.51.100.203", id=128) / UDP() / pad(1473, b"g128"),
         frag4("p2", R2, P2, 1500, 2)),
    Case("connected route 'dev p2', destination with a neighbor entry", "p0",
         E / ip("192.0.3.5", id=147) / UDP() / Raw(b"g147"),
         fwd4("p2", R2B, P2)),
    Case("connected route 'dev p2', destination without neighbor entry", "p0",
         E / ip("192.0.3.6", id=148) / UDP() / Raw(b"g148"),
         drop("ip4_rewrite/neigh_unresolved")),
    Case("TTL 1 with Ethernet padding: the quote stops at the IP total length", "p0",
         E / ip("198.51.100.31", id=149, ttl=1) / UDP() / Raw(b"g149") / Padding(b"\xee" * 14),
         err4("ip4_rewrite/ttl_expired", 11, 0)),
    Case("DF, 1500 bytes, mtu 1500: forwarded", "p0",
         E / ip("198.51.100.24", id=129, flags="DF") / UDP() / pad(1472, b"g129"),
         fwd4("p1", R1, P1)),
    Case("DF, 1501 bytes, mtu 1500: fragmentation needed, MTU 1500", "p0",
         E / ip("198.51.100.25", id=130, flags="DF") / UDP() / pad(1473, b"g130"),
         err4("ip4_rewrite/frag_needed", 3, 4, mtu=1500)),
    Case("DF, too big, and an ICMP error itself: no ICMP about it", "p0",
         E / ip("198.51.100.204", id=131, flags="DF") / ICMP(type=11) / pad(1473, b"g131"),
         drop("ip4_rewrite/frag_needed", icmp__not_allowed=1)),
    Case("DF, too big, on a port without address", "p3",
         E3 / IP(src="10.3.0.1", dst="198.51.100.205", id=132, flags="DF") / UDP()
         / pad(1473, b"g132"),
         drop("ip4_rewrite/frag_needed", icmp__no_source_address=1)),
    Case("echo request to the ingress port's address", "p0",
         E / ip("10.0.0.254", id=133, tos=0x10) / ICMP(id=7, seq=1) / Raw(b"g133 ping"),
         echo4()),
    Case("echo request to another port's address", "p0",
         E / ip("10.2.0.254", id=134, flags="DF") / ICMP(id=7, seq=2) / Raw(b"g134 ping"),
         echo4()),
    Case("echo request with TTL 1 to a local address: answered", "p0",
         E / ip("10.1.0.254", id=135, ttl=1) / ICMP(id=7, seq=3) / Raw(b"g135"),
         echo4()),
    Case("echo request from a port without address: answered", "p3",
         E3 / IP(src="10.3.0.1", dst="10.1.0.254", id=136) / ICMP(id=8, seq=1) / Raw(b"g136"),
         echo4(ingress="p3")),
    Case("echo request as a link-layer broadcast: answered", "p0",
         Ether(dst=BCAST, src=H0) / ip("10.0.0.254", id=137) / ICMP(id=7, seq=4) / Raw(b"g137"),
         echo4()),
    Case("echo request of 1400 bytes: answered whole", "p0",
         E / ip("10.0.0.254", id=150, flags="DF") / ICMP(id=7, seq=7) / pad(1372, b"g150"),
         echo4()),
    Case("TCP fragment to a local address: not reassembled (ICMP and UDP are: "
         "test_reassembly.py)", "p0",
         E / ip("10.0.0.254", id=151, flags="MF") / TCP(sport=1151, dport=179) /
         Raw(b"g151----"),
         drop("ip4_local/unsupported_protocol")),
    Case("echo request with a bad ICMP checksum", "p0",
         E / ip("10.0.0.254", id=138) / ICMP(id=7, seq=5, chksum=0x1234) / Raw(b"g138"),
         drop("ip4_local/bad_icmp")),
    Case("echo reply to a local address", "p0",
         E / ip("10.0.0.254", id=139) / ICMP(type=0, id=7, seq=6) / Raw(b"g139"),
         drop("ip4_local/unsupported_protocol")),
    Case("UDP to a local address", "p0",
         E / ip("10.1.0.254", id=140) / UDP(sport=1040, dport=53) / Raw(b"g140"),
         drop("ip4_local/unsupported_protocol")),
    Case("link-layer broadcast to a routed destination", "p0",
         Ether(dst=BCAST, src=H0) / ip("198.51.100.26", id=141) / UDP() / Raw(b"g141"),
         drop("ip4_lookup/l2_broadcast")),
    Case("link-layer multicast to a routed destination", "p0",
         Ether(dst="01:00:5e:01:02:03", src=H0) / ip("198.51.100.27", id=142) / UDP()
         / Raw(b"g142"),
         drop("ip4_lookup/l2_broadcast")),
] + [
    Case("ECMP 100.64.0.0/16, flow %d: by one member" % i, "p0",
         E / ip("100.64.%d.%d" % (i, 3 * i + 1), id=150 + i, ttl=20 + i)
         / UDP(sport=20000 + 7 * i, dport=4789) / Raw(b"g15%d" % i),
         ecmp4(ECMP4))
    for i in range(8)
] + [
    # What varies inside a flow (id, TTL, DF, length, payload) does not move it.
    Case("ECMP, UDP flow %d, packet %d: by the member of the flow's other packets" % (i, k),
         "p0",
         E / ip("100.64.203.%d" % (i + 1), id=300 + 10 * i + k, ttl=64 - 9 * k,
                flags="DF" if k == 1 else 0)
         / UDP(sport=41000 + i, dport=53) / Raw(b"g3%d%d" % (i, k) + b"-" * (40 * k)),
         ecmp4(ECMP4, flow="udp %d" % i))
    for i in range(4) for k in range(3)
] + [
    Case("ECMP, TCP flow %d" % i, "p0",
         E / ip("100.64.200.%d" % i, id=160 + i) / TCP(sport=33000 + i, dport=443),
         ecmp4(ECMP4))
    for i in range(4)
] + [
    Case("ECMP, first fragment %d" % i, "p0",
         E / ip("100.64.201.%d" % i, id=170 + i, flags="MF") / UDP(sport=5000 + i) / Raw(b"f1f1"),
         ecmp4(ECMP4, flow="datagram %d" % i))
    for i in range(3)
] + [
    Case("ECMP, later fragment %d: the member of the first" % i, "p0",
         E / ip("100.64.201.%d" % i, id=170 + i, frag=2, proto=17) / Raw(b"f2f2f2f2"),
         ecmp4(ECMP4, flow="datagram %d" % i))
    for i in range(3)
] + [
    Case("ECMP, ICMP echo %d in transit" % i, "p0",
         E / ip("100.64.202.%d" % i, id=180 + i) / ICMP(id=i, seq=i),
         ecmp4(ECMP4))
    for i in range(3)
]

CASES_IP6 = [
    Case("v6 forward via the /48 to R1", "p0",
         E / ip6("2001:db8:100::7") / UDP(sport=2001, dport=53) / Raw(b"h201"),
         fwd6("p1", R1, P1)),
    Case("v6 the longer /49 wins: to R2", "p0",
         E / ip6("2001:db8:100:8000::1") / UDP(sport=2002, dport=53) / Raw(b"h202"),
         fwd6("p2", R2, P2)),
    Case("v6 /49 boundary: last address below it stays on the /48", "p0",
         E / ip6("2001:db8:100:7fff:ffff:ffff:ffff:ffff") / UDP(sport=2003) / Raw(b"h203"),
         fwd6("p1", R1, P1)),
    Case("v6 traffic class and flow label kept", "p0",
         E / ip6("2001:db8:100::8", tc=0xB8, fl=0x12345) / UDP(sport=2004) / Raw(b"h204"),
         fwd6("p1", R1, P1)),
    Case("v6 hop limit 2 is forwarded with 1", "p0",
         E / ip6("2001:db8:100::9", hlim=2) / UDP(sport=2005) / Raw(b"h205"),
         fwd6("p1", R1, P1)),
    Case("v6 destination options header forwarded untouched", "p0",
         E / ip6("2001:db8:100::a") / IPv6ExtHdrDestOpt() / UDP(sport=2006) / Raw(b"h206"),
         fwd6("p1", R1, P1)),
    Case("v6 Ethernet padding trimmed", "p0",
         E / ip6("2001:db8:100::b") / UDP(sport=2007) / Raw(b"h") / Padding(b"\xbb" * 9),
         fwd6("p1", R1, P1)),
    Case("v6 hop limit 1: time exceeded", "p0",
         E / ip6("2001:db8:100::c", hlim=1) / UDP(sport=2008, dport=33434) / Raw(b"h208"),
         err6("ip6_rewrite/hop_limit_expired", ICMPv6TimeExceeded(code=0))),
    Case("v6 hop limit 0: time exceeded", "p0",
         E / ip6("2001:db8:100::d", hlim=0) / UDP(sport=2009, dport=33434) / Raw(b"h209"),
         err6("ip6_rewrite/hop_limit_expired", ICMPv6TimeExceeded(code=0))),
    Case("v6 hop limit 1, 1400 bytes: the quote stops at 1280 bytes", "p0",
         E / ip6("2001:db8:100::e", hlim=1) / UDP(sport=2010) / pad(1352, b"h210"),
         err6("ip6_rewrite/hop_limit_expired", ICMPv6TimeExceeded(code=0))),
    Case("v6 hop limit 1 echo request in transit: time exceeded", "p0",
         E / ip6("2001:db8:100::f", hlim=1) / ICMPv6EchoRequest(id=1, seq=211, data=b"h211"),
         err6("ip6_rewrite/hop_limit_expired", ICMPv6TimeExceeded(code=0))),
    Case("v6 hop limit 1 ICMPv6 error in transit: no error about an error", "p0",
         E / ip6("2001:db8:100::10", hlim=1) / ICMPv6DestUnreach(code=3) / Raw(b"h212"),
         drop("ip6_rewrite/hop_limit_expired", icmp6__not_allowed=1)),
    Case("v6 hop limit 1 with a destination options header: quoted", "p0",
         E / ip6("2001:db8:100::16", hlim=1) / IPv6ExtHdrDestOpt() / UDP() / Raw(b"h230"),
         err6("ip6_rewrite/hop_limit_expired", ICMPv6TimeExceeded(code=0))),
    Case("v6 hop limit 1 arriving on p1: the error comes from p1's address", "p1",
         E1 / IPv6(src="2001:db8:b::1", dst="2001:db8:100::17", hlim=1) / UDP() / Raw(b"h231"),
         err6("ip6_rewrite/hop_limit_expired", ICMPv6TimeExceeded(code=0), ingress="p1")),
    Case("v6 hop limit 1 arriving on p1 from a host behind p0: the error leaves p0 from p0's "
         "address", "p1",
         E1 / IPv6(src="2001:db8:a::1", dst="2001:db8:100::18", hlim=1) / UDP() / Raw(b"h290"),
         err6("ip6_rewrite/hop_limit_expired", ICMPv6TimeExceeded(code=0), ingress="p1",
              back="p0")),
    Case("v6 hairpin: in and out of p1", "p1",
         E1 / IPv6(src="2001:db8:b::1", dst="2001:db8:100::18") / UDP() / Raw(b"h232"),
         fwd6("p1", R1, P1)),
    Case("v6 hop limit 1 from a source without neighbor", "p0",
         E / IPv6(src="2001:db8:a::2", dst="2001:db8:100::11", hlim=1) / UDP() / Raw(b"h213"),
         drop("ip6_rewrite/hop_limit_expired", "ip6_rewrite/neigh_unresolved",
              icmp6__errors_sent=1)),
    Case("v6 hop limit 1 on a port without address", "p3",
         E3 / IPv6(src="2001:db8:d::1", dst="2001:db8:100::12", hlim=1) / UDP() / Raw(b"h214"),
         drop("ip6_rewrite/hop_limit_expired", icmp6__no_source_address=1)),
    Case("v6 no route: destination unreachable, code 0", "p0",
         E / ip6("2001:db8:ffff::1") / UDP(sport=2015, dport=53) / Raw(b"h215"),
         err6("ip6_lookup/no_route", ICMPv6DestUnreach(code=0))),
    Case("v6 blackhole route", "p0",
         E / ip6("2001:db8:dead::1") / UDP() / Raw(b"h216"),
         drop("ip6_lookup/blackhole")),
    Case("v6 gateway without neighbor", "p0",
         E / ip6("2001:db8:200::1") / UDP() / Raw(b"h217"),
         drop("ip6_rewrite/neigh_unresolved")),
    Case("v6 connected host with a neighbor entry", "p0",
         E / ip6("2001:db8:c::1") / UDP() / Raw(b"h218"),
         fwd6("p2", R2, P2)),
    Case("v6 connected host without neighbor entry", "p0",
         E / ip6("2001:db8:c::77") / UDP() / Raw(b"h219"),
         drop("ip6_rewrite/neigh_unresolved")),
    Case("v6 connected route 'dev p2', destination with a neighbor entry", "p0",
         E / ip6("2001:db8:400::5") / UDP() / Raw(b"h233"),
         fwd6("p2", R2B, P2)),
    Case("v6 connected route 'dev p2', destination without neighbor entry", "p0",
         E / ip6("2001:db8:400::6") / UDP() / Raw(b"h234"),
         drop("ip6_rewrite/neigh_unresolved")),
    Case("v6 hop limit 1 with Ethernet padding: the quote stops at the payload length", "p0",
         E / ip6("2001:db8:100::19", hlim=1) / UDP() / Raw(b"h235") / Padding(b"\xee" * 10),
         err6("ip6_rewrite/hop_limit_expired", ICMPv6TimeExceeded(code=0))),
    Case("v6 via the link-local gateway fe80::1 of p1", "p0",
         E / ip6("2001:db8:500::1") / UDP() / Raw(b"h237"),
         fwd6("p1", R1LL, P1)),
    Case("v6 via the link-local gateway fe80::1 of p2 (same address, other link)", "p0",
         E / ip6("2001:db8:600::1") / UDP() / Raw(b"h238"),
         fwd6("p2", R2LL, P2)),
    Case("v6 1500 bytes, mtu 1500: forwarded", "p0",
         E / ip6("2001:db8:100::13") / UDP() / pad(1452, b"h222"),
         fwd6("p1", R1, P1)),
    Case("v6 1501 bytes, mtu 1500: packet too big, MTU 1500", "p0",
         E / ip6("2001:db8:100::14") / UDP() / pad(1453, b"h223"),
         err6("ip6_rewrite/packet_too_big", ICMPv6PacketTooBig(mtu=1500))),
    Case("v6 echo request to the ingress port's address", "p0",
         E / ip6("2001:db8:a::fe", tc=0x20, fl=0xABCDE) / ICMPv6EchoRequest(id=9, seq=1,
                                                                           data=b"h224 ping"),
         echo6()),
    Case("v6 echo request to another port's address", "p0",
         E / ip6("2001:db8:c::fe") / ICMPv6EchoRequest(id=9, seq=2, data=b"h225 ping"),
         echo6()),
    Case("v6 echo request from a port without address: answered", "p3",
         E3 / IPv6(src="2001:db8:d::1", dst="2001:db8:b::fe")
         / ICMPv6EchoRequest(id=9, seq=3, data=b"h226"),
         echo6(ingress="p3")),
    Case("v6 echo request of 1400 bytes: answered whole", "p0",
         E / ip6("2001:db8:a::fe") / ICMPv6EchoRequest(id=9, seq=5, data=b"h236" + b"." * 1348),
         echo6()),
    Case("v6 echo request with a bad checksum", "p0",
         E / ip6("2001:db8:a::fe") / ICMPv6EchoRequest(id=9, seq=4, cksum=0x1234, data=b"h227"),
         drop("ip6_local/bad_icmp")),
    Case("v6 UDP to a local address", "p0",
         E / ip6("2001:db8:b::fe") / UDP(sport=2028, dport=53) / Raw(b"h228"),
         drop("ip6_local/unsupported_protocol")),
    Case("v6 link-layer multicast to a routed destination", "p0",
         Ether(dst="33:33:00:00:00:01", src=H0) / ip6("2001:db8:100::15") / UDP() / Raw(b"h229"),
         drop("ip6_lookup/l2_multicast")),
] + [
    Case("v6 ECMP 2001:db8:300::/48, flow %d" % i, "p0",
         E / ip6("2001:db8:300::%x" % (i * 977 + 1), fl=i * 4099) / UDP(sport=3000 + i)
         / Raw(b"h24%d" % i),
         ecmp6(ECMP6))
    for i in range(8)
] + [
    Case("v6 ECMP, flow %d, packet %d: by the member of the flow's other packets" % (i, k),
         "p0",
         E / ip6("2001:db8:300::1:%x" % (i + 1), fl=0x5000 + i, hlim=64 - 9 * k)
         / UDP(sport=42000 + i, dport=53) / Raw(b"h3%d%d" % (i, k) + b"-" * (40 * k)),
         ecmp6(ECMP6, flow="v6 udp %d" % i))
    for i in range(4) for k in range(3)
]


def test_golden(nfvd):
    cases = CASES_IP4 + CASES_IP6
    inputs = {}
    for c in cases:
        inputs.setdefault(c.port, []).append(c.frame)
    d = nfvd()
    build_topology(d, inputs)
    d.start()
    macs = {p["name"]: p["mac"].lower() for p in d.ctl("port show")["ports"]}
    assert macs == {"p0": P0, "p1": P1, "p2": P2, "p3": P3}
    st = d.wait_processed({p: len(f) for p, f in inputs.items()})
    assert d.ctl("show pools")["mbufs_in_use"] == 0
    workers = d.ctl("show workers")["workers"]
    assert sum(w["rx_packets"] for w in workers) == len(cases)
    assert sum(w["tx_packets"] for w in workers) == st["packets"]["forwarded"]
    graph = d.ctl("show graph")["nodes"]
    assert sum(n["packets"] for n in graph if n["node"] == "port_rx") == len(cases)
    assert sum(n["packets"] for n in graph if n["node"] == "port_tx") == st["packets"]["forwarded"]
    assert d.ctl("show latency")["packets"] == st["packets"]["forwarded"]
    outputs = d.stop()
    problems = check_outputs(cases, outputs) + check_counters(cases, st, ["p0", "p1", "p2", "p3"],
                                                              outputs)
    assert not problems, "\n".join(problems)
