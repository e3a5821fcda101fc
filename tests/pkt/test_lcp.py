# SPDX-License-Identifier: BSD-3-Clause
"""
lcp: kernel twins. A twin (TAP, net_tap) in a network namespace follows its
interface (MAC, MTU, link, addresses, later ones too); routes the kernel
puts on it enter nfvd's table as source "kernel" with their protocol
(inline next hops, multipath, nexthop objects and groups, IPv6) and leave
with it; of IPv4 routes sharing a prefix, table and metric ("ip route
append") nfvd takes the first, as the kernel does, and routes for one TOS
only none; "route add" wins over the kernel for the same prefix. Packets nfvd
does not serve (ARP, TCP to port 179, UDP to an unknown port) are punted to
the twin (ARP as a copy: nfvd sees it too), policed; what the kernel
answers leaves by the port.

    pcap p0 10.1.0.1/24, 2001:db8:1::1/64  [nfvd]  twin nfvlcpt0 in netns nfvlcp-pkt<pid>
"""
import json
import os
import socket
import subprocess
import time
import urllib.request

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether

from nfvdlib import CtlError, pcap_mac

NS = "nfvlcp-pkt%d" % os.getpid()
TWIN = "nfvlcpt0"
P0 = pcap_mac(0)
H0 = "02:00:00:00:00:01"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")


def sh(*args, check=True):
    return subprocess.run(list(args), check=check, capture_output=True, text=True)


def ipns(*args, check=True):
    return sh("ip", "-n", NS, *args, check=check)


@pytest.fixture
def netns():
    sh("ip", "netns", "del", NS, check=False)
    sh("ip", "netns", "add", NS)
    yield NS
    sh("ip", "netns", "del", NS, check=False)


def kernel_routes(nfvd, vrf=None):
    words = ["route", "show"] + (["vrf", vrf] if vrf else [])
    return {r["prefix"]: r for r in nfvd.ctl(*words)["routes"] if r["source"] == "kernel"}


def wait_routes(nfvd, want, timeout=5.0, vrf=None):
    """Waits until nfvd's kernel routes are exactly want ({prefix: (proto, via)})."""
    deadline = time.monotonic() + timeout
    while True:
        have = {p: (r.get("proto"), r["via"]) for p, r in kernel_routes(nfvd, vrf).items()}
        if have == want:
            return have
        if time.monotonic() > deadline:
            raise AssertionError("kernel routes: want %s, have %s" % (want, have))
        time.sleep(0.05)


def lcp_stats(nfvd):
    return nfvd.stats()["lcp"]


def test_twin_follows_interface_and_routes(nfvd, netns):
    n = nfvd()
    n.add_port("p0")
    n.cmd("addr add 10.1.0.1/24 dev p0", "addr add 2001:db8:1::1/64 dev p0")
    n.start()
    n.ctl("lcp", "add", "dev", "p0", "host-if", TWIN, "netns", NS)
    show = n.ctl("lcp show")["lcp"]
    assert [(r["dev"], r["host_if"], r["netns"], r["mac"].lower()) for r in show] == \
        [("p0", TWIN, NS, P0)]
    link = ipns("-j", "link", "show", TWIN).stdout
    assert P0 in link.lower() and '"mtu":1500' in link and "UP" in link
    addrs = ipns("-br", "addr", "show", TWIN).stdout
    assert "10.1.0.1/24" in addrs and "2001:db8:1::1/64" in addrs
    # An address added later follows; a removed one goes.
    n.ctl("addr add 10.9.0.1/24 dev p0")
    assert "10.9.0.1/24" in ipns("-br", "addr", "show", TWIN).stdout
    n.ctl("addr del 10.9.0.1/24 dev p0")
    assert "10.9.0.1" not in ipns("-br", "addr", "show", TWIN).stdout
    # The kernel's connected routes on the twin are shadowed by nfvd's
    # connected ones (route show lists the best source of a prefix).
    assert {r["prefix"]: r["source"] for r in n.ctl("route show")["routes"]}["10.1.0.0/24"] \
        == "connected"
    assert n.stats()["lcp"]["netlink"]["routes"] >= 2

    base = {}
    # Inline next hop, with a protocol.
    ipns("route", "add", "192.0.2.0/24", "via", "10.1.0.7", "proto", "bgp", "metric", "20")
    # Multipath (ECMP).
    ipns("route", "add", "198.51.100.0/24", "nexthop", "via", "10.1.0.8", "nexthop", "via",
         "10.1.0.9")
    # Nexthop objects (FRR 8.4's style): a single one and a group.
    ipns("nexthop", "add", "id", "11", "via", "10.1.0.11", "dev", TWIN)
    ipns("nexthop", "add", "id", "12", "via", "10.1.0.12", "dev", TWIN)
    ipns("nexthop", "add", "id", "13", "group", "11/12")
    ipns("route", "add", "203.0.113.0/24", "nhid", "13", "proto", "ospf")
    ipns("route", "add", "203.0.113.128/25", "nhid", "11", "proto", "static")
    # IPv6, multipath too.
    ipns("-6", "route", "add", "2001:db8:99::/48", "via", "2001:db8:1::7", "proto", "bgp")
    ipns("-6", "route", "add", "2001:db8:98::/48", "nexthop", "via", "2001:db8:1::8",
         "nexthop", "via", "2001:db8:1::9")
    # A route through the twin without a gateway (connected).
    ipns("route", "add", "100.64.0.0/16", "dev", TWIN)
    want = dict(base)
    want.update({
        "192.0.2.0/24": ("bgp", "10.1.0.7"),
        "198.51.100.0/24": ("boot", ["10.1.0.8", "10.1.0.9"]),
        "203.0.113.0/24": ("ospf", ["10.1.0.11", "10.1.0.12"]),
        "203.0.113.128/25": ("static", "10.1.0.11"),
        "2001:db8:99::/48": ("bgp", "2001:db8:1::7"),
        "2001:db8:98::/48": ("boot", ["2001:db8:1::8", "2001:db8:1::9"]),
        "100.64.0.0/16": ("boot", None),
    })
    wait_routes(n, want)
    r = n.ctl("route show 192.0.2.0/24")["routes"][0]
    assert (r["source"], r["type"], r["via"], r["dev"], r["vrf"], r["proto"]) == \
        ("kernel", "gateway", "10.1.0.7", "p0", "default", "bgp")
    assert n.ctl("route show 100.64.0.0/16")["routes"][0]["type"] == "connected"
    # The text view too (README: "nfvctl route show  # the BGP routes, source
    # kernel, proto bgp"), though its first rows are nfvd's own routes.
    text = n.ctl_result("route", "show", json_out=False).stdout.splitlines()
    assert text[1].split()[-1] == "proto", text[1]
    rows = {line.split()[0]: line.split() for line in text[2:]}
    assert rows["192.0.2.0/24"][1] == "kernel" and rows["192.0.2.0/24"][-1] == "bgp", rows
    assert rows["10.1.0.0/24"][1] == "connected" and rows["10.1.0.0/24"][-1] == "-", rows
    assert "proto" not in n.ctl("route show 10.1.0.0/24")["routes"][0]

    # "route add" wins over the kernel for the same prefix; the kernel's is
    # back when it goes. A kernel route is not removed by "route del".
    n.ctl("route add 192.0.2.0/24 via 10.1.0.50")
    r = n.ctl("route show 192.0.2.0/24")["routes"][0]
    assert (r["source"], r["via"]) == ("static", "10.1.0.50")
    n.ctl("route del 192.0.2.0/24")
    assert n.ctl("route show 192.0.2.0/24")["routes"][0]["source"] == "kernel"
    with pytest.raises(CtlError) as e:
        n.ctl("route del 203.0.113.0/24")
    assert "kernel route" in e.value.stdout + e.value.stderr

    # The kernel changes its routes: nfvd follows exactly.
    ipns("route", "del", "198.51.100.0/24")
    ipns("route", "replace", "192.0.2.0/24", "via", "10.1.0.70", "proto", "bgp", "metric", "20")
    ipns("nexthop", "replace", "id", "12", "via", "10.1.0.120", "dev", TWIN)
    ipns("-6", "route", "del", "2001:db8:98::/48", "via", "2001:db8:1::9")
    del want["198.51.100.0/24"]
    want["192.0.2.0/24"] = ("bgp", "10.1.0.70")
    want["203.0.113.0/24"] = ("ospf", ["10.1.0.11", "10.1.0.120"])
    want["2001:db8:98::/48"] = ("boot", "2001:db8:1::8")
    wait_routes(n, want)
    # Deleting a nexthop object removes its routes without a word from the
    # kernel; nfvd follows.
    ipns("nexthop", "del", "id", "11")
    del want["203.0.113.128/25"]
    want["203.0.113.0/24"] = ("ospf", "10.1.0.120")
    wait_routes(n, want)
    # A lower metric wins, as in the kernel.
    ipns("route", "add", "192.0.2.0/24", "via", "10.1.0.71", "proto", "static", "metric", "5")
    want["192.0.2.0/24"] = ("static", "10.1.0.71")
    wait_routes(n, want)
    ipns("route", "del", "192.0.2.0/24", "metric", "5")
    want["192.0.2.0/24"] = ("bgp", "10.1.0.70")
    wait_routes(n, want)

    # The twin goes down with its interface: the kernel flushes its routes
    # silently, nfvd resynchronises.
    n.ctl("port set p0 down")
    assert "UP" not in ipns("-br", "link", "show", TWIN).stdout.split()[1]
    wait_routes(n, {})
    n.ctl("port set p0 up")
    ipns("route", "add", "192.0.2.0/24", "via", "10.1.0.7", "proto", "bgp")
    wait_routes(n, dict(base, **{"192.0.2.0/24": ("bgp", "10.1.0.7")}))

    st = lcp_stats(n)["netlink"]
    assert st["messages"] > 0 and st["routes_added"] > 0 and st["routes_removed"] > 0
    assert st["resyncs"] >= 2 and st["nexthop_messages"] >= 4
    metrics = n.ctl_result("show", "stats", json_out=False)
    assert metrics.rc == 0
    # lcp del: the twin and its routes go.
    n.ctl("lcp del dev p0")
    wait_routes(n, {})
    assert n.ctl("lcp show")["lcp"] == []
    assert ipns("link", "show", TWIN, check=False).returncode != 0
    assert "lcp-p0" not in {p["name"] for p in n.ctl("port show")["ports"]}
    n.stop()


def twin_addrs():
    """The twin's global addresses, as ADDR/LEN."""
    info = json.loads(ipns("-j", "addr", "show", TWIN).stdout)[0]["addr_info"]
    return {"%s/%d" % (a["local"], a["prefixlen"]) for a in info if a["scope"] == "global"}


def kernel_via(addr):
    """The gateway the kernel in the namespace uses for addr (None: no route)."""
    words = ipns("route", "get", addr, check=False).stdout.split()
    return words[words.index("via") + 1] if "via" in words else None


def settle(nfvd, want, tag):
    """Waits until nfvd's kernel routes are exactly want, and stay so once it
    has read everything the kernel said before: a marker route added last
    must come and go."""
    marker = "198.18.%d.0/24" % tag
    ipns("route", "add", marker, "via", "10.1.0.99")
    wait_routes(nfvd, dict(want, **{marker: ("boot", "10.1.0.99")}))
    ipns("route", "del", marker)
    wait_routes(nfvd, want)


def test_routes_sharing_a_key(nfvd, netns):
    """IPv4 holds several routes of one prefix, table and metric ("ip route
    append", "prepend") and a lookup takes the first; a route for one TOS
    only is not plain forwarding. nfvd holds what the kernel uses, after
    every change and after a resync."""
    n = nfvd()
    n.add_port("p0")
    n.add_port("p1")
    n.cmd("addr add 10.1.0.1/24 dev p0", "addr add 10.2.0.1/24 dev p1")
    n.start()
    n.ctl("lcp", "add", "dev", "p0", "host-if", TWIN, "netns", NS)

    def check(via, tag):
        settle(n, {"192.0.2.0/24": ("boot", via)}, tag)
        assert kernel_via("192.0.2.1") == via

    ipns("route", "add", "192.0.2.0/24", "via", "10.1.0.7")
    ipns("route", "append", "192.0.2.0/24", "via", "10.1.0.8")
    check("10.1.0.7", 1)
    ipns("route", "del", "192.0.2.0/24", "via", "10.1.0.8")
    check("10.1.0.7", 2)
    ipns("route", "append", "192.0.2.0/24", "via", "10.1.0.8")
    ipns("route", "prepend", "192.0.2.0/24", "via", "10.1.0.6")
    check("10.1.0.6", 3)
    # "replace" takes the first one's place: .5, .7, .8.
    ipns("route", "replace", "192.0.2.0/24", "via", "10.1.0.5")
    check("10.1.0.5", 4)
    # A deletion without a gateway removes the first.
    ipns("route", "del", "192.0.2.0/24")
    check("10.1.0.7", 5)
    # A resync (a twin added in the namespace) keeps the kernel's order.
    resyncs = lcp_stats(n)["netlink"]["resyncs"]
    n.ctl("lcp", "add", "dev", "p1", "host-if", "nfvlcpt1", "netns", NS)
    assert lcp_stats(n)["netlink"]["resyncs"] == resyncs + 1
    check("10.1.0.7", 6)
    ipns("route", "del", "192.0.2.0/24", "via", "10.1.0.7")
    check("10.1.0.8", 7)
    ipns("route", "del", "192.0.2.0/24", "via", "10.1.0.8")
    settle(n, {}, 8)

    # A route for TOS 0x10 only: the kernel forwards other packets by the
    # plain route, and so does nfvd; deleting it changes nothing.
    ipns("route", "add", "192.0.3.0/24", "via", "10.1.0.7")
    ipns("route", "add", "192.0.3.0/24", "tos", "0x10", "via", "10.1.0.9")
    settle(n, {"192.0.3.0/24": ("boot", "10.1.0.7")}, 9)
    assert kernel_via("192.0.3.1") == "10.1.0.7"
    ipns("route", "del", "192.0.3.0/24", "tos", "0x10")
    settle(n, {"192.0.3.0/24": ("boot", "10.1.0.7")}, 10)
    ipns("route", "add", "192.0.4.0/24", "tos", "0x10", "via", "10.1.0.9")
    settle(n, {"192.0.3.0/24": ("boot", "10.1.0.7")}, 11)
    n.stop()


def twin_with_route(nfvd, *addrs):
    """nfvd with p0 (addrs, in that order) and VRF blue, p0's twin, and a
    kernel route via 10.1.0.7 that nfvd holds; nfvd and that route."""
    n = nfvd()
    n.add_port("p0")
    n.cmd(*["addr add %s dev p0" % a for a in addrs], "vrf add blue")
    n.start()
    n.ctl("lcp", "add", "dev", "p0", "host-if", TWIN, "netns", NS)
    route = {"192.0.2.0/24": ("bgp", "10.1.0.7")}
    ipns("route", "add", "192.0.2.0/24", "via", "10.1.0.7", "proto", "bgp")
    wait_routes(n, route)
    return n, route


def test_routes_flushed_with_the_last_ipv4_address(nfvd, netns):
    """When the twin's last IPv4 address goes, the kernel flushes its IPv4
    routes without a word (no RTM_DELROUTE): after "addr del", and after a
    VRF move (which takes the port's addresses away and gives them back,
    here the IPv6 one first), nfvd holds exactly what the kernel kept."""
    n, route = twin_with_route(nfvd, "2001:db8:1::1/64", "10.1.0.1/24")
    resyncs = lcp_stats(n)["netlink"]["resyncs"]
    n.ctl("addr del 10.1.0.1/24 dev p0")
    assert ipns("-4", "route", "show", "table", "all", "dev", TWIN).stdout == ""
    wait_routes(n, {})
    assert lcp_stats(n)["netlink"]["resyncs"] == resyncs + 1

    n.ctl("addr add 10.1.0.1/24 dev p0")
    ipns("route", "add", "192.0.2.0/24", "via", "10.1.0.7", "proto", "bgp")
    wait_routes(n, route)
    n.ctl("port set p0 vrf blue")
    assert twin_addrs() == {"10.1.0.1/24", "2001:db8:1::1/64"}
    assert ipns("route", "show", "192.0.2.0/24").stdout == ""
    wait_routes(n, {}, vrf="blue")
    wait_routes(n, {})
    ipns("route", "add", "192.0.2.0/24", "via", "10.1.0.7", "proto", "bgp")
    wait_routes(n, route, vrf="blue")
    wait_routes(n, {})
    n.stop()


def test_vrf_move_keeps_the_twins_addresses(nfvd, netns):
    """A VRF is nfvd's own: the port's first address, given back first in
    the new VRF, never leaves the twin, so the kernel keeps its routes, and
    nfvd holds them in the new VRF."""
    n, route = twin_with_route(nfvd, "10.1.0.1/24", "2001:db8:1::1/64")
    for vrf, other in (("blue", "default"), ("default", "blue")):
        n.ctl("port", "set", "p0", "vrf", vrf)
        assert twin_addrs() == {"10.1.0.1/24", "2001:db8:1::1/64"}
        assert kernel_via("192.0.2.1") == "10.1.0.7"
        wait_routes(n, route, vrf=vrf)
        wait_routes(n, {}, vrf=other)
    n.stop()


def test_twin_has_its_addresses_after_down_up(nfvd, netns):
    """The kernel removes a link's IPv6 addresses when it goes down
    (keep_addr_on_down 0, the default): once its port is up again, the twin
    has all of nfvd's addresses again, and IPv6 routes through it are
    possible and enter nfvd's table."""
    n = nfvd()
    n.add_port("p0")
    n.cmd("addr add 10.1.0.1/24 dev p0", "addr add 2001:db8:1::1/64 dev p0")
    n.start()
    n.ctl("lcp", "add", "dev", "p0", "host-if", TWIN, "netns", NS)
    route = {"2001:db8:99::/48": ("bgp", "2001:db8:1::7")}
    for _ in range(2):
        ipns("-6", "route", "add", "2001:db8:99::/48", "via", "2001:db8:1::7", "proto", "bgp")
        wait_routes(n, route)
        n.ctl("port set p0 down")
        assert twin_addrs() == {"10.1.0.1/24"}
        wait_routes(n, {})
        n.ctl("port set p0 up")
        assert twin_addrs() == {"10.1.0.1/24", "2001:db8:1::1/64"}
    n.stop()


def test_errors(nfvd, netns):
    n = nfvd()
    n.add_port("p0")
    n.add_port("p1")
    n.start()

    def err(*words):
        with pytest.raises(CtlError) as e:
            n.ctl(*words)
        return e.value.stdout + e.value.stderr

    assert "does not exist" in err("lcp", "add", "dev", "p0", "netns", "nfvlcp-none")
    assert "unknown interface" in err("lcp", "add", "dev", "nope")
    assert "bad host-if" in err("lcp", "add", "dev", "p0", "host-if", "a/b")
    assert "bad host-if" in err("lcp", "add", "dev", "p0", "host-if", "x" * 16)
    assert "usage" in err("lcp", "add", "dev", "p0", "colour", "red")
    assert "bad punt-rate" in err("lcp", "add", "dev", "p0", "punt-rate", "0")
    assert "no kernel twin" in err("lcp", "del", "dev", "p0")
    ipns("link", "add", TWIN, "type", "veth", "peer", "name", TWIN + "p")
    assert "already exists" in err("lcp", "add", "dev", "p0", "host-if", TWIN, "netns", NS)
    ipns("link", "del", TWIN)
    n.ctl("lcp", "add", "dev", "p0", "host-if", TWIN, "netns", NS)
    assert "already has" in err("lcp", "add", "dev", "p0", "host-if", "other", "netns", NS)
    assert "twin of" in err("lcp", "add", "dev", "lcp-p0")
    assert [r["dev"] for r in n.ctl("lcp show")["lcp"]] == ["p0"]
    # A twin in nfvd's own namespace: no netns, shown as "-" in the text
    # view (an empty cell would shift the columns after it).
    n.ctl("lcp", "add", "dev", "p1", "host-if", "nfvlcpt9")
    try:
        rows = {r["dev"]: r for r in n.ctl("lcp show")["lcp"]}
        assert (rows["p1"]["netns"], rows["p0"]["netns"]) == ("", NS)
        lines = n.ctl_result("lcp", "show", json_out=False).stdout.splitlines()
        head = lines[1].split()
        cells = {line.split()[head.index("dev")]: line.split() for line in lines[2:]}
        assert all(len(c) == len(head) for c in cells.values()), lines
        assert cells["p1"][head.index("netns")] == "-"
        assert cells["p1"][head.index("host_if")] == "nfvlcpt9"
        assert cells["p0"][head.index("netns")] == NS
    finally:
        n.ctl("lcp", "del", "dev", "p1")
    # Removing the port takes its twin.
    n.ctl("port del p0")
    assert n.ctl("lcp show")["lcp"] == []
    assert ipns("link", "show", TWIN, check=False).returncode != 0
    n.stop()


def test_punt_and_xconnect(nfvd, netns):
    """A copy of ARP and TCP to port 179 go to the twin; the kernel's answers
    (ARP reply, TCP reset) leave by p0. ICMP echo is nfvd's own."""
    arp = Ether(dst="ff:ff:ff:ff:ff:ff", src=H0) / ARP(op=1, hwsrc=H0, psrc="10.1.0.2",
                                                         pdst="10.1.0.1")
    syn = Ether(dst=P0, src=H0) / IP(src="10.1.0.2", dst="10.1.0.1") / \
        TCP(sport=40000, dport=179, flags="S", seq=1000)
    echo = Ether(dst=P0, src=H0) / IP(src="10.1.0.2", dst="10.1.0.1") / ICMP(id=7, seq=1)
    ns = Ether(dst="33:33:ff:00:00:01", src=H0) / \
        IPv6(src="2001:db8:1::2", dst="ff02::1:ff00:1", hlim=255) / \
        ICMPv6ND_NS(tgt="2001:db8:1::1") / ICMPv6NDOptSrcLLAddr(lladdr=H0)
    n = nfvd()
    # The kernel sees the ARP request before the SYN: it learns 10.1.0.2.
    n.add_port("p0", rx=[arp, syn, echo, ns])
    n.cmd("addr add 10.1.0.1/24 dev p0", "addr add 2001:db8:1::1/64 dev p0",
          "lcp add dev p0 host-if %s netns %s" % (TWIN, NS))
    n.start()
    deadline = time.monotonic() + 5
    while lcp_stats(n)["punted"] < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    assert H0 in ipns("neigh", "show", "10.1.0.2").stdout.lower()
    st = lcp_stats(n)
    # ARP: a copy for the kernel; nfvd itself still sees the frame.
    assert st["punted_by_reason"]["lcp_copy/arp"] == 1
    assert st["punted_by_reason"]["lcp_copy/nd"] == 1
    assert st["punted_by_reason"]["ip4_local/unsupported_protocol"] == 1
    assert st["punted_by_reason"]["ip6_input/multicast_destination"] == 0
    assert st["policed"] == 0
    show = n.ctl("lcp show")["lcp"][0]
    assert show["punted"] == 3 and show["from_twin"] >= 3
    # Does nfvd answer ARP and ND itself (the arp_nd module)? Then it answers
    # too, and takes the NS; otherwise it drops it, and the NS it would punt
    # is not sent to the kernel a second time.
    nodes = {x["node"] for x in n.ctl("show", "graph")["nodes"]}
    own_arp_nd = "arp_input" in nodes and "nd_input" in nodes
    drops = {(d["node"], d["reason"]): d["packets"] for d in n.ctl("show drops")["drops"]}
    assert drops.get(("lcp_punt", "nd_copied"), 0) == (0 if own_arp_nd else 1)
    out = n.stop()
    frames = [Ether(f) for f in out["p0"]]
    replies = [f for f in frames if ARP in f and f[ARP].op == 2]
    # The kernel's reply (and nfvd's, the same, when it answers ARP itself).
    assert len(replies) in ((1, 2) if own_arp_nd else (1,))
    for r in replies:
        assert (r.src.lower(), r.dst.lower(), r[ARP].psrc, r[ARP].hwsrc.lower(),
                r[ARP].pdst) == (P0, H0, "10.1.0.1", P0, "10.1.0.2")
    resets = [f for f in frames if TCP in f]
    assert len(resets) == 1
    rst = resets[0]
    assert (rst.dst.lower(), rst[IP].src, rst[IP].dst, rst[TCP].sport, rst[TCP].dport) == \
        (H0, "10.1.0.1", "10.1.0.2", 179, 40000)
    assert "R" in str(rst[TCP].flags) and rst[TCP].ack == 1001
    advs = [f for f in frames if ICMPv6ND_NA in f and f[ICMPv6ND_NA].tgt == "2001:db8:1::1"]
    # The kernel's (and nfvd's, when it does ND itself: both, or one of them
    # first, as the kernel may take nfvd's advertisement for its own).
    assert len(advs) in ((1, 2) if own_arp_nd else (1,))
    for na in advs:
        assert (na.src.lower(), na.dst.lower(), na[IPv6].src, na[IPv6].dst) == \
            (P0, H0, "2001:db8:1::1", "2001:db8:1::2")
        assert na[ICMPv6ND_NA].S == 1
    # The echo request is nfvd's, never the kernel's (only the SYN was
    # punted): without ARP of its own nfvd has no neighbor for 10.1.0.2 and
    # its reply is dropped unresolved; with it, the reply may leave.
    replies = [f for f in frames if ICMP in f and f[ICMP].type == 0]
    assert len(replies) in ((0, 1) if own_arp_nd else (0,))
    assert st["punted_by_reason"]["ip4_local/unsupported_protocol"] == 1


def test_punt_policer(nfvd, netns):
    """A flood of UDP to a port nfvd does not serve: punt-burst packets go to the
    twin, the rest is dropped under lcp_punt/policed and counted per reason."""
    flood = [Ether(dst=P0, src=H0) / IP(src="10.1.0.2", dst="10.1.0.1") /
             UDP(sport=1000 + i, dport=9999) / b"x" for i in range(300)]
    n = nfvd()
    n.add_port("p0", rx=flood)
    n.cmd("addr add 10.1.0.1/24 dev p0",
          "lcp add dev p0 host-if %s netns %s punt-rate 10 punt-burst 20" % (TWIN, NS))
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    n.extra_args += ["--metrics", "127.0.0.1:%d" % port]
    n.start()
    deadline = time.monotonic() + 10
    while True:
        st = lcp_stats(n)
        if st["punted"] + st["policed"] == 300 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert st["punted"] + st["policed"] == 300
    # The burst, and the few tokens the rate adds while the flood lasts.
    assert 20 <= st["punted"] <= 30, st
    assert st["policed_by_reason"]["ip4_local/unsupported_protocol"] == st["policed"]
    drops = {(d["node"], d["reason"]): d["packets"] for d in n.ctl("show drops")["drops"]}
    assert drops[("lcp_punt", "policed")] == st["policed"]
    assert ("ip4_local", "unsupported_protocol") not in drops
    # The same counts in Prometheus.
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
        prom = r.read().decode()
    want = {
        'nfvd_lcp_policed_packets_total{reason="ip4_local/unsupported_protocol"}':
            st["policed"],
        'nfvd_lcp_punted_packets_total{reason="ip4_local/unsupported_protocol"}':
            st["punted"],
        'nfvd_lcp_twin_packets_total{dev="p0",dir="to_twin"}': st["punted"],
    }
    have = {}
    for line in prom.splitlines():
        key, _, value = line.rpartition(" ")
        if key in want:
            have[key] = int(value)
    assert have == want
    assert "nfvd_lcp_resyncs_total 1" in prom
    n.stop()


def test_vlan_twin(nfvd, netns):
    """A VLAN sub-interface has a twin too (DESIGN: a twin of an interface):
    it has the sub-interface's MAC, MTU and addresses; the sub-interface's
    ARP (a copy) and TCP to port 179 reach it untagged, the other VLAN's and
    the untagged frames do not; what the kernel answers leaves p0 tagged
    with the sub-interface's VLAN; a route the kernel puts on the twin is
    nfvd's through the sub-interface; "vlan del" takes the twin."""
    def arp(vlan, ip):
        return Ether(dst="ff:ff:ff:ff:ff:ff", src=H0) / Dot1Q(vlan=vlan) / \
            ARP(op=1, hwsrc=H0, psrc=ip, pdst="10.20.0.1")

    def syn(vlan, sport):
        eth = Ether(dst=P0, src=H0)
        l3 = IP(src="10.20.0.2", dst="10.20.0.1") / \
            TCP(sport=sport, dport=179, flags="S", seq=1000)
        return eth / Dot1Q(vlan=vlan) / l3 if vlan else eth / l3

    n = nfvd()
    # The kernel sees the ARP request before the SYN: it learns 10.20.0.2.
    # VLAN 30 and the untagged port have the same addresses: none of their
    # frames may reach the twin.
    n.add_port("p0", rx=[arp(20, "10.20.0.2"), syn(20, 40000), arp(30, "10.20.0.3"),
                         syn(30, 40001), syn(None, 40002)])
    n.cmd("vlan add p0.20 dev p0 id 20", "vlan add v30 dev p0 id 30",
          "addr add 10.20.0.1/24 dev p0.20", "addr add 10.20.1.1/24 dev v30",
          "addr add 10.21.0.1/24 dev p0",
          "lcp add dev p0.20 host-if %s netns %s" % (TWIN, NS))
    n.start()
    show = n.ctl("lcp show")["lcp"]
    assert [(r["dev"], r["host_if"], r["netns"], r["port"], r["mac"]) for r in show] == \
        [("p0.20", TWIN, NS, "lcp-p0.20", P0)]
    link = json.loads(ipns("-j", "link", "show", TWIN).stdout)[0]
    assert (link["address"], link["mtu"], "UP" in link["flags"]) == (P0, 1500, True)
    assert twin_addrs() == {"10.20.0.1/24"}
    deadline = time.monotonic() + 5
    while lcp_stats(n)["punted"] < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    assert H0 in ipns("neigh", "show", "10.20.0.2").stdout.lower()
    assert "10.20.0.3" not in ipns("neigh", "show").stdout
    st = lcp_stats(n)
    assert st["punted_by_reason"]["lcp_copy/arp"] == 1
    assert st["punted_by_reason"]["ip4_local/unsupported_protocol"] == 1
    assert st["punted"] == 2 and st["policed"] == 0
    row = n.ctl("lcp show dev p0.20")["lcp"][0]
    assert row["punted"] == 2 and row["from_twin"] >= 2
    # The port's MTU lowered: the VLAN comes down with it, and so does
    # the VLAN's twin in the kernel.
    n.ctl("port", "set", "p0", "mtu", "1400")
    link = json.loads(ipns("-j", "link", "show", TWIN).stdout)[0]
    assert link["mtu"] == 1400

    # A kernel route through the twin goes through p0.20 in nfvd.
    ipns("route", "add", "192.0.2.0/24", "via", "10.20.0.7", "proto", "bgp")
    wait_routes(n, {"192.0.2.0/24": ("bgp", "10.20.0.7")})
    r = n.ctl("route show 192.0.2.0/24")["routes"][0]
    assert (r["source"], r["via"], r["dev"]) == ("kernel", "10.20.0.7", "p0.20")
    # VXLAN interfaces have no twin: a clear error.
    n.ctl("vxlan add vx9 vni 9 local 10.20.0.1")
    with pytest.raises(CtlError) as e:
        n.ctl("lcp", "add", "dev", "vx9")
    assert "vx9 is a vxlan interface: twins are for ports, VLAN sub-interfaces and " \
        "bridges" in e.value.stdout + e.value.stderr

    # The sub-interface going takes its twin (and its routes).
    n.ctl("vlan del p0.20")
    assert n.ctl("lcp show")["lcp"] == []
    assert ipns("link", "show", TWIN, check=False).returncode != 0
    assert "lcp-p0.20" not in {p["name"] for p in n.ctl("port show")["ports"]}
    assert "192.0.2.0/24" not in {x["prefix"] for x in n.ctl("route show")["routes"]}
    out = n.stop()
    frames = [Ether(f) for f in out["p0"]]
    # The kernel's ARP reply and TCP reset, tagged with VLAN 20 (and nfvd's
    # own ARP reply, the same, when it answers ARP itself).
    replies = [f for f in frames if ARP in f and f[ARP].op == 2]
    assert replies and all(
        (Dot1Q in r and r[Dot1Q].vlan, r.src.lower(), r.dst.lower(), r[ARP].psrc,
         r[ARP].pdst) == (20, P0, H0, "10.20.0.1", "10.20.0.2") for r in replies), replies
    resets = [f for f in frames if TCP in f]
    assert len(resets) == 1, resets
    rst = resets[0]
    assert (rst[Dot1Q].vlan, rst[Dot1Q].type, rst.dst.lower(), rst[IP].src, rst[IP].dst,
            rst[TCP].sport, rst[TCP].dport, rst[TCP].ack) == \
        (20, 0x0800, H0, "10.20.0.1", "10.20.0.2", 179, 40000, 1001)
    assert "R" in str(rst[TCP].flags)


def test_bridge_twin(nfvd, netns):
    """A bridge has a twin too (a BVI's, as VPP's linux-cp gives one): the
    bridge's MAC, MTU and addresses; a copy of the ARP its ports bring for
    its address and TCP to port 179 reach it; what the kernel answers goes
    into the bridge as the bridge's own frames, to the port its destination
    was learned on; a route the kernel puts on the twin is nfvd's through
    the bridge; "bridge del" takes the twin."""
    BR = "02:00:00:00:0b:fe"
    arp = Ether(dst="ff:ff:ff:ff:ff:ff", src=H0) / ARP(op=1, hwsrc=H0, psrc="10.30.0.2",
                                                         pdst="10.30.0.1")
    syn = Ether(dst=BR, src=H0) / IP(src="10.30.0.2", dst="10.30.0.1") / \
        TCP(sport=40000, dport=179, flags="S", seq=1000)
    n = nfvd()
    n.add_port("p0", rx=[arp, syn])
    n.add_port("p1")
    n.cmd("bridge add br0 mac %s" % BR, "bridge port add br0 dev p0",
          "bridge port add br0 dev p1", "addr add 10.30.0.1/24 dev br0",
          "lcp add dev br0 host-if %s netns %s" % (TWIN, NS))
    n.start()
    show = n.ctl("lcp show")["lcp"]
    assert [(r["dev"], r["host_if"], r["netns"], r["port"], r["mac"]) for r in show] == \
        [("br0", TWIN, NS, "lcp-br0", BR)]
    link = json.loads(ipns("-j", "link", "show", TWIN).stdout)[0]
    assert (link["address"], link["mtu"], "UP" in link["flags"]) == (BR, 1500, True)
    assert twin_addrs() == {"10.30.0.1/24"}
    deadline = time.monotonic() + 5
    while lcp_stats(n)["punted"] < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    assert H0 in ipns("neigh", "show", "10.30.0.2").stdout.lower()
    st = lcp_stats(n)
    assert st["punted_by_reason"]["lcp_copy/arp"] == 1
    assert st["punted_by_reason"]["ip4_local/unsupported_protocol"] == 1
    assert st["punted"] == 2 and st["policed"] == 0
    row = n.ctl("lcp show dev br0")["lcp"][0]
    assert row["punted"] == 2 and row["from_twin"] >= 2
    # A kernel route through the twin goes through br0 in nfvd.
    ipns("route", "add", "192.0.2.0/24", "via", "10.30.0.7", "proto", "bgp")
    wait_routes(n, {"192.0.2.0/24": ("bgp", "10.30.0.7")})
    r = n.ctl("route show 192.0.2.0/24")["routes"][0]
    assert (r["source"], r["via"], r["dev"]) == ("kernel", "10.30.0.7", "br0")
    # The bridge going takes its twin (and its routes).
    n.ctl("bridge del br0")
    assert n.ctl("lcp show")["lcp"] == []
    assert ipns("link", "show", TWIN, check=False).returncode != 0
    assert "lcp-br0" not in {p["name"] for p in n.ctl("port show")["ports"]}
    assert "192.0.2.0/24" not in {x["prefix"] for x in n.ctl("route show")["routes"]}
    out = n.stop()
    frames = [Ether(f) for f in out["p0"]]
    # The kernel's ARP reply and TCP reset, bridged to p0 where H0 is (and
    # nfvd's own ARP reply, the same, when it answers ARP itself); none of
    # them flooded to p1, which had only the ARP request.
    replies = [f for f in frames if ARP in f and f[ARP].op == 2]
    assert replies and all((r.src.lower(), r.dst.lower(), r[ARP].psrc, r[ARP].hwsrc.lower(),
                            r[ARP].pdst) == (BR, H0, "10.30.0.1", BR, "10.30.0.2")
                           for r in replies), replies
    resets = [f for f in frames if TCP in f]
    assert len(resets) == 1, resets
    rst = resets[0]
    assert (rst.src.lower(), rst.dst.lower(), rst[IP].src, rst[IP].dst, rst[TCP].sport,
            rst[TCP].dport, rst[TCP].ack) == (BR, H0, "10.30.0.1", "10.30.0.2", 179, 40000, 1001)
    assert "R" in str(rst[TCP].flags)
    p1 = [Ether(f) for f in out["p1"]]
    assert [bytes(f) for f in p1 if ARP in f] == [bytes(arp)]
    assert not [f for f in p1 if TCP in f or (ARP in f and f[ARP].op == 2)]
