# SPDX-License-Identifier: BSD-3-Clause
"""
The module registry seen from outside: commands of every module reach one
dispatcher, node names keep their short form in every view, drop reasons
are listed under the node that counts them, and nfvd with default options
starts and forwards in 512 MB without hugepages.
"""
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from nfvdlib import Nfvd, drops, pcap_mac

H0 = "02:00:00:00:00:01"
R1 = "02:00:00:00:01:01"



def check_vlan_arc_features(nfvd):
    """A VLAN interface enables vlan_output4 on itself, last of the IPv4
    egress features (with bridge_output4, which is never on the same
    interface); nothing else is on."""
    nfvd.ctl("vlan add v7 dev p0 id 7")
    arcs = {a["arc"]: a for a in nfvd.ctl("show", "arcs")["arcs"]}
    assert arcs["ip4_egress"]["features"] == [{"feature": "acl_out4", "ifaces": []},
                                              {"feature": "policer_out4", "ifaces": []},
                                              {"feature": "nat44_out", "ifaces": []},
                                              {"feature": "bridge_output4", "ifaces": []},
                                              {"feature": "vlan_output4", "ifaces": ["v7"]}]
    assert arcs["ip4_ingress"]["features"] == [{"feature": "acl_in4", "ifaces": []},
                                               {"feature": "policer_in4", "ifaces": []},
                                               {"feature": "lb_in", "ifaces": []},
                                               {"feature": "nat44_in", "ifaces": []},
                                               {"feature": "upf_downlink", "ifaces": []}]

def two_ports(nfvd, frames):
    nfvd.add_port("p0", rx=frames)
    nfvd.add_port("p1")
    nfvd.cmd("addr add 10.0.0.254/24 dev p0", "addr add 10.1.0.254/24 dev p1",
             "neigh add 10.1.0.1 lladdr %s dev p1" % R1,
             "neigh add 10.0.0.1 lladdr %s dev p0" % H0,
             "route add 198.51.100.0/24 via 10.1.0.1")


def udp(i, ttl=64):
    return (Ether(dst=pcap_mac(0), src=H0) /
            IP(src="10.0.0.1", dst="198.51.100.%d" % (i % 250 + 1), ttl=ttl) /
            UDP(sport=1000 + i, dport=53) / (b"m%04d" % i))


def test_default_options_fit_512mb_without_hugepages(tmp_path):
    """Route tables sized to the memory: start, forward every packet byte for
    byte, every mbuf home (stop() checks it)."""
    frames = [udp(i) for i in range(200)]
    nfvd = Nfvd(tmp_path, max_routes4=None, max_routes6=None, mem_mb=512)
    two_ports(nfvd, frames)
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(frames)})
    assert st["packets"]["forwarded"] == len(frames)
    assert st["packets"]["dropped"] == 0
    out = nfvd.stop()
    want = []
    for f in frames:
        g = f.copy()
        g[Ether].src, g[Ether].dst = pcap_mac(1), R1
        g[IP].ttl -= 1
        del g[IP].chksum
        want.append(bytes(Ether(bytes(g))))
    assert out["p1"] == want


def test_every_module_command_in_help(tmp_path):
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0")
    nfvd.start()
    usages = [c["command"] for c in nfvd.ctl("help")["commands"]]
    for first in ("port add", "worker set", "addr add", "neigh add", "route add",
                  "show stats", "stats reset", "help"):
        assert any(u.startswith(first) for u in usages), first
    assert len(usages) == len(set(usages))
    r = nfvd.ctl_result("route", "frobnicate")
    assert r.rc == 1
    assert "unknown word 'frobnicate' after 'route' (expected add, del, load, show)" in r.stderr
    check_vlan_arc_features(nfvd)
    nfvd.stop()


def test_node_names_and_drop_owners(tmp_path):
    """Nodes are registered as nfv_<name>; every view shows <name>. A TTL 1
    packet is counted by ip4_rewrite, a packet to nowhere by ip4_lookup."""
    frames = [udp(1, ttl=1), Ether(dst=pcap_mac(0), src=H0) /
              IP(src="10.0.0.1", dst="203.0.113.9") / UDP()]
    nfvd = Nfvd(tmp_path)
    two_ports(nfvd, frames)
    nfvd.start()
    st = nfvd.wait_processed({"p0": 2})
    assert drops(st) == {"ip4_rewrite/ttl_expired": 1, "ip4_lookup/no_route": 1}
    names = {n["node"] for n in nfvd.ctl("show", "graph")["nodes"]}
    assert {"port_rx", "eth_input", "ip4_input", "ip4_lookup", "ip4_rewrite",
            "port_tx", "drop"} <= names
    assert not any(n.startswith("nfv_") for n in names)
    dot = nfvd.ctl("graph", "dot")["dot"]
    assert '"ip4_lookup" -> "ip4_rewrite";' in dot
    check_vlan_arc_features(nfvd)
    nfvd.stop()


def test_show_arcs(tmp_path):
    """The IP arcs: the ACL, the policer, then the load balancer, NAT44 and
    the UPF's downlink (IPv4) on ingress; on egress the ACL, the policer,
    NAT44, then the bridge's and the VLAN module's output features (the tag
    goes on last), enabled on no interface while there is no ACL, policer,
    NAT rule, load-balancer service, N3, bridge with an address or VLAN; on
    l2_input the lcp module's features (no twin yet), the observers (mirror,
    capture, flow statistics) and the bridge, on l2_output mirroring of ports
    and of their VLAN sub-interfaces (output captures are TX callbacks), on
    vlan_l2_input lcp's copies, a sub-interface's mirror and capture, and the
    bridge, on ip4_icmp_error (the errors nfvd builds) the load balancer's,
    enabled nowhere until asked."""
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0")
    nfvd.start()
    arcs = {a["arc"]: a for a in nfvd.ctl("show", "arcs")["arcs"]}
    assert arcs == {
        "l2_input": {"arc": "l2_input", "from": "port_rx", "to": "eth_input",
                     "features": [{"feature": "lcp_xconnect", "ifaces": []},
                                  {"feature": "lcp_copy", "ifaces": []},
                                  {"feature": "mirror_in", "ifaces": []},
                                  {"feature": "capture_in", "ifaces": []},
                                  {"feature": "flow_in", "ifaces": []},
                                  {"feature": "bridge_input", "ifaces": []}]},
        "l2_output": {"arc": "l2_output", "from": "port_tx", "to": "l2_output_end",
                      "features": [{"feature": "mirror_out", "ifaces": []},
                                   {"feature": "mirror_vlan_out", "ifaces": []}]},
        "ip4_ingress": {"arc": "ip4_ingress", "from": "ip4_input", "to": "ip4_lookup",
                        "features": [{"feature": "acl_in4", "ifaces": []},
                                     {"feature": "policer_in4", "ifaces": []},
                                     {"feature": "lb_in", "ifaces": []},
                                     {"feature": "nat44_in", "ifaces": []},
                                     {"feature": "upf_downlink", "ifaces": []}]},
        "ip4_egress": {"arc": "ip4_egress", "from": "ip4_rewrite", "to": "port_tx",
                       "features": [{"feature": "acl_out4", "ifaces": []},
                                    {"feature": "policer_out4", "ifaces": []},
                                    {"feature": "nat44_out", "ifaces": []},
                                    {"feature": "bridge_output4", "ifaces": []},
                                    {"feature": "vlan_output4", "ifaces": []}]},
        "ip4_icmp_error": {"arc": "ip4_icmp_error", "from": "ip4_icmp_error", "to": "ip4_lookup",
                           "features": [{"feature": "lb_own_icmp_error", "ifaces": []}]},
        "ip6_ingress": {"arc": "ip6_ingress", "from": "ip6_input", "to": "ip6_lookup",
                        "features": [{"feature": "acl_in6", "ifaces": []},
                                     {"feature": "policer_in6", "ifaces": []}]},
        "ip6_egress": {"arc": "ip6_egress", "from": "ip6_rewrite", "to": "port_tx",
                       "features": [{"feature": "acl_out6", "ifaces": []},
                                    {"feature": "policer_out6", "ifaces": []},
                                    {"feature": "bridge_output6", "ifaces": []},
                                    {"feature": "vlan_output6", "ifaces": []}]},
        "vlan_l2_input": {"arc": "vlan_l2_input", "from": "vlan_input", "to": "eth_input",
                          "features": [{"feature": "lcp_copy", "ifaces": []},
                                       {"feature": "mirror_vlan_in", "ifaces": []},
                                       {"feature": "capture_vlan_in", "ifaces": []},
                                       {"feature": "bridge_input", "ifaces": []}]},
    }
    check_vlan_arc_features(nfvd)
    nfvd.stop()


def test_table_memory_is_reported(tmp_path):
    """show stats says what each table took; the tables start small (64k
    IPv4, 16k IPv6 routes) whatever the max, so they fit 512 MB."""
    nfvd = Nfvd(tmp_path, max_routes4=None, max_routes6=None, mem_mb=512)
    nfvd.add_port("p0")
    nfvd.start()
    t = nfvd.stats()["tables"]
    mem = t["memory_bytes"]
    assert set(mem) == {"ipv4_fib", "ipv6_fib", "routes", "nexthops"}
    # Two DIR-24-8 tables: at least their 2^24 4-byte entries each.
    assert mem["ipv4_fib"] >= 2 * (1 << 24) * 4
    assert all(v > 0 for v in mem.values())
    assert sum(mem.values()) <= 512 * 3 // 4 * (1 << 20)
    assert t["ipv4_route_capacity"] == 65536 and t["ipv6_route_capacity"] == 16384
    nfvd.stop()


def test_tables_grow_when_routes_need_room(tmp_path):
    """100,000 routes in a table that starts at 65,536: it grows (rebuilt
    four times larger, the FIB pair flipped), every route is there, and a
    route added last forwards."""
    n_routes = 100000
    path = tmp_path / "routes.txt"
    path.write_text("".join("%d.%d.%d.0/24 via 10.1.0.1\n" % (11 + i // 65536, (i >> 8) & 255,
                                                             i & 255) for i in range(n_routes)))
    last = "%d.%d.%d.9" % (11 + (n_routes - 1) // 65536, ((n_routes - 1) >> 8) & 255,
                           (n_routes - 1) & 255)
    frame = (Ether(dst=pcap_mac(2), src=H0) / IP(src="10.0.0.1", dst=last, ttl=9) /
             UDP(sport=7, dport=7) / b"grown")
    nfvd = Nfvd(tmp_path, max_routes4=None, max_routes6=None)
    nfvd.add_port("p0")
    nfvd.add_port("p1")
    nfvd.cmd("addr add 10.0.0.254/24 dev p0", "addr add 10.1.0.254/24 dev p1",
             "neigh add 10.1.0.1 lladdr %s dev p1" % R1)
    nfvd.start()
    before = nfvd.stats()["tables"]
    assert before["ipv4_route_capacity"] == 65536
    assert nfvd.ctl("route", "load", str(path))["routes_loaded"] == n_routes
    t = nfvd.stats()["tables"]
    assert t["ipv4_route_capacity"] == 262144
    # and the two local, two connected and one neighbor host route
    assert t["ipv4_routes"] == n_routes + 5
    assert t["memory_bytes"]["ipv4_fib"] > before["memory_bytes"]["ipv4_fib"]
    assert "route table: IPv4 grown from 65536 to 262144 routes" in nfvd.log_path.read_text()
    nfvd.add_port_now("in", rx=[frame])
    nfvd.wait_processed({"in": 1})
    out = nfvd.stop()
    assert len(out["p1"]) == 1 and IP(out["p1"][0][14:]).dst == last
