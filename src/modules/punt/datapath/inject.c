/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inject: a source node that takes what the control thread put on this
 * worker's inject ring (nfv_inject) and sends each packet to its target's
 * node: port_tx for frames the control side built (ARP, ND), ip4_lookup /
 * ip6_lookup for packets held until their neighbor resolved, the ICMP error
 * nodes for those whose neighbor never did, eth_input for frames received
 * by other means. An empty ring costs one dequeue attempt a walk.
 *
 * Edges: drop, then one per registered target (added at graph setup).
 * Reads: the punt slice's target. Drops: bad_target.
 * Counters: injected, per target.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ring.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/punt/punt.h"
#include "modules/punt/punt_private.h"

enum inject_next {
	INJECT_NEXT_DROP,
	INJECT_NEXT_MAX,
};

NFV_DROP_REASON(drop_inject_bad_target, "inject", "bad_target",
	"injected packet names no known target");

/* The packets on worker w's non-empty ring r, sent to their targets. */
static __rte_noinline uint16_t
inject_drain(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
	     struct rte_ring *r)
{
	struct nfv_punt_counters *c;
	struct rte_mbuf *pkts[RTE_GRAPH_BURST_SIZE];
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	unsigned int n;

	n = rte_ring_sc_dequeue_burst(r, (void **)pkts, RTE_GRAPH_BURST_SIZE, NULL);
	c = nfv_worker_counters(w, &nfv_punt_counters_block);
	for (unsigned int i = 0; i < n; i++) {
		uint16_t t = nfv_punt_meta(pkts[i])->queue;

		if (unlikely(t >= nfv_inject_n_targets || nfv_inject_edges[t] < 0)) {
			nexts[i] = nfv_mark_drop(pkts[i], drop_inject_bad_target.id,
						 INJECT_NEXT_DROP);
			continue;
		}
		c->injected[t]++;
		nexts[i] = (uint16_t)nfv_inject_edges[t];
	}
	for (unsigned int i = 0; i < n;) {
		unsigned int j = i + 1;

		while (j < n && nexts[j] == nexts[i])
			j++;
		rte_node_enqueue(graph, node, nexts[i], (void **)(pkts + i), (uint16_t)(j - i));
		i = j;
	}
	return (uint16_t)n;
}

/* An empty ring (the usual case) costs a few loads and a branch: the frame
 * of inject_drain's arrays is set up only when there is work. */
static uint16_t
inject_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t count)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct rte_ring *r = nfv_punt_workers_state[w->index].inject_ring;

	RTE_SET_USED(objs);
	RTE_SET_USED(count);
	if (r == NULL || rte_ring_empty(r))
		return 0;
	return inject_drain(graph, node, w, r);
}

static struct rte_node_register inject_node = {
	.name = "nfv_inject",
	.flags = RTE_NODE_SOURCE_F,
	.process = inject_process,
	.init = nfv_node_ctx_init,
	.nb_edges = INJECT_NEXT_MAX,
	.next_nodes = {
		[INJECT_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(inject_node);

static int
inject_edges_setup(void)
{
	return nfv_inject_setup_edges("nfv_inject");
}
NFV_GRAPH_SETUP(inject_edges_setup);
