#!/bin/bash
# Builds the libFuzzer target (clang, ASan+UBSan) and runs it for FUZZ_SECONDS
# (default 60) on a seed corpus of well-formed frames; crashes are saved in
# tests/fuzz/corpus/ so they become regression cases.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${FUZZ_BUILD:-build-fuzz}
SECONDS_TO_FUZZ=${FUZZ_SECONDS:-60}
if [ ! -f "$BUILD/build.ninja" ]; then
	CC=clang meson setup "$BUILD" -Dfuzz=true -Db_sanitize=address,undefined \
		-Dbuildtype=debugoptimized -Db_lundef=false
fi
ninja -C "$BUILD" tests/fuzz/fuzz_graph

SEEDS="$BUILD/seeds"
mkdir -p "$SEEDS" "$BUILD/corpus-work" tests/fuzz/corpus
/usr/bin/python3 tests/fuzz/make_seeds.py "$SEEDS"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$BUILD/tests/fuzz/fuzz_graph" -max_total_time="$SECONDS_TO_FUZZ" -max_len=2200 \
	-artifact_prefix=tests/fuzz/corpus/crash- -print_final_stats=1 \
	"$BUILD/corpus-work" tests/fuzz/corpus "$SEEDS" 2>&1 | tail -n 15
echo "fuzz: ${SECONDS_TO_FUZZ}s without a crash, leak or sanitizer report"
