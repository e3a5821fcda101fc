/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For the feature nodes of the l2_input arc (flow_in, capture_in,
 * mirror_in): when a burst's next step is the arc's end (eth_input), send
 * it where port_rx sends a burst of a port without features: to ip4_fast
 * when its first and last frames are IPv4, ip6_fast when both are IPv6
 * (those nodes do eth_input's fast step themselves and give eth_input
 * whole any burst that is not all theirs), else eth_input; eth_input under
 * "debug fastpath off". So a feature on the port does not also cost
 * eth_input's pass. The node declares the two edges first (next_nodes
 * NFV_L2_END_NEXT_NODES).
 */
#ifndef NFV_L2_END_H
#define NFV_L2_END_H

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_graph_worker.h>
#include <rte_mbuf.h>

#include "core/arc.h"
#include "core/worker.h"

enum {
	NFV_L2_END_IP4_FAST,
	NFV_L2_END_IP6_FAST,
	NFV_L2_END_EDGES,
};

#define NFV_L2_END_NEXT_NODES \
	[NFV_L2_END_IP4_FAST] = "nfv_ip4_fast", [NFV_L2_END_IP6_FAST] = "nfv_ip6_fast"

/* Where feature f sends a burst of one port, first .. last, whose next
 * edge is edge. */
static __rte_always_inline uint16_t
nfv_l2_end_edge(const struct nfv_arc_feature *f, uint16_t edge, const struct nfv_worker *w,
		const struct rte_mbuf *first, const struct rte_mbuf *last)
{
	uint16_t type, type_last;

	if (edge != f->edge_to[f->arc->n_features] || unlikely(w->debug.fastpath_off))
		return edge;
	memcpy(&type, rte_pktmbuf_mtod_offset(first, const uint8_t *, 2 * RTE_ETHER_ADDR_LEN),
	       sizeof(type));
	memcpy(&type_last, rte_pktmbuf_mtod_offset(last, const uint8_t *, 2 * RTE_ETHER_ADDR_LEN),
	       sizeof(type_last));
	if (type != type_last)
		return edge;
	if (likely(type == RTE_BE16(RTE_ETHER_TYPE_IPV4)))
		return NFV_L2_END_IP4_FAST;
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		return NFV_L2_END_IP6_FAST;
	return edge;
}

/* Feature f's whole stream, n frames of one port whose next edge is edge,
 * moved where nfv_l2_end_edge sends it. When that is a fused node whose
 * stream was empty, the node is told its frames are of one port
 * (worker.rx_one_port, as port_rx tells it), and does not compare their
 * ports. */
static __rte_always_inline void
nfv_l2_end_move(struct rte_graph *graph, struct rte_node *node, const struct nfv_arc_feature *f,
		uint16_t edge, struct nfv_worker *w, void **objs, uint16_t n)
{
	uint16_t to = nfv_l2_end_edge(f, edge, w, objs[0], objs[n - 1]);

	rte_node_next_stream_move(graph, node, to);
	RTE_BUILD_BUG_ON(NFV_L2_END_IP4_FAST != 0 || NFV_L2_END_IP6_FAST != 1);
	if (to <= NFV_L2_END_IP6_FAST && __rte_node_next_node_get(node, to)->idx == n)
		w->rx_one_port[to] = n;
}

#endif
