# SPDX-License-Identifier: BSD-3-Clause
"""
Observability: the numbers nfvd shows must add up in all three places (CLI
JSON, DPDK telemetry, Prometheus /metrics), and "show diag" / "show latency"
must see the field reports' patterns when they are provoked:

- a burst mismatch (seed 002: RX 32 -> TX 6) made with the test hook
  "debug tx-split N", which cuts every TX burst into chunks of N;
- a latency shift made with "debug rx-delay-us N", which holds each received
  burst N microseconds: the percentiles must move by that much.
"""
import json
import re
import socket
import time
import urllib.request
from collections import Counter
from pathlib import Path

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import nfvdlib

HOST_MAC = "02:00:00:00:00:0a"
GW_MAC = "02:00:00:00:00:0b"


def flood_frames(n=64):
    return [Ether(dst=nfvdlib.pcap_mac(0), src=HOST_MAC)
            / IP(src="10.0.0.2", dst="198.18.%d.%d" % (i // 250, 1 + i % 250))
            / UDP(sport=1000 + i, dport=9) / Raw(b"x" * 18) for i in range(n)]


def router(nfvd, frames, infinite, extra=()):
    """p0 receives frames; 198.18.0.0/16 goes out of p1 (a net_null sink)."""
    n = nfvd()
    n.extra_args = list(extra)
    n.add_port("p0", rx=frames, infinite=infinite)
    n.add_port("p1", null=True)
    n.cmd("addr add 10.0.0.1/24 dev p0",
          "addr add 10.1.0.1/24 dev p1",
          "neigh add 10.0.0.2 lladdr %s dev p0" % HOST_MAC,
          "neigh add 10.1.0.2 lladdr %s dev p1" % GW_MAC,
          "route add 198.18.0.0/16 via 10.1.0.2",
          "route add 203.0.113.0/24 blackhole")
    return n.start()


def measure(n, seconds):
    """Counters over `seconds` of traffic, from a fresh baseline."""
    n.ctl("stats reset")
    time.sleep(seconds)
    return n.ctl("show workers")["workers"][0], n.ctl("show diag")["findings"]


def test_burst_mismatch_is_named(nfvd):
    n = router(nfvd, flood_frames(), infinite=True)
    # pcap's infinite replay returns full bursts but for rare wrap-arounds.
    worker, findings = measure(n, 1.0)
    assert abs(worker["rx_burst_avg"] - 32.0) < 0.1
    assert abs(worker["tx_burst_avg"] - 32.0) < 0.1
    assert "burst_mismatch" not in [f["pattern"] for f in findings]

    n.ctl("debug tx-split 4")
    worker, findings = measure(n, 1.0)
    assert abs(worker["rx_burst_avg"] - 32.0) < 0.1
    # Counters are read while traffic flows: allow a few packets of skew.
    assert 3.9 < worker["tx_burst_avg"] < 4.1
    assert worker["tx_burst_hist"]["4-7"] > 1000
    assert worker["tx_burst_hist"]["32-63"] == 0
    mismatch = [f for f in findings if f["pattern"] == "burst_mismatch"]
    assert len(mismatch) == 1, findings
    assert re.search(r"TX bursts average [34]\.\d packets but RX bursts 3[12]\.\d",
                     mismatch[0]["detail"]), mismatch[0]["detail"]

    n.ctl("debug tx-split 0")
    worker, findings = measure(n, 1.0)
    assert abs(worker["tx_burst_avg"] - 32.0) < 0.1
    assert "burst_mismatch" not in [f["pattern"] for f in findings]
    n.stop()


def test_latency_follows_an_injected_delay(nfvd):
    n = router(nfvd, flood_frames(), infinite=True)
    n.ctl("stats reset")
    time.sleep(0.5)
    base = n.ctl("show latency")
    assert base["packets"] > 0
    assert base["p50_ns"] < 100_000

    n.ctl("debug rx-delay-us 200")
    n.ctl("stats reset")
    time.sleep(1.0)
    lat = n.ctl("show latency")
    n.ctl("debug rx-delay-us 0")
    # Four buckets per power of two: a percentile is within 12.5 % of the
    # bucket's middle; the delay is a floor.
    assert 200_000 * 0.85 <= lat["p50_ns"] <= 200_000 * 1.4, lat
    assert lat["p50_ns"] <= lat["p90_ns"] <= lat["p99_ns"] <= lat["p999_ns"] <= lat["max_ns"]
    assert lat["mean_ns"] >= 200_000
    assert sum(b["packets"] for b in lat["buckets"]) == lat["packets"]
    n.stop()


def scrape(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = r.read().decode()
    samples = {}
    types = {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            types[name] = kind
            continue
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)', line)
        assert m, "bad exposition line: %r" % line
        labels = tuple(sorted(re.findall(r'(\w+)="([^"]*)"', m.group(2) or "")))
        samples[(m.group(1), labels)] = float(m.group(3))
    return samples, types


def telemetry(prefix, cmd):
    path = Path("/var/run/dpdk") / prefix / "dpdk_telemetry.v2"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(str(path))
    json.loads(s.recv(16384))            # the greeting
    s.send(cmd.encode())
    reply = json.loads(s.recv(1 << 20))
    s.close()
    return reply[cmd]


def test_counters_agree_in_cli_telemetry_and_prometheus(nfvd):
    frames = flood_frames(300)
    frames += [Ether(dst=nfvdlib.pcap_mac(0), src=HOST_MAC)
               / IP(src="10.0.0.2", dst="203.0.113.%d" % i) / UDP() for i in range(1, 21)]
    frames += [Ether(dst="02:99:99:99:99:99", src=HOST_MAC)
               / IP(src="10.0.0.2", dst="198.18.0.1") / UDP() for _ in range(7)]
    frames += [Ether(dst=nfvdlib.pcap_mac(0), src=HOST_MAC)
               / IP(src="10.0.0.2", dst="198.18.0.1", ttl=1) / UDP() for _ in range(5)]
    port = 19100 + (hash(str(time.time())) % 500)
    n = router(nfvd, frames, infinite=False, extra=["--metrics", "127.0.0.1:%d" % port])
    st = n.wait_processed({"p0": len(frames)})

    # The CLI: every packet accounted for.
    drops = nfvdlib.drops(st)
    assert drops == Counter({"ip4_lookup/blackhole": 20, "eth_input/other_host": 7,
                             "ip4_rewrite/ttl_expired": 5})
    assert st["packets"]["received"] == len(frames)
    assert st["packets"]["forwarded"] == 300 + 5          # and 5 ICMP errors
    assert st["icmp"]["errors_sent"] == 5
    ports = n.port_stats(st)
    assert ports["p0"]["rx_packets"] == len(frames)
    assert ports["p1"]["tx_packets"] == 300
    assert ports["p0"]["tx_packets"] == 5

    samples, types = scrape(port)
    assert types["nfvd_port_rx_packets_total"] == "counter"
    assert types["nfvd_latency_seconds"] == "histogram"
    for name, p in ports.items():
        assert samples[("nfvd_port_rx_packets_total", (("port", name),))] == p["rx_packets"]
        assert samples[("nfvd_port_tx_packets_total", (("port", name),))] == p["tx_packets"]
    prom_drops = {"%s/%s" % (dict(k[1])["node"], dict(k[1])["reason"]): v
                  for k, v in samples.items() if k[0] == "nfvd_drop_packets_total"}
    assert prom_drops == dict(drops)
    graph = n.ctl("show graph")["nodes"]
    for node in graph:
        key = (("node", node["node"]), ("worker", str(node["worker"])))
        assert samples[("nfvd_node_packets_total", key)] == node["packets"]
        if node["node"] not in ("port_rx", "inject", "flow_scan", "handoff"):  # sources
            assert samples[("nfvd_node_calls_total", key)] == node["calls"]
    assert samples[("nfvd_latency_seconds_count", ())] == st["packets"]["forwarded"]
    assert samples[("nfvd_latency_seconds_bucket", (("le", "+Inf"),))] == \
        st["packets"]["forwarded"]
    assert samples[("nfvd_icmp_errors_sent_total", (("family", "ipv4"),))] == 5
    assert samples[("nfvd_metrics_missing_fields_total", ())] == 0
    in_use = {dict(k[1])["pool"]: v for k, v in samples.items() if k[0] == "nfvd_mempool_in_use"}
    assert set(in_use.values()) == {0}
    assert samples[("nfvd_routes", (("family", "ipv4"),))] == st["tables"]["ipv4_routes"]

    tel_drops = telemetry(n.prefix, "/nfvd/drops")
    assert tel_drops["total"] == sum(drops.values())
    for key, v in drops.items():
        assert tel_drops["drops/%s" % key + "/packets"] == v
    tel_ports = telemetry(n.prefix, "/nfvd/ports")
    assert tel_ports["ports/p0/rx_packets"] == len(frames)
    assert tel_ports["ports/p1/tx_packets"] == 300
    tel_stats = telemetry(n.prefix, "/nfvd/stats")
    assert tel_stats["packets/received"] == len(frames)
    assert tel_stats["packets/forwarded"] == 305
    n.stop()


def test_stats_off_stops_only_the_optional_counters(nfvd):
    n = router(nfvd, flood_frames(), infinite=True)
    time.sleep(0.3)
    n.ctl("stats off")
    time.sleep(0.2)          # a walk or two may still count
    n.ctl("stats reset")
    time.sleep(0.5)
    graph = {x["node"]: x for x in n.ctl("show graph")["nodes"]}
    worker = n.ctl("show workers")["workers"][0]
    st = n.ctl("show stats")
    assert graph["ip4_lookup"]["packets"] == 0 and graph["port_tx"]["calls"] == 0
    assert n.ctl("show latency")["packets"] == 0
    assert sum(worker["rx_burst_hist"].values()) == 0
    assert st["packets"]["forwarded"] > 100000          # still forwarding and counting
    assert n.port_stats(st)["p1"]["tx_packets"] > 100000
    n.ctl("stats on")
    n.ctl("stats reset")
    time.sleep(0.3)
    assert n.ctl("show graph")["nodes"][0]["calls"] > 0
    assert n.ctl("show latency")["packets"] > 0
    n.stop()


def test_stats_reset_under_traffic_keeps_every_view_sane(nfvd):
    """'stats reset' while traffic flows: the report line's rates stay rates
    (its deltas are taken from counters the reset does not move), Prometheus
    counters never go back, 'show stats' adds up within itself, burst averages
    stay within the burst across 'stats off/on', and the latency histogram
    holds forwarded packets only."""
    port = free_port()
    frames = flood_frames() + [Ether(dst=nfvdlib.pcap_mac(0), src=HOST_MAC) /
                               IP(src="10.0.0.2", dst="203.0.113.9") / UDP() / Raw(b"bh")]
    n = router(nfvd, frames, infinite=True,
               extra=["-r", "0.2", "--metrics", "127.0.0.1:%d" % port])
    time.sleep(0.5)
    before, _types = scrape(port)
    for _ in range(5):
        n.ctl("stats reset")
        time.sleep(0.25)
    after, _types = scrape(port)
    for key, value in before.items():
        if key[0].endswith("_total") and key in after:
            assert after[key] >= value, (key, value, after[key])
    for _ in range(5):
        st = n.ctl("show stats")
        assert st["packets"]["dropped"] == sum(d["packets"] for d in st["drops"])
    n.ctl("stats off")
    time.sleep(0.3)
    n.ctl("stats on")
    time.sleep(0.3)
    worker = n.ctl("show workers")["workers"][0]
    assert 0 < worker["rx_burst_avg"] <= 32 and 0 < worker["tx_burst_avg"] <= 32, worker
    # A port down: what is sent to it is dropped, not forwarded, and has no latency.
    n.ctl("port set p1 down")
    n.ctl("stats reset")
    time.sleep(0.3)
    n.ctl("stats off")      # freeze the optional counters, then compare
    time.sleep(0.1)
    st = n.ctl("show stats")
    assert n.ctl("show latency")["packets"] <= st["packets"]["forwarded"] == 0
    n.ctl("stats on")
    n.ctl("port set p1 up")
    n.stop()
    reports = 0
    for line in n.log.splitlines():
        m = re.match(r"\s*[\d.]+s\s+(.*)\| drops/s:(.*)", line)
        if not m:
            continue
        reports += 1
        for rx_tx in re.findall(r"rx ([\d.]+) tx ([\d.]+) Mpps", m.group(1)):
            assert all(float(v) < 1000 for v in rx_tx), line
        for rate in re.findall(r" (\d+)(?= |$)", m.group(2)):
            assert int(rate) < 10 ** 9, line
    assert reports >= 5, n.log[-2000:]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def leaves(v):
    """Number of scalar values in a JSON document (what telemetry flattens)."""
    if isinstance(v, dict):
        return sum(leaves(x) for x in v.values())
    if isinstance(v, list):
        return sum(leaves(x) for x in v)
    return 0 if v is None else 1


def test_telemetry_says_when_a_reply_is_cut(nfvd):
    """DPDK telemetry dictionaries hold 256 values: with many ports, /nfvd/ports
    ends with "truncated" (the values left out) instead of silently stopping."""
    n = nfvd()
    for i in range(14):
        n.add_port("n%d" % i, null=True, opts=" rxd 64 txd 64")
    n.start()
    tel = telemetry(n.prefix, "/nfvd/ports")
    total = leaves(n.ctl("port show"))
    assert total > 256
    assert len(tel) == 256 and tel["truncated"] == total - 255, (len(tel), total)
    n.stop()


def test_top_shows_rates_and_refuses_what_it_cannot_do(nfvd):
    n = router(nfvd, flood_frames(), infinite=True)
    time.sleep(0.3)
    r = n.ctl_result("top", "-n", "1", "-d", "0.3", json_out=False)
    assert r.rc == 0, r.stderr
    out = r.stdout
    for heading in ("PORT", "WORKER", "NODE", "DROP", "latency (since the last stats reset)"):
        assert heading in out, out
    rx = re.search(r"^p0\s+([\d.]+)\s+([\d.]+)", out, re.M)
    tx = re.search(r"^p1\s+([\d.]+)\s+([\d.]+)", out, re.M)
    assert rx and tx, out
    assert 0.1 < float(rx.group(1)) < 1000 and 0.1 < float(tx.group(2)) < 1000, out
    # Plain IPv4 forwarding: the fused node does the work of ip4_input,
    # ip4_lookup and ip4_rewrite (they see none of these packets).
    assert "ip4_fast" in out
    for argv, why in ((["top", "-n", "0"], "at least 1"), (["top", "-d", "x"], "bad interval")):
        r = n.ctl_result(*argv, json_out=False)
        assert r.rc == 1 and why in r.stderr, (argv, r.rc, r.stderr)
    r = n.ctl_result("top", "-n", "1")          # --json
    assert r.rc == 1 and "text view" in r.stderr, r.stderr
    n.stop()
