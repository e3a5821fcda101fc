# SPDX-License-Identifier: BSD-3-Clause
"""
Captures of a bridge and of a VXLAN tunnel (DESIGN: "dev NAME names any
interface"): a bridge's file holds the frames its own interface receives
from the bridge and sends into it ("tcpdump -i br0"), a tunnel's the inner
frames it receives and sends ("tcpdump -i vxlan0"); byte for byte, in
order, with their direction, under an interface block named after the
interface; forwarding as without the capture; every mbuf back.
"""
import shutil
import subprocess

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Ether

from nfvdlib import Nfvd, drops, pcap_mac
from test_bridge import GW_B1, GW_B2, GW_BR, Gateway
from test_capture import frames_of, tshark_read
from test_vxlan import CONFIG as VXLAN_CONFIG, R1, R2, inner, outer

TSHARK = shutil.which("tshark")
pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark not installed (make deps)")

BCAST = "ff:ff:ff:ff:ff:ff"
IN, OUT = "0x00000001", "0x00000002"


def by_direction(path, tmp_path, name):
    """The file's frames as (received, sent), after checking that each is
    on the interface named name."""
    frames = frames_of(path, tmp_path)
    seen = tshark_read(path, ["frame.interface_name", "frame.packet_flags_direction"])
    assert len(seen) == len(frames)
    assert all(s[0] == name for s in seen), seen
    return ([f for f, s in zip(frames, seen) if s[1] == IN],
            [f for f, s in zip(frames, seen) if s[1] == OUT])


def comment(path):
    return subprocess.run(["capinfos", "-k", str(path)], capture_output=True, text=True).stdout


def test_capture_bridge_interface(tmp_path):
    """br0 with an address (the gateway of its ports): "in" holds the frames
    the bridge hands its interface (a broadcast's copy, a frame to its MAC),
    "out" those its interface sends (nfvd's ARP reply, packets routed out
    of br0), not the frames bridged between its ports."""
    g = Gateway
    bridged = Ether(src=GW_B1, dst=GW_B2) / IP(src="10.8.0.1", dst="10.8.0.2") / \
        UDP(sport=7, dport=8) / b"bridged"
    in1 = [g.req, g.out_udp, bridged]
    nfvd = g.start(tmp_path, in1, "capture start dev br0 both file br.pcapng")
    st = g.finish(nfvd, in1)
    assert drops(st) == {}
    stopped = nfvd.ctl("capture stop dev br0")["captures"]
    assert [(c["dev"], c["direction"], c["written"], c["captured"], c["filtered"])
            for c in stopped] == [("br0", "both", 5, 5, 0)]
    out = nfvd.stop()
    to_b1, to_b2 = g.routed(g.in_b1, GW_BR, GW_B1), g.routed(g.in_b2, GW_BR, GW_B2)
    # Forwarding as without the capture (test_bridge's gateway case, and
    # the frame bridged from p1 to p2, B2 unknown then).
    assert out["p0"] == [g.routed(g.out_udp[IP], pcap_mac(0), "02:00:00:00:00:01")]
    assert out["p1"] == [g.reply, to_b1, to_b2]
    assert out["p2"] == [bytes(g.req), bytes(bridged), to_b2]
    got_in, got_out = by_direction(nfvd.dir / "br.pcapng", tmp_path, "br0")
    assert got_in == [bytes(g.req), bytes(g.out_udp)]
    assert got_out == [g.reply, to_b1, to_b2]
    assert "nfvd capture of br0 (bridge), both" in comment(nfvd.dir / "br.pcapng")


def test_capture_vxlan_inner_frames(tmp_path):
    """vx0 (a bridge port): "in" holds the inner frames it received (not
    the datagrams vxlan_input dropped), "out" the frames bridged to it,
    once each before head-end replication; the filter runs on the inner
    frames."""
    h_arp = Ether(src="02:00:00:00:0a:01", dst=BCAST) / \
        ARP(hwsrc="02:00:00:00:0a:01", psrc="10.50.0.1", pdst="10.50.0.9")
    H, W, X, Z = ("02:00:00:00:0a:0%d" % i for i in (1, 2, 3, 4))
    x_to_h, zero, z_bc = inner(X, H, b"x"), inner(X, H, b"zero"), inner(Z, BCAST, b"z")
    in2 = [outer(x_to_h, R1), outer(inner(X, H, b"vni"), R1, vni=200),
           outer(zero, R1, chksum=0), outer(z_bc, R2)]
    w_x, w_z = inner(W, X, b"wx"), inner(W, Z, b"wz")
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0")
    nfvd.add_port("p1", rx=[bytes(h_arp)])
    nfvd.add_port("p2", rx=in2)
    nfvd.add_port("p3", rx=[bytes(w_x), bytes(w_z)])
    nfvd.cmd(*VXLAN_CONFIG, "port set p2 down", "port set p3 down",
             "capture start dev vx0 both file all.pcapng",
             "capture start dev br0 both file none.pcapng")
    nfvd.start()
    nfvd.wait_processed({"p1": 1})
    nfvd.ctl("port set p2 up")
    nfvd.wait_processed({"p1": 1, "p2": len(in2)})
    nfvd.ctl("port set p3 up")
    st = nfvd.wait_processed({"p1": 1, "p2": len(in2), "p3": 2})
    assert drops(st) == {"vxlan_input/bad_vni": 1}
    stopped = {c["dev"]: c for c in nfvd.ctl("capture stop")["captures"]}
    assert (stopped["vx0"]["written"], stopped["vx0"]["captured"]) == (6, 6)
    # br0 has no address: its interface receives and sends nothing.
    assert (stopped["br0"]["written"], stopped["br0"]["captured"]) == (0, 0)
    out = nfvd.stop()
    assert out["p1"] == [bytes(x_to_h), bytes(zero), bytes(z_bc)]
    assert len(out["p0"]) == 4     # h_arp to both remotes, w_x and w_z to one each
    got_in, got_out = by_direction(nfvd.dir / "all.pcapng", tmp_path, "vx0")
    assert got_in == [bytes(x_to_h), bytes(zero), bytes(z_bc)]
    assert got_out == [bytes(h_arp), bytes(w_x), bytes(w_z)]
    assert "nfvd capture of vx0 (VXLAN tunnel, inner frames), both" in \
        comment(nfvd.dir / "all.pcapng")
    assert frames_of(nfvd.dir / "none.pcapng", tmp_path) == []


@pytest.mark.parametrize("expr", ["ether broadcast", "arp"])
def test_capture_vxlan_filter_and_del(tmp_path, expr):
    """A filter on a tunnel's inner frames: "ether broadcast" (the flooded
    ARP out, Z's broadcast in; the filter reads the MAC, so it runs on
    every frame), "arp" (the ARP out: the UDP frames in are rejected by
    their class, most from the class cache); deleting the tunnel ends its
    capture, the file complete."""
    H, X, Z = "02:00:00:00:0a:01", "02:00:00:00:0a:03", "02:00:00:00:0a:04"
    h_arp = Ether(src=H, dst=BCAST) / ARP(hwsrc=H, psrc="10.50.0.1", pdst="10.50.0.9")
    x_to_h = [inner(X, H, b"x%d" % i) for i in range(8)]
    z_bc = inner(Z, BCAST, b"z")
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0")
    nfvd.add_port("p1", rx=[bytes(h_arp)])
    nfvd.add_port("p2", rx=[outer(f, R1) for f in x_to_h] + [outer(z_bc, R2)])
    nfvd.add_port("p3")
    nfvd.cmd(*VXLAN_CONFIG, "port set p2 down",
             'capture start dev vx0 both file f.pcapng filter "%s"' % expr)
    nfvd.start()
    nfvd.wait_processed({"p1": 1})
    nfvd.ctl("port set p2 up")
    st = nfvd.wait_processed({"p1": 1, "p2": 9})
    assert drops(st) == {}
    want_in = [bytes(z_bc)] if expr == "ether broadcast" else []
    shown = nfvd.ctl("capture show")["captures"]
    assert [(c["dev"], c["captured"], c["filtered"]) for c in shown] == \
        [("vx0", 1 + len(want_in), 9 - len(want_in))]
    nfvd.ctl("bridge port del br0 dev vx0")
    nfvd.ctl("vxlan del vx0")
    assert nfvd.ctl("capture show")["captures"] == []
    nfvd.stop()
    got_in, got_out = by_direction(nfvd.dir / "f.pcapng", tmp_path, "vx0")
    assert (got_in, got_out) == (want_in, [bytes(h_arp)])


def test_mirror_bridge_and_vxlan(tmp_path):
    """Mirrors of a tunnel (its inner frames in and out) and of a bridge's
    interface (out: nfvd's ARP reply into the bridge) to port m: copies
    byte for byte, the originals as without them; the errors name what a
    mirror cannot be."""
    H, W, X = "02:00:00:00:0a:01", "02:00:00:00:0a:02", "02:00:00:00:0a:03"
    BR = "02:00:00:00:0b:fe"
    config = ["bridge add br0 mac %s" % BR if line == "bridge add br0" else line
              for line in VXLAN_CONFIG]
    h_arp = Ether(src=H, dst=BCAST) / ARP(hwsrc=H, psrc="10.50.0.1", pdst="10.50.0.9")
    to_br = Ether(src=H, dst=BCAST) / ARP(hwsrc=H, psrc="10.50.0.1", pdst="10.50.0.254")
    x_to_h = inner(X, H, b"x")
    w_x = inner(W, X, b"wx")
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0")
    nfvd.add_port("p1", rx=[bytes(h_arp), bytes(to_br)])
    nfvd.add_port("p2", rx=[outer(x_to_h, R1)])
    nfvd.add_port("p3", rx=[bytes(w_x)])
    nfvd.add_port("m")
    nfvd.cmd(*config, "addr add 10.50.0.254/24 dev br0",
             "port set p2 down", "port set p3 down",
             "mirror add tun dev vx0 both to m", "mirror add gw dev br0 out to m")
    nfvd.start()
    nfvd.wait_processed({"p1": 2})
    nfvd.ctl("port set p2 up")
    nfvd.wait_processed({"p1": 2, "p2": 1})
    nfvd.ctl("port set p3 up")
    st = nfvd.wait_processed({"p1": 2, "p2": 1, "p3": 1})
    # The copy for br0 of h_arp, a request for another host's address.
    assert drops(st) == {"arp_input/not_ours": 1}
    rows = {r["name"]: r for r in nfvd.ctl("mirror show")["mirrors"]}
    assert (rows["tun"]["copies"], rows["tun"]["copy_drops"]) == (4, 0)
    assert (rows["gw"]["copies"], rows["gw"]["copy_drops"]) == (1, 0)
    for line, msg in [
            ("mirror add x dev vx0 in to vx0", "vx0 is a VXLAN tunnel: the destination"),
            ("mirror add x dev vx0 in to m", "vx0 is already mirrored in by tun")]:
        r = nfvd.ctl_result(*line.split())
        assert r.rc != 0 and msg in r.stdout + r.stderr, (line, r.stdout, r.stderr)
    nfvd.ctl("mirror del tun")
    out = nfvd.stop()
    reply = bytes(Ether(src=BR, dst=H) / ARP(op=2, hwsrc=BR, psrc="10.50.0.254", hwdst=H,
                                             pdst="10.50.0.1"))
    assert out["p1"] == [reply, bytes(x_to_h)]
    # vx0 out: h_arp and to_br flooded to it (before head-end replication),
    # w_x; in: x_to_h. br0 out: its ARP reply.
    assert sorted(out["m"]) == sorted([bytes(h_arp), bytes(to_br), bytes(x_to_h), bytes(w_x),
                                       reply])
    assert [f for f in out["m"] if f != reply] == [bytes(h_arp), bytes(to_br), bytes(x_to_h),
                                                   bytes(w_x)]
