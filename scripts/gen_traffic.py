#!/usr/bin/python3
"""Writes the traffic of `make run`: 64-byte frames to nfvd's first port.

Mostly IPv4 UDP flows to routed prefixes, some IPv6, and a few packets that
nfvd must not forward (TTL 1, no route) so that drop reasons show up.
"""
import random
import sys

from scapy.all import Ether, IP, IPv6, UDP, Raw, wrpcap

PORT_MAC = "02:70:63:61:70:00"   # net_pcap0
HOST_MAC = "02:00:00:00:0a:02"   # the sender, 10.0.0.2 / 2001:db8:a::2


def pad64(p):
    """Pads to 60 bytes so the frame is 64 bytes on the wire with the FCS."""
    raw = bytes(p)
    return Ether(raw + b"\x00" * max(0, 60 - len(raw)))


def main(path, flows=256):
    rnd = random.Random(1)
    pkts = []
    for i in range(1024):
        sport = 1024 + rnd.randrange(flows)
        kind = i % 128
        eth = Ether(dst=PORT_MAC, src=HOST_MAC)
        if kind == 0:      # TTL expires here: ICMP time exceeded back to the sender
            p = eth / IP(src="10.0.0.2", dst="198.18.1.1", ttl=1) / UDP(sport=sport, dport=9)
        elif kind == 1:    # no route: ICMP net unreachable
            p = eth / IP(src="10.0.0.2", dst="203.0.113.7") / UDP(sport=sport, dport=9)
        elif kind < 8:     # IPv6
            p = (eth / IPv6(src="2001:db8:a::2", dst="2001:db8:100::%x" % (sport & 0xff))
                 / UDP(sport=sport, dport=9))
        else:
            p = (eth / IP(src="10.0.0.2", dst="198.18.%d.%d" % (sport & 0xff, 1 + i % 200))
                 / UDP(sport=sport, dport=9))
        pkts.append(pad64(p))
    wrpcap(path, pkts)


if __name__ == "__main__":
    main(sys.argv[1])
