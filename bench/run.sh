#!/usr/bin/env bash
# Side-by-side forwarding benchmark: nfvd against DPDK's testpmd (io
# forwarding), l3fwd and l3fwd-graph on the same virtual ports.
#
#   bash bench/run.sh [CASE...] [--rounds N] [--duration S] [--warmup S]
#                     [--baseline GIT-REV]
#
# Cases (default all): ipv4-64-2ports ipv4-64-b32 ipv4-64-4ports ipv6-64 ipv4-512
#                      ipv4-64-b64 stats-cost ipv4-1m route-load route-churn
#                      ipv4-64-learned punt-arp lcp ipv4-acl conntrack-new
#                      ipv4-64-visibility ipv4-nat ipv4-lb ipv6-acl bridge-vxlan
#                      ipv4-frag
# Environment: BENCH_WORK (scratch dir, default bench/.work), BENCH_NO_HUGE=1
# (force --no-huge), BENCH_PREFIX (DPDK --file-prefix base, default nfvbench),
# BENCH_HUGEPAGES (2 MB pages to reserve, default 1536), BENCH_FLOWS (flows in
# each generated pcap, default 512: what a per-flow cache costs with more),
# DPDK_EXAMPLES (default /usr/share/dpdk/examples), NFVD / NFVCTL (binaries,
# default build/src/nfvd and build/src/nfvctl), NFVD_ARGS (extra nfvd options),
# NFVD_BASELINE_ARGS (the baseline's instead, when set: options A/B with
# --baseline HEAD).
# --baseline REV builds nfvd at git revision REV in the scratch dir and runs it
# as "nfvd-baseline" beside the current build in the IPv4 64 B burst-32,
# two-port, four-port and IPv6 cases (and the feature on the baseline build in
# ipv4-64-visibility, ipv4-acl and ipv4-frag): what a change bought, before and
# after in the same run.
# Results: bench/results/<date>-<case>.md and .json. See bench/README.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${BENCH_WORK:-$here/.work}
examples=${DPDK_EXAMPLES:-/usr/share/dpdk/examples}
py=/usr/bin/python3

say() { printf '\n== %s\n' "$*"; }

args=()
baseline_rev=""
while [ $# -gt 0 ]; do
    case $1 in
        --baseline) baseline_rev=${2:?--baseline needs a git revision}; shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
set -- ${args[@]+"${args[@]}"}

cases=()
for a in "$@"; do
    case $a in
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) ;;
        *) [[ ${prev:-} == --rounds || ${prev:-} == --duration || ${prev:-} == --warmup ]] \
               || cases+=("$a") ;;
    esac
    prev=$a
done

# ---------------------------------------------------------------- deps
# libdpdk-dev: headers, pkg-config; dpdk-doc: the example sources;
# dpdk-dev: dpdk-testpmd; python3-scapy: traffic generation.
deps() {
    local need=() p
    for p in libdpdk-dev dpdk-doc dpdk-dev python3-scapy pkg-config make gcc; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
    done
    [ ${#need[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing packages: ${need[*]} (install them, or run as root)" >&2
        exit 1
    fi
    say "installing ${need[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" \
        || { apt-get update && DEBIAN_FRONTEND=noninteractive \
             apt-get install -y --no-install-recommends "${need[@]}"; }
}

if [ "$(id -u)" -ne 0 ]; then
    echo "bench/run.sh must run as root (DPDK telemetry sockets, hugepages)" >&2
    exit 1
fi
deps

# ----------------------------------------------------- DPDK examples
# The examples are built from the installed sources in a scratch copy; the
# repository carries no DPDK code. Every change to them is printed here.
build_examples() {
    local src=$work/examples bin=$work/bin
    say "building DPDK l3fwd and l3fwd-graph from $examples (scratch copy)"
    rm -rf "$src" && mkdir -p "$src" "$bin"
    cp -r "$examples/common" "$examples/l3fwd" "$examples/l3fwd-graph" "$src/"

    # Adaptation 1: l3fwd asks for RTE_ETH_RX_OFFLOAD_CHECKSUM in its port
    # config and rte_eth_dev_configure() fails on ports that lack it (net_pcap,
    # net_null). Drop the request; l3fwd's LPM path does not read the checksum
    # flags (its RFC 1812 checks do not verify the header checksum).
    grep -q '\.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,' "$src/l3fwd/main.c" \
        || { echo "l3fwd/main.c: RX checksum offload line not found" >&2; exit 1; }
    sed -i 's/\.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,/.offloads = 0, \/* bench: virtual ports have no RX csum offload *\//' \
        "$src/l3fwd/main.c"
    echo "ADAPTATION l3fwd/main.c: port_conf.rxmode.offloads RTE_ETH_RX_OFFLOAD_CHECKSUM -> 0"
    echo "           (net_pcap/net_null have no RX checksum offload; run with --parse-ptype)"

    # Burst 64 variant: l3fwd's burst is the compile-time MAX_PKT_BURST (32).
    cp -r "$src/l3fwd" "$src/l3fwd-b64"
    grep -q '^#define MAX_PKT_BURST     32$' "$src/l3fwd-b64/l3fwd.h" \
        || { echo "l3fwd.h: MAX_PKT_BURST 32 not found" >&2; exit 1; }
    sed -i 's/^#define MAX_PKT_BURST     32$/#define MAX_PKT_BURST     64/' "$src/l3fwd-b64/l3fwd.h"
    echo "ADAPTATION l3fwd-b64/l3fwd.h: MAX_PKT_BURST 32 -> 64 (second binary, for the burst-64 case)"
    echo "           l3fwd-graph: unchanged (its burst is RTE_GRAPH_BURST_SIZE=256 of librte_graph);"
    echo "           run with a second rx_pcap on port 0 so that the port has the 2 TX queues"
    echo "           it sets up (one per lcore); the extra queue pair is never polled"

    # Same code generation as nfvd: its meson option 'native' (default on)
    # adds -march=native; the examples otherwise get -march=corei7 from
    # libdpdk.pc. Appended last, so it wins (BENCH_EXAMPLES_CFLAGS= to skip).
    local d extra=${BENCH_EXAMPLES_CFLAGS--march=native}
    if [ -n "$extra" ]; then
        for d in l3fwd l3fwd-b64 l3fwd-graph; do
            printf '\nCFLAGS += %s\n' "$extra" >>"$src/$d/Makefile"
        done
        echo "ADAPTATION l3fwd, l3fwd-b64, l3fwd-graph Makefiles: CFLAGS += $extra (as nfvd's build)"
    fi
    for d in l3fwd l3fwd-b64 l3fwd-graph; do
        make -C "$src/$d" -j"$(nproc)" >"$work/build-$d.log" 2>&1 \
            || { tail -20 "$work/build-$d.log" >&2; exit 1; }
    done
    cp "$src/l3fwd/build/l3fwd" "$bin/l3fwd-b32"
    cp "$src/l3fwd-b64/build/l3fwd" "$bin/l3fwd-b64"
    cp "$src/l3fwd-graph/build/l3fwd-graph" "$bin/l3fwd-graph"

    # shellcheck disable=SC2046
    cc -O2 $(pkg-config --cflags libdpdk) "$here/tsc_hz.c" -o "$bin/tsc_hz" \
        $(pkg-config --libs libdpdk)
}

# --------------------------------------------------------- memory
# Hugepages when they can be had (reserving 2 MB pages and mounting
# hugetlbfs if needed, undone at exit), else --no-huge -m 2048 for every app.
hp_sys=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
hp_restore=""
hp_unmount=""
mem_args="--no-huge -m 2048"

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    if [ -n "$hp_unmount" ]; then umount "$hp_unmount" 2>/dev/null || true; fi
    if [ -n "$hp_restore" ]; then echo "$hp_restore" >"$hp_sys" 2>/dev/null || true; fi
}
trap cleanup EXIT

hugepages() {
    local want=${BENCH_HUGEPAGES:-1536} free total
    if [ "${BENCH_NO_HUGE:-0}" = 1 ] || [ ! -w "$hp_sys" ]; then
        echo "memory: --no-huge -m 2048 (hugepages disabled or not available)"
        return
    fi
    if ! awk '$3 == "hugetlbfs" {f=1} END {exit !f}' /proc/mounts; then
        mkdir -p /dev/hugepages
        if mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages; then
            hp_unmount=/dev/hugepages
        else
            echo "memory: cannot mount hugetlbfs, using --no-huge -m 2048"
            return
        fi
    fi
    free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
    total=$(cat "$hp_sys")
    if [ "$free" -lt "$want" ]; then
        hp_restore=$total
        echo $((total + want - free)) >"$hp_sys" 2>/dev/null || true
        free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
    fi
    if [ "$free" -ge "$want" ]; then
        mem_args=""
        echo "memory: hugepages, $free free 2 MB pages"
    else
        echo "memory: only $free free 2 MB pages (wanted $want), using --no-huge -m 2048"
    fi
}

# --------------------------------------------------------- traffic
gen_traffic() {
    local t=$work/traffic mac=02:70:63:61:70:00
    say "generating traffic (scapy) in $t"
    mkdir -p "$t"
    export BENCH_FLOWS=${BENCH_FLOWS:-512} # gen_traffic.py's default
    "$py" "$here/gen_traffic.py" pcap --out "$t/ipv4-64.pcap" --family 4 --size 64 --dst-mac $mac
    "$py" "$here/gen_traffic.py" pcap --out "$t/ipv4-512.pcap" --family 4 --size 512 --dst-mac $mac
    # 1,500-byte datagrams (DF clear): fragmented by ipv4-frag.
    "$py" "$here/gen_traffic.py" pcap --out "$t/ipv4-1514.pcap" --family 4 --size 1514 --dst-mac $mac
    "$py" "$here/gen_traffic.py" pcap --out "$t/ipv6-64.pcap" --family 6 --size 64 --dst-mac $mac
    "$py" "$here/gen_traffic.py" pcap --out "$t/ipv4-64-2ports.pcap" --family 4 --size 64 \
        --dst-mac $mac --dst-nets 1,2
    "$py" "$here/gen_traffic.py" pcap --out "$t/ipv4-64-4ports.pcap" --family 4 --size 64 \
        --dst-mac $mac --dst-nets 1,2,3,4
    # The 64 B frames inside VXLAN (VNI 100) from a VTEP to nfvd's address
    # on its input port: bridge-vxlan's decapsulation.
    "$py" "$here/gen_traffic.py" pcap --out "$t/ipv4-64-vxlan.pcap" --family 4 --size 64 \
        --dst-mac $mac --vxlan 100:198.18.0.2:198.18.0.1
    # 512 flows to one address and UDP port: a load-balancer VIP (ipv4-lb).
    "$py" "$here/gen_traffic.py" pcap --out "$t/ipv4-64-vip.pcap" --family 4 --size 64 \
        --dst-mac $mac --dst-host 198.18.1.100 --dst-port 53
    # For nfvd's own address on its input port (lcp: punted to the twin).
    "$py" "$here/gen_traffic.py" pcap --out "$t/ipv4-64-local.pcap" --family 4 --size 64 \
        --dst-mac $mac --dst-host 198.18.0.1
    # The 1M-route files take a while: only for the cases that use them.
    if [ ${#cases[@]} -gt 0 ] && ! printf '%s\n' "${cases[@]}" \
            | grep -qx -e ipv4-1m -e route-load -e route-churn; then
        return 0
    fi
    "$py" "$here/gen_traffic.py" routes --out "$t/routes-1m.txt" --count 1000000 \
        --nexthops 198.19.0.2,198.19.0.3,198.19.0.4,198.19.0.5,198.19.0.6,198.19.0.7,198.19.0.8,198.19.0.9
    "$py" "$here/gen_traffic.py" pcap-from-routes --routes "$t/routes-1m.txt" \
        --out "$t/ipv4-64-1m-spread.pcap" --flows 1024 --dst-mac $mac
    rm -rf "$t/churn"
    "$py" "$here/gen_traffic.py" churn --out-dir "$t/churn" --per-second 10000 --seconds 10 \
        --nexthop 198.19.0.2
}

# ------------------------------------------------------ baseline
# nfvd at another revision, from git's own archive of it (no work tree).
build_baseline() {
    local top dir rev
    top=$(git -C "$here" rev-parse --show-toplevel)
    rev=$(git -C "$top" rev-parse --short "$baseline_rev^{commit}") \
        || { echo "--baseline: '$baseline_rev' is not a revision of $top" >&2; exit 1; }
    dir=$work/baseline-$rev
    say "building the baseline nfvd at $rev in $dir"
    if [ ! -x "$dir/build/src/nfvd" ]; then
        rm -rf "$dir" && mkdir -p "$dir"
        git -C "$top" archive "$rev" | tar -x -C "$dir"
        meson setup "$dir/build" "$dir" --buildtype=release >"$work/build-baseline.log" 2>&1 \
            && ninja -C "$dir/build" src/nfvd >>"$work/build-baseline.log" 2>&1 \
            || { tail -20 "$work/build-baseline.log" >&2; exit 1; }
    fi
    export NFVD_BASELINE=$dir/build/src/nfvd NFVD_BASELINE_REV=$rev
}

mkdir -p "$work"
[ -z "$baseline_rev" ] || build_baseline
build_examples
gen_traffic
say "memory"
hugepages
tsc_hz=$("$work/bin/tsc_hz" -l 0 --no-pci --no-telemetry --no-huge -m 64 \
    --file-prefix "${BENCH_PREFIX:-nfvbench}-tsc" --log-level=3 | tail -1)
rm -rf "/var/run/dpdk/${BENCH_PREFIX:-nfvbench}-tsc"
echo "TSC: $tsc_hz Hz (rte_get_tsc_hz)"

say "running"
rc=0
"$py" "$here/bench.py" --work "$work" --tsc-hz "$tsc_hz" --mem "$mem_args" "$@" || rc=$?
exit $rc
