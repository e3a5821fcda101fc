#!/usr/bin/python3
"""Side-by-side forwarding benchmark: nfvd against DPDK's testpmd (io
forwarding, the I/O floor), l3fwd and l3fwd-graph.

Normally started by bench/run.sh, which builds the DPDK examples, generates
the traffic, sets up memory and measures the TSC rate, then calls:

    bench.py --work DIR --tsc-hz HZ --mem "EAL MEMORY ARGS" [CASE...]

Every application gets the same two ports, the same single forwarding lcore
and the same traffic; every rate is read from DPDK's own ethdev counters
through the telemetry socket, the same way for every application. Rounds are
interleaved (A B C A B C ...) and the figures are medians over the rounds.
See bench/README.md.
"""

import argparse
import contextlib
import datetime
import glob
import ipaddress
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

from telemetry import Telemetry

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
TOP_DIR = os.path.dirname(BENCH_DIR)

# The two ports, identical for every application.
IN_DEV = "net_pcap0"        # rx: the pcap replayed forever; tx: dropped by the PMD
OUT_DEV = "net_null1"       # tx sink; no-rx=1: never produces packets
OUT_DEVARGS = f"{OUT_DEV},no-rx=1"
# The output ports of the cases with several (198.18.K.0/24 leaves by port K):
# net_null1 (OUT_DEV) .. net_null4.
OUT_DEVS = [f"net_null{k}" for k in range(1, 5)]
OUT2_DEV = OUT_DEVS[1]
OUT2_DEVARGS = f"{OUT2_DEV},no-rx=1"
# net_pcap gives its ports 02:70:63:61:70:<n> ("\x02pcap" + index, counted per
# process); the only pcap port of each application is therefore ...:00.
DUT_MAC = "02:70:63:61:70:00"
NH_MAC = "02:00:00:00:00:02"   # next hop MAC, l3fwd --eth-dest and nfvd neigh
NH2_MAC = "02:00:00:00:00:03"  # the same on the second output port
NH_MACS = [f"02:00:00:00:00:{k + 1:02x}" for k in range(1, 5)]   # port K: ...:0(K+1)

# nfvd's addressing on the output port (benchmarking ranges only).
NFVD_V4_ADDR, NFVD_V4_NH = "198.19.0.1/24", "198.19.0.2"
NFVD_V6_ADDR, NFVD_V6_NH = "2001:200:0:ffff::1/64", "2001:200:0:ffff::2"
BGP_NEXTHOPS = [f"198.19.0.{i}" for i in range(2, 10)]

PREFIX_BASE = os.environ.get("BENCH_PREFIX", "nfvbench")  # DPDK --file-prefix of our processes


def log(msg):
    print(msg, flush=True)


@dataclass
class App:
    label: str              # column in the results
    kind: str               # testpmd | l3fwd | l3fwd-graph | nfvd
    argv: list
    prefix: str
    burst: str
    role: str = ""          # "floor" (testpmd io) or "reference" (l3fwd)
    note: str = ""
    startup_timeout: float = 60.0
    stop_signal: int = signal.SIGINT
    socket: str = ""        # nfvd API socket
    outs: int = 1           # output ports: net_null1 .. net_null<outs>
    out_devs: tuple = ()    # other output devices (their DPDK names) instead
    # Frames (hex) injected on nfvd's port "out" until its next hop is
    # resolved: the ARP reply of a neighbor that a null port cannot send.
    resolve: list = field(default_factory=list)
    # Packets leaving per packet in (fragments a datagram): the output
    # counts are divided by it, so that Mpps is datagrams forwarded.
    out_per_in: int = 1


@dataclass
class Case:
    name: str
    title: str
    traffic: str
    apps: list = field(default_factory=list)
    compare_to: str = ""    # extra "vs LABEL" column
    kind: str = "throughput"

    def __post_init__(self):
        # run.sh's BENCH_FLOWS: the generated pcaps' flows, not the usual 512.
        flows = os.environ.get("BENCH_FLOWS", "512")
        if flows != "512":
            self.traffic = self.traffic.replace("512 flows", f"{flows} flows")


class Env:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        self.bin = os.path.join(self.work, "bin")
        self.traffic = os.path.join(self.work, "traffic")
        self.logs = os.path.join(self.work, "logs")
        self.cfg = os.path.join(self.work, "cfg")
        for d in (self.logs, self.cfg):
            os.makedirs(d, exist_ok=True)
        self.mem = args.mem.split()
        self.tsc_hz = args.tsc_hz
        self.testpmd = shutil.which("dpdk-testpmd") or "/usr/bin/dpdk-testpmd"
        self.nfvd = os.environ.get("NFVD", os.path.join(TOP_DIR, "build/src/nfvd"))
        self.nfvctl = os.environ.get("NFVCTL", os.path.join(TOP_DIR, "build/src/nfvctl"))
        self.nfvd_extra = os.environ.get("NFVD_ARGS", "").split()
        # The baseline's own options, when set (even empty): an A/B of two
        # option sets on one build is --baseline HEAD with both variables.
        base_args = os.environ.get("NFVD_BASELINE_ARGS")
        self.nfvd_baseline_extra = (self.nfvd_extra if base_args is None
                                    else base_args.split())
        # --baseline REV of run.sh: nfvd built at another revision.
        self.nfvd_baseline = os.environ.get("NFVD_BASELINE", "")
        self.nfvd_baseline_rev = os.environ.get("NFVD_BASELINE_REV", "")
        # The output ports are send-only (rxq 0): the worker polls the input
        # port's queue alone, as l3fwd's --config (0,0,1) has it do.
        # NFVD_BASELINE_OUT_RXQ=1 gives the baseline's output ports an RX
        # queue each (polled for nothing: the map before rxq 0 existed).
        self.nfvd_baseline_out_rxq = int(os.environ.get("NFVD_BASELINE_OUT_RXQ", "0"))
        self.have_nfvd = os.access(self.nfvd, os.X_OK) and os.access(self.nfvctl, os.X_OK)

    def pcap(self, name):
        return os.path.join(self.traffic, name)

    def sock(self, name):
        path = os.path.join(self.work, f"{name}.sock")
        if len(path) > 100:       # sun_path limit
            path = f"/tmp/{PREFIX_BASE}-{name}.sock"
        return path


# ---------------------------------------------------------------- apps

def eal_args(env, prefix, lcores, in_devargs, outs=1):
    args = ["-l", lcores, "--file-prefix", prefix, "--no-pci"] + env.mem
    if in_devargs:
        args += ["--vdev", in_devargs]
        for dev in OUT_DEVS[:outs]:
            args += ["--vdev", f"{dev},no-rx=1"]
    return args


def pcap_devargs(pcap, extra_rx_queue=False):
    d = f"{IN_DEV},rx_pcap={pcap}"
    if extra_rx_queue:
        d += f",rx_pcap={pcap}"
    return d + ",infinite_rx=1"


def app_testpmd(env, pcap, burst, outs=1):
    prefix = f"{PREFIX_BASE}-testpmd"
    # With three ports, "chained" keeps port 0 -> port 1 (and 1 -> 2, 2 -> 0,
    # which never receive): io forwarding does not look at destinations.
    argv = [env.testpmd] + eal_args(env, prefix, "0,1", pcap_devargs(pcap), outs) + [
        "--", "--forward-mode=io", "--nb-cores=1", f"--burst={burst}",
        "--rxd=1024", "--txd=1024", "--stats-period=86400"] + (
        ["--port-topology=chained"] if outs > 1 else [])
    return App("testpmd-io", "testpmd", argv, prefix, str(burst), role="floor",
               note="io forwarding, no packet access (I/O floor)"
               + ("; everything to port 1" if outs > 1 else ""), outs=outs)


def app_l3fwd(env, pcap, burst, ipv6=False, outs=1):
    prefix = f"{PREFIX_BASE}-l3fwd"
    binary = os.path.join(env.bin, f"l3fwd-b{burst}")
    # lcore 1 only: net_pcap with rx_pcap alone has one TX queue and l3fwd
    # wants one per lcore; its main lcore is then the forwarding lcore.
    argv = [binary] + eal_args(env, prefix, "1", pcap_devargs(pcap), outs) + [
        "--", "-p", hex((2 << outs) - 1), "--config", "(0,0,1)", "--parse-ptype"] + [
        f"--eth-dest={k},{NH_MACS[k - 1]}" for k in range(1, outs + 1)] + (
        ["--ipv6"] if ipv6 else [])
    return App("l3fwd", "l3fwd", argv, prefix, str(burst), role="reference",
               note="LPM, software ptype (--parse-ptype), no RX checksum offload"
               + ("; a TX buffer per port, flushed when full (32) or on its drain timer"
                  if outs > 1 else ""), outs=outs)


def app_l3fwd_graph(env, pcap, outs=1):
    prefix = f"{PREFIX_BASE}-l3fwd-graph"
    # l3fwd-graph runs its graph on a worker only and sets up one TX queue per
    # lcore (2); a second rx_pcap gives net_pcap0 a second (unused) queue pair.
    argv = [os.path.join(env.bin, "l3fwd-graph")] + eal_args(
        env, prefix, "0,1", pcap_devargs(pcap, extra_rx_queue=True), outs) + [
        "--", "-p", hex((2 << outs) - 1), "--config", "(0,0,1)"] + [
        f"--eth-dest={k},{NH_MACS[k - 1]}" for k in range(1, outs + 1)]
    return App("l3fwd-graph", "l3fwd-graph", argv, prefix, "256 (RTE_GRAPH_BURST_SIZE)",
               note="rte_graph + librte_node; its burst is fixed by the library", outs=outs)


def nfvd_config(env, name, pcap, family=4, routes_file=None, extra=(), outs=1, learned=False,
                in_devargs=None, out_rxq=0):
    # Output ports: send-only sinks (rxq 0), not polled, as in l3fwd's map.
    oq = f" rxq {out_rxq}"
    lines = [
        "# generated by bench/bench.py",
        f"port add in dev {in_devargs or pcap_devargs(pcap)} rxd 1024 txd 1024",
        f"port add out dev {OUT_DEVARGS} rxd 1024 txd 1024{oq}",
    ]
    for k in range(2, outs + 1):
        lines += [f"port add out{k} dev {OUT_DEVS[k - 1]},no-rx=1 rxd 1024 txd 1024{oq}",
                  f"addr add 198.19.{k - 1}.1/24 dev out{k}",
                  f"neigh add 198.19.{k - 1}.2 lladdr {NH_MACS[k - 1]} dev out{k}",
                  f"route add 198.18.{k}.0/24 via 198.19.{k - 1}.2"]
    if family == 4 and learned:
        # No neighbor typed in: resolved by ARP (the reply injected, see
        # App.resolve). Reachable for an hour: the null port never answers
        # the probes that would follow the default 15-45 s.
        lines += [f"addr add {NFVD_V4_ADDR} dev out",
                  "neigh set reachable 3600000",
                  f"route add 198.18.1.0/24 via {NFVD_V4_NH}"]
    elif family == 4:
        lines += [f"addr add {NFVD_V4_ADDR} dev out",
                  f"neigh add {NFVD_V4_NH} lladdr {NH_MAC} dev out",
                  f"route add 198.18.1.0/24 via {NFVD_V4_NH}"]
    else:
        lines += [f"addr add {NFVD_V6_ADDR} dev out",
                  f"neigh add {NFVD_V6_NH} lladdr {NH_MAC} dev out",
                  f"route add 2001:200:0:1::/64 via {NFVD_V6_NH}"]
    if routes_file:
        for i, nh in enumerate(BGP_NEXTHOPS):
            lines.append(f"neigh add {nh} lladdr 02:00:00:00:01:{i:02x} dev out")
        lines.append(f"route load {routes_file}")
    lines += list(extra)
    path = os.path.join(env.cfg, f"{name}.conf")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def arp_reply_hex(ip_src, mac_src, ip_dst):
    """An ARP reply from ip_src/mac_src to ip_dst, broadcast, as hex."""
    from scapy.layers.l2 import ARP, Ether
    return bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src=mac_src) /
                 ARP(op=2, hwsrc=mac_src, psrc=ip_src, hwdst="ff:ff:ff:ff:ff:ff",
                     pdst=ip_dst)).hex()


def app_nfvd(env, name, pcap, label="nfvd", family=4, routes_file=None,
             startup_timeout=60.0, burst=32, stats=True, binary=None, note="", outs=1,
             learned=False, extra=(), extra_args=(), in_devargs=None, env_args=None,
             out_rxq=0, out_per_in=1):
    prefix = f"{PREFIX_BASE}-{name}"
    conf = nfvd_config(env, name, pcap, family, routes_file,
                       extra=(() if stats else ("stats off",)) + tuple(extra), outs=outs,
                       learned=learned, in_devargs=in_devargs, out_rxq=out_rxq)
    sock = env.sock(name)
    # lcore 0: control thread, lcore 1: the only worker. Ports come from the
    # startup file (probed at run time), not from --vdev.
    argv = [binary or env.nfvd] + eal_args(env, prefix, "0,1", None) + [
        "--", "-c", conf, "-s", sock, "-b", str(burst)] + list(extra_args) + (
        env.nfvd_extra if env_args is None else env_args)
    resolve = [arp_reply_hex(NFVD_V4_NH, NH_MAC, NFVD_V4_ADDR.split("/")[0])] if learned else []
    opts = env.nfvd_extra if env_args is None else env_args
    if opts:
        note += f"; options {' '.join(opts)}"
    return App(label, "nfvd", argv, prefix, str(burst), socket=sock,
               startup_timeout=startup_timeout, stop_signal=signal.SIGTERM,
               note="full router graph" + (", 1M routes" if routes_file else "")
               + ("; output ports send-only (rxq 0): in:0 the only queue polled, as in "
                  "l3fwd's map" if out_rxq == 0 else "; output ports' queues polled too")
               + ("" if stats else "; 'stats off': no node, burst or latency counters")
               + ("; next hop learned by ARP, no 'neigh add'" if learned else "")
               + note, outs=outs, resolve=resolve, out_per_in=out_per_in)


def resolve_neighbors(env, app, timeout=20.0):
    """Injects app.resolve on port "out" until no neighbor of nfvd is
    unresolved: the traffic makes nfvd ask (an incomplete entry), the
    injected reply answers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for frame in app.resolve:
            nfvctl(env, app.socket, "punt", "inject", "dev", "out", "hex", frame, timeout=30)
        time.sleep(0.3)
        n = nfvctl_json(env, app.socket, "neigh", "show").get("neighbors", [])
        if n and all(x.get("state") == "reachable" for x in n):
            return
    raise RuntimeError("next hop not resolved by the injected ARP reply")


def app_nfvd_lcp(env, name, pcap, label, punt=False):
    """nfvd with kernel twins (lcp), in nfvd's own network namespace.
    Forwarding: twins of both ports (two more RX queues for the worker to
    poll), traffic routed as in the plain case; the output port send-only
    (rxq 0), as in the plain case, so that the twins' queues are the only
    difference. Punt (punt=True): the
    output the driver counts is the input port's twin, and the traffic is
    UDP to nfvd's own address on the input port, to a port it does not
    serve: every frame goes to the kernel (policer wide open)."""
    prefix = f"{PREFIX_BASE}-{name}"
    if punt:
        lines = [f"port add in dev {pcap_devargs(pcap)} rxd 1024 txd 1024",
                 f"port add out dev {OUT_DEVARGS} rxd 1024 txd 1024 rxq 0",
                 "addr add 198.18.0.1/24 dev in",
                 "lcp add dev in host-if nfvbenchtw0 punt-rate 100000000 "
                 "punt-burst 1000000"]
    else:
        lines = [f"port add in dev {pcap_devargs(pcap)} rxd 1024 txd 1024",
                 f"port add out dev {OUT_DEVARGS} rxd 1024 txd 1024 rxq 0",
                 f"addr add {NFVD_V4_ADDR} dev out",
                 "addr add 198.18.0.1/24 dev in",
                 f"neigh add {NFVD_V4_NH} lladdr {NH_MAC} dev out",
                 f"route add 198.18.1.0/24 via {NFVD_V4_NH}",
                 "lcp add dev in host-if nfvbenchtw0",
                 "lcp add dev out host-if nfvbenchtw1"]
    conf = os.path.join(env.cfg, f"{name}.conf")
    with open(conf, "w") as f:
        f.write("# generated by bench/bench.py\n" + "\n".join(lines) + "\n")
    sock = env.sock(name)
    argv = [env.nfvd] + eal_args(env, prefix, "0,1", None) + [
        "--", "-c", conf, "-s", sock, "-b", "32"] + env.nfvd_extra
    # The twin of port 0 is the device net_tap_lcp0.
    return App(label, "nfvd", argv, prefix, "32", socket=sock, stop_signal=signal.SIGTERM,
               out_devs=("net_tap_lcp0",) if punt else (),
               note="punt path: UDP to nfvd's address, counted at the twin's TX" if punt
               else "full router graph, kernel twins on both ports")


def app_nfvd_baseline(env, name, pcap, family=4, outs=1):
    """The same nfvd set-up on the baseline build (run.sh --baseline REV)."""
    return app_nfvd(env, name, pcap, label="nfvd-baseline", family=family,
                    binary=env.nfvd_baseline, env_args=env.nfvd_baseline_extra,
                    note=f"; built at {env.nfvd_baseline_rev} (before)"
                    + ("; output ports polled (rxq 1)" if env.nfvd_baseline_out_rxq else ""),
                    outs=outs, out_rxq=env.nfvd_baseline_out_rxq)


# ------------------------------------------------------------- process

def cleanup_prefix(prefix):
    """Remove what a killed DPDK process may leave behind for its prefix."""
    shutil.rmtree(os.path.join("/var/run/dpdk", prefix), ignore_errors=True)
    for mnt in hugetlbfs_mounts():
        for f in glob.glob(os.path.join(mnt, f"{prefix}map_*")):
            try:
                os.unlink(f)
            except OSError:
                pass


def hugetlbfs_mounts():
    with open("/proc/mounts") as f:
        return [ln.split()[1] for ln in f if ln.split()[2] == "hugetlbfs"]


class AppProcess:
    """One run of one application, stopped (and reaped) on exit."""

    def __init__(self, env, app, tag):
        self.env, self.app = env, app
        self.log_path = os.path.join(env.logs, f"{tag}.log")
        self.proc = None
        self.tel = None
        self.exit_code = None

    def __enter__(self):
        cleanup_prefix(self.app.prefix)
        if self.app.socket and os.path.exists(self.app.socket):
            os.unlink(self.app.socket)
        self.logf = open(self.log_path, "w")
        self.logf.write("$ " + " ".join(self.app.argv) + "\n")
        self.logf.flush()
        try:
            self.proc = subprocess.Popen(self.app.argv, stdout=self.logf,
                                         stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL,
                                         cwd=self.env.work, start_new_session=True)
        except OSError:
            self.logf.close()
            raise
        return self

    def alive(self):
        return self.proc.poll() is None

    def connect(self):
        """Telemetry connection and the port ids, once every port exists."""
        deadline = time.monotonic() + self.app.startup_timeout
        self.tel = Telemetry.wait_for_prefix(self.app.prefix, self.app.startup_timeout,
                                             self.alive)
        outs = list(self.app.out_devs) or OUT_DEVS[:self.app.outs]
        while True:
            ports = self.tel.ports()
            if all(d in ports for d in [IN_DEV] + outs):
                self.pin, self.pouts = ports[IN_DEV], [ports[d] for d in outs]
                break
            if not self.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"ports {IN_DEV}/{'/'.join(outs)} not found: {ports}")
            time.sleep(0.2)
        self.in_mac = (self.tel.port_info(self.pin) or {}).get("mac_addr", "?")
        return self

    def wait_forwarding(self):
        deadline = time.monotonic() + self.app.startup_timeout
        first = None
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError("exited while starting")
            n = self.out_stats()["opackets"]
            if first is None:
                first = n
            elif n > first:
                return
            time.sleep(0.2)
        raise RuntimeError(f"no packet forwarded within {self.app.startup_timeout:.0f} s"
                           f" (input MAC {self.in_mac}, frames go to {DUT_MAC})")

    def out_stats(self):
        """opackets and oerrors of the output ports, summed."""
        st = [self.tel.stats(p) for p in self.pouts]
        return {k: sum(x[k] for x in st) for k in ("opackets", "oerrors")}

    def sample(self):
        """The ports' counters at one instant: the output ports are read just
        before and just after the input port and the two readings averaged,
        so that the packets forwarded while the queries run do not show up
        as loss."""
        s_out1 = self.out_stats()
        s_in = self.tel.stats(self.pin)
        t = time.monotonic()
        s_out2 = self.out_stats()
        return {"t": t, "ipackets": s_in["ipackets"], "rx_nombuf": s_in["rx_nombuf"],
                "ierrors": s_in["ierrors"],
                "opackets": (s_out1["opackets"] + s_out2["opackets"]) // 2,
                "oerrors": s_out2["oerrors"]}

    def thread_cpu(self):
        """CPU seconds of each thread of the application, by thread id."""
        out = {}
        tick = os.sysconf("SC_CLK_TCK")
        for d in glob.glob(f"/proc/{self.proc.pid}/task/*/stat"):
            try:
                with open(d) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out[d] = (int(fields[11]) + int(fields[12])) / tick   # utime + stime
        return out

    def load_mark(self):
        return self.thread_cpu(), machine_busy_seconds(), own_cpu_seconds(), time.monotonic()

    def load_since(self, mark):
        """(worker_cpu, other_cpu) since mark: the share of a CPU that the
        busiest thread of the application (its forwarding lcore) got, and the
        CPUs' worth of time everything else on the machine (not this
        application, not this driver) used. worker_cpu below ~0.95 or
        other_cpu above ~0.1 means the measurement was disturbed."""
        cpu0, busy0, own0, w0 = mark
        cpu1, busy1, own1, w1 = self.load_mark()
        wall = w1 - w0
        deltas = [cpu1[k] - cpu0.get(k, 0.0) for k in cpu1]
        worker = max(deltas, default=0.0) / wall
        other = max(0.0, (busy1 - busy0) - sum(deltas) - (own1 - own0)) / wall
        return round(worker, 3), round(other, 3)

    def measure(self, seconds):
        """Samples once a second; the last one carries worker_cpu and
        other_cpu (see load_since)."""
        mark = self.load_mark()
        samples = [self.sample()]
        end = samples[0]["t"] + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            time.sleep(min(1.0, left))
            samples.append(self.sample())
        samples[-1]["worker_cpu"], samples[-1]["other_cpu"] = self.load_since(mark)
        return samples

    def __exit__(self, *exc):
        if self.tel:
            try:
                self.tel.close()
            except OSError:
                pass
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, self.app.stop_signal)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                log(f"    {self.app.label} did not stop within 20 s: SIGKILL")
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.exit_code = self.proc.returncode if self.proc else None
        self.logf.close()
        cleanup_prefix(self.app.prefix)
        return False


def machine_busy_seconds():
    """CPU seconds all CPUs spent not idle since boot (/proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal ...
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def window(samples, out_per_in=1):
    """Rates and loss between the first and the last sample; out_per_in:
    packets out per packet in (App.out_per_in), the output counted in
    packets in."""
    a, b = samples[0], samples[-1]
    dt = b["t"] - a["t"]
    d_in = b["ipackets"] - a["ipackets"]
    d_out = (b["opackets"] - a["opackets"]) / out_per_in
    per_sec = [(y["opackets"] - x["opackets"]) / out_per_in / (y["t"] - x["t"]) / 1e6
               for x, y in zip(samples, samples[1:])]
    return {"seconds": dt, "in_packets": d_in, "out_packets": d_out,
            "in_mpps": d_in / dt / 1e6, "mpps_mean": d_out / dt / 1e6,
            # The run's figure: median of its one-second rates, robust to a
            # second disturbed by something else on the machine.
            "mpps": statistics.median(per_sec) if per_sec else d_out / dt / 1e6,
            "forwarded": d_out / d_in if d_in else 0.0,
            "not_forwarded": d_in - d_out,
            "rx_nombuf": b["rx_nombuf"] - a["rx_nombuf"],
            "oerrors": b["oerrors"] - a["oerrors"],
            "worker_cpu": b.get("worker_cpu"), "other_cpu": b.get("other_cpu"),
            "per_second_mpps": [round(x, 4) for x in per_sec]}


def nfvctl(env, sock, *words, timeout=600):
    t0 = time.monotonic()
    r = subprocess.run([env.nfvctl, "-s", sock, *words], capture_output=True,
                       text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout + r.stderr, time.monotonic() - t0


def nfvctl_json(env, sock, *words):
    rc, out, _ = nfvctl(env, sock, "--json", *words, timeout=30)
    if rc != 0:
        return {"error": out.strip()}
    try:
        return json.loads(out)
    except ValueError:
        return {"raw": out}


# --------------------------------------------------------------- cases

def build_cases(env):
    p = env.pcap
    std_traffic = ("512 flows IPv4/UDP, {size} B frames, to 198.18.1.0/24 "
                   "(l3fwd's default LPM route to port 1)")
    cases = {}

    def v4(size, burst):
        pcap = p(f"ipv4-{size}.pcap")
        apps = [app_testpmd(env, pcap, burst), app_l3fwd(env, pcap, burst),
                app_l3fwd_graph(env, pcap)]
        if env.have_nfvd:
            apps.append(app_nfvd(env, f"nfvd-v4-{size}", pcap, burst=burst))
            if size == 64 and burst == 32:   # what the counters cost
                apps.append(app_nfvd(env, "nfvd-v4-nostats", pcap, label="nfvd-stats-off",
                                     burst=burst, stats=False))
                if env.nfvd_baseline:
                    apps.append(app_nfvd_baseline(env, "nfvd-v4-baseline", pcap))
        return apps

    cases["ipv4-64-b32"] = Case("ipv4-64-b32", "IPv4 64 B, burst 32",
                                std_traffic.format(size=64), v4(64, 32))
    cases["ipv4-64-b64"] = Case("ipv4-64-b64", "IPv4 64 B, burst 64",
                                std_traffic.format(size=64), v4(64, 64))
    cases["ipv4-512"] = Case("ipv4-512", "IPv4 512 B, burst 32",
                             std_traffic.format(size=512), v4(512, 32))

    # Destinations interleaved within every burst: 198.18.1.0/24 (port 1) and
    # 198.18.2.0/24 (port 2) in turn (the default case: ordinary traffic),
    # or over four ports. What a per-port TX buffer is for.
    def interleaved(outs, stats_off=False):
        pcap = p("ipv4-64-2ports.pcap" if outs == 2 else f"ipv4-64-{outs}ports.pcap")
        apps = [app_testpmd(env, pcap, 32, outs=outs), app_l3fwd(env, pcap, 32, outs=outs),
                app_l3fwd_graph(env, pcap, outs=outs)]
        if env.have_nfvd:
            apps.append(app_nfvd(env, f"nfvd-v4-{outs}ports", pcap, outs=outs))
            if stats_off:
                apps.append(app_nfvd(env, f"nfvd-v4-{outs}ports-nostats", pcap,
                                     label="nfvd-stats-off", stats=False, outs=outs))
            if env.nfvd_baseline:
                apps.append(app_nfvd_baseline(env, f"nfvd-v4-{outs}ports-baseline", pcap,
                                              outs=outs))
        return apps

    cases["ipv4-64-2ports"] = Case(
        "ipv4-64-2ports", "IPv4 64 B, burst 32, destinations alternating between two ports",
        "512 flows IPv4/UDP, 64 B frames, to 198.18.1.0/24 (port 1) and 198.18.2.0/24 "
        "(port 2) in turn (l3fwd's default LPM routes), so every burst is interleaved; "
        f"port 2 is `{OUT2_DEVARGS}`, a second sink; Mpps counts both output ports",
        interleaved(2, stats_off=True))
    cases["ipv4-64-4ports"] = Case(
        "ipv4-64-4ports", "IPv4 64 B, burst 32, destinations in turn over four ports",
        "512 flows IPv4/UDP, 64 B frames, to 198.18.1.0/24 .. 198.18.4.0/24 (ports 1-4) "
        "in turn, every burst interleaved over four `net_null` sinks; Mpps counts all "
        "four output ports", interleaved(4))

    # What nfvd's own accounting costs (per-node calls, packets and sampled
    # cycles, burst histograms, RX-to-TX latency): stats on against off,
    # interleaved traffic, nothing else in the rounds.
    pcap2 = p("ipv4-64-2ports.pcap")
    if env.have_nfvd:
        cases["stats-cost"] = Case(
            "stats-cost", "nfvd with its statistics on and off (IPv4 64 B, two ports)",
            "the ipv4-64-2ports traffic",
            [app_nfvd(env, "nfvd-v4-stats", pcap2, outs=2),
             app_nfvd(env, "nfvd-v4-stats-off", pcap2, label="nfvd-stats-off", stats=False,
                      outs=2)],
            compare_to="nfvd")

    pcap6 = p("ipv6-64.pcap")
    apps6 = [app_testpmd(env, pcap6, 32), app_l3fwd(env, pcap6, 32, ipv6=True)]
    if env.have_nfvd:
        apps6.append(app_nfvd(env, "nfvd-v6-64", pcap6, family=6))
        if env.nfvd_baseline:
            apps6.append(app_nfvd_baseline(env, "nfvd-v6-baseline", pcap6, family=6))
    cases["ipv6-64"] = Case("ipv6-64", "IPv6 64 B, burst 32 (l3fwd --ipv6)",
                            "512 flows IPv6/UDP, 64 B frames, to 2001:200:0:1::/64 "
                            "(l3fwd's default LPM6 route to port 1); no l3fwd-graph: "
                            "DPDK 22.11's librte_node has no IPv6 nodes", apps6)

    # Forwarding with a learned next hop (ARP) against a static one.
    pcap = p("ipv4-64.pcap")
    if env.have_nfvd:
        cases["ipv4-64-learned"] = Case(
            "ipv4-64-learned", "IPv4 64 B, burst 32: next hop learned by ARP vs static",
            std_traffic.format(size=64) + "; nfvd-learned has no 'neigh add': the first "
            "packets make it send an ARP request, the reply (injected on the output port, "
            "which cannot answer) resolves the next hop",
            [app_l3fwd(env, pcap, 32), app_nfvd(env, "nfvd-v4-static", pcap),
             app_nfvd(env, "nfvd-v4-learned", pcap, label="nfvd-learned", learned=True)],
            compare_to="nfvd")
        # The punt path: ARP requests for nfvd's address, answered by the
        # control thread, at the policer's default rate and with it raised.
        arp_pcap = p("arp-requests.pcap")
        punt_cfg = ["addr add 198.20.0.1/24 dev in"]
        cases["punt-arp"] = Case(
            "punt-arp", "nfvd: ARP requests answered per second (the punt path)",
            "endless ARP requests for 198.20.0.1 (an address of the input port) from 256 "
            "senders; replies leave the input port (dropped by the PMD)",
            [app_nfvd(env, "nfvd-punt-default", arp_pcap, label="policer default",
                      extra=punt_cfg),
             app_nfvd(env, "nfvd-punt-raised", arp_pcap, label="policer 10M/s",
                      extra=punt_cfg + ["punt set arp rate 10000000 burst 100000"])],
            kind="punt")

    routes = p("routes-1m.txt")
    pcap = p("ipv4-64.pcap")
    spread = p("ipv4-64-1m-spread.pcap")
    apps1m = [app_testpmd(env, pcap, 32), app_l3fwd(env, pcap, 32)]
    if env.have_nfvd:
        apps1m += [
            app_nfvd(env, "nfvd-small", pcap, label="nfvd"),
            app_nfvd(env, "nfvd-1m", pcap, label="nfvd-1M", routes_file=routes,
                     startup_timeout=600),
            app_nfvd(env, "nfvd-1m-spread", spread, label="nfvd-1M-spread",
                     routes_file=routes, startup_timeout=600)]
    cases["ipv4-1m"] = Case(
        "ipv4-1m", "IPv4 64 B with 1,000,000 BGP-like routes (nfvd)",
        "nfvd-1M: the 512 standard flows (198.18.1.0/24) with 1M more routes "
        "loaded; nfvd-1M-spread: 1024 flows, each to a random one of the 1M "
        "routes (many distinct table entries, cache misses); testpmd, l3fwd and "
        "nfvd: standard flows, small table", apps1m,
        compare_to="nfvd", kind="throughput")

    # Visibility features against plain routing, same run: flow statistics
    # on every port, and captures whose filter matches nothing (the
    # filter runs on every frame, nothing is copied).
    if env.have_nfvd:
        nomatch = "tcp port 9"
        cap_in = os.path.join(env.work, "bench-capture-in.pcapng")
        cap_out = os.path.join(env.work, "bench-capture-out.pcapng")
        vis_apps = [
            app_testpmd(env, pcap, 32), app_l3fwd(env, pcap, 32),
            app_nfvd(env, "nfvd-vis-plain", pcap, label="nfvd"),
            app_nfvd(env, "nfvd-vis-flow", pcap, label="nfvd-flow",
                     extra=["flow enable"], note="; flow statistics on"),
            app_nfvd(env, "nfvd-vis-capture", pcap, label="nfvd-capture",
                     extra=[f'capture start dev in in file {cap_in} filter "{nomatch}"',
                            f'capture start dev out out file {cap_out} filter "{nomatch}"'],
                     note=f"; captures in and out, filter '{nomatch}'")]
        if env.nfvd_baseline:
            # Plain and flow statistics on the baseline build too: a change
            # to a feature measured against the feature before it.
            vis_apps += [
                app_nfvd_baseline(env, "nfvd-vis-plain-baseline", pcap),
                app_nfvd(env, "nfvd-vis-flow-baseline", pcap, label="nfvd-flow-baseline",
                         binary=env.nfvd_baseline, env_args=env.nfvd_baseline_extra,
                         extra=["flow enable"],
                         note=f"; flow statistics on; built at {env.nfvd_baseline_rev} "
                         "(before)")]
        cases["ipv4-64-visibility"] = Case(
            "ipv4-64-visibility", "IPv4 64 B: flow statistics, capture (filter matching "
            "nothing) against plain routing",
            std_traffic.format(size=64) + "; nfvd-flow: flow enable (512 flows, every "
            f"frame counted); nfvd-capture: captures on both ports with filter '{nomatch}' "
            "(in on the input, out on the output: both arcs, nothing matches)",
            vis_apps, compare_to="nfvd")

    if env.have_nfvd:
        # Firewall: 1,000 ACL rules on the input port's ingress and the output
        # port's egress (none matches the traffic but the last, a permit),
        # against the same build without them; and the traffic as flows of
        # a reflect rule (every packet a connection-table hit after the first).
        cases["ipv4-acl"] = Case(
            "ipv4-acl", "IPv4 64 B, 1,000 ACL rules attached in and out; conntrack",
            std_traffic.format(size=64) + "; nfvd-acl-1000: ACL 'fin' (1,000 rules) on "
            "port in, ingress, and 'fout' (1,000 rules) on port out, egress: 999 rules "
            "that miss the traffic (random 5-tuples, prefixes /8-/32, port ranges), then "
            "a permit; nfvd-ct-established: one reflect rule on port in, the 512 flows "
            "found in the connection table", [
                app_nfvd(env, "nfvd-noacl", pcap, label="nfvd"),
                app_nfvd(env, "nfvd-acl", pcap, label="nfvd-acl-1000",
                         extra=acl_lines(1000)),
                app_nfvd(env, "nfvd-ct", pcap, label="nfvd-ct-established",
                         extra=["acl add fin", "acl rule add fin prio 1 action reflect",
                                      "acl attach fin dev in in"])] + ([
                app_nfvd(env, "nfvd-acl-baseline", pcap, label="nfvd-acl-1000-baseline",
                         binary=env.nfvd_baseline, env_args=env.nfvd_baseline_extra,
                         extra=acl_lines(1000),
                         note=f"; the same ACLs; built at {env.nfvd_baseline_rev} (before)")]
                if env.nfvd_baseline else []),
            compare_to="nfvd")
        # The same on IPv6: 1,000 IPv6 rules in and out against plain IPv6.
        cases["ipv6-acl"] = Case(
            "ipv6-acl", "IPv6 64 B, 1,000 ACL rules attached in and out",
            "512 flows IPv6/UDP, 64 B frames, to 2001:200:0:1::/64; nfvd-acl6-1000: ACL "
            "'fin' (1,000 rules) on port in, ingress, and 'fout' (1,000 rules) on port out, "
            "egress: 999 IPv6 rules that miss the traffic (random prefixes /48-/128 in "
            "2001:db8::/32, port ranges), then a permit", [
                app_nfvd(env, "nfvd-noacl6", pcap6, label="nfvd", family=6),
                app_nfvd(env, "nfvd-acl6", pcap6, label="nfvd-acl6-1000", family=6,
                         extra=acl_lines(1000, family=6))],
            compare_to="nfvd")
        # NAT44: the 512 flows (sources 198.19.0.0/16) translated to the
        # output port's address: the egress feature and a session hit per
        # packet, against plain routing.
        cases["ipv4-nat"] = Case(
            "ipv4-nat", "IPv4 64 B through source NAT44 against plain routing",
            std_traffic.format(size=64) + "; nfvd-snat: nat44 snat add src 198.19.0.0/16 "
            "dev out (512 sessions, every packet a session hit after the first)", [
                app_nfvd(env, "nfvd-nonat", pcap, label="nfvd"),
                app_nfvd(env, "nfvd-snat", pcap, label="nfvd-snat",
                         extra=["nat44 snat add src 198.19.0.0/16 dev out"],
                         note="; source NAT on port out")],
            compare_to="nfvd")
        # Bridging and VXLAN against plain routing: in and out in a bridge
        # (the traffic's destination MAC is never learned: flooded to the
        # one other port, which costs what known unicast does plus the
        # walk over the ports); in bridged with a VXLAN interface whose one
        # remote is reached through out (encapsulation); VXLAN datagrams to
        # in's address, decapsulated and bridged to out.
        cases["bridge-vxlan"] = Case(
            "bridge-vxlan", "IPv4 64 B bridged, encapsulated and decapsulated (VXLAN) "
            "against plain routing",
            std_traffic.format(size=64) + "; nfvd-vxlan-decap: the same frames inside VXLAN "
            "(VNI 100, 114 B) from 198.18.0.2 to 198.18.0.1 (in's address)", [
                app_nfvd(env, "nfvd-plain", pcap, label="nfvd"),
                app_nfvd(env, "nfvd-bridge", pcap, label="nfvd-bridge",
                         extra=["bridge add br0", "bridge port add br0 dev in",
                                "bridge port add br0 dev out"],
                         note="; in and out bridged"),
                app_nfvd(env, "nfvd-vxlan-encap", pcap, label="nfvd-vxlan-encap",
                         extra=[f"vxlan add vx0 vni 100 local 198.19.0.1 remote {NFVD_V4_NH}",
                                "bridge add br0", "bridge port add br0 dev in",
                                "bridge port add br0 dev vx0"],
                         note="; in bridged with vx0, encapsulated to 198.19.0.2 via out"),
                # The same with a capture of the tunnel (bridge_input's tap:
                # its inner frames, both ways) whose filter matches nothing.
                app_nfvd(env, "nfvd-vxlan-capture", pcap, label="nfvd-vxlan-capture",
                         extra=[f"vxlan add vx0 vni 100 local 198.19.0.1 remote {NFVD_V4_NH}",
                                "bridge add br0", "bridge port add br0 dev in",
                                "bridge port add br0 dev vx0",
                                "capture start dev vx0 both file "
                                + os.path.join(env.work, "bench-capture-vx0.pcapng")
                                + ' filter "tcp port 9"'],
                         note="; as nfvd-vxlan-encap, and a capture of vx0 both ways, "
                         "filter 'tcp port 9' (matches nothing)"),
                app_nfvd(env, "nfvd-vxlan-decap", p("ipv4-64-vxlan.pcap"),
                         label="nfvd-vxlan-decap",
                         extra=["addr add 198.18.0.1/24 dev in",
                                "vxlan add vx0 vni 100 local 198.18.0.1", "bridge add br0",
                                "bridge port add br0 dev vx0", "bridge port add br0 dev out"],
                         note="; VXLAN to in's address, bridged to out")],
            compare_to="nfvd")
        # IPv4 fragmentation (RFC 1812 5.2.6): 1,500-byte datagrams without
        # DF out of a port whose MTU is 1,000 (two fragments each: 996 and
        # 524 bytes, new mbufs, the original freed), against the same
        # datagrams routed whole out of the port at its MTU of 1,500.
        cases["ipv4-frag"] = Case(
            "ipv4-frag", "IPv4 1,514 B frames fragmented (output MTU 1,000) against routed "
            "whole",
            std_traffic.format(size=1514) + ", DF clear; nfvd-frag: port out's MTU 1,000, "
            "every datagram cut in two fragments (996 and 524 bytes); its Mpps counts "
            "datagrams (fragments out / 2); its per-node table counts fragments", [
                app_nfvd(env, "nfvd-nofrag", p("ipv4-1514.pcap"), label="nfvd"),
                app_nfvd(env, "nfvd-frag", p("ipv4-1514.pcap"), label="nfvd-frag",
                         extra=["port set out mtu 1000"], out_per_in=2,
                         note="; port out's MTU 1,000: two fragments a datagram")] + ([
                app_nfvd(env, "nfvd-frag-baseline", p("ipv4-1514.pcap"),
                         label="nfvd-frag-baseline", binary=env.nfvd_baseline,
                         env_args=env.nfvd_baseline_extra, extra=["port set out mtu 1000"],
                         out_per_in=2, note="; port out's MTU 1,000; built at "
                         f"{env.nfvd_baseline_rev} (before)")] if env.nfvd_baseline else []),
            compare_to="nfvd")
        # The load balancer: the 512 flows all to 198.18.1.100:53 (one VIP,
        # four backends in 198.18.1.0/24): a session hit per packet and the
        # ingress arc, against the same traffic routed as it is.
        vip_pcap = p("ipv4-64-vip.pcap")
        cases["ipv4-lb"] = Case(
            "ipv4-lb", "IPv4 64 B through the load balancer against plain routing",
            "512 flows IPv4/UDP, 64 B frames, all to 198.18.1.100 port 53; nfvd-lb: that "
            "address and port a VIP over four backends 198.18.1.11-14 (NAT mode, 512 "
            "sessions, every packet a session hit after the first)", [
                app_nfvd(env, "nfvd-nolb", vip_pcap, label="nfvd"),
                app_nfvd(env, "nfvd-lb", vip_pcap, label="nfvd-lb",
                         extra=["lb service add 198.18.1.100:53 proto udp"] + [
                             f"lb backend add 198.18.1.100:53 proto udp 198.18.1.{b}"
                             for b in range(11, 15)],
                         note="; load balancer VIP 198.18.1.100:53")],
            compare_to="nfvd")
        # New connections: every frame a TCP SYN of a 5-tuple of its own,
        # read once; the same file through plain nfvd in the same round.
        cases["conntrack-new"] = Case(
            "conntrack-new", "nfvd: new connections per second (reflect, TCP SYN)",
            f"{CT_NEW_FLOWS:,} TCP SYNs of 64 B, each a connection of its own (a "
            "distinct 5-tuple), read once from the pcap (no replay); nfvd: the same "
            "file routed without ACL (packets/s); nfvd-ct-new: one reflect rule on port "
            "in, table sized for every flow (new connections/s)",
            [app_nfvd(env, "nfvd-new-plain", p(NEWSYN_PCAP), label="nfvd",
                      in_devargs=f"{IN_DEV},rx_pcap={p(NEWSYN_PCAP)}"),
             app_nfvd(env, "nfvd-ct-new", p(NEWSYN_PCAP), label="nfvd-ct-new",
                      in_devargs=f"{IN_DEV},rx_pcap={p(NEWSYN_PCAP)}",
                      extra=["acl add fin", "acl rule add fin prio 1 action reflect",
                                   "acl attach fin dev in in"],
                      extra_args=["--conntrack-size", str(CT_NEW_FLOWS + 1024)])],
            kind="conntrack-new")
        cases["lcp"] = Case(
            "lcp", "nfvd with kernel twins (lcp) against without; the punt path's rate",
            "nfvd, nfvd-lcp: the standard 64 B flows to 198.18.1.0/24; nfvd-lcp-punt: "
            "512 flows of 64 B UDP to nfvd's own address 198.18.0.1 (a port it does not "
            "serve), punted to the input port's twin (TAP) with the policer wide open; "
            "its Mpps is what reached the kernel",
            [app_l3fwd(env, pcap, 32), app_nfvd(env, "nfvd-nolcp", pcap, label="nfvd"),
             app_nfvd_lcp(env, "nfvd-lcp", pcap, "nfvd-lcp"),
             app_nfvd_lcp(env, "nfvd-lcp-punt", p("ipv4-64-local.pcap"), "nfvd-lcp-punt",
                          punt=True)],
            compare_to="nfvd", kind="throughput")
        cases["route-load"] = Case(
            "route-load", "nfvd: time to load 1,000,000 routes (route load FILE)",
            "standard 64 B flows forwarded during the load",
            [app_nfvd(env, "nfvd-load", pcap)], kind="route-load")
        cases["route-churn"] = Case(
            "route-churn", "nfvd: 10,000 route updates/s for 10 s while forwarding",
            "standard 64 B flows to 198.18.1.0/24; churned prefixes are /24s in "
            "203.0.0.0/8, none covering the traffic",
            [app_nfvd(env, "nfvd-churn", pcap)], kind="route-churn")
    return cases


ALL_CASES = ["ipv4-64-2ports", "ipv4-64-b32", "ipv4-64-4ports", "ipv6-64", "ipv4-512",
             "ipv4-64-b64", "stats-cost", "ipv4-1m", "route-load", "route-churn",
             "ipv4-64-learned", "punt-arp", "lcp", "ipv4-acl", "ipv6-acl", "conntrack-new",
             "ipv4-64-visibility", "ipv4-nat", "ipv4-lb", "bridge-vxlan", "ipv4-frag"]
NFVD_ONLY = {"route-load", "route-churn", "stats-cost", "ipv4-64-learned", "punt-arp",
             "ipv4-acl", "ipv6-acl", "conntrack-new", "ipv4-nat", "ipv4-lb", "bridge-vxlan",
             "ipv4-frag"}
CT_NEW_FLOWS = 1000000
NEWSYN_PCAP = "ipv4-64-newsyn.pcap"


def acl_lines(n, seed=12, family=4):
    """Two ACLs of n rules: n - 1 that miss the standard traffic (198.19.0.0/16
    to 198.18.1.0/24, UDP; IPv6, family 6: prefixes inside 2001:db8::/32,
    which the IPv6 traffic to 2001:200:0:1::/64 is not in), then a permit;
    'fin' on port in (in), 'fout' on port out (out)."""
    rnd = random.Random(seed)
    lines = []
    for acl in ("fin", "fout"):
        lines.append(f"acl add {acl}")
        for prio in range(1, n):
            words = [f"acl rule add {acl} prio {prio}"]
            if family == 6:
                plen = rnd.choice([48, 64, 96, 128])
                net = (0x20010db8 << 96 | rnd.getrandbits(96)) & (
                    ((1 << 128) - 1) << (128 - plen))
                words.append(f"{rnd.choice(['src', 'dst'])} "
                             f"{ipaddress.IPv6Address(net)}/{plen}")
            else:
                plen = rnd.choice([8, 16, 24, 32])
                net = rnd.randrange(1, 100) << 24 | rnd.randrange(1 << 24)
                net &= (0xffffffff << (32 - plen)) & 0xffffffff
                words.append(f"{rnd.choice(['src', 'dst'])} "
                             f"{'.'.join(str(net >> k & 255) for k in (24, 16, 8, 0))}/{plen}")
            proto = rnd.choice(["tcp", "udp"])
            words.append(f"proto {proto}")
            if rnd.random() < 0.5:
                lo = rnd.randrange(65000)
                words.append(f"dport {lo}-{lo + rnd.randrange(500)}")
            words.append(f"action {rnd.choice(['deny', 'permit'])}")
            lines.append(" ".join(words))
        lines.append(f"acl rule add {acl} prio {n} action permit")
    lines += ["acl attach fin dev in in", "acl attach fout dev out out"]
    return lines


def _fold(s):
    s = (s & 0xffff) + (s >> 16)
    return (s & 0xffff) + (s >> 16)


def write_newflows_pcap(path, n, dst_mac=DUT_MAC):
    """n 60-byte frames (64 B on the wire), each a TCP SYN of a connection
    of its own (source 100.64.0.0/10 + i, source port 1024 + i % 60000, to
    198.18.1.1 port 80), checksums right: written directly, scapy is too
    slow for a million."""
    import struct
    eth = bytes.fromhex(dst_mac.replace(":", "")) + bytes.fromhex("020000000001") + b"\x08\x00"
    dst = 198 << 24 | 18 << 16 | 1 << 8 | 1
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i in range(n):
            src = (100 << 24 | 64 << 16) + i
            hdr = struct.pack("!BBHHHBBHII", 0x45, 0, 40, 0, 0x4000, 64, 6, 0, src, dst)
            hdr = hdr[:10] + struct.pack("!H", ~_fold(sum(struct.unpack("!10H", hdr)))
                                         & 0xffff) + hdr[12:]
            tcp = struct.pack("!HHIIBBHHH", 1024 + i % 60000, 80, i * 7919 & 0xffffffff, 0,
                              5 << 4, 0x02, 64240, 0, 0)
            pseudo = struct.pack("!IIBBH", src, dst, 0, 6, len(tcp))
            ck = ~_fold(sum(struct.unpack("!16H", pseudo + tcp))) & 0xffff
            tcp = tcp[:16] + struct.pack("!H", ck) + tcp[18:]
            frame = eth + hdr + tcp + bytes(6)   # padded to the 60-byte minimum
            f.write(struct.pack("<IIII", 0, i, len(frame), len(frame)))
            f.write(frame)


# ------------------------------------------------------- throughput runs

MIN_WORKER_CPU = 0.9     # below this a run was disturbed: run it again once
MAX_OTHER_CPU = 0.25     # CPUs' worth of other work on the machine, likewise
MAX_RETRIES = 12         # per invocation, to keep the whole run bounded
retries_left = MAX_RETRIES


def run_app_once(env, case, app, r, tag):
    res = {"app": app.label, "round": r,
           "log": os.path.relpath(os.path.join(env.logs, tag + ".log"), TOP_DIR)}
    p = AppProcess(env, app, tag)
    with round_recorded(res, p):
        with p:
            t0 = time.monotonic()
            p.connect()
            if app.resolve:
                resolve_neighbors(env, app)
            p.wait_forwarding()
            res["startup_s"] = round(time.monotonic() - t0, 2)
            res["input_mac"] = p.in_mac
            if p.in_mac.lower() != DUT_MAC.lower():
                res["warning"] = f"input port MAC {p.in_mac}, frames go to {DUT_MAC}"
                log(f"  WARNING {app.label}: {res['warning']}")
            time.sleep(env.args.warmup)
            if app.kind == "nfvd":
                nfvctl(env, app.socket, "stats", "reset", timeout=30)
            res.update(window(p.measure(env.args.duration), app.out_per_in))
            if app.kind == "nfvd":
                res["nfvd_drops"] = nfvctl_json(env, app.socket, "show", "drops")
                # Where the cycles went: nfvd's own per-node counters over the
                # measured window.
                res["nfvd_graph"] = nfvctl_json(env, app.socket, "show", "graph")
                res["nfvd_workers"] = nfvctl_json(env, app.socket, "show", "workers")
    return res


@contextlib.contextmanager
def round_recorded(res, p):
    """A round's body: an exception is the round's error (reported, not
    fatal), and the app's exit code is kept either way."""
    try:
        yield
    except Exception as e:
        res["error"] = str(e)
    res["exit_code"] = p.exit_code


def disturbed(res):
    return "mpps" in res and ((res.get("worker_cpu") or 1.0) < MIN_WORKER_CPU
                              or (res.get("other_cpu") or 0.0) > MAX_OTHER_CPU)


def run_throughput(env, case, rounds):
    global retries_left
    results = []
    for r in range(1, rounds + 1):
        for app in case.apps:
            for attempt in (1, 2):
                tag = f"{case.name}-{app.label}-r{r}" + ("" if attempt == 1 else "-retry")
                res = run_app_once(env, case, app, r, tag)
                retry = (attempt == 1 and retries_left > 0 and disturbed(res))
                if retry:
                    res["discarded"] = "disturbed (worker_cpu, other_cpu); run again"
                    retries_left -= 1
                results.append(res)
                log(f"  [{case.name}] round {r}/{rounds} {app.label:<15} " + (
                    f"{res['mpps']:8.3f} Mpps  forwarded {100 * res['forwarded']:6.2f}%"
                    f"  worker CPU {res['worker_cpu']:.2f}  others {res['other_cpu']:.2f}"
                    f"  exit {res['exit_code']}"
                    if "mpps" in res else f"FAILED: {res['error']} (see {res['log']})")
                    + ("  -> disturbed, running it again" if retry else ""))
                if not retry:
                    break
    return [x for x in results if "discarded" not in x], results


def summarize(env, case, results):
    rows = []
    for app in case.apps:
        runs = [x for x in results if x["app"] == app.label and "mpps" in x]
        row = {"app": app.label, "kind": app.kind, "burst": app.burst, "note": app.note,
               "role": app.role, "rounds_ok": len(runs),
               "rounds_failed": sum(1 for x in results
                                    if x["app"] == app.label and "mpps" not in x)}
        if runs:
            mpps = [x["mpps"] for x in runs]
            med = statistics.median(mpps)
            row.update(mpps=med, mpps_min=min(mpps), mpps_max=max(mpps),
                       cycles_per_packet=env.tsc_hz / (med * 1e6),
                       forwarded=statistics.median(x["forwarded"] for x in runs),
                       worker_cpu=statistics.median(x.get("worker_cpu") or 0.0 for x in runs),
                       other_cpu=statistics.median(x.get("other_cpu") or 0.0 for x in runs),
                       rounds_disturbed=sum(1 for x in runs if disturbed(x)),
                       exit_codes=sorted({x["exit_code"] for x in runs},
                                         key=lambda c: (c is None, c)))
            graphs = [x["nfvd_graph"] for x in runs if x.get("nfvd_graph")]
            if graphs:
                row["graph"] = graphs[-1]
            workers = [x["nfvd_workers"] for x in runs
                       if x.get("nfvd_workers", {}).get("workers")]
            if workers:
                w = workers[-1]["workers"][0]
                row["rx_burst_avg"], row["tx_burst_avg"] = w["rx_burst_avg"], w["tx_burst_avg"]
        rows.append(row)
    ref = next((a.label for a in case.apps if a.role == "reference"), None)
    floor = next((r for r in rows if r["role"] == "floor" and "mpps" in r), None)
    for r in rows:
        if "mpps" not in r:
            continue
        if ref:
            r["vs_l3fwd"] = paired_ratio(results, r["app"], ref)
        if floor:
            r["cycles_above_floor"] = r["cycles_per_packet"] - floor["cycles_per_packet"]
        if case.compare_to:
            r[f"vs_{case.compare_to}"] = paired_ratio(results, r["app"], case.compare_to)
    return rows


def paired_ratio(results, app, ref):
    """Median over rounds of app/ref measured in the same round (adjacent
    runs share the machine's state, so the ratio drifts less than either)."""
    ratios = []
    for rnd in sorted({x["round"] for x in results}):
        a = [x["mpps"] for x in results if x["round"] == rnd and x["app"] == app and "mpps" in x]
        b = [x["mpps"] for x in results if x["round"] == rnd and x["app"] == ref and "mpps" in x]
        if a and b:
            ratios.append(a[0] / b[0])
    return statistics.median(ratios) if ratios else None


def fmt(v, spec, none="-"):
    return none if v is None else format(v, spec)


def throughput_markdown(env, case, rows, meta):
    extra = f" vs {case.compare_to} |" if case.compare_to else ""
    extra_sep = " ---: |" if case.compare_to else ""
    out = [f"# {case.title}", "", *meta_lines(meta), "",
           f"Traffic: {case.traffic}.", "",
           "| app | burst | Mpps (median) | min - max | cycles/pkt | vs l3fwd |"
           f" cycles above io floor | forwarded | worker CPU | other CPU |{extra}",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" + extra_sep]
    for r in rows:
        if "mpps" not in r:
            out.append(f"| {r['app']} | {r['burst']} | failed "
                       f"({r['rounds_failed']} rounds) | | | | | | | |" +
                       (" |" if case.compare_to else ""))
            continue
        line = (f"| {r['app']} | {r['burst']} | {r['mpps']:.3f} | "
                f"{r['mpps_min']:.3f} - {r['mpps_max']:.3f} | "
                f"{r['cycles_per_packet']:.1f} | {fmt(r.get('vs_l3fwd'), '.3f')} | "
                f"{fmt(r.get('cycles_above_floor'), '+.1f')} | "
                f"{100 * r['forwarded']:.2f}% | {r['worker_cpu']:.2f} | {r['other_cpu']:.2f} |")
        if case.compare_to:
            line += f" {fmt(r.get('vs_' + case.compare_to), '.3f')} |"
        out.append(line)
    out += ["", "Notes:"]
    for r in rows:
        out.append(f"- {r['app']}: {r['note']}"
                   + (f"; {r['rounds_disturbed']} round(s) disturbed" if r.get("rounds_disturbed") else "")
                   + (f"; {r['rounds_failed']} failed round(s)" if r["rounds_failed"] else "")
                   + (f"; exit codes {r['exit_codes']}" if r.get("exit_codes") not in (None, [0]) else ""))
    for r in rows:
        nodes = [n for n in (r.get("graph") or {}).get("nodes", []) if n.get("packets")]
        if not nodes:
            continue
        fwd = max(n["packets"] for n in nodes if n["node"] == "port_tx") if any(
            n["node"] == "port_tx" for n in nodes) else 0
        total = sum(n["cycles"] for n in nodes)
        bursts = (f" RX bursts averaged {r['rx_burst_avg']:.1f} packets, TX bursts "
                  f"{r['tx_burst_avg']:.1f}." if "tx_burst_avg" in r else "")
        out += ["", f"Where {r['app']}'s cycles go (its own per-node counters over the last "
                f"measured window; cycles per forwarded packet):{bursts}", "",
                "| node | packets/call | cycles/packet in node | cycles per forwarded packet | share |",
                "| --- | ---: | ---: | ---: | ---: |"]
        for n in nodes:
            out.append(f"| {n['node']} | {n['packets_per_call']:.1f} | "
                       f"{n['cycles_per_packet']:.1f} | "
                       f"{(n['cycles'] / fwd if fwd else 0):.1f} | "
                       f"{100 * n['cycles'] / total:.0f}% |")
        out.append(f"| all nodes | | | {(total / fwd if fwd else 0):.1f} | 100% |")
        out.append("")
    out.append("- Mpps: median over rounds of each run's median one-second rate. "
               "vs l3fwd: median over rounds of Mpps / l3fwd Mpps of the same round "
               "(above 1 is faster). cycles/pkt = TSC Hz / pps of the one forwarding core. "
               "worker CPU: share of a CPU the forwarding thread got while measured; "
               "other CPU: CPUs' worth of time used meanwhile by everything but the "
               "application and this driver (medians). Worker CPU below ~0.95 or other "
               "CPU above ~0.1: the machine was busy with something else; compare with care.")
    return "\n".join(out) + "\n"


# ------------------------------------------------------ route programming

def run_route_load(env, case, rounds):
    app = case.apps[0]
    routes = env.pcap("routes-1m.txt")
    with open(routes) as f:
        lines = f.readlines()
    results = []
    for r in range(1, rounds + 1):
        tag = f"{case.name}-r{r}"
        res = {"round": r, "routes": len(lines)}
        p = AppProcess(env, app, tag)
        with round_recorded(res, p):
            with p:
                p.connect()
                p.wait_forwarding()
                time.sleep(env.args.warmup)
                drops0 = nfvctl_json(env, app.socket, "show", "drops")
                s0 = p.sample()
                mark = p.load_mark()
                rc, out, secs = nfvctl(env, app.socket, "route", "load", routes, timeout=300)
                res["worker_cpu"], res["other_cpu"] = p.load_since(mark)
                s1 = p.sample()
                res["drops_before"] = drops0
                res["drops_after"] = nfvctl_json(env, app.socket, "show", "drops")
                res.update(rc=rc, seconds=secs, routes_per_s=len(lines) / secs,
                           output=out.strip()[-500:])
                w = window([s0, s1])
                res.update(fwd_mpps_during=w["mpps"], not_forwarded_during=w["not_forwarded"],
                           in_packets_during=w["in_packets"])
                # Spot-check that routes really are installed.
                checks = []
                for ln in random.Random(r).sample(lines, 5):
                    prefix, _, nh = ln.split()
                    c_rc, c_out, _ = nfvctl(env, app.socket, "route", "show", prefix,
                                            timeout=30)
                    checks.append({"prefix": prefix, "via": nh, "rc": c_rc,
                                   "found": c_rc == 0 and nh in c_out})
                res["spot_checks"] = checks
                res["after"] = window(p.measure(2))
        results.append(res)
        log(f"  [{case.name}] round {r}/{rounds} " + (
            f"load {res['seconds']:.2f} s ({res['routes_per_s'] / 1e3:.0f}k routes/s, rc {res['rc']}),"
            f" forwarding during load {res['fwd_mpps_during']:.3f} Mpps, "
            f"spot checks {sum(c['found'] for c in res['spot_checks'])}/5"
            if "seconds" in res else f"FAILED: {res.get('error')}"))
    return results


def _once_rate(env, app, n, counter):
    """Samples counter(stats) of app every 50 ms until n frames are
    accounted for; the rate between 10 % and 90 % of n (start-up and tail
    left out) and the last sample."""
    samples = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        st = nfvctl_json(env, app.socket, "show", "stats")
        if "packets" not in st:      # the API is not up yet
            time.sleep(0.01)
            continue
        v, done = counter(st)
        samples.append((time.monotonic(), v))
        if done >= n:
            break
        time.sleep(0.05)
    lo = next(s for s in samples if s[1] > 0)
    lo = next((s for s in samples if s[1] >= n * 0.1 and s[0] > lo[0]),
              lo) if lo[1] < n * 0.1 else lo
    hi = next(s for s in samples if s[1] >= n * 0.9)
    rate = (hi[1] - lo[1]) / (hi[0] - lo[0]) if hi[0] > lo[0] else None
    return rate, st, len(samples)


def run_conntrack_new(env, case, rounds):
    """New connections per second: the pcap is read once, every frame a new
    connection; nfvd's 'created' counter (and 'table_full') is sampled every
    50 ms and the rate taken between 10 % and 90 % of the flows. In the same
    round plain nfvd routes the same file, its forwarded packets sampled the
    same way: the ratio is what creating a connection costs against routing
    a packet."""
    pcap = env.pcap(NEWSYN_PCAP)
    if not os.path.exists(pcap):
        write_newflows_pcap(pcap, CT_NEW_FLOWS)
    n = CT_NEW_FLOWS
    results = []
    for r in range(1, rounds + 1):
        plain = None
        for app in case.apps:
            ct = app.label != "nfvd"
            res = {"round": r, "app": app.label, "flows": n}
            p = AppProcess(env, app, f"{case.name}-{app.label}-r{r}")
            with round_recorded(res, p):
                with p:
                    p.connect()
                    if ct:
                        rate, st, ns = _once_rate(
                            env, app, n, lambda st: (
                                st["conntrack"]["created"],
                                st["conntrack"]["created"] + st["conntrack"]["table_full"]))
                        res.update(created=st["conntrack"]["created"],
                                   table_full=st["conntrack"]["table_full"],
                                   new_per_s=rate, samples=ns,
                                   count=nfvctl_json(env, app.socket, "conntrack",
                                                     "show")["count"])
                    else:
                        rate, st, ns = _once_rate(
                            env, app, n, lambda st: (st["packets"]["forwarded"],
                                                     st["packets"]["received"]))
                        res.update(forwarded=st["packets"]["forwarded"], pps=rate,
                                   samples=ns)
                        plain = rate
            if ct and plain and res.get("new_per_s"):
                res["vs_nfvd"] = res["new_per_s"] / plain
            results.append(res)
            what = (f"{res['new_per_s'] / 1e6:.3f} M new connections/s, created "
                    f"{res['created']}, table full {res['table_full']}"
                    + (f", {res['vs_nfvd']:.3f} of plain" if "vs_nfvd" in res else "")
                    if ct and res.get("new_per_s") else
                    f"{res['pps'] / 1e6:.3f} Mpps routed" if not ct and res.get("pps")
                    else f"FAILED: {res.get('error')}")
            log(f"  [{case.name}] {app.label} round {r}/{rounds} {what}")
    return results


def conntrack_new_markdown(case, results, meta):
    out = [f"# {case.title}", "", *meta_lines(meta), "", f"Traffic: {case.traffic}.", "",
           "| round | app | rate /s | created | table full | in table after | vs nfvd |",
           "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in results:
        rate = r.get("new_per_s") or r.get("pps")
        if "error" in r or not rate:
            out.append(f"| {r['round']} | {r.get('app')} | failed: {r.get('error')} "
                       "| | | | |")
            continue
        vs = f"{r['vs_nfvd']:.3f}" if "vs_nfvd" in r else ""
        out.append(f"| {r['round']} | {r['app']} | {rate:,.0f} | {r.get('created', '')} | "
                   f"{r.get('table_full', '')} | {r.get('count', '')} | {vs} |")
    rates = [r["new_per_s"] for r in results if r.get("new_per_s")]
    ratios = [r["vs_nfvd"] for r in results if "vs_nfvd" in r]
    if rates:
        out += ["", f"Median: {statistics.median(rates):,.0f} new connections/s (one "
                "worker; each: ACL lookup, two hash inserts)"
                + (f", {statistics.median(ratios):.3f} of plain routing's packets/s in "
                   "the same rounds." if ratios else ".")]
    return "\n".join(out) + "\n"


def run_route_churn(env, case, rounds):
    app = case.apps[0]
    churn = os.path.join(env.traffic, "churn")
    secs = sorted(glob.glob(os.path.join(churn, "sec*.cmds")))
    results = []
    for r in range(1, rounds + 1):
        tag = f"{case.name}-r{r}"
        res = {"round": r}
        p = AppProcess(env, app, tag)
        with round_recorded(res, p):
            with p:
                p.connect()
                p.wait_forwarding()
                rc, out, _ = nfvctl(env, app.socket, "-f", os.path.join(churn, "prefill.cmds"))
                res["prefill_rc"] = rc
                time.sleep(env.args.warmup)
                res["drops_before"] = nfvctl_json(env, app.socket, "show", "drops")
                res["baseline"] = window(p.measure(env.args.duration))
                s0 = p.sample()
                mark = p.load_mark()
                batches, samples = [], [s0]
                start = time.monotonic()
                for i, f in enumerate(secs):
                    if time.monotonic() - start > 3 * len(secs):
                        break            # far behind schedule: stop, report what ran
                    with open(f) as fh:
                        n = sum(1 for _ in fh)
                    b_rc, b_out, b_secs = nfvctl(env, app.socket, "-f", f, timeout=120)
                    batches.append({"file": os.path.basename(f), "updates": n,
                                    "rc": b_rc, "seconds": round(b_secs, 3),
                                    "output": b_out.strip()[-300:] if b_rc else ""})
                    samples.append(p.sample())
                    wait = start + i + 1 - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
                elapsed = time.monotonic() - start
                samples.append(p.sample())
                samples[-1]["worker_cpu"], samples[-1]["other_cpu"] = p.load_since(mark)
                res["churn"] = window(samples)
                updates = sum(b["updates"] for b in batches)
                res.update(batches=batches, updates=updates, churn_seconds=elapsed,
                           batches_planned=len(secs),
                           updates_per_s=updates / elapsed,
                           failed_batches=sum(1 for b in batches if b["rc"]),
                           max_batch_s=max(b["seconds"] for b in batches))
                res["drops_after"] = nfvctl_json(env, app.socket, "show", "drops")
        results.append(res)
        if "churn" in res:
            c, b = res["churn"], res["baseline"]
            log(f"  [{case.name}] round {r}/{rounds} {res['updates_per_s']:.0f} updates/s "
                f"({len(res['batches'])}/{res['batches_planned']} batches) "
                f"(max batch {res['max_batch_s']:.2f} s, failed batches {res['failed_batches']}),"
                f" {c['mpps']:.3f} Mpps vs {b['mpps']:.3f} baseline,"
                f" not forwarded {c['not_forwarded']} of {c['in_packets']}")
        else:
            log(f"  [{case.name}] round {r}/{rounds} FAILED: {res.get('error')}")
    return results


def write_arp_pcap(path, senders=256):
    """ARP requests for 198.20.0.1 from 198.20.0.2.. (one per sender)."""
    from scapy.layers.l2 import ARP, Ether
    from scapy.utils import wrpcap
    frames = []
    for i in range(senders):
        mac = "02:00:00:20:%02x:%02x" % (i >> 8, i & 255)
        frames.append(Ether(dst="ff:ff:ff:ff:ff:ff", src=mac) /
                      ARP(op=1, hwsrc=mac, psrc="198.20.%d.%d" % (i // 250, 2 + i % 250),
                          pdst="198.20.0.1"))
    wrpcap(path, frames)


def neigh_events(env, app):
    st = nfvctl_json(env, app.socket, "show", "stats")
    q = {x["name"]: x for x in st.get("punt", {}).get("queues", [])}
    return {"t": time.monotonic(),
            "replies": st.get("neigh", {}).get("events", {}).get("arp_replies_sent", 0),
            "punted": q.get("arp", {}).get("punted", 0),
            "policed": q.get("arp", {}).get("policed", 0),
            "queue_full": q.get("arp", {}).get("queue_full", 0),
            "received": st.get("packets", {}).get("received", 0)}


def run_punt(env, case, rounds):
    """Each app answers ARP requests for its input port's address for
    --duration seconds; rates from nfvd's own counters (show stats)."""
    write_arp_pcap(env.pcap("arp-requests.pcap"))
    results = []
    for r in range(1, rounds + 1):
        for app in case.apps:
            tag = f"{case.name}-{app.label.replace(' ', '_').replace('/', '')}-r{r}"
            res = {"app": app.label, "round": r}
            p = AppProcess(env, app, tag)
            with round_recorded(res, p):
                with p:
                    p.connect()
                    time.sleep(env.args.warmup)
                    a = neigh_events(env, app)
                    time.sleep(env.args.duration)
                    b = neigh_events(env, app)
                    dt = b["t"] - a["t"]
                    for k in ("replies", "punted", "policed", "queue_full", "received"):
                        res[k + "_per_s"] = (b[k] - a[k]) / dt
            results.append(res)
            log(f"  [{case.name}] round {r}/{rounds} {app.label:<16} " + (
                f"{res['replies_per_s']:10.0f} replies/s  received {res['received_per_s']:10.0f}/s"
                f"  policed {res['policed_per_s']:10.0f}/s  ring full {res['queue_full_per_s']:8.0f}/s"
                if "error" not in res else f"FAILED: {res['error']}"))
    return results


def punt_markdown(case, results, meta):
    out = [f"# {case.title}", "", *meta_lines(meta), "", f"Traffic: {case.traffic}.", "",
           "| app | replies/s (median) | received/s | punted/s | policed/s | punt ring full/s |"
           " rounds |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for app in case.apps:
        ok = [x for x in results if x["app"] == app.label and "error" not in x]
        if not ok:
            out.append(f"| {app.label} | failed | | | | | 0 |")
            continue
        m = lambda k: statistics.median(x[k] for x in ok)
        out.append(f"| {app.label} | {m('replies_per_s'):.0f} | {m('received_per_s'):.0f} | "
                   f"{m('punted_per_s'):.0f} | {m('policed_per_s'):.0f} | "
                   f"{m('queue_full_per_s'):.0f} | {len(ok)} |")
    out += ["", "Every request is policed per worker (`punt set arp rate`), queued to the "
            "control thread and answered there (the reply reuses the request's buffer and "
            "leaves through the worker's port_tx): what is over the rate is dropped as "
            "punt/policed, what finds the ring full as punt/queue_full, and forwarding "
            "goes on either way."]
    return "\n".join(out) + "\n"


def drop_delta(res):
    """nfvd's own drop count (show drops) between the two snapshots."""
    a, b = res.get("drops_before", {}), res.get("drops_after", {})
    if isinstance(a.get("total"), int) and isinstance(b.get("total"), int):
        return b["total"] - a["total"]
    return "?"


def med(results, key, sub=None):
    vals = [(x[sub] if sub else x).get(key) for x in results if (sub is None or sub in x)]
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def all_rounds_failed(out, results):
    """The report of a case none of whose rounds measured: out, and why."""
    return "\n".join(out + ["All rounds failed: " +
                            "; ".join(str(x.get("error")) for x in results)]) + "\n"


def route_load_markdown(case, results, meta):
    ok = [x for x in results if "seconds" in x]
    out = [f"# {case.title}", "", *meta_lines(meta), "", f"Traffic: {case.traffic}.", ""]
    if not ok:
        return all_rounds_failed(out, results)
    out += ["| round | load time (s) | routes/s | nfvctl rc | Mpps during load |"
            " not forwarded during load | nfvd drops | spot checks | worker CPU | other CPU |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for x in ok:
        out.append(f"| {x['round']} | {x['seconds']:.2f} | {x['routes_per_s']:.0f} | {x['rc']} | "
                   f"{x['fwd_mpps_during']:.3f} | {x['not_forwarded_during']} of "
                   f"{x['in_packets_during']} | {drop_delta(x)} | "
                   f"{sum(c['found'] for c in x['spot_checks'])}/5 | "
                   f"{x['worker_cpu']:.2f} | {x['other_cpu']:.2f} |")
    out += ["", f"Median load time: {med(ok, 'seconds'):.2f} s for {ok[0]['routes']} routes "
            f"({med(ok, 'routes_per_s'):.0f} routes/s)."]
    return "\n".join(out) + "\n"


def route_churn_markdown(case, results, meta):
    ok = [x for x in results if "churn" in x]
    out = [f"# {case.title}", "", *meta_lines(meta), "", f"Traffic: {case.traffic}.", ""]
    if not ok:
        return all_rounds_failed(out, results)
    out += ["| round | updates/s achieved | batches run | max batch (s) | failed batches |"
            " Mpps baseline |"
            " Mpps during churn | not forwarded baseline | not forwarded during churn |"
            " nfvd drops | worker CPU | other CPU |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for x in ok:
        out.append(f"| {x['round']} | {x['updates_per_s']:.0f} | "
                   f"{len(x['batches'])}/{x['batches_planned']} | {x['max_batch_s']:.2f} | "
                   f"{x['failed_batches']} | {x['baseline']['mpps']:.3f} | "
                   f"{x['churn']['mpps']:.3f} | {x['baseline']['not_forwarded']} | "
                   f"{x['churn']['not_forwarded']} of {x['churn']['in_packets']} | "
                   f"{drop_delta(x)} | {x['churn']['worker_cpu']:.2f} | "
                   f"{x['churn']['other_cpu']:.2f} |")
    ratio = statistics.median(x["churn"]["mpps"] / x["baseline"]["mpps"] for x in ok)
    out += ["", f"Forwarding rate during churn / without: {ratio:.3f} (median). "
            "Every frame goes to an unaffected prefix, so 'not forwarded' is loss on "
            "unaffected prefixes (port counters: input ipackets - output opackets, "
            "up to a few hundred packets of sampling skew either way); 'nfvd drops' "
            "is the change of nfvd's own `show drops` total over baseline and churn."]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------ reporting

def read_cpu_model():
    with open("/proc/cpuinfo") as f:
        for ln in f:
            if ln.startswith("model name"):
                return ln.split(":", 1)[1].strip()
    return "unknown"


def kernel_cpu_mhz():
    with open("/proc/cpuinfo") as f:
        for ln in f:
            if ln.startswith("cpu MHz"):
                return float(ln.split(":", 1)[1])
    return None


def git_rev():
    try:
        rev = subprocess.run(["git", "-C", TOP_DIR, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", TOP_DIR, "status", "--porcelain", "--", "src"],
                               capture_output=True, text=True).stdout.strip()
        return (rev or "none") + ("+dirty" if dirty else "")
    except OSError:
        return "unknown"


def collect_meta(env):
    dpdk = subprocess.run(["pkg-config", "--modversion", "libdpdk"],
                          capture_output=True, text=True).stdout.strip()
    return {"date": datetime.datetime.now().isoformat(timespec="seconds"),
            "cpu_model": read_cpu_model(), "cpus": os.cpu_count(),
            "tsc_hz": env.tsc_hz, "kernel_cpu_mhz": kernel_cpu_mhz(),
            "dpdk": dpdk, "eal_memory": " ".join(env.mem),
            "rounds": env.args.rounds, "warmup_s": env.args.warmup,
            "duration_s": env.args.duration, "nfvd_revision": git_rev(),
            "nfvd_present": env.have_nfvd,
            "nfvd_baseline_revision": env.nfvd_baseline_rev or None,
            "ports": {"in": pcap_devargs("FILE"), "out": OUT_DEVARGS,
                      "out2..out4 (ipv4-64-2ports, ipv4-64-4ports)":
                      [f"{d},no-rx=1" for d in OUT_DEVS[1:]]},
            "forwarding_lcores": 1}


def meta_lines(m):
    return [f"- {m['date']}, DPDK {m['dpdk']}, nfvd {m['nfvd_revision']}"
            + (f" (nfvd-baseline: {m['nfvd_baseline_revision']})"
               if m.get("nfvd_baseline_revision") else ""),
            f"- CPU: {m['cpu_model']} ({m['cpus']} cores), TSC {m['tsc_hz'] / 1e9:.3f} GHz "
            f"(DPDK rte_get_tsc_hz; kernel cpu MHz {m['kernel_cpu_mhz']})",
            f"- ports: in `{m['ports']['in']}`, out `{m['ports']['out']}`; one forwarding "
            f"lcore; EAL memory `{m['eal_memory'] or 'hugepages'}`",
            f"- {m['rounds']} interleaved rounds, {m['warmup_s']:g} s warm-up, "
            f"{m['duration_s']:g} s measured each; medians"]


def scrub(obj):
    """Results name files relative to the repository, not by machine path."""
    if isinstance(obj, str):
        return obj.replace(TOP_DIR + "/", "")
    if isinstance(obj, list):
        return [scrub(x) for x in obj]
    if isinstance(obj, dict):
        return {k: scrub(v) for k, v in obj.items()}
    return obj


def write_report(env, case, stamp, md, data):
    out_dir = env.args.results
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, f"{stamp}-{case.name}")
    md, data = scrub(md), scrub(data)
    with open(base + ".md", "w") as f:
        f.write(md)
    with open(base + ".json", "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    log("")
    log(md)
    log(f"  -> {os.path.relpath(base, TOP_DIR)}.md / .json")
    log("")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", help=f"default: all of {', '.join(ALL_CASES)}")
    ap.add_argument("--work", required=True, help="scratch dir prepared by run.sh")
    ap.add_argument("--tsc-hz", type=float, required=True)
    ap.add_argument("--mem", default="", help="EAL memory options, e.g. '--no-huge -m 2048'")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--duration", type=float, default=5.0)
    ap.add_argument("--results", default=os.path.join(BENCH_DIR, "results"))
    args = ap.parse_args()

    # Keep this process (and the nfvctl it runs) off the forwarding core.
    try:
        os.sched_setaffinity(0, {0})
    except OSError:
        pass

    env = Env(args)
    wanted = args.cases or ALL_CASES
    unknown = [c for c in wanted if c not in ALL_CASES]
    if unknown:
        sys.exit(f"unknown case(s) {unknown}; cases: {' '.join(ALL_CASES)}")
    if not env.have_nfvd:
        log(f"NOTE: {os.path.relpath(env.nfvd, TOP_DIR)} or nfvctl not built: "
            "nfvd is left out of every case")
    cases = build_cases(env)
    meta = collect_meta(env)
    stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S")
    failures = 0
    for name in wanted:
        if name not in cases:
            log(f"== {name}: skipped (needs nfvd)")
            continue
        case = cases[name]
        log(f"== {case.name}: {case.title}")
        if case.kind == "throughput":
            results, all_runs = run_throughput(env, case, args.rounds)
            rows = summarize(env, case, results)
            md = throughput_markdown(env, case, rows, meta)
            failures += sum(r["rounds_failed"] for r in rows)
            data = {"case": case.name, "title": case.title, "traffic": case.traffic,
                    "meta": meta, "summary": rows, "runs": all_runs,
                    "argv": {a.label: a.argv for a in case.apps}}
        else:
            runner, mdf = {"route-load": (run_route_load, route_load_markdown),
                           "route-churn": (run_route_churn, route_churn_markdown),
                           "punt": (run_punt, punt_markdown),
                           "conntrack-new": (run_conntrack_new, conntrack_new_markdown)
                           }[case.kind]
            results = runner(env, case, args.rounds)
            md = mdf(case, results, meta)
            failures += sum(1 for x in results if "error" in x)
            data = {"case": case.name, "title": case.title, "traffic": case.traffic,
                    "meta": meta, "runs": results, "argv": case.apps[0].argv}
        write_report(env, case, stamp, md, data)
    if failures:
        log(f"{failures} run(s) failed; see the logs under {os.path.relpath(env.logs, TOP_DIR)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
