# SPDX-License-Identifier: BSD-3-Clause
"""
Table-driven packet cases (STYLE rule 8): each case is the scapy expression
that built the input frame, the port it arrives on, and the verdict: the
frames nfvd must send (port and exact bytes, built by scapy from the input),
the drop reasons the input is counted under, and the ICMP counters it moves.

run_cases() sends every case through one nfvd and checks all of it exactly:
every expected frame present byte for byte, nothing else transmitted, every
counter (received, forwarded, each drop reason, each ICMP counter, per port
rx/tx) equal to the sum over the cases.
"""
from collections import Counter
from dataclasses import dataclass, field

from scapy.layers.l2 import Ether

import nfvdlib
from topo import BACK, ICMP4_SRC, ICMP6_SRC, icmp4_error, icmp6_error, routed4, routed6
from topo import echo_reply4, echo_reply6, ecmp_frame4, ecmp_frame6

ICMP_COUNTERS = ["%s.%s" % (f, k) for f in ("icmp", "icmp6") for k in
                 ("errors_sent", "rate_limited", "no_source_address", "not_allowed",
                  "echo_replies")]


@dataclass
class Verdict:
    outs: list = field(default_factory=list)      # [frame -> (port, scapy packet)]
    drops: list = field(default_factory=list)     # ["node/reason", ...]
    counters: Counter = field(default_factory=Counter)  # {"icmp.errors_sent": 1, ...}

    def __add__(self, other):
        return Verdict(self.outs + other.outs, self.drops + other.drops,
                       self.counters + other.counters)

    def describe(self):
        parts = ["drop %s" % d for d in self.drops]
        parts += ["%s +%d" % kv for kv in sorted(self.counters.items())]
        parts += ["%d frame(s) out" % len(self.outs)] if self.outs else []
        return ", ".join(parts) or "nothing"


@dataclass
class Case:
    name: str
    port: str      # ingress port
    frame: object  # the scapy packet (or bytes) nfvd receives
    verdict: Verdict

    def expected_outputs(self):
        res = []
        for fn in self.verdict.outs:
            port, pkt = fn(self.frame)
            res.append((port, bytes(pkt), pkt))
        return res


def _c(**kw):
    return Counter({k.replace("__", "."): v for k, v in kw.items()})


# ---- verdicts --------------------------------------------------------------------------------

def fwd4(port, dmac, smac):
    """Forwarded out port to dmac, TTL - 1."""
    return Verdict(outs=[lambda f: (port, routed4(f, dmac, smac))])


def fwd6(port, dmac, smac):
    return Verdict(outs=[lambda f: (port, routed6(f, dmac, smac))])


def ecmp4(members):
    """Forwarded to the member of the ECMP group the flow hash picks."""
    return Verdict(outs=[lambda f: ecmp_frame4(f, members)])


def ecmp6(members):
    return Verdict(outs=[lambda f: ecmp_frame6(f, members)])


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


def expected_totals(cases):
    """What the counters must read after all cases went through."""
    t = {"received": len(cases), "drops": Counter(), "icmp": Counter(),
         "rx": Counter(), "tx": Counter(), "forwarded": 0}
    for c in cases:
        t["rx"][c.port] += 1
        t["drops"].update(c.verdict.drops)
        t["icmp"].update(c.verdict.counters)
        for port, _b, _p in c.expected_outputs():
            t["tx"][port] += 1
            t["forwarded"] += 1
    return t


def check_outputs(cases, outputs):
    """Every expected frame on its port byte for byte, and nothing else."""
    want = {}
    for c in cases:
        for port, b, _pkt in c.expected_outputs():
            want.setdefault(port, []).append((b, c))
    problems = []
    # Self-check of the table: two cases expecting the same bytes would hide a loss.
    for port, lst in want.items():
        dup = [b for b, n in Counter(b for b, _c in lst).items() if n > 1]
        assert not dup, "test table: cases %s expect identical frames on %s" % (
            [c.name for b, c in lst if b in dup], port)
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
    return problems


def command_of(frame, limit=300):
    """The scapy expression of a frame (shortened: some carry kilobytes of payload)."""
    s = frame.command() if hasattr(frame, "command") else bytes(frame).hex()
    return s if len(s) <= limit else s[:limit] + "...(%d more chars)" % (len(s) - limit)


def check_counters(cases, st, rx_ports):
    """The counters of show stats against the sum of the verdicts."""
    t = expected_totals(cases)
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
