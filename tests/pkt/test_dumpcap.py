# SPDX-License-Identifier: BSD-3-Clause
"""
dpdk-dumpcap (DPDK's packet-capture framework, rte_pdump) attaches to a
running nfvd and captures what a port sends. nfvd must run as a primary
process with a shared configuration on hugepages (not --no-huge,
--in-memory or --no-shconf), which these tests otherwise avoid.
"""
import glob
import os
import shutil
import subprocess
import tempfile
import time

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.utils import rdpcap, wrpcap

from nfvdlib import Nfvd, pcap_mac

DUMPCAP = shutil.which("dpdk-dumpcap")
TSHARK = shutil.which("tshark")
H0 = "02:00:00:00:00:01"
R1 = "02:00:00:00:01:01"


def free_hugepages():
    try:
        with open("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages") as f:
            return int(f.read())
    except OSError:
        return 0


@pytest.mark.skipif(DUMPCAP is None or TSHARK is None,
                    reason="dpdk-dumpcap or tshark not installed (make deps)")
@pytest.mark.skipif(free_hugepages() < 300, reason="needs 300 free 2 MB hugepages "
                    "(make hugepages): dpdk-dumpcap maps nfvd's memory")
@pytest.mark.skipif(os.environ.get("NFVD_SANITIZED") == "1",
                    reason="under AddressSanitizer the secondary process cannot always map "
                    "nfvd's memory at nfvd's addresses (the shadow memory may hold them); "
                    "the plain packet run covers dumpcap")
def test_dumpcap_attaches_to_nfvd(tmp_path):
    """dumpcap captures what p1 (a null port) sends; the traffic arrives on a
    pcap port added once dumpcap listens. Device arguments reach secondary
    processes cut to 63 characters, hence the short path of the input."""
    nfvd = Nfvd(tmp_path)
    nfvd.mem_args = ["-m", "512"]
    nfvd.add_port("p1", null=True)
    nfvd.cmd("addr add 10.1.0.254/24 dev p1", "neigh add 10.1.0.1 lladdr %s dev p1" % R1,
             "route add 198.51.100.0/24 via 10.1.0.1")
    short = tempfile.mkdtemp(prefix="nd")
    dump = None
    try:
        nfvd.start()
        assert nfvd.ctl("capture show")["dpdk_dumpcap"] is True
        p1_mac = nfvd.ctl("port show p1")["ports"][0]["mac"].lower()
        out = tmp_path / "dumpcap.pcapng"
        n = 25
        # stdbuf: dumpcap says "Capturing on" (once it listens) on stdout.
        dump = subprocess.Popen(["stdbuf", "-oL", DUMPCAP, "--file-prefix=%s" % nfvd.prefix, "-i", "net_null0",
                                 "-w", str(out), "-c", str(n)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 30
        seen = ""
        while "Capturing on" not in seen:
            line = dump.stdout.readline()
            assert line or dump.poll() is None, "dpdk-dumpcap exited: %s" % seen
            seen += line
            assert time.monotonic() < deadline, seen
        sent = [Ether(dst=pcap_mac(0), src=H0) / IP(src="10.0.0.1", dst="198.51.100.%d" % i) /
                UDP(sport=999, dport=1000 + i) / (b"d%d" % i) for i in range(1, n + 1)]
        wrpcap(os.path.join(short, "in.pcap"), sent)
        nfvd.ctl("port", "add", "p0", "dev", "net_pcap0,rx_pcap=%s/in.pcap" % short)
        rc = dump.wait(60)
        rest = dump.stdout.read()
        assert rc == 0, seen + rest
        got = subprocess.run([TSHARK, "-r", str(out), "-F", "pcap", "-w",
                              str(tmp_path / "d.pcap")], capture_output=True, text=True)
        assert got.returncode == 0, got.stderr
        frames = [bytes(p) for p in rdpcap(str(tmp_path / "d.pcap"))]
        want = []
        for f in sent:
            ip = f[IP].copy()
            ip.ttl -= 1
            del ip.chksum
            want.append(bytes(Ether(dst=R1, src=p1_mac) / ip))
        assert frames == want
        st = nfvd.stats()
        assert st["packets"]["forwarded"] == n
        nfvd.stop()
    finally:
        if dump is not None and dump.poll() is None:
            dump.kill()
            dump.wait()
        nfvd.kill()
        shutil.rmtree(short, ignore_errors=True)
        for f in glob.glob("/dev/hugepages/%smap_*" % nfvd.prefix):
            os.unlink(f)


@pytest.mark.parametrize("mem", [["--no-huge", "-m", "1024", "--no-shconf"],
                                 ["--no-huge", "-m", "1024"]],
                         ids=["no-huge-no-shconf", "no-huge"])
def test_dumpcap_not_offered_without_shared_memory(tmp_path, mem):
    """Under --no-huge (with or without --no-shconf) a secondary process
    cannot map nfvd's memory: "capture show" says dpdk_dumpcap false, even
    with another run's "config" file left in the runtime directory (which
    says nothing about this one), and the log says why."""
    nfvd = Nfvd(tmp_path)
    nfvd.mem_args = mem
    rundir = "/var/run/dpdk/%s" % nfvd.prefix
    os.makedirs(rundir, exist_ok=True)
    with open(os.path.join(rundir, "config"), "wb") as f:
        f.write(b"\0" * 4096)
    try:
        nfvd.start()
        assert nfvd.ctl("capture show")["dpdk_dumpcap"] is False
        nfvd.stop()
        assert "dpdk-dumpcap cannot attach" in nfvd.log_path.read_text()
    finally:
        nfvd.kill()
        shutil.rmtree(rundir, ignore_errors=True)
