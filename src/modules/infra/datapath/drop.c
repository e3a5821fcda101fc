/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drop: frees packets and counts each under the reason its node wrote in
 * meta.drop_reason (per worker; summed by "show drops").
 *
 * Edges: none (terminal).
 * Reads: meta.drop_reason.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/node.h"

static uint16_t
drop_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;

	for (uint16_t i = 0; i < n; i++) {
		uint16_t reason = nfv_meta(pkts[i])->drop_reason;

		w->stats.drops[reason < NFV_DROP_MAX ? reason : NFV_DROP_NONE]++;
	}
	rte_pktmbuf_free_bulk(pkts, n);
	return n;
}

static struct rte_node_register drop_node = {
	.name = "nfv_drop",
	.process = drop_process,
	.init = nfv_node_ctx_init,
	.nb_edges = 0,
};

RTE_NODE_REGISTER(drop_node);
