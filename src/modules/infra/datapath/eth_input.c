/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_input: accepts frames for the port's MAC address (and broadcast or
 * multicast, flagged for the IP nodes), and dispatches on the ethertype.
 *
 * port_rx sends a walk whose first frame is IPv4 or IPv6 to ip4_fast or
 * ip6_fast, which do this node's fast step themselves: frames come here
 * from port_rx when the first is neither (or "debug fastpath off"), from
 * the fused nodes when a burst is not all theirs, from the l2_input arc and
 * from modules (vlan_input).
 *
 * A burst whose frames all take the fast path's IPv4 or IPv6 edge goes to
 * ip4_fast and ip6_fast (plain unicast forwarding in one node each, which
 * hand what they do not forward to ip4_input / ip6_input), split by
 * ethertype when it holds both; with "debug fastpath off", or when the
 * burst has anything else in it, IPv4 and IPv6 frames go to ip4_input and
 * ip6_input, the node chain.
 *
 * Edges: ip4_input, ip6_input, drop, ip4_fast, ip6_fast.
 * Writes: meta.flags (cleared, or NFV_META_L2_MCAST), meta.drop_reason.
 * Drops: too_short, headers_not_contiguous, other_host, arp, vlan,
 *        unknown_ethertype.
 */
#include <string.h>

#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/infra/eth.h"
#include "modules/infra/port.h"

enum eth_input_next {
	ETH_INPUT_NEXT_IP4,
	ETH_INPUT_NEXT_IP6,
	ETH_INPUT_NEXT_DROP,
	ETH_INPUT_NEXT_IP4_FAST,
	ETH_INPUT_NEXT_IP6_FAST,
	ETH_INPUT_NEXT_MAX,
};

/* Drop reasons counted by this node (show drops: node/name). */
NFV_DROP_REASON(drop_eth_too_short, "eth_input", "too_short",
	"frame shorter than an Ethernet header");
NFV_DROP_REASON(drop_eth_multiseg, "eth_input", "headers_not_contiguous",
	"headers split across mbuf segments");
NFV_DROP_REASON(drop_eth_other_host, "eth_input", "other_host",
	"unicast frame for another MAC address");
NFV_DROP_REASON(drop_eth_arp, "eth_input", "arp",
	"ARP (static neighbors only; not answered)");
NFV_DROP_REASON(drop_eth_vlan, "eth_input", "vlan",
	"802.1Q/802.1ad tagged frame and no module takes VLANs");
NFV_DROP_REASON(drop_eth_unknown_type, "eth_input", "unknown_ethertype",
	"ethertype not handled");

/* Every case, one test at a time, to name the drop reason. */
static __rte_noinline uint16_t
eth_input_slow(struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth;

	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN))
		return nfv_mark_drop(m, rte_pktmbuf_pkt_len(m) < RTE_ETHER_HDR_LEN ?
				     drop_eth_too_short.id : drop_eth_multiseg.id,
				     ETH_INPUT_NEXT_DROP);
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	/* A tagged frame goes to its sub-interface whatever its destination:
	 * the MAC is checked once the tag is off, against the sub-interface's
	 * (a VLAN that is a bridge port takes frames for any MAC). */
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN)) {
		int edge = nfv_eth_type_edge(eth->ether_type);

		if (edge >= 0)
			return (uint16_t)edge;
	}
	if (likely(rte_is_unicast_ether_addr(&eth->dst_addr))) {
		uint64_t dst;

		/* An 8-byte load: the frame has 14 bytes, 6 are compared. */
		memcpy(&dst, eth, sizeof(dst));
		if (unlikely(nfv_mac_key_differs(dst, nfv_iface_mac_key[m->port])))
			return nfv_mark_drop(m, drop_eth_other_host.id, ETH_INPUT_NEXT_DROP);
		nfv_meta(m)->flags = 0;
	} else {
		nfv_meta(m)->flags = NFV_META_L2_MCAST;
	}
	switch (eth->ether_type) {
	case RTE_BE16(RTE_ETHER_TYPE_IPV4):
		return ETH_INPUT_NEXT_IP4;
	case RTE_BE16(RTE_ETHER_TYPE_IPV6):
		return ETH_INPUT_NEXT_IP6;
	default:
		break;
	}
	{
		/* An ethertype a module registered (nfv_eth_type_register). */
		int edge = nfv_eth_type_edge(eth->ether_type);

		if (edge >= 0)
			return (uint16_t)edge;
	}
	switch (eth->ether_type) {
	case RTE_BE16(RTE_ETHER_TYPE_ARP):
		return nfv_mark_drop(m, drop_eth_arp.id, ETH_INPUT_NEXT_DROP);
	case RTE_BE16(RTE_ETHER_TYPE_VLAN):
	case RTE_BE16(RTE_ETHER_TYPE_QINQ):
		return nfv_mark_drop(m, drop_eth_vlan.id, ETH_INPUT_NEXT_DROP);
	default:
		return nfv_mark_drop(m, drop_eth_unknown_type.id, ETH_INPUT_NEXT_DROP);
	}
}

/*
 * The common case with one test: a frame whose first segment holds the
 * Ethernet header, sent to the receiving port's MAC (an 8-byte load of the
 * frame's start, compared on 48 bits), carrying IPv4 or IPv6. (A
 * branch-free family test cost 6 instructions more per IPv4 frame.) The loads come
 * before the length test: on a shorter frame they read the mbuf's own data
 * room, and the result is thrown away.
 */
static __rte_always_inline uint16_t
eth_input_fast(struct rte_mbuf *m)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	uint64_t dst;
	uint16_t type;

	memcpy(&dst, eth, sizeof(dst));
	memcpy(&type, eth + 2 * RTE_ETHER_ADDR_LEN, sizeof(type));
	if (unlikely(nfv_mac_key_differs(dst, nfv_iface_mac_key[m->port]) |
		     (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)))
		return NFV_NEXT_SLOW;
	nfv_meta(m)->flags = 0;
	if (likely(type == RTE_BE16(RTE_ETHER_TYPE_IPV4)))
		return ETH_INPUT_NEXT_IP4;
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		return ETH_INPUT_NEXT_IP6;
	return NFV_NEXT_SLOW;
}

/*
 * A burst of IPv4 and IPv6 frames for the fused nodes: each family's frames,
 * in order, to its node (one copy of the pointers, no run-by-run enqueue).
 */
static __rte_noinline void
eth_input_split_fast(struct rte_graph *graph, struct rte_node *node, void **objs,
		     const uint16_t *nexts, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	bool empty4 = __rte_node_next_node_get(node, ETH_INPUT_NEXT_IP4_FAST)->idx == 0;
	bool empty6 = __rte_node_next_node_get(node, ETH_INPUT_NEXT_IP6_FAST)->idx == 0;
	void **to4 = rte_node_next_stream_get(graph, node, ETH_INPUT_NEXT_IP4_FAST, n);
	void **to6 = rte_node_next_stream_get(graph, node, ETH_INPUT_NEXT_IP6_FAST, n);
	void **p4 = to4, **p6 = to6;

	/* Both slots written, one pointer moved: no branch on the family. */
	RTE_BUILD_BUG_ON(ETH_INPUT_NEXT_IP4 != 0 || ETH_INPUT_NEXT_IP6 != 1);
	for (uint16_t i = 0; i < n; i++) {
		size_t is6 = nexts[i];
		void *obj = objs[i];

		*p4 = obj;
		*p6 = obj;
		p4 += 1 - is6;
		p6 += is6;
	}
	rte_node_next_stream_put(graph, node, ETH_INPUT_NEXT_IP4_FAST, (uint16_t)(p4 - to4));
	rte_node_next_stream_put(graph, node, ETH_INPUT_NEXT_IP6_FAST, (uint16_t)(p6 - to6));
	w->fast_l2_checked[0] = empty4 ? (uint16_t)(p4 - to4) : 0;
	w->fast_l2_checked[1] = empty6 ? (uint16_t)(p6 - to6) : 0;
}

/* The whole burst to one fused node; marked as checked when it is all of
 * that node's stream. */
static __rte_always_inline void
eth_input_to_fast(struct rte_graph *graph, struct rte_node *node, uint16_t n, bool v6)
{
	uint16_t edge = v6 ? ETH_INPUT_NEXT_IP6_FAST : ETH_INPUT_NEXT_IP4_FAST;
	bool empty = __rte_node_next_node_get(node, edge)->idx == 0;

	rte_node_next_stream_move(graph, node, edge);
	nfv_node_worker(node)->fast_l2_checked[v6] = empty ? n : 0;
}

/*
 * nfv_node_run with eth_input_fast, but for its end: a burst all of whose
 * frames took the IPv4 or the IPv6 edge goes to ip4_fast or ip6_fast, one
 * with both is split between them (unless "debug fastpath off"). A burst
 * with anything else in it sends its IP frames to ip4_input and ip6_input,
 * so that all of the burst reaches port_tx at the same step of the walk.
 */
static uint16_t
eth_input_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint16_t any, all;

	nfv_node_pass((struct rte_mbuf **)objs, n, nexts, &any, &all, eth_input_fast, true);
	if (likely(!(any & NFV_NEXT_SLOW) && !nfv_node_worker(node)->debug.fastpath_off)) {
		if (likely(any == all)) {
			eth_input_to_fast(graph, node, n, any != ETH_INPUT_NEXT_IP4);
			return n;
		}
		eth_input_split_fast(graph, node, objs, nexts, n);
		return n;
	}
	return nfv_node_finish(graph, node, objs, nexts, n, any, all, eth_input_slow);
}

static struct rte_node_register eth_input_node = {
	.name = "nfv_eth_input",
	.process = eth_input_process,
	.init = nfv_node_ctx_init,
	.nb_edges = ETH_INPUT_NEXT_MAX,
	.next_nodes = {
		[ETH_INPUT_NEXT_IP4] = "nfv_ip4_input",
		[ETH_INPUT_NEXT_IP6] = "nfv_ip6_input",
		[ETH_INPUT_NEXT_DROP] = "nfv_drop",
		[ETH_INPUT_NEXT_IP4_FAST] = "nfv_ip4_fast",
		[ETH_INPUT_NEXT_IP6_FAST] = "nfv_ip6_fast",
	},
};

RTE_NODE_REGISTER(eth_input_node);

/* Ethertypes registered by other modules, and eth_input's edge to each. */
#define ETH_TYPES_MAX 16

static struct {
	uint16_t type_be;
	int16_t edge;
	const char *node;
} eth_types[ETH_TYPES_MAX];
static unsigned int n_eth_types;

void
nfv_eth_type_register(uint16_t ethertype, const char *node)
{
	if (n_eth_types == ETH_TYPES_MAX)
		rte_panic("too many ethertypes registered (%s)\n", node);
	eth_types[n_eth_types].type_be = rte_cpu_to_be_16(ethertype);
	eth_types[n_eth_types].edge = -1;
	eth_types[n_eth_types].node = node;
	n_eth_types++;
}

int
nfv_eth_type_edge(uint16_t ethertype_be)
{
	for (unsigned int i = 0; i < n_eth_types; i++)
		if (eth_types[i].type_be == ethertype_be)
			return eth_types[i].edge;
	return -1;
}

static int
eth_types_setup(void)
{
	for (unsigned int i = 0; i < n_eth_types; i++) {
		int e = nfv_node_edge_index("nfv_eth_input", eth_types[i].node);

		if (e < 0)
			return e;
		eth_types[i].edge = (int16_t)e;
	}
	return 0;
}
NFV_GRAPH_SETUP(eth_types_setup);
