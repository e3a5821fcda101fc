/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_input: accepts frames for the port's MAC address (and broadcast or
 * multicast, flagged for the IP nodes), and dispatches on the ethertype.
 *
 * Edges: ip4_input, ip6_input, drop.
 * Writes: meta.flags (cleared, or NFV_META_L2_MCAST), meta.drop_reason.
 * Drops: too_short, headers_not_contiguous, other_host, arp, vlan,
 *        unknown_ethertype.
 */
#include <string.h>

#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "../node.h"
#include "../../port/port.h"

enum eth_input_next {
	ETH_INPUT_NEXT_IP4,
	ETH_INPUT_NEXT_IP6,
	ETH_INPUT_NEXT_DROP,
	ETH_INPUT_NEXT_MAX,
};

static __rte_always_inline uint16_t
eth_input_one(struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth;
	const struct nfv_port *p;

	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN))
		return nfv_mark_drop(m, rte_pktmbuf_pkt_len(m) < RTE_ETHER_HDR_LEN ?
				     NFV_DROP_ETH_TOO_SHORT : NFV_DROP_ETH_MULTISEG,
				     ETH_INPUT_NEXT_DROP);
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (likely(rte_is_unicast_ether_addr(&eth->dst_addr))) {
		uint64_t dst, mine;

		/* 8-byte loads, 6 bytes compared (the frame has 14, the port
		 * struct has more after its MAC). */
		p = &nfv_ports[m->port];
		memcpy(&dst, eth, sizeof(dst));
		memcpy(&mine, &p->mac, sizeof(mine));
		if (unlikely(((dst ^ mine) & RTE_LEN2MASK(48, uint64_t)) != 0))
			return nfv_mark_drop(m, NFV_DROP_ETH_OTHER_HOST, ETH_INPUT_NEXT_DROP);
		nfv_meta(m)->flags = 0;
	} else {
		nfv_meta(m)->flags = NFV_META_L2_MCAST;
	}
	switch (eth->ether_type) {
	case RTE_BE16(RTE_ETHER_TYPE_IPV4):
		return ETH_INPUT_NEXT_IP4;
	case RTE_BE16(RTE_ETHER_TYPE_IPV6):
		return ETH_INPUT_NEXT_IP6;
	case RTE_BE16(RTE_ETHER_TYPE_ARP):
		return nfv_mark_drop(m, NFV_DROP_ETH_ARP, ETH_INPUT_NEXT_DROP);
	case RTE_BE16(RTE_ETHER_TYPE_VLAN):
	case RTE_BE16(RTE_ETHER_TYPE_QINQ):
		return nfv_mark_drop(m, NFV_DROP_ETH_VLAN, ETH_INPUT_NEXT_DROP);
	default:
		return nfv_mark_drop(m, NFV_DROP_ETH_UNKNOWN_TYPE, ETH_INPUT_NEXT_DROP);
	}
}

static uint16_t
eth_input_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_node_classify(graph, node, objs, n, eth_input_one, true);
}

static struct rte_node_register eth_input_node = {
	.name = "eth_input",
	.process = eth_input_process,
	.init = nfv_node_ctx_init,
	.nb_edges = ETH_INPUT_NEXT_MAX,
	.next_nodes = {
		[ETH_INPUT_NEXT_IP4] = "ip4_input",
		[ETH_INPUT_NEXT_IP6] = "ip6_input",
		[ETH_INPUT_NEXT_DROP] = "drop",
	},
};

RTE_NODE_REGISTER(eth_input_node);
