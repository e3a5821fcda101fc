# SPDX-License-Identifier: BSD-3-Clause
"""
pcapng capture with tcpdump filters: tshark reads the files; they hold
exactly the frames that match the filter (as received for "in", as sent for
"out"), byte for byte, in order, up to "count", with their direction and
interface; forwarding is the same with or without a capture.

    H0 10.0.0.1 -- p0 10.0.0.254/24 [nfvd] p1 10.1.0.254/24 -- R1 10.1.0.1
"""
import os
import shutil
import subprocess
import time

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw
from scapy.utils import rdpcap

from nfvdlib import CtlError, Nfvd, drops, pcap_mac

P0, P1 = pcap_mac(0), pcap_mac(1)
H0 = "02:00:00:00:00:01"
R1 = "02:00:00:00:01:01"
TSHARK = shutil.which("tshark")

CONFIG = [
    "addr add 10.0.0.254/24 dev p0",
    "addr add 10.1.0.254/24 dev p1",
    "neigh add 10.0.0.1 lladdr %s dev p0" % H0,
    "neigh add 10.1.0.1 lladdr %s dev p1" % R1,
    "route add 198.51.100.0/24 via 10.1.0.1",
]

pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark not installed (make deps)")


def traffic(n):
    """A mix: DNS (udp 53), other UDP, TCP to port 80, in turn."""
    out = []
    for i in range(n):
        ip = IP(src="10.0.0.1", dst="198.51.100.%d" % (1 + i % 50))
        l4 = [UDP(sport=2000 + i, dport=53), UDP(sport=2000 + i, dport=9999),
              TCP(sport=3000 + i, dport=80, flags="S")][i % 3]
        out.append(Ether(dst=P0, src=H0) / ip / l4 / (b"c%04d" % i))
    return out


def routed(f):
    ip = f[IP].copy()
    ip.ttl -= 1
    del ip.chksum
    return bytes(Ether(dst=R1, src=P1) / ip)


def tshark_read(path, fields):
    """tshark's reading of a capture file: one tuple of fields per frame."""
    r = subprocess.run([TSHARK, "-n", "-r", str(path), "-T", "fields", "-E", "separator=|"] +
                       sum([["-e", f] for f in fields], []),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [tuple(line.split("|")) for line in r.stdout.splitlines()]


def frames_of(path, tmp_path):
    """The frames of a pcapng file, converted by tshark to plain pcap."""
    plain = tmp_path / (os.path.basename(str(path)) + ".pcap")
    r = subprocess.run([TSHARK, "-r", str(path), "-F", "pcap", "-w", str(plain)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [bytes(p) for p in rdpcap(str(plain))]


def test_capture_in_out_both_with_filters(tmp_path):
    sent = traffic(90)
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=sent)
    nfvd.add_port("p1")
    nfvd.cmd(*CONFIG,
             'capture start dev p0 in file dns.pcapng filter "udp port 53" count 20',
             'capture start dev p1 out file out.pcapng filter "tcp dst port 80"')
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(sent)})
    assert st["packets"]["forwarded"] == len(sent) and not drops(st)
    assert st["capture"]["captured"] == 30 + 30
    assert st["capture"]["filtered"] == 60 + 60 and st["capture"]["ring_drops"] == 0
    # The control thread writes the files every 10 ms: the count is
    # reached at its next drain after the copies are on the ring.
    deadline = time.monotonic() + 10
    while True:
        shown = {c["dev"]: c for c in nfvd.ctl("capture show")["captures"]}
        if shown["p0"]["state"] != "running" or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    assert shown["p0"]["state"] == "count reached" and shown["p0"]["written"] == 20
    stopped = nfvd.ctl("capture stop")["captures"]
    assert sorted((c["dev"], c["written"]) for c in stopped) == [("p0", 20), ("p1", 30)]
    dns = [bytes(f) for f in sent if UDP in f and f[UDP].dport == 53]
    tcp = [routed(f) for f in sent if TCP in f]
    assert frames_of(nfvd.dir / "dns.pcapng", tmp_path) == dns[:20]
    assert frames_of(nfvd.dir / "out.pcapng", tmp_path) == tcp
    # tshark: the interface (DPDK 22.11 names it dpdk:PORT; the file's
    # comment names nfvd's port), the direction and the time of each frame.
    now = time.time()
    seen = tshark_read(nfvd.dir / "dns.pcapng", ["frame.interface_name",
                       "frame.packet_flags_direction", "udp.dstport", "frame.time_epoch"])
    assert [s[:3] for s in seen] == [("dpdk:0", "0x00000001", "53")] * 20
    assert all(abs(float(s[3]) - now) < 120 for s in seen), seen[:3]
    seen = tshark_read(nfvd.dir / "out.pcapng", ["frame.interface_name",
                       "frame.packet_flags_direction", "tcp.dstport"])
    assert seen == [("dpdk:1", "0x00000002", "80")] * 30
    info = subprocess.run(["capinfos", "-k", str(nfvd.dir / "out.pcapng")],
                          capture_output=True, text=True).stdout
    assert "nfvd capture of p1 (dpdk:1, net_pcap1), out, filter tcp dst port 80" in info
    out = nfvd.stop()
    assert out["p1"] == [routed(f) for f in sent]


def test_capture_both_and_counters_unchanged(tmp_path):
    """The same traffic with and without a capture of everything: the same
    forwarding counters and output; the file holds every frame received and
    sent on p1, each direction in order."""
    sent = traffic(60)
    back = [Ether(dst=P1, src=R1) / IP(src="198.51.100.9", dst="10.0.0.1") / UDP() /
            (b"b%d" % i) for i in range(9)]
    results = []
    for capture in (False, True):
        nfvd = Nfvd(tmp_path / ("cap%d" % capture))
        nfvd.add_port("p0", rx=sent)
        nfvd.add_port("p1", rx=back)
        nfvd.cmd(*CONFIG)
        if capture:
            nfvd.cmd("capture start dev p1 file all.pcapng")
        nfvd.start()
        st = nfvd.wait_processed({"p0": len(sent), "p1": len(back)})
        if capture:
            r = nfvd.ctl("capture stop dev p1")["captures"][0]
            assert (r["written"], r["captured"], r["filtered"]) == (69, 69, 0)
            frames = frames_of(nfvd.dir / "all.pcapng", tmp_path)
            dirs = tshark_read(nfvd.dir / "all.pcapng", ["frame.packet_flags_direction"])
            got_in = [f for f, d in zip(frames, dirs) if d == ("0x00000001",)]
            got_out = [f for f, d in zip(frames, dirs) if d == ("0x00000002",)]
            assert got_in == [bytes(f) for f in back]
            assert got_out == [routed(f) for f in sent]
        results.append((st["packets"]["forwarded"], st["packets"]["dropped"], drops(st),
                        nfvd.stop()))
    assert results[0] == results[1]


def shapes_mix():
    """Frames of many classes (ethertype, IP version, protocol, fragment),
    twice each, interleaved: the second time, a class the filter rejected
    on its class bytes alone is rejected from the workers' class cache."""
    d = "198.51.100.7"
    one = [
        IP(src="10.0.0.1", dst=d) / UDP(sport=5353, dport=53) / b"q1",
        IP(src="10.0.0.1", dst=d) / UDP(sport=5353, dport=54) / b"q2",
        IP(src="10.0.0.1", dst=d) / TCP(sport=1234, dport=9) / b"t9",
        IP(src="10.0.0.1", dst=d) / TCP(sport=1234, dport=80) / b"t80",
        IP(src="10.0.0.1", dst=d) / ICMP() / b"ping",
        IP(src="10.0.0.1", dst=d, frag=4, proto=17) / Raw(b"later fragment"),
        IPv6(src="2001:db8::1", dst="2001:db8::2") / UDP(sport=5353, dport=53) / b"q6",
        IPv6(src="2001:db8::1", dst="2001:db8::2") / TCP(sport=1234, dport=9) / b"t6",
        Dot1Q(vlan=5) / IP(src="10.0.0.1", dst=d) / UDP(sport=5353, dport=53) / b"qv",
        ARP(psrc="10.0.0.1", pdst="10.0.0.254"),
    ]
    frames = [Ether(bytes(Ether(dst=P0, src=H0) / f)) for f in one]
    frames.append(Ether(bytes(Ether(dst=P0, src=H0, type=0x88b5) / b"short")))  # 19 bytes
    return frames + frames


@pytest.mark.parametrize("expr,want", [
    ("tcp port 9", lambda f: TCP in f and Dot1Q not in f and 9 in (f[TCP].sport, f[TCP].dport)),
    ("udp", lambda f: Dot1Q not in f and ((IP in f and f[IP].proto == 17) or
                                          (IPv6 in f and f[IPv6].nh == 17))),
    ("ip6 and udp dst port 53", lambda f: IPv6 in f and UDP in f and f[UDP].dport == 53),
    ("not arp", lambda f: ARP not in f),
    ("vlan 5 and udp port 53", lambda f: Dot1Q in f),
])
def test_capture_filter_classes(tmp_path, expr, want):
    """The frames captured are exactly those libpcap's filter takes, the
    class cache in front of it or not."""
    sent = shapes_mix()
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=sent)
    nfvd.add_port("p1")
    nfvd.cmd(*CONFIG, 'capture start dev p0 in file c.pcapng filter "%s"' % expr)
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(sent)})
    expected = [bytes(f) for f in sent if want(f)]
    assert st["capture"]["captured"] == len(expected)
    assert st["capture"]["filtered"] == len(sent) - len(expected)
    nfvd.ctl("capture stop")
    nfvd.stop()
    assert frames_of(nfvd.dir / "c.pcapng", tmp_path) == expected


def test_capture_errors(tmp_path):
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0")
    nfvd.add_port("p1")
    nfvd.cmd(*CONFIG)
    nfvd.start()
    os.mkfifo(str(nfvd.dir / "fifo.pcapng"))
    nfvd.ctl("capture start dev p0 file ok.pcapng")
    for line, msg in [
            ('capture start dev p1 file x.pcapng filter "udp port"', "bad filter 'udp port'"),
            ('capture start dev p1 file x.pcapng filter "bogus"', "bad filter 'bogus'"),
            ("capture start dev nope file x.pcapng", "unknown interface 'nope'"),
            ("capture start dev p0 file y.pcapng", "p0 already has a capture"),
            ("capture start dev p1 sideways file x.pcapng", "unexpected 'sideways'"),
            ("capture start dev p1 file x.pcapng count 0", "bad count '0'"),
            ("capture start dev p1 file x.pcapng count", "missing value after 'count'"),
            ("capture start dev p1 file fifo.pcapng", "cannot open 'fifo.pcapng'"),
            ("capture start dev p1 file /dev/null", "is not a regular file"),
            ("capture start dev p1 file /nonexistent/x.pcapng", "cannot open"),
            ("capture start dev p1 file /proc/version",
             "cannot write the pcapng header to '/proc/version': Input/output error"),
            ("capture stop dev p1", "no capture on p1")]:
        r = nfvd.ctl_result(*__import__("shlex").split(line))
        assert r.rc != 0 and msg in r.stdout + r.stderr, (line, r.stdout, r.stderr)
    assert not (nfvd.dir / "x.pcapng").exists()
    assert [c["dev"] for c in nfvd.ctl("capture stop")["captures"]] == ["p0"]
    try:
        nfvd.ctl("capture stop")
        raise AssertionError("capture stop with no capture succeeded")
    except CtlError as e:
        assert "no capture" in str(e)
    assert tshark_read(nfvd.dir / "ok.pcapng", ["frame.len"]) == []
    nfvd.stop()
