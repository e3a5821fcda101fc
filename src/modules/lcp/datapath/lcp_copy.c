/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lcp_copy: a copy of every ARP frame an interface with a kernel twin
 * receives goes to the twin (policed as the punted packets are), and the
 * frame itself goes on to eth_input: nfvd answers and resolves for itself
 * (or drops ARP while it has no ARP of its own), and the kernel answers
 * for its addresses and learns its peers for its own traffic (BGP sessions
 * from the twin). A feature of the l2_input arc, enabled on the ports that
 * have a twin; a burst without ARP moves on whole.
 *
 * Edges: port_tx (the copies), then the l2_input arc's next features.
 * Reads: the ethertype; mbuf->port.
 * Counters: lcp.punted ("lcp_copy/arp" slot), lcp.policed likewise; a copy
 *           that cannot be made (pool empty) is counted as policed.
 */
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/counters.h"
#include "core/node.h"
#include "modules/lcp/lcp.h"

enum lcp_copy_next {
	LCP_COPY_NEXT_TX,
	LCP_COPY_NEXT_MAX,
};

extern struct nfv_arc_feature nfv_lcp_copy_feature;

static __rte_always_inline bool
is_arp(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	return rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN &&
		eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP);
}

/* A copy of m to its interface's twin, policed. */
static __rte_always_inline void
copy_to_twin(struct rte_graph *graph, struct rte_node *node, struct rte_mbuf *m,
	     struct nfv_lcp_worker *lw, struct nfv_lcp_counters *c, uint64_t now)
{
	uint16_t iface = m->port;
	uint16_t twin = __atomic_load_n(&nfv_lcp_twin_of[iface], __ATOMIC_ACQUIRE);
	uint32_t gen = __atomic_load_n(&nfv_lcp_gen[iface], __ATOMIC_ACQUIRE);
	struct rte_mbuf *copy;

	if (twin == NFV_LCP_NONE)
		return;
	if (lw->gen[iface] != gen) {
		rte_meter_srtcm_config(&lw->meter[iface], &nfv_lcp_profile[iface][gen & 1]);
		lw->gen[iface] = gen;
	}
	if (rte_meter_srtcm_color_blind_check(&lw->meter[iface], &nfv_lcp_profile[iface][gen & 1],
					      now, 1) == RTE_COLOR_RED ||
	    (copy = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX)) == NULL) {
		c->policed[NFV_LCP_SLOT_ARP_COPY]++;
		return;
	}
	copy->port = iface;
	nfv_meta(copy)->tx_port = twin;
	c->punted[NFV_LCP_SLOT_ARP_COPY]++;
	c->punted_iface[iface]++;
	rte_node_enqueue_x1(graph, node, LCP_COPY_NEXT_TX, copy);
}

static uint16_t
lcp_copy_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint64_t now = 0;

	/* Bursts of several ports may be here together: each packet its own. */
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];

		nexts[i] = nfv_arc_next_edge(&nfv_lcp_copy_feature, m->port);
		if (likely(!is_arp(m)))
			continue;
		if (now == 0)
			now = rte_rdtsc();
		copy_to_twin(graph, node, m, &nfv_lcp_workers[w->index],
			     nfv_worker_counters(w, &nfv_lcp_counters_block), now);
	}
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

static struct rte_node_register lcp_copy_node = {
	.name = "nfv_lcp_copy",
	.process = lcp_copy_process,
	.init = nfv_node_ctx_init,
	.nb_edges = LCP_COPY_NEXT_MAX,
	.next_nodes = {
		[LCP_COPY_NEXT_TX] = "nfv_port_tx",
	},
};

RTE_NODE_REGISTER(lcp_copy_node);

struct nfv_arc_feature nfv_lcp_copy_feature = {
	.arc_name = "l2_input",
	.node = "nfv_lcp_copy",
};
NFV_ARC_FEATURE_REGISTER(nfv_lcp_copy_feature);
