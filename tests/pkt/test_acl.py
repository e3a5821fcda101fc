# SPDX-License-Identifier: BSD-3-Clause
"""
ACLs (rte_acl) against a reference first-match classifier written here.

    H0 -- p0 10.0.0.254/24, 2001:db8:a::fe/64 [nfvd] p1 10.1.0.254/24, 2001:db8:b::fe/64 -- R1
          ACL "ain" attached in                        ACL "aout" attached out

Hundreds of random IPv4, IPv6 and both-family rules (prefix lengths 0 to
full, port ranges, protocols, ICMP type/code, prios) and thousands of
packets, many built on the rules' edges (first and last address of a
prefix and their neighbours outside, first and last port of a range and
one beyond, another protocol, non-first fragments which carry no ports,
first fragments which do). Every packet leaves p1 exactly when both
ACLs permit it, byte for byte and in order; the drop counters equal the
reference's deny counts; per-rule hits equal the reference's.

Then rules are replaced while a flood runs through a third ACL, and the
final rule set is checked the same way with new packets.
"""
import ipaddress
import random
import time

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import ICMPv6EchoRequest, ICMPv6DestUnreach, IPv6, IPv6ExtHdrFragment
from scapy.layers.l2 import Ether
from scapy.layers.sctp import SCTP
from scapy.packet import Raw

from fwlib import H0, R1, router, router_config
from nfvdlib import CtlError, Nfvd, drops, pcap_mac

P0, P1 = pcap_mac(0), pcap_mac(1)
BASE = router_config()

# Addresses packets use: away from nfvd's subnets and from what ip4_input /
# ip6_input drop (martians, multicast, link-local).
REGIONS4 = [ipaddress.ip_network(n) for n in ("172.16.0.0/12", "198.18.0.0/15", "45.0.0.0/8")]
REGIONS6 = [ipaddress.ip_network(n) for n in ("2001:db8:1000::/36", "2400:cb00::/32")]
PROTOS = {"tcp": 6, "udp": 17, "icmp": 1, "icmp6": 58, "sctp": 132}


@pytest.fixture(autouse=True, params=["cache-on", "cache-off"])
def acl_cache(request, monkeypatch):
    """Every test runs with the ACL decision cache on (the default) and off
    ("acl set cache off" in the startup file). True when it is on."""
    if request.param == "cache-off":
        start = Nfvd.start

        def start_cache_off(self, *a, **kw):
            self.cmd("acl set cache off")
            return start(self, *a, **kw)
        monkeypatch.setattr(Nfvd, "start", start_cache_off)
    return request.param == "cache-on"


def check_cache_counters(st, on):
    """Every classification is a cache hit or a miss (on); none is (off)."""
    a = st["acl"]
    assert a["cache"] is on
    if on:
        assert a["cache_hits"] + a["cache_misses"] == \
            a["permitted"] + a["denied"] + a["no_match"], a
    else:
        assert a["cache_hits"] == 0 and a["cache_misses"] == 0, a


def safe(addr):
    a = ipaddress.ip_address(addr)
    regions = REGIONS4 if a.version == 4 else REGIONS6
    return any(a in r for r in regions)


class Rule:
    def __init__(self, prio, family=None, src=None, dst=None, proto=None, sport=None,
                 dport=None, action="permit"):
        self.prio, self.family, self.src, self.dst = prio, family, src, dst
        self.proto, self.sport, self.dport, self.action = proto, sport, dport, action

    def families(self):
        if self.family:
            return {self.family}
        if self.proto == 1:
            return {4}
        if self.proto == 58:
            return {6}
        return {4, 6}

    def command(self, acl):
        words = ["acl rule add", acl, "prio", str(self.prio)]
        if self.src is not None:
            words += ["src", str(self.src)]
        if self.dst is not None:
            words += ["dst", str(self.dst)]
        if self.proto is not None:
            words += ["proto", {v: k for k, v in PROTOS.items()}.get(self.proto, str(self.proto))]
        icmp = self.proto in (1, 58)
        if self.sport is not None:
            words += ["type" if icmp else "sport", "%d-%d" % self.sport]
        if self.dport is not None:
            words += ["code" if icmp else "dport", "%d-%d" % self.dport]
        words += ["action", self.action]
        return " ".join(words)

    def matches(self, p):
        if p.family not in self.families():
            return False
        if self.src is not None and ipaddress.ip_address(p.src) not in self.src:
            return False
        if self.dst is not None and ipaddress.ip_address(p.dst) not in self.dst:
            return False
        if self.proto is not None and self.proto != p.proto:
            return False
        if self.sport is not None or self.dport is not None:
            if not p.l4:
                return False
            if self.sport is not None and not self.sport[0] <= p.sport <= self.sport[1]:
                return False
            if self.dport is not None and not self.dport[0] <= p.dport <= self.dport[1]:
                return False
        return True


def classify(rules, p):
    """The reference: lowest prio first, first match wins, no match denies."""
    for r in sorted(rules, key=lambda r: r.prio):
        if r.matches(p):
            return r
    return None


class Pkt:
    """A test packet and the facts the reference classifies on."""

    def __init__(self, family, src, dst, proto, sport=0, dport=0, frag=None):
        self.family, self.src, self.dst, self.proto = family, src, dst, proto
        self.sport, self.dport, self.frag = sport, dport, frag
        # frag: None, "first" (offset 0, more fragments) or "later" (offset > 0).
        self.l4 = proto in (6, 17, 132, 1, 58) and frag != "later"
        if not self.l4:
            self.sport = self.dport = 0

    def l3(self, tag):
        payload = Raw(b"acl-%06d" % tag + b"." * 8)
        if self.proto == 6:
            l4 = TCP(sport=self.sport, dport=self.dport, flags="A")
        elif self.proto == 17:
            l4 = UDP(sport=self.sport, dport=self.dport)
        elif self.proto == 132:
            l4 = SCTP(sport=self.sport, dport=self.dport)
        elif self.proto == 1:
            l4 = ICMP(type=self.sport, code=self.dport)
        elif self.proto == 58:
            l4 = ICMPv6DestUnreach(type=self.sport, code=self.dport)
        else:
            l4 = None
        if self.family == 4:
            ip = IP(src=self.src, dst=self.dst, ttl=64, proto=self.proto, id=tag & 0xffff)
            if self.frag == "first":
                ip.flags = "MF"
            elif self.frag == "later":
                ip.frag = 8
            if self.frag == "later" or l4 is None:
                return ip / payload
            return ip / l4 / payload
        ip = IPv6(src=self.src, dst=self.dst, hlim=64)
        if self.frag is not None:
            fh = IPv6ExtHdrFragment(nh=self.proto, id=tag, m=1 if self.frag == "first" else 0,
                                    offset=0 if self.frag == "first" else 3)
            if self.frag == "later" or l4 is None:
                return ip / fh / payload
            return ip / fh / l4 / payload
        if l4 is None:
            return IPv6(src=self.src, dst=self.dst, hlim=64, nh=self.proto) / payload
        return ip / l4 / payload


def routed(l3):
    l3 = l3.copy()
    if IP in l3:
        l3[IP].ttl -= 1
        del l3[IP].chksum
    else:
        l3[IPv6].hlim -= 1
    return bytes(Ether(dst=R1, src=P1) / l3)


def rand_addr(rng, family):
    region = rng.choice(REGIONS4 if family == 4 else REGIONS6)
    return region[rng.randrange(region.num_addresses)]


def rand_prefix(rng, family):
    addr = rand_addr(rng, family)
    bits = 32 if family == 4 else 128
    # Mostly specific prefixes, some short ones.
    plen = rng.choice([rng.randint(0, bits), rng.randint(bits // 2, bits),
                       rng.randint(bits - 12, bits)])
    return ipaddress.ip_network("%s/%d" % (addr, plen), strict=False)


def rand_range(rng, top=65535):
    a = rng.choice([0, 1, 53, 80, 443, 1023, 1024, rng.randint(0, top)])
    a = min(a, top)
    b = min(top, a + rng.choice([0, 1, 10, 1000, rng.randint(0, top)]))
    return (a, b)


def rand_rules(rng, n, prios):
    rules = []
    for prio in prios[:n]:
        family = rng.choice([4, 6, None])
        src = dst = None
        if family is not None:
            if rng.random() < 0.7:
                src = rand_prefix(rng, family)
            if rng.random() < 0.7:
                dst = rand_prefix(rng, family)
            if src is None and dst is None:
                dst = rand_prefix(rng, family)
        protos = [None, 6, 17, 132, 47] + ([1] if family in (4, None) else []) + \
            ([58] if family in (6, None) else [])
        proto = rng.choice(protos)
        sport = dport = None
        if proto in (6, 17, 132) and rng.random() < 0.7:
            if rng.random() < 0.6:
                sport = rand_range(rng)
            if rng.random() < 0.8 or sport is None:
                dport = rand_range(rng)
        elif proto in (1, 58) and rng.random() < 0.5:
            sport = rand_range(rng, 255)
            if rng.random() < 0.5:
                dport = rand_range(rng, 255)
        action = rng.choice(["permit", "permit", "deny"])
        rules.append(Rule(prio, family, src, dst, proto, sport, dport, action))
    return rules


def edge_addrs(net):
    """First and last address of a prefix and their neighbours outside."""
    out = [net.network_address, net.broadcast_address]
    if int(net.network_address) > 0:
        out.append(net.network_address - 1)
    if int(net.broadcast_address) < (2 ** net.max_prefixlen - 1):
        out.append(net.broadcast_address + 1)
    return [a for a in out if safe(a)]


def rand_packets(rng, rules, n):
    pkts = []
    for _ in range(n):
        r = rng.choice(rules)
        family = r.family or rng.choice(sorted(r.families()))
        src, dst = rand_addr(rng, family), rand_addr(rng, family)
        # Built on the rule: its edges, else inside it, else anywhere.
        if r.src is not None and rng.random() < 0.8:
            cands = edge_addrs(r.src) if rng.random() < 0.5 else []
            inside = r.src[rng.randrange(r.src.num_addresses)]
            cands = cands or ([inside] if safe(inside) else [])
            src = rng.choice(cands) if cands else src
        if r.dst is not None and rng.random() < 0.8:
            cands = edge_addrs(r.dst) if rng.random() < 0.5 else []
            inside = r.dst[rng.randrange(r.dst.num_addresses)]
            cands = cands or ([inside] if safe(inside) else [])
            dst = rng.choice(cands) if cands else dst
        proto = r.proto if r.proto is not None and rng.random() < 0.8 else \
            rng.choice([6, 17, 132, 47, 1 if family == 4 else 58])
        top = 255 if proto in (1, 58) else 65535

        def port(rng_range):
            if rng_range is None or rng.random() < 0.2:
                return rng.randint(0, top)
            lo, hi = rng_range
            return min(top, max(0, rng.choice([lo, hi, lo - 1, hi + 1, rng.randint(lo, hi)])))
        sport, dport = port(r.sport), port(r.dport)
        frag = rng.choice([None] * 8 + ["first", "later"])
        pkts.append(Pkt(family, str(src), str(dst), proto, sport, dport, frag))
    return pkts


def expected(pkts, acls, seq=0, mac=P0):
    """Frames in, frames p1 sends, denied by a rule, denied by no match, hits
    per (acl, prio); acls: [(name, rules)] in the order packets meet them."""
    out, denied, no_match, hits = [], 0, 0, {}
    frames = []
    for i, p in enumerate(pkts):
        l3 = p.l3(seq + i)
        frames.append(Ether(dst=mac, src=H0) / l3)
        ok = True
        for acl, rules in acls:
            r = classify(rules, p)
            key = (acl, r.prio if r else "default")
            hits[key] = hits.get(key, 0) + 1
            if r is None:
                no_match += 1
                ok = False
                break
            if r.action == "deny":
                denied += 1
                ok = False
                break
        if ok:
            out.append(routed(l3))
    return frames, out, denied, no_match, hits


def by_family(frames):
    return ([f for f in frames if f[12:14] == b"\x08\x00"],
            [f for f in frames if f[12:14] == b"\x86\xdd"])


def show_hits(nfvd):
    hits = {}
    for a in nfvd.ctl("acl show")["acls"]:
        for r in a["rules"]:
            hits[(a["name"], r["prio"])] = r["hits"]
        hits[(a["name"], "default")] = a["no_match_hits"]
    return hits


def load_rules(nfvd, acl, rules):
    nfvd.ctl_batch([r.command(acl) for r in rules])


def run_in_out(tmp_path, frames, rin, rout, hits, denied, no_match, cache_on, more=()):
    """nfvd with ACL ain (rules rin) on p0 in and aout (rout) on p1 out (and
    the ACLs named in more, empty), run over frames: drops, the acl
    counters, the cache counters and per-rule hits as the reference says.
    Returns nfvd (running) and its stats."""
    nfvd = router(tmp_path, rx=frames)
    nfvd.cmd("acl add ain", "acl add aout", *["acl add " + a for a in more])
    nfvd.cmd(*[r.command("ain") for r in rin], *[r.command("aout") for r in rout])
    nfvd.cmd("acl attach ain dev p0 in", "acl attach aout dev p1 out")
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(frames)}, timeout=120)
    d = drops(st)
    assert d == {k: v for k, v in {"acl/denied": denied, "acl/no_match": no_match}.items()
                 if v}, d
    assert st["acl"]["denied"] == denied and st["acl"]["no_match"] == no_match
    check_cache_counters(st, cache_on)
    assert {k: v for k, v in show_hits(nfvd).items() if v} == hits
    return nfvd, st


def test_acl_differential(tmp_path, acl_cache):
    rng = random.Random(12)
    prios = rng.sample(range(1, 100000), 600)
    rin = rand_rules(rng, 300, prios)
    rout = rand_rules(rng, 200, prios[300:])
    pkts = rand_packets(rng, rin, 2000) + rand_packets(rng, rout, 1000)
    frames, want, denied, no_match, hits = expected(pkts, [("ain", rin), ("aout", rout)])
    nfvd, st = run_in_out(tmp_path, frames, rin, rout, hits, denied, no_match, acl_cache,
                          more=["flood"])
    show = nfvd.ctl("acl show ain")["acls"][0]
    assert show["default_action"] == "deny"
    assert show["attached"] == [{"dev": "p0", "dir": "in"}]
    assert [r["prio"] for r in show["rules"]] == sorted(r.prio for r in rin)

    # Rules replaced while a flood runs through an ACL: the flood goes on
    # (no worker waits for a rule change), every drop is the ACL's.
    flood = [Ether(dst=pcap_mac(2), src=H0) /
             IP(src="172.16.0.%d" % i, dst="203.0.113.%d" % (i % 4)) /
             UDP(sport=1000 + i, dport=53) / b"flood" for i in range(64)]
    nfvd.ctl("acl rule add flood prio 100 proto udp dport 53 action permit")
    nfvd.ctl("port add nul dev net_null0,no-rx=1")
    nfvd.ctl("addr add 10.2.0.254/24 dev nul")
    nfvd.ctl("neigh add 10.2.0.1 lladdr 02:00:00:00:02:01 dev nul")
    nfvd.ctl("route add 203.0.113.0/30 via 10.2.0.1")
    fl = nfvd._new_port("fl", flood, infinite=True)
    nfvd.ctl(*fl.command().split())
    nfvd.ctl("acl attach flood dev fl in")
    before = nfvd.port_stats()["fl"]["rx_packets"]
    lines = []
    for k in range(40):
        lines.append("acl rule add flood prio %d dst 203.0.113.%d/32 action %s" %
                     (10 + k, k % 4, "deny" if k % 2 else "permit"))
        if k >= 2:
            lines.append("acl rule del flood prio %d" % (10 + k - 2))
    nfvd.ctl_batch(lines)
    # Whole rule sets swapped in one step, in and out.
    rin2 = rand_rules(rng, 150, rng.sample(range(1, 100000), 150))
    nfvd.ctl("acl add ain2")
    load_rules(nfvd, "ain2", rin2)
    nfvd.ctl("acl attach ain2 dev p0 in")
    nfvd.ctl("acl attach ain2 dev p1 out")
    mid = nfvd.port_stats()["fl"]["rx_packets"]
    assert mid > before, "the flood stopped while rules changed"
    nfvd.ctl("port del fl")
    st = nfvd.wait_processed({}, timeout=60)
    assert set(drops(st)) <= {"acl/denied", "acl/no_match"}, drops(st)
    assert nfvd.ctl("acl show flood")["acls"][0]["attached"] == []   # its port went
    assert nfvd.ctl("acl show aout")["acls"][0]["attached"] == []    # replaced

    # The replacing rule set, checked like the first (now on p1 out).
    pkts2 = rand_packets(rng, rin2, 1500)
    frames2, want2, denied2, no_match2, hits2 = expected(pkts2, [("ain2", rin2)], seq=10 ** 5,
                                                         mac=pcap_mac(3))
    base = drops(st)
    hits_before = show_hits(nfvd)
    nfvd.add_port_now("h3", rx=frames2)
    st = nfvd.wait_processed({"h3": len(frames2)}, timeout=120)
    d = drops(st)
    assert d["acl/denied"] - base["acl/denied"] == denied2
    assert d["acl/no_match"] - base["acl/no_match"] == no_match2
    assert set(d) <= {"acl/denied", "acl/no_match"}, d
    hits_after = show_hits(nfvd)
    hd = {k: hits_after[k] - hits_before.get(k, 0) for k in hits_after
          if k[0] == "ain2" and hits_after[k] != hits_before.get(k, 0)}
    check_cache_counters(st, acl_cache)
    if acl_cache:
        assert st["acl"]["cache_hits"] > 0   # the flood's 64 flows, at least
    out = nfvd.stop()
    # The graph keeps order within a family, not between IPv4 and IPv6.
    assert by_family(out["p1"]) == by_family(want + want2)
    assert hd == hits2


def fast_pair(p, rin, rout):
    """Whether the input node decides both ACLs of p once they are cached:
    TCP, UDP or SCTP, for IPv4 not a later fragment, for IPv6 no extension
    header (a fragment header sends it the general way), a permit rule in
    each."""
    rs = classify(rin, p), classify(rout, p)
    if p.family == 4:
        shape = p.frag != "later"
    else:
        shape = p.frag is None
    return p.proto in (6, 17, 132) and shape and \
        all(r is not None and r.action == "permit" for r in rs)


@pytest.mark.parametrize("family", [4, 6])
def test_acl_in_and_out_in_one_pass(tmp_path, acl_cache, family):
    """ACLs in on p0 and out on p1 (each the only feature of its arc): a
    packet the fused node routed whose two decisions are cached goes from
    the input ACL node straight to port_tx, both ACLs decided there (acl
    "fused"). 200 flows of the family (TCP, UDP, SCTP, ICMP, GRE,
    fragments), each three times 200 packets apart: the first time both
    nodes classify it; the second the input node finds both decisions in
    the two caches (IPv4: and caches the pair); the third IPv4 finds in the
    pair cache, IPv6 again in the two caches. Then 64 UDP flows both ACLs
    permit, four times 64 apart: whole bursts decided in the input node.
    Frames out, drops, per-rule hits and cache counters as the reference
    says and as the two nodes would count them; "fused" is exactly the
    packets so decided."""
    from test_observability import telemetry
    rng = random.Random(31 if family == 4 else 41)
    prios = rng.sample(range(1000, 100000), 160)
    if family == 4:
        both_net = ipaddress.ip_network("45.1.2.0/24")
    else:
        both_net = ipaddress.ip_network("2001:db8:45:1::/64")
    both = Rule(1, family, dst=both_net, proto=17)
    rin, rout = rand_rules(rng, 80, prios), rand_rules(rng, 80, prios[80:])
    for r in rin + rout:
        r.action = "deny" if rng.random() < 0.4 else "permit"
    flows = [p for p in rand_packets(rng, rin + rout, 800) if p.family == family][:200]
    assert len(flows) == 200
    # A sixth of the flows denied in, a sixth out, by their own rules.
    for i, p in enumerate(flows[:120]):
        src, dst = ipaddress.ip_network(p.src), ipaddress.ip_network(p.dst)
        if i % 6 == 1:
            rin.append(Rule(2 + i, family, src=src, dst=dst, proto=p.proto, action="deny"))
        elif i % 6 == 2:
            rout.append(Rule(2 + i, family, src=src, dst=dst, proto=p.proto, action="deny"))
    rin += [both, Rule(200000)]
    rout += [both]
    if family == 4:
        block = [Pkt(4, "172.16.9.%d" % (i + 1), "45.1.2.%d" % (i + 1), 17, 4000 + i, 53)
                 for i in range(64)]
    else:
        block = [Pkt(6, "2001:db8:9::%x" % (i + 1), "2001:db8:45:1::%x" % (i + 1), 17,
                     4000 + i, 53) for i in range(64)]
    pkts = flows * 3 + block * 4
    frames, want, denied, no_match, hits = expected(pkts, [("ain", rin), ("aout", rout)])
    n_pair = sum(fast_pair(p, rin, rout) for p in flows)
    assert 20 < n_pair < 200
    nfvd, st = run_in_out(tmp_path, frames, rin, rout, hits, denied, no_match, acl_cache)
    a = st["acl"]
    assert a["fused"] == ((2 * n_pair + 3 * len(block)) if acl_cache else 0), a
    assert telemetry(nfvd.prefix, "/nfvd/stats")["acl/fused"] == a["fused"]
    out = nfvd.stop()
    # Flows may leave in another order than they came (a fused packet
    # reaches port_tx before one that takes the longer way), a flow's
    # packets not: every frame, byte for byte, each flow's in order.
    assert sorted(out["p1"]) == sorted(want)
    flow_of = {}
    for i, p in enumerate(pkts):
        flow_of[routed(p.l3(i))] = id(p)
    seq = [flow_of[f] for f in want]
    got = [flow_of[f] for f in out["p1"]]
    for fid in set(seq):
        assert [f for f, x in zip(out["p1"], got) if x == fid] == \
            [f for f, x in zip(want, seq) if x == fid]


def test_acl_attach_errors_and_show(tmp_path):
    nfvd = router(tmp_path, rx=[])
    nfvd.cmd("acl add a1")
    nfvd.start()
    for line, msg in [
            ("acl add a1", "ACL a1 already exists"),
            ("acl add 1x", "bad ACL name '1x'"),
            ("acl rule add nope prio 1 action permit", "no ACL named 'nope'"),
            ("acl rule add a1 prio 1", "missing 'action permit|deny|reflect'"),
            ("acl rule add a1 action permit", "missing 'prio N'"),
            ("acl rule add a1 prio x action permit", "bad prio 'x'"),
            ("acl rule add a1 prio 1 src 10.0.0.1/24 action permit", "bits set beyond"),
            ("acl rule add a1 prio 1 src 10.0.0.0/8 dst 2001:db8::/32 action permit",
             "src and dst must be of one family"),
            ("acl rule add a1 prio 1 proto tcp sport 9-1 action permit", "bad sport '9-1'"),
            ("acl rule add a1 prio 1 dport 80 action permit", "sport and dport need proto"),
            ("acl rule add a1 prio 1 proto tcp type 3 action permit", "type and code need"),
            ("acl rule add a1 prio 1 proto icmp type 300 action permit", "0-255"),
            ("acl rule add a1 prio 1 src 2001:db8::/32 proto icmp action permit",
             "proto icmp is IPv4"),
            ("acl rule add a1 prio 1 proto bogus action permit", "bad protocol 'bogus'"),
            ("acl rule add a1 prio 1 action allow", "bad action 'allow'"),
            ("acl rule add a1 prio 1 color red action permit", "unexpected 'color'"),
            ("acl rule del a1 prio 5", "ACL a1 has no rule of prio 5"),
            ("acl attach a1 dev nope in", "unknown interface 'nope'"),
            ("acl attach a1 dev p0 sideways", "bad direction 'sideways'"),
            ("acl detach a1 dev p0 in", "ACL a1 is not attached to p0 in"),
            ("conntrack set max x", "bad max 'x'"),
            ("conntrack set timeout tcp-bogus 5", "unknown timeout 'tcp-bogus'"),
            ("conntrack set timeout udp 0", "bad timeout '0'")]:
        try:
            nfvd.ctl(*line.split())
            raise AssertionError("%s succeeded" % line)
        except CtlError as e:
            assert msg in str(e), (line, str(e))
    nfvd.ctl("acl rule add a1 prio 5 src 10.0.0.0/8 proto tcp dport 80-90 action deny")
    nfvd.ctl("acl rule add a1 prio 7 proto icmp type 8 code 0 action reflect")
    nfvd.ctl("acl rule add a1 prio 9 proto sctp dport 5000 action permit")
    try:
        nfvd.ctl("acl rule add a1 prio 5 action permit")
        raise AssertionError("duplicate prio accepted")
    except CtlError as e:
        assert "already has a rule of prio 5" in str(e)
    nfvd.ctl("acl attach a1 dev p0 in")
    try:
        nfvd.ctl("acl attach a1 dev p0 in")
        raise AssertionError("attached twice")
    except CtlError as e:
        assert "already attached to p0 in" in str(e)
    try:
        nfvd.ctl("acl del a1")
        raise AssertionError("deleted while attached")
    except CtlError as e:
        assert "detach it first" in str(e)
    a = nfvd.ctl("acl show a1")["acls"][0]
    assert a["rules"][0] == {"prio": 5, "action": "deny", "hits": 0, "src": "10.0.0.0/8",
                             "proto": "tcp", "dport": "80-90"}
    assert a["rules"][1] == {"prio": 7, "action": "reflect", "hits": 0, "proto": "icmp",
                             "type": "8", "code": "0"}
    # A protocol given by name is shown by that name (acl rule add takes sctp).
    assert a["rules"][2] == {"prio": 9, "action": "permit", "hits": 0, "proto": "sctp",
                             "dport": "5000"}
    assert "acl_in4" in str(nfvd.ctl("show arcs"))
    nfvd.ctl("acl detach a1 dev p0 in")
    nfvd.ctl("acl del a1")
    assert nfvd.ctl("acl show")["acls"] == []
    nfvd.stop()


def test_acl_out_only_defeats_fast_path(tmp_path):
    """ip4_fast must not forward past an egress ACL (nor an ingress one)."""
    allowed = IP(src="172.16.0.1", dst="198.18.0.1", ttl=64) / UDP(sport=1, dport=53) / b"ok"
    blocked = IP(src="172.16.0.1", dst="198.18.0.2", ttl=64) / UDP(sport=1, dport=53) / b"no"
    frames = [Ether(dst=P0, src=H0) / p for p in [allowed, blocked] * 16]
    nfvd = router(tmp_path, rx=frames)
    nfvd.cmd("acl add o", "acl rule add o prio 1 dst 198.18.0.1/32 action permit",
             "acl attach o dev p1 out")
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(frames)})
    assert drops(st) == {"acl/no_match": 16}
    out = nfvd.stop()
    assert out["p1"] == [routed(allowed)] * 16


def test_acl_pairs_with_two_output_ports(tmp_path, acl_cache):
    """The input node decides both ACLs from its pair cache only for the
    packets that go to the output port it decides for. UDP flows to p1,
    whose output ACL permits them, and to p2, whose output ACL denies them,
    interleaved packet by packet (bursts of two next hops: the fused node
    leaves no note) and in bursts of one port (a note): every p1 packet
    leaves p1 byte for byte and in order, every p2 packet is denied by
    p2's ACL, none is decided with p1's. With the cache on, every p1
    packet after its flow's first is decided in the input node ("fused"),
    in the mixed bursts too, and no p2 packet is."""
    r2 = "02:00:00:00:02:01"
    f1 = [IP(src="172.16.1.%d" % i, dst="198.18.1.%d" % i, ttl=64) /
          UDP(sport=2000 + i, dport=53) / b"one" for i in range(1, 33)]
    f2 = [IP(src="172.16.2.%d" % i, dst="198.19.1.%d" % i, ttl=64) /
          UDP(sport=3000 + i, dport=53) / b"two" for i in range(1, 33)]
    mixed = [p for pair in zip(f1, f2) for p in pair]
    seq = mixed * 3 + f1 * 3 + f2 * 2 + mixed
    frames = [Ether(dst=P0, src=H0) / p for p in seq]
    nfvd = router(tmp_path, rx=frames)
    nfvd.add_port("p2", rx=[])
    nfvd.cmd("addr add 10.2.0.254/24 dev p2", "neigh add 10.2.0.1 lladdr %s dev p2" % r2,
             "route add 198.19.0.0/16 via 10.2.0.1",
             "acl add ain", "acl rule add ain prio 1 proto udp action permit",
             "acl attach ain dev p0 in",
             "acl add aout", "acl rule add aout prio 1 proto udp dport 53 action permit",
             "acl attach aout dev p1 out",
             "acl add aout2", "acl rule add aout2 prio 1 proto udp dport 53 action deny",
             "acl attach aout2 dev p2 out")
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(frames)})
    to_p1 = [p for p in seq if p[IP].dst.startswith("198.18.")]
    assert drops(st) == {"acl/denied": len(seq) - len(to_p1)}
    a = st["acl"]
    assert a["denied"] == len(seq) - len(to_p1)
    assert a["permitted"] == 2 * len(to_p1) + len(seq) - len(to_p1)
    assert a["fused"] == (len(to_p1) - len(f1) if acl_cache else 0), a
    out = nfvd.stop()
    assert out["p1"] == [routed(p) for p in to_p1]
    assert out.get("p2", []) == []


def test_acl_hits_in_show_telemetry_and_prometheus(tmp_path, acl_cache):
    """Per-rule hits (summed over workers) agree in acl show, /nfvd/acl and /metrics."""
    from test_observability import scrape, telemetry
    import socket as so
    s = so.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    mk = lambda dst, l4: Ether(dst=P0, src=H0) / IP(src="172.16.0.1", dst=dst, ttl=64) / l4
    frames = ([mk("198.18.0.1", UDP(sport=1, dport=53)) for _ in range(3)] +
              [mk("198.18.0.2", UDP(sport=1, dport=53)) for _ in range(4)] +
              [mk("198.18.0.3", TCP(sport=1, dport=80)) for _ in range(5)])
    nfvd = router(tmp_path, rx=frames)
    nfvd.extra_args = ["--metrics", "127.0.0.1:%d" % port]
    nfvd.cmd("acl add v", "acl rule add v prio 5 dst 198.18.0.1/32 action permit",
             "acl rule add v prio 9 proto udp action deny", "acl attach v dev p0 in")
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(frames)})
    assert drops(st) == {"acl/denied": 4, "acl/no_match": 5}
    a = nfvd.ctl("acl show v")["acls"][0]
    assert [r["hits"] for r in a["rules"]] == [3, 4] and a["no_match_hits"] == 5
    assert telemetry(nfvd.prefix, "/nfvd/acl") == {"v/5": 3, "v/9": 4, "v/default": 5}
    samples, types = scrape(port)
    assert types["nfvd_acl_rule_hits_total"] == "counter"
    got = {dict(k[1])["prio"]: v for k, v in samples.items()
           if k[0] == "nfvd_acl_rule_hits_total"}
    assert got == {"5": 3, "9": 4, "default": 5}
    assert samples[("nfvd_acl_packets_total", (("verdict", "denied"),))] == 4
    assert types["nfvd_acl_cache_lookups_total"] == "counter"
    ch = samples[("nfvd_acl_cache_lookups_total", (("result", "hit"),))]
    cm = samples[("nfvd_acl_cache_lookups_total", (("result", "miss"),))]
    tel = telemetry(nfvd.prefix, "/nfvd/stats")
    assert (tel["acl/cache_hits"], tel["acl/cache_misses"]) == (ch, cm)
    assert tel["acl/cache"] == int(acl_cache)
    if acl_cache:
        assert ch + cm == 12 and cm >= 3   # three tuples
    else:
        assert ch == cm == 0
    nfvd.stop()


def test_acl_cache_hits_exact_and_new_version(tmp_path, acl_cache):
    """The same flows again: answered by the cache (on), with the same verdicts
    and per-rule hits; after a rule change the new version's verdicts apply at
    once (its gen misses the old entries)."""
    mk = lambda dst, l4, mac: Ether(dst=mac, src=H0) / IP(src="172.16.0.1", dst=dst, ttl=64) / l4
    flows = [("198.18.0.1", UDP(sport=1, dport=53), 3), ("198.18.0.2", UDP(sport=1, dport=53), 4),
             ("198.18.0.3", TCP(sport=1, dport=80), 5)]
    frames = lambda mac: [mk(d, l4, mac) for d, l4, n in flows for _ in range(n)]
    nfvd = router(tmp_path, rx=frames(P0))
    nfvd.cmd("acl add v", "acl rule add v prio 5 dst 198.18.0.1/32 action permit",
             "acl rule add v prio 9 proto udp action deny", "acl attach v dev p1 out")
    nfvd.start()
    st = nfvd.wait_processed({"p0": 12})
    check_cache_counters(st, acl_cache)
    a = nfvd.ctl("acl show v")["acls"][0]
    assert [r["hits"] for r in a["rules"]] == [3, 4] and a["no_match_hits"] == 5
    c0 = st["acl"]

    nfvd.add_port_now("h2", rx=frames(pcap_mac(2)))
    st = nfvd.wait_processed({"h2": 12})
    assert drops(st) == {"acl/denied": 8, "acl/no_match": 10}
    a = nfvd.ctl("acl show v")["acls"][0]
    assert [r["hits"] for r in a["rules"]] == [6, 8] and a["no_match_hits"] == 10
    check_cache_counters(st, acl_cache)
    if acl_cache:   # one worker: all three keys are cached
        assert st["acl"]["cache_hits"] - c0["cache_hits"] == 12
        assert st["acl"]["cache_misses"] == c0["cache_misses"]
    c1 = st["acl"]

    nfvd.ctl("acl rule add v prio 1 dst 198.18.0.3/32 action permit")
    nfvd.add_port_now("h3", rx=frames(pcap_mac(3)))
    st = nfvd.wait_processed({"h3": 12})
    assert drops(st) == {"acl/denied": 12, "acl/no_match": 10}
    a = nfvd.ctl("acl show v")["acls"][0]
    assert [r["hits"] for r in a["rules"]] == [5, 9, 12] and a["no_match_hits"] == 10
    check_cache_counters(st, acl_cache)
    if acl_cache:   # the new version's gen: each key misses once at least
        assert st["acl"]["cache_misses"] - c1["cache_misses"] >= 3
    out = nfvd.stop()
    want = ([routed(mk("198.18.0.1", UDP(sport=1, dport=53), P0)[IP])] * 9 +
            [routed(mk("198.18.0.3", TCP(sport=1, dport=80), P0)[IP])] * 5)
    assert sorted(out["p1"]) == sorted(want)


def test_acl_set_cache_errors(tmp_path):
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=[])
    nfvd.cmd(*BASE[:1])
    nfvd.start()
    for line in ("acl set cache", "acl set cache maybe", "acl set cash on",
                 "acl set cache on off"):
        with pytest.raises(CtlError, match="usage: acl set cache on\\|off"):
            nfvd.ctl(line)
    nfvd.ctl("acl set cache off")
    assert nfvd.stats()["acl"]["cache"] is False
    nfvd.ctl("acl set cache on")
    assert nfvd.stats()["acl"]["cache"] is True
    nfvd.stop()
