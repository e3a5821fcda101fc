/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arp_input: ARP frames (ethertype 0x0806) for the control thread. The
 * checks RFC 826 makes before anything else (Ethernet hardware, IPv4
 * protocol, their lengths, a request or a reply, the whole packet in the
 * first segment) are done here, so that only well-formed ARP is punted, on
 * the "arp" queue (policed per worker). The control side answers requests
 * for the interface's own addresses and learns senders.
 *
 * Edges: punt, drop.
 * Drops: bad_arp (malformed or not Ethernet/IPv4, or an opcode other than
 *        request and reply); given by the control side: not_ours (a request
 *        for another address), reply_received (replies and gratuitous ARP,
 *        once learned from).
 */
#include <rte_arp.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/node.h"
#include "modules/arp_nd/arp_nd.h"
#include "modules/infra/eth.h"

enum arp_input_next {
	ARP_INPUT_NEXT_PUNT,
	ARP_INPUT_NEXT_DROP,
	ARP_INPUT_NEXT_MAX,
};

NFV_DROP_REASON(drop_arp_bad, "arp_input", "bad_arp",
	"malformed ARP, not Ethernet/IPv4, or neither request nor reply (RFC 826)");

/* Given by the control side, which learns from every ARP packet. */
NFV_ARP_ND_DROP_REASON(drop_arp_not_ours, "arp_input", "not_ours",
	"ARP request for an address that is not the receiving interface's (no proxy ARP)");
NFV_ARP_ND_DROP_REASON(drop_arp_reply_received, "arp_input", "reply_received",
	"ARP reply or gratuitous ARP: learned from, not answered (RFC 826)");

NFV_ETH_TYPE_REGISTER(arp, RTE_ETHER_TYPE_ARP, "nfv_arp_input");

static __rte_always_inline uint16_t
arp_input_one(struct rte_mbuf *m, void *arg)
{
	const struct rte_arp_hdr *a;

	RTE_SET_USED(arg);
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*a))
		return nfv_mark_drop(m, drop_arp_bad.id, ARP_INPUT_NEXT_DROP);
	a = rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *, RTE_ETHER_HDR_LEN);
	if (a->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
	    a->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) || a->arp_hlen != 6 ||
	    a->arp_plen != 4 ||
	    (a->arp_opcode != RTE_BE16(RTE_ARP_OP_REQUEST) &&
	     a->arp_opcode != RTE_BE16(RTE_ARP_OP_REPLY)))
		return nfv_mark_drop(m, drop_arp_bad.id, ARP_INPUT_NEXT_DROP);
	nfv_punt_set_queue(m, &nfv_arp_queue);
	return ARP_INPUT_NEXT_PUNT;
}

static uint16_t
arp_input_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_node_each(graph, node, objs, n, arp_input_one, NULL);
}

static struct rte_node_register arp_input_node = {
	.name = "nfv_arp_input",
	.process = arp_input_process,
	.init = nfv_node_ctx_init,
	.nb_edges = ARP_INPUT_NEXT_MAX,
	.next_nodes = {
		[ARP_INPUT_NEXT_PUNT] = "nfv_punt",
		[ARP_INPUT_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(arp_input_node);
