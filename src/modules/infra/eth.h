/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethertypes other modules handle: eth_input sends frames of a registered
 * ethertype to the module's node (IPv4 and IPv6 are eth_input's own fast
 * path). Registered from constructors; the edges are added before the
 * graphs exist (NFV_GRAPH_SETUP).
 */
#ifndef NFV_ETH_H
#define NFV_ETH_H

#include <stdint.h>

#include <rte_common.h>

struct nfv_arc;

/* The L2 input arc: features on a port's frames before eth_input, keyed by
 * the receiving port (it starts at port_rx, ends at eth_input). */
extern struct nfv_arc nfv_l2_input_arc;

/* ethertype in host order; node: a registered node name. */
void nfv_eth_type_register(uint16_t ethertype, const char *node);

#define NFV_ETH_TYPE_REGISTER(name, ethertype, node) \
	RTE_INIT(nfv_eth_type_register_##name) \
	{ \
		nfv_eth_type_register(ethertype, node); \
	}

/* eth_input's edge for an ethertype (network order), or -1. */
int nfv_eth_type_edge(uint16_t ethertype_be);

#endif
