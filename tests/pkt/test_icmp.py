# SPDX-License-Identifier: BSD-3-Clause
"""
ICMP errors that depend on a port's MTU ("port add ... mtu N"), on frames
larger than an mbuf, and on the rate limit. Every frame is checked byte for
byte; the ICMP errors of the golden test are in test_golden.py.
"""
import os
from collections import Counter

import pytest
from scapy.layers.inet import ICMP, IP, UDP, IPOption_Router_Alert, IPOption_RR
from scapy.layers.inet6 import ICMPv6PacketTooBig, ICMPv6TimeExceeded, IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import nfvdlib
from cases import Case, Verdict, check_counters, check_outputs, drop, err4, err6, frag4, fwd4
from cases import fwd6
from topo import H0, P0, P1, P2, R1, R2, build_topology, ip, ip6, l3_bytes, pad

E = Ether(dst=P0, src=H0)



def frag4_options(port, dmac, smac, mtu):
    """Forwarded (TTL - 1) in two fragments that fit mtu, a packet whose
    header has a Router Alert option (copied flag set) and a Record Route
    option (not set): the first fragment keeps the whole header, the second
    only the Router Alert (RFC 791 3.1). Built by hand: scapy's fragment()
    copies every option into every fragment."""
    def piece(k):
        def out(f):
            ip = IP(l3_bytes(f))
            hlen = ip.ihl * 4
            data = bytes(ip)[hlen:]
            first = (mtu - hlen) // 8 * 8
            if k == 0:
                frag = IP(bytes(ip)[:hlen] + data[:first])
                frag.flags = "MF"
            else:
                frag = IP(src=ip.src, dst=ip.dst, id=ip.id, ttl=ip.ttl, proto=ip.proto,
                          options=[IPOption_Router_Alert()], frag=first // 8) / Raw(data[first:])
            frag = IP(bytes(frag))
            frag.ttl -= 1
            del frag.len
            del frag.chksum
            return (port, Ether(dst=dmac, src=smac) / IP(bytes(frag)))
        return out
    return Verdict(outs=[piece(0), piece(1)])


# p2 has "mtu 1280"; 198.51.100.128/25 and 2001:db8:100:8000::/49 go out p2.
CASES_MTU = [
    Case("DF, 1280 bytes, mtu 1280: forwarded", "p0",
         E / ip("198.51.100.201", id=126, flags="DF") / UDP() / pad(1252, b"t126"),
         fwd4("p2", R2, P2)),
    Case("DF, 1281 bytes, mtu 1280: fragmentation needed, next-hop MTU 1280", "p0",
         E / ip("198.51.100.202", id=127, flags="DF") / UDP() / pad(1253, b"t127"),
         err4("ip4_rewrite/frag_needed", 3, 4, mtu=1280)),
    Case("DF, 1400 bytes of TCP-like data: the quote stops at 576 bytes", "p0",
         E / ip("198.51.100.203", id=128, flags="DF", proto=6) / pad(1380, b"t128"),
         err4("ip4_rewrite/frag_needed", 3, 4, mtu=1280)),
    Case("no DF, 1281 bytes, mtu 1280: two fragments (1276 and 5 bytes)", "p0",
         E / ip("198.51.100.204", id=129) / UDP() / pad(1253, b"t129"),
         frag4("p2", R2, P2, 1280, 2)),
    Case("no DF, 1350 bytes with options, mtu 1280: two fragments, the second with the "
         "copied option only", "p0",
         E / ip("198.51.100.205", id=134, options=[IPOption_Router_Alert(),
                                                   IPOption_RR(routers=["0.0.0.0"] * 2)])
         / UDP() / pad(1306, b"t134"),
         frag4_options("p2", R2, P2, 1280)),
    Case("v6 1280 bytes, mtu 1280: forwarded", "p0",
         E / ip6("2001:db8:100:8000::2") / UDP() / pad(1232, b"t130"),
         fwd6("p2", R2, P2)),
    Case("v6 1281 bytes, mtu 1280: packet too big, MTU 1280, quote up to 1280 bytes", "p0",
         E / ip6("2001:db8:100:8000::3") / UDP() / pad(1233, b"t131"),
         err6("ip6_rewrite/packet_too_big", ICMPv6PacketTooBig(mtu=1280))),
    Case("v6 1500 bytes, mtu 1280: packet too big", "p0",
         E / ip6("2001:db8:100:8000::4") / UDP() / pad(1452, b"t132"),
         err6("ip6_rewrite/packet_too_big", ICMPv6PacketTooBig(mtu=1280))),
    Case("v4 still 1500 on p1", "p0",
         E / ip("198.51.100.5", id=133, flags="DF") / UDP() / pad(1472, b"t133"),
         fwd4("p1", R1, P1)),
]


@pytest.mark.parametrize("how", ["port add", "port set"])
def test_port_mtu(nfvd, how):
    """MTU 1280 on a net_pcap port, given at 'port add ... mtu 1280' or by
    'port set p2 mtu 1280' (the startup file's command, as from nfvctl): its
    L3 MTU is what ip4_rewrite and ip6_rewrite enforce, and what the ICMP
    errors announce."""
    inputs = {"p0": [c.frame for c in CASES_MTU]}
    d = nfvd()
    build_topology(d, inputs, p2_mtu=1280 if how == "port add" else None)
    if how == "port set":
        d.cmd("port set p2 mtu 1280")
    d.start()
    assert d.port_stats()["p2"]["mtu"] == 1280
    st = d.wait_processed({"p0": len(CASES_MTU)})
    outputs = d.stop()
    problems = check_outputs(CASES_MTU, outputs) + check_counters(CASES_MTU, st, ["p0", "p1", "p2"])
    assert not problems, "\n".join(problems)


def test_port_set_mtu_kinds(nfvd):
    """port set NAME mtu N on each kind of interface: a VLAN up to its
    parent's and brought down with it (as Linux does), a VXLAN interface's
    taken by the bridge it is in (a bridge's MTU is its members' smallest,
    not set), bad values refused by name, and nothing changed by a refusal."""
    d = nfvd()
    build_topology(d, {})
    d.cmd("vlan add p3.10 dev p3 id 10",
          "vxlan add vx0 vni 100 local 10.1.0.254 remote 10.1.0.1",
          "bridge add br0", "bridge port add br0 dev p1", "bridge port add br0 dev vx0")
    d.start()

    def mtus():
        return {r["name"]: r["mtu"] for r in d.ctl("port", "show")["ports"]
                if r["name"] in ("p1", "p3", "p3.10", "vx0", "br0")}

    assert mtus() == {"p1": 1500, "p3": 1500, "p3.10": 1500, "vx0": 1450, "br0": 1450}
    d.ctl("port", "set", "p3.10", "mtu", "1400")
    d.ctl("port", "set", "p3", "mtu", "1300")     # the VLAN comes down with it
    d.ctl("port", "set", "p3", "mtu", "1500")     # and stays there
    d.ctl("port", "set", "vx0", "mtu", "8950")    # a jumbo underlay's
    assert mtus() == {"p1": 1500, "p3": 1500, "p3.10": 1300, "vx0": 8950, "br0": 1500}
    d.ctl("port", "set", "p1", "mtu", "1280")
    assert mtus()["br0"] == 1280
    for words, msg in [
            (("p3.10", "mtu", "1501"), "mtu 1501 exceeds p3's (1500)"),
            (("br0", "mtu", "1400"), "br0 is a bridge: its MTU is its members' smallest"),
            (("p1", "mtu", "67"), "bad mtu '67' (expected 68-16000)"),
            (("vx0", "mtu", "65486"), "bad mtu '65486' (expected 68-65485)"),
            (("p1", "mtu", "9000"), "mtu 9000: port p1's buffers hold frames of 2048 bytes "
                                    "(MTU 2026 at most): give it at port add"),
            (("p1", "mtu"), "missing value after 'mtu'"),
            (("p1", "sideways"), "unexpected 'sideways' (expected up, down, vrf or mtu)"),
            (("nope", "mtu", "1400"), "unknown port 'nope'")]:
        with pytest.raises(nfvdlib.CtlError) as e:
            d.ctl("port", "set", *words)
        assert msg in str(e.value), (words, str(e.value))
    assert mtus() == {"p1": 1280, "p3": 1500, "p3.10": 1300, "vx0": 8950, "br0": 1280}
    d.stop()


def test_port_set_mtu_device(nfvd):
    """On a device that has an MTU (net_tap: the kernel's tap interface),
    port set NAME mtu N sets the device's: the kernel shows it; one the
    device refuses is refused with the device's range, and the MTU stays."""
    import subprocess
    ifname = "nfvmtu%d" % (os.getpid() % 10000)
    d = nfvd()
    d.cmd("port add t0 dev net_tap0,iface=%s" % ifname)
    d.start()

    def kernel_mtu():
        out = subprocess.run(["ip", "-o", "link", "show", ifname], capture_output=True,
                             text=True, check=True).stdout
        return int(out.split(" mtu ")[1].split()[0])

    d.ctl("port", "set", "t0", "mtu", "1400")
    assert kernel_mtu() == 1400
    with pytest.raises(nfvdlib.CtlError) as e:
        d.ctl("port", "set", "t0", "mtu", "1505")
    assert "mtu 1505: device net_tap0 refused it (Invalid argument); range 46-1504" in \
        str(e.value), str(e.value)
    assert kernel_mtu() == 1400
    assert [r["mtu"] for r in d.ctl("port", "show")["ports"] if r["name"] == "t0"] == [1400]
    d.stop()


# Frames longer than the ingress MTU and than an mbuf's data room (2048 bytes)
# arrive as chains of segments on net_pcap. Each must be counted under its
# reason and freed whole (every segment back in the pool). Whether nfvd answers
# such an oversize frame with an ICMP error or not (icmp "not_allowed": the
# packet is not contiguous) is left open; an error it sends must be exact.
CASES_JUMBO = [
    Case("DF, 4000 bytes (2 mbufs), mtu 1500: fragmentation needed", "p0",
         E / ip("198.51.100.7", id=140, flags="DF") / UDP() / pad(3972, b"j140"),
         err4("ip4_rewrite/frag_needed", 3, 4, mtu=1500)),
    Case("no DF, 4000 bytes (2 mbufs), mtu 1500: three fragments", "p0",
         E / ip("198.51.100.8", id=141) / UDP() / pad(3972, b"j141"),
         frag4("p1", R1, P1, 1500, 3)),
    Case("no DF, 4000 bytes, p2's mtu 3000: two fragments that fit the 2048-byte mbufs of "
         "the packet's pool (IP packets of 2028 and 1992 bytes)", "p0",
         E / ip("198.51.100.140", id=145) / UDP() / pad(3972, b"j145"),
         frag4("p2", R2, P2, 2048 - 14, 2)),
    Case("v6 5000 bytes (3 mbufs), mtu 1500: packet too big", "p0",
         E / ip6("2001:db8:100::7") / UDP() / pad(4952, b"j142"),
         err6("ip6_rewrite/packet_too_big", ICMPv6PacketTooBig(mtu=1500))),
    Case("v4 TTL 1, 3000 bytes: time exceeded", "p0",
         E / ip("198.51.100.9", id=143, ttl=1) / UDP() / pad(2972, b"j143"),
         err4("ip4_rewrite/ttl_expired", 11, 0)),
    Case("v4 no route, 3000 bytes: net unreachable", "p0",
         E / ip("8.8.8.8", id=144) / UDP() / pad(2972, b"j144"),
         err4("ip4_lookup/no_route", 3, 0)),
    Case("v6 hop limit 1, 3000 bytes: time exceeded", "p0",
         E / ip6("2001:db8:100::8", hlim=1) / UDP() / pad(2952, b"j145"),
         err6("ip6_rewrite/hop_limit_expired", ICMPv6TimeExceeded(code=0))),
]


def test_frames_longer_than_an_mbuf(nfvd):
    inputs = {"p0": [c.frame for c in CASES_JUMBO]}
    d = nfvd()
    build_topology(d, inputs, p2_mtu=3000)
    d.start()
    st = d.wait_processed({"p0": len(CASES_JUMBO)})
    assert st["tables"]["mbufs_in_use"] == 0
    outputs = d.stop()
    want_drops = Counter(r for c in CASES_JUMBO for r in c.verdict.drops)
    assert nfvdlib.drops(st) == want_drops
    assert st["packets"]["received"] == len(CASES_JUMBO)
    assert nfvdlib.balance(st) == 0
    for fam in ("icmp", "icmp6"):
        n = sum(c.verdict.counters["%s.errors_sent" % fam] for c in CASES_JUMBO)
        assert st[fam]["errors_sent"] + st[fam]["not_allowed"] == n, st[fam]
    possible = {b for c in CASES_JUMBO for _port, b, _pkt in c.expected_outputs()}
    assert all(f in possible for f in outputs["p0"]), "an ICMP error that is not exact"
    assert len(outputs["p0"]) == st["icmp"]["errors_sent"] + st["icmp6"]["errors_sent"]
    assert sum(len(o) for o in outputs.values()) == st["packets"]["forwarded"]
    # The fragments, byte for byte and in order.
    for port in ("p1", "p2"):
        assert outputs[port] == [b for c in CASES_JUMBO for p, b, _pkt in c.expected_outputs()
                                 if p == port], port
    assert (st["ip4"]["fragmented"], st["ip4"]["fragments"]) == (2, 5), st["ip4"]


def test_icmp_rate_limit(nfvd):
    """1000 errors a second per worker and family, bursts of 100: a quick burst of
    300 TTL-expired packets gets about 100 answers; every packet is still counted
    as ttl_expired, each either answered or rate limited, and every answer sent
    is on the wire."""
    n = 300
    frames4 = [E / ip("198.51.100.%d" % (i % 100 + 1), id=i, ttl=1) / UDP(sport=i) / Raw(b"r")
               for i in range(n)]
    frames6 = [E / ip6("2001:db8:100::%x" % (i + 1), hlim=1) / UDP(sport=i) / Raw(b"r")
               for i in range(n)]
    d = nfvd()
    build_topology(d, {"p0": frames4 + frames6})
    d.start()
    st = d.wait_processed({"p0": 2 * n})
    outputs = d.stop()
    assert nfvdlib.drops(st) == {"ip4_rewrite/ttl_expired": n, "ip6_rewrite/hop_limit_expired": n}
    for fam in ("icmp", "icmp6"):
        c = st[fam]
        assert c["errors_sent"] + c["rate_limited"] == n, c
        # The bucket holds 100 and refills at 1/ms; the burst takes a few ms of
        # worker time (more if the worker is preempted: keep a margin of 50 ms).
        assert 100 <= c["errors_sent"] <= 150, c
        assert (c["no_source_address"], c["not_allowed"], c["echo_replies"]) == (0, 0, 0)
    sent4 = [f for f in outputs["p0"] if f[12:14] == b"\x08\x00"]
    sent6 = [f for f in outputs["p0"] if f[12:14] == b"\x86\xdd"]
    assert len(sent4) == st["icmp"]["errors_sent"]
    assert len(sent6) == st["icmp6"]["errors_sent"]
    assert len(outputs["p0"]) == len(sent4) + len(sent6)
    assert st["packets"]["forwarded"] == len(outputs["p0"])
    assert nfvdlib.balance(st) == 0
    assert st["tables"]["mbufs_in_use"] == 0
    # Errors go out in arrival order: the first ones answered are the first packets.
    assert all(Ether(f)[ICMP].type == 11 for f in sent4)
    assert bytes(Ether(sent4[0])[ICMP].payload) == bytes(frames4[0][IP])


def test_icmpv6_errors_never_come_from_a_link_local_address(nfvd):
    """A port whose first IPv6 address is link-local sources its ICMPv6 errors
    from its global one (RFC 4443 2.2 c): an error from fe80::/10 to a global
    address would be dropped by the first router on the way back."""
    cases = [Case("v6 hop limit 1 on a port with fe80::fe before its global address", "p0",
                  E / ip6("2001:db8:100::9", hlim=1) / UDP() / Raw(b"ll1"),
                  err6("ip6_rewrite/hop_limit_expired", ICMPv6TimeExceeded(code=0)))]
    d = nfvd()
    build_topology(d, {"p0": [c.frame for c in cases]})
    d.cmd("addr del 2001:db8:a::fe/64 dev p0", "addr add fe80::fe/64 dev p0",
          "addr add 2001:db8:a::fe/64 dev p0")
    d.start()
    st = d.wait_processed({"p0": len(cases)})
    outputs = d.stop()
    problems = check_outputs(cases, outputs) + check_counters(cases, st, ["p0", "p1", "p2"])
    assert not problems, "\n".join(problems)
