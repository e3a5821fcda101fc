# SPDX-License-Identifier: BSD-3-Clause
"""
ECMP: properties of the member nfvd picks for a flow, never the member itself
(how the flow hash picks is nfvd's business):

- the flows to a group spread over all its members: with 256 flows per family
  over four members, every member carries some and none carries them all;
- every packet of a flow leaves by the same member, byte for byte as that
  member sends it (TTL / hop limit - 1, its neighbor's MAC, its port's MAC);
- removing a member moves only the flows that were on it, to the members
  left; the other flows keep their member. A member goes when its neighbor
  is deleted, or when the route is added again without it.

The group is 198.18.0.0/16 and 2001:db8:100::/48 via two gateways on p1 and
two on p2, each with its own MAC. Each round of packets comes in on a new
port; the payload names the round, the flow and the packet, so that the
egress pcaps, read at exit, say which member carried what.
"""
import random
from collections import Counter

import pytest

from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import nfvdlib
from topo import routed4, routed6

SEED = 4242
N_FLOWS = 256          # per family
PACKETS = 2            # per flow and round
EGRESS = ("p1", "p2")
# Members in "via" order: (port, IPv4 gateway, IPv6 gateway, neighbor MAC).
MEMBERS = [("p1", "10.1.0.1", "2001:db8:1::1", "02:00:00:00:01:01"),
           ("p1", "10.1.0.2", "2001:db8:1::2", "02:00:00:00:01:02"),
           ("p2", "10.2.0.1", "2001:db8:2::1", "02:00:00:00:02:01"),
           ("p2", "10.2.0.2", "2001:db8:2::2", "02:00:00:00:02:02")]
PREFIX = {4: "198.18.0.0/16", 6: "2001:db8:100::/48"}


def route_add(members):
    """The two ECMP routes over members (indexes into MEMBERS)."""
    return ["route add %s %s" % (PREFIX[fam], " ".join(
        "via %s" % MEMBERS[m][1 if fam == 4 else 2] for m in members)) for fam in (4, 6)]


def neigh(verb, m):
    port, gw4, gw6, mac = MEMBERS[m]
    ll = " lladdr %s" % mac if verb == "add" else ""
    return ["neigh %s %s%s dev %s" % (verb, gw, ll, port) for gw in (gw4, gw6)]


def router(nfvd):
    d = nfvd()
    for p in EGRESS:
        d.add_port(p)
    d.cmd("addr add 10.1.0.254/24 dev p1", "addr add 2001:db8:1::fe/64 dev p1",
          "addr add 10.2.0.254/24 dev p2", "addr add 2001:db8:2::fe/64 dev p2")
    for m in range(len(MEMBERS)):
        d.cmd(*neigh("add", m))
    d.cmd(*route_add(range(len(MEMBERS))))
    return d


def flows():
    """[(family, flow number, the flow's headers without Ethernet and payload)]:
    random addresses and ports, UDP and TCP; IPv6 with a flow label."""
    rng = random.Random(SEED)
    out = []
    for i in range(N_FLOWS):
        l4 = (UDP if i % 2 else TCP)(sport=rng.randint(1024, 65535),
                                     dport=rng.choice([53, 80, 443, rng.randint(1, 65535)]))
        out.append((4, i, IP(src="100.%d.%d.%d" % (rng.randint(64, 127), rng.randint(0, 255),
                                                  rng.randint(1, 254)),
                             dst="198.18.%d.%d" % (rng.randint(0, 255), rng.randint(1, 254)))
                    / l4))
    for i in range(N_FLOWS):
        out.append((6, i, IPv6(src="2001:db8:ffff::%x" % rng.randint(1, 0xFFFF),
                               dst="2001:db8:100::%x:%x" % (rng.randint(0, 0xFFFF),
                                                            rng.randint(1, 0xFFFF)),
                               fl=rng.getrandbits(20))
                    / UDP(sport=rng.randint(1024, 65535), dport=rng.randint(1, 65535))))
    return out


def tag(rnd, fam, flow, k):
    return b"ecmp r%d f%d.%04d k%d" % (rnd, fam, flow, k)


def parse_tag(payload):
    words = payload.split(b" ")
    fam, flow = words[2][1:].split(b".")
    return int(words[1][1:]), int(fam), int(flow), int(words[3][1:])


class Rounds:
    """Rounds of the same flows through one nfvd, and what came out."""

    def __init__(self, d):
        self.d = d
        self.flows = flows()
        self.sent = {}     # (round, family, flow, k) -> input frame
        self.n = 0

    def frames(self):
        """The frames of a new round, to the next port added: every flow,
        PACKETS packets each (what varies inside a flow: IPv4 id and TTL, IPv6
        hop limit, the payload and its length)."""
        self.n += 1
        mac = nfvdlib.pcap_mac(self.d.n_pcap)
        frames = []
        for k in range(PACKETS):
            for fam, i, hdr in self.flows:
                l3 = hdr.copy()
                if fam == 4:
                    l3.id, l3.ttl = (self.n * 7 + k) & 0xFFFF, 64 - k
                else:
                    l3.hlim = 64 - k
                f = Ether(src="02:00:00:00:ff:01", dst=mac) / l3 / Raw(
                    tag(self.n, fam, i, k) + b"." * (k * 9))
                self.sent[(self.n, fam, i, k)] = f
                frames.append(f)
        return frames

    def send(self):
        """One round in by a new port; the final "show stats"."""
        frames = self.frames()
        name = "in%d" % self.n
        self.d.add_port_now(name, rx=frames)
        st = self.d.wait_processed({name: len(frames)})
        self.d.del_port_now(name)
        return st

    def members(self, outputs):
        """Which members carried each flow, from outputs ({port: frames}, what
        stop() returns): ({round: {(family, flow): {member index}}}, problems).
        Each frame must be exactly what a member sends for a packet that was
        sent, and each packet must be sent once."""
        port_mac = {p: self.d.ports[p].mac for p in EGRESS}
        by_dst = {(port, mac): m for m, (port, _g4, _g6, mac) in enumerate(MEMBERS)}
        seen, problems = set(), []
        got = {}
        for port in EGRESS:
            for b in outputs[port]:
                e = Ether(b)
                key = parse_tag(bytes(e[Raw].load).rstrip(b"."))
                m = by_dst.get((port, e.dst))
                f = self.sent.get(key)
                if m is None or f is None or key in seen:
                    problems.append("%s: unexpected frame %s" % (port, e.summary()))
                    continue
                seen.add(key)
                routed = routed4 if key[1] == 4 else routed6
                want = bytes(routed(f, MEMBERS[m][3], port_mac[port]))
                if b != want:
                    problems.append("round %d family %d flow %d packet %d: out %s to %s as\n"
                                    "  %s\n  expected\n  %s" % (key + (port, e.dst, b.hex(),
                                                                       want.hex())))
                got.setdefault(key[0], {}).setdefault(key[1:3], set()).add(m)
        missing = sorted(set(self.sent) - seen)
        if missing:
            problems.append("%d packets not sent, first ones (round, family, flow, packet): %s"
                            % (len(missing), missing[:10]))
        return got, problems


def one_member_per_flow(rnd, flows):
    """Every packet of a flow left by the same member."""
    split = {f: sorted(ms) for f, ms in flows.items() if len(ms) > 1}
    return ["round %d: %d flows left by more than one member, first ones "
            "((family, flow): members): %s" % (rnd, len(split), sorted(split.items())[:10])
            ] if split else []


def member_of(flows):
    return {f: min(ms) for f, ms in flows.items()}


def spread(rnd, flows, members):
    """The flows of each family spread over all members: each carries some."""
    problems = []
    for fam in (4, 6):
        load = Counter(m for (fa, _i), m in member_of(flows).items() if fa == fam)
        if set(load) != set(members) or len(load) < 2:
            problems.append("round %d, IPv%d: %d flows over members %s went to %s" % (
                rnd, fam, sum(load.values()), sorted(members), dict(load)))
    return problems


def only_moved_from(rnd, before, after, gone, members_left):
    """Flows on a member that stayed keep it; those on the member gone now use a
    member left."""
    before, after = member_of(before), member_of(after)
    kept = [f for f, m in before.items() if m != gone]
    moved = [f for f in kept if after[f] != before[f]]
    stray = [f for f, m in before.items() if m == gone and after[f] not in members_left]
    problems = []
    if moved:
        problems.append("round %d: member %d gone, %d of the %d flows on the other members "
                        "moved, first ones ((family, flow): member before -> after): %s" % (
                            rnd, gone, len(moved), len(kept),
                            ["%s: %d -> %d" % (f, before[f], after[f]) for f in moved[:10]]))
    if stray:
        problems.append("round %d: flows of member %d did not go to a member left %s: %s" % (
            rnd, gone, sorted(members_left), stray[:10]))
    return problems


def run(nfvd, change, gone):
    """Round 1 with every member; change (commands) removes member gone; round 2.
    Returns the problems found."""
    d = router(nfvd)
    d.start()
    r = Rounds(d)
    st1 = r.send()
    d.ctl_batch(change)
    st2 = r.send()
    outputs = d.stop()
    got, problems = r.members(outputs)
    left = [m for m in range(len(MEMBERS)) if m != gone]
    for st in (st1, st2):
        assert not nfvdlib.drops(st), nfvdlib.drops(st)
    assert st2["packets"]["forwarded"] == st2["packets"]["received"] == len(r.sent)
    tx = {p["name"]: p["tx_packets"] for p in st2["ports"] if p["name"] in EGRESS}
    assert tx == {p: len(outputs[p]) for p in EGRESS}, (tx, {p: len(outputs[p]) for p in EGRESS})
    if problems:
        return problems
    problems += one_member_per_flow(1, got[1]) + one_member_per_flow(2, got[2])
    problems += spread(1, got[1], range(len(MEMBERS))) + spread(2, got[2], left)
    problems += only_moved_from(2, got[1], got[2], gone, left)
    return problems


def test_ecmp_neighbor_deleted(nfvd):
    """The neighbor of member 1 is deleted: only its flows move."""
    problems = run(nfvd, neigh("del", 1), gone=1)
    assert not problems, "\n".join(problems)


def test_ecmp_route_without_a_member(nfvd):
    """The route is added again without member 2: only its flows move."""
    problems = run(nfvd, route_add([0, 1, 3]), gone=2)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", ["fast", "chain", "reroute"])
def test_ecmp_behind_an_ingress_acl(nfvd, path):
    """An ACL in on the receiving port denies TCP to port 80 and UDP to ports
    below 10000 and permits the rest. Packets are then forwarded before
    the ACL (it keeps the route) and the lookup sends them on by the member
    the fused node chose; "chain": the node chain from the input node;
    "reroute": the lookup routes each again. On each path every packet the ACL permits leaves
    byte for byte as a member sends it, each flow by the member it takes with
    no ACL at all, and every other packet is an acl/denied drop."""
    def deny(fam, hdr):
        l4 = hdr[TCP] if TCP in hdr else hdr[UDP]
        return l4.dport == 80 if TCP in hdr else l4.dport < 10000

    mapping = {}
    for with_acl in (False, True):
        d = router(nfvd)
        r = Rounds(d)
        frames = r.frames()
        d.add_port("in", rx=frames)
        if with_acl:
            d.cmd("acl add ain", "acl rule add ain prio 1 proto tcp dport 80 action deny",
                  "acl rule add ain prio 2 proto udp dport 0-9999 action deny",
                  "acl rule add ain prio 3 action permit", "acl attach ain dev in in")
            if path == "chain":
                d.cmd("debug fastpath off")
            if path == "reroute":
                d.cmd("debug reroute on")
        denied = {k for k in r.sent if with_acl and deny(k[1], r.flows[
            k[2] if k[1] == 4 else N_FLOWS + k[2]][2])}
        assert 0 < len(denied) < len(r.sent) or not with_acl
        d.start()
        st = d.wait_processed({"in": len(frames)})
        want_drops = {"acl/denied": len(denied)} if denied else {}
        assert nfvdlib.drops(st) == want_drops, nfvdlib.drops(st)
        assert st["packets"]["forwarded"] == len(frames) - len(denied)
        g = {}
        for x in d.ctl("show graph")["nodes"]:
            g[x["node"]] = g.get(x["node"], 0) + x["packets"]
        for fam in (4, 6) if with_acl else ():
            x = "ip%d" % fam
            n_fam = sum(1 for k in r.sent if k[1] == fam)
            permitted = n_fam - sum(1 for k in denied if k[1] == fam)
            assert g["acl_in%d" % fam] == n_fam, g
            assert g["%s_lookup" % x] == permitted, g
            rerouted = permitted if path == "reroute" else 0
            assert g.get("%s_rewrite" % x, 0) == rerouted, g
            assert st[x]["routed_again"] == rerouted, st[x]
        outputs = d.stop()
        for k in denied:
            del r.sent[k]
        got, problems = r.members(outputs)
        assert not problems, "\n".join(problems)
        problems = one_member_per_flow(1, got[1]) + spread(1, got[1], range(len(MEMBERS)))
        assert not problems, "\n".join(problems)
        mapping[with_acl] = member_of(got[1])
    moved = {f: (mapping[False][f], m) for f, m in mapping[True].items()
             if mapping[False][f] != m}
    assert not moved, "flows by another member behind the ACL: %s" % sorted(moved.items())[:10]
