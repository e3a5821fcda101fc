# SPDX-License-Identifier: BSD-3-Clause
"""
Control-plane errors through nfvctl (DESIGN.md 3: "Errors name the bad token
and change nothing"): each bad command must exit 1, print "error: ..." on
stderr and {"error": "..."} on stdout (valid JSON), name the offending token,
and leave every table exactly as it was (routes, addresses, neighbors, next
hops, ports, pools).
"""
import json

import pytest

from topo import build_topology

# (command, text the error must contain: the bad token, or what is missing)
ERRORS = [
    ("route add 10.9.0.0/33 via 10.1.0.1", "10.9.0.0/33"),
    ("route add 10.9.0.1/16 via 10.1.0.1", "10.9.0.1/16"),
    ("route add 10.9.0.0/8 via 10.1.0.1", "10.9.0.0/8"),
    ("route add 10.9.0.0 via 10.1.0.1", "10.9.0.0"),
    ("route add 10.9.0.0/016 via 10.1.0.1", "10.9.0.0/016"),
    ("route add 10.9.0.0/-1 blackhole", "10.9.0.0/-1"),
    ("route add 300.9.0.0/16 blackhole", "300.9.0.0/16"),
    ("route add 2001:db8:9::/129 blackhole", "2001:db8:9::/129"),
    ("route add 2001:db8:9::1/64 blackhole", "2001:db8:9::1/64"),
    ("route add 10.9.0.0/16 via 10.1.0.1 dev p9", "p9"),
    ("route add 10.9.0.0/16 dev p9", "p9"),
    ("route add 10.9.0.0/16 via 2001:db8:b::1", "2001:db8:b::1"),
    ("route add 2001:db8:9::/48 via 10.1.0.1", "10.1.0.1"),
    ("route add 10.9.0.0/16", "missing"),
    ("route add 10.9.0.0/16 via", "via"),
    ("route add 10.9.0.0/16 via 10.1.0.1 dev", "dev"),
    ("route add 10.9.0.0/16 via 10.1.0.x", "10.1.0.x"),
    ("route add 10.9.0.0/16 via 10.1.0.1 metric 5", "metric"),
    ("route add 10.9.0.0/16 blackhole now", "now"),
    ("route add 10.9.0.0/16 frob", "frob"),
    ("route add 10.9.0.0/16 dev p1 via 10.1.0.1", "via"),
    ("route add 10.9.0.0/16 via 10.7.7.7", "10.7.7.7"),
    ("route add 10.9.0.0/16 via 10.0.0.254", "10.0.0.254"),
    ("route add 10.9.0.0/16 via 10.1.0.1 via 10.7.7.7", "10.7.7.7"),
    ("route add 10.9.0.0/16 via 10.1.0.1 via 10.2.0.1 via 10.7.7.7", "10.7.7.7"),
    ("route add 2001:db8:9::/48 via 2001:db8:b::1 via fe80::1", "fe80::1"),
    ("route add 10.9.0.0/16 " + " ".join("via 10.1.0.%d" % i for i in range(1, 18)), "16"),
    ("route del 10.99.0.0/16", "10.99.0.0/16"),
    ("route del 10.0.0.254/32", "10.0.0.254/32"),
    ("route del 10.1.0.1/32", "10.1.0.1/32"),
    ("route del 10.0.0.0/24", "10.0.0.0/24"),
    ("route del 2001:db8:a::/64", "2001:db8:a::/64"),
    ("route del", "missing"),
    ("route del 10.9.0.0/16 now", "now"),
    ("route del 10.9.0.0/99", "10.9.0.0/99"),
    ("route show 10.99.0.0/16", "10.99.0.0/16"),
    ("route show 10.99.0.0/160", "10.99.0.0/160"),
    ("route load", "missing"),
    ("route load /nonexistent/routes.txt", "/nonexistent/routes.txt"),
    ("route load a b", "b"),
    ("route frobnicate", "frobnicate"),
    ("rout add 10.9.0.0/16 blackhole", "rout"),
    ("addr add 10.5.0.1/24 dev p9", "p9"),
    ("addr add 10.5.0.1/33 dev p1", "10.5.0.1/33"),
    ("addr add 10.5.0.1 dev p1", "10.5.0.1"),
    ("addr add 10.0.0.254/24 dev p1", "10.0.0.254"),
    ("addr add 10.5.0.0/24 dev p1", "10.5.0.0/24"),
    ("addr add 10.5.0.255/24 dev p1", "10.5.0.255/24"),
    ("addr add 10.1.0.9/24 dev p2", "10.1.0.0/24"),
    ("addr del 10.5.0.1/24 dev p1", "10.5.0.1/24"),
    ("addr del 10.0.0.254/16 dev p0", "10.0.0.254/16"),
    ("addr add 10.5.0.1/24 via p1", "via"),
    ("addr add 10.5.0.1/24 dev p1 extra", "extra"),
    ("addr add 10.5.0.1/24", "missing"),
    ("addr add ::/0 dev p1", "unspecified"),
    ("addr add 127.0.0.1/8 dev p1", "loopback"),
    ("addr add 224.0.0.1/4 dev p1", "multicast"),
    ("addr add 255.255.255.255/32 dev p1", "broadcast"),
    ("addr add 240.0.0.1/24 dev p1", "reserved"),
    ("addr add ff02::1/64 dev p1", "multicast"),
    ("route", "missing word after 'route'"),
    ("neigh add 10.1.0.50 lladdr 01:00:5e:00:00:01 dev p1", "01:00:5e:00:00:01"),
    ("neigh add 10.1.0.50 lladdr 00:00:00:00:00:00 dev p1", "00:00:00:00:00:00"),
    ("neigh add 10.1.0.50 lladdr 02:00:00:00:00:zz dev p1", "02:00:00:00:00:zz"),
    ("neigh add 10.1.0.50 lladdr 02:00:00:00:00:0 dev p1", "02:00:00:00:00:0"),
    ("neigh add 10.1.0.50 lladdr 02:00:00:00:00:01 dev p9", "p9"),
    ("neigh add 10.1.0.x lladdr 02:00:00:00:00:01 dev p1", "10.1.0.x"),
    ("neigh add 10.1.0.50 mac 02:00:00:00:00:01 dev p1", "mac"),
    ("neigh add 10.0.0.254 lladdr 02:00:00:00:00:05 dev p0", "10.0.0.254"),
    ("neigh add 10.1.0.50 lladdr 02:00:00:00:00:01", "missing"),
    ("neigh add 10.1.0.50 lladdr 02:00:00:00:00:01 dev p1 now", "now"),
    ("neigh add 10.1.0.1 lladdr 02:00:00:00:00:09 dev p2", "already on port p1"),
    ("neigh add 0.0.0.0 lladdr 02:00:00:00:00:09 dev p1", "unspecified"),
    ("neigh add 224.0.0.5 lladdr 02:00:00:00:00:09 dev p1", "224.0.0.5"),
    ("neigh add 255.255.255.255 lladdr 02:00:00:00:00:09 dev p1", "broadcast"),
    ("neigh add ff02::1 lladdr 02:00:00:00:00:09 dev p1", "multicast"),
    ("neigh add ::1 lladdr 02:00:00:00:00:09 dev p1", "loopback"),
    ("neigh del 10.1.0.50 dev p1", "10.1.0.50"),
    ("neigh del 10.1.0.1 dev p2", "10.1.0.1"),
    ("neigh del 10.1.0.1", "missing"),
    ("port add p1 dev net_null9,no-rx=1", "p1"),
    ("port add 9bad dev net_null9,no-rx=1", "9bad"),
    ("port add px dev net_bogus0", "net_bogus0"),
    ("port add px dev net_null9,no-rx=1 mtu 50", "50"),
    ("port add px dev net_null9,no-rx=1 mtu 1500x", "1500x"),
    ("port add px dev net_null9,no-rx=1 rxq", "rxq"),
    ("port add px dev net_null9,no-rx=1 rxq 129", "129"),
    ("port add px dev net_null9,no-rx=1 speed 10", "speed"),
    ("port add px net_null9", "missing"),
    ("port add px dev net_pcap9,rx_pcap=/nonexistent/x.pcap", "net_pcap9"),
    ("port del p9", "p9"),
    ("port del p1 now", "now"),
    ("port set p1 sideways", "sideways"),
    ("port set p9 up", "p9"),
    ("port show p9", "p9"),
    ("worker set 7 rxq p0:0", "7"),
    ("worker set 1 rxq p9:0", "p9"),
    ("worker set 1 rxq p0:5", "5"),
    ("worker set 1 queues p0:0", "queues"),
    ("worker set 1 rxq p0:0,p0:0", "queue p0:0 given twice"),
    ("worker set 1 rxq p0:0,", "empty queue in 'p0:0,'"),
    ("worker set 1 rxq ,p0:0", "empty queue in ',p0:0'"),
    ("worker set 1 rxq p0", "bad queue 'p0'"),
    ("worker set 1 rxq " + ",".join("p0:%d" % q for q in range(129)),
     "at most 128 queues per worker"),
    ("show stats now", "now"),
    ("route show 10.9.0.0/16 vrf default extra", "unexpected 'extra' after 'vrf default'"),
    ("route del 10.9.0.0/16 vrf default extra", "unexpected 'extra' after 'vrf default'"),
    ("route show 10.9.0.0/16 extra", "unexpected 'extra'"),
    ("show frobs", "frobs"),
    ("stats reset now", "now"),
    ('route add "10.9.0.0/16 blackhole', "quote"),
]

# route load files: every line is checked before anything changes, so the valid
# lines before the bad one must not be loaded either.
LOAD_ERRORS = [
    ("10.9.1.0/24 via 10.1.0.1\n10.9.2.0/24 blackhole\n10.9.300.0/24 via 10.1.0.1\n",
     ["routes.txt:3", "10.9.300.0/24"]),
    ("10.9.1.0/24 via 10.1.0.1\n2001:db8:9::/48 via 10.1.0.1\n", ["routes.txt:2", "10.1.0.1"]),
    ("10.9.1.0/24 via 2001:db8:b::1\n",
     ["routes.txt:1", "2001:db8:b::1", "not of the prefix's family"]),
    ("10.9.1.0/24 via 10.1.0.1\n10.9.2.0/24 via 10.1.0.1 dev p9\n", ["routes.txt:2", "p9"]),
    ("# comment\n\n10.9.1.0/24 via 10.1.0.1\n10.9.2.0/24 via 10.7.7.7\n",
     ["routes.txt:4", "10.7.7.7"]),
    ("10.9.1.0/24 via 10.1.0.1\n10.9.2.0/24 via\n", ["routes.txt:2", "via"]),
    ("10.9.1.0/24\n", ["routes.txt:1", "nothing after the prefix"]),
    ("10.9.1.0/24 via 10.1.0.1" + " x" * 70 + "\n", ["routes.txt:1", "too many words"]),
    ("10.9.1.0/24 via 10.1.0.1\n10.9.2.1/24 blackhole\n", ["routes.txt:2", "10.9.2.1/24"]),
    ("10.9.1.0/24 via 10.0.0.254\n", ["routes.txt:1", "10.0.0.254"]),
    ("2001:db8:9::/48 via 2001:db8:b::1\n10.9.2.0/24 blackhole extra\n", ["routes.txt:2"]),
]


def snapshot(d):
    """Everything an error must leave alone."""
    ports = [{k: v for k, v in p.items() if not k.startswith(("rx_", "tx_"))}
             for p in d.api("port show")["ports"]]
    return {"routes": d.api("route show"), "addrs": d.api("addr show"),
            "neighs": d.api("neigh show"), "nexthops": d.api("nexthop show"),
            "ports": ports, "pools": d.api("show pools"),
            "tables": {k: v for k, v in d.api("show stats")["tables"].items()
                       if k != "rcu_grace_periods"}}


def check_error(d, cmd, token, problems, argv=None):
    before = snapshot(d)
    r = d.ctl_result(*(argv or cmd.split()))
    what = "nfvctl --json %s" % cmd
    if r.rc != 1:
        problems.append("%s: exit %d, expected 1 (stdout %r)" % (what, r.rc, r.stdout[:200]))
        return
    try:
        msg = json.loads(r.stdout)["error"]
    except (ValueError, KeyError) as e:
        problems.append("%s: stdout is not {\"error\": ...} JSON (%s): %r" % (what, e, r.stdout))
        msg = r.stdout
    if not r.stderr.startswith("error: ") or msg not in r.stderr:
        problems.append("%s: stderr %r does not carry the error %r" % (what, r.stderr, msg))
    if token.lower() not in msg.lower():
        problems.append("%s: the error does not name %r: %r" % (what, token, msg))
    after = snapshot(d)
    if after != before:
        diff = [k for k in before if before[k] != after[k]]
        problems.append("%s: changed %s" % (what, diff))


@pytest.fixture
def ctl_nfvd(nfvd):
    d = nfvd()
    build_topology(d, {})
    d.cmd("route add 198.51.100.0/24 via 10.1.0.1", "route add 2001:db8:100::/48 via 2001:db8:b::1")
    d.start()
    return d


def test_bad_commands_name_the_token_and_change_nothing(ctl_nfvd):
    d = ctl_nfvd
    problems = []
    for cmd, token in ERRORS:
        argv = None
        if '"' in cmd:   # hand the quote to nfvd's tokenizer as it is
            argv = ["route", "add", '"10.9.0.0/16', "blackhole"]
        check_error(d, cmd, token, problems, argv)
    for i, (text, tokens) in enumerate(LOAD_ERRORS):
        f = d.dir / ("load%d" % i)
        f.mkdir()
        path = f / "routes.txt"
        path.write_text(text)
        for token in tokens:
            check_error(d, "route load %s" % path, token, problems)
    assert not problems, "\n".join(problems)
    # The instance still works after all that: a good command succeeds.
    before = d.api("route show")
    d.ctl("route add 10.9.0.0/16 via 10.1.0.1")
    d.ctl("route del 10.9.0.0/16")
    assert d.api("route show") == before
    d.stop()


def test_error_output_is_valid_json_whatever_the_token(ctl_nfvd):
    """--json: the error object is JSON even when the bad token holds a quote or a
    backslash (the message quotes the token)."""
    d = ctl_nfvd
    problems = []
    for token in ('a"b', 'c\\d'):
        argv = ["route", "add", "10.9.0.0/16", "via", token]
        r = d.ctl_result(*argv)
        if r.rc != 1:
            problems.append("%r: exit %d" % (argv, r.rc))
            continue
        try:
            msg = json.loads(r.stdout)["error"]
            if token not in msg:
                problems.append("%r: %r does not name the token" % (argv, msg))
        except ValueError as e:
            problems.append("nfvctl --json %s: stdout is not JSON (%s): %r" % (
                " ".join(argv), e, r.stdout))
    d.stop()
    assert not problems, "\n".join(problems)


def test_duplicate_gateway_error_names_it(ctl_nfvd):
    d = ctl_nfvd
    problems = []
    check_error(d, "route add 10.9.0.0/16 via 10.1.0.1 via 10.1.0.1", "10.1.0.1", problems)
    d.stop()
    assert not problems, "\n".join(problems)


def test_route_load_is_all_or_nothing_across_families(nfvd):
    """A file whose IPv6 routes do not fit must not load its IPv4 routes either
    ("the whole file is checked before anything changes")."""
    d = nfvd(max_routes6=16)
    d.add_port("p1", null=True)
    d.cmd("addr add 10.1.0.254/24 dev p1", "addr add 2001:db8:b::fe/64 dev p1")
    d.start()
    lines = ["10.9.%d.0/24 via 10.1.0.1" % i for i in range(5)]
    lines += ["2001:db8:9:%x::/64 via 2001:db8:b::1" % i for i in range(20)]
    path = d.dir / "routes.txt"
    path.write_text("\n".join(lines) + "\n")
    before = snapshot(d)
    r = d.ctl_result("route", "load", str(path))
    after = snapshot(d)
    d.stop()
    assert r.rc == 1, r.stdout
    assert "IPv6" in json.loads(r.stdout)["error"]   # says which family does not fit
    assert after["tables"] == before["tables"], "route load failed but changed the tables"
    assert after["routes"] == before["routes"]


def test_route_load_counts_a_repeated_prefix_once(nfvd):
    """The capacity check counts each new prefix once, however often the file
    repeats it: 10 prefixes on 30 lines fit where 16 routes are allowed; 20
    prefixes do not, and the error says 20."""
    d = nfvd(max_routes6=16)
    d.add_port("p1", null=True)
    d.cmd("addr add 10.1.0.254/24 dev p1", "addr add 2001:db8:b::fe/64 dev p1")
    d.start()
    before = d.api("show stats")["tables"]["ipv6_routes"]
    lines = ["2001:db8:9:%x::/64 via 2001:db8:b::1" % (i % 10) for i in range(30)]
    path = d.dir / "repeated.txt"
    path.write_text("\n".join(lines) + "\n")
    r = d.ctl_result("route", "load", str(path))
    assert r.rc == 0, r.stdout + r.stderr
    assert d.api("show stats")["tables"]["ipv6_routes"] == before + 10
    lines = ["2001:db8:a:%x::/64 via 2001:db8:b::1" % (i % 20) for i in range(40)]
    path.write_text("\n".join(lines) + "\n")
    r = d.ctl_result("route", "load", str(path))
    assert r.rc == 1 and "20 new IPv6 routes do not fit" in json.loads(r.stdout)["error"], \
        r.stdout
    assert d.api("show stats")["tables"]["ipv6_routes"] == before + 10
    d.stop()
