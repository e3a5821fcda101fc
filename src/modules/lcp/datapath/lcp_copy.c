/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lcp_copy: a copy of every ARP frame and every ND message (RFC 4861:
 * ICMPv6 133-137 right behind the IPv6 header) an interface with a kernel
 * twin receives goes to the twin (policed as the punted packets are), and
 * the frame itself goes on to eth_input: nfvd answers and resolves for
 * itself (or drops them while it has no ARP/ND of its own), and the kernel
 * answers for its addresses and learns its peers for its own traffic (BGP
 * sessions from the twin). A feature of the l2_input arc, enabled on the
 * ports that have a twin, and of the vlan_l2_input arc, on the VLAN
 * sub-interfaces that have one (their frames untagged, as the twin takes
 * them); a burst without ARP or ND moves on whole. A bridge's twin gets
 * its copies from a tap of bridge_input (modules/bridge/bridge.h: the
 * frames the bridge delivers to its own interface), which sends them to
 * the twin itself, one burst on this worker's TX queue of the twin port;
 * a copy that queue refuses is counted as policed.
 *
 * Edges: port_tx (the copies), then the l2_input arc's next features.
 * Reads: the ethertype, IPv6 next header and ICMPv6 type; mbuf->port.
 * Counters: lcp.punted ("lcp_copy/arp", "lcp_copy/nd" slots), lcp.policed
 *           likewise; a copy that cannot be made (pool empty) is counted
 *           as policed.
 */
#include <netinet/in.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/counters.h"
#include "core/node.h"
#include "modules/bridge/bridge.h"
#include "modules/infra/port.h"
#include "modules/lcp/lcp.h"

enum lcp_copy_next {
	LCP_COPY_NEXT_TX,
	LCP_COPY_NEXT_MAX,
};

extern struct nfv_arc_feature nfv_lcp_copy_feature;
extern struct nfv_arc_feature nfv_lcp_copy_vlan_feature;

/* RFC 4861 messages directly behind the IPv6 header: router solicitation
 * and advertisement, neighbor solicitation and advertisement, redirect. */
bool
nfv_lcp_is_nd(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	return rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN + 40 + 4 &&
		p[12] == 0x86 && p[13] == 0xdd && p[RTE_ETHER_HDR_LEN + 6] == IPPROTO_ICMPV6 &&
		p[RTE_ETHER_HDR_LEN + 40] >= 133 && p[RTE_ETHER_HDR_LEN + 40] <= 137;
}

/* The counter slot of what m is a copy of, or 0: not to be copied. */
static __rte_always_inline unsigned int
copy_slot(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN))
		return 0;
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP))
		return NFV_LCP_SLOT_ARP_COPY;
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) && nfv_lcp_is_nd(m))
		return NFV_LCP_SLOT_ND_COPY;
	return 0;
}

/* A copy of m for its interface's twin (meta.tx_port the twin's port),
 * policed; NULL: none. */
static __rte_always_inline struct rte_mbuf *
copy_for_twin(struct rte_mbuf *m, unsigned int slot, struct nfv_lcp_worker *lw,
	      struct nfv_lcp_counters *c, uint64_t now)
{
	uint16_t iface = m->port;
	uint16_t twin = __atomic_load_n(&nfv_lcp_twin_of[iface], __ATOMIC_ACQUIRE);
	uint32_t gen = __atomic_load_n(&nfv_lcp_gen[iface], __ATOMIC_ACQUIRE);
	struct rte_mbuf *copy;

	if (twin == NFV_LCP_NONE)
		return NULL;
	if (lw->gen[iface] != gen) {
		rte_meter_srtcm_config(&lw->meter[iface], &nfv_lcp_profile[iface][gen & 1]);
		lw->gen[iface] = gen;
	}
	if (rte_meter_srtcm_color_blind_check(&lw->meter[iface], &nfv_lcp_profile[iface][gen & 1],
					      now, 1) == RTE_COLOR_RED ||
	    (copy = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX)) == NULL) {
		c->policed[slot]++;
		return NULL;
	}
	copy->port = iface;
	nfv_meta(copy)->tx_port = twin;
	c->punted[slot]++;
	c->punted_iface[iface]++;
	return copy;
}

/* A copy of m to its interface's twin, policed. */
static __rte_always_inline void
copy_to_twin(struct rte_graph *graph, struct rte_node *node, struct rte_mbuf *m,
	     unsigned int slot, struct nfv_lcp_worker *lw, struct nfv_lcp_counters *c,
	     uint64_t now)
{
	struct rte_mbuf *copy = copy_for_twin(m, slot, lw, c, now);

	if (copy != NULL)
		rte_node_enqueue_x1(graph, node, LCP_COPY_NEXT_TX, copy);
}

unsigned int nfv_lcp_tap;

/* A bridge's frames to its own interface (bridge_input's tap): copies of
 * its ARP and ND to its twin, sent here. */
static void
lcp_copy_tap(struct nfv_worker *w, struct rte_mbuf **pkts, uint16_t n,
	     enum nfv_bridge_tap_dir dir, uint16_t iface)
{
	struct nfv_lcp_counters *c = nfv_worker_counters(w, &nfv_lcp_counters_block);
	struct rte_mbuf *copies[RTE_GRAPH_BURST_SIZE];
	unsigned int slots[RTE_GRAPH_BURST_SIZE];
	uint16_t k = 0, twin = NFV_LCP_NONE, sent = 0;
	uint64_t now = 0;

	RTE_SET_USED(dir);
	RTE_SET_USED(iface);
	for (uint16_t i = 0; i < n && k < RTE_DIM(copies); i++) {
		unsigned int slot = copy_slot(pkts[i]);
		struct rte_mbuf *copy;

		if (likely(slot == 0))
			continue;
		if (now == 0)
			now = rte_rdtsc();
		copy = copy_for_twin(pkts[i], slot, &nfv_lcp_workers[w->index], c, now);
		if (copy == NULL)
			continue;
		twin = nfv_meta(copy)->tx_port;
		slots[k] = slot;
		copies[k++] = copy;
	}
	if (k == 0)
		return;
	if (twin < RTE_MAX_ETHPORTS)
		sent = nfv_port_tx_queue(&nfv_ports[twin], nfv_ports[twin].txq_of_worker[w->index],
					 copies, k);
	for (uint16_t i = sent; i < k; i++) {
		c->punted[slots[i]]--;
		c->punted_iface[copies[i]->port]--;
		c->policed[slots[i]]++;
		rte_pktmbuf_free(copies[i]);
	}
}

RTE_INIT(lcp_copy_tap_register)
{
	nfv_lcp_tap = nfv_bridge_tap_register(lcp_copy_tap);
}

static uint16_t
lcp_copy_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint64_t now = 0;
	struct nfv_arc_burst_edge ec = { .iface = UINT16_MAX };

	/* Bursts of several ports may be here together: each packet its own. */
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		unsigned int slot = copy_slot(m);

		/* A port's frame is on the l2_input arc, a VLAN sub-interface's
		 * on vlan_l2_input (their ids: ports below RTE_MAX_ETHPORTS). */
		nexts[i] = nfv_arc_burst_next_edge(m->port < RTE_MAX_ETHPORTS ?
						   &nfv_lcp_copy_feature :
						   &nfv_lcp_copy_vlan_feature, &ec, m->port);
		if (likely(slot == 0))
			continue;
		if (now == 0)
			now = rte_rdtsc();
		copy_to_twin(graph, node, m, slot, &nfv_lcp_workers[w->index],
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
/* VLAN sub-interfaces with a twin: their frames, untagged, from vlan_input
 * (before a bridge takes them, as on l2_input). */
struct nfv_arc_feature nfv_lcp_copy_vlan_feature = {
	.arc_name = "vlan_l2_input",
	.node = "nfv_lcp_copy",
	.runs_before = "nfv_bridge_input",
};
NFV_ARC_FEATURE_REGISTER(nfv_lcp_copy_vlan_feature);
