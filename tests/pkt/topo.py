# SPDX-License-Identifier: BSD-3-Clause
"""
The reference topology of the golden and malformed tests, and the scapy
helpers that build the packets nfvd is expected to send (independently of
nfvd: scapy computes every length and checksum from scratch).

          H0 10.0.0.1 2001:db8:a::1                          R1 10.1.0.1 2001:db8:b::1
             |                                                  |
   p0 10.0.0.254/24 2001:db8:a::fe/64  [nfvd]  p1 10.1.0.254/24 2001:db8:b::fe/64
   p3 (no address; H3 10.3.0.1 2001:db8:d::1 behind it)      p2 10.2.0.254/24 2001:db8:c::fe/64
                                                              R2 10.2.0.1 2001:db8:c::1
"""
from scapy.layers.inet import ICMP, IP
from scapy.layers.inet6 import ICMPv6EchoReply, IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from nfvdlib import pcap_mac

P0, P1, P2, P3 = (pcap_mac(i) for i in range(4))
H0 = "02:00:00:00:00:01"
R1 = "02:00:00:00:01:01"
R2 = "02:00:00:00:02:01"
R2B = "02:00:00:00:02:05"   # a host on p2's link, outside its subnet
R1LL = "02:00:00:00:01:0f"  # fe80::1 on p1's link
R2LL = "02:00:00:00:02:0f"  # fe80::1 on p2's link
H3 = "02:00:00:00:03:01"
OTHER = "02:00:00:00:09:09"  # nobody's MAC

CONFIG = [
    # Forwarding with static neighbors: a next hop without one is dropped as
    # neigh_unresolved, no ARP/NS is sent (resolution: test_arp_nd.py).
    "neigh set resolve off",
    "addr add 10.0.0.254/24 dev p0",
    "addr add 2001:db8:a::fe/64 dev p0",
    "addr add 10.1.0.254/24 dev p1",
    "addr add 2001:db8:b::fe/64 dev p1",
    "addr add 10.2.0.254/24 dev p2",
    "addr add 2001:db8:c::fe/64 dev p2",
    "neigh add 10.0.0.1 lladdr %s dev p0" % H0,
    "neigh add 2001:db8:a::1 lladdr %s dev p0" % H0,
    "neigh add 10.1.0.1 lladdr %s dev p1" % R1,
    "neigh add 2001:db8:b::1 lladdr %s dev p1" % R1,
    "neigh add 10.2.0.1 lladdr %s dev p2" % R2,
    "neigh add 2001:db8:c::1 lladdr %s dev p2" % R2,
    "neigh add 10.3.0.1 lladdr %s dev p3" % H3,
    "neigh add 2001:db8:d::1 lladdr %s dev p3" % H3,
    "route add 198.51.100.0/24 via 10.1.0.1",
    "route add 198.51.100.128/25 via 10.2.0.1",
    "route add 203.0.113.0/24 blackhole",
    "route add 192.0.2.0/24 via 10.1.0.99",
    "route add 100.64.0.0/16 via 10.1.0.1 via 10.2.0.1",
    "route add 2001:db8:100::/48 via 2001:db8:b::1",
    "route add 2001:db8:100:8000::/49 via 2001:db8:c::1",
    "route add 2001:db8:dead::/48 blackhole",
    "route add 2001:db8:200::/48 via 2001:db8:b::99",
    "route add 2001:db8:300::/48 via 2001:db8:b::1 via 2001:db8:c::1",
    "route add 192.0.3.0/24 dev p2",
    "neigh add 192.0.3.5 lladdr %s dev p2" % R2B,
    "route add 2001:db8:400::/64 dev p2",
    "neigh add 2001:db8:400::5 lladdr %s dev p2" % R2B,
    # The same link-local gateway address on two links: two next hops.
    "neigh add fe80::1 lladdr %s dev p1" % R1LL,
    "neigh add fe80::1 lladdr %s dev p2" % R2LL,
    "route add 2001:db8:500::/48 via fe80::1 dev p1",
    "route add 2001:db8:600::/48 via fe80::1 dev p2",
]

# The ECMP groups: their prefix, and (port, neighbor MAC, port MAC) of each
# member, in "via" order.
ECMP4 = ("100.64.0.0/16", [("p1", R1, P1), ("p2", R2, P2)])
ECMP6 = ("2001:db8:300::/48", [("p1", R1, P1), ("p2", R2, P2)])

# ICMP error source address and the way back to H0 (and H3), per ingress port.
ICMP4_SRC = {"p0": "10.0.0.254", "p1": "10.1.0.254"}
ICMP6_SRC = {"p0": "2001:db8:a::fe", "p1": "2001:db8:b::fe"}
BACK = {"p0": ("p0", H0, P0), "p1": ("p1", R1, P1), "p3": ("p3", H3, P3)}

ICMP4_MAX_LEN = 576
ICMP6_MAX_LEN = 1280


def ip(dst, **kw):
    """IPv4 from H0."""
    return IP(src="10.0.0.1", dst=dst, **kw)


def ip6(dst, **kw):
    """IPv6 from H0."""
    return IPv6(src="2001:db8:a::1", dst=dst, **kw)


def pad(n, tag):
    """A payload of exactly n bytes, starting with tag."""
    return Raw((tag + b"." * n)[:n])


def build_topology(nfvd, inputs, p2_mtu=None):
    """Adds p0..p3 (inputs: {port: [frames]}) and the configuration above;
    p2_mtu: "port add ... mtu N" on p2 (else the device's default, 1500)."""
    nfvd.add_port("p0", rx=inputs.get("p0", []))
    nfvd.add_port("p1", rx=inputs.get("p1", []))
    nfvd.add_port("p2", rx=inputs.get("p2", []), opts=" mtu %d" % p2_mtu if p2_mtu else "")
    nfvd.add_port("p3", rx=inputs.get("p3", []))
    nfvd.cmd(*CONFIG)


def l3_bytes(frame):
    """The IP packet nfvd works on: after the Ethernet header, without the link
    padding beyond the IP (payload) length."""
    b = bytes(frame)
    if b[12:14] == b"\x08\x00":
        return b[14:14 + int.from_bytes(b[16:18], "big")]
    return b[14:14 + 40 + int.from_bytes(b[18:20], "big")]


def routed4(frame, dmac, smac):
    """frame as a router forwards it: new Ethernet header, TTL - 1, checksum
    recomputed by scapy (not incrementally)."""
    ip = IP(l3_bytes(frame))
    ip.ttl -= 1
    del ip.chksum
    return Ether(dst=dmac, src=smac) / ip


def routed6(frame, dmac, smac):
    ip = IPv6(l3_bytes(frame))
    ip.hlim -= 1
    return Ether(dst=dmac, src=smac) / ip


def icmp4_error(frame, src, back, type, code, mtu=None):
    """The ICMP error about frame (RFC 792, RFC 1812 4.3.2): tos 0xc0, TTL 64,
    id 0, quoting as much of the packet as fits in 576 bytes."""
    orig = l3_bytes(frame)
    _port, dmac, smac = back
    icmp = ICMP(type=type, code=code) if mtu is None else ICMP(type=type, code=code,
                                                                 nexthopmtu=mtu)
    return (Ether(dst=dmac, src=smac)
            / IP(src=src, dst=IP(orig).src, tos=0xC0, ttl=64, id=0, flags=0, proto=1)
            / icmp / Raw(orig[:ICMP4_MAX_LEN - 28]))


def icmp6_error(frame, src, back, icmp):
    """The ICMPv6 error about frame (RFC 4443 2.4): hop limit 64, traffic class
    and flow label 0, quoting as much as fits in 1280 bytes."""
    orig = l3_bytes(frame)
    _port, dmac, smac = back
    return (Ether(dst=dmac, src=smac)
            / IPv6(src=src, dst=IPv6(orig).src, hlim=64, tc=0, fl=0, nh=58)
            / icmp / Raw(orig[:ICMP6_MAX_LEN - 48]))


def echo_reply4(frame, back):
    """nfvd's answer to an ICMP echo request: addresses swapped, TTL 64, the
    rest of the IP header (tos, id, flags) kept, type 0."""
    req = IP(l3_bytes(frame))
    icmp = req[ICMP]
    _port, dmac, smac = back
    return (Ether(dst=dmac, src=smac)
            / IP(src=req.dst, dst=req.src, ttl=64, tos=req.tos, id=req.id, flags=req.flags)
            / ICMP(type=0, code=0, id=icmp.id, seq=icmp.seq) / Raw(bytes(icmp.payload)))


def echo_reply6(frame, back):
    req = IPv6(l3_bytes(frame))
    body = bytes(req.payload)  # the echo request: type, code, checksum, id, seq, data
    _port, dmac, smac = back
    return (Ether(dst=dmac, src=smac)
            / IPv6(src=req.dst, dst=req.src, hlim=64, tc=req.tc, fl=req.fl)
            / ICMPv6EchoReply(id=int.from_bytes(body[4:6], "big"),
                              seq=int.from_bytes(body[6:8], "big"), data=body[8:]))


def ecmp_frames4(frame, members):
    """[(port, frame)]: frame as each member of an ECMP group would forward it.
    Which member nfvd picks is its own business; the tests check properties of
    the choice (cases.check_ecmp), not the choice."""
    return [(port, routed4(frame, dmac, smac)) for port, dmac, smac in members]


def ecmp_frames6(frame, members):
    return [(port, routed6(frame, dmac, smac)) for port, dmac, smac in members]
