/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * punt: hands packets to the control thread. Each packet names its queue
 * (nfv_punt_set_queue); the worker's policer of that queue (rte_meter
 * srTCM, colour blind, counting packets) lets green ones through to the
 * worker's punt ring, which the control thread drains. A flood of punted
 * packets costs the worker this node and a ring enqueue at most, and the
 * control thread no more than the queue's rate.
 *
 * Edges: drop.
 * Writes: the punt slice's worker index.
 * Drops: policed (over the queue's rate), queue_full (ring full),
 *        bad_queue (no such queue).
 * Counters (per queue): punted, policed, queue_full.
 */
#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_meter.h>
#include <rte_ring.h>

#include "core/node.h"
#include "modules/punt/punt.h"
#include "modules/punt/punt_private.h"

enum punt_next {
	PUNT_NEXT_DROP,
	PUNT_NEXT_MAX,
};

NFV_DROP_REASON(drop_punt_policed, "punt", "policed",
	"over the punt queue's rate (rte_meter policer)");
NFV_DROP_REASON(drop_punt_queue_full, "punt", "queue_full",
	"the worker's punt ring to the control thread is full");
NFV_DROP_REASON(drop_punt_bad_queue, "punt", "bad_queue",
	"no such punt queue");

static uint16_t
punt_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_punt_counters *c = nfv_worker_counters(w, &nfv_punt_counters_block);
	struct nfv_punt_worker *pw = &nfv_punt_workers_state[w->index];
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	struct rte_mbuf *dead[RTE_GRAPH_BURST_SIZE];
	uint16_t n_dead = 0;
	uint64_t now = rte_rdtsc();

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct nfv_punt_meta *pm = nfv_punt_meta(m);
		uint16_t q = pm->queue;
		struct rte_meter_srtcm_profile *prof;

		/* No ring: the punt module was not started (its meters are not
		 * configured either), so nothing can be punted. */
		if (unlikely(q >= nfv_punt_n_queues || pw->punt_ring == NULL)) {
			nfv_mark_drop(m, drop_punt_bad_queue.id, PUNT_NEXT_DROP);
			dead[n_dead++] = m;
			continue;
		}
		prof = &nfv_punt_profiles[q][__atomic_load_n(&nfv_punt_profile_active[q],
							       __ATOMIC_ACQUIRE)];
		if (rte_meter_srtcm_color_blind_check(&pw->meter[q], prof, now, 1) !=
		    RTE_COLOR_GREEN) {
			c->policed[q]++;
			nfv_mark_drop(m, drop_punt_policed.id, PUNT_NEXT_DROP);
			dead[n_dead++] = m;
			continue;
		}
		pm->worker = (uint16_t)w->index;
		if (rte_ring_sp_enqueue(pw->punt_ring, m) != 0) {
			c->queue_full[q]++;
			nfv_mark_drop(m, drop_punt_queue_full.id, PUNT_NEXT_DROP);
			dead[n_dead++] = m;
			continue;
		}
		c->punted[q]++;
	}
	if (n_dead > 0)
		rte_node_enqueue(graph, node, PUNT_NEXT_DROP, (void **)dead, n_dead);
	return n;
}

static struct rte_node_register punt_node = {
	.name = "nfv_punt",
	.process = punt_process,
	.init = nfv_node_ctx_init,
	.nb_edges = PUNT_NEXT_MAX,
	.next_nodes = {
		[PUNT_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(punt_node);
