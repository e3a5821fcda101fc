/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The burst loop both ICMP error nodes share: count the offending packet
 * under its drop reason, then turn it into the error about it, or free it
 * and count why not (not allowed, no source address, rate limited). The
 * errors go to next, or, when the family has an arc of features for the
 * errors nfvd builds (ops->arc) and one is on, each to the first feature
 * on the interface its offending packet came in by.
 */
#ifndef NFV_ICMP_ERROR_H
#define NFV_ICMP_ERROR_H

#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_meter.h>

#include "core/arc.h"
#include "modules/ip/ip_node.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_counters.h"

/* What differs between ICMP (fam 0) and ICMPv6 (fam 1). */
struct nfv_icmp_error_ops {
	unsigned int fam;
	uint16_t hdrs_len; /* IP + ICMP headers prepended */
	bool (*allowed)(struct rte_mbuf *m);
	bool (*has_source)(const struct nfv_port_l3 *l3);
	void (*build)(struct rte_mbuf *m, const struct nfv_port_l3 *l3);
	struct nfv_arc *arc; /* its start node is the error node; NULL: none */
};

static __rte_always_inline uint16_t
nfv_icmp_error_burst(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
		     const struct nfv_icmp_error_ops *ops, uint16_t next)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_worker_stats *st = &w->stats;
	struct nfv_ip_counters *ic = nfv_ip_counters(w);
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	struct rte_mbuf *out[RTE_GRAPH_BURST_SIZE], *dead[RTE_GRAPH_BURST_SIZE];
	uint16_t n_out = 0, n_dead = 0;
	unsigned int f = ops->fam;
	uint64_t now = rte_rdtsc();

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct nfv_port_l3 *l3 = nfv_port_l3_get(m->port);
		uint16_t reason = nfv_meta(m)->drop_reason;

		st->drops[reason < NFV_DROP_MAX ? reason : NFV_DROP_NONE]++;
		if (!ops->allowed(m)) {
			ic->icmp_not_allowed[f]++;
			dead[n_dead++] = m;
		} else if (l3 == NULL || !ops->has_source(l3)) {
			ic->icmp_no_source[f]++;
			dead[n_dead++] = m;
		} else if (rte_meter_srtcm_color_blind_check(&w->icmp_meter[f],
							     &nfv_icmp_meter_profile, now, 1) !=
			   RTE_COLOR_GREEN) {
			ic->icmp_rate_limited[f]++;
			dead[n_dead++] = m;
		} else if (rte_pktmbuf_headroom(m) < ops->hdrs_len ||
			   !rte_pktmbuf_is_contiguous(m)) {
			ic->icmp_not_allowed[f]++;
			dead[n_dead++] = m;
		} else {
			ops->build(m, l3);
			ic->icmp_sent[f]++;
			out[n_out++] = m;
		}
	}
	if (n_dead > 0)
		rte_pktmbuf_free_bulk(dead, n_dead);
	if (n_out > 0 && ops->arc != NULL &&
	    unlikely(__atomic_load_n(&ops->arc->n_ifaces_on, __ATOMIC_ACQUIRE) != 0)) {
		for (uint16_t i = 0; i < n_out; i++)
			rte_node_enqueue_x1(graph, node, nfv_arc_start_edge(ops->arc, out[i]->port),
					    out[i]);
	} else if (n_out > 0) {
		rte_node_enqueue(graph, node, next, (void **)out, n_out);
	}
	return n;
}

#endif
