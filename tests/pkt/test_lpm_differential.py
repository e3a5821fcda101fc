# SPDX-License-Identifier: BSD-3-Clause
"""
Differential test of the IPv4 and IPv6 forwarding path against a reference
longest-prefix match written here.

Thousands of random, overlapping IPv4 and IPv6 prefixes (gateways on three
egress ports, some unresolved, blackholes, connected "dev" routes, ECMP
groups) are loaded with "route load" and "route add"; thousands of packets
with random destinations (inside prefixes, on their first and last address,
in the connected subnets, unrouted) go through nfvd. For every packet the
reference says: forwarded (egress port, destination MAC, source MAC,
TTL / hop limit - 1, IPv4 header checksum recomputed here), forwarded by
one of the members of an ECMP group that have a neighbor (which one is
nfvd's choice: the frame must be exactly what one of them would send), or
dropped under a reason; every output frame is compared byte for byte and
every counter exactly (a port's tx count: the frames found on it). Twice
more, a third of the routes are deleted, new ones loaded, neighbors
removed, added and replaced, default routes (one of them ECMP)
added and then deleted, and a new batch of packets is checked against the
updated reference (delete paths, tbl8 recycling, next-hop republishing).

The ingress ports have no address, so no ICMP error is ever sent (the ICMP
rate limit would make the counts inexact): packets that would get one are
counted as icmp.no_source_address. SEED fixes the whole run.

The run is made twice: with the fused ip4_fast and ip6_fast nodes (the
default: eth_input splits each burst of IPv4 and IPv6 frames between them,
and they hand every packet they do not forward to the node chain) and with
"debug fastpath off", through the node chain alone. Both runs send the same
packets in the same order, IPv4 and IPv6 mixed within the bursts.
"""
import ipaddress
import random
from collections import Counter

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import checksum

import pytest

import nfvdlib

SEED = 20240611
EGRESS = ["p1", "p2", "p3"]
N_ROUTES4, N_ROUTES6 = 3000, 1500
N_PKTS4, N_PKTS6 = (2500, 1500, 1000), (1500, 1000, 600)   # per phase

LOCAL, CONNECTED, STATIC, NEIGH = range(4)      # route sources, best first


def port_num(port):
    return int(port[1:])


def gw4(port, k):
    return "10.%d.0.%d" % (port_num(port), k)


def gw6(port, k):
    return "2001:db8:%d::%x" % (port_num(port), k)


def nmac(port, k, gen=0):
    return "02:00:%02x:%02x:00:%02x" % (gen, port_num(port), k)


class Ref:
    """The reference: routes of one family by source, neighbors, addresses."""

    def __init__(self, bits):
        self.bits = bits
        self.routes = {}      # (net, len) -> {source: action}
        self.neigh = {}       # (gw int, port) -> mac
        self.lengths = set()

    def mask(self, plen):
        return ((1 << plen) - 1) << (self.bits - plen) if plen else 0

    def set(self, net, plen, source, action):
        self.routes.setdefault((net, plen), {})[source] = action
        self.lengths.add(plen)

    def clear(self, net, plen, source):
        r = self.routes.get((net, plen))
        if r is not None:
            r.pop(source, None)
            if not r:
                del self.routes[(net, plen)]

    def best(self, key):
        r = self.routes.get(key)
        return r[min(r)] if r else None

    def lookup(self, addr):
        for plen in sorted(self.lengths, reverse=True):
            a = self.best((addr & self.mask(plen), plen))
            if a is not None:
                return a
        return None

    def count(self):
        return len(self.routes)


class Topo:
    """Egress ports p1..p3 with addresses and neighbors, the ingress ports
    without address (so ICMP errors are never sent: counted as no source)."""

    def __init__(self):
        self.r4, self.r6 = Ref(32), Ref(128)
        self.port_mac = {}
        self.static4, self.static6 = {}, {}   # prefix string -> action (for deletes)
        for p in EGRESS:
            n = port_num(p)
            self.r4.set(int(ipaddress.IPv4Address("10.%d.0.254" % n)), 32, LOCAL, ("local",))
            self.r4.set(int(ipaddress.IPv4Address("10.%d.0.0" % n)), 24, CONNECTED, ("conn", p))
            self.r6.set(int(ipaddress.IPv6Address("2001:db8:%d::fe" % n)), 128, LOCAL, ("local",))
            self.r6.set(int(ipaddress.IPv6Address("2001:db8:%d::" % n)), 64, CONNECTED,
                        ("conn", p))

    def config(self):
        # Static neighbors only: a next hop without one drops (no ARP/NS sent).
        lines = ["neigh set resolve off"]
        for p in EGRESS:
            n = port_num(p)
            lines += ["addr add 10.%d.0.254/24 dev %s" % (n, p),
                      "addr add 2001:db8:%d::fe/64 dev %s" % (n, p)]
            for k in (1, 2, 3, 4):
                lines += self.neigh_add(p, k)
        return lines

    def neigh_add(self, port, k, gen=0):
        mac = nmac(port, k, gen)
        for ref, gw in ((self.r4, gw4(port, k)), (self.r6, gw6(port, k))):
            ip = int(ipaddress.ip_address(gw))
            ref.neigh[(ip, port)] = mac
            ref.set(ip, ref.bits, NEIGH, ("gw", [(ip, port)]))
        return ["neigh add %s lladdr %s dev %s" % (gw4(port, k), mac, port),
                "neigh add %s lladdr %s dev %s" % (gw6(port, k), mac, port)]

    def neigh_del(self, port, k):
        for ref, gw in ((self.r4, gw4(port, k)), (self.r6, gw6(port, k))):
            ip = int(ipaddress.ip_address(gw))
            del ref.neigh[(ip, port)]
            ref.clear(ip, ref.bits, NEIGH)
        return ["neigh del %s dev %s" % (gw4(port, k), port),
                "neigh del %s dev %s" % (gw6(port, k), port)]


# ---- random routes -----------------------------------------------------------------------------

def rand_prefix4(rng, parents):
    if parents and rng.random() < 0.45:
        net, plen = rng.choice(parents)
        if plen < 32:
            clen = rng.randint(plen + 1, min(32, plen + 10))
            net |= rng.getrandbits(32) & ((1 << (32 - plen)) - 1)
            return net & (((1 << clen) - 1) << (32 - clen)), clen
    plen = rng.choice([8, 12, 15, 16, 16, 18, 20, 22, 23, 24, 24, 24, 25, 26, 27, 28, 29, 30, 31,
                       32, 32])
    while True:
        a = rng.getrandbits(32)
        if (a >> 24) not in (0, 10, 127) and (a >> 24) < 224:
            return a & (((1 << plen) - 1) << (32 - plen)), plen


def rand_prefix6(rng, parents):
    if parents and rng.random() < 0.45:
        net, plen = rng.choice(parents)
        if plen < 128:
            clen = rng.randint(plen + 1, min(128, plen + 24))
            net |= rng.getrandbits(128) & ((1 << (128 - plen)) - 1)
            return net & (((1 << clen) - 1) << (128 - clen)), clen
    plen = rng.choice([16, 24, 29, 32, 33, 40, 44, 48, 48, 48, 52, 56, 57, 60, 63, 64, 64, 64,
                       65, 72, 80, 96, 112, 120, 127, 128, 128])
    a = (1 << 125) | rng.getrandbits(125)    # 2000::/3
    return a & (((1 << plen) - 1) << (128 - plen)), plen


def pstr(net, plen, bits):
    return "%s/%d" % (ipaddress.ip_address(net) if bits == 128 else ipaddress.IPv4Address(net),
                      plen)


def make_routes(rng, topo, fam, n, avoid):
    """n new static routes: (file lines for route load, lines for route add)."""
    ref = topo.r4 if fam == 4 else topo.r6
    gw = gw4 if fam == 4 else gw6
    static = topo.static4 if fam == 4 else topo.static6
    gen = rand_prefix4 if fam == 4 else rand_prefix6
    parents = list(avoid)
    load, add = [], []
    while len(load) + len(add) < n:
        net, plen = gen(rng, parents)
        if (net, plen) in avoid or (net, plen) in ref.routes:
            continue
        avoid.add((net, plen))
        parents.append((net, plen))
        p = pstr(net, plen, ref.bits)
        x = rng.random()
        port = rng.choice(EGRESS)
        k = rng.choice([1, 2, 3, 4, 1, 2, 3, 9])        # 9: never a neighbor
        ip = lambda pt, kk: int(ipaddress.ip_address(gw(pt, kk)))  # noqa: E731
        if x < 0.06:
            action, line, dest = ("bh",), "%s blackhole" % p, load
        elif x < 0.60:
            action, line, dest = ("gw", [(ip(port, k), port)]), "%s via %s" % (p, gw(port, k)), load
        elif x < 0.85:
            # explicit port; sometimes not the gateway's own link (then never resolved)
            out = port if rng.random() < 0.85 else rng.choice(EGRESS)
            action = ("gw", [(ip(port, k), out)])
            line, dest = "%s via %s dev %s" % (p, gw(port, k), out), load
        elif x < 0.92:
            action, line, dest = ("conn", port), "route add %s dev %s" % (p, port), add
        elif x < 0.96:
            members, words = [], []
            for _ in range(rng.choice([2, 2, 3, 4, 8, 12])):
                pt, kk = rng.choice(EGRESS), rng.choice([1, 2, 3, 4])
                if (ip(pt, kk), pt) in members:
                    continue
                members.append((ip(pt, kk), pt))
                words.append("via %s" % gw(pt, kk))
            action, line, dest = ("gw", members), "route add %s %s" % (p, " ".join(words)), add
        else:
            action, line, dest = (("gw", [(ip(port, k), port)]),
                                  "route add %s via %s dev %s" % (p, gw(port, k), port), add)
        ref.set(net, plen, STATIC, action)
        static[p] = (net, plen)
        dest.append(line)
    return load, add


# ---- packets -------------------------------------------------------------------------------------

def rand_dest(rng, ref, statics):
    x = rng.random()
    bits = ref.bits
    if x < 0.62 and statics:
        net, plen = rng.choice(statics)
        return net | (rng.getrandbits(bits) & ((1 << (bits - plen)) - 1))
    if x < 0.80 and statics:                       # first or last address of a prefix
        net, plen = rng.choice(statics)
        return net if rng.random() < 0.5 else net | ((1 << (bits - plen)) - 1)
    if x < 0.88:                                   # connected subnets, locals, neighbors
        n = rng.randint(1, 3)
        host = rng.choice([1, 2, 3, 4, 5, 9, 0xFE, 0x77])
        if bits == 32:
            return int(ipaddress.IPv4Address("10.%d.0.%d" % (n, host)))
        return int(ipaddress.IPv6Address("2001:db8:%d::%x" % (n, host)))
    while True:                                    # anywhere (mostly unrouted)
        if bits == 32:
            a = rng.getrandbits(32)
            if (a >> 24) not in (0, 127) and (a >> 24) < 224:
                return a
        else:
            return (1 << 125) | rng.getrandbits(125)


def make_packets(rng, topo, fam, n, first_seq, in_mac):
    ref = topo.r4 if fam == 4 else topo.r6
    statics = list((topo.static4 if fam == 4 else topo.static6).values())
    frames = []
    for i in range(n):
        seq = first_seq + i
        dst = rand_dest(rng, ref, statics)
        ttl = 1 if rng.random() < 0.03 else rng.choice([0, 2]) if rng.random() < 0.02 \
            else rng.randint(2, 255)
        payload = Raw(b"#%08d" % seq)
        l4 = UDP(sport=rng.randint(1, 65535), dport=rng.randint(1, 65535))
        if fam == 4:
            src = "100.%d.%d.%d" % (rng.randint(64, 127), rng.randint(0, 255), rng.randint(1, 254))
            l3 = IP(src=src, dst=str(ipaddress.IPv4Address(dst)), ttl=ttl,
                    id=rng.getrandbits(16), tos=rng.choice([0, 0, 0x10, 0xB8]),
                    flags=rng.choice([0, 2]))
        else:
            l3 = IPv6(src="2001:db8:ffff::%x" % rng.randint(1, 0xFFFF),
                      dst=str(ipaddress.IPv6Address(dst)), hlim=ttl,
                      fl=rng.getrandbits(20), tc=rng.choice([0, 0, 0xB8]))
        frames.append((seq, bytes(Ether(dst=in_mac, src="02:00:00:00:ff:01") / l3 / l4 / payload)))
    return frames


def forwarded(topo, fam, frame, gw, port):
    """frame as sent to gateway gw on port, or None when gw has no neighbor."""
    ref = topo.r4 if fam == 4 else topo.r6
    mac = ref.neigh.get((gw, port))
    if mac is None:
        return None
    l3 = frame[14:]
    eth = bytes.fromhex(mac.replace(":", "")) + bytes.fromhex(
        topo.port_mac[port].replace(":", "")) + frame[12:14]
    if fam == 4:
        hdr = bytearray(l3[:20])
        hdr[8] -= 1
        hdr[10:12] = b"\0\0"
        hdr[10:12] = checksum(bytes(hdr)).to_bytes(2, "big")  # scapy's, from scratch
        return eth + bytes(hdr) + l3[20:]
    hdr = bytearray(l3[:40])
    hdr[7] -= 1
    return eth + bytes(hdr) + l3[40:]


def expect(topo, fam, frame):
    """The reference verdict: ("fwd", [(port, expected bytes)]): forwarded as one
    of these (one entry, or one per ECMP member with a neighbor), or
    ("drop", reason)."""
    ref = topo.r4 if fam == 4 else topo.r6
    node = "ip4" if fam == 4 else "ip6"
    l3 = frame[14:]
    if fam == 4:
        dst, ttl = int.from_bytes(l3[16:20], "big"), l3[8]
    else:
        dst, ttl = int.from_bytes(l3[24:40], "big"), l3[7]
    a = ref.lookup(dst)
    if a is None:
        return ("drop", "%s_lookup/no_route" % node)
    if a[0] == "local":
        return ("drop", "%s_local/unsupported_protocol" % node)
    if a[0] == "bh":
        return ("drop", "%s_lookup/blackhole" % node)
    expired = "ttl_expired" if fam == 4 else "hop_limit_expired"
    if ttl <= 1:     # checked before the next hop is resolved
        return ("drop", "%s_rewrite/%s" % (node, expired))
    if a[0] == "conn":
        return ("drop", "%s_rewrite/neigh_unresolved" % node)
    # An ECMP group sends a flow by one of its members that has a neighbor (a
    # member without one does not black-hole its share); none: dropped.
    outs = [(port, forwarded(topo, fam, frame, gw, port)) for gw, port in a[1]]
    outs = [(port, b) for port, b in outs if b is not None]
    if not outs:
        return ("drop", "%s_rewrite/neigh_unresolved" % node)
    return ("fwd", outs)


def describe(fam, b):
    try:
        e = Ether(b)
        l3 = e[IP] if fam == 4 else e[IPv6]
        ttl = l3.ttl if fam == 4 else l3.hlim
        ck = " cksum 0x%04x" % l3.chksum if fam == 4 else ""
        return "%s > %s %s > %s ttl %d%s" % (e.src, e.dst, l3.src, l3.dst, ttl, ck)
    except Exception:  # noqa: BLE001
        return b.hex()


def describe_outs(fam, outs):
    """The frames a packet may leave as (several: ECMP members)."""
    return " or ".join("%s [%s]" % (port, describe(fam, b)) for port, b in outs)


def run_phase(d, topo, rng, phase, first_seq):
    """Sends one batch of packets through a new ingress port; returns what the
    reference expects and the stats before and after."""
    name = "in%d" % phase
    in_mac = nfvdlib.pcap_mac(d.n_pcap)
    n4, n6 = N_PKTS4[phase - 1], N_PKTS6[phase - 1]
    frames = ([(4, s, f) for s, f in make_packets(rng, topo, 4, n4, first_seq, in_mac)]
              + [(6, s, f) for s, f in make_packets(rng, topo, 6, n6, first_seq + 10 ** 6,
                                                    in_mac)])
    rng.shuffle(frames)
    want = {}          # seq -> (family, input frame, verdict)
    for fam, seq, f in frames:
        want[seq] = (fam, f, expect(topo, fam, f))
    before = d.stats()
    d.add_port_now(name, rx=[f for _fam, _s, f in frames], opts=" rxd 512 txd 512")
    after = d.wait_processed({name: len(frames)}, timeout=60)
    return want, before, after


def tx_packets(st, port):
    return next(p["tx_packets"] for p in st["ports"] if p["name"] == port)


def check_phase(phase, want, before, after, sent):
    """sent: {port: [frames sent during the phase]}."""
    problems = []
    want_drops = Counter(v[1] for _fam, _f, v in want.values() if v[0] == "drop")
    got_drops = nfvdlib.drops(after) - nfvdlib.drops(before)
    if got_drops != want_drops:
        problems.append("phase %d drops %s, expected %s" % (phase, dict(got_drops),
                                                             dict(want_drops)))
    fwd = after["packets"]["forwarded"] - before["packets"]["forwarded"]
    want_fwd = sum(1 for _fam, _f, v in want.values() if v[0] == "fwd")
    if fwd != want_fwd:
        problems.append("phase %d forwarded %d, expected %d" % (phase, fwd, want_fwd))
    # Each port's counter against the frames found on it (checked one by one below).
    for port, frames in sorted(sent.items()):
        tx = tx_packets(after, port) - tx_packets(before, port)
        if tx != len(frames):
            problems.append("phase %d: %s counted %d frames sent, %d on the wire" % (
                phase, port, tx, len(frames)))
    icmp = Counter(nfvdlib.icmp_counters(after)) - Counter(nfvdlib.icmp_counters(before))
    want_icmp = Counter()
    for fam, _f, v in want.values():
        if v[0] == "drop" and ("no_route" in v[1] or "expired" in v[1]):
            want_icmp["icmp.no_source_address" if fam == 4 else "icmp6.no_source_address"] += 1
    if icmp != want_icmp:
        problems.append("phase %d ICMP counters %s, expected %s" % (phase, dict(icmp),
                                                                     dict(want_icmp)))
    seen = set()
    bad = []
    for port, frames in sent.items():
        for b in frames:
            seq = int(b[-8:])
            fam, f, v = want.get(seq, (None, None, None))
            if v is None or seq in seen:
                bad.append("%s: unexpected frame (seq %d) %s" % (port, seq, b.hex()))
                continue
            seen.add(seq)
            if v[0] != "fwd":
                bad.append("seq %d %s: forwarded out %s as [%s]; the reference drops it: %s" % (
                    seq, describe(fam, f), port, describe(fam, b), v[1]))
            elif (port, b) not in v[1]:
                bad.append("seq %d %s: out %s [%s]; expected out %s" % (
                    seq, describe(fam, f), port, describe(fam, b), describe_outs(fam, v[1])))
    for seq, (fam, f, v) in sorted(want.items()):
        if v[0] == "fwd" and seq not in seen:
            bad.append("seq %d %s: expected out %s, not sent" % (
                seq, describe(fam, f), describe_outs(fam, v[1])))
    if bad:
        problems.append("phase %d: %d packets wrong, first ones:\n  %s" % (
            phase, len(bad), "\n  ".join(bad[:25])))
    return problems


def node_packets(d, name):
    return sum(n["packets"] for n in d.ctl("show graph")["nodes"] if n["node"] == name)


@pytest.mark.parametrize("path", ["fast", "chain"])
def test_lpm_differential(nfvd, path):
    rng = random.Random(SEED)
    topo = Topo()
    d = nfvd()
    for p in EGRESS:
        topo.port_mac[p] = d.add_port(p).mac
    d.cmd(*topo.config())
    avoid4, avoid6 = set(), set()
    load4, add4 = make_routes(rng, topo, 4, N_ROUTES4, avoid4)
    load6, add6 = make_routes(rng, topo, 6, N_ROUTES6, avoid6)
    routes_file = d.dir / "routes.txt"
    routes_file.write_text("# generated\n" + "\n".join(load4 + load6) + "\n")
    # Half of the "route add" lines in the startup file, half through nfvctl.
    d.cmd(*(add4[::2] + add6[::2]))
    d.start()
    if path == "chain":
        d.ctl("debug", "fastpath", "off")
    r = d.ctl("route", "load", str(routes_file))
    assert r["routes_loaded"] == len(load4) + len(load6)
    d.ctl_batch(add4[1::2] + add6[1::2])
    tables = d.stats()["tables"]
    assert (tables["ipv4_routes"], tables["ipv6_routes"]) == (topo.r4.count(), topo.r6.count())

    problems = []
    phases = {}
    for phase in (1, 2, 3):
        if phase > 1:
            # Delete a third of the static routes, load new ones, change neighbors;
            # phase 2 adds default routes, phase 3 removes them.
            cmds = []
            for static, ref in ((topo.static4, topo.r4), (topo.static6, topo.r6)):
                for p in rng.sample(sorted(static), len(static) // 3):
                    net, plen = static.pop(p)
                    ref.clear(net, plen, STATIC)
                    cmds.append("route del %s" % p)
            if phase == 2:
                cmds += topo.neigh_del("p1", 2)
                cmds += topo.neigh_add("p2", 9)         # a gateway that was never resolved
                cmds += topo.neigh_add("p3", 3, gen=1)  # a new MAC for a resolved gateway
                cmds += ["route add 0.0.0.0/0 via %s" % gw4("p2", 1),
                         "route add ::/0 via %s via %s" % (gw6("p3", 2), gw6("p1", 1))]
                topo.r4.set(0, 0, STATIC, ("gw", [(int(ipaddress.ip_address(gw4("p2", 1))),
                                                   "p2")]))
                topo.r6.set(0, 0, STATIC, ("gw", [(int(ipaddress.ip_address(gw6("p3", 2))),
                                                   "p3"),
                                                  (int(ipaddress.ip_address(gw6("p1", 1))),
                                                   "p1")]))
            else:
                cmds += ["route del 0.0.0.0/0", "route del ::/0"]
                topo.r4.clear(0, 0, STATIC)
                topo.r6.clear(0, 0, STATIC)
                cmds += topo.neigh_add("p1", 2, gen=2)  # back, with a new MAC
            rng.shuffle(cmds)
            new4, add4b = make_routes(rng, topo, 4, 400, avoid4)
            new6, add6b = make_routes(rng, topo, 6, 250, avoid6)
            d.ctl_batch(cmds)
            f2 = d.dir / ("routes%d.txt" % phase)
            f2.write_text("\n".join(new4 + new6) + "\n")
            assert d.ctl("route", "load", str(f2))["routes_loaded"] == len(new4) + len(new6)
            d.ctl_batch(add4b + add6b)
            tables = d.stats()["tables"]
            assert (tables["ipv4_routes"], tables["ipv6_routes"]) == (topo.r4.count(),
                                                                      topo.r6.count())
        phases[phase] = run_phase(d, topo, rng, phase, (phase - 1) * 10 ** 7)
    assert d.ctl("show pools")["mbufs_in_use"] == 0
    # Which path the packets took: the fused nodes saw every packet of their
    # family and handed the chain those they do not forward (drops) or all
    # of a burst with one they do not take (a special address...), or none
    # reached them.
    for fam, n in ((4, sum(N_PKTS4)), (6, sum(N_PKTS6))):
        fast, chain = node_packets(d, "ip%d_fast" % fam), node_packets(d, "ip%d_input" % fam)
        if path == "fast":
            assert fast == n and chain < n // 2, (fam, fast, chain)
        else:
            assert fast == 0 and chain == n, (fam, fast, chain)
    outputs = d.stop()
    # The egress pcaps are written at exit: split them by phase (the sequence number
    # in the payload; each phase's frames all come before the next phase's).
    for p in EGRESS:
        ph = [int(b[-8:]) // 10 ** 7 + 1 for b in outputs[p]]
        assert ph == sorted(ph), "%s: frames of different phases interleaved" % p
    for phase in phases:
        sent = {p: [b for b in outputs[p] if int(b[-8:]) // 10 ** 7 + 1 == phase]
                for p in EGRESS}
        problems += check_phase(phase, *phases[phase], sent)
    assert not problems, "\n".join(problems)


def test_fib_more_specific_same_next_hop(nfvd):
    """A route longer than /24 whose next hop is the one of the route covering it
    (198.51.100.128/25 and 198.51.100.0/24 via the same gateway, a /32 blackhole
    inside a blackholed /24), added and deleted a few times, must not use up the
    IPv4 FIB: afterwards any route longer than /24 must still be accepted, and
    so must an address on a new subnet (its /32). Same for IPv6."""
    d = nfvd()
    d.add_port("p1", null=True)
    d.cmd("addr add 10.1.0.254/24 dev p1", "addr add 2001:db8:1::fe/64 dev p1",
          "neigh add 10.1.0.1 lladdr 02:00:00:00:01:01 dev p1",
          "neigh add 10.1.0.2 lladdr 02:00:00:00:01:02 dev p1",
          "neigh add 2001:db8:1::1 lladdr 02:00:00:00:01:01 dev p1")
    d.start()
    cmds = ["route add 198.51.100.0/24 via 10.1.0.1",
            "route add 203.0.113.0/24 blackhole",
            "route add 2001:db8:9::/48 via 2001:db8:1::1"]
    for _ in range(3):
        cmds += ["route add 198.51.100.128/25 via 10.1.0.1", "route del 198.51.100.128/25",
                 "route add 203.0.113.7/32 blackhole", "route del 203.0.113.7/32",
                 "route add 2001:db8:9:1::/64 via 2001:db8:1::1", "route del 2001:db8:9:1::/64"]
    cmds += ["route add 192.0.2.128/25 via 10.1.0.2",
             "route add 192.0.2.7/32 via 10.1.0.2",
             "route add 2001:db8:8::1/128 via 2001:db8:1::1",
             "addr add 10.5.0.1/24 dev p1"]
    failed = []
    for c in cmds:
        r = d.ctl_result(*c.split())
        if r.rc != 0:
            failed.append("%s: %s" % (c, r.stderr.strip()))
    d.stop()
    assert not failed, "\n".join(failed)
