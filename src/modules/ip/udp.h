/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UDP ports of nfvd's own addresses that a module serves (VXLAN 4789,
 * GTP-U 2152, PFCP 8805...): ip4_local / ip6_local send a UDP datagram for
 * a local address to the node registered for its destination port (per
 * family), whole (the data still starts at the Ethernet header).
 * Registered from constructors; the edges are added before the graphs
 * exist (NFV_GRAPH_SETUP). A port nobody registered stays
 * ip4_local/unsupported_protocol (ip6_local likewise).
 */
#ifndef NFV_UDP_H
#define NFV_UDP_H

#include <stdint.h>

#include <rte_common.h>

/* family: AF_INET or AF_INET6; port in host order; node: a registered node. */
void nfv_udp_port_register(uint8_t family, uint16_t port, const char *node);

#define NFV_UDP_PORT_REGISTER(name, family, port, node) \
	RTE_INIT(nfv_udp_port_register_##name) \
	{ \
		nfv_udp_port_register(family, port, node); \
	}

/*
 * At run time (a tunnel configured with another port): datagrams to port
 * also go to node, which must have registered a port of the same family
 * (its edge exists). 0, -EEXIST (the port is served by another node),
 * -ENOENT (node has no edge) or -ENOSPC. Unbinding a port leaves the
 * registered ones alone; the caller waits a grace period before it relies
 * on no datagram reaching node through port.
 */
int nfv_udp_port_bind(uint8_t family, uint16_t port, const char *node);
void nfv_udp_port_unbind(uint8_t family, uint16_t port, const char *node);

/* ipX_local's edge for a destination port (network order), or -1. */
int nfv_udp_port_edge(uint8_t family, uint16_t port_be);

#endif
