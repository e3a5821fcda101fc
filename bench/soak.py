#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Soak run: nfvd forwards an endless pcap replay for DURATION seconds (default
600) while routes churn (add/del batches every second), a neighbor flaps and
a port is removed and added again every 30 s with routes through it. Every
10 s it records nfvd's resident memory (VmRSS), the mbufs out of their pools
and the packet counters. At the end nfvd must still be up, exit 0 on SIGTERM
with every mbuf back, and memory and mbufs in use must be flat after warm-up.

Writes bench/results/<date>-soak.md and .json. Not part of `make test`.

  bench/soak.py [--duration SECONDS] [--nfvd build/src/nfvd]
"""
import argparse
import datetime
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scapy.all import Ether, IP, UDP, Raw, wrpcap

REPO = Path(__file__).resolve().parents[1]
PORT_MAC = "02:70:63:61:70:00"


def api(sock_path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    f = s.makefile("rb")

    def call(cmd):
        s.sendall(json.dumps({"cmd": cmd}).encode() + b"\n")
        reply = json.loads(f.readline())
        if not reply["ok"]:
            raise RuntimeError("%s: %s" % (cmd, reply["error"]))
        return reply["data"]
    return call


def rss_kib(pid):
    for line in Path("/proc/%d/status" % pid).read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=600)
    ap.add_argument("--nfvd", default=str(REPO / "build/src/nfvd"))
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="nfvsoak"))
    pcap = work / "in.pcap"
    wrpcap(str(pcap), [Ether(dst=PORT_MAC, src="02:00:00:00:00:0a")
                       / IP(src="10.0.0.2", dst="198.18.%d.%d" % (i // 200, 1 + i % 200))
                       / UDP(sport=1024 + i, dport=9) / Raw(b"s" * 18) for i in range(1000)])
    conf = work / "soak.conf"
    conf.write_text("\n".join([
        "port add in dev net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap,
        "port add out dev net_null0,no-rx=1",
        "addr add 10.0.0.1/24 dev in",
        "addr add 10.1.0.1/24 dev out",
        "neigh add 10.0.0.2 lladdr 02:00:00:00:00:0a dev in",
        "neigh add 10.1.0.2 lladdr 02:00:00:00:00:0b dev out",
        "neigh add 10.1.0.3 lladdr 02:00:00:00:00:0c dev out",
        "route add 198.18.0.0/16 via 10.1.0.2",
    ]) + "\n")
    sock = str(work / "api.sock")
    log = open(work / "nfvd.log", "w")
    proc = subprocess.Popen([args.nfvd, "-l", "0,1", "--no-huge", "-m", "2048", "--no-pci",
                             "--no-shconf", "--file-prefix", "nfvsoak", "--", "-c", str(conf),
                             "-s", sock, "--max-routes4", "262144"],
                            stdout=log, stderr=subprocess.STDOUT)
    for _ in range(300):
        if os.path.exists(sock):
            break
        time.sleep(0.1)
    call = api(sock)
    rnd = random.Random(3)
    samples, errors = [], []
    installed = set()
    start = time.monotonic()
    next_sample = start
    port_cycle = 0
    churn_ops = 0
    while time.monotonic() - start < args.duration:
        t = time.monotonic() - start
        if proc.poll() is not None:
            errors.append("nfvd exited with %d at %.0f s" % (proc.returncode, t))
            break
        # Route churn: 500 adds and 500 deletes of /24s under 100.64/10.
        for _ in range(500):
            p = "100.%d.%d.0/24" % (64 + rnd.randrange(64), rnd.randrange(256))
            try:
                if p in installed:
                    call("route del " + p)
                    installed.discard(p)
                else:
                    call("route add %s via %s" % (p, rnd.choice(["10.1.0.2", "10.1.0.3"])))
                    installed.add(p)
                churn_ops += 1
            except RuntimeError as e:
                errors.append(str(e))
        # A neighbor flaps every 5 s; a port comes and goes every 30 s.
        sec = int(t)
        if sec % 5 == 0:
            call("neigh del 10.1.0.3 dev out")
            call("neigh add 10.1.0.3 lladdr 02:00:00:00:00:0c dev out")
        if sec // 30 != port_cycle:
            port_cycle = sec // 30
            if port_cycle % 2 == 1:
                call("port add extra dev net_null9,no-rx=1")
                call("addr add 10.9.0.1/24 dev extra")
                call("neigh add 10.9.0.2 lladdr 02:00:00:00:09:02 dev extra")
                call("route add 198.51.100.0/24 via 10.9.0.2")
            else:
                call("port del extra")
        if time.monotonic() >= next_sample:
            st = call("show stats")
            samples.append({
                "t": round(t, 1), "rss_kib": rss_kib(proc.pid),
                "mbufs_in_use": st["tables"]["mbufs_in_use"],
                "received": st["packets"]["received"],
                "forwarded": st["packets"]["forwarded"],
                "dropped": st["packets"]["dropped"],
                "ipv4_routes": st["tables"]["ipv4_routes"],
                "rcu_grace_periods": st["tables"]["rcu_grace_periods"],
            })
            print("soak %5.0fs rss %7d KiB mbufs in use %5d forwarded %12d routes %6d" % (
                t, samples[-1]["rss_kib"], samples[-1]["mbufs_in_use"],
                samples[-1]["forwarded"], samples[-1]["ipv4_routes"]), flush=True)
            next_sample += 10
        time.sleep(max(0.0, 1.0 - (time.monotonic() - start - t)))

    proc.send_signal(signal.SIGTERM)
    code = proc.wait(60)
    log.close()
    text = (work / "nfvd.log").read_text()
    clean_exit = code == 0 and "nfvd: exit: all mbufs returned to their pools" in text
    warm = [s for s in samples if s["t"] >= 60] or samples
    rss_growth = (warm[-1]["rss_kib"] - warm[0]["rss_kib"]) / max(1, warm[0]["rss_kib"])
    mbuf_max = max(s["mbufs_in_use"] for s in samples) if samples else 0
    verdict = clean_exit and not errors and rss_growth < 0.05
    result = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "duration_s": args.duration, "route_ops": churn_ops, "exit_code": code,
        "all_mbufs_returned": clean_exit, "errors": errors[:20],
        "rss_growth_after_60s": rss_growth, "max_mbufs_in_use": mbuf_max,
        "samples": samples, "pass": verdict,
    }
    out = REPO / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    stem = out / ("%s-soak" % datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S"))
    stem.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    lines = ["# Soak: %.0f s of traffic with route churn, neighbor flaps and port add/remove"
             % args.duration, "",
             "- %d route operations, exit code %d, all mbufs returned: %s" % (
                 churn_ops, code, "yes" if clean_exit else "NO"),
             "- resident memory after 60 s: %d -> %d KiB (%+.2f %%)" % (
                 warm[0]["rss_kib"], warm[-1]["rss_kib"], 100 * rss_growth),
             "- mbufs in use while forwarding: at most %d (in flight in rings)" % mbuf_max,
             "- command errors: %d" % len(errors), "",
             "| t (s) | RSS (KiB) | mbufs in use | forwarded | IPv4 routes |",
             "| ---: | ---: | ---: | ---: | ---: |"]
    lines += ["| %.0f | %d | %d | %d | %d |" % (s["t"], s["rss_kib"], s["mbufs_in_use"],
                                              s["forwarded"], s["ipv4_routes"])
              for s in samples]
    lines += ["", "Verdict: %s" % ("PASS" if verdict else "FAIL")]
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:6]))
    print("soak: %s" % ("PASS" if verdict else "FAIL"))
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
