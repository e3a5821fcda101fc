#!/bin/bash
# Reserves 2 MB hugepages and mounts hugetlbfs when run as root; nfvd falls
# back to --no-huge (with a warning) when this is not possible.
set -uo pipefail

WANT=${NFVD_HUGEPAGES:-1024}
NR=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages

if [ "$(id -u)" -ne 0 ] || [ ! -w "$NR" ]; then
	echo "hugepages: not root; nfvd will use --no-huge if none are reserved"
	exit 0
fi
if ! grep -q " /dev/hugepages hugetlbfs" /proc/mounts; then
	mkdir -p /dev/hugepages
	mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null ||
		echo "hugepages: cannot mount hugetlbfs on /dev/hugepages"
fi
if [ "$(cat "$NR")" -lt "$WANT" ]; then
	echo "$WANT" > "$NR" 2>/dev/null || true
fi
echo "hugepages: $(cat "$NR") x 2 MB reserved, $(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages) free"
