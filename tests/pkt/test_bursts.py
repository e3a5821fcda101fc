# SPDX-License-Identifier: BSD-3-Clause
"""
Bursts kept whole from RX to TX, and every RX queue served (DESIGN 5.1).

- TX: frames whose destinations alternate between two prefixes routed out of
  two ports leave in one burst per port and walk (net_pcap RX bursts of 32
  alternating between 2 ports: TX bursts of 16 each), not in bursts of one,
  and "show diag" does not call that a burst mismatch; "debug tx-split"
  still cuts each port's share, and "show diag" names that. Destinations
  drawn at random among three ports, one of them down: one TX burst per port
  and RX burst, the down port's frames dropped and counted.
- RX: with two or three input ports busy at once, a worker takes a burst from
  each in turn (each walk starts at the queue after the last one polled), so
  none waits for another to go quiet: the output holds the inputs' bursts of
  32 in round-robin order, and the ports' RX counters grow together.

The worker's RX queues are its ports in the order they were added (one queue
each); output ports are polled too and receive nothing.
"""
import random
import re
import time
from collections import Counter

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import nfvdlib
from topo import routed4

BURST = 32
HOSTS = ["02:00:00:00:00:%02x" % (0x0a + i) for i in range(3)]
GW1, GW2, GWOUT = "02:00:00:00:01:01", "02:00:00:00:02:01", "02:00:00:00:09:01"
EMPTY_HIST = {"1": 0, "2-3": 0, "4-7": 0, "8-15": 0, "16-31": 0, "32-63": 0, "64-127": 0,
              "128-255": 0, "256-511": 0}


def hist(**buckets):
    """A burst histogram of show workers: the buckets given, the others 0."""
    h = dict(EMPTY_HIST)
    h.update({k.replace("_", "-").lstrip("b"): v for k, v in buckets.items()})
    return h


def frame(port, i, dst):
    """A 64-byte frame to the i-th input port's MAC, from host i."""
    return (Ether(dst=nfvdlib.pcap_mac(port), src=HOSTS[port])
            / IP(src="10.%d.0.2" % port, dst=dst) / UDP(sport=1000 + i % 50000, dport=9)
            / Raw(b"%06d" % i + b"." * 16))


def alternating(n):
    """Frames to 198.18.1.x (out of p1) and 198.18.2.x (out of p2) in turn."""
    return [frame(0, i, "198.18.%d.%d" % (1 + i % 2, 1 + i // 2 % 250)) for i in range(n)]


def fan_out_router(nfvd, rx, infinite=False, sinks_null=False):
    """p0 receives rx; 198.18.1.0/24 leaves by p1, 198.18.2.0/24 by p2."""
    n = nfvd()
    n.add_port("p0", rx=rx, infinite=infinite)
    n.add_port("p1", null=sinks_null)
    n.add_port("p2", null=sinks_null)
    n.cmd("addr add 10.0.0.1/24 dev p0", "addr add 10.1.0.1/24 dev p1",
          "addr add 10.2.0.1/24 dev p2",
          "neigh add 10.1.0.2 lladdr %s dev p1" % GW1,
          "neigh add 10.2.0.2 lladdr %s dev p2" % GW2,
          "route add 198.18.1.0/24 via 10.1.0.2",
          "route add 198.18.2.0/24 via 10.2.0.2")
    return n.start()


def test_interleaved_destinations_leave_in_one_burst_per_port(nfvd):
    n_frames = 40 * BURST
    frames = alternating(n_frames)
    n = fan_out_router(nfvd, frames)
    st = n.wait_processed({"p0": n_frames})
    assert not nfvdlib.drops(st), nfvdlib.drops(st)
    assert st["packets"]["received"] == st["packets"]["forwarded"] == n_frames
    ports = n.port_stats(st)
    assert ports["p1"]["tx_packets"] == ports["p2"]["tx_packets"] == n_frames // 2
    # net_pcap reads its file a full burst at a time: 40 RX bursts of 32, each
    # 16 + 16 frames for p1 and p2, sent as one burst per port: 80 bursts of 16.
    worker = n.api("show workers")["workers"][0]
    assert worker["rx_burst_hist"] == hist(b32_63=40), worker
    assert worker["tx_burst_hist"] == hist(b16_31=80), worker
    assert worker["rx_burst_avg"] == 32.0 and worker["tx_burst_avg"] == 16.0, worker
    out = n.stop()
    # Every frame forwarded byte for byte, in order within each port.
    assert out["p1"] == [bytes(routed4(f, GW1, nfvdlib.pcap_mac(1))) for f in frames[0::2]]
    assert out["p2"] == [bytes(routed4(f, GW2, nfvdlib.pcap_mac(2))) for f in frames[1::2]]
    assert out["p0"] == []


def bucket(size):
    """The burst histogram bucket of a burst of `size` packets."""
    lo = 1 << (size.bit_length() - 1)
    return str(lo) if lo == 1 else "%d-%d" % (lo, 2 * lo - 1)


def test_mixed_destinations_over_three_ports_one_down(nfvd):
    """Destinations drawn at random among three ports, the third one down:
    each RX burst of 32 leaves in one TX burst per port it holds packets for
    (grouping takes several passes when more than two ports remain), each
    port's frames in order; the down port's frames are dropped, counted."""
    rnd = random.Random(7)
    dests = [rnd.choice((1, 2, 3)) for _ in range(30 * BURST)]
    frames = [frame(0, i, "198.18.%d.%d" % (d, 1 + i % 250)) for i, d in enumerate(dests)]
    n = nfvd()
    n.add_port("p0", rx=frames)
    gws = {1: GW1, 2: GW2, 3: "02:00:00:00:03:01"}
    n.cmd("addr add 10.0.0.1/24 dev p0")
    for k in (1, 2, 3):
        n.add_port("p%d" % k)
        n.cmd("addr add 10.%d.0.1/24 dev p%d" % (k, k),
              "neigh add 10.%d.0.2 lladdr %s dev p%d" % (k, gws[k], k),
              "route add 198.18.%d.0/24 via 10.%d.0.2" % (k, k))
    n.cmd("port set p3 down")
    n.start()
    st = n.wait_processed({"p0": len(frames)})
    to = {k: [f for f, d in zip(frames, dests) if d == k] for k in (1, 2, 3)}
    assert nfvdlib.drops(st) == Counter({"port_tx/port_down": len(to[3])})
    assert st["packets"]["forwarded"] == len(to[1]) + len(to[2])
    ports = n.port_stats(st)
    assert ports["p1"]["tx_packets"] == len(to[1]) and ports["p2"]["tx_packets"] == len(to[2])
    expected = Counter()
    for b in range(0, len(dests), BURST):
        for k in (1, 2):
            size = dests[b:b + BURST].count(k)
            if size:
                expected[bucket(size)] += 1
    worker = n.api("show workers")["workers"][0]
    assert worker["rx_burst_hist"] == hist(b32_63=len(frames) // BURST), worker
    assert worker["tx_burst_hist"] == dict(EMPTY_HIST, **expected), worker
    out = n.stop()
    for k in (1, 2):
        assert out["p%d" % k] == [bytes(routed4(f, gws[k], nfvdlib.pcap_mac(k))) for f in to[k]]
    assert out["p3"] == []


def measure(n, seconds):
    """Worker counters and diag findings over `seconds` of traffic."""
    n.ctl("stats reset")
    time.sleep(seconds)
    return n.ctl("show workers")["workers"][0], n.ctl("show diag")["findings"]


def test_fan_out_is_no_burst_mismatch_but_tx_split_is(nfvd):
    n = fan_out_router(nfvd, alternating(2 * BURST), infinite=True, sinks_null=True)
    worker, findings = measure(n, 1.0)
    # Counters are read while traffic flows: allow a few packets of skew.
    assert abs(worker["rx_burst_avg"] - 32.0) < 0.1, worker
    assert abs(worker["tx_burst_avg"] - 16.0) < 0.1, worker
    assert worker["tx_burst_hist"]["16-31"] > 1000, worker
    assert worker["tx_burst_hist"]["1"] == worker["tx_burst_hist"]["2-3"] == 0, worker
    assert "burst_mismatch" not in [f["pattern"] for f in findings], findings

    # Each port's 16 frames cut into bursts of 4: that is nfvd cutting bursts.
    n.ctl("debug tx-split 4")
    worker, findings = measure(n, 1.0)
    assert 3.9 < worker["tx_burst_avg"] < 4.1, worker
    assert worker["tx_burst_hist"]["4-7"] > 1000 and worker["tx_burst_hist"]["16-31"] == 0
    mismatch = [f for f in findings if f["pattern"] == "burst_mismatch"]
    assert len(mismatch) == 1, findings
    assert re.search(r"TX bursts average [34]\.\d packets but RX bursts 3[12]\.\d "
                     r"\(1[5-7]\.\d per output port and walk\)", mismatch[0]["detail"]), \
        mismatch[0]["detail"]
    n.ctl("debug tx-split 0")
    worker, findings = measure(n, 0.5)
    assert abs(worker["tx_burst_avg"] - 16.0) < 0.1, worker
    n.stop()


def merge_router(nfvd, inputs, infinite=False, walk_max=None):
    """Input ports i0..ik-1 (inputs: their frames); everything to 198.18.0.0/16
    leaves by the last port, "out"."""
    n = nfvd()
    if walk_max:
        n.extra_args = ["--walk-max", walk_max]
    for k, rx in enumerate(inputs):
        n.add_port("i%d" % k, rx=rx, infinite=infinite)
        n.cmd("addr add 10.%d.0.1/24 dev i%d" % (k, k))
    n.add_port("out", null=infinite)
    n.cmd("addr add 10.9.0.1/24 dev out", "neigh add 10.9.0.2 lladdr %s dev out" % GWOUT,
          "route add 198.18.0.0/16 via 10.9.0.2")
    return n.start()


def test_busy_inputs_are_served_in_turn(nfvd):
    """Two inputs, walk-max = burst (the default): one burst per walk, taken
    from i0, i1, i0, i1, ... (the idle output port's queue is skipped)."""
    check_round_robin(nfvd, n_inputs=2, walk_max=None)


def test_busy_inputs_are_served_in_turn_with_a_larger_walk(nfvd):
    """Three inputs, --walk-max 64: two bursts per walk, the next walk going
    on from the queue after the last one polled: i0 i1 | i2 i0 | i1 i2 | ...
    Each walk's 64 frames leave in one TX burst."""
    check_round_robin(nfvd, n_inputs=3, walk_max=64)


def check_round_robin(nfvd, n_inputs, walk_max):
    per_port = 20 * BURST
    inputs = [[frame(k, i, "198.18.%d.%d" % (10 + k, 1 + i % 250)) for i in range(per_port)]
              for k in range(n_inputs)]
    n = merge_router(nfvd, inputs, walk_max=walk_max)
    st = n.wait_processed({"i%d" % k: per_port for k in range(n_inputs)})
    assert not nfvdlib.drops(st), nfvdlib.drops(st)
    total = n_inputs * per_port
    assert st["packets"]["received"] == st["packets"]["forwarded"] == total
    ports = n.port_stats(st)
    assert ports["out"]["tx_packets"] == total
    per_walk = walk_max or BURST
    worker = n.api("show workers")["workers"][0]
    assert worker["rx_burst_hist"] == hist(b32_63=total // BURST), worker
    bucket = "b%d_%d" % (per_walk, 2 * per_walk - 1)
    assert worker["tx_burst_hist"] == hist(**{bucket: total // per_walk}), worker
    out = n.stop()["out"]

    # Byte for byte, and in bursts of 32 from the inputs in turn.
    expected = {bytes(routed4(f, GWOUT, nfvdlib.pcap_mac(n_inputs))): k
                for k, frames in enumerate(inputs) for f in frames}
    assert len(out) == total and set(out) == set(expected)
    sources = [expected[f] for f in out]
    blocks = [sources[b:b + BURST] for b in range(0, total, BURST)]
    assert all(len(set(b)) == 1 for b in blocks), "a burst of 32 mixes inputs"
    order = [b[0] for b in blocks]
    first = order[0]
    assert order == [(first + j) % n_inputs for j in range(len(order))], order
    # Within each input, the frames in the order they came.
    for k in range(n_inputs):
        mine = [f for f in out if expected[f] == k]
        assert mine == [bytes(routed4(f, GWOUT, nfvdlib.pcap_mac(n_inputs)))
                        for f in inputs[k]]


def test_busy_inputs_grow_together(nfvd):
    """Two inputs replayed without end: while both are busy, their RX counters
    stay within a few bursts of each other (they take turns)."""
    frames = [[frame(k, i, "198.18.%d.%d" % (10 + k, 1 + i)) for i in range(2 * BURST)]
              for k in range(2)]
    n = merge_router(nfvd, frames, infinite=True)
    for _ in range(3):
        time.sleep(0.3)
        ports = n.port_stats()
        a, b = ports["i0"]["rx_packets"], ports["i1"]["rx_packets"]
        # The two counters are read one after the other while traffic flows.
        assert a > 10000 and b > 10000, (a, b)
        assert abs(a - b) <= max(1000, (a + b) // 100), (a, b)
    n.stop()
