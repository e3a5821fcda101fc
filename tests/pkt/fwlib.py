# SPDX-License-Identifier: BSD-3-Clause
"""What the firewall's tests (ACLs, policers) share: nfvd routing between
two pcap ports, p0 (inside, 10.0.0.254/24, 2001:db8:a::fe/64) and p1
(outside, 10.1.0.254/24, 2001:db8:b::fe/64, next hop R1)."""
from nfvdlib import Nfvd

H0 = "02:00:00:00:00:01"
R1 = "02:00:00:00:01:01"

# Default routes (ACL tests) or the 198.18.0.0/16 and 2001:db8:100::/48
# test networks (policer tests), via R1 on p1.
DEFAULT_ROUTES = ("0.0.0.0/0", "::/0")
TEST_NET_ROUTES = ("198.18.0.0/16", "2001:db8:100::/48")


def router_config(routes=DEFAULT_ROUTES):
    r4, r6 = routes
    return [
        "addr add 10.0.0.254/24 dev p0",
        "addr add 2001:db8:a::fe/64 dev p0",
        "addr add 10.1.0.254/24 dev p1",
        "addr add 2001:db8:b::fe/64 dev p1",
        "neigh add 10.1.0.1 lladdr %s dev p1" % R1,
        "neigh add 2001:db8:b::1 lladdr %s dev p1" % R1,
        "route add %s via 10.1.0.1" % r4,
        "route add %s via 2001:db8:b::1" % r6,
    ]


def router(tmp_path, rx=None, infinite=False, p1_null=False, routes=DEFAULT_ROUTES):
    """An nfvd (not started) with p0 receiving rx, p1 a pcap port (or a
    net_null sink) and router_config(routes)."""
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=rx or [], infinite=infinite)
    if p1_null:
        nfvd.add_port("p1", null=True)
    else:
        nfvd.add_port("p1", rx=[])
    nfvd.cmd(*router_config(routes))
    return nfvd
