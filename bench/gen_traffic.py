#!/usr/bin/python3
"""Generate the benchmark traffic (pcap files) and route files.

Traffic follows DPDK l3fwd's built-in LPM table (examples/l3fwd/main.c,
lpm_default_v4.cfg / lpm_default_v6.cfg):

    198.18.X.0/24        -> port X      (RFC 2544 benchmarking range)
    2001:200:0:X::/64    -> port X      (RFC 5180 benchmarking range)

Every frame goes to 198.18.1.0/24 (or 2001:200:0:1::/64) so that every
application forwards it from port 0 (the pcap input) to port 1 (the sink);
with --dst-nets 1,2 (IPv4) the frames go to 198.18.1.0/24 and 198.18.2.0/24
in turn, to ports 1 and 2 (destinations interleaved within every burst).
Frames carry the input port's MAC as destination (nfvd drops unicast frames
that are not for it; l3fwd and testpmd do not look).

Frame size is what the DUT sees as pkt_len (no FCS): a "64 B" frame is 64
bytes in the pcap.

Usage:
    gen_traffic.py pcap --out FILE --family 4|6 --size N --flows N --dst-mac MAC
                        [--dst-nets X,Y,...] [--dst-host IP] [--vxlan VNI:SRC:DST]
    gen_traffic.py routes --out FILE --count N --nexthops A,B,... [--seed N]
    gen_traffic.py pcap-from-routes --routes FILE --out FILE --flows N --dst-mac MAC
    gen_traffic.py churn --out-dir DIR --per-second N --seconds N --nexthop IP
"""

import argparse
import ipaddress
import os
import random
import sys

SRC_MAC = "02:00:00:00:00:01"
VXLAN_INNER_MAC = "02:00:00:00:00:02"

# Unicast space that BGP-like random routes must avoid: special-purpose
# blocks, and the benchmark ranges the traffic and the next hops live in.
RESERVED_V4 = [ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8",
    "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24",
    "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
    "224.0.0.0/3")]

# Approximate prefix-length mix of a public IPv4 BGP table
# (about 60% /24, the rest mostly /16../23).
BGP_LEN_WEIGHTS = {
    8: 0.000015, 9: 0.000012, 10: 0.000035, 11: 0.0001, 12: 0.0003,
    13: 0.0006, 14: 0.0011, 15: 0.002, 16: 0.013, 17: 0.008, 18: 0.014,
    19: 0.025, 20: 0.04, 21: 0.05, 22: 0.115, 23: 0.1, 24: 0.6,
}


def scapy():
    # Imported lazily: route generation does not need scapy.
    import logging
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    import scapy.all as s
    return s


def build_frame(s, family, dst_mac, src_ip, dst_ip, sport, dport, size):
    if family == 4:
        l3 = s.IP(src=src_ip, dst=dst_ip, ttl=64)
    else:
        l3 = s.IPv6(src=src_ip, dst=dst_ip, hlim=64)
    pkt = s.Ether(src=SRC_MAC, dst=dst_mac) / l3 / s.UDP(sport=sport, dport=dport)
    pad = size - len(pkt)
    if pad < 0:
        sys.exit(f"frame size {size} too small for IPv{family}/UDP ({len(pkt)} B)")
    pkt = pkt / s.Raw(b"\x00" * pad)
    # Materialise the checksums and lengths.
    return s.Ether(bytes(pkt))


def cmd_pcap(args):
    s = scapy()
    rnd = random.Random(args.seed)
    nets = [int(x) for x in args.dst_nets.split(",")]
    frames = []
    for i in range(args.flows):
        host = 1 + i % 254                     # 198.18.1.1 .. 198.18.1.254
        sport = 1024 + rnd.randrange(60000)
        dport = 1024 + rnd.randrange(60000)
        if args.dst_port:
            dport = args.dst_port
        family = args.family if args.family != 46 else (4, 6)[i % 2]
        net = nets[i % len(nets)] if args.family != 46 else nets[i // 2 % len(nets)]
        if family == 4:
            src = f"198.19.{1 + i // 254 % 250}.{1 + i % 254}"
            dst = args.dst_host or f"198.18.{net}.{host}"
        else:
            src = f"2001:200:0:100::{i + 1:x}"
            dst = f"2001:200:0:{net:x}::{host:x}"
        frame = build_frame(s, family, args.dst_mac, src, dst, sport, dport, args.size)
        if args.vxlan:
            # The frame inside a VXLAN datagram from a VTEP to nfvd's
            # address: the inner frame to a host behind the bridge.
            from scapy.layers.vxlan import VXLAN
            vni, vsrc, vdst = args.vxlan.split(":")
            inner = build_frame(s, family, VXLAN_INNER_MAC, src, dst, sport, dport, args.size)
            frame = (s.Ether(dst=args.dst_mac, src=SRC_MAC) / s.IP(src=vsrc, dst=vdst) /
                     s.UDP(sport=49152 + i % 16384, dport=4789, chksum=0) /
                     VXLAN(vni=int(vni)) / inner)
        frames.append(frame)
    s.wrpcap(args.out, frames)
    print(f"wrote {args.out}: {len(frames)} IPv{args.family} flows, {args.size} B, "
          f"to net(s) {args.dst_nets}")


def random_bgp_prefixes(count, seed):
    """count distinct random prefixes, lengths drawn from BGP_LEN_WEIGHTS."""
    rnd = random.Random(seed)
    lens = list(BGP_LEN_WEIGHTS)
    weights = [BGP_LEN_WEIGHTS[n] for n in lens]
    reserved = [(int(r.network_address), int(r.broadcast_address))
                for r in RESERVED_V4]
    seen = set()
    out = []
    while len(out) < count:
        for plen in rnd.choices(lens, weights, k=65536):
            mask = (0xFFFFFFFF << (32 - plen)) & 0xFFFFFFFF
            first = rnd.randrange(1 << 24, 224 << 24) & mask
            last = first | (~mask & 0xFFFFFFFF)
            if (first, plen) in seen or any(
                    first <= r_last and last >= r_first
                    for r_first, r_last in reserved):
                continue
            seen.add((first, plen))
            out.append(f"{first >> 24}.{first >> 16 & 255}.{first >> 8 & 255}."
                       f"{first & 255}/{plen}")
            if len(out) == count:
                break
    return out


def cmd_routes(args):
    nexthops = args.nexthops.split(",")
    prefixes = random_bgp_prefixes(args.count, args.seed)
    rnd = random.Random(args.seed + 1)
    with open(args.out, "w") as f:
        for net in prefixes:
            f.write(f"{net} via {rnd.choice(nexthops)}\n")
    print(f"wrote {args.out}: {len(prefixes)} BGP-like IPv4 routes, "
          f"{len(nexthops)} next hops")


def cmd_pcap_from_routes(args):
    """Traffic spread over a big table: one flow per randomly chosen route."""
    s = scapy()
    rnd = random.Random(args.seed)
    with open(args.routes) as f:
        lines = f.readlines()
    frames = []
    for i in range(args.flows):
        net = ipaddress.IPv4Network(rnd.choice(lines).split()[0])
        dst = str(net.network_address + rnd.randrange(net.num_addresses))
        src = f"198.19.{1 + i // 254 % 250}.{1 + i % 254}"
        frames.append(build_frame(s, 4, args.dst_mac, src, dst,
                                  1024 + rnd.randrange(60000),
                                  1024 + rnd.randrange(60000), args.size))
    s.wrpcap(args.out, frames)
    print(f"wrote {args.out}: {len(frames)} flows over the table in {args.routes}")


def cmd_churn(args):
    """One command file per second: add N/2 new /24s, delete the previous N/2.

    The churned prefixes come from 203.0.0.0/8 minus 203.0.113.0/24, never
    overlap the traffic's destinations, so forwarding of the measured traffic
    must not be disturbed.
    """
    os.makedirs(args.out_dir, exist_ok=True)
    half = args.per_second // 2
    pool = [f"203.{a}.{b}.0/24" for a in range(256) for b in range(256)
            if not (a == 0 and b == 113)]
    rnd = random.Random(args.seed)
    rnd.shuffle(pool)
    need = half * (args.seconds + 1)
    if need > len(pool):
        sys.exit(f"churn needs {need} distinct prefixes, pool has {len(pool)}")
    batches = [pool[i * half:(i + 1) * half] for i in range(args.seconds + 1)]
    # second 0 only adds (prefill), then each second adds a batch and deletes
    # the previous one: per_second updates a second.
    with open(os.path.join(args.out_dir, "prefill.cmds"), "w") as f:
        for p in batches[0]:
            f.write(f"route add {p} via {args.nexthop}\n")
    for sec in range(1, args.seconds + 1):
        with open(os.path.join(args.out_dir, f"sec{sec:03d}.cmds"), "w") as f:
            for add, dele in zip(batches[sec], batches[sec - 1]):
                f.write(f"route add {add} via {args.nexthop}\n")
                f.write(f"route del {dele}\n")
    print(f"wrote {args.seconds} churn files of {2 * half} updates to {args.out_dir}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("pcap")
    p.add_argument("--out", required=True)
    p.add_argument("--family", type=int, choices=(4, 6, 46), default=4,
                   help="46: IPv4 and IPv6 flows in turn")
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--flows", type=int, default=int(os.environ.get("BENCH_FLOWS", "512")))
    p.add_argument("--dst-mac", required=True)
    p.add_argument("--dst-nets", default="1",
                   help="X,Y,...: frames to 198.18.X.0/24, 198.18.Y.0/24, ... in turn")
    p.add_argument("--dst-host", default="",
                   help="IPv4: every frame to this address (traffic for the DUT itself)")
    p.add_argument("--dst-port", type=int, default=0,
                   help="every frame to this UDP port (0: a random one per flow)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--vxlan", default="",
                   help="VNI:SRC:DST: each frame inside a VXLAN datagram from SRC to DST")
    p.set_defaults(func=cmd_pcap)

    p = sub.add_parser("routes")
    p.add_argument("--out", required=True)
    p.add_argument("--count", type=int, default=1000000)
    p.add_argument("--nexthops", required=True)
    p.add_argument("--seed", type=int, default=2)
    p.set_defaults(func=cmd_routes)

    p = sub.add_parser("pcap-from-routes")
    p.add_argument("--routes", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--flows", type=int, default=1024)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--dst-mac", required=True)
    p.add_argument("--seed", type=int, default=3)
    p.set_defaults(func=cmd_pcap_from_routes)

    p = sub.add_parser("churn")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--per-second", type=int, default=10000)
    p.add_argument("--seconds", type=int, default=10)
    p.add_argument("--nexthop", required=True)
    p.add_argument("--seed", type=int, default=4)
    p.set_defaults(func=cmd_churn)

    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
