/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acl_handoff: a source node that takes the packets other workers handed
 * to this one (the flows it owns, see acl.h) and puts each back into the
 * ACL node that handed it off (acl_in4, acl_in6, acl_out4, acl_out6), which
 * now finds its owner at home. With one worker there are no rings; until
 * an interface needs the handoff, the node costs one load a walk.
 *
 * Edges: drop, acl_in4, acl_in6, acl_out4, acl_out6.
 * Counters: acl (handoff_in).
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "core/log.h"
#include "core/node.h"
#include "modules/acl/acl.h"
#include "modules/acl/symhash.h"

enum handoff_next {
	HANDOFF_NEXT_DROP,
	HANDOFF_NEXT_ACL, /* + (family | direction << 1) */
	HANDOFF_NEXT_MAX = HANDOFF_NEXT_ACL + 4,
};

uint8_t nfv_acl_handoff_on[NFV_IFACE_MAX];
uint8_t nfv_acl_handoff_any;
struct rte_ring *nfv_acl_handoff_rings[NFV_MAX_WORKERS][NFV_MAX_WORKERS];

static uint16_t
handoff_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t count)
{
	struct nfv_worker *w = nfv_node_worker(node);
	void *pkts[RTE_GRAPH_BURST_SIZE];
	uint16_t got = 0;

	RTE_SET_USED(objs);
	RTE_SET_USED(count);
	if (likely(!__atomic_load_n(&nfv_acl_handoff_any, __ATOMIC_RELAXED)))
		return 0;
	for (unsigned int from = 0; from < nfv_n_workers; from++) {
		struct rte_ring *r = nfv_acl_handoff_rings[from][w->index];
		unsigned int n;

		if (r == NULL || rte_ring_empty(r))
			continue;
		n = rte_ring_sc_dequeue_burst(r, &pkts[got], RTE_GRAPH_BURST_SIZE - got, NULL);
		got = (uint16_t)(got + n);
		if (got == RTE_GRAPH_BURST_SIZE)
			break;
	}
	if (got == 0)
		return 0;
	((struct nfv_acl_counters *)nfv_worker_counters(w, &nfv_acl_counters_block))->handoff_in +=
		got;
	for (uint16_t i = 0; i < got;) {
		uintptr_t tag = (uintptr_t)pkts[i] & 3;
		uint16_t j = i;

		while (j < got && ((uintptr_t)pkts[j] & 3) == tag) {
			pkts[j] = (void *)((uintptr_t)pkts[j] & ~(uintptr_t)3);
			j++;
		}
		rte_node_enqueue(graph, node, (rte_edge_t)(HANDOFF_NEXT_ACL + tag), &pkts[i],
				 (uint16_t)(j - i));
		i = j;
	}
	return got;
}

static struct rte_node_register handoff_node = {
	.name = "nfv_acl_handoff",
	.flags = RTE_NODE_SOURCE_F,
	.process = handoff_process,
	.init = nfv_node_ctx_init,
	.nb_edges = HANDOFF_NEXT_MAX,
	.next_nodes = {
		[HANDOFF_NEXT_DROP] = "nfv_drop",
		[HANDOFF_NEXT_ACL + 0] = "nfv_acl_in4",
		[HANDOFF_NEXT_ACL + 1] = "nfv_acl_in6",
		[HANDOFF_NEXT_ACL + 2] = "nfv_acl_out4",
		[HANDOFF_NEXT_ACL + 3] = "nfv_acl_out6",
	},
};
RTE_NODE_REGISTER(handoff_node);

/* One ring per ordered pair of workers (none with one worker). */
static int
handoff_setup(void)
{
	nfv_symhash_init();
	if (nfv_n_workers < 2)
		return 0;
	for (unsigned int a = 0; a < nfv_n_workers; a++) {
		for (unsigned int b = 0; b < nfv_n_workers; b++) {
			char name[RTE_RING_NAMESIZE];

			if (a == b)
				continue;
			snprintf(name, sizeof(name), "nfv_acl_ho_%u_%u", a & 63, b & 63);
			nfv_acl_handoff_rings[a][b] = rte_ring_create(name, NFV_ACL_HANDOFF_RING,
				(int)rte_lcore_to_socket_id(nfv_workers[b].lcore_id),
				RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (nfv_acl_handoff_rings[a][b] == NULL) {
				NFV_LOG(ERR, "acl: no memory for the worker handoff rings");
				return -ENOMEM;
			}
		}
	}
	return 0;
}
NFV_GRAPH_SETUP(handoff_setup);

/* The workers stopped: what is still on a ring goes back to its pool. */
void
nfv_acl_handoff_stop(void)
{
	for (unsigned int a = 0; a < NFV_MAX_WORKERS; a++) {
		for (unsigned int b = 0; b < NFV_MAX_WORKERS; b++) {
			struct rte_ring *r = nfv_acl_handoff_rings[a][b];
			void *p;

			while (r != NULL && rte_ring_sc_dequeue(r, &p) == 0)
				rte_pktmbuf_free((struct rte_mbuf *)((uintptr_t)p & ~(uintptr_t)3));
		}
	}
}

void
nfv_acl_handoff_fini(void)
{
	for (unsigned int a = 0; a < NFV_MAX_WORKERS; a++) {
		for (unsigned int b = 0; b < NFV_MAX_WORKERS; b++) {
			rte_ring_free(nfv_acl_handoff_rings[a][b]);
			nfv_acl_handoff_rings[a][b] = NULL;
		}
	}
}
