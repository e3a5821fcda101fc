/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Places where a resolution module (ARP/ND) plugs into the ip nodes: the
 * edge unresolved packets take out of ipX_rewrite, the IPv6 link edge of
 * ip6_input and ip6_local, the rows it adds to "neigh show", and the
 * rings on which workers report uses of next hops marked "notify".
 */
#include <sys/socket.h>

#include <rte_cycles.h>
#include <rte_debug.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "core/arc.h"
#include "core/worker.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_node.h"

int16_t nfv_ip_unresolved_edge[2] = { -1, -1 };
int16_t nfv_ip6_link_edge_input = -1;
int16_t nfv_ip6_link_edge_local = -1;
struct rte_ring *nfv_nh_use_ring[RTE_MAX_LCORE];
RTE_DEFINE_PER_LCORE(uint32_t, nfv_nh_last_use);
RTE_DEFINE_PER_LCORE(uint64_t, nfv_nh_last_use_tsc);

static const char *unresolved_node[2];
static int16_t unresolved_edge_saved[2] = { -1, -1 };
static const char *link_node;

#define NEIGH_ROWS_MAX 4
static nfv_neigh_rows_fn neigh_rows[NEIGH_ROWS_MAX];
static unsigned int n_neigh_rows;

void
nfv_ip_unresolved_register(uint8_t family, const char *node)
{
	unresolved_node[family == AF_INET ? 0 : 1] = node;
}

void
nfv_ip_unresolved_enable(bool on)
{
	for (unsigned int f = 0; f < 2; f++)
		__atomic_store_n(&nfv_ip_unresolved_edge[f], on ? unresolved_edge_saved[f] : -1,
				 __ATOMIC_RELEASE);
}

void
nfv_ip6_link_register(const char *node)
{
	link_node = node;
}

void
nfv_neigh_rows_register(nfv_neigh_rows_fn fn)
{
	if (n_neigh_rows == NEIGH_ROWS_MAX)
		rte_panic("too many neigh show row providers\n");
	neigh_rows[n_neigh_rows++] = fn;
}

void
nfv_neigh_rows(json_t *rows, int dev, int vrf)
{
	for (unsigned int i = 0; i < n_neigh_rows; i++)
		neigh_rows[i](rows, dev, vrf);
}

static int
ip_hooks_setup(void)
{
	static const char *const rewrite[2] = { "nfv_ip4_rewrite", "nfv_ip6_rewrite" };
	int e;

	for (unsigned int f = 0; f < 2; f++) {
		if (unresolved_node[f] == NULL)
			continue;
		e = nfv_node_edge_index(rewrite[f], unresolved_node[f]);
		if (e < 0)
			return e;
		nfv_ip_unresolved_edge[f] = (int16_t)e;
		unresolved_edge_saved[f] = (int16_t)e;
	}
	if (link_node != NULL) {
		e = nfv_node_edge_index("nfv_ip6_input", link_node);
		if (e < 0)
			return e;
		nfv_ip6_link_edge_input = (int16_t)e;
		e = nfv_node_edge_index("nfv_ip6_local", link_node);
		if (e < 0)
			return e;
		nfv_ip6_link_edge_local = (int16_t)e;
	}
	return 0;
}
NFV_GRAPH_SETUP(ip_hooks_setup);

int
nfv_nh_use_init(int socket_id)
{
	unsigned int lcore;
	char name[RTE_RING_NAMESIZE];

	RTE_LCORE_FOREACH_WORKER(lcore) {
		snprintf(name, sizeof(name), "nfv_nh_use%u", lcore);
		nfv_nh_use_ring[lcore] = rte_ring_create_elem(name, sizeof(uint32_t), 1024,
							      socket_id,
							      RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (nfv_nh_use_ring[lcore] == NULL)
			return -ENOMEM;
	}
	return 0;
}

void
nfv_nh_use_fini(void)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		rte_ring_free(nfv_nh_use_ring[i]);
		nfv_nh_use_ring[i] = NULL;
	}
}

void
nfv_nh_use_drain(void (*cb)(uint32_t nh_id, void *arg), void *arg)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		uint32_t ids[64];
		unsigned int n;

		if (nfv_nh_use_ring[i] == NULL)
			continue;
		while ((n = rte_ring_sc_dequeue_burst_elem(nfv_nh_use_ring[i], ids, sizeof(ids[0]),
							   RTE_DIM(ids), NULL)) > 0)
			for (unsigned int k = 0; k < n; k++)
				cb(ids[k], arg);
	}
}
