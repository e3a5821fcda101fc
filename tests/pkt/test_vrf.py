# SPDX-License-Identifier: BSD-3-Clause
"""
VRFs: two tenants with the same addresses and the same prefix, each routed
by its own table, byte for byte; a prefix of one tenant is "no route" (ICMP
net unreachable) for the other; interfaces move between VRFs with their
addresses and neighbors; a VRF in use cannot be deleted.

    red:  H0 10.0.0.1  -- p0 10.0.0.254/24   [nfvd]  p2 10.1.0.254/24 -- RA 10.1.0.1
          2001:db8:a::1   2001:db8:a::fe/64           2001:db8:1::fe/64   2001:db8:1::1
    blue: H1 10.0.0.1  -- p1 10.0.0.254/24           p3 10.2.0.254/24 -- RB 10.2.0.1
          2001:db8:a::1   2001:db8:a::fe/64           2001:db8:2::fe/64   2001:db8:2::1

    198.51.100.0/24, 2001:db8:100::/48: red via RA, blue via RB
    203.0.113.0/24, 2001:db8:200::/48: red only
"""
import subprocess
import time

from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.inet6 import ICMPv6DestUnreach, IPv6
from scapy.layers.l2 import ARP, Ether

from nfvdlib import NFVCTL, CtlError, Nfvd, drops, pcap_mac

P0, P1, P2, P3 = (pcap_mac(i) for i in range(4))
H0, H1 = "02:00:00:00:00:a0", "02:00:00:00:00:b0"
RA, RB = "02:00:00:00:01:a1", "02:00:00:00:02:b1"

CONFIG = [
    "vrf add red",
    "vrf add blue",
    "port set p0 vrf red",
    "port set p2 vrf red",
    "port set p1 vrf blue",
    "port set p3 vrf blue",
    "addr add 10.0.0.254/24 dev p0",
    "addr add 10.0.0.254/24 dev p1",
    "addr add 10.1.0.254/24 dev p2",
    "addr add 10.2.0.254/24 dev p3",
    "addr add 2001:db8:a::fe/64 dev p0",
    "addr add 2001:db8:a::fe/64 dev p1",
    "addr add 2001:db8:1::fe/64 dev p2",
    "addr add 2001:db8:2::fe/64 dev p3",
    "neigh add 10.0.0.1 lladdr %s dev p0" % H0,
    "neigh add 10.0.0.1 lladdr %s dev p1" % H1,
    "neigh add 2001:db8:a::1 lladdr %s dev p0" % H0,
    "neigh add 2001:db8:a::1 lladdr %s dev p1" % H1,
    "neigh add 10.1.0.1 lladdr %s dev p2" % RA,
    "neigh add 10.2.0.1 lladdr %s dev p3" % RB,
    "neigh add 2001:db8:1::1 lladdr %s dev p2" % RA,
    "neigh add 2001:db8:2::1 lladdr %s dev p3" % RB,
    "route add 198.51.100.0/24 via 10.1.0.1 vrf red",
    "route add 198.51.100.0/24 via 10.2.0.1 vrf blue",
    "route add 203.0.113.0/24 via 10.1.0.1 vrf red",
    "route add 2001:db8:100::/48 via 2001:db8:1::1 vrf red",
    "route add 2001:db8:100::/48 via 2001:db8:2::1 vrf blue",
    "route add 2001:db8:200::/48 via 2001:db8:1::1 vrf red",
]


def routed(l3, dst_mac, src_mac):
    l3 = l3.copy()
    if IP in l3:
        l3[IP].ttl -= 1
        del l3[IP].chksum
    else:
        l3[IPv6].hlim -= 1
    return bytes(Ether(dst=dst_mac, src=src_mac) / l3)


def udp4(dst, tag):
    return IP(src="10.0.0.1", dst=dst, ttl=64) / UDP(sport=4000, dport=5000) / tag


def udp6(dst, tag):
    return IPv6(src="2001:db8:a::1", dst=dst, hlim=64) / UDP(sport=4000, dport=5000) / tag


def test_vrf_same_prefix_two_tenants(tmp_path):
    red = [udp4("198.51.100.7", b"red-%d" % i) for i in range(2)] + \
          [udp4("203.0.113.5", b"red-only"),
           udp6("2001:db8:100::7", b"red6"), udp6("2001:db8:200::1", b"red6-only")]
    blue = [udp4("198.51.100.7", b"blue-%d" % i) for i in range(2)] + \
           [udp6("2001:db8:100::7", b"blue6")]
    blue_leak = [udp4("203.0.113.5", b"leak"), udp6("2001:db8:200::1", b"leak6")]
    in0 = [Ether(dst=P0, src=H0) / p for p in red]
    in1 = [Ether(dst=P1, src=H1) / p for p in blue + blue_leak]
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=in0)
    nfvd.add_port("p1", rx=in1)
    nfvd.add_port("p2")
    nfvd.add_port("p3")
    nfvd.cmd(*CONFIG)
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(in0), "p1": len(in1)})
    assert drops(st) == {"ip4_lookup/no_route": 1, "ip6_lookup/no_route": 1}
    ports = {p["name"]: p["vrf"] for p in nfvd.ctl("port show")["ports"]}
    assert ports == {"p0": "red", "p1": "blue", "p2": "red", "p3": "blue"}
    vrfs = {v["name"]: v for v in nfvd.ctl("vrf show")["vrfs"]}
    assert vrfs["default"]["id"] == 0 and vrfs["default"]["interfaces"] == []
    assert vrfs["red"]["interfaces"] == ["p0", "p2"]
    assert vrfs["blue"]["interfaces"] == ["p1", "p3"]
    # connected + local of 2 addresses, 2 neighbors, 2 (red) or 1 (blue) routes
    assert (vrfs["red"]["routes4"], vrfs["blue"]["routes4"]) == (8, 7)
    assert (vrfs["red"]["routes6"], vrfs["blue"]["routes6"]) == (8, 7)
    r = nfvd.ctl("route show 198.51.100.0/24 vrf blue")["routes"]
    assert [(x["via"], x["dev"], x["vrf"]) for x in r] == [("10.2.0.1", "p3", "blue")]
    r = nfvd.ctl("route show 198.51.100.0/24 vrf red")["routes"]
    assert [(x["via"], x["dev"], x["vrf"]) for x in r] == [("10.1.0.1", "p2", "red")]
    assert nfvd.ctl("route show")["routes"] == []
    neighs = nfvd.ctl("neigh show vrf blue")["neighbors"]
    assert sorted((n["address"], n["dev"], n["vrf"]) for n in neighs) == [
        ("10.0.0.1", "p1", "blue"), ("10.2.0.1", "p3", "blue"),
        ("2001:db8:2::1", "p3", "blue"), ("2001:db8:a::1", "p1", "blue")]
    out = nfvd.stop()
    assert out["p2"] == [routed(p, RA, P2) for p in red]
    assert out["p3"] == [routed(p, RB, P3) for p in blue]
    assert out["p0"] == []
    # The leaks come back to H1 as "no route" errors from blue's p1.
    errs = [Ether(f) for f in out["p1"]]
    assert len(errs) == 2
    e4, e6 = errs if IP in errs[0] else errs[::-1]
    assert e4[Ether].dst == H1 and e4[IP].src == "10.0.0.254" and e4[IP].dst == "10.0.0.1"
    assert (e4[ICMP].type, e4[ICMP].code) == (3, 0)
    assert e6[Ether].dst == H1 and e6[IPv6].src == "2001:db8:a::fe"
    assert (e6[ICMPv6DestUnreach].type, e6[ICMPv6DestUnreach].code) == (1, 0)


def ctl_error(nfvd, line):
    try:
        nfvd.ctl(*line.split())
    except CtlError as e:
        return str(e)
    raise AssertionError("%s succeeded" % line)


def test_vrf_move_and_delete(tmp_path):
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", null=True)
    nfvd.add_port("p1", null=True)
    nfvd.cmd("addr add 10.0.0.254/24 dev p0",
             "addr add 2001:db8:a::fe/64 dev p0",
             "addr add 10.9.0.254/24 dev p1",
             "neigh add 10.0.0.1 lladdr %s dev p0" % H0,
             "route add 198.51.100.0/24 via 10.0.0.1",
             "route add 192.0.2.0/24 via 10.9.0.1",
             "vrf add red")
    nfvd.start()

    def table(vrf=None):
        line = "route show" + (" vrf " + vrf if vrf else "")
        return sorted((r["prefix"], r["source"], r["dev"], r["vrf"])
                      for r in nfvd.ctl(*line.split())["routes"])

    before = table()
    assert ("198.51.100.0/24", "static", "p0", "default") in before
    assert table("red") == []
    nfvd.ctl("port set p0 vrf red")
    assert table() == [("10.9.0.0/24", "connected", "p1", "default"),
                       ("10.9.0.254/32", "local", None, "default"),
                       ("192.0.2.0/24", "static", "p1", "default")]
    assert table("red") == [("10.0.0.0/24", "connected", "p0", "red"),
                            ("10.0.0.1/32", "neighbor", "p0", "red"),
                            ("10.0.0.254/32", "local", None, "red"),
                            ("2001:db8:a::/64", "connected", "p0", "red"),
                            ("2001:db8:a::fe/128", "local", None, "red")]
    assert [p["vrf"] for p in nfvd.ctl("port show p0")["ports"]] == ["red"]
    assert [(n["address"], n["vrf"]) for n in nfvd.ctl("neigh show vrf red")["neighbors"]] == \
        [("10.0.0.1", "red")]
    # Without vrf, the default VRF's (DESIGN 3); with dev, that interface's.
    assert nfvd.ctl("neigh show")["neighbors"] == []
    assert [(n["address"], n["vrf"]) for n in nfvd.ctl("neigh show dev p0")["neighbors"]] == \
        [("10.0.0.1", "red")]
    # The same address may be in two VRFs; not twice in one.
    nfvd.ctl("addr add 10.0.0.254/24 dev p1")
    nfvd.ctl("addr del 10.0.0.254/24 dev p1")
    for line, msg in [
            ("vrf del red", "VRF red is in use by interface p0"),
            ("vrf del default", "VRF default always exists and cannot be deleted"),
            ("vrf add red", "VRF red already exists"),
            ("vrf add 9red", "bad VRF name '9red'"),
            ("vrf del nope", "unknown VRF 'nope'"),
            ("port set p0 vrf nope", "unknown VRF 'nope'"),
            ("port set p0 vrf", "missing value after 'vrf'"),
            ("route add 10.5.0.0/16 blackhole vrf nope", "unknown VRF 'nope'"),
            ("route show vrf nope", "unknown VRF 'nope'"),
            ("route del 10.5.0.0/16 vrf nope", "unknown VRF 'nope'"),
            ("neigh show vrf nope", "unknown VRF 'nope'"),
            ("route add 10.5.0.0/16 via 10.0.0.1 vrf default",
             "gateway 10.0.0.1 is not on a connected network"),
            ("route add 10.5.0.0/16 via 10.9.0.1 dev p1 vrf red",
             "interface p1 is in VRF default, not in VRF red"),
            ("route add 10.5.0.0/16 dev p0", "interface p0 is in VRF red, not in VRF default"),
            ("route show 198.51.100.0/24 vrf red", "no route 198.51.100.0/24 in VRF red"),
            ("route del 10.99.0.0/16 vrf red", "no route 10.99.0.0/16 in VRF red")]:
        assert msg in ctl_error(nfvd, line), line
    nfvd.ctl("route add 10.5.0.0/16 via 10.0.0.1 vrf red")
    nfvd.ctl("route add 10.6.0.0/16 blackhole vrf red")
    assert [v["routes4"] for v in nfvd.ctl("vrf show red")["vrfs"]] == [5]
    # Back to the default VRF: the routes through it in red go, the
    # addresses and neighbor come back; then red can go.
    nfvd.ctl("port set p0 vrf default")
    assert table("red") == [("10.6.0.0/16", "static", None, "red")]
    assert ("10.0.0.1/32", "neighbor", "p0", "default") in table()
    nfvd.ctl("vrf del red")
    assert [v["name"] for v in nfvd.ctl("vrf show")["vrfs"]] == ["default"]
    assert "unknown VRF 'red'" in ctl_error(nfvd, "route show vrf red")
    nfvd.stop()


def test_vrf_word_on_neigh_and_addr_commands(tmp_path):
    """Every neigh command takes [vrf VRF] (DESIGN 3): neigh add, del and
    flush accept the VRF of their interface and refuse another, naming it;
    addr show [vrf VRF] lists one VRF's addresses."""
    nfvd = Nfvd(tmp_path)
    for p in ("p0", "p1", "p2", "p3"):
        nfvd.add_port(p)
    nfvd.cmd(*CONFIG)
    nfvd.start()

    def neighs():
        """Every VRF's neighbors ("neigh show" alone: the default VRF's)."""
        return [n for v in ("default", "red", "blue")
                for n in nfvd.ctl("neigh show vrf " + v)["neighbors"]]
    before = neighs()
    assert before and nfvd.ctl("neigh show")["neighbors"] == []
    for line, msg in [
            ("neigh add 10.0.0.7 lladdr %s dev p0 vrf blue" % H0,
             "interface p0 is in VRF red, not in VRF blue"),
            ("neigh add 10.0.0.7 lladdr %s dev p0 vrf nope" % H0, "unknown VRF 'nope'"),
            ("neigh add 10.0.0.7 lladdr %s dev p0 vrf" % H0, "missing VRF name after 'vrf'"),
            ("neigh add 10.0.0.7 lladdr %s dev p0 vrf red now" % H0,
             "unexpected 'now' after 'vrf red'"),
            ("neigh add 10.0.0.7 lladdr %s dev p0 frob red" % H0, "unexpected 'frob'"),
            ("neigh del 10.0.0.1 dev p0 vrf default",
             "interface p0 is in VRF red, not in VRF default"),
            ("neigh flush vrf nope", "unknown VRF 'nope'"),
            ("neigh flush dev p0 vrf blue", "interface p0 is in VRF red, not in VRF blue"),
            ("neigh flush frob", "unexpected 'frob'"),
            ("neigh flush dev", "missing interface name after 'dev'"),
            ("addr show vrf nope", "unknown VRF 'nope'"),
            ("addr show frob", "unexpected 'frob' (expected 'vrf')"),
            ("addr show vrf", "missing VRF name after 'vrf'")]:
        assert msg in ctl_error(nfvd, line), line
    assert neighs() == before
    nfvd.ctl("neigh add 10.0.0.7 lladdr %s dev p0 vrf red" % H0)
    assert [(n["address"], n["dev"], n["vrf"]) for n in
            nfvd.ctl("neigh show vrf red")["neighbors"] if n["address"] == "10.0.0.7"] == \
        [("10.0.0.7", "p0", "red")]
    nfvd.ctl("neigh del 10.0.0.7 dev p0 vrf red")
    assert "10.0.0.7" not in [n["address"] for n in neighs()]
    # A learned entry in each VRF (an ARP request to nfvd's address on p0,
    # red, and on p1, blue): "neigh flush vrf blue" forgets blue's only.
    for port, mac in (("p0", "02:00:00:00:00:a7"), ("p1", "02:00:00:00:00:b7")):
        arp = Ether(src=mac, dst="ff:ff:ff:ff:ff:ff") / \
            ARP(op=1, hwsrc=mac, psrc="10.0.0.7", pdst="10.0.0.254")
        nfvd.ctl("punt", "inject", "dev", port, "hex", bytes(arp).hex())

    def learned():
        return sorted((n["dev"], n["vrf"]) for v in ("red", "blue")
                      for n in nfvd.ctl("neigh show vrf " + v)["neighbors"]
                      if n["state"] != "static")
    deadline = time.monotonic() + 10
    while learned() != [("p0", "red"), ("p1", "blue")]:
        assert time.monotonic() < deadline, learned()
        time.sleep(0.02)
    assert nfvd.ctl("neigh flush vrf blue") == {"flushed": 1}
    assert learned() == [("p0", "red")]
    assert nfvd.ctl("neigh flush dev p1 vrf blue") == {"flushed": 0}
    assert nfvd.ctl("neigh flush dev p0 vrf red") == {"flushed": 1}
    assert neighs() == before
    red = nfvd.ctl("addr show vrf red")["addresses"]
    assert sorted((a["address"], a["dev"]) for a in red) == [
        ("10.0.0.254/24", "p0"), ("10.1.0.254/24", "p2"),
        ("2001:db8:1::fe/64", "p2"), ("2001:db8:a::fe/64", "p0")]
    assert {a["vrf"] for a in red} == {"red"}
    assert nfvd.ctl("addr show vrf default")["addresses"] == []
    assert len(nfvd.ctl("addr show")["addresses"]) == 8
    nfvd.stop()


def test_route_load_relative_path_with_vrf(tmp_path):
    """nfvctl route load FILE vrf VRF: a relative FILE is read from
    nfvctl's directory (nfvd runs elsewhere), with or without the vrf word;
    the routes go to that VRF only."""
    nfvd = Nfvd(tmp_path)
    for p in ("p0", "p1", "p2", "p3"):
        nfvd.add_port(p)
    nfvd.cmd(*CONFIG)
    nfvd.start()
    work = tmp_path / "here"
    work.mkdir()
    (work / "red.txt").write_text("10.77.0.0/16 via 10.0.0.1\n10.78.0.0/16 blackhole\n")
    (work / "plain.txt").write_text("10.79.0.0/16 blackhole\n")
    for line in (["route", "load", "red.txt", "vrf", "red"], ["route", "load", "plain.txt"]):
        r = subprocess.run([str(NFVCTL), "-s", str(nfvd.sock), "--json"] + line, cwd=work,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
    red = {x["prefix"]: x["type"] for x in nfvd.ctl("route show vrf red")["routes"]}
    assert red.get("10.77.0.0/16") == "gateway" and red.get("10.78.0.0/16") == "blackhole", red
    assert [x["prefix"] for x in nfvd.ctl("route show")["routes"]] == ["10.79.0.0/16"]
    nfvd.stop()
