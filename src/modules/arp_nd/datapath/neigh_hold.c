/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * neigh_hold: packets ip4_rewrite / ip6_rewrite could not send because
 * their next hop has no neighbor. Records which neighbor they wait for
 * (the gateway of a gateway next hop, the destination itself on a connected
 * network) and punts them on the "hold" queue: the control side holds a few
 * per neighbor while it resolves it (ARP request / neighbor solicitation),
 * then sends them back through ipX_lookup, or turns them into ICMP
 * unreachable errors when resolution fails.
 *
 * Edges: punt.
 * Reads: meta.nh (the ECMP member), the IP destination.
 * Writes: the hold slice (neighbor address, interface, family).
 * Drop reasons given by the control side to what it does not keep:
 *   hold_overflow, resolution_failed, table_full, no_source.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>

#include "core/node.h"
#include "modules/arp_nd/arp_nd.h"
#include "modules/ip/ip.h"

enum neigh_hold_next {
	NEIGH_HOLD_NEXT_PUNT,
	NEIGH_HOLD_NEXT_MAX,
};

NFV_MBUF_PRIV(nfv_neigh_hold_slice, "neigh_hold", struct nfv_neigh_hold_meta);

#define NEIGH_DROP_REASON(var, name_, help_) \
	NFV_ARP_ND_DROP_REASON(var, "neigh_hold", name_, help_)

NEIGH_DROP_REASON(drop_neigh_hold_overflow, "hold_overflow",
	"more packets than the hold queue of an unresolved neighbor takes (oldest dropped)");
NEIGH_DROP_REASON(drop_neigh_resolution_failed, "resolution_failed",
	"neighbor did not answer: ICMP host/address unreachable sent (RFC 1812 4.3.3.1)");
NEIGH_DROP_REASON(drop_neigh_table_full, "table_full",
	"neighbor table (or next-hop table) full: no entry for the next hop");
NEIGH_DROP_REASON(drop_neigh_removed, "neighbor_removed",
	"held for a neighbor whose entry went (neigh flush, its interface removed or moved to another VRF)");
NEIGH_DROP_REASON(drop_neigh_no_source, "no_source",
	"no address on the output interface to solicit the neighbor from");

static __rte_always_inline uint16_t
neigh_hold_one(struct rte_mbuf *m, void *arg)
{
	const struct nfv_nexthop *nh = nfv_meta(m)->nh;
	struct nfv_neigh_hold_meta *h = nfv_neigh_hold_meta(m);

	RTE_SET_USED(arg);
	h->family = nh->family;
	h->iface = nh->port_id;
	h->connected = nh->type != NFV_NH_GATEWAY;
	if (nh->type == NFV_NH_GATEWAY) {
		memcpy(h->addr, nh->family == AF_INET ? (const void *)&nh->gw.v4 : nh->gw.v6,
		       nh->family == AF_INET ? 4 : 16);
	} else if (nh->family == AF_INET) {
		const struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, NFV_L2_LEN);

		memcpy(h->addr, &ip->dst_addr, 4);
	} else {
		const struct rte_ipv6_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, NFV_L2_LEN);

		memcpy(h->addr, ip->dst_addr, 16);
	}
	nfv_punt_set_queue(m, &nfv_hold_queue);
	return NEIGH_HOLD_NEXT_PUNT;
}

static uint16_t
neigh_hold_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_node_each(graph, node, objs, n, neigh_hold_one, NULL);
}

static struct rte_node_register neigh_hold_node = {
	.name = "nfv_neigh_hold",
	.process = neigh_hold_process,
	.init = nfv_node_ctx_init,
	.nb_edges = NEIGH_HOLD_NEXT_MAX,
	.next_nodes = {
		[NEIGH_HOLD_NEXT_PUNT] = "nfv_punt",
	},
};

RTE_NODE_REGISTER(neigh_hold_node);

RTE_INIT(neigh_hold_register)
{
	nfv_ip_unresolved_register(AF_INET, "nfv_neigh_hold");
	nfv_ip_unresolved_register(AF_INET6, "nfv_neigh_hold");
}
