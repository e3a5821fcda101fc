/* SPDX-License-Identifier: BSD-3-Clause */
/* The UDP port registry of the local nodes (udp.h). */
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_debug.h>

#include "core/arc.h"
#include "core/worker.h"
#include "modules/ip/udp.h"

#define UDP_PORTS_MAX 32

static struct {
	uint8_t family;
	uint16_t port_be;
	int16_t edge;
	const char *node;
} udp_ports[UDP_PORTS_MAX];
static unsigned int n_udp_ports;

void
nfv_udp_port_register(uint8_t family, uint16_t port, const char *node)
{
	for (unsigned int i = 0; i < n_udp_ports; i++)
		if (udp_ports[i].family == family && udp_ports[i].port_be == rte_cpu_to_be_16(port))
			rte_panic("UDP port %u registered twice (%s)\n", port, node);
	if (n_udp_ports == UDP_PORTS_MAX)
		rte_panic("too many UDP ports registered (%s)\n", node);
	udp_ports[n_udp_ports].family = family;
	udp_ports[n_udp_ports].port_be = rte_cpu_to_be_16(port);
	udp_ports[n_udp_ports].edge = -1;
	udp_ports[n_udp_ports].node = node;
	n_udp_ports++;
}

int
nfv_udp_port_edge(uint8_t family, uint16_t port_be)
{
	for (unsigned int i = 0; i < n_udp_ports; i++)
		if (udp_ports[i].port_be == port_be && udp_ports[i].family == family)
			return udp_ports[i].edge;
	return -1;
}

static int
udp_ports_setup(void)
{
	for (unsigned int i = 0; i < n_udp_ports; i++) {
		int e = nfv_node_edge_index(udp_ports[i].family == AF_INET ? "nfv_ip4_local" :
					    "nfv_ip6_local", udp_ports[i].node);

		if (e < 0)
			return e;
		udp_ports[i].edge = (int16_t)e;
	}
	return 0;
}
NFV_GRAPH_SETUP(udp_ports_setup);
