# SPDX-License-Identifier: BSD-3-Clause
"""
Mirror and capture of a VLAN sub-interface: they hold the sub-interface's
frames only (not the port's untagged ones, not another VLAN's), untagged
as "tcpdump -i p1.10" shows them, in both directions (in: received on the
sub-interface; out: sent on it, nfvd's own ARP replies, echo replies and
ICMP errors among them), byte for byte and in order; the originals are
forwarded as without them, with the same counters; the sub-interface
going (vlan del, its port deleted) ends them. Bridges and VXLAN tunnels
are refused by name.

    H0 10.0.0.1 -- p0 10.0.0.254/24 [nfvd] p1 10.1.0.254/24 (untagged) -- R1 10.1.0.1
                                             v10 VLAN 10 10.10.0.254/24 -- R10 10.10.0.1
                                             v20 VLAN 20 10.20.0.254/24 -- R20 10.20.0.1
                                      m: the mirror port
"""
import shutil
import subprocess
import time

import pytest
from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.l2 import ARP, Dot1Q, Ether

from nfvdlib import CtlError, Nfvd, drops, pcap_mac

P0, P1 = pcap_mac(0), pcap_mac(1)
H0 = "02:00:00:00:00:01"
R1 = "02:00:00:00:01:01"
R10 = "02:00:00:00:10:01"
R20 = "02:00:00:00:20:01"
OTHER = "02:00:00:00:09:09"
TSHARK = shutil.which("tshark")

CONFIG = [
    "vlan add v10 dev p1 id 10",
    "vlan add v20 dev p1 id 20",
    "addr add 10.0.0.254/24 dev p0",
    "addr add 10.1.0.254/24 dev p1",
    "addr add 10.10.0.254/24 dev v10",
    "addr add 10.20.0.254/24 dev v20",
    "neigh add 10.0.0.1 lladdr %s dev p0" % H0,
    "neigh add 10.1.0.1 lladdr %s dev p1" % R1,
    "neigh add 10.10.0.1 lladdr %s dev v10" % R10,
    "neigh add 10.20.0.1 lladdr %s dev v20" % R20,
    "route add 198.51.100.0/24 via 10.10.0.1",
    "route add 203.0.113.0/24 via 10.20.0.1",
    "route add 192.0.2.0/24 via 10.1.0.1",
]

needs_tshark = pytest.mark.skipif(TSHARK is None, reason="tshark not installed (make deps)")


def udp(src, dst, tag, i, ttl=64, dport=5000):
    return IP(src=src, dst=dst, ttl=ttl) / UDP(sport=4000 + i, dport=dport) / (b"%s%03d" % (tag, i))


def from_p0(n=30):
    """Into p0 for routes out of v10, v20 and p1 itself (untagged), in turn."""
    dsts = ["198.51.100.%d", "203.0.113.%d", "192.0.2.%d"]
    return [Ether(dst=P0, src=H0) / udp("10.0.0.1", dsts[i % 3] % (1 + i), b"o", i,
                                          dport=53 if i % 2 else 5000) for i in range(n)]


def into_p1(rounds=6):
    """Into p1: VLAN 10 (for H0; nfvd's own address: a ping, an ARP request; a
    TTL of 1: an ICMP error back; another host's MAC), VLAN 20, untagged,
    an unknown VLAN 30; mixed."""
    out = []
    for i in range(rounds):
        out += [
            Ether(dst=P1, src=R10) / Dot1Q(vlan=10) / udp("10.10.0.1", "10.0.0.1", b"a", i),
            Ether(dst=P1, src=R20) / Dot1Q(vlan=20) / udp("10.20.0.1", "10.0.0.1", b"b", i),
            Ether(dst=P1, src=R1) / udp("10.1.0.1", "10.0.0.1", b"c", i),
            Ether(dst=P1, src=R10) / Dot1Q(vlan=10) / udp("10.10.0.1", "10.0.0.1", b"d", i,
                                                          dport=53),
        ]
        if i == 1:
            out.append(Ether(dst=P1, src=R10) / Dot1Q(vlan=10) /
                       IP(src="10.10.0.1", dst="10.10.0.254") / ICMP(id=9, seq=i) / b"ping")
        if i == 2:
            out.append(Ether(dst="ff:ff:ff:ff:ff:ff", src=R10) / Dot1Q(vlan=10) /
                       ARP(op=1, hwsrc=R10, psrc="10.10.0.1", pdst="10.10.0.254"))
        if i == 3:
            out.append(Ether(dst=P1, src=R10) / Dot1Q(vlan=10) /
                       udp("10.10.0.1", "10.0.0.1", b"t", i, ttl=1))
            out.append(Ether(dst=OTHER, src=R10) / Dot1Q(vlan=10) /
                       udp("10.10.0.1", "10.0.0.1", b"x", i))
            out.append(Ether(dst=P1, src=R20) / Dot1Q(vlan=30) / udp("10.30.0.1", "10.0.0.1",
                                                                     b"u", i))
    return [Ether(bytes(f)) for f in out]


def vid(frame):
    b = bytes(frame)
    return int.from_bytes(b[14:16], "big") & 0xfff if b[12:14] == b"\x81\x00" else None


def untag(frame):
    b = bytes(frame)
    assert b[12:14] == b"\x81\x00"
    return b[:12] + b[16:]


def routed(f, dst, src, vlan=None):
    ip = f[IP].copy()
    ip.ttl -= 1
    del ip.chksum
    eth = Ether(dst=dst, src=src)
    return bytes(eth / Dot1Q(vlan=vlan) / ip if vlan is not None else eth / ip)


def start(tmp_path, *extra, name="n"):
    in0, in1 = from_p0(), into_p1()
    nfvd = Nfvd(tmp_path / name)
    nfvd.add_port("p0", rx=in0)
    nfvd.add_port("p1", rx=in1)
    nfvd.add_port("m")
    nfvd.cmd(*CONFIG, *extra)
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(in0), "p1": len(in1)})
    return nfvd, st, in0, in1


def check_p1_out(in0, out_p1):
    """What p1 sent: the routed frames (v10 and v20 tagged, p1's untagged) and
    nfvd's own frames on v10 (ARP reply, echo reply, ICMP error)."""
    dst = {"198.51.100": (R10, 10), "203.0.113": (R20, 20), "192.0.2": (R1, None)}
    routed_frames = [routed(f, dst[f[IP].dst.rsplit(".", 1)[0]][0], P1,
                            dst[f[IP].dst.rsplit(".", 1)[0]][1]) for f in in0]
    own = [f for f in out_p1 if f not in routed_frames]
    assert sorted(f for f in out_p1 if f in routed_frames) == sorted(routed_frames)
    for v in (10, 20, None):   # each interface's in order
        assert [f for f in out_p1 if f in routed_frames and vid(f) == v] == \
            [f for f in routed_frames if vid(f) == v]
    kinds = sorted((vid(f), "arp" if ARP in Ether(f) else "icmp%d" % Ether(f)[ICMP].type)
                   for f in own)
    assert kinds == [(10, "arp"), (10, "icmp0"), (10, "icmp11")], kinds
    return own


def expected_in(in1):
    """The frames v10 received, as it has them: untagged."""
    return [untag(f) for f in in1 if vid(f) == 10]


def expected_out(out_p1):
    """The frames v10 sent, as it has them: p1's frames of VLAN 10, untagged."""
    return [untag(f) for f in out_p1 if vid(f) == 10]


def same_output(out, out0):
    """The same frames out of p0 and p1 as without the observer, each
    source's in the same order (the frames of a VLAN with a feature take
    another way through the graph than the port's others: frames of
    different sources may come out of one burst in another order)."""
    for port in ("p0", "p1"):
        assert sorted(out[port]) == sorted(out0[port]), port
        for src in {Ether(f)[IP].src for f in out0[port] if IP in Ether(f)}:
            assert [f for f in out[port] if IP in Ether(f) and Ether(f)[IP].src == src] == \
                [f for f in out0[port] if IP in Ether(f) and Ether(f)[IP].src == src], src


def summary(nfvd, st):
    rows = {p["name"]: p for p in nfvd.ctl("port show")["ports"]}
    return (st["packets"]["forwarded"], st["packets"]["dropped"], drops(st),
            {n: (rows[n]["rx_packets"], rows[n]["tx_packets"]) for n in ("p0", "p1", "v10", "v20")},
            st["icmp"]["errors_sent"])


@pytest.mark.parametrize("direction", ["in", "out", "both"])
def test_mirror_vlan(tmp_path, direction):
    """The mirror port gets exactly v10's frames of the direction, untagged,
    in order; forwarding, its output and every counter but the mirror's and
    the mirror port's are as without the mirror."""
    plain, st0, in0, in1 = start(tmp_path, name="plain")
    base = summary(plain, st0)
    out0 = plain.stop()
    nfvd, st, _, _ = start(tmp_path, "mirror add mv dev v10 %s to m" % direction)
    rows = {r["name"]: r for r in nfvd.ctl("mirror show")["mirrors"]}
    assert (rows["mv"]["dev"], rows["mv"]["direction"], rows["mv"]["to"]) == \
        ("v10", direction, "m")
    assert summary(nfvd, st) == base
    n_copies = st["mirror"]["copies"]
    assert st["mirror"]["copy_drops"] == 0 and st["mirror"]["copy_nombuf"] == 0
    assert rows["mv"]["copies"] == n_copies
    assert nfvd.port_stats(st)["m"]["tx_packets"] == n_copies
    out = nfvd.stop()
    same_output(out, out0)
    check_p1_out(in0, out["p1"])
    want_in = expected_in(in1) if direction != "out" else []
    want_out = expected_out(out["p1"]) if direction != "in" else []
    assert len(want_in) == (0 if direction == "out" else 16)
    assert len(want_out) == (0 if direction == "in" else 13)
    assert n_copies == len(want_in) + len(want_out)
    # In copies come from R10 (or OTHER's peer): out copies from nfvd (P1).
    got_in = [f for f in out["m"] if Ether(f).src != P1]
    got_out = [f for f in out["m"] if Ether(f).src == P1]
    assert got_in == want_in
    assert got_out == want_out
    assert all(Dot1Q not in Ether(f) for f in out["m"])


@pytest.mark.parametrize("state", ["up", "down"])
def test_mirror_to_vlan_remote_span(tmp_path, state):
    """A VLAN sub-interface as the destination (remote SPAN): every frame p0
    receives leaves the mirror port m as received with VLAN 99's 802.1Q tag
    inserted, byte for byte and in order; forwarding and every other
    counter are as without the mirror. With the sub-interface down, the
    copies are dropped, counted, and m sends nothing."""
    plain, st0, in0, _ = start(tmp_path, "vlan add rs dev m id 99", name="plain")
    base = summary(plain, st0)
    out0 = plain.stop()
    nfvd, st, _, _ = start(tmp_path, "vlan add rs dev m id 99",
                           *(["port set rs down"] if state == "down" else []),
                           "mirror add r dev p0 in to rs")
    row = nfvd.ctl("mirror show")["mirrors"][0]
    assert (row["dev"], row["direction"], row["to"]) == ("p0", "in", "rs")
    assert summary(nfvd, st) == base
    n = len(in0) if state == "up" else 0
    assert st["mirror"] == {"copies": n, "copy_drops": len(in0) - n, "copy_nombuf": 0}
    assert (row["copies"], row["copy_drops"]) == (n, len(in0) - n)
    assert nfvd.port_stats(st)["m"]["tx_packets"] == n
    out = nfvd.stop()
    same_output(out, out0)
    tag = b"\x81\x00" + (99).to_bytes(2, "big")
    assert out["m"] == ([bytes(f)[:12] + tag + bytes(f)[12:] for f in in0] if n else [])
    # Its port going takes the session (as the VLAN's going does).
    nfvd2, _, _, _ = start(tmp_path, "vlan add rs dev m id 99", "mirror add r dev p0 in to rs",
                           name="gone")
    nfvd2.ctl("vlan del rs")
    assert nfvd2.ctl("mirror show")["mirrors"] == []
    nfvd2.ctl("vlan add rs dev m id 99")
    nfvd2.ctl("mirror add r dev p0 in to rs")
    nfvd2.del_port_now("m")
    assert nfvd2.ctl("mirror show")["mirrors"] == []
    nfvd2.stop()


def test_mirror_vlan_goes_with_vlan_and_port(tmp_path):
    """vlan del ends the sessions of the VLAN (in and out: its port's output
    feature goes when the last one does); a port going ends those of its
    VLANs; errors name bridges and tunnels."""
    nfvd, st, in0, in1 = start(tmp_path, "mirror add a dev v10 both to m",
                               "mirror add b dev v20 out to m", "mirror add c dev p0 in to m",
                               "bridge add br0", "vxlan add vx0 vni 5 local 10.0.0.254")
    assert sorted(r["name"] for r in nfvd.ctl("mirror show")["mirrors"]) == ["a", "b", "c"]
    nfvd.ctl("vlan del v10")
    assert sorted(r["name"] for r in nfvd.ctl("mirror show")["mirrors"]) == ["b", "c"]
    for line, msg in [
            ("mirror add x dev p0 in to br0",
             "br0 is a bridge: the destination of a mirror is a port"),
            ("mirror add x dev v20 in to vx0",
             "vx0 is a VXLAN tunnel: the destination of a mirror is a port"),
            ("mirror add x dev v20 in to v20", "v20 cannot be mirrored to itself"),
            ("mirror add x dev v20 out to m", "v20 is already mirrored out by b"),
            ("mirror add x dev v10 in to m", "unknown interface 'v10'")]:
        try:
            nfvd.ctl(*line.split())
            raise AssertionError("%s succeeded" % line)
        except CtlError as e:
            assert msg in str(e), (line, str(e))
    # A new v10 has no session: nothing is copied of it.
    nfvd.ctl("vlan add v10 dev p1 id 10")
    assert sorted(r["name"] for r in nfvd.ctl("mirror show")["mirrors"]) == ["b", "c"]
    nfvd.del_port_now("p1")
    assert [r["name"] for r in nfvd.ctl("mirror show")["mirrors"]] == ["c"]
    nfvd.ctl("mirror add d dev p0 out to m")
    nfvd.stop()


def test_mirror_vlan_bridge_port(tmp_path):
    """A VLAN that is a bridge port: the mirror sees what it receives before
    the bridge takes it, and what the bridge sends on it (flooded and
    forwarded, tagged in bridge_input), untagged; nothing of VLAN 20 or of
    the untagged frames of its port."""
    A, B = "02:00:00:00:00:0a", "02:00:00:00:00:0b"

    def fr(src, dst, tag):
        return Ether(src=src, dst=dst) / IP(src="10.9.0.1", dst="10.9.0.2") / UDP() / tag

    in0 = [Ether(bytes(fr(A, B, b"a%d" % i))) for i in range(4)]
    in1 = []
    for i in range(4):
        in1 += [Ether(bytes(Ether(src=B, dst=A) / Dot1Q(vlan=10) / fr(B, A, b"b%d" % i)[IP])),
                Ether(bytes(Ether(src=B, dst=A) / Dot1Q(vlan=20) / fr(B, A, b"x%d" % i)[IP])),
                Ether(bytes(fr(B, A, b"u%d" % i)))]
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=in0)
    nfvd.add_port("p1", rx=in1)
    nfvd.add_port("m")
    nfvd.cmd("vlan add v10 dev p1 id 10", "vlan add v20 dev p1 id 20", "bridge add br0",
             "bridge port add br0 dev p0", "bridge port add br0 dev v10",
             "mirror add bv dev v10 both to m")
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(in0), "p1": len(in1)})
    out = nfvd.stop()
    sent10 = [f for f in out["p1"] if vid(f) == 10]
    assert len(sent10) == 4 and all(Ether(f).src == A for f in sent10)
    want = [untag(f) for f in in1 if vid(f) == 10] + [untag(f) for f in sent10]
    assert sorted(out["m"]) == sorted(want)
    assert [f for f in out["m"] if Ether(f).src == B] == [untag(f) for f in in1 if vid(f) == 10]
    assert [f for f in out["m"] if Ether(f).src == A] == [untag(f) for f in sent10]
    assert st["mirror"]["copies"] == 8
    assert out["p0"] == [untag(f) for f in in1 if vid(f) == 10]


def tshark_fields(path, fields):
    r = subprocess.run([TSHARK, "-n", "-r", str(path), "-T", "fields", "-E", "separator=|"] +
                       sum([["-e", f] for f in fields], []),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [tuple(line.split("|")) for line in r.stdout.splitlines()]


def file_frames(path, tmp_path):
    from test_capture import frames_of
    return frames_of(path, tmp_path)


@needs_tshark
@pytest.mark.parametrize("direction", ["in", "out", "both"])
def test_capture_vlan(tmp_path, direction):
    """The file holds exactly v10's frames of the direction, untagged, in
    order, on an interface named v10 with its direction; forwarding and
    counters as without the capture; "capture show" and "capture stop dev
    v10" name it."""
    plain, st0, in0, in1 = start(tmp_path, name="plain")
    base = summary(plain, st0)
    out0 = plain.stop()
    nfvd, st, _, _ = start(tmp_path, "capture start dev v10 %s file v.pcapng" % direction)
    assert summary(nfvd, st) == base
    shown = nfvd.ctl("capture show")["captures"]
    assert [(c["dev"], c["direction"], c["state"]) for c in shown] == \
        [("v10", direction, "running")]
    stopped = nfvd.ctl("capture stop dev v10")["captures"]
    assert nfvd.ctl("capture show")["captures"] == []
    out = nfvd.stop()
    same_output(out, out0)
    check_p1_out(in0, out["p1"])
    want_in = expected_in(in1) if direction != "out" else []
    want_out = expected_out(out["p1"]) if direction != "in" else []
    assert (stopped[0]["dev"], stopped[0]["written"], stopped[0]["captured"],
            stopped[0]["filtered"]) == ("v10", len(want_in) + len(want_out),
                                        len(want_in) + len(want_out), 0)
    path = nfvd.dir / "v.pcapng"
    frames = file_frames(path, tmp_path)
    seen = tshark_fields(path, ["frame.interface_name", "frame.packet_flags_direction",
                                "frame.time_epoch"])
    assert len(seen) == len(frames)
    assert all(s[0] == "v10" for s in seen), seen[:3]
    now = time.time()
    assert all(abs(float(s[2]) - now) < 120 for s in seen), seen[:3]
    got_in = [f for f, s in zip(frames, seen) if s[1] == "0x00000001"]
    got_out = [f for f, s in zip(frames, seen) if s[1] == "0x00000002"]
    assert got_in == want_in
    assert got_out == want_out
    info = subprocess.run(["capinfos", "-k", str(path)], capture_output=True, text=True).stdout
    assert "nfvd capture of v10 (VLAN 10 of p1), %s" % direction in info


@needs_tshark
def test_capture_vlan_filter_and_vlan_del(tmp_path):
    """The filter runs on v10's untagged frames ("udp dst port 53" takes
    none of p1's tagged ones on the port); a count ends the capture by
    itself; vlan del ends a running capture, its file complete."""
    nfvd, st, in0, in1 = start(
        tmp_path, 'capture start dev v10 both file dns.pcapng filter "udp dst port 53"',
        'capture start dev p1 in file port.pcapng filter "udp dst port 53"',
        'capture start dev v20 out file v20.pcapng filter "icmp or arp"')
    shown = {c["dev"]: c for c in nfvd.ctl("capture show")["captures"]}
    assert sorted(shown) == ["p1", "v10", "v20"]
    nfvd.ctl("vlan del v10")
    shown = {c["dev"]: c for c in nfvd.ctl("capture show")["captures"]}
    assert sorted(shown) == ["p1", "v20"]
    try:
        nfvd.ctl("capture", "stop", "dev", "v10")
        raise AssertionError("capture stop of a deleted VLAN succeeded")
    except CtlError as e:
        assert "unknown interface 'v10'" in str(e)
    nfvd.del_port_now("p1")
    assert nfvd.ctl("capture show")["captures"] == []
    out = nfvd.stop()
    dns_in = [untag(f) for f in in1 if vid(f) == 10 and UDP in f and f[UDP].dport == 53]
    dns_out = [routed(f, R10, P1) for f in in0
               if f[IP].dst.startswith("198.51.100.") and f[UDP].dport == 53]
    frames = file_frames(nfvd.dir / "dns.pcapng", tmp_path)
    assert len(dns_in) == 6 and len(dns_out) == 5
    assert [f for f in frames if Ether(f).src != P1] == dns_in
    assert [f for f in frames if Ether(f).src == P1] == dns_out
    # On the port, the same filter takes only its untagged frames (none).
    assert file_frames(nfvd.dir / "port.pcapng", tmp_path) == []
    # v20 sends nothing of nfvd's own: nothing written.
    assert file_frames(nfvd.dir / "v20.pcapng", tmp_path) == []
    assert out["p0"]

