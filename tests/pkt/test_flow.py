# SPDX-License-Identifier: BSD-3-Clause
"""
Flow statistics: per-worker flow tables read by "flow show" (packets, bytes
of the IP packets, TCP flags OR-ed, per 5-tuple and receiving port), and
IPFIX export read back by a real collector (nfdump's nfcapd): the packet
and byte totals per flow equal the traffic sent.

    H0 10.0.0.1 -- p0 10.0.0.254/24 [nfvd] p1 10.1.0.254/24 -- R1 10.1.0.1
                      2001:db8:a::fe/64        2001:db8:1::fe/64 -- R1 2001:db8:1::1
"""
import contextlib
import os
import shutil
import signal
import socket
import struct
import subprocess
import time
from collections import Counter

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw

from nfvdlib import CtlError, Nfvd, drops, pcap_mac

P0 = pcap_mac(0)
H0 = "02:00:00:00:00:01"
R1 = "02:00:00:00:01:01"
NFCAPD = shutil.which("nfcapd")
NFDUMP = shutil.which("nfdump")
TSHARK = shutil.which("tshark")
DUMPCAP = shutil.which("dumpcap")

CONFIG = [
    "addr add 10.0.0.254/24 dev p0",
    "addr add 10.1.0.254/24 dev p1",
    "addr add 2001:db8:a::fe/64 dev p0",
    "addr add 2001:db8:1::fe/64 dev p1",
    "neigh add 10.1.0.1 lladdr %s dev p1" % R1,
    "neigh add 2001:db8:1::1 lladdr %s dev p1" % R1,
    "route add 198.51.100.0/24 via 10.1.0.1",
    "route add 2001:db8:99::/64 via 2001:db8:1::1",
]


def traffic():
    """Flows with different packet counts and sizes, UDP, TCP (flags), IPv6,
    and ICMP-less protocol 47 (no ports); interleaved."""
    flows = []
    for i in range(12):
        flows.append([IP(src="10.0.0.1", dst="198.51.100.%d" % (i + 1)) /
                      UDP(sport=5000 + i, dport=53) / (b"u" * (10 * k + i))
                      for k in range(i + 1)])
    flows.append([IP(src="10.0.0.1", dst="198.51.100.200") /
                  TCP(sport=4444, dport=80, flags=f) / b"t" for f in ("S", "A", "PA", "FA")])
    flows.append([IPv6(src="2001:db8:a::1", dst="2001:db8:99::7") /
                  UDP(sport=6000, dport=6001) / (b"6" * k) for k in range(5)])
    flows.append([IP(src="10.0.0.1", dst="198.51.100.201", proto=47) / (b"g" * 30)] * 3)
    out = []
    for k in range(max(len(f) for f in flows)):
        for f in flows:
            if k < len(f):
                out.append(Ether(dst=P0, src=H0) / f[k])
    return out


def key_of(f):
    ip = f[IP] if IP in f else f[IPv6]
    proto = ip.proto if IP in f else ip.nh
    l4 = f[TCP] if TCP in f else f[UDP] if UDP in f else None
    return (ip.src, ip.dst, proto, l4.sport if l4 else 0, l4.dport if l4 else 0)


def expected(frames):
    """{5-tuple: [packets, bytes of the IP packets, TCP flags OR-ed]}"""
    want = {}
    for f in frames:
        w = want.setdefault(key_of(f), [0, 0, 0])
        w[0] += 1
        w[1] += len(f[IP]) if IP in f else len(f[IPv6])
        w[2] |= int(f[TCP].flags) if TCP in f else 0
    return want


def test_flow_show(tmp_path):
    sent = traffic()
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=sent)
    nfvd.add_port("p1")
    nfvd.cmd(*CONFIG, "flow enable")
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(sent)})
    assert st["packets"]["forwarded"] == len(sent) and not drops(st)
    want = expected(sent)
    shown = nfvd.ctl("flow show")
    assert shown["enabled"] is True and shown["active_flows"] == len(want)
    got = {(f["src"], f["dst"], f["proto"], f["sport"], f["dport"]):
           [f["packets"], f["bytes"], f["tcp_flags"]] for f in shown["flows"]}
    assert got == want
    assert all(f["dev"] == "p0" for f in shown["flows"])
    assert st["flow"]["flows_created"] == len(want) and st["flow"]["table_full"] == 0
    # top N: the N flows with the most bytes, largest first.
    top = nfvd.ctl("flow show top 3")["flows"]
    assert [f["bytes"] for f in top] == sorted((w[1] for w in want.values()), reverse=True)[:3]
    for line, msg in [("flow show top 0", "bad count '0'"),
                      ("flow show bottom 3", "unexpected 'bottom'"),
                      ("flow export ipfix 10.0.0.1", "bad collector '10.0.0.1'"),
                      ("flow export ipfix 10.0.0.1:0", "bad collector"),
                      ("flow export ipfix 10.0.0.1:4739 active 0", "bad active timeout '0'"),
                      ("flow export ipfix 10.0.0.1:4739 idle x", "bad idle timeout 'x'"),
                      ("flow export ipfix 10.0.0.1:4739 idle 1 idle 2", "unexpected 'idle'"),
                      ("flow export netflow 10.0.0.1:4739", "unexpected 'netflow'"),
                      ("flow export del", "no flow export")]:
        try:
            nfvd.ctl(*line.split())
            raise AssertionError("%s succeeded" % line)
        except CtlError as e:
            assert msg in str(e), (line, str(e))
    # Off: the workers end every flow.
    nfvd.ctl("flow disable")
    deadline = time.monotonic() + 10
    while nfvd.ctl("flow show")["active_flows"] != 0:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert nfvd.stats()["flow"]["flows_ended"] == len(want)
    out = nfvd.stop()
    assert len(out["p1"]) == len(sent)


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_flows_of_a_removed_port_end(tmp_path):
    """A removed port's flows end (a worker's next scan reports and
    forgets them): a port added after it, which gets its id, starts its
    own flows rather than adding to the old ones."""
    pkt = IP(src="10.9.0.1", dst="198.51.100.7") / UDP(sport=7000, dport=53) / b"x"
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0")
    nfvd.add_port("p1")
    nfvd.add_port("p2", rx=[Ether(dst=pcap_mac(2), src=H0) / pkt] * 5)
    nfvd.cmd(*CONFIG, "flow enable")
    nfvd.start()
    nfvd.wait_processed({"p2": 5})
    old = [(f["dev"], f["packets"]) for f in nfvd.ctl("flow show")["flows"]]
    assert old == [("p2", 5)], old
    nfvd.ctl("port del p2")
    nfvd.add_port_now("q", rx=[Ether(dst=pcap_mac(2), src=H0) / pkt] * 2)
    nfvd.wait_processed({"q": 2})
    deadline = time.monotonic() + 10
    while True:
        now = [(f["dev"], f["packets"]) for f in nfvd.ctl("flow show")["flows"]]
        if now == [("q", 2)] or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert now == [("q", 2)], now
    st = nfvd.stats()
    assert st["flow"]["flows_created"] == 2 and st["flow"]["flows_ended"] == 1, st["flow"]
    nfvd.stop()


def test_flow_keys_of_every_frame_shape(tmp_path):
    """The frames the fast path reads (untagged IPv4 without options, not a
    later fragment, 48 bytes or more) and those it leaves to the full parse
    (tagged, options, fragments, short, truncated, IPv6) give the same keys
    and counts; not IP is not counted; the same 5-tuple on two ports is two
    flows. Each frame three times, interleaved: the cache's hits, not only
    the table's."""
    d = "198.51.100.9"
    shapes = [
        ("fast udp", IP(src="10.0.0.1", dst=d) / UDP(sport=1, dport=2) / (b"x" * 20)),
        ("fast tcp", IP(src="10.0.0.1", dst=d) / TCP(sport=3, dport=4, flags="SU")),
        ("fast icmp", IP(src="10.0.0.1", dst=d) / ICMP(id=7, seq=1) / (b"i" * 20)),
        ("options", IP(src="10.0.0.2", dst=d, options=b"\x01\x01\x01\x00") /
         UDP(sport=5, dport=6) / (b"o" * 20)),
        ("first fragment", IP(src="10.0.0.3", dst=d, id=9, flags="MF", frag=0, proto=17) /
         Raw(bytes(UDP(sport=7, dport=8, len=48)) + b"f" * 16)),
        ("later fragment", IP(src="10.0.0.3", dst=d, id=9, frag=3, proto=17) /
         Raw(b"g" * 24)),
        ("short udp", IP(src="10.0.0.4", dst=d) / UDP(sport=9, dport=10)),
        ("truncated", IP(src="10.0.0.5", dst=d, proto=17, len=28)),
        ("sctp", IP(src="10.0.0.6", dst=d, proto=132) / Raw(b"\x00\x0b\x00\x0c" + b"s" * 28)),
    ]
    tagged = Ether(dst=P0, src=H0) / Dot1Q(vlan=5) / IP(src="10.0.0.7", dst=d) / \
        UDP(sport=11, dport=12) / (b"v" * 20)
    six = Ether(dst=P0, src=H0) / IPv6(src="2001:db8:a::1", dst="2001:db8:99::1") / \
        UDP(sport=13, dport=14)
    # IPv6 with extension headers: the key has the upper layer's protocol
    # and ports (none in a later fragment).
    a6 = "2001:db8:a::1"
    six_ext = [
        Ether(dst=P0, src=H0) / IPv6(src=a6, dst="2001:db8:99::2") / IPv6ExtHdrHopByHop() /
        UDP(sport=15, dport=16) / (b"h" * 8),
        Ether(dst=P0, src=H0) / IPv6(src=a6, dst="2001:db8:99::3") /
        IPv6ExtHdrFragment(offset=0, m=1, id=5, nh=17) /
        Raw(bytes(UDP(sport=17, dport=18, len=40)) + b"f" * 8),
        Ether(dst=P0, src=H0) / IPv6(src=a6, dst="2001:db8:99::3") /
        IPv6ExtHdrFragment(offset=2, m=0, id=5, nh=17) / Raw(b"g" * 16),
    ]
    arp = Ether(dst="ff:ff:ff:ff:ff:ff", src=H0) / ARP(psrc="10.0.0.1", pdst="10.0.0.254")
    frames = [Ether(bytes(Ether(dst=P0, src=H0) / f)) for _, f in shapes]
    frames += [Ether(bytes(f)) for f in (tagged, six, arp, *six_ext)]
    sent = frames * 3
    want = {}
    for f in sent:
        if ARP in f:
            continue
        ip = f[IP] if IP in f else f[IPv6]
        proto = ip.proto if IP in f else ip.nh
        ports = (0, 0)
        if IP in f and ip.frag == 0 and proto in (6, 17, 132) and len(bytes(ip.payload)) >= 4:
            raw = bytes(ip.payload)
            ports = (int.from_bytes(raw[0:2], "big"), int.from_bytes(raw[2:4], "big"))
        elif IPv6 in f:
            upper, first = ip.payload, True
            while isinstance(upper, (IPv6ExtHdrHopByHop, IPv6ExtHdrFragment)):
                proto = upper.nh
                first = first and not (isinstance(upper, IPv6ExtHdrFragment) and upper.offset)
                upper = upper.payload
            raw = bytes(upper)
            if first and proto in (6, 17, 132) and len(raw) >= 4:
                ports = (int.from_bytes(raw[0:2], "big"), int.from_bytes(raw[2:4], "big"))
        k = (ip.src, ip.dst, proto) + ports
        w = want.setdefault(k, [0, 0, 0])
        w[0] += 1
        w[1] += ip.len if IP in f else 40 + ip.plen
        w[2] |= int(f[TCP].flags) if TCP in f else 0
    # The later fragment's key has no ports; the first one's has them.
    assert ("10.0.0.3", d, 17, 0, 0) in want and ("10.0.0.3", d, 17, 7, 8) in want
    assert ("10.0.0.5", d, 17, 0, 0) in want and ("10.0.0.4", d, 17, 9, 10) in want
    assert (a6, "2001:db8:99::2", 17, 15, 16) in want
    assert (a6, "2001:db8:99::3", 17, 17, 18) in want and (a6, "2001:db8:99::3", 17, 0, 0) in want
    # The same UDP flow on p1 too: another key (the receiving port).
    other = [Ether(dst=pcap_mac(1), src=R1) / shapes[0][1]] * 2
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=sent)
    nfvd.add_port("p1", rx=other)
    nfvd.cmd(*CONFIG, "flow enable")
    nfvd.start()
    nfvd.wait_processed({"p0": len(sent), "p1": len(other)})
    shown = nfvd.ctl("flow show")["flows"]
    got = {}
    for f in shown:
        k = (f["src"], f["dst"], f["proto"], f["sport"], f["dport"])
        got.setdefault(f["dev"], {})[k] = [f["packets"], f["bytes"], f["tcp_flags"]]
    assert got["p0"] == want
    udp = IP(bytes(shapes[0][1]))
    assert len(shown) == len(want) + 1
    assert got["p1"] == {("10.0.0.1", d, 17, 1, 2): [2, 2 * udp.len, 0]}
    nfvd.stop()


def start_dumpcap(path, port):
    """dumpcap on the loopback, the datagrams to the collector's port; returns
    once it captures."""
    cap = subprocess.Popen([DUMPCAP, "-q", "-i", "lo", "-f", "udp and dst port %d" % port,
                            "-w", str(path)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    line = cap.stderr.readline()
    assert "Capturing on" in line, (line, cap.stderr.read() if cap.poll() is not None else "")
    return cap


@contextlib.contextmanager
def loopback_collector(wire):
    """A UDP port on the loopback for nfvd's IPFIX export, captured by
    dumpcap to wire: yields the port. A socket is bound to it so that the
    datagrams are not refused (they are read from the capture)."""
    port = free_udp_port()
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("127.0.0.1", port))
    dump = start_dumpcap(wire, port)
    try:
        yield port
    finally:
        dump.send_signal(signal.SIGTERM)
        dump.wait(20)
        sink.close()


def tshark_ipfix(path, port):
    """The IPFIX messages of a capture, as tshark's cflow dissector reads them:
    [(header fields, [records])], each record a {field: value} of its
    dissected fields, and the expert/malformed complaints."""
    r = subprocess.run([TSHARK, "-n", "-r", str(path), "-d", "udp.port==%d,cflow" % port,
                        "-T", "json"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    import json
    msgs = []
    complaints = []

    def records(tree, out):
        """The flow records under a set: dicts whose keys are cflow fields."""
        if isinstance(tree, dict):
            if any(k in tree for k in ("cflow.srcaddr", "cflow.srcaddrv6")):
                rec = {k: v for k, v in tree.items() if k.startswith("cflow.")}
                rec.update(tree.get("cflow.timedelta_tree", {}))
                out.append(rec)
                return
            for k, v in tree.items():
                if k.startswith("_ws.expert") or k.startswith("_ws.malformed"):
                    complaints.append((k, v))
                records(v, out)
        elif isinstance(tree, list):
            for v in tree:
                records(v, out)

    for frame in json.loads(r.stdout or "[]"):
        layers = frame["_source"]["layers"]
        assert "cflow" in layers, layers.keys()
        cf = layers["cflow"]
        recs = []
        records(cf, recs)
        for k in layers:
            if k.startswith("_ws.malformed"):
                complaints.append((k, layers[k]))
        msgs.append((cf, recs))
    return msgs, complaints


def abstime(text):
    """Seconds since the epoch of tshark's "Dec  1, 2026 04:41:29.875000000 UTC"."""
    import calendar
    day, frac = text.rsplit(".", 1)
    t = time.strptime(" ".join(day.split()), "%b %d, %Y %H:%M:%S")
    return calendar.timegm(t) + float("0." + frac.split()[0])


def test_ipfix_read_by_nfcapd_and_tshark(tmp_path):
    """One export, read by two real collectors: nfdump's nfcapd receives it,
    and the same datagrams, captured on the loopback, go through tshark's
    IPFIX dissector. Both give, per flow, exactly the packets and bytes sent."""
    assert NFCAPD and NFDUMP and TSHARK and DUMPCAP, \
        "nfdump, tshark and dumpcap are needed (scripts/deps.sh)"
    sent = traffic()
    port = free_udp_port()
    flowdir = tmp_path / "flows"
    flowdir.mkdir()
    wire = tmp_path / "export.pcapng"
    cap = subprocess.Popen([NFCAPD, "-b", "127.0.0.1", "-p", str(port), "-w", str(flowdir),
                            "-t", "3600"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    dump = None
    try:
        time.sleep(0.5)
        assert cap.poll() is None, cap.stdout.read()
        dump = start_dumpcap(wire, port)
        nfvd = Nfvd(tmp_path / "nfvd")
        nfvd.add_port("p0", rx=sent)
        nfvd.add_port("p1")
        nfvd.cmd(*CONFIG, "flow export ipfix 127.0.0.1:%d active 60 idle 1" % port)
        t0 = time.time()
        nfvd.start()
        nfvd.wait_processed({"p0": len(sent)})
        t1 = time.time()
        want = expected(sent)
        # Idle for a second: every flow ends and its record goes out.
        deadline = time.monotonic() + 20
        while True:
            sh = nfvd.ctl("flow show")
            if sh["active_flows"] == 0 and sh["export"]["records"] == len(want):
                break
            assert time.monotonic() < deadline, sh
            time.sleep(0.1)
        assert sh["export"]["send_errors"] == 0 and sh["export"]["messages"] >= 1
        messages = sh["export"]["messages"]
        st = nfvd.stats()
        assert st["flow"]["records_exported"] == len(want)
        nfvd.stop()
        time.sleep(0.3)
    finally:
        if dump is not None:
            dump.send_signal(signal.SIGTERM)
            dump.wait(20)
        cap.send_signal(signal.SIGTERM)
        cap.wait(20)

    # nfcapd's files, read by nfdump.
    files = [str(flowdir / f) for f in os.listdir(flowdir) if f.startswith("nfcapd.")]
    assert files, os.listdir(flowdir)
    r = subprocess.run([NFDUMP, "-q", "-N", "-o", "fmt:%sa|%da|%pr|%sp|%dp|%pkt|%byt|%in"] +
                       sum([["-r", f] for f in files], []),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    got = Counter()
    recs = 0
    for line in r.stdout.splitlines():
        cols = [c.strip() for c in line.split("|")]
        if len(cols) != 8:
            continue
        sa, da, pr, sp, dp, pkt, byt, ingress = cols
        proto = {"UDP": 17, "TCP": 6}.get(pr, None)
        proto = proto if proto is not None else int(pr)
        k = (sa, da, proto, int(sp), int(dp))
        got[k + ("packets",)] += int(pkt)
        got[k + ("bytes",)] += int(byt)
        assert ingress == "0"   # p0's interface id
        recs += 1
    assert recs == len(want), r.stdout
    for k, (pkts, byts, _) in want.items():
        assert (got[k + ("packets",)], got[k + ("bytes",)]) == (pkts, byts), (k, r.stdout)

    # The same datagrams through tshark's dissector: every message version
    # 10 with its sequence number (data records sent before it), templates
    # known before the data, nothing malformed; each record's fields.
    msgs, complaints = tshark_ipfix(wire, port)
    assert len(msgs) == messages, (len(msgs), messages)
    assert not complaints, complaints
    seq = 0
    flows = {}
    for hdr, records in msgs:
        assert int(hdr["cflow.version"]) == 10
        assert int(hdr["cflow.sequence"]) == seq, (hdr["cflow.sequence"], seq)
        seq += len(records)
        for rec in records:
            six = "cflow.srcaddrv6" in rec
            k = (rec["cflow.srcaddrv6" if six else "cflow.srcaddr"],
                 rec["cflow.dstaddrv6" if six else "cflow.dstaddr"],
                 int(rec["cflow.protocol"]), int(rec["cflow.srcport"]),
                 int(rec["cflow.dstport"]))
            assert k not in flows, k   # one record per flow: each ended once
            flows[k] = [int(rec["cflow.packets"]), int(rec["cflow.octets"]),
                        int(rec["cflow.tcpflags"], 0)]
            assert int(rec["cflow.inputint"]) == 0   # p0
            start, end = (abstime(rec["cflow.abstime" + w]) for w in ("start", "end"))
            assert t0 - 1 <= start <= end <= t1 + 1, (rec, t0, t1)
    assert seq == len(want)
    assert flows == want, (flows, want)


def test_visibility_counters_in_stats_telemetry_prometheus(tmp_path):
    """Mirror, capture and flow counters: the same numbers in show stats,
    the /nfvd/stats telemetry command and Prometheus."""
    from test_observability import scrape, telemetry
    sent = traffic()
    n_udp53 = sum(1 for f in sent if UDP in f and f[UDP].dport == 53)
    port = free_udp_port() % 500 + 19600
    nfvd = Nfvd(tmp_path)
    nfvd.add_port("p0", rx=sent)
    nfvd.add_port("p1")
    nfvd.add_port("m")
    nfvd.extra_args = ["--metrics", "127.0.0.1:%d" % port]
    nfvd.cmd(*CONFIG, "flow enable", "mirror add s dev p0 in to m",
             'capture start dev p0 in file c.pcapng filter "udp dst port 53"')
    nfvd.start()
    st = nfvd.wait_processed({"p0": len(sent)})
    flows = len(expected(sent))
    assert st["mirror"] == {"copies": len(sent), "copy_drops": 0, "copy_nombuf": 0}
    assert st["capture"] == {"captured": n_udp53, "filtered": len(sent) - n_udp53,
                             "ring_drops": 0, "nombuf": 0}
    assert (st["flow"]["flows_created"], st["flow"]["table_full"]) == (flows, 0)
    tel = telemetry(nfvd.prefix, "/nfvd/stats")
    assert tel["mirror/copies"] == len(sent) and tel["mirror/copy_drops"] == 0
    assert tel["capture/captured"] == n_udp53 and tel["capture/ring_drops"] == 0
    assert tel["capture/filtered"] == len(sent) - n_udp53
    assert tel["flow/flows_created"] == flows and tel["flow/table_full"] == 0
    samples, types = scrape(port)
    assert samples[("nfvd_mirror_copies_total", ())] == len(sent)
    assert samples[("nfvd_mirror_copy_drops_total", (("reason", "port"),))] == 0
    assert samples[("nfvd_capture_packets_total", (("result", "captured"),))] == n_udp53
    assert samples[("nfvd_capture_packets_total", (("result", "ring_drops"),))] == 0
    assert samples[("nfvd_flows_total", ())] == flows
    assert samples[("nfvd_flows_active", ())] == flows
    assert samples[("nfvd_flow_table_full_total", ())] == 0
    assert types["nfvd_flows_active"] == "gauge"
    nfvd.ctl("capture stop")
    nfvd.stop()


def test_ipfix_active_timeout_records(tmp_path):
    """Two flows replayed without end for 3.5 s, active timeout 1 s: each
    flow is reported while it runs, then ends when the port stops (idle 2 s). Read by tshark's IPFIX dissector: the records of a flow do
    not overlap (each starts where the one before ended, or later), and
    their packets and bytes add up to exactly what the port received."""
    assert TSHARK and DUMPCAP, "tshark and dumpcap are needed (scripts/deps.sh)"
    flows = [Ether(dst=P0, src=H0) / IP(src="10.0.0.1", dst="198.51.100.%d" % (i + 1)) /
             UDP(sport=7000 + i, dport=53) / (b"a" * 22) for i in range(2)]
    iplen = len(flows[0][IP])
    wire = tmp_path / "export.pcapng"
    with loopback_collector(wire) as port:
        nfvd = Nfvd(tmp_path / "nfvd")
        nfvd.add_port("p0", rx=flows, infinite=True)
        nfvd.add_port("p1", null=True)
        nfvd.cmd(*CONFIG, "flow export ipfix 127.0.0.1:%d active 1 idle 2" % port)
        nfvd.start()
        time.sleep(3.5)
        nfvd.ctl("port", "set", "p0", "down")
        time.sleep(0.3)
        rx = nfvd.port_stats()["p0"]["rx_packets"]
        assert rx > 0
        deadline = time.monotonic() + 20
        while True:
            sh = nfvd.ctl("flow show")
            if sh["active_flows"] == 0:
                break
            assert time.monotonic() < deadline, sh
            time.sleep(0.1)
        time.sleep(0.3)
        assert sh["export"]["send_errors"] == 0
        nfvd.stop()
        time.sleep(0.3)
    msgs, complaints = tshark_ipfix(wire, port)
    assert not complaints, complaints
    per = {}
    for _hdr, records in msgs:
        for rec in records:
            k = (rec["cflow.dstaddr"], int(rec["cflow.srcport"]))
            per.setdefault(k, []).append(
                (abstime(rec["cflow.abstimestart"]), abstime(rec["cflow.abstimeend"]),
                 int(rec["cflow.packets"]), int(rec["cflow.octets"])))
    assert sorted(per) == [("198.51.100.1", 7000), ("198.51.100.2", 7001)], per.keys()
    total = 0
    for k, recs in per.items():
        recs.sort()
        # At least one active report (the scan finds a flow past its
        # active timeout within a scan round, up to a second), then the end.
        assert len(recs) >= 2, (k, recs)
        for a, b in zip(recs, recs[1:]):
            assert b[0] >= a[1], (k, recs)   # no overlap
        for start, end, pkts, byts in recs:
            assert start <= end and pkts > 0 and byts == pkts * iplen, (k, recs)
        total += sum(r[2] for r in recs)
    assert total == rx, (total, rx)


def cache_set(src, dst, proto, sport, dport, iface=0):
    """The set of an IPv4 flow in a worker's flow cache (flow.h's
    nfv_flow_cache_set of the key's two words, struct nfv_flow_key4)."""
    lo = struct.unpack("<Q", socket.inet_aton(src) + bytes([0, proto]) +
                       struct.pack("<H", iface))[0]
    hi = struct.unpack("<Q", socket.inet_aton(dst) + struct.pack(">HH", sport, dport))[0]
    return (((lo + hi) * 0x7feb352d) % 2 ** 64) >> (64 - 13)


def test_flow_cache_many_flows(tmp_path):
    """4000 UDP and TCP flows, each three times in turn (12,000 frames):
    some share a set of the worker's cache (8192 sets of 4 ways), so
    frames are found in way 0 and in the other ways; six more flows are
    chosen to share one set (the cache's hash computed here as flow.h
    computes it), more flows than ways, so their frames also go to the
    table lookup and ways move. Every flow's counts must come out exact,
    in "flow show" and in the IPFIX records of the flows' end, read by
    tshark."""
    assert TSHARK and DUMPCAP, "tshark and dumpcap are needed (scripts/deps.sh)"
    frames = []
    for rep in range(3):
        for i in range(4000):
            l4 = (UDP(sport=1024 + i, dport=9000) if i % 3 else
                  TCP(sport=1024 + i, dport=443, flags="A"))
            frames.append(Ether(dst=P0, src=H0) /
                          IP(src="10.0.%d.%d" % (i // 250, 1 + i % 250), dst="198.51.100.7") /
                          l4 / (b"m" * (i % 7)))
    crowd = []   # source ports of UDP flows 10.9.0.1 -> 198.51.100.7:53, one set
    for sport in range(1024, 65536):
        if cache_set("10.9.0.1", "198.51.100.7", 17, sport, 53) == \
                cache_set("10.9.0.1", "198.51.100.7", 17, 1024, 53):
            crowd.append(sport)
            if len(crowd) == 6:
                break
    assert len(crowd) == 6
    for rep in range(3):
        for sport in crowd:
            frames.append(Ether(dst=P0, src=H0) / IP(src="10.9.0.1", dst="198.51.100.7") /
                          UDP(sport=sport, dport=53) / (b"c" * (sport % 5)))
    want = expected(frames)
    assert len(want) == 4006
    wire = tmp_path / "export.pcapng"
    with loopback_collector(wire) as port:
        nfvd = Nfvd(tmp_path / "nfvd")
        nfvd.add_port("p0", rx=frames)
        nfvd.add_port("p1")
        nfvd.cmd(*CONFIG, "flow export ipfix 127.0.0.1:%d" % port)
        nfvd.start()
        st = nfvd.wait_processed({"p0": len(frames)}, timeout=60)
        assert st["packets"]["forwarded"] == len(frames) and not drops(st)
        shown = nfvd.ctl("flow show")
        assert shown["active_flows"] == len(want)
        got = {(f["src"], f["dst"], f["proto"], f["sport"], f["dport"]):
               [f["packets"], f["bytes"], f["tcp_flags"]] for f in shown["flows"]}
        assert got == want
        assert st["flow"]["flows_created"] == len(want) and st["flow"]["table_full"] == 0
        # Off: every flow ends and is exported.
        nfvd.ctl("flow disable")
        deadline = time.monotonic() + 20
        while True:
            sh = nfvd.ctl("flow show")
            if sh["active_flows"] == 0 and sh["export"]["records"] == len(want):
                break
            assert time.monotonic() < deadline, sh
            time.sleep(0.1)
        assert sh["export"]["send_errors"] == 0
        time.sleep(0.3)
        out = nfvd.stop()
        assert len(out["p1"]) == len(frames)
    msgs, complaints = tshark_ipfix(wire, port)
    assert not complaints, complaints[:3]
    exported = {}
    for _hdr, records in msgs:
        for rec in records:
            k = (rec["cflow.srcaddr"], rec["cflow.dstaddr"], int(rec["cflow.protocol"]),
                 int(rec["cflow.srcport"]), int(rec["cflow.dstport"]))
            assert k not in exported, k   # one record a flow: it ended once
            exported[k] = [int(rec["cflow.packets"]), int(rec["cflow.octets"]),
                           int(rec["cflow.tcpflags"], 0)]
    assert exported == want
