#!/usr/bin/python3
"""Seed corpus for the graph fuzzer: one well-formed frame per path."""
import os
import sys

from scapy.all import (Ether, IP, IPv6, UDP, TCP, ICMP, ICMPv6EchoRequest, ARP, Dot1Q,
                       IPv6ExtHdrHopByHop, IPv6ExtHdrFragment, raw)

MAC = "02:00:00:00:00:02"
DST = "02:00:00:00:00:99"  # replaced by the port MAC in the harness
seeds = {
    "v4_fwd": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1") / UDP() / (b"x" * 18),
    "v4_ecmp": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.51.100.9") / TCP(),
    "v4_ttl1": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1", ttl=1) / UDP(),
    "v4_noroute": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="100.64.0.1") / UDP(),
    "v4_blackhole": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="203.0.113.1") / UDP(),
    "v4_connected": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="192.0.2.1") / UDP(),
    "v4_echo": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="10.0.0.1") / ICMP() / b"ping",
    "v4_big_df": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1", flags="DF") / UDP() / (b"y" * 900),
    "v4_big": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1") / UDP() / (b"y" * 900),
    "v4_opts": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1", options=b"\x01\x01\x01\x00") / UDP(),
    "v4_frag": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1", frag=10) / UDP(),
    "v6_fwd": Ether(src=MAC, dst=DST) / IPv6(src="2001:db8:a::2", dst="2001:db8:100::1") / UDP(),
    "v6_hop1": Ether(src=MAC, dst=DST) / IPv6(src="2001:db8:a::2", dst="2001:db8:100::1", hlim=1) / UDP(),
    "v6_echo": Ether(src=MAC, dst=DST) / IPv6(src="2001:db8:a::2", dst="2001:db8:a::1") / ICMPv6EchoRequest(),
    "v6_ext": Ether(src=MAC, dst=DST) / IPv6(src="2001:db8:a::2", dst="2001:db8:100::1") / IPv6ExtHdrHopByHop() / IPv6ExtHdrFragment() / UDP(),
    "v6_big": Ether(src=MAC, dst=DST) / IPv6(src="2001:db8:a::2", dst="2001:db8:100::1") / UDP() / (b"z" * 900),
    "v4_dnat": Ether(src=MAC, dst=DST) / IP(src="198.18.9.9", dst="10.0.0.1") / TCP(sport=5555, dport=8080, flags="S"),
    "v4_snat_echo": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1") / ICMP(id=7) / b"ping",
    "v4_lb_syn": Ether(src=MAC, dst=DST) / IP(src="10.0.0.7", dst="198.18.0.100") / TCP(sport=4000, dport=80, flags="S"),
    "v4_lb_udp": Ether(src=MAC, dst=DST) / IP(src="10.0.0.7", dst="198.18.0.100") / UDP(sport=4000, dport=80) / b"q",
    "v4_lb_dsr": Ether(src=MAC, dst=DST) / IP(src="10.0.0.7", dst="198.18.0.100") / TCP(sport=4001, dport=443, flags="S"),
    "v4_lb_reply": Ether(src=MAC, dst=DST) / IP(src="10.1.0.2", dst="10.0.0.7") / TCP(sport=8080, dport=4000, flags="SA"),
    "v4_snat_gre": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1", proto=47) / b"\0\0\x08\0",
    "arp": Ether(src=MAC, dst="ff:ff:ff:ff:ff:ff") / ARP(),
    "vlan": Ether(src=MAC, dst=DST) / Dot1Q(vlan=5) / IP(src="10.0.0.2", dst="198.18.1.1") / UDP(),
}
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, pkt in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(raw(pkt))
