# SPDX-License-Identifier: BSD-3-Clause
"""
A port whose driver does not write mbuf->port on receive (net_ring: what
it sends comes back on its own RX, still carrying the port the frame
first came in by) has its frames taken as its own: port_rx writes the
port. A packet routed out of a ring port comes back in by it: flow
statistics count it as a flow of the ring port, then eth_input drops it
as another host's frame. With the first port left in the frame, its flow
statistics added it to the first port's flow.
"""
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from nfvdlib import Nfvd, drops, pcap_mac

H0 = "02:00:00:00:00:10"


def test_ring_port_frames_are_its_own(tmp_path):
    n = Nfvd(tmp_path)
    sent = IP(src="10.0.0.2", dst="198.51.100.7", ttl=9, id=9) / UDP(sport=1, dport=2) / b"loop"
    n.cmd("port add r0 dev net_ring0")
    n.add_port("p0", rx=[Ether(dst=pcap_mac(0), src=H0) / sent])
    n.cmd("addr add 10.9.0.1/24 dev r0", "addr add 10.0.0.1/24 dev p0",
          "neigh add 10.9.0.2 lladdr 02:00:00:00:00:99 dev r0",
          "route add 198.51.100.0/24 via 10.9.0.2", "flow enable")
    n.start()
    st = n.wait_processed({"p0": 1, "r0": 1})
    assert drops(st) == {"eth_input/other_host": 1}
    flows = sorted((f["dev"], f["packets"]) for f in n.ctl("flow show")["flows"])
    assert flows == [("p0", 1), ("r0", 1)], flows
    out = n.stop()
    assert out["p0"] == []
