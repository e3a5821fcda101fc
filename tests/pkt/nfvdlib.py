# SPDX-License-Identifier: BSD-3-Clause
"""
Harness for the packet tests: runs a real nfvd on net_pcap / net_null ports,
talks to it through nfvctl, and hands back what it transmitted.

An Nfvd instance is configured (ports, startup commands), started, fed by the
pcap files written before start (or by ports added at run time), waited on
until every input packet is accounted for, and stopped with SIGTERM. stop()
checks the exit code (0) and that every mbuf came back to its pool, and
returns the frames each port transmitted, as bytes.
"""
import itertools
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

from scapy.utils import RawPcapReader

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / os.environ.get("NFVD_BUILD", "build")
NFVD = BUILD / "src" / "nfvd"
NFVCTL = BUILD / "src" / "nfvctl"

READY_LINE = "nfvd: ready; API socket"
MBUFS_OK_LINE = "nfvd: exit: all mbufs returned to their pools"

# EAL options of every instance. --no-pci: never touch the machine's NICs.
# Memory: hugepages when `make hugepages` reserved enough of them, with
# --in-memory (no shared files: instances never collide); else --no-huge with
# --no-shconf (--in-memory cannot be combined with --no-huge in DPDK 22.11).
# An instance takes about 0.4 s to start on hugepages and 1.5-2.5 s on
# --no-huge, whose 4 KB pages make the FIBs' 64 MB first-level tables (two
# per family: active and standby) 65,536 page faults. A test that gives
# mem_mb gets --no-huge and exactly that much memory.
# NFVD_TEST_MEM=huge|nohuge forces one or the other.
EAL_MEM_MB = 1024
HUGE_MIN_MB = 1536   # an instance uses 0.5-0.8 GB; two may run at once


def _hugepages_usable():
    want = os.environ.get("NFVD_TEST_MEM", "")
    if want in ("huge", "nohuge"):
        return want == "huge"
    try:
        mounts = Path("/proc/mounts").read_text()
        info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
        free_mb = int(info["HugePages_Free"]) * int(info["Hugepagesize"].split()[0]) // 1024
    except (OSError, KeyError, ValueError):
        return False
    return " hugetlbfs " in mounts and free_mb >= HUGE_MIN_MB


HUGEPAGES = _hugepages_usable()
# Route capacities: the defaults (1.2M IPv4 routes) cost ~10 s of start-up
# under --no-huge; the tests need far fewer.
MAX_ROUTES4 = 65536
MAX_ROUTES6 = 65536

DLT_EN10MB = 1
_instance_seq = itertools.count()
# Every Nfvd made, in order: conftest's autouse fixture kills those a test
# made and left running (a test that failed before its stop()).
INSTANCES = []


def pcap_mac(index):
    """MAC address of the index-th net_pcap device probed by one nfvd process.

    The pcap PMD numbers its devices in probe order (a process-wide counter),
    whatever N is in net_pcapN."""
    return "02:70:63:61:70:%02x" % index


def write_pcap(path, frames):
    """Writes frames (scapy packets or bytes) to an Ethernet pcap file."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, DLT_EN10MB))
        for i, fr in enumerate(frames):
            b = bytes(fr)
            f.write(struct.pack("<IIII", 1700000000 + i // 1000000, i % 1000000, len(b), len(b)))
            f.write(b)


def read_pcap(path):
    """Frames of a pcap file as a list of bytes."""
    return [bytes(data) for data, _meta in RawPcapReader(str(path))]


class CtlError(Exception):
    def __init__(self, cmd, rc, stdout, stderr):
        super().__init__("nfvctl %s: exit %d: %s%s" % (cmd, rc, stdout.strip(), stderr.strip()))
        self.cmd, self.rc, self.stdout, self.stderr = cmd, rc, stdout, stderr


class CtlResult:
    """What one nfvctl --json invocation returned."""

    def __init__(self, argv, proc):
        self.argv = argv
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def json(self):
        return json.loads(self.stdout)


class Port:
    def __init__(self, name, kind, index, rx_path, tx_path, mac, devargs, extra):
        self.name, self.kind, self.index = name, kind, index
        self.rx_path, self.tx_path, self.mac = rx_path, tx_path, mac
        self.devargs, self.extra = devargs, extra

    def command(self):
        return "port add %s dev %s%s" % (self.name, self.devargs, self.extra)


class Nfvd:
    """One nfvd process on virtual ports."""

    def __init__(self, workdir, max_routes4=MAX_ROUTES4, max_routes6=MAX_ROUTES6,
                 mem_mb=None):
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.max_routes4, self.max_routes6, self.mem_mb = max_routes4, max_routes6, mem_mb
        INSTANCES.append(self)
        self.prefix = "nfvpkt%d_%d" % (os.getpid(), next(_instance_seq))
        # Unix socket paths are short (108 bytes): keep the socket out of tmp_path.
        self.sockdir = Path(tempfile.mkdtemp(prefix="nfvpkt"))
        self.sock = self.sockdir / "api.sock"
        self.startup = []
        self.ports = {}
        self.n_pcap = 0      # pcap devices probed so far (their MACs are numbered in order)
        self.n_devs = {}     # next N per driver for the device names
        self.proc = None
        self.log_path = self.dir / ("nfvd-%s.log" % self.prefix)
        self.exit_code = None
        self.log = ""
        self._api = None
        self.extra_args = []   # more nfvd options (after "--")
        self.lcores = ["-l", "0,1"]   # EAL lcores: the main lcore and one worker
        # EAL memory options; None: the suite's choice (HUGEPAGES, mem_mb).
        # A list replaces them (e.g. hugepages and a shared configuration,
        # for secondary processes such as dpdk-dumpcap).
        self.mem_args = None

    # ---- configuration --------------------------------------------------------------

    def _new_port(self, name, rx=None, infinite=False, null=False, opts=""):
        if null:
            n = self.n_devs.get("net_null", 0)
            self.n_devs["net_null"] = n + 1
            devargs = "net_null%d,no-rx=1" % n
            p = Port(name, "null", n, None, None, None, devargs, opts)
        else:
            n = self.n_devs.get("net_pcap", 0)
            self.n_devs["net_pcap"] = n + 1
            rx_path = self.dir / ("%s-in-%d.pcap" % (name, n))
            tx_path = self.dir / ("%s-out-%d.pcap" % (name, n))
            write_pcap(rx_path, rx or [])
            devargs = "net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (n, rx_path, tx_path)
            if re.search(r"\brxq 0\b", opts):
                # A send-only port: no rx_pcap (nfvd refuses one: net_pcap
                # would open it at probe and close it only with an RX queue).
                assert not rx, "a port with rxq 0 receives nothing"
                devargs = "net_pcap%d,tx_pcap=%s" % (n, tx_path)
            if infinite:
                devargs += ",infinite_rx=1"
            p = Port(name, "pcap", n, rx_path, tx_path, pcap_mac(self.n_pcap), devargs, opts)
            self.n_pcap += 1
        return p

    def add_port(self, name, rx=None, infinite=False, null=False, opts=""):
        """Adds a port to the startup file; rx: the frames it receives.
        Returns the port (its .mac is known in advance for pcap ports)."""
        p = self._new_port(name, rx, infinite, null, opts)
        self.ports[name] = p
        self.startup.append(p.command())
        return p

    def cmd(self, *lines):
        """Appends commands to the startup file."""
        self.startup.extend(lines)

    # ---- life cycle ---------------------------------------------------------------------

    def start(self, timeout=60.0):
        startup = self.dir / ("startup-%s.conf" % self.prefix)
        startup.write_text("# generated by tests/pkt\n" + "\n".join(self.startup) + "\n")
        if self.mem_args is not None:
            mem = self.mem_args
        elif HUGEPAGES and self.mem_mb is None:
            mem = ["--in-memory"]
        else:
            mem = ["--no-huge", "-m", str(self.mem_mb or EAL_MEM_MB), "--no-shconf"]
        argv = [str(NFVD)] + self.lcores + mem + [
            "--no-pci", "--file-prefix", self.prefix, "--", "-c", str(startup),
            "-s", str(self.sock), "-t", "180"]
        # None: nfvd's own defaults (sized to the memory it has).
        if self.max_routes4 is not None:
            argv += ["--max-routes4", str(self.max_routes4)]
        if self.max_routes6 is not None:
            argv += ["--max-routes6", str(self.max_routes6)]
        argv += [str(a) for a in self.extra_args]
        self.argv = argv
        self._logf = open(self.log_path, "w")
        self.proc = subprocess.Popen(argv, stdout=self._logf, stderr=subprocess.STDOUT,
                                     cwd=str(self.dir))
        deadline = time.monotonic() + timeout
        while True:
            log = self.log_path.read_text(errors="replace")
            if READY_LINE in log and self.sock.exists():
                return self
            if self.proc.poll() is not None:
                self._logf.close()
                raise AssertionError("nfvd exited with %d before it was ready:\n%s"
                                     % (self.proc.returncode, log[-4000:]))
            if time.monotonic() > deadline:
                self.proc.kill()   # a hung start-up must not hold its memory
                self.proc.wait()
                self._logf.close()
                raise AssertionError("nfvd not ready after %.0f s:\n%s" % (timeout, log[-4000:]))
            time.sleep(0.02)

    @property
    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=60.0):
        """SIGTERM, then checks exit code 0 and that every mbuf came home.
        Returns {port name: [frames transmitted, as bytes]} (pcap ports)."""
        assert self.proc is not None, "nfvd was not started"
        self._api_close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.exit_code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("nfvd did not exit within %.0f s of SIGTERM" % timeout)
        finally:
            self._logf.close()
            self._cleanup_dirs()
        self.log = self.log_path.read_text(errors="replace")
        assert self.exit_code == 0, "nfvd exit code %d (3: mbufs leaked):\n%s" % (
            self.exit_code, self.log[-4000:])
        assert MBUFS_OK_LINE in self.log, "no '%s' in the log:\n%s" % (MBUFS_OK_LINE,
                                                                       self.log[-4000:])
        return {name: read_pcap(p.tx_path) for name, p in self.ports.items()
                if p.kind == "pcap"}

    def kill(self):
        """Teardown of an instance a failed test left running."""
        self._api_close()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc is not None and not self._logf.closed:
            self._logf.close()
        self._cleanup_dirs()

    def _cleanup_dirs(self):
        shutil.rmtree(self.sockdir, ignore_errors=True)
        # EAL leaves an empty runtime directory named after our prefix.
        shutil.rmtree("/var/run/dpdk/%s" % self.prefix, ignore_errors=True)

    # ---- control ------------------------------------------------------------------------

    def ctl_result(self, *words, stdin=None, json_out=True):
        """Runs nfvctl and returns its exit code and output, whatever they are."""
        argv = [str(NFVCTL), "-s", str(self.sock)] + (["--json"] if json_out else []) + \
            [str(w) for w in words]
        proc = subprocess.run(argv, capture_output=True, text=True, input=stdin, timeout=120)
        return CtlResult(argv, proc)

    def ctl(self, *words):
        """One command; its JSON data, or CtlError when it fails.
        A single string is split on blanks: ctl("route show")."""
        if len(words) == 1 and " " in words[0]:
            words = tuple(words[0].split())
        r = self.ctl_result(*words)
        if r.rc != 0:
            raise CtlError(" ".join(words), r.rc, r.stdout, r.stderr)
        return r.json()

    def ctl_batch(self, lines):
        """Many commands through one nfvctl (-f -); stops at the first error."""
        r = self.ctl_result("-f", "-", stdin="\n".join(lines) + "\n", json_out=False)
        if r.rc != 0:
            raise CtlError("-f - (%d commands)" % len(lines), r.rc, r.stdout, r.stderr)
        return r

    def add_port_now(self, name, rx=None, opts=""):
        """Adds a pcap port while nfvd runs: it starts reading rx at once."""
        p = self._new_port(name, rx, opts=opts)
        self.ctl(*p.command().split())
        self.ports[name] = p
        return p

    def del_port_now(self, name):
        self.ctl("port", "del", name)
        return self.ports.pop(name)

    def api(self, line):
        """One command over a kept-open API connection (the JSON-lines protocol
        nfvctl speaks): for polling, where spawning nfvctl would dominate."""
        if self._api is None:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(self.sock))
            self._api = (s, s.makefile("rb"))
        s, rf = self._api
        s.sendall(json.dumps({"cmd": line}).encode() + b"\n")
        reply = json.loads(rf.readline())
        if not reply.get("ok"):
            raise CtlError(line, 1, json.dumps(reply), "")
        return reply["data"]

    def _api_close(self):
        if self._api is not None:
            self._api[1].close()
            self._api[0].close()
            self._api = None

    def stats(self):
        return self.api("show stats")

    def port_stats(self, st=None):
        st = st or self.stats()
        return {p["name"]: p for p in st["ports"]}

    def wait_processed(self, rx, timeout=30.0, settle=0.02):
        """Waits until each port in rx ({name: count}) received that many frames and
        every one of them went through the graph (no mbuf in use, counters still).
        Returns the final "show stats"."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            st = self.stats()
            ports = self.port_stats(st)
            done = all(ports[n]["rx_packets"] == c for n, c in rx.items())
            if done and st["tables"]["mbufs_in_use"] == 0:
                time.sleep(settle)
                st2 = self.stats()
                if strip_volatile(st2) == strip_volatile(st):
                    return st2
            last = st
            if time.monotonic() > deadline:
                raise AssertionError(
                    "traffic not drained after %.0f s: want rx %s; have rx %s, mbufs in use "
                    "%d, received+errors_sent-forwarded-dropped = %d\n%s" % (
                        timeout, rx, {n: p["rx_packets"] for n, p in ports.items()},
                        last["tables"]["mbufs_in_use"], balance(last),
                        json.dumps(last, indent=1)[:3000]))
            time.sleep(0.005)


def strip_volatile(st):
    """show stats without the fields that move while idle."""
    st = json.loads(json.dumps(st))
    st["packets"].pop("polls", None)
    st["packets"].pop("empty_polls", None)
    return st


def balance(st):
    """received + ICMP errors generated + fragments made - packets fragmented -
    fragments reassembled + datagrams reassembled - fragments held for
    reassembly - forwarded - dropped: 0 when every packet is accounted for
    (an ICMP error reuses the mbuf of the packet it is about, which is
    counted under its drop reason, and is then forwarded or dropped; a
    fragmented packet's fragments are forwarded in its place; a reassembled
    datagram is taken in the place of its fragments)."""
    pk = st["packets"]
    reasm = sum(st[f]["reassembled_fragments"] - st[f]["reassembled"] for f in ("ip4", "ip6"))
    return (pk["received"] + st["icmp"]["errors_sent"] + st["icmp6"]["errors_sent"]
            + st["ip4"]["fragments"] - st["ip4"]["fragmented"]
            + st["ip6"]["fragments"] - st["ip6"]["fragmented"]
            - reasm - st["tables"]["reassembly_held"]
            - pk["forwarded"] - pk["dropped"])


def zero_ip_ids(frames, which=lambda f: True):
    """(frames with the IPv4 identification of those which(f) picks set to
    0, header checksum redone; those identifications in order). nfvd
    numbers the datagrams it originates that may be fragmented (tunnels'
    outer packets) per worker from a random start: tests check the
    numbers apart and the rest byte for byte."""
    out, ids = [], []
    for f in frames:
        if len(f) >= 34 and f[12:14] == b"\x08\x00" and which(f):
            ihl = (f[14] & 0xF) * 4
            ids.append(int.from_bytes(f[18:20], "big"))
            h = bytearray(f[14:14 + ihl])
            h[4:6] = h[10:12] = b"\0\0"
            s = sum(int.from_bytes(h[i:i + 2], "big") for i in range(0, ihl, 2))
            while s >> 16:
                s = (s & 0xFFFF) + (s >> 16)
            h[10:12] = (~s & 0xFFFF).to_bytes(2, "big")
            f = f[:14] + bytes(h) + f[14 + ihl:]
        out.append(f)
    return out, ids


def udp_dport(f):
    """The UDP destination port of an IPv4 frame, else None."""
    if len(f) < 34 or f[12:14] != b"\x08\x00" or f[23] != 17:
        return None
    at = 14 + (f[14] & 0xF) * 4
    return int.from_bytes(f[at + 2:at + 4], "big") if len(f) >= at + 4 else None


def drops(st):
    """Counter {"node/reason": packets} of a "show stats" or "show drops"."""
    return Counter({"%s/%s" % (d["node"], d["reason"]): d["packets"] for d in st["drops"]})


def icmp_counters(st):
    """The ICMP counters of a "show stats", flattened: {"icmp.errors_sent": n, ...}."""
    out = {}
    for fam in ("icmp", "icmp6"):
        for k, v in st[fam].items():
            out["%s.%s" % (fam, k)] = v
    return out

