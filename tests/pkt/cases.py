# SPDX-License-Identifier: BSD-3-Clause
"""
Table-driven packet cases (STYLE rule 8): each case is the scapy expression
that built the input frame, the port it arrives on, and the verdict: the
frames nfvd must send (port and exact bytes, built by scapy from the input),
the drop reasons the input is counted under, and the ICMP counters it moves.

A packet to an ECMP group must leave by one member of the group, as that
member forwards it (exact bytes); which member is nfvd's choice, and the
tests check properties of the choice instead of predicting it: every packet
of a flow leaves by the same member, and the flows of a group spread over
all its members (check_ecmp).

check_outputs() and check_counters() check everything exactly: every
expected frame present byte for byte, nothing else transmitted, every
counter (received, forwarded, each drop reason, each ICMP counter, per port
rx/tx) equal to the sum over the cases.
"""
from collections import Counter
from dataclasses import dataclass, field

from scapy.layers.inet import IP, fragment
from scapy.layers.l2 import Ether

import nfvdlib
from topo import BACK, ICMP4_SRC, ICMP6_SRC, icmp4_error, icmp6_error, routed4, routed6
from topo import echo_reply4, echo_reply6, ecmp_frames4, ecmp_frames6

ICMP_COUNTERS = ["%s.%s" % (f, k) for f in ("icmp", "icmp6") for k in
                 ("errors_sent", "rate_limited", "no_source_address", "not_allowed",
                  "echo_replies")]


@dataclass
class Ecmp:
    """Forwarded by one member of an ECMP group, whichever nfvd picks.
    group: the group's prefix; frames: frame -> [(port, scapy packet)], the
    frame as each member would send it; flow: the packets of one flow (same
    group and flow) must leave by the same member (None: a flow of its own)."""
    group: str
    frames: object
    flow: object = None


@dataclass
class Verdict:
    outs: list = field(default_factory=list)      # [frame -> (port, scapy packet)]
    drops: list = field(default_factory=list)     # ["node/reason", ...]
    counters: Counter = field(default_factory=Counter)  # {"icmp.errors_sent": 1, ...}
    ecmp: Ecmp = None                             # one more frame, out of an ECMP group

    def __add__(self, other):
        assert self.ecmp is None or other.ecmp is None
        return Verdict(self.outs + other.outs, self.drops + other.drops,
                       self.counters + other.counters, self.ecmp or other.ecmp)

    def describe(self):
        parts = ["drop %s" % d for d in self.drops]
        parts += ["%s +%d" % kv for kv in sorted(self.counters.items())]
        parts += ["%d frame(s) out" % len(self.outs)] if self.outs else []
        parts += ["1 frame out of ECMP %s" % self.ecmp.group] if self.ecmp else []
        return ", ".join(parts) or "nothing"


@dataclass
class Case:
    name: str
    port: str      # ingress port
    frame: object  # the scapy packet (or bytes) nfvd receives
    verdict: Verdict

    def expected_outputs(self):
        """[(port, bytes, packet)] of the frames this case must send (ECMP aside)."""
        res = []
        for fn in self.verdict.outs:
            port, pkt = fn(self.frame)
            res.append((port, bytes(pkt), pkt))
        return res

    def ecmp_alternatives(self):
        """[(port, bytes, packet)]: the frame as each member of the case's ECMP group
        would send it (one of them must be sent); [] without ECMP."""
        if self.verdict.ecmp is None:
            return []
        return [(port, bytes(pkt), pkt) for port, pkt in self.verdict.ecmp.frames(self.frame)]


def _c(**kw):
    return Counter({k.replace("__", "."): v for k, v in kw.items()})


# ---- verdicts --------------------------------------------------------------------------------

def fwd4(port, dmac, smac):
    """Forwarded out port to dmac, TTL - 1."""
    return Verdict(outs=[lambda f: (port, routed4(f, dmac, smac))])


def frag4(port, dmac, smac, mtu, n):
    """Forwarded out port to dmac (TTL - 1) in n fragments that fit mtu, as
    scapy's fragment() cuts the routed packet (data in multiples of 8 bytes,
    the last one's MF flag the packet's own; every option in every
    fragment: the cases have none), each header checksum computed afresh."""
    def piece(k):
        def out(f):
            ip = IP(bytes(routed4(f, dmac, smac)[IP]))
            frags = fragment(ip, fragsize=(mtu - ip.ihl * 4) // 8 * 8)
            assert len(frags) == n, "test table: %d fragments, not %d" % (len(frags), n)
            return (port, Ether(dst=dmac, src=smac) / IP(bytes(frags[k])))
        return out
    return Verdict(outs=[piece(k) for k in range(n)])


def fwd6(port, dmac, smac):
    return Verdict(outs=[lambda f: (port, routed6(f, dmac, smac))])


def ecmp4(group, flow=None):
    """Forwarded by one member of an ECMP group (topo.ECMP4: prefix, members);
    flow: a name shared by the packets of one flow (None: a flow of its own)."""
    prefix, members = group
    return Verdict(ecmp=Ecmp(prefix, lambda f: ecmp_frames4(f, members), flow))


def ecmp6(group, flow=None):
    prefix, members = group
    return Verdict(ecmp=Ecmp(prefix, lambda f: ecmp_frames6(f, members), flow))


def drop(*reasons, **counters):
    """Dropped, counted under reasons; counters like icmp__not_allowed=1."""
    return Verdict(drops=list(reasons), counters=_c(**counters))


def err4(reason, type, code, mtu=None, ingress="p0", back=None):
    """Dropped under reason, and answered with an ICMP error out the port
    toward the sender (back: the ingress port unless routing is asymmetric)
    from that port's first address (RFC 1812 4.3.2.4)."""
    back = back or ingress
    return Verdict(
        outs=[lambda f: (BACK[back][0],
                         icmp4_error(f, ICMP4_SRC[back], BACK[back], type, code, mtu))],
        drops=[reason], counters=_c(icmp__errors_sent=1))


def err6(reason, icmp, ingress="p0", back=None):
    back = back or ingress
    return Verdict(
        outs=[lambda f: (BACK[back][0],
                         icmp6_error(f, ICMP6_SRC[back], BACK[back], icmp.copy()))],
        drops=[reason], counters=_c(icmp6__errors_sent=1))


def echo4(ingress="p0"):
    """Answered with an ICMP echo reply, routed back to the sender."""
    return Verdict(outs=[lambda f: (BACK[ingress][0], echo_reply4(f, BACK[ingress]))],
                   counters=_c(icmp__echo_replies=1))


def echo6(ingress="p0"):
    return Verdict(outs=[lambda f: (BACK[ingress][0], echo_reply6(f, BACK[ingress]))],
                   counters=_c(icmp6__echo_replies=1))


# ---- running ---------------------------------------------------------------------------------

def _show(b):
    try:
        return Ether(b).show2(dump=True)
    except Exception:  # noqa: BLE001 - a dump for a failure message
        return b.hex()


def ecmp_members(cases, outputs):
    """{case index: (member index, port)} of the ECMP cases whose frame is in
    outputs ({port: [frames]}), as one of the members of its group sends it."""
    sent = {port: set(frames) for port, frames in outputs.items()}
    found = {}
    for i, c in enumerate(cases):
        for k, (port, b, _pkt) in enumerate(c.ecmp_alternatives()):
            if b in sent.get(port, ()):
                found[i] = (k, port)
                break
    return found


def check_ecmp(cases, members):
    """Properties of nfvd's choice of ECMP members, not the choice: every packet of
    a flow leaves by the same member, and the flows of a group spread over all its
    members (each one carries some, so none carries them all). members: what
    ecmp_members() found."""
    problems = []
    flows = {}      # (group, flow) -> {member port: [case names]}
    n_members = {}  # group -> member count
    for i, c in enumerate(cases):
        e = c.verdict.ecmp
        if e is None or i not in members:
            continue
        n_members[e.group] = len(c.ecmp_alternatives())
        key = (e.group, e.flow if e.flow is not None else ("case", i))
        flows.setdefault(key, {}).setdefault(members[i], []).append(c.name)
    per_member = {g: Counter() for g in n_members}
    for (group, _flow), by_member in flows.items():
        if len(by_member) > 1:
            problems.append("ECMP %s: the packets of one flow left by different members: %s"
                            % (group, {"%s (member %d)" % (port, k): names
                                       for (k, port), names in by_member.items()}))
        for member in by_member:
            per_member[group][member] += 1
    for group, n in n_members.items():
        used = per_member[group]
        if len(used) < n:
            problems.append("ECMP %s: %d flows over %d members went to %s only" % (
                group, sum(used.values()), n,
                {"%s (member %d)" % (port, k): f for (k, port), f in used.items()}))
    return problems


def expected_totals(cases, members=None):
    """What the counters must read after all cases went through. members: where
    the ECMP cases' frames went (ecmp_members)."""
    t = {"received": len(cases), "drops": Counter(), "icmp": Counter(),
         "rx": Counter(), "tx": Counter(), "forwarded": 0}
    for i, c in enumerate(cases):
        t["rx"][c.port] += 1
        t["drops"].update(c.verdict.drops)
        t["icmp"].update(c.verdict.counters)
        for port, _b, _p in c.expected_outputs():
            t["tx"][port] += 1
            t["forwarded"] += 1
        if c.verdict.ecmp is not None:
            t["forwarded"] += 1
            if members is None:
                raise ValueError("ECMP cases: the counters need the outputs")
            if i in members:
                t["tx"][members[i][1]] += 1
    return t


def check_outputs(cases, outputs):
    """Every expected frame on its port byte for byte (an ECMP case's on the port of
    one member of its group, as that member sends it), nothing else, and the
    properties of the ECMP choices (check_ecmp)."""
    want = {}
    for c in cases:
        for port, b, _pkt in c.expected_outputs():
            want.setdefault(port, []).append((b, c))
    possible = {}
    for c in cases:
        for port, b, _pkt in c.expected_outputs() + c.ecmp_alternatives():
            possible.setdefault(port, []).append((b, c))
    problems = []
    # Self-check of the table: two cases expecting the same bytes would hide a loss.
    for port, lst in possible.items():
        dup = [b for b, n in Counter(b for b, _c in lst).items() if n > 1]
        assert not dup, "test table: cases %s expect identical frames on %s" % (
            [c.name for b, c in lst if b in dup], port)
    members = ecmp_members(cases, outputs)
    for i, c in enumerate(cases):
        if c.verdict.ecmp is None:
            continue
        if i in members:
            k, port = members[i]
            want.setdefault(port, []).append((c.ecmp_alternatives()[k][1], c))
        else:
            problems.append("case %r (input %s): expected out of ECMP %s by one of %s, "
                            "found on none:\n%s" % (
                                c.name, command_of(c.frame), c.verdict.ecmp.group,
                                [port for port, _b, _p in c.ecmp_alternatives()],
                                "\n".join(_show(b) for _port, b, _p in c.ecmp_alternatives())))
    for port in sorted(set(want) | set(outputs)):
        got = Counter(outputs.get(port, []))
        for b, c in want.get(port, []):
            if got[b] > 0:
                got[b] -= 1
            else:
                problems.append("case %r (input %s): expected frame missing on %s:\n%s" % (
                    c.name, command_of(c.frame), port, _show(b)))
        for b, n in got.items():
            for _ in range(n):
                problems.append("unexpected frame on %s:\n%s" % (port, _show(b)))
    return problems + check_ecmp(cases, members)


def command_of(frame, limit=300):
    """The scapy expression of a frame (shortened: some carry kilobytes of payload)."""
    s = frame.command() if hasattr(frame, "command") else bytes(frame).hex()
    return s if len(s) <= limit else s[:limit] + "...(%d more chars)" % (len(s) - limit)


def check_counters(cases, st, rx_ports, outputs=None):
    """The counters of show stats against the sum of the verdicts; outputs (what
    the ports sent) tells where the ECMP cases' frames went."""
    t = expected_totals(cases, None if outputs is None else ecmp_members(cases, outputs))
    problems = []
    pk = st["packets"]
    if pk["received"] != t["received"]:
        problems.append("received %d, expected %d" % (pk["received"], t["received"]))
    if pk["forwarded"] != t["forwarded"]:
        problems.append("forwarded %d, expected %d" % (pk["forwarded"], t["forwarded"]))
    got_drops = nfvdlib.drops(st)
    if got_drops != t["drops"]:
        for r in sorted(set(got_drops) | set(t["drops"])):
            if got_drops[r] != t["drops"][r]:
                problems.append("drop %s: %d, expected %d (cases: %s)" % (
                    r, got_drops[r], t["drops"][r],
                    [c.name for c in cases if r in c.verdict.drops]))
    if pk["dropped"] != sum(t["drops"].values()):
        problems.append("dropped %d, expected %d" % (pk["dropped"], sum(t["drops"].values())))
    icmp = nfvdlib.icmp_counters(st)
    for k in ICMP_COUNTERS:
        if icmp[k] != t["icmp"][k]:
            problems.append("%s: %d, expected %d (cases: %s)" % (
                k, icmp[k], t["icmp"][k], [c.name for c in cases if c.verdict.counters[k]]))
    ports = {p["name"]: p for p in st["ports"]}
    for name in rx_ports:
        if ports[name]["rx_packets"] != t["rx"][name]:
            problems.append("port %s rx %d, expected %d" % (name, ports[name]["rx_packets"],
                                                            t["rx"][name]))
        if ports[name]["tx_packets"] != t["tx"][name]:
            problems.append("port %s tx %d, expected %d" % (name, ports[name]["tx_packets"],
                                                            t["tx"][name]))
    if nfvdlib.balance(st) != 0:
        problems.append("received + ICMP errors sent != forwarded + dropped (off by %d)"
                        % nfvdlib.balance(st))
    if st["tables"]["mbufs_in_use"] != 0:
        problems.append("%d mbufs in use after the traffic" % st["tables"]["mbufs_in_use"])
    return problems
