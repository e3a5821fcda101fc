/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Print the TSC rate exactly as DPDK computes it (rte_get_tsc_hz()), so that
 * "cycles per packet" uses the same clock as every DPDK application does.
 * Built by bench/run.sh against the installed libdpdk.
 */
#include <stdio.h>
#include <rte_eal.h>
#include <rte_cycles.h>

int
main(int argc, char **argv)
{
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "tsc_hz: rte_eal_init failed\n");
		return 1;
	}
	printf("%llu\n", (unsigned long long)rte_get_tsc_hz());
	rte_eal_cleanup();
	return 0;
}
