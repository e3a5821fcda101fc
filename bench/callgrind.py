#!/usr/bin/python3
"""Instructions per packet of nfvd's worker, by node, under callgrind.

Wall-clock rates on a shared machine move with the neighbours; instruction
counts do not. This runs nfvd under `valgrind --tool=callgrind` with the
bench's ports and traffic (net_pcap replaying a pcap forever into net_null
sinks, one worker), zeroes the counters once it forwards, dumps them WINDOW
seconds later and prints, for the worker thread, the instructions per
forwarded packet of the whole thread and of each node's process function
(inclusive: what it calls, drivers and FIB, counts with it).

    bench/callgrind.py [--nfvd BIN] [--l3fwd BIN] [--window S] [--warmup S] CASE...

With --l3fwd BIN, DPDK's l3fwd (a build without -march=native of the copy
run.sh makes) runs instead, with the same ports and traffic, so that the two
compare in instructions (whole forwarding thread, drivers included: the
same driver code for both): its packets are the calls of its
l3fwd_lpm_process_packets (one per RX burst, each full) times the burst.

Cases: ipv4 (64 B, one output port), ipv4-2ports, ipv4-4ports (destinations
interleaved within every burst), ipv6, ipv6-2ports, mixed (IPv4 and IPv6
interleaved, one port), ipv4-stats-off, ipv4-chain and ipv6-chain (`debug
fastpath off`: the node chain), ipv4-acl (bench.py's 1,000-rule ACLs
on `in` ingress and `out1` egress), ipv4-acl-nocache (the same, with
`acl set cache off`), ipv6-acl (the same ACLs, whose last rule, a permit
of either family, every IPv6 packet of the ipv6 case's traffic hits), ipv4-ct (one reflect rule on `in`: the
established-flow path, every packet a connection-table hit), ipv4-ct-16k
(the same with 16,384 flows, twice what the flow cache holds: every
packet an rte_hash lookup), ipv4-nat
(source NAT44 of the 512 flows on `out1`), ipv4-flow (flow statistics on),
ipv4-capture-nomatch (bench.py's ipv4-64-visibility captures: `in` in and
`out1` out, filter "tcp port 9", which none of the traffic matches),
ipv4-upf-decap (the UPF's uplink: the ipv4 case's 254 destinations, each
the inner packet of a GTP-U G-PDU to the N3 address on `in` with its own
TEID, 254 PDRs in 16 sessions made over PFCP before the window; the inner packet is
routed out of out1), ipv4-upf-encap (the UPF's downlink: the ipv4 case's
traffic, each destination a session's UE address, encapsulated toward a
gNB behind out1, N3 on out1),
ipv4-vip and ipv4-lb (512 UDP flows to one address and port, routed; and
that address and port a load-balancer VIP over four backends, a session
hit per packet), bridge (in and out1 bridged, every frame flooded to out1), vxlan-encap (in
bridged with a VXLAN interface, encapsulated to a remote via out1),
vxlan-decap (the frames inside VXLAN to in's address, bridged to out1).

Packets: calls of port_rx's process function (one graph walk each) times
the walk (one burst of 32, nfvd's default, or as many as --walk-max holds): every walk
takes full RX bursts from the replayed port until it has no room for
another (the sinks are send-only, `rxq 0`, and not polled, as l3fwd polls
the input port alone; every RX burst of the endless replay is full), so that is exactly the packets of the dumped window (nfvd's own counters, read through the control thread,
which valgrind slows to seconds per reply, do not line up with it).

valgrind cannot run code built for the build machine's own instruction set
extensions it does not know: build nfvd with `meson setup build-cg
-Dnative=false --buildtype=release` for this (the default --nfvd).
Counts are deterministic to about 0.1 instructions per packet. For a
line-level profile, build with `-Ddebug=true` too and run with --keep
--dump-instr, then `callgrind_annotate --auto=yes DUMP` on the worker's dump.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
PY = "/usr/bin/python3"
NFVCTL = os.path.join(TOP, "build/src/nfvctl")
DUT_MAC = "02:70:63:61:70:00"
BURST = 32

# (traffic file, gen_traffic arguments, output ports, families)
CASES = {
    "ipv4": ("ipv4-64.pcap", ["--family", "4"], 1, "4"),
    "ipv4-2ports": ("ipv4-64-2ports.pcap", ["--family", "4", "--dst-nets", "1,2"], 2, "4"),
    "ipv4-4ports": ("ipv4-64-4ports.pcap", ["--family", "4", "--dst-nets", "1,2,3,4"], 4, "4"),
    "ipv6": ("ipv6-64.pcap", ["--family", "6"], 1, "6"),
    "ipv6-2ports": ("ipv6-64-2ports.pcap", ["--family", "6", "--dst-nets", "1,2"], 2, "6"),
    "mixed": ("mixed-64.pcap", ["--family", "46"], 1, "46"),
    "ipv4-stats-off": ("ipv4-64.pcap", ["--family", "4"], 1, "4"),
    "ipv4-chain": ("ipv4-64.pcap", ["--family", "4"], 1, "4"),
    "ipv6-chain": ("ipv6-64.pcap", ["--family", "6"], 1, "6"),
    "ipv4-acl": ("ipv4-64.pcap", ["--family", "4"], 1, "4"),
    "ipv6-acl": ("ipv6-64.pcap", ["--family", "6"], 1, "6"),
    "ipv4-nat": ("ipv4-64.pcap", ["--family", "4"], 1, "4"),
    "ipv4-acl-nocache": ("ipv4-64.pcap", ["--family", "4"], 1, "4"),
    "ipv4-flow": ("ipv4-64.pcap", ["--family", "4"], 1, "4"),
    "ipv4-capture-nomatch": ("ipv4-64.pcap", ["--family", "4"], 1, "4"),
    "ipv4-ct": ("ipv4-64.pcap", ["--family", "4"], 1, "4"),
    "ipv4-upf-decap": ("upf-decap-64.pcap", None, 1, "4"),
    "ipv4-upf-encap": ("ipv4-64.pcap", ["--family", "4"], 1, "4"),
    "ipv4-ct-16k": ("ipv4-64-16kflows.pcap", ["--family", "4", "--flows", "16384"], 1, "4"),
    # 512 flows to one address and UDP port: plain routing, and the same
    # address and port as a load-balancer VIP over four backends.
    "ipv4-vip": ("ipv4-64-vip.pcap", ["--family", "4", "--dst-host", "198.18.1.100",
                                      "--dst-port", "53"], 1, "4"),
    "ipv4-lb": ("ipv4-64-vip.pcap", ["--family", "4", "--dst-host", "198.18.1.100",
                                     "--dst-port", "53"], 1, "4"),
    "bridge": ("ipv4-64.pcap", ["--family", "4"], 1, "4"),
    "vxlan-encap": ("ipv4-64.pcap", ["--family", "4"], 1, "4"),
    "vxlan-decap": ("ipv4-64-vxlan.pcap", ["--family", "4", "--vxlan",
                                           "100:198.18.0.2:198.18.0.1"], 1, "4"),
}
UPF_N3_DECAP = "192.0.2.1"    # on in: the gNB sends to it
UPF_N3_ENCAP = "198.19.0.1"   # out1's address: toward the gNB 198.19.0.2
UPF_GNB = "198.19.0.2"
UPF_UES = 254                 # the traffic's destinations 198.18.1.1-254
LB_LINES = ["lb service add 198.18.1.100:53 proto udp"] + [
    f"lb backend add 198.18.1.100:53 proto udp 198.18.1.{b}" for b in range(11, 15)]
L3FWD_FUNCS = ["l3fwd_lpm_process_packets", "rte_lpm6_lookup_bulk_func"]
NODES = ["port_rx_process", "eth_input_process", "ip4_fast_process", "ip6_fast_process",
         "nfv_ip_fast_group_of",
         "ip4_input_process", "ip4_lookup_process", "ip4_rewrite_process",
         "port_tx_grouped",
         "ip6_input_process", "ip6_lookup_process", "ip6_rewrite_process",
         "port_tx_process", "rte_fib_lookup_bulk", "rte_fib6_lookup_bulk",
         "eth_pcap_rx_infinite", "eth_null_tx", "acl_in4_process", "acl_out4_process",
         "acl_in6_process", "acl_out6_process",
         "rte_acl_classify", "nat44_out_process", "flow_in_process", "flow_scan_process",
         "capture_in_process", "nfv_capture_tx_cb", "upf_gtpu_process",
         "upf_downlink_process", "lb_in_process",
         "bridge_input_process", "rte_hash_lookup", "rte_pktmbuf_copy",
         "vxlan_input_process", "vxlan_output_process", "ip4_local_process",
         "rte_hash_lookup_bulk_data", "nfv_ct_hit"]


def config(case, pcap):
    _f, _g, outs, fams = CASES[case]
    lines = [f"port add in dev net_pcap0,rx_pcap={pcap},infinite_rx=1 rxd 1024 txd 1024"]
    for k in range(1, outs + 1):
        lines += [f"port add out{k} dev net_null{k},no-rx=1 rxd 1024 txd 1024 rxq 0",
                  f"addr add 198.19.{k - 1}.1/24 dev out{k}",
                  f"neigh add 198.19.{k - 1}.2 lladdr 02:00:00:00:00:{k + 1:02x} dev out{k}",
                  f"route add 198.18.{k}.0/24 via 198.19.{k - 1}.2",
                  f"addr add 2001:200:0:ff{k - 1:02x}::1/64 dev out{k}",
                  f"neigh add 2001:200:0:ff{k - 1:02x}::2 lladdr 02:00:00:00:00:{k + 1:02x}"
                  f" dev out{k}",
                  f"route add 2001:200:0:{k}::/64 via 2001:200:0:ff{k - 1:02x}::2"]
    if case.endswith("stats-off"):
        lines.append("stats off")
    if case.endswith("-chain"):
        lines.append("debug fastpath off")
    if case == "ipv4-nat":
        lines.append("nat44 snat add src 198.19.0.0/16 dev out1")
    if case.startswith(("ipv4-acl", "ipv6-acl")):
        sys.path.insert(0, HERE)
        from bench import acl_lines
        lines += [ln.replace("dev out out", "dev out1 out") for ln in acl_lines(1000)]
        if case.endswith("nocache"):
            lines.append("acl set cache off")
    if case == "ipv4-flow":
        lines.append("flow enable")
    if case == "ipv4-capture-nomatch":
        # bench.py's ipv4-64-visibility: a capture on each port, both arcs,
        # a filter that matches none of the traffic.
        # The files go to nfvd's working directory, the run's own.
        lines += ['capture start dev in in file cap-in.pcapng filter "tcp port 9"',
                  'capture start dev out1 out file cap-out.pcapng filter "tcp port 9"']
    if case == "ipv4-upf-decap":
        lines += [f"addr add {UPF_N3_DECAP}/24 dev in", f"upf set n3 {UPF_N3_DECAP} dev in"]
    if case == "ipv4-upf-encap":
        lines += [f"upf set n3 {UPF_N3_ENCAP} dev out1"]
    if case.startswith("ipv4-upf"):
        lines += [f"upf pfcp listen 127.0.0.1:{upf_pfcp_port()} node-id bench"]
    if case == "ipv4-lb":
        lines += LB_LINES
    if case == "bridge":
        # in and out1 bridged: the traffic's destination MAC is never
        # learned, so every frame is flooded to out1, the one other port.
        lines += ["bridge add br0", "bridge port add br0 dev in", "bridge port add br0 dev out1"]
    if case == "vxlan-encap":
        # in bridged with vx0, whose one remote is reached through out1.
        lines += ["vxlan add vx0 vni 100 local 198.19.0.1 remote 198.19.0.2", "bridge add br0",
                  "bridge port add br0 dev in", "bridge port add br0 dev vx0"]
    if case == "vxlan-decap":
        # VXLAN datagrams to in's address, bridged (flooded) to out1.
        lines += ["addr add 198.18.0.1/24 dev in", "vxlan add vx0 vni 100 local 198.18.0.1",
                  "bridge add br0", "bridge port add br0 dev vx0",
                  "bridge port add br0 dev out1"]
    if case == "ipv4-ct-16k":
        # net_pcap holds the whole file in mbufs: a bigger pool.
        lines[0] = lines[0].replace("rxd 1024 txd 1024", "rxd 2048 txd 2048")
    if case in ("ipv4-ct", "ipv4-ct-16k"):
        # bench.py's established-flow case: one reflect rule on in; after
        # the first packet of each of the 512 flows, every packet is a
        # connection-table hit.
        lines += ["acl add fin", "acl rule add fin prio 1 action reflect",
                  "acl attach fin dev in in"]
    return "\n".join(lines) + "\n"


def upf_pfcp_port():
    return 20000 + os.getpid() % 20000


def upf_decap_traffic(path):
    """The ipv4 case's flows, each inside a G-PDU to N3 with TEID = host."""
    sys.path.insert(0, HERE)
    import gen_traffic
    s = gen_traffic.scapy()
    from scapy.contrib.gtp import GTP_U_Header
    frames = []
    for i in range(512):
        host = 1 + i % 254
        inner = s.IP(src=f"198.19.1.{host}", dst=f"198.18.1.{host}", ttl=64) / s.UDP(
            sport=1024 + i, dport=2048 + i) / (b"\x00" * 18)
        frames.append(s.Ether(bytes(s.Ether(src="02:00:00:00:00:ee", dst=DUT_MAC) / s.IP(
            src="192.0.2.2", dst=UPF_N3_DECAP, ttl=64) / s.UDP(sport=2152, dport=2152) /
            GTP_U_Header(teid=host) / inner)))
    s.wrpcap(path, frames)


def upf_sessions(case, timeout=600):
    """Sessions for the traffic's 254 destinations, made by a scapy SMF
    before the measured window: 16 sessions of 16 PDRs (each with its own
    FAR), as few PFCP round trips as valgrind's pace allows. Uplink: TEID =
    host; downlink: UE 198.18.1.host toward the gNB with TEID = host."""
    import socket
    from scapy.contrib.pfcp import (PFCP, IE_ApplyAction, IE_CreateFAR, IE_CreatePDR,
                                    IE_DestinationInterface, IE_FAR_Id, IE_FSEID, IE_FTEID,
                                    IE_ForwardingParameters, IE_NodeId,
                                    IE_OuterHeaderCreation, IE_PDI, IE_PDR_Id,
                                    IE_Precedence, IE_RecoveryTimeStamp, IE_SourceInterface,
                                    IE_UE_IP_Address, PFCPAssociationSetupRequest,
                                    PFCPSessionEstablishmentRequest)
    sk = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sk.bind(("127.0.0.1", 0))
    sk.settimeout(timeout)
    to = ("127.0.0.1", upf_pfcp_port())
    node = IE_NodeId(id_type=0, ipv4="127.0.0.1")

    def ask(msg):
        sk.sendto(bytes(msg), to)
        r = PFCP(sk.recv(65535))
        cause = [ie.cause for ie in r.payload.IE_list if type(ie).__name__ == "IE_Cause"]
        if cause != [1]:
            sys.exit(f"{case}: PFCP refused: {r.summary()}")

    ask(PFCP(version=1, S=0, seq=1) / PFCPAssociationSetupRequest(IE_list=[
        node, IE_RecoveryTimeStamp(timestamp=3900000000)]))
    hosts = list(range(1, UPF_UES + 1))
    for n, first in enumerate(range(0, len(hosts), 16)):
        rules = []
        for k, h in enumerate(hosts[first:first + 16], 1):
            if case == "ipv4-upf-decap":
                pdi = [IE_SourceInterface(interface=0),
                       IE_FTEID(V4=1, TEID=h, ipv4=UPF_N3_DECAP)]
                fwd = [IE_DestinationInterface(interface=1)]
            else:
                pdi = [IE_SourceInterface(interface=1),
                       IE_UE_IP_Address(V4=1, SD=1, ipv4=f"198.18.1.{h}")]
                fwd = [IE_DestinationInterface(interface=0),
                       IE_OuterHeaderCreation(GTPUUDPIPV4=1, TEID=h, ipv4=UPF_GNB)]
            rules += [IE_CreatePDR(IE_list=[IE_PDR_Id(id=k), IE_Precedence(precedence=1),
                                            IE_PDI(IE_list=pdi), IE_FAR_Id(id=k)]),
                      IE_CreateFAR(IE_list=[IE_FAR_Id(id=k), IE_ApplyAction(FORW=1),
                                            IE_ForwardingParameters(IE_list=fwd)])]
        ask(PFCP(version=1, S=1, seid=0, seq=2 + n) / PFCPSessionEstablishmentRequest(
            IE_list=[node, IE_FSEID(v4=1, seid=1 + n, ipv4="127.0.0.1"), *rules]))
    sk.close()


def traffic(case, work):
    name, gen, _outs, _fams = CASES[case]
    path = os.path.join(work, "traffic", name)
    if gen is None and not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        upf_decap_traffic(path)
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        subprocess.run([PY, os.path.join(HERE, "gen_traffic.py"), "pcap", "--out", path,
                        "--size", "64", "--dst-mac", DUT_MAC] + gen, check=True,
                       stdout=subprocess.DEVNULL)
    return path


def parse_calls(path, fn):
    """Calls made to function fn in a callgrind output file."""
    names = {}
    calls = 0
    target = False
    with open(path) as f:
        for line in f:
            if line.startswith(("fn=", "cfn=")):
                m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line.strip())
                if m:
                    if m.group(2):
                        names[m.group(1)] = m.group(2)
                    name = names.get(m.group(1), "")
                else:
                    name = line.strip().split("=", 1)[1]
                target = line.startswith("cfn=") and name == fn
            elif line.startswith("calls=") and target:
                calls += int(line.split("=")[1].split()[0])
                target = False
    return calls


def inclusive(path):
    """Inclusive instructions of every function (callgrind_annotate)."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--show=Ir",
                          path],
                         capture_output=True, text=True, check=True).stdout
    total = 0
    funcs = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+PROGRAM TOTALS", line)
        if m:
            total = int(m.group(1).replace(",", ""))
            continue
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*:(\S+)", line)
        if m and m.group(2) not in funcs:   # listed once more per file with debug info
            funcs[m.group(2)] = int(m.group(1).replace(",", ""))
    return total, funcs


def simulated(path):
    """With --sim: the whole thread's simulated L1 data misses, last-level
    misses and mispredicted branches, and valgrind's own cycle estimate
    (Ir + 10 (L1 misses + mispredicts) + 100 LL misses), from the dump's
    summary line."""
    events = summary = None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith(("summary:", "totals:")):
                summary = [int(x) for x in line.split()[1:]]
    if not events or not summary:
        return {}
    e = dict(zip(events, summary + [0] * (len(events) - len(summary))))
    l1 = e.get("I1mr", 0) + e.get("D1mr", 0) + e.get("D1mw", 0)
    ll = e.get("ILmr", 0) + e.get("DLmr", 0) + e.get("DLmw", 0)
    bm = e.get("Bcm", 0) + e.get("Bim", 0)
    return {"L1 misses": l1, "LL misses": ll, "mispredicts": bm,
            "estimated cycles": e.get("Ir", 0) + 10 * (l1 + bm) + 100 * ll}


def wait_forwarding(p, sock, log, case, timeout=600):
    """Until nfvd (slow under valgrind) has forwarded packets."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if p.poll() is not None:
            sys.exit(f"{case}: nfvd exited early; see {log}")
        if os.path.exists(sock):
            r = subprocess.run([NFVCTL, "-s", sock, "--json", "show", "stats"],
                               capture_output=True, text=True)
            try:
                if json.loads(r.stdout)["packets"]["forwarded"] > 0:
                    return
            except (ValueError, KeyError):
                pass
        time.sleep(2)
    sys.exit(f"{case}: nothing forwarded within {timeout} s; see {log}")


def l3fwd_argv(case, args, pcap, prefix):
    _f, _g, outs, fams = CASES[case]
    if fams not in ("4", "6"):
        sys.exit(f"{case}: l3fwd takes one family at a time")
    argv = [args.l3fwd, "-l", "1", "--no-pci", "--no-huge", "-m", "1024", "--file-prefix",
            prefix, "--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1"]
    for k in range(1, outs + 1):
        argv += ["--vdev", f"net_null{k},no-rx=1"]
    argv += ["--", "-p", hex((2 << outs) - 1), "--config", "(0,0,1)", "--parse-ptype"]
    argv += [f"--eth-dest={k},02:00:00:00:00:{k + 1:02x}" for k in range(1, outs + 1)]
    return argv + (["--ipv6"] if fams == "6" else [])


def run(case, args, work):
    pcap = traffic(case, work)
    tmp = tempfile.mkdtemp(prefix="nfvperf-cg-")
    conf = os.path.join(tmp, "nfvd.conf")
    with open(conf, "w") as f:
        f.write(config(case, pcap))
    sock = os.path.join(tmp, "nfvd.sock")
    prefix = f"{args.file_prefix}-{os.getpid()}"
    out = os.path.join(tmp, "cg.out")
    argv = ["valgrind", "--tool=callgrind", "--separate-threads=yes",
            f"--callgrind-out-file={out}"] + (["--dump-instr=yes"] if args.dump_instr else [])
    if args.sim:
        argv += ["--cache-sim=yes", "--branch-sim=yes"]
    if args.l3fwd:
        argv += l3fwd_argv(case, args, pcap, prefix)
    else:
        argv += [args.nfvd, "-l", "0,1", "--no-pci", "--no-huge", "-m", "1024",
                 "--file-prefix", prefix, "--log-level=4", "--", "-c", conf, "-s", sock,
                 "-b", str(BURST)] + (["--walk-max", str(args.walk_max)] if args.walk_max else [])
    log = open(os.path.join(tmp, "nfvd.log"), "w")
    p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=tmp,
                         start_new_session=True)
    try:
        if args.l3fwd:
            # No control socket: its log says when it forwards.
            deadline = time.monotonic() + 600
            while "entering main loop" not in open(log.name).read():
                if p.poll() is not None or time.monotonic() > deadline:
                    sys.exit(f"{case}: l3fwd did not start; see {log.name}")
                time.sleep(2)
        else:
            if case.startswith("ipv4-upf"):
                deadline = time.monotonic() + 600
                while not os.path.exists(sock):
                    if p.poll() is not None or time.monotonic() > deadline:
                        sys.exit(f"{case}: nfvd did not start; see {log.name}")
                    time.sleep(2)
                upf_sessions(case)
            wait_forwarding(p, sock, log.name, case)
        time.sleep(args.warmup)
        subprocess.run(["callgrind_control", "-z", str(p.pid)], check=True,
                       stdout=subprocess.DEVNULL)
        time.sleep(args.window)
        subprocess.run(["callgrind_control", "-d", str(p.pid)], check=True,
                       stdout=subprocess.DEVNULL)
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        log.close()
        shutil.rmtree(os.path.join("/var/run/dpdk", prefix), ignore_errors=True)
    # The dump of the worker thread: the one that ran port_rx.
    best = None
    for name in sorted(os.listdir(tmp)):
        if not re.fullmatch(r"cg\.out\.1-\d+", name):   # the first dump, per thread
            continue
        path = os.path.join(tmp, name)
        calls = parse_calls(path, "l3fwd_lpm_process_packets" if args.l3fwd
                            else "port_rx_process")
        if calls and (best is None or calls > best[1]):
            best = (path, calls)
    if best is None:
        sys.exit(f"{case}: no dump with the worker's calls in {tmp}")
    total, funcs = inclusive(best[0])
    sims = simulated(best[0]) if args.sim else {}
    # Every walk of nfvd's takes as many full bursts as --walk-max has room
    # for (one at least, 256 packets at most), the replay's bursts all full.
    walk = BURST * max(1, min(args.walk_max, 256) // BURST)
    pkts = best[1] * (BURST if args.l3fwd else walk)
    res = {"case": case, "packets": pkts, "total": total / pkts,
           "nodes": {n: funcs[n] / pkts for n in (L3FWD_FUNCS if args.l3fwd else NODES)
                     if n in funcs},
           "sim": {k: v / pkts for k, v in sims.items()}}
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        res["dir"] = tmp
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="+", choices=sorted(CASES))
    ap.add_argument("--nfvd", default=os.path.join(TOP, "build-cg/src/nfvd"))
    ap.add_argument("--l3fwd", default="", help="run this l3fwd binary instead of nfvd")
    ap.add_argument("--window", type=float, default=10.0)
    ap.add_argument("--walk-max", type=int, default=0,
                    help="nfvd's --walk-max (packets per graph walk; default: its own)")
    ap.add_argument("--file-prefix", default="nfvperf-cg",
                    help="DPDK --file-prefix (the process id is appended)")
    ap.add_argument("--warmup", type=float, default=5.0,
                    help="seconds from the first packet forwarded to the zeroing")
    ap.add_argument("--work", default=os.path.join(HERE, ".work"))
    ap.add_argument("--keep", action="store_true", help="keep the dumps")
    ap.add_argument("--sim", action="store_true",
                    help="simulate the caches and branch predictor too (valgrind's "
                    "--cache-sim and --branch-sim; slower): misses, mispredicts and "
                    "an estimate of cycles per packet")
    ap.add_argument("--dump-instr", action="store_true",
                    help="counts per instruction in the dumps (with --keep: for "
                    "callgrind_annotate --auto=yes or objdump side by side)")
    args = ap.parse_args()
    for tool in ("valgrind", "callgrind_control", "callgrind_annotate"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} not found: apt-get install valgrind")
    for case in args.cases:
        r = run(case, args, args.work)
        who = "l3fwd" if args.l3fwd else "nfvd"
        print(f"{case} ({who}): {r['packets']} packets, worker {r['total']:.1f} "
              "instructions/packet"
              + (f" (dumps in {r['dir']})" if "dir" in r else ""))
        for n, v in r["nodes"].items():
            print(f"  {n:24s} {v:8.1f}")
        for n, v in r["sim"].items():
            print(f"  (simulated) {n:18s} {v:8.2f}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
