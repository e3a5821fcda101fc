#!/bin/bash
# Builds nfvd with AddressSanitizer + UndefinedBehaviorSanitizer and runs the
# unit and packet suites on it, leak detection on. Any report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${ASAN_BUILD:-build-asan}
if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" -Db_sanitize=address,undefined -Dbuildtype=debugoptimized \
		-Db_lundef=false
fi
ninja -C "$BUILD"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87
meson test -C "$BUILD" --print-errorlogs
NFVD_BUILD="$BUILD" NFVD_SANITIZED=1 /usr/bin/python3 -m pytest -q tests/pkt
