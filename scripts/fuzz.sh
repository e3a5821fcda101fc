#!/bin/bash
# Builds the libFuzzer targets (clang, ASan+UBSan) and runs them on seed
# corpora of well-formed inputs; crashes are saved in tests/fuzz/corpus/ so
# they become regression cases:
#   fuzz_graph  frames through the whole graph, FUZZ_SECONDS (default 60)
#   fuzz_pfcp   datagrams through the UPF's PFCP codec, FUZZ_PFCP_SECONDS (20)
# Then the UPF's black-box stage (tests/fuzz/fuzz_upf.py): mutated PFCP on
# the N4 socket and mutated GTP-U on N3 of a running nfvd (the build in
# NFVD_BUILD, default build) holding two sessions; FUZZ_UPF_ROUNDS (4000)
# of each, FUZZ_UPF_SEED (1).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${FUZZ_BUILD:-build-fuzz}
SECONDS_TO_FUZZ=${FUZZ_SECONDS:-60}
PFCP_SECONDS=${FUZZ_PFCP_SECONDS:-20}
if [ ! -f "$BUILD/build.ninja" ]; then
	CC=clang meson setup "$BUILD" -Dfuzz=true -Db_sanitize=address,undefined \
		-Dbuildtype=debugoptimized -Db_lundef=false
fi
ninja -C "$BUILD" tests/fuzz/fuzz_graph tests/fuzz/fuzz_pfcp

SEEDS="$BUILD/seeds"
mkdir -p "$SEEDS" "$BUILD/seeds-pfcp" "$BUILD/corpus-work" "$BUILD/corpus-pfcp" tests/fuzz/corpus
/usr/bin/python3 tests/fuzz/make_seeds.py "$SEEDS" "$BUILD/seeds-pfcp"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$BUILD/tests/fuzz/fuzz_graph" -max_total_time="$SECONDS_TO_FUZZ" -max_len=2200 \
	-artifact_prefix=tests/fuzz/corpus/crash- -print_final_stats=1 \
	"$BUILD/corpus-work" tests/fuzz/corpus "$SEEDS" 2>&1 | tail -n 15
echo "fuzz: graph: ${SECONDS_TO_FUZZ}s without a crash, leak or sanitizer report"
"$BUILD/tests/fuzz/fuzz_pfcp" -max_total_time="$PFCP_SECONDS" -max_len=4096 \
	-artifact_prefix=tests/fuzz/corpus/crash-pfcp- -print_final_stats=1 \
	"$BUILD/corpus-pfcp" "$BUILD/seeds-pfcp" 2>&1 | tail -n 15
echo "fuzz: pfcp: ${PFCP_SECONDS}s without a crash, a sanitizer report or a round trip that differs"

NFVD_BUILD=${NFVD_BUILD:-build}
[ -f "$NFVD_BUILD/build.ninja" ] || meson setup "$NFVD_BUILD" --buildtype=release
ninja -C "$NFVD_BUILD" >/dev/null
NFVD_BUILD="$NFVD_BUILD" /usr/bin/python3 tests/fuzz/fuzz_upf.py
echo "fuzz: upf: nfvd kept its sessions through hostile N4 and N3 peers"
