# SPDX-License-Identifier: BSD-3-Clause
"""
Routes, neighbors and ports change while packets flow: a pcap port replays
its file endlessly (infinite_rx) into nfvd, which forwards to two net_null
ports, while thousands of "route add/del", "route load", "neigh del/add" and
"port set down/up" commands go through nfvctl, and an egress port is removed
and added again. nfvd must stay up, every packet must be accounted for
(received + ICMP errors = forwarded + dropped, under the reasons a route
change can explain), the route table must end exactly as the commands left
it, traffic sent afterwards must follow that table (on both FIBs of the
pair; a packet to an ECMP group by any of its members, and the same flows
by the same ports each time they are sent), "stats reset" must restart
every counter from zero, no next-hop reference may leak, and every mbuf
must come home at exit.
"""
import ipaddress
import itertools
import random
import time
from collections import Counter

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import nfvdlib

SEED = 7
ROUNDS = 5000
GW4 = {"p1": ["10.1.0.%d" % k for k in (1, 2, 3)], "p2": ["10.2.0.%d" % k for k in (1, 2, 3)]}
GW6 = {"p1": ["2001:db8:1::%d" % k for k in (1, 2, 3)],
       "p2": ["2001:db8:2::%d" % k for k in (1, 2, 3)]}
FLAPPING = ("p2", "10.2.0.3", "2001:db8:2::3")    # neighbor deleted and added again
ALLOWED_DROPS = {"ip4_lookup/no_route", "ip6_lookup/no_route", "ip4_lookup/blackhole",
                 "ip6_lookup/blackhole", "ip4_rewrite/neigh_unresolved",
                 "ip6_rewrite/neigh_unresolved", "ip4_rewrite/no_route", "ip6_rewrite/no_route",
                 "port_tx/port_down"}


def gw_port(gw):
    for table in (GW4, GW6):
        for port, gws in table.items():
            if gw in gws:
                return port
    raise KeyError(gw)


def config():
    # Static neighbors only: a next hop without one drops (no ARP/NS sent).
    lines = ["neigh set resolve off"]
    for port, n in (("p1", 1), ("p2", 2)):
        lines += ["addr add 10.%d.0.254/24 dev %s" % (n, port),
                  "addr add 2001:db8:%d::fe/64 dev %s" % (n, port)]
        for k in (1, 2, 3):
            mac = "02:00:00:00:%02x:%02x" % (n, k)
            lines += ["neigh add %s lladdr %s dev %s" % (GW4[port][k - 1], mac, port),
                      "neigh add %s lladdr %s dev %s" % (GW6[port][k - 1], mac, port)]
    lines += ["route add 172.31.0.0/16 via 10.1.0.1",
              "route add 2001:db8:ff::/48 via 2001:db8:1::1"]
    return lines


def churn_prefixes():
    p4 = ["172.16.%d.0/24" % x for x in range(64)] + ["172.16.%d.128/25" % x for x in range(64)]
    p6 = ["2001:db8:100:%x::/64" % x for x in range(32)] + ["2001:db8:100::/56"]
    return [str(ipaddress.ip_network(p)) for p in p4 + p6]   # as "route show" writes them


def traffic(in_mac, tag=b"churn"):
    """Frames to every churned prefix (both halves of each /24), the stable
    routes and an unrouted address."""
    e = Ether(dst=in_mac, src="02:00:00:00:99:01")
    fr = []
    for x in range(64):
        for host in (5, 200):
            fr.append(e / IP(src="100.64.0.1", dst="172.16.%d.%d" % (x, host)) / UDP(sport=x)
                      / Raw(tag))
    for x in range(32):
        fr.append(e / IPv6(src="2001:db8:ffff::1", dst="2001:db8:100:%x::5" % x) / UDP(sport=x)
                  / Raw(tag))
    fr += [e / IP(src="100.64.0.1", dst="172.31.1.1") / UDP() / Raw(tag),
           e / IPv6(src="2001:db8:ffff::1", dst="2001:db8:ff::1") / UDP() / Raw(tag),
           e / IP(src="100.64.0.1", dst="8.8.8.8") / UDP() / Raw(tag)]
    return fr


class Model:
    """What the static routes and the flapping neighbor should be."""

    def __init__(self):
        self.routes = {}          # prefix -> ("via", [gw...]) | ("blackhole",)
        self.flap_resolved = True
        self.p2_up = True

    def random_command(self, rng):
        """One command that cannot fail, applied to the model."""
        x = rng.random()
        if x < 0.04:
            port, gw4, gw6 = FLAPPING
            if self.flap_resolved:
                self.flap_resolved = False
                return ["neigh del %s dev %s" % (gw4, port), "neigh del %s dev %s" % (gw6, port)]
            self.flap_resolved = True
            return ["neigh add %s lladdr 02:00:00:00:02:03 dev %s" % (gw4, port),
                    "neigh add %s lladdr 02:00:00:00:02:03 dev %s" % (gw6, port)]
        if x < 0.06:
            self.p2_up = not self.p2_up
            return ["port set p2 %s" % ("up" if self.p2_up else "down")]
        p = rng.choice(churn_prefixes())
        if p in self.routes:
            del self.routes[p]
            return ["route del %s" % p]
        v6 = ":" in p
        gws = GW6 if v6 else GW4
        # Any gateway for any prefix: a more specific route often has the next hop
        # of the route covering it (the IPv4 FIB's reservation count drifts on
        # those; nfvd rebuilds a table that runs out of room, under traffic here).
        if rng.random() < 0.1:
            self.routes[p] = ("blackhole",)
            return ["route add %s blackhole" % p]
        all_gws = gws["p1"] + gws["p2"]
        vias = rng.sample(all_gws, rng.choice([1, 1, 1, 2, 3]))
        self.routes[p] = ("via", vias)
        return ["route add %s %s" % (p, " ".join("via %s" % g for g in vias))]

    def spread_groups(self):
        """Commands for ECMP groups with a member on each port, on a quarter of
        the churned prefixes."""
        groups = [("172.16.%d.0/24" % x, [GW4["p1"][x % 3], GW4["p2"][x // 4 % 3]])
                  for x in range(0, 64, 4)]
        groups += [("2001:db8:100:%x::/64" % x, [GW6["p2"][x // 4 % 3], GW6["p1"][x % 3]])
                   for x in range(0, 32, 4)]
        cmds = []
        for p, vias in groups:
            p = str(ipaddress.ip_network(p))   # as "route show" writes it
            self.routes[p] = ("via", vias)
            cmds.append("route add %s %s" % (p, " ".join("via %s" % g for g in vias)))
        return cmds

    def port_removed(self, port):
        gws = set(GW4[port] + GW6[port])
        self.routes = {p: a for p, a in self.routes.items()
                       if a[0] != "via" or not gws & set(a[1])}

    def lookup(self, dst):
        a = ipaddress.ip_address(dst)
        best = None
        for p, act in self.routes.items():
            net = ipaddress.ip_network(p)
            if a.version == net.version and a in net and (best is None or
                                                           net.prefixlen > best[0].prefixlen):
                best = (net, act)
        if a.version == 4 and a in ipaddress.ip_network("172.31.0.0/16"):
            return ("via", ["10.1.0.1"])
        if a.version == 6 and a in ipaddress.ip_network("2001:db8:ff::/48"):
            return ("via", ["2001:db8:1::1"])
        return best[1] if best else None

    def verdict(self, frame):
        """The outcomes one frame may have, ("tx", port) or ("drop", reason): one,
        or for an ECMP group one per member with a neighbor (which member carries
        a flow is nfvd's choice)."""
        e = Ether(bytes(frame))
        v4 = IP in e
        l3 = e[IP] if v4 else e[IPv6]
        fam = "ip4" if v4 else "ip6"
        act = self.lookup(l3.dst)
        if act is None:
            return frozenset([("drop", "%s_lookup/no_route" % fam)])
        if act[0] == "blackhole":
            return frozenset([("drop", "%s_lookup/blackhole" % fam)])
        live = [gw for gw in act[1] if gw not in FLAPPING[1:] or self.flap_resolved]
        if not live:
            return frozenset([("drop", "%s_rewrite/neigh_unresolved" % fam)])
        return frozenset(("drop", "port_tx/port_down") if gw_port(gw) == "p2" and not self.p2_up
                         else ("tx", gw_port(gw)) for gw in live)

    def route_show_static(self):
        out = {}
        for p, act in self.routes.items():
            if act[0] == "blackhole":
                out[p] = ("blackhole", None, None)
            elif len(act[1]) == 1:
                out[p] = ("gateway", act[1][0], gw_port(act[1][0]))
            else:
                out[p] = ("ecmp", tuple(act[1]), None)
        out["172.31.0.0/16"] = ("gateway", "10.1.0.1", "p1")
        out["2001:db8:ff::/48"] = ("gateway", "2001:db8:1::1", "p1")
        return out


def nexthops(d):
    """The next-hop table without ids: a multiset of what each entry is."""
    return Counter(tuple(sorted((k, str(v)) for k, v in nh.items() if k != "id"))
                   for nh in d.ctl("nexthop show")["nexthops"])


def static_routes(d):
    res = {}
    for r in d.ctl("route show")["routes"]:
        if r["source"] != "static":
            continue
        via = tuple(r["via"]) if isinstance(r["via"], list) else r["via"]
        res[r["prefix"]] = (r["type"], via, r["dev"])
    return res


def fits(got, want):
    """Whether the outcome counts got can come from frames with the possible
    outcomes want ({frozenset of outcomes: frames}): each frame has one of
    its outcomes. Hall's condition on every set of outcomes (a handful here)."""
    if sum(got.values()) != sum(want.values()):
        return False
    outcomes = sorted(set(got) | set().union(*want))
    for r in range(1, len(outcomes) + 1):
        for subset in itertools.combinations(outcomes, r):
            need = sum(n for options, n in want.items() if options <= set(subset))
            if need > sum(got[o] for o in subset):
                return False
    return True


def check_traffic(d, model, name, problems):
    """Sends the traffic once through a new port and checks every counter against
    the model. Returns the outcome counts."""
    in_mac = nfvdlib.pcap_mac(d.n_pcap)
    frames = traffic(in_mac, tag=name.encode())
    want = Counter(model.verdict(f) for f in frames)
    before = d.stats()
    d.add_port_now(name, rx=frames)
    after = d.wait_processed({name: len(frames)})
    got = Counter()
    for port in ("p1", "p2"):
        n = d.port_stats(after)[port]["tx_packets"] - d.port_stats(before)[port]["tx_packets"]
        if n:
            got[("tx", port)] = n
    for reason, n in (nfvdlib.drops(after) - nfvdlib.drops(before)).items():
        got[("drop", reason)] = n
    if not fits(got, want):
        problems.append("%s: %s, expected %s" % (
            name, dict(got), {" or ".join(map(str, sorted(o))): n for o, n in want.items()}))
    d.del_port_now(name)
    return got


def test_route_churn_under_traffic(nfvd):
    rng = random.Random(SEED)
    d = nfvd()
    d.add_port("p1", null=True)
    d.add_port("p2", null=True)
    d.cmd(*config())
    # In the startup file: the replay starts once everything above is configured.
    d.add_port("flood", rx=traffic(nfvdlib.pcap_mac(0)), infinite=True)
    d.start()
    nexthops0 = nexthops(d)
    model = Model()
    cmds = []
    for _ in range(ROUNDS):
        cmds += model.random_command(rng)
    # route load / route del of a thousand more prefixes in between.
    bulk = ["172.20.%d.%d/28 via %s" % (i // 16, (i % 16) * 16, GW4["p1"][i % 3])
            for i in range(1000)]
    bulk_file = d.dir / "bulk.txt"
    bulk_file.write_text("\n".join(bulk) + "\n")
    rx0 = d.stats()["packets"]["received"]
    t0 = time.monotonic()
    d.ctl_batch(cmds[:len(cmds) // 2])
    assert d.ctl("route", "load", str(bulk_file))["routes_loaded"] == len(bulk)
    d.ctl_batch(["route del %s" % line.split()[0] for line in bulk])
    d.ctl_batch(cmds[len(cmds) // 2:])
    # Remove p2 while traffic goes to it: every route through it goes (an ECMP
    # group with a member on p2 too), with its addresses and neighbors; then add
    # it again with its configuration.
    if model.p2_up:
        d.ctl("port set p2 down")   # returns once no worker sends on p2 any more
    p2_sent = d.port_stats()["p2"]["tx_packets"]
    d.ctl("port del p2")
    model.port_removed("p2")
    d.ctl("port add p2 dev net_null1,no-rx=1")
    d.ctl_batch([c for c in config() if c.endswith(" p2")])
    model.flap_resolved = True
    model.p2_up = True
    # The removal took every ECMP group with a member on p2: groups over both
    # ports again, so that the checks below see flows that may take either.
    d.ctl_batch(model.spread_groups())
    elapsed = time.monotonic() - t0
    st = d.stats()
    assert d.running
    assert st["packets"]["received"] - rx0 > 100000 * elapsed, \
        "traffic did not flow during the churn: %d packets in %.1f s" % (
            st["packets"]["received"] - rx0, elapsed)

    # Stop the flood, then everything must add up exactly.
    d.del_port_now("flood")
    st = d.wait_processed({})
    drops = nfvdlib.drops(st)
    assert set(drops) <= ALLOWED_DROPS, drops
    assert nfvdlib.balance(st) == 0, st
    assert st["icmp"]["errors_sent"] == 0 and st["icmp6"]["errors_sent"] == 0
    ports = d.port_stats(st)
    assert st["packets"]["forwarded"] == (ports["p1"]["tx_packets"] + ports["p2"]["tx_packets"]
                                          + p2_sent)
    assert st["tables"]["mbufs_in_use"] == 0

    # The tables end as the commands left them.
    assert static_routes(d) == model.route_show_static()
    n_routes = st["tables"]["ipv4_routes"] + st["tables"]["ipv6_routes"]
    # local + connected (2 per port and family) + 12 neighbor host routes (2 deleted
    # when the flapping neighbor ended deleted) + static ones.
    assert n_routes == 8 + 12 - (0 if model.flap_resolved else 2) + len(model.routes) + 2

    # Traffic after the churn follows the final table; one more update flips the
    # FIB pair, and the other table must agree.
    # The same flows each time, so the same outcomes: each flow keeps its ECMP
    # member across the flips.
    problems = []
    if not model.p2_up:
        d.ctl("port set p2 up")
        model.p2_up = True
    first = check_traffic(d, model, "check1", problems)
    d.ctl("route add 192.0.2.0/24 blackhole")
    again = [check_traffic(d, model, "check2", problems)]
    d.ctl("route del 192.0.2.0/24")
    again.append(check_traffic(d, model, "check3", problems))
    assert not problems, "\n".join(problems)

    # stats reset: every counter starts again from zero.
    d.ctl("stats reset")
    st = d.stats()
    assert (st["packets"]["received"], st["packets"]["forwarded"], st["packets"]["dropped"]) == \
        (0, 0, 0)
    assert st["drops"] == [] and d.ctl("show drops") == {"drops": [], "total": 0}
    assert set(nfvdlib.icmp_counters(st).values()) == {0}
    assert all(p["rx_packets"] == 0 and p["tx_packets"] == 0 for p in st["ports"])
    again.append(check_traffic(d, model, "check4", problems))
    for i, got in enumerate(again):
        if got != first:
            problems.append("check%d: %s; check1: %s (the same flows)" % (i + 2, dict(got),
                                                                         dict(first)))
    st = d.stats()
    assert st["packets"]["received"] == len(traffic(nfvdlib.pcap_mac(0)))
    assert nfvdlib.balance(st) == 0

    # Once the churned routes are gone (and the flapping neighbor is back), the
    # next hops are exactly those of the start: no reference leaked.
    cmds = ["route del %s" % p for p in model.routes]
    if not model.flap_resolved:
        cmds += ["neigh add %s lladdr 02:00:00:00:02:03 dev %s" % (gw, FLAPPING[0])
                 for gw in FLAPPING[1:]]
    d.ctl_batch(cmds)
    assert nexthops(d) == nexthops0
    assert not problems, "\n".join(problems)
    assert d.ctl("show pools")["mbufs_in_use"] == 0
    d.stop()
