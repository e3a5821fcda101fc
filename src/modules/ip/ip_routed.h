/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lookup nodes' part for packets the fused nodes forwarded before the
 * ingress features (NFV_META_ROUTED, ip_fast.h; core/arc.h for the route
 * gen): ip4_lookup and ip6_lookup send them on by meta.tx_port.
 */
#ifndef NFV_IP_ROUTED_H
#define NFV_IP_ROUTED_H

#include <string.h>

#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/meta.h"
#include "core/node.h"
#include "core/worker.h"
#include "modules/ip/ip.h"

/* The edge of a routed packet of output port tx_port: its first egress
 * feature (the node's entry of the egress arc), or tx_edge (port_tx). */
static __rte_always_inline uint16_t
nfv_ip_routed_edge(const struct nfv_arc_entry *egress, uint16_t tx_edge, uint16_t tx_port)
{
	uint16_t edge = nfv_arc_entry_edge(egress, tx_port);

	return edge == egress->end_edge ? tx_edge : edge;
}

/*
 * A burst with packets the fused node forwarded before the ingress
 * features (NFV_META_ROUTED): those go on by meta.tx_port, to the output
 * interface's first egress feature or port_tx, with meta.flags 0 as a
 * packet the lookup forwards leaves it. The usual burst (all routed, from
 * one interface whose route gen is their stamp, to one output port) in one
 * test per packet and one move of the stream; otherwise packet by packet,
 * one() (the node's own lookup of one packet, which routes again a packet
 * routed under an old gen) for the packets not routed or routed under an
 * old gen. "debug reroute on" sends every packet to one().
 */
static __rte_always_inline uint16_t
nfv_ip_lookup_routed(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
		     const struct nfv_arc *ingress, const struct nfv_arc_entry *egress,
		     const uint16_t tx_edge, uint16_t (*one)(struct rte_mbuf *m, struct nfv_worker *w))
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	const uint16_t in0 = pkts[0]->port, tx0 = nfv_meta(pkts[0])->tx_port;
	const uint32_t gen0 = nfv_arc_route_gen(ingress, in0);
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint8_t flags[RTE_GRAPH_BURST_SIZE];
	/* The metadata of a routed packet of the usual burst, as two words:
	 * the gen (the first word's low half; its high half is not written),
	 * then tx_port, drop reason 0, flags NFV_META_ROUTED, the ICMP fields
	 * and pad 0 (what the fused node writes in one store). */
	struct nfv_mbuf_meta want = { .tx_port = tx0, .flags = NFV_META_ROUTED };
	const bool reroute = __atomic_load_n(&nfv_ip_reroute_all, __ATOMIC_RELAXED);
	uint64_t want0 = gen0, want1, odd = reroute;
	uint32_t gen = gen0;
	const uint64_t mask0 = UINT32_MAX;

	memcpy(&want1, &want.tx_port, sizeof(want1));
	RTE_BUILD_BUG_ON(offsetof(struct nfv_mbuf_meta, tx_port) != 8 ||
			 sizeof(struct nfv_mbuf_meta) != 16);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct nfv_mbuf_meta *meta = nfv_meta(m);
		uint64_t w0, w1;

		memcpy(&w0, meta, sizeof(w0));
		memcpy(&w1, &meta->tx_port, sizeof(w1));
		odd |= ((w0 ^ want0) & mask0) | (w1 ^ want1) | (uint64_t)(m->port ^ in0);
		flags[i] = meta->flags;
		meta->flags = 0;
	}
	if (likely(odd == 0)) {
		uint16_t edge = nfv_ip_routed_edge(egress, tx_edge, tx0);

		/* To port_tx: one run, sent without a look at each packet. */
		if (edge == tx_edge)
			nfv_tx_runs_add(&nfv_node_worker(node)->tx_runs,
					__rte_node_next_node_get(node, tx_edge)->idx, n, tx0);
		rte_node_next_stream_move(graph, node, edge);
		return n;
	}
	for (uint16_t i = 0, last = in0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct nfv_mbuf_meta *meta = nfv_meta(m);

		/* The receiving interface's gen, read again when it changes. */
		if (unlikely(m->port != last)) {
			last = m->port;
			gen = nfv_arc_route_gen(ingress, last);
		}
		if (likely(flags[i] & NFV_META_ROUTED) && likely(!reroute) &&
		    likely(meta->routed_gen == gen)) {
			nexts[i] = nfv_ip_routed_edge(egress, tx_edge, meta->tx_port);
		} else {
			meta->flags = flags[i]; /* as it came, for the decision */
			nexts[i] = one(m, nfv_node_worker(node));
		}
	}
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

#endif
