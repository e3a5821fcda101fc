/* SPDX-License-Identifier: BSD-3-Clause */
/* The UDP port registry of the local nodes (udp.h). */
#include <sys/socket.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_debug.h>

#include "core/arc.h"
#include "core/worker.h"
#include "modules/ip/udp.h"

#define UDP_PORTS_MAX 32

static struct {
	uint8_t family;
	uint16_t port_be;     /* 0: a slot bound at run time, now free */
	int16_t edge;
	const char *node;
	bool bound;           /* by nfv_udp_port_bind */
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
	unsigned int n = __atomic_load_n(&n_udp_ports, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; i < n; i++)
		if (__atomic_load_n(&udp_ports[i].port_be, __ATOMIC_ACQUIRE) == port_be &&
		    udp_ports[i].family == family)
			return udp_ports[i].edge;
	return -1;
}

int
nfv_udp_port_bind(uint8_t family, uint16_t port, const char *node)
{
	rte_be16_t be = rte_cpu_to_be_16(port);
	int16_t edge = -1;
	unsigned int i, slot = UDP_PORTS_MAX;

	for (i = 0; i < n_udp_ports; i++) {
		if (udp_ports[i].family != family)
			continue;
		if (udp_ports[i].port_be == be)
			return strcmp(udp_ports[i].node, node) == 0 && udp_ports[i].bound ?
			       0 : -EEXIST;
		if (strcmp(udp_ports[i].node, node) == 0 && udp_ports[i].edge >= 0)
			edge = udp_ports[i].edge;
		if (udp_ports[i].port_be == 0 && slot == UDP_PORTS_MAX)
			slot = i;
	}
	if (edge < 0)
		return -ENOENT;
	if (slot == UDP_PORTS_MAX) {
		if (n_udp_ports == UDP_PORTS_MAX)
			return -ENOSPC;
		slot = n_udp_ports;
	}
	udp_ports[slot].family = family;
	udp_ports[slot].edge = edge;
	udp_ports[slot].node = node;
	udp_ports[slot].bound = true;
	/* The port last: a worker that sees it sees the rest. */
	__atomic_store_n(&udp_ports[slot].port_be, be, __ATOMIC_RELEASE);
	if (slot == n_udp_ports)
		__atomic_store_n(&n_udp_ports, n_udp_ports + 1, __ATOMIC_RELEASE);
	return 0;
}

void
nfv_udp_port_unbind(uint8_t family, uint16_t port, const char *node)
{
	for (unsigned int i = 0; i < n_udp_ports; i++)
		if (udp_ports[i].bound && udp_ports[i].family == family &&
		    udp_ports[i].port_be == rte_cpu_to_be_16(port) &&
		    strcmp(udp_ports[i].node, node) == 0)
			__atomic_store_n(&udp_ports[i].port_be, 0, __ATOMIC_RELEASE);
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
