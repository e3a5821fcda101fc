/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lcp_punt: packets the drop node punts (punt.h) for an interface that has
 * a kernel twin: what nfvd does not answer itself (a protocol or port it
 * does not serve, ARP, multicast and link-local traffic) goes to the twin
 * as it was received, so the kernel and its routing daemons see it. Each
 * interface's punt traffic is policed per worker (rte_meter srTCM counted
 * in packets: rate and burst of "lcp add"), so a flood cannot swamp the
 * kernel; red packets are dropped under lcp_punt/policed.
 *
 * Edges: port_tx, drop.
 * Reads: meta.drop_reason (the reason it would have been dropped for),
 *        mbuf->port (the receiving interface).
 * Writes: meta.tx_port (the twin port).
 * Drops: policed, no_twin (the twin went while the packet was in flight),
 *        nd_copied (ND reaches the twin as a copy, lcp_copy).
 * Counters: lcp.punted per reason and per interface, lcp.policed per reason.
 */
#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/counters.h"
#include "core/node.h"
#include "modules/lcp/lcp.h"

enum lcp_punt_next {
	LCP_PUNT_NEXT_TX,
	LCP_PUNT_NEXT_DROP,
	LCP_PUNT_NEXT_MAX,
};

NFV_DROP_REASON(drop_lcp_policed, "lcp_punt", "policed",
	"punted to the kernel twin over the interface's punt rate");
NFV_DROP_REASON(drop_lcp_no_twin, "lcp_punt", "no_twin",
	"punted to a kernel twin that is gone");
NFV_DROP_REASON(drop_lcp_nd_copied, "lcp_punt", "nd_copied",
	"ND message nfvd dropped: the twin had its copy from lcp_copy already");

struct lcp_punt_walk {
	struct nfv_lcp_worker *lw;
	struct nfv_lcp_counters *c;
	uint64_t now;
};

static __rte_always_inline uint16_t
lcp_punt_one(struct rte_mbuf *m, void *arg)
{
	struct lcp_punt_walk *pw = arg;
	struct nfv_mbuf_meta *meta = nfv_meta(m);
	uint16_t iface = m->port, twin, reason = meta->drop_reason;
	uint8_t slot = nfv_lcp_reason_slot[reason < NFV_DROP_MAX ? reason : 0];
	uint32_t gen;

	twin = iface < NFV_IFACE_MAX ? __atomic_load_n(&nfv_lcp_twin_of[iface], __ATOMIC_ACQUIRE)
		: NFV_LCP_NONE;
	if (unlikely(twin == NFV_LCP_NONE))
		return nfv_mark_drop(m, drop_lcp_no_twin.id, LCP_PUNT_NEXT_DROP);
	if (unlikely(nfv_lcp_is_nd(m)))
		return nfv_mark_drop(m, drop_lcp_nd_copied.id, LCP_PUNT_NEXT_DROP);
	gen = __atomic_load_n(&nfv_lcp_gen[iface], __ATOMIC_ACQUIRE);
	if (unlikely(pw->lw->gen[iface] != gen)) {
		rte_meter_srtcm_config(&pw->lw->meter[iface], &nfv_lcp_profile[iface][gen & 1]);
		pw->lw->gen[iface] = gen;
	}
	if (rte_meter_srtcm_color_blind_check(&pw->lw->meter[iface],
					      &nfv_lcp_profile[iface][gen & 1], pw->now, 1) ==
	    RTE_COLOR_RED) {
		pw->c->policed[slot]++;
		return nfv_mark_drop(m, drop_lcp_policed.id, LCP_PUNT_NEXT_DROP);
	}
	pw->c->punted[slot]++;
	pw->c->punted_iface[iface]++;
	meta->tx_port = twin;
	return LCP_PUNT_NEXT_TX;
}

static uint16_t
lcp_punt_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct lcp_punt_walk pw = {
		.lw = &nfv_lcp_workers[w->index],
		.c = nfv_worker_counters(w, &nfv_lcp_counters_block),
		.now = rte_rdtsc(),
	};

	return nfv_node_each(graph, node, objs, n, lcp_punt_one, &pw);
}

static struct rte_node_register lcp_punt_node = {
	.name = "nfv_lcp_punt",
	.process = lcp_punt_process,
	.init = nfv_node_ctx_init,
	.nb_edges = LCP_PUNT_NEXT_MAX,
	.next_nodes = {
		[LCP_PUNT_NEXT_TX] = "nfv_port_tx",
		[LCP_PUNT_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(lcp_punt_node);
