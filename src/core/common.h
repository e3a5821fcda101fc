/* SPDX-License-Identifier: BSD-3-Clause */
/* Definitions every layer shares. */
#ifndef NFV_COMMON_H
#define NFV_COMMON_H

/* Control-side functions return 0 or a negative errno and fill err
 * (NFV_ERR_LEN bytes) with a sentence naming the bad input. */
#define NFV_ERR_LEN 256

/* Interfaces (ports, VLANs, later bridges and tunnels) have ids below this;
 * a port's id is its DPDK port id, so ids below RTE_MAX_ETHPORTS are ports.
 * A packet's interface travels in mbuf->port. */
#define NFV_IFACE_MAX 256

#include <stddef.h>
#include <stdio.h>
#include <rte_ether.h>

/* A MAC (6 bytes at mac, any alignment) as text in lower case, as Linux
 * and VPP print it (what rte_ether_format_addr writes is upper case): size
 * at least RTE_ETHER_ADDR_FMT_SIZE. */
static inline void
nfv_format_mac(char *buf, size_t size, const void *mac)
{
	const uint8_t *b = mac;

	snprintf(buf, size, "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4], b[5]);
}

#endif
