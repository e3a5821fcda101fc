# SPDX-License-Identifier: BSD-3-Clause
"""
Port mirroring (SPAN): copies of the frames a port receives (as received)
and sends (as sent) leave the mirror port byte for byte, the originals are
forwarded exactly as without a mirror, and a mirror port that takes nothing,
or only part of the copies, costs copies (counted), never originals.

    H0 10.0.0.1 -- p0 10.0.0.254/24 [nfvd] p1 10.1.0.254/24 -- R1 10.1.0.1
                                      m: the mirror port
"""
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

import nfvdlib
from nfvdlib import CtlError, Nfvd, drops, pcap_mac

P0, P1 = pcap_mac(0), pcap_mac(1)
H0 = "02:00:00:00:00:01"
R1 = "02:00:00:00:01:01"

CONFIG = [
    "addr add 10.0.0.254/24 dev p0",
    "addr add 10.1.0.254/24 dev p1",
    "neigh add 10.0.0.1 lladdr %s dev p0" % H0,
    "neigh add 10.1.0.1 lladdr %s dev p1" % R1,
    "route add 198.51.100.0/24 via 10.1.0.1",
]


def frames(n, size=0):
    return [Ether(dst=P0, src=H0) / IP(src="10.0.0.1", dst="198.51.100.%d" % (1 + i % 200)) /
            UDP(sport=1000 + i, dport=53) / (b"m%05d" % i + b"x" * size) for i in range(n)]


def routed(f, dst=R1, src=P1):
    """f after one hop, out of p1 to R1 (or from src to dst)."""
    ip = f[IP].copy()
    ip.ttl -= 1
    del ip.chksum
    return bytes(Ether(dst=dst, src=src) / ip)


def back_frames(n, fmt=b"b%d"):
    """Frames from R1 into p1 for H0, behind p0."""
    return [Ether(dst=P1, src=R1) / IP(src="198.51.100.9", dst="10.0.0.1") / UDP() / (fmt % i)
            for i in range(n)]


def mirror_rows(nfvd):
    return {m["name"]: m for m in nfvd.ctl("mirror show")["mirrors"]}


def test_mirror_in_and_out(tmp_path):
    sent = frames(300) + frames(5, size=1400)
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=sent)
    nfvd.add_port("p1")
    nfvd.add_port("m")
    nfvd.cmd(*CONFIG, "mirror add rx0 dev p0 in to m", "mirror add tx1 dev p1 out to m")
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(sent)})
    assert st["mirror"] == {"copies": 2 * len(sent), "copy_drops": 0, "copy_nombuf": 0}
    rows = mirror_rows(nfvd)
    assert (rows["rx0"]["dev"], rows["rx0"]["direction"], rows["rx0"]["to"]) == ("p0", "in", "m")
    assert rows["rx0"]["copies"] == len(sent) and rows["tx1"]["copies"] == len(sent)
    assert st["packets"]["forwarded"] == len(sent) and not drops(st)
    ports = nfvd.port_stats(st)
    assert ports["m"]["tx_packets"] == 2 * len(sent) and ports["p1"]["tx_packets"] == len(sent)
    out = nfvd.stop()
    want = [routed(f) for f in sent]
    assert out["p1"] == want
    # The copies "in" are the frames as received (TTL not yet decremented,
    # even though the original was rewritten after the copy: its own data),
    # the copies "out" the frames as sent; each kind in order.
    assert [f for f in out["m"] if Ether(f).src == H0] == [bytes(f) for f in sent]
    assert [f for f in out["m"] if Ether(f).src == P1] == want
    assert len(out["m"]) == 2 * len(sent)


def test_walks_mixing_ports_with_and_without_features(tmp_path):
    """Walks of several bursts from a port with an L2 feature (a mirror on
    p0) and one without (p1): each burst reaches its own next node once,
    whichever came first in the walk and wherever the last walk's packets
    went (port_rx's stream is the buffer of that node)."""
    sent = frames(200)
    back = back_frames(200, b"b%03d")
    nfvd = Nfvd(tmp_path)
    nfvd.extra_args = ["--burst", "8", "--walk-max", "56"]
    nfvd.add_port("p0", rx=sent)
    nfvd.add_port("p1", rx=back)
    nfvd.add_port("m")
    nfvd.cmd(*CONFIG, "mirror add rx0 dev p0 in to m")
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(sent), "p1": len(back)})
    assert st["packets"]["forwarded"] == len(sent) + len(back) and not drops(st)
    assert st["mirror"]["copies"] == len(sent)
    out = nfvd.stop()
    assert out["p1"] == [routed(f) for f in sent]
    assert out["p0"] == [routed(f, H0, P0) for f in back]
    assert out["m"] == [bytes(f) for f in sent]


def test_mirror_both_and_del(tmp_path):
    sent = frames(40)
    back = back_frames(7)
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=sent)
    nfvd.add_port("p1", rx=back)
    nfvd.add_port("m")
    nfvd.cmd(*CONFIG, "mirror add all dev p1 both to m")
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(sent), "p1": len(back)})
    assert st["mirror"]["copies"] == len(sent) + len(back)
    assert mirror_rows(nfvd)["all"]["direction"] == "both"
    nfvd.ctl("mirror del all")
    assert mirror_rows(nfvd) == {}
    for line, msg in [
            ("mirror add x dev p0 sideways to m", "bad direction 'sideways'"),
            ("mirror add x dev p0 in to p0", "p0 cannot be mirrored to itself"),
            ("mirror add x dev nope in to m", "unknown interface 'nope'"),
            ("mirror add x dev p0 in into m", "unexpected 'into' (expected 'to')"),
            ("mirror add 1x dev p0 in to m", "bad mirror name '1x'"),
            ("mirror add x dev p0 in to m extra", "extra"),
            ("mirror del x", "no mirror named x")]:
        try:
            nfvd.ctl(*line.split())
            raise AssertionError("%s succeeded" % line)
        except CtlError as e:
            assert msg in str(e), (line, str(e))
    nfvd.ctl("mirror add x dev p0 in to m")
    try:
        nfvd.ctl("mirror add y dev p0 both to p1")
        raise AssertionError("second mirror of p0 in accepted")
    except CtlError as e:
        assert "p0 is already mirrored in by x" in str(e)
    # The mirror port going takes its sessions.
    nfvd.del_port_now("m")
    assert mirror_rows(nfvd) == {}
    out = nfvd.stop()
    assert out["p1"] == [routed(f) for f in sent]
    assert len(out["p0"]) == len(back)


def test_mirror_port_that_takes_nothing(tmp_path):
    """The mirror port is a vhost-user port no VM has attached to: its queue
    takes nothing. Every copy is dropped and counted, every original still
    forwarded byte for byte."""
    sent = frames(500)
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=sent)
    nfvd.add_port("p1")
    nfvd.cmd("port add mv dev net_vhost0,iface=%s" % (nfvd.sockdir / "vhost.sock"))
    nfvd.cmd(*CONFIG, "mirror add rx0 dev p0 in to mv", "mirror add tx1 dev p1 out to mv")
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(sent)})
    assert st["mirror"] == {"copies": 0, "copy_drops": 2 * len(sent), "copy_nombuf": 0}
    assert st["packets"]["forwarded"] == len(sent) and not drops(st)
    assert nfvd.port_stats(st)["mv"]["tx_packets"] == 0
    metrics = nfvd.ctl("mirror show")["mirrors"]
    assert sorted((m["name"], m["copy_drops"]) for m in metrics) == [("rx0", 500), ("tx1", 500)]
    out = nfvd.stop()
    assert out["p1"] == [routed(f) for f in sent]


def test_mirror_port_that_cannot_keep_up(tmp_path):
    """The mirror port is a vhost-user port whose peer is a virtio-user
    port of the same nfvd with short queues (64 descriptors): the peer
    drains at most a burst a walk, and the mirror port is given the copies
    of both directions, two a frame, so its queue fills and refuses part of
    the copies. Every original is still forwarded byte for byte; the
    copies it took arrive on the peer (captured there, then dropped: not
    for its MAC), each identical to an original as received or as sent;
    copies taken plus copies dropped is two a frame."""
    import time
    from test_capture import frames_of
    sent = frames(1500)
    # --no-huge: on hugepages with dynamic memory, virtio-user's handshake
    # with a vhost-user port of its own process can deadlock in start-up.
    nfvd = Nfvd(tmp_path, mem_mb=nfvdlib.EAL_MEM_MB)
    nfvd.add_port("p0", rx=sent)
    nfvd.add_port("p1")
    sock = nfvd.sockdir / "mirror.sock"
    nfvd.cmd("port add mv dev net_vhost0,iface=%s" % sock,
             "port add peer dev net_virtio_user0,path=%s,queue_size=64" % sock)
    nfvd.cmd(*CONFIG, "mirror add rx0 dev p0 in to mv", "mirror add tx1 dev p1 out to mv",
             "capture start dev peer in file back.pcapng")
    nfvd.start()
    # Until the input is read and the peer has had every copy the mirror
    # port took; the peer's receive ring keeps its 64 mbufs while it is up.
    deadline = time.monotonic() + 30
    while True:
        st = nfvd.stats()
        ports = nfvd.port_stats(st)
        if (ports["p0"]["rx_packets"] == len(sent) and st["mirror"]["copies"] +
                st["mirror"]["copy_drops"] == 2 * len(sent) and
                ports["peer"]["rx_packets"] == st["mirror"]["copies"] and
                st["tables"]["mbufs_in_use"] <= 64):
            break
        assert time.monotonic() < deadline, (st["mirror"], {n: (p["rx_packets"],
            p["tx_packets"]) for n, p in ports.items()}, st["tables"]["mbufs_in_use"])
        time.sleep(0.02)
    taken, dropped = st["mirror"]["copies"], st["mirror"]["copy_drops"]
    assert st["mirror"]["copy_nombuf"] == 0
    assert 0 < dropped < len(sent), st["mirror"]   # a partial overflow, not all or nothing
    assert st["packets"]["forwarded"] == len(sent)
    assert ports["mv"]["tx_packets"] == taken
    assert drops(st) == {"eth_input/other_host": taken}
    assert st["capture"]["captured"] == taken and st["capture"]["ring_drops"] == 0
    nfvd.ctl("capture stop")
    out = nfvd.stop()
    assert out["p1"] == [routed(f) for f in sent]
    back = frames_of(nfvd.dir / "back.pcapng", tmp_path)
    assert len(back) == taken
    originals = {bytes(f) for f in sent} | {routed(f) for f in sent}
    assert all(b in originals for b in back)
    assert len(set(back)) == len(back)   # no copy twice


def test_virtio_user_set_ups_that_would_hang_or_fail_are_refused(tmp_path):
    """Two virtio-user set-ups hang DPDK 22.11 inside nfvd's control thread
    and a third fails in silence; nfvd refuses them by name and stays as it
    was. Server mode (server=1) waits in the probe for a vhost-user client,
    on any memory. A loop to a vhost-user port of the same nfvd, on dynamic
    hugepage memory, deadlocks on DPDK's memory lock the next time the heap
    grows (the test above runs its loop on --no-huge, where it works). On
    hugepages in a file each (no --single-file-segments), the vhost-user
    peer refuses the memory table ("Too many memory regions") and the port
    carries nothing."""
    if not nfvdlib.HUGEPAGES:
        import pytest
        pytest.skip("needs hugepages (make hugepages): the loop is refused on them only")
    sent = frames(200)
    nfvd = Nfvd(tmp_path)   # on hugepages (--in-memory): HUGEPAGES
    nfvd.add_port("p0", rx=sent)
    nfvd.add_port("p1")
    sock = nfvd.sockdir / "loop.sock"
    nfvd.cmd("port add mv dev net_vhost0,iface=%s" % sock, *CONFIG)
    nfvd.start()
    before = sorted(p["name"] for p in nfvd.ctl("port show")["ports"])
    cases = [
        ("port add peer dev net_virtio_user0,path=%s,queue_size=64" % sock,
         "port peer: its vhost-user peer is port mv of this nfvd; on dynamic hugepage "
         "memory the pair deadlocks DPDK's memory lock when the heap grows: run such a "
         "loop with --no-huge, or the virtio-user side in another process"),
        ("port add srv dev net_virtio_user1,path=%s,server=1" % (nfvd.sockdir / "srv.sock"),
         "port srv: a virtio-user port in server mode waits in its probe, and nfvd's "
         "control with it, until a vhost-user client connects; make the peer the "
         "vhost-user server and this port its client (server=0, the default)"),
        # On hugepages without --single-file-segments each page is a file:
        # the peer could map no more than 8 of them.
        ("port add vu dev net_virtio_user2,path=%s" % (nfvd.sockdir / "other.sock"),
         "port vu: DPDK's memory is in more than 8 files (a hugepage each), and a "
         "vhost-user peer maps at most 8: start nfvd with --single-file-segments for "
         "virtio-user ports"),
    ]
    for line, msg in cases:
        try:
            nfvd.ctl(*line.split())
            raise AssertionError("accepted: " + line)
        except CtlError as e:
            assert msg in str(e), (line, str(e))
    assert sorted(p["name"] for p in nfvd.ctl("port show")["ports"]) == before
    assert not (nfvd.sockdir / "srv.sock").exists()
    st = nfvd.wait_processed({"p0": len(sent)})
    assert st["packets"]["forwarded"] == len(sent) and not drops(st)
    out = nfvd.stop()
    assert out["p1"] == [routed(f) for f in sent]
