/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nd_input: IPv6 packets for the link, from ip6_input (a link-local
 * unicast or link-scope multicast destination) and ip6_local (neighbor
 * discovery to one of our addresses). Neighbor solicitations and
 * advertisements (RFC 4861 7.1: hop limit 255, code 0, at least 24 bytes,
 * no extension header) and echo requests to a link-local address are
 * punted on the "nd" queue; the control side checks the checksum, answers
 * for the interface's own addresses (its EUI-64 link-local one included)
 * and learns. Router solicitations/advertisements and redirects are not
 * used by a router without autoconfiguration: dropped, named.
 *
 * Edges: punt, drop.
 * Drops: bad_nd (RFC 4861 7.1.1/7.1.2 checks; the control side checks the
 *        checksum and options), not_ours and advertisement_received (given by
 *        the control side), router_discovery (RS, RA,
 *        redirect), link_local (other link-local traffic),
 *        multicast_destination (other link-scope multicast: MLD...).
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "core/node.h"
#include "modules/arp_nd/arp_nd.h"
#include "modules/ip/ip.h"

enum nd_input_next {
	ND_INPUT_NEXT_PUNT,
	ND_INPUT_NEXT_DROP,
	ND_INPUT_NEXT_MAX,
};

NFV_ARP_ND_DROP_REASON(drop_nd_bad, "nd_input", "bad_nd",
	"ND message with a hop limit other than 255, a non-zero code, too short, a bad "
	"checksum or option (RFC 4861 7.1)");
/* Given by the control side. */
NFV_ARP_ND_DROP_REASON(drop_nd_not_ours, "nd_input", "not_ours",
	"solicitation or echo request for an address that is not the interface's");
NFV_ARP_ND_DROP_REASON(drop_nd_advert_received, "nd_input", "advertisement_received",
	"neighbor advertisement: learned from, not answered (RFC 4861 7.2.5)");
NFV_DROP_REASON(drop_nd_router_discovery, "nd_input", "router_discovery",
	"router solicitation/advertisement or redirect: not used by nfvd");
NFV_DROP_REASON(drop_nd_link_local, "nd_input", "link_local",
	"link-local traffic other than ND and echo requests");
NFV_DROP_REASON(drop_nd_multicast, "nd_input", "multicast_destination",
	"link-scope multicast other than ND (MLD...)");

#define ICMP6_ECHO_REQUEST 128
#define ND_ROUTER_SOLICIT 133
#define ND_NEIGHBOR_SOLICIT 135
#define ND_NEIGHBOR_ADVERT 136
#define ND_REDIRECT 137

static __rte_always_inline uint16_t
nd_input_one(struct rte_mbuf *m, void *arg)
{
	const struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, NFV_L2_LEN);
	const uint8_t *icmp = (const uint8_t *)(ip + 1);
	uint16_t plen = rte_be_to_cpu_16(ip->payload_len);
	bool mcast = ip->dst_addr[0] == 0xff;

	RTE_SET_USED(arg);
	if (ip->proto != IPPROTO_ICMPV6 || plen < 8 ||
	    rte_pktmbuf_data_len(m) < NFV_L2_LEN + sizeof(*ip) + 8)
		return nfv_mark_drop(m, mcast ? drop_nd_multicast.id : drop_nd_link_local.id,
				     ND_INPUT_NEXT_DROP);
	if (icmp[0] == ICMP6_ECHO_REQUEST && !mcast) {
		nfv_punt_set_queue(m, &nfv_nd_queue);
		return ND_INPUT_NEXT_PUNT;
	}
	if (icmp[0] < ND_ROUTER_SOLICIT || icmp[0] > ND_REDIRECT)
		return nfv_mark_drop(m, mcast ? drop_nd_multicast.id : drop_nd_link_local.id,
				     ND_INPUT_NEXT_DROP);
	if (icmp[0] != ND_NEIGHBOR_SOLICIT && icmp[0] != ND_NEIGHBOR_ADVERT)
		return nfv_mark_drop(m, drop_nd_router_discovery.id, ND_INPUT_NEXT_DROP);
	/* RFC 4861 7.1.1 / 7.1.2: hop limit 255 (never forwarded), code 0,
	 * 24 bytes or more; the rest (checksum, options) on the control side. */
	if (ip->hop_limits != 255 || icmp[1] != 0 || plen < 24 ||
	    rte_pktmbuf_data_len(m) < NFV_L2_LEN + sizeof(*ip) + 24)
		return nfv_mark_drop(m, drop_nd_bad.id, ND_INPUT_NEXT_DROP);
	nfv_punt_set_queue(m, &nfv_nd_queue);
	return ND_INPUT_NEXT_PUNT;
}

static uint16_t
nd_input_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_node_each(graph, node, objs, n, nd_input_one, NULL);
}

static struct rte_node_register nd_input_node = {
	.name = "nfv_nd_input",
	.process = nd_input_process,
	.init = nfv_node_ctx_init,
	.nb_edges = ND_INPUT_NEXT_MAX,
	.next_nodes = {
		[ND_INPUT_NEXT_PUNT] = "nfv_punt",
		[ND_INPUT_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(nd_input_node);

RTE_INIT(nd_input_link_register)
{
	nfv_ip6_link_register("nfv_nd_input");
}
