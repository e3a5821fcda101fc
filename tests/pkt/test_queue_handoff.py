# SPDX-License-Identifier: BSD-3-Clause
"""
RX queues changing hands at run time. A DPDK RX queue may be polled by one
thread at a time: when "worker set" moves a queue, or a port comes or goes,
or a port is set down, no two workers may ever poll the same queue, and a
down port is not polled at all. Two workers (lcores 1 and 2 on the
machine's two cores), an endless replay at full rate, and the queue moved
back and forth: every frame must come out whole (no drop of any reason,
received = forwarded), every mbuf back, and nfvd must exit cleanly.
"""
import time

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

import nfvdlib

TWO_WORKERS = ["--lcores", "0@0,1@0,2@1"]


def frames(mac, n=64):
    e = Ether(src="02:00:00:00:00:01", dst=mac)
    out = []
    for i in range(n):
        if i % 2:
            out.append(e / IP(src="100.64.0.1", dst="198.18.0.%d" % i) / UDP(sport=i))
        else:
            out.append(e / IPv6(src="2001:db8:ffff::1", dst="2001:db8:100::%x" % i) /
                       UDP(sport=i))
    return out


def router(nfvd):
    d = nfvd()
    d.lcores = TWO_WORKERS
    d.add_port("x1", null=True)
    d.add_port("out", null=True)
    d.cmd("addr add 10.1.0.254/24 dev out", "addr add 2001:db8:b::fe/64 dev out",
          "neigh add 10.1.0.1 lladdr 02:00:00:00:01:01 dev out",
          "neigh add 2001:db8:b::1 lladdr 02:00:00:00:01:01 dev out",
          "route add 198.18.0.0/16 via 10.1.0.1", "route add 2001:db8:100::/48 via 2001:db8:b::1")
    return d


def owner(d, queue):
    for w in d.api("show workers")["workers"]:
        if queue in w["rxqs"]:
            return w["worker"]
    return None


def check_clean(d):
    """Stops the flood, then: nothing dropped, everything forwarded, mbufs home."""
    d.del_port_now("in")
    st = d.wait_processed({})
    assert not nfvdlib.drops(st), nfvdlib.drops(st)
    assert st["packets"]["received"] == st["packets"]["forwarded"] > 0, st["packets"]
    assert st["tables"]["mbufs_in_use"] == 0
    d.stop()


def test_worker_set_moves_a_busy_queue_without_sharing_it(nfvd):
    d = router(nfvd)
    d.add_port("in", rx=frames(nfvdlib.pcap_mac(0)), infinite=True)
    d.start()
    # At least 3 s of moves and at least 20 of them; on a loaded machine a
    # move (it waits for both workers) can take long: up to 60 s for the 20.
    moves = 0
    start = time.monotonic()
    while time.monotonic() < start + 3 or moves < 20:
        assert time.monotonic() < start + 60, "only %d queue moves in 60 s" % moves
        target = 1 + moves % 2          # lcores 1 and 2: workers 0 and 1
        d.api("worker set %d rxq in:0" % target)
        assert owner(d, "in:0") == target - 1
        moves += 1
    assert d.api("show stats")["packets"]["received"] > 0
    check_clean(d)


def test_ports_coming_and_going_leave_other_queues_where_they_are(nfvd):
    d = router(nfvd)
    d.add_port("in", rx=frames(nfvdlib.pcap_mac(0)), infinite=True)
    d.start()
    where = owner(d, "in:0")
    assert where is not None
    # At least 3 s and 5 rounds (up to 60 s for the 5 on a loaded machine).
    start = time.monotonic()
    rounds = 0
    while time.monotonic() < start + 3 or rounds < 5:
        assert time.monotonic() < start + 60, "only %d rounds in 60 s" % rounds
        d.api("port del x1")
        assert owner(d, "in:0") == where
        d.api("port add x1 dev net_null9,no-rx=1")
        assert owner(d, "in:0") == where
        rounds += 1
    check_clean(d)


def test_a_down_port_is_not_polled(nfvd):
    d = router(nfvd)
    fr = frames(nfvdlib.pcap_mac(0))
    d.add_port("in", rx=fr)
    d.cmd("port set in down")
    d.start()
    time.sleep(0.5)
    assert owner(d, "in:0") is None
    assert d.port_stats()["in"]["rx_packets"] == 0
    d.api("port set in up")
    assert owner(d, "in:0") is not None
    st = d.wait_processed({"in": len(fr)})
    assert st["packets"]["forwarded"] == len(fr) and not nfvdlib.drops(st)
    d.stop()


def test_a_port_with_no_rx_queue_sends_and_is_never_polled(nfvd):
    """rxq 0: a port that only sends (a sink, a mirror's destination). It has
    no queue for any worker to poll, cannot be given one, and forwards to it
    exactly as to a port with queues."""
    d = nfvd()
    fr = [Ether(src="02:00:00:00:00:01", dst=nfvdlib.pcap_mac(0)) /
          IP(src="100.64.0.1", dst="198.18.0.%d" % i, ttl=64) / UDP(sport=1000 + i, dport=53)
          for i in range(40)]
    d.add_port("in", rx=fr)
    out = d.add_port("out", opts=" rxq 0")
    d.cmd("addr add 10.1.0.254/24 dev out",
          "neigh add 10.1.0.1 lladdr 02:00:00:00:01:01 dev out",
          "route add 198.18.0.0/16 via 10.1.0.1")
    d.start()
    queues = [q for w in d.api("show workers")["workers"] for q in w["rxqs"]]
    assert queues == ["in:0"], queues
    ports = {p["name"]: p for p in d.api("port show")["ports"]}
    assert ports["out"]["rxq"] == 0 and ports["in"]["rxq"] == 1, ports
    err = d.ctl_result("worker", "set", "1", "rxq", "out:0")
    assert err.rc != 0 and "port out has no RX queue 0 (it has 0)" in err.stderr, err.stderr
    st = d.wait_processed({"in": len(fr)})
    assert st["packets"]["forwarded"] == len(fr) and not nfvdlib.drops(st), st["packets"]
    assert st["tables"]["mbufs_in_use"] == 0
    d.stop()
    got = nfvdlib.read_pcap(out.tx_path)
    want = []
    for f in fr:
        w = f.copy()
        w[Ether].src, w[Ether].dst = nfvdlib.pcap_mac(1), "02:00:00:00:01:01"
        w[IP].ttl = 63
        del w[IP].chksum
        want.append(bytes(w))
    assert got == want
