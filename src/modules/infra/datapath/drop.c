/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drop: frees packets and counts each under the reason its node wrote in
 * meta.drop_reason (per worker; summed by "show drops"). A packet whose
 * reason is punted (punt.h) and whose receiving interface has a punt edge
 * goes to that node instead, uncounted here (the punt node counts it).
 *
 * Edges: the punt nodes modules add (punt.h), none otherwise.
 * Reads: meta.drop_reason, mbuf->port; nfv_punt_reason[], nfv_punt_edge[].
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/node.h"
#include "modules/infra/punt.h"

static uint16_t
drop_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint16_t kept = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t reason = nfv_meta(m)->drop_reason;

		if (unlikely(reason >= NFV_DROP_MAX))
			reason = NFV_DROP_NONE;
		if (unlikely(nfv_punt_reason[reason] != 0) && m->port < NFV_IFACE_MAX) {
			uint16_t edge = nfv_punt_edge[m->port];

			if (edge != 0) {
				rte_node_enqueue_x1(graph, node, edge - 1, m);
				continue;
			}
		}
		w->stats.drops[reason]++;
		pkts[kept++] = m;
	}
	rte_pktmbuf_free_bulk(pkts, kept);
	return n;
}

static struct rte_node_register drop_node = {
	.name = "nfv_drop",
	.process = drop_process,
	.init = nfv_node_ctx_init,
	.nb_edges = 0,
};

RTE_NODE_REGISTER(drop_node);
