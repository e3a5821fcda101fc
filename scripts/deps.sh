#!/bin/bash
# Installs the Debian packages nfvd needs to build, run, test and benchmark,
# only those missing.
set -euo pipefail

PKGS=(
	gcc make pkg-config meson ninja-build
	libdpdk-dev dpdk dpdk-dev dpdk-doc
	libjansson-dev libedit-dev libmnl-dev libmicrohttpd-dev libpcap-dev libcmocka-dev
	python3 python3-pytest python3-scapy
	iproute2 iputils-ping iperf3 ethtool procps tcpdump
	clang libclang-rt-14-dev
)
# Features add their own packages, one a line, in scripts/deps.d/*.txt.
for f in "$(dirname "$0")"/deps.d/*.txt; do
	[ -e "$f" ] || continue
	while read -r p _; do
		case "$p" in ''|'#'*) continue ;; esac
		PKGS+=("$p")
	done <"$f"
done

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}; run 'sudo make deps'" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
