# SPDX-License-Identifier: BSD-3-Clause
"""
Reassembly of the datagrams addressed to nfvd (modules/ip/reasm.h,
rte_ip_frag): ICMP echo requests and UDP datagrams cut by scapy's
fragment() / fragment6(), sent in order, in reverse and interleaved, are
answered (or dropped) as the whole datagram would be, byte for byte; an
echo reply larger than the MTU leaves in fragments. Fragments that cannot
be reassembled are dropped under reassembly_failed, those whose datagram
never completes under reassembly_timeout once --reassembly-timeout has
passed, and every mbuf comes back.
"""
import os
import time
import urllib.request
from collections import Counter

from scapy.layers.inet import ICMP, IP, TCP, UDP, fragment
from scapy.layers.inet6 import (ICMPv6EchoReply, ICMPv6EchoRequest, IPv6, IPv6ExtHdrFragment,
                                fragment6)
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import nfvdlib
from topo import BACK, H0, P0, build_topology, echo_reply4, echo_reply6, pad

ME4, ME6 = "10.0.0.254", "2001:db8:a::fe"


def eth(pkt):
    return Ether(dst=P0, src=H0) / pkt


def echo4(ident, size, fragsize):
    """(the whole request as a frame, its fragments as frames)."""
    pkt = IP(src="10.0.0.1", dst=ME4, id=ident) / ICMP(type=8, id=ident, seq=1) / \
        pad(size, b"ping%d" % ident)
    return eth(pkt), [eth(f) for f in fragment(pkt, fragsize=fragsize)]


def echo6(ident, size, fragsize):
    body = ICMPv6EchoRequest(id=ident, seq=1, data=bytes(pad(size, b"ping6-%d" % ident)))
    whole = IPv6(src="2001:db8:a::1", dst=ME6) / body
    frags = fragment6(IPv6(src="2001:db8:a::1", dst=ME6) / IPv6ExtHdrFragment(id=ident) / body,
                      fragsize)
    return eth(whole), [eth(f) for f in frags]


def reply4_fragments(whole, mtu=1500):
    """nfvd's echo reply to whole, cut by nfvd to fit mtu, as scapy cuts it."""
    reply = echo_reply4(whole, BACK["p0"])
    ip = IP(bytes(reply[IP]))
    _port, dmac, smac = BACK["p0"]
    return [bytes(Ether(dst=dmac, src=smac) / IP(bytes(f)))
            for f in fragment(ip, fragsize=(mtu - 20) // 8 * 8)]


def reply6_fragments(whole, ident, mtu=1500):
    """nfvd's echo reply to whole, which it cuts itself (RFC 8200 4.5),
    as scapy's fragment6() cuts it with the identification nfvd chose."""
    reply = echo_reply6(whole, BACK["p0"])
    ip = IPv6(bytes(reply[IPv6]))
    body = ip.payload
    ip.remove_payload()
    del ip.nh, ip.plen   # scapy's own, for the fragment header
    _port, dmac, smac = BACK["p0"]
    return [bytes(Ether(dst=dmac, src=smac) / IPv6(bytes(f)))
            for f in fragment6(ip / IPv6ExtHdrFragment(id=ident) / body, mtu)]


def wait_for(nfvd, pred, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        st = nfvd.stats()
        if pred(st):
            return st
        assert time.monotonic() < deadline, "not reached in %.0f s:\n%s" % (timeout, st)
        time.sleep(0.02)


def test_datagrams_for_nfvd_reassembled(nfvd):
    # A: 3,028 bytes in three fragments, in order; its reply is cut again.
    whole_a, frags_a = echo4(0x101, 3000, 1480)
    # B: in reverse order; its reply fits the MTU.
    whole_b, frags_b = echo4(0x102, 1000, 512)
    # C and D: interleaved, fragment by fragment.
    whole_c, frags_c = echo4(0x103, 900, 256)
    whole_d, frags_d = echo4(0x104, 700, 256)
    inter = [f for pair in zip(frags_c, frags_d) for f in pair] + \
        frags_c[len(frags_d):] + frags_d[len(frags_c):]
    # E: UDP to a port nobody serves: reassembled, then dropped whole.
    udp = IP(src="10.0.0.1", dst=ME4, id=0x105) / UDP(sport=5000, dport=9999) / \
        pad(2000, b"udp")
    frags_e = [eth(f) for f in fragment(udp, fragsize=1480)]
    # F: TCP: not reassembled, each fragment unsupported as before.
    tcp = IP(src="10.0.0.1", dst=ME4, id=0x106) / TCP(sport=5000, dport=179) / pad(1600, b"tcp")
    frags_f = [eth(f) for f in fragment(tcp, fragsize=1480)]
    # IPv6: G in reverse order (its reply fits), H UDP to a port nobody serves.
    whole_g, frags_g = echo6(0x201, 1400, 1280)
    udp6 = IPv6(src="2001:db8:a::1", dst=ME6) / IPv6ExtHdrFragment(id=0x202) / \
        UDP(sport=5000, dport=9999) / pad(1600, b"udp6")
    frags_h = [eth(f) for f in fragment6(udp6, 1280)]
    assert (len(frags_a), len(frags_b), len(frags_c), len(frags_d), len(frags_e),
            len(frags_f), len(frags_g), len(frags_h)) == (3, 2, 4, 3, 2, 2, 2, 2)

    inputs = frags_a + frags_b[::-1] + inter + frags_e + frags_f + frags_g[::-1] + frags_h
    d = nfvd()
    build_topology(d, {"p0": inputs})
    d.start()
    st = d.wait_processed({"p0": len(inputs)})
    outputs = d.stop()

    want = reply4_fragments(whole_a) + [
        bytes(echo_reply4(w, BACK["p0"])) for w in (whole_b, whole_c, whole_d)] + [
        bytes(echo_reply6(whole_g, BACK["p0"]))]
    # Each answer when its datagram completes (D before C), the fragments
    # of A's by ip4_frag after the walk's other answers: the same frames,
    # A's fragments in order.
    assert sorted(outputs["p0"]) == sorted(want)
    a_frags = want[:3]
    assert [o for o in outputs["p0"] if o in a_frags] == a_frags
    assert len(want) == 3 + 3 + 1
    assert all(outputs[p] == [] for p in ("p1", "p2", "p3"))
    assert nfvdlib.drops(st) == Counter({"ip4_local/unsupported_protocol": 1 + 2,
                                         "ip6_local/unsupported_protocol": 1})
    assert (st["ip4"]["reassembled"], st["ip4"]["reassembled_fragments"]) == (5, 3 + 2 + 4 + 3 + 2)
    assert (st["ip6"]["reassembled"], st["ip6"]["reassembled_fragments"]) == (2, 4)
    assert (st["ip4"]["fragmented"], st["ip4"]["fragments"]) == (1, 3)
    assert (st["icmp"]["echo_replies"], st["icmp6"]["echo_replies"]) == (4, 1)
    assert st["tables"]["reassembly_held"] == 0
    assert st["packets"]["forwarded"] == len(want)
    assert nfvdlib.balance(st) == 0


def test_fragments_that_fail_or_time_out(nfvd):
    # Nine fragments of one datagram (rte_ip_frag holds eight): the eighth
    # fails with the seven held before it; the ninth waits and times out.
    _w, nine = echo4(0x301, 568, 64)
    # The first fragment of a datagram whose rest never comes.
    _w, lone = echo4(0x302, 1000, 512)
    # A fragment with more to come whose data is not a multiple of 8 bytes.
    odd = IP(src="10.0.0.1", dst=ME4, id=0x303, flags="MF", proto=17) / Raw(b"x" * 100)
    # IPv6: the first fragment only.
    _w, lone6 = echo6(0x304, 1400, 1280)
    assert (len(nine), len(lone), len(lone6)) == (9, 2, 2)
    inputs = nine + lone[:1] + [eth(odd)] + lone6[:1]

    d = nfvd()
    d.extra_args += ["--reassembly-timeout", "1"]
    build_topology(d, {"p0": inputs})
    d.start()
    st = wait_for(d, lambda s: d.port_stats(s)["p0"]["rx_packets"] == len(inputs) and
                  s["tables"]["reassembly_held"] == 3)
    t_held = time.monotonic()
    assert nfvdlib.drops(st) == Counter({"ip4_local/reassembly_failed": 8 + 1})
    assert st["tables"]["mbufs_in_use"] == 3
    st = wait_for(d, lambda s: s["tables"]["reassembly_held"] == 0 and
                  s["tables"]["mbufs_in_use"] == 0)
    assert time.monotonic() - t_held > 0.5, "timed out before --reassembly-timeout"
    outputs = d.stop()
    assert nfvdlib.drops(st) == Counter({"ip4_local/reassembly_failed": 9,
                                         "ip4_local/reassembly_timeout": 2,
                                         "ip6_local/reassembly_timeout": 1})
    assert (st["ip4"]["reassembled"], st["ip6"]["reassembled"]) == (0, 0)
    assert st["packets"]["forwarded"] == 0
    assert all(o == [] for o in outputs.values())
    assert nfvdlib.balance(st) == 0


def test_reassembly_options_checked(nfvd):
    for bad in (["--reassembly-timeout", "0"], ["--reassembly-timeout", "x"],
                ["--reassembly-max", "8"]):
        d = nfvd()
        d.extra_args += bad
        build_topology(d, {})
        try:
            d.start(timeout=20)
        except AssertionError as e:
            assert bad[0] in str(e), str(e)
        else:
            raise AssertionError("nfvd started with %s" % bad)


def test_held_fragments_given_back_at_exit(nfvd):
    """nfvd stopped while it holds fragments (30 s to go): exit 0, every
    mbuf back in its pool (Nfvd.stop checks both); meanwhile its counters,
    in show stats and Prometheus, count them held."""
    _w, lone = echo4(0x401, 1000, 512)
    _w, lone6 = echo6(0x402, 1400, 1280)
    whole, frags = echo4(0x403, 1000, 512)
    port = 19600 + os.getpid() % 300
    d = nfvd()
    d.extra_args += ["--metrics", "127.0.0.1:%d" % port]
    build_topology(d, {"p0": lone[:1] + lone6[:1] + frags})
    d.start()
    st = wait_for(d, lambda s: s["tables"]["reassembly_held"] == 2 and
                  s["packets"]["forwarded"] == 1)
    assert st["tables"]["mbufs_in_use"] == 2
    assert nfvdlib.drops(st) == Counter()
    assert nfvdlib.balance(st) == 0
    # The same in Prometheus.
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
        text = r.read().decode()
    for line in ("nfvd_ip_reassembly_held 2", 'nfvd_ip_reassembled_total{family="ipv4"} 1',
                 'nfvd_ip_reassembled_total{family="ipv6"} 0',
                 'nfvd_ip_reassembled_fragments_total{family="ipv4"} 2',
                 "# TYPE nfvd_ip_reassembly_held gauge"):
        assert line in text.splitlines(), line
    outputs = d.stop()
    assert outputs["p0"] == [bytes(echo_reply4(whole, BACK["p0"]))]


def test_own_ipv6_packets_fragmented(nfvd):
    """A 3,048-byte ICMPv6 echo request (three fragments of 1,280 bytes),
    reassembled; nfvd's 3,048-byte reply is over the MTU: as its source,
    nfvd cuts it (RFC 8200 4.5), three fragments of one random
    identification, byte for byte as scapy's fragment6() cuts it. A
    forwarded packet over the MTU still gets packet too big."""
    whole, frags = echo6(0x501, 3000, 1280)
    assert len(frags) == 3
    d = nfvd()
    build_topology(d, {"p0": frags})
    d.start()
    st = d.wait_processed({"p0": len(frags)})
    outputs = d.stop()
    out = outputs["p0"]
    assert len(out) == 3
    ident = IPv6(out[0][14:])[IPv6ExtHdrFragment].id
    assert out == reply6_fragments(whole, ident)
    assert (st["ip6"]["fragmented"], st["ip6"]["fragments"]) == (1, 3)
    assert (st["ip6"]["reassembled"], st["ip6"]["reassembled_fragments"]) == (1, 3)
    assert st["icmp6"]["echo_replies"] == 1 and st["icmp6"]["errors_sent"] == 0
    assert nfvdlib.drops(st) == Counter()
    assert st["packets"]["forwarded"] == 3
    assert nfvdlib.balance(st) == 0


def test_hostile_fragments(nfvd):
    """Fragments built to break a reassembler: a first fragment twice,
    overlapping fragments, a datagram past 65,535 bytes, empty fragments,
    an IPv6 atomic fragment (RFC 6946: a datagram of its own), first
    fragments of more datagrams than the table holds. nfvd stays up; each
    fragment is answered, held or dropped under a named reason; every mbuf
    comes back once the timeout has passed."""
    def f4(ident, off, mf, data, proto=1):
        return eth(IP(src="10.0.0.1", dst=ME4, id=ident, proto=proto, frag=off // 8,
                      flags="MF" if mf else 0) / Raw(data))

    # The first fragment twice: rte_ip_frag fails the datagram (both
    # firsts); the last one then starts another, which times out.
    _whole, good = echo4(0x601, 2000, 1024)
    dup = [good[0], good[0], good[1]]
    # Overlapping (0-64 with more, 32-96 the last): never complete: timeout.
    over = [f4(0x602, 0, True, b"a" * 64), f4(0x602, 32, False, b"b" * 64)]
    # Past 65,535 bytes; no data (with more to come, and the last): failed.
    bad = [f4(0x603, 65528, False, b"c" * 64), f4(0x604, 0, True, b""),
           f4(0x605, 64, False, b"")]
    body = ICMPv6EchoRequest(id=0x606, seq=1, data=b"atomic")
    atomic = eth(IPv6(src="2001:db8:a::1", dst=ME6) / IPv6ExtHdrFragment(id=0x606, offset=0, m=0)
                 / body)
    # 40 datagrams' first fragments; the table takes 32 datagrams at most
    # (fewer when its buckets fill): the others failed.
    many = [f4(0x700 + i, 0, True, b"m" * 64) for i in range(40)]
    inputs = dup + over + bad + [atomic] + many
    d = nfvd()
    d.extra_args += ["--reassembly-timeout", "1", "--reassembly-max", "32"]
    build_topology(d, {"p0": inputs})
    d.start()
    st = wait_for(d, lambda s: d.port_stats(s)["p0"]["rx_packets"] == len(inputs) and
                  s["tables"]["mbufs_in_use"] == s["tables"]["reassembly_held"])
    held_many = st["tables"]["reassembly_held"] - 1 - 2
    assert 16 <= held_many <= 32, st["tables"]
    st = wait_for(d, lambda s: s["tables"]["reassembly_held"] == 0 and
                  s["tables"]["mbufs_in_use"] == 0)
    outputs = d.stop()
    want6 = bytes(echo_reply6(eth(IPv6(src="2001:db8:a::1", dst=ME6) / body), BACK["p0"]))
    assert outputs["p0"] == [want6]
    assert nfvdlib.drops(st) == Counter({
        "ip4_local/reassembly_failed": 2 + 3 + (40 - held_many),
        "ip4_local/reassembly_timeout": 1 + 2 + held_many})
    assert (st["ip4"]["reassembled"], st["ip6"]["reassembled"]) == (0, 1)
    assert st["ip6"]["reassembled_fragments"] == 1
    assert nfvdlib.balance(st) == 0
