/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_rewrite: picks the ECMP member by flow hash, checks that the next
 * hop is resolved, the TTL (RFC 1812 5.3.1: a packet whose TTL would reach
 * zero gets ICMP time exceeded) and the output MTU (DF set: ICMP
 * fragmentation needed, RFC 1191; DF clear: to ip4_frag, which cuts it),
 * decrements the TTL with an incremental checksum update (RFC 1624) and
 * writes the Ethernet header.
 *
 * Edges: port_tx, ip4_icmp_error, drop, ip4_frag, and the resolution
 * module's node for unresolved next hops (nfv_ip_unresolved_register).
 * Reads: meta.nh, meta.flags. Writes: meta.tx_port, meta.icmp_*; meta.nh
 * (the ECMP member) of a packet for ip4_frag.
 * Drops: ttl_expired, neigh_unresolved, frag_needed, no_route (ECMP
 *        member gone).
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_hash_crc.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "core/arc.h"
#include "modules/ip/ip_node.h"
#include "modules/ip/ip.h"

enum ip4_rewrite_next {
	IP4_REWRITE_NEXT_TX,
	IP4_REWRITE_NEXT_ICMP_ERROR,
	IP4_REWRITE_NEXT_DROP,
	IP4_REWRITE_NEXT_FRAG,
	IP4_REWRITE_NEXT_MAX,
};

/* The IPv4 egress arc: features enabled on the output interface run
 * between the rewrite and port_tx (core/arc.h). */
struct nfv_arc nfv_ip4_egress_arc = {
	.name = "ip4_egress",
	.start_node = "nfv_ip4_rewrite",
	.end_node = "nfv_port_tx",
};
NFV_ARC_REGISTER(nfv_ip4_egress_arc);

/* ip4_fast and ip4_lookup start the arc too, for the packets they forward
 * and rewrite themselves in one pass (modules/ip/ip_fast.h). */
struct nfv_arc_entry nfv_ip4_fast_egress_entry = {
	.arc_name = "ip4_egress", .node = "nfv_ip4_fast",
};
struct nfv_arc_entry nfv_ip4_lookup_egress_entry = {
	.arc_name = "ip4_egress", .node = "nfv_ip4_lookup",
};
NFV_ARC_ENTRY_REGISTER(nfv_ip4_fast_egress_entry);
NFV_ARC_ENTRY_REGISTER(nfv_ip4_lookup_egress_entry);

/* Drop reasons counted by this node (show drops: node/name). */
NFV_DROP_REASON(drop_ip4_no_route, "ip4_rewrite", "no_route",
	"route or ECMP member removed since the lookup");
NFV_DROP_REASON(drop_ip4_ttl_expired, "ip4_rewrite", "ttl_expired",
	"TTL would reach 0 (RFC 1812 5.3.1)");
NFV_DROP_REASON(drop_ip4_neigh_unresolved, "ip4_rewrite", "neigh_unresolved",
	"next hop has no neighbor entry");
NFV_DROP_REASON(drop_ip4_frag_needed, "ip4_rewrite", "frag_needed",
	"larger than the output MTU with DF set (ICMP sent)");

/* TTL decrement (RFC 1812 5.3.1) with an RFC 1624 checksum update
 * (nfv_ip4_ttl_dec_word), then the Ethernet header of the next hop. */
static __rte_always_inline uint16_t
ip4_rewrite_forward(struct rte_mbuf *m, struct rte_ipv4_hdr *ip, const struct nfv_nexthop *nh,
		    bool transit)
{
	if (transit) {
		uint32_t w;

		memcpy(&w, &ip->time_to_live, sizeof(w));
		w = nfv_ip4_ttl_dec_word(w);
		memcpy(&ip->time_to_live, &w, sizeof(w));
	}
	nfv_rewrite_l2(m, nh);
	return nfv_arc_start_edge(&nfv_ip4_egress_arc, nh->port_id);
}

/* Everything but the common case: names the reason, or sends the error. */
static __rte_noinline uint16_t
ip4_rewrite_slow(struct rte_mbuf *m)
{
	struct nfv_mbuf_meta *meta = nfv_meta(m);
	const struct nfv_nexthop *nh = meta->nh;
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, NFV_L2_LEN);

	if (nh == NULL) /* removed since the lookup */
		return nfv_mark_drop(m, drop_ip4_no_route.id, IP4_REWRITE_NEXT_DROP);
	/* The TTL first: an expired packet is answered whatever its next hop. */
	if (!(meta->flags & NFV_META_LOCAL_ORIGIN) && ip->time_to_live <= 1) {
		return nfv_mark_icmp(m, NFV_ICMP_TIME_EXCEEDED, 0 /* TTL exceeded in transit */,
				     0, drop_ip4_ttl_expired.id, IP4_REWRITE_NEXT_ICMP_ERROR);
	}
	if (nh->type == NFV_NH_GROUP) {
		nh = nfv_nh_group_pick(nh, nfv_ip4_flow_hash(m, ip));
		if (nh == NULL)
			return nfv_mark_drop(m, drop_ip4_no_route.id, IP4_REWRITE_NEXT_DROP);
	}
	if (!nh->resolved)
		return nfv_rewrite_unresolved(m, nh, 0, drop_ip4_neigh_unresolved.id,
					      IP4_REWRITE_NEXT_DROP);
	if (unlikely(nh->notify))
		nfv_nh_note_use(nh);
	if (rte_pktmbuf_pkt_len(m) - NFV_L2_LEN > nh->mtu) {
		if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_DF_FLAG)) {
			return nfv_mark_icmp(m, NFV_ICMP_DEST_UNREACH,
					     4 /* fragmentation needed and DF set */, nh->mtu,
					     drop_ip4_frag_needed.id, IP4_REWRITE_NEXT_ICMP_ERROR);
		}
		/* To be fragmented (ip4_frag), by the member picked. */
		meta->nh = nh;
		return IP4_REWRITE_NEXT_FRAG;
	}
	if (meta->flags & NFV_META_ICMP_ERROR) {
		/* RFC 1812 4.3.2.4: from an address of the port it leaves by (the
		 * error node took the ingress port's; it differs where routing is
		 * not symmetric). The ICMP checksum does not cover the IP header. */
		const struct nfv_port_l3 *l3 = nfv_port_l3_get(nh->port_id);

		if (l3 != NULL && l3->has4 && l3->src4 != ip->src_addr) {
			ip->src_addr = l3->src4;
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
		}
	}
	return ip4_rewrite_forward(m, ip, nh, !(meta->flags & NFV_META_LOCAL_ORIGIN));
}

/*
 * The common case with one test: a resolved single next hop that the
 * packet fits (nh->fwd_mtu is 0 for any other), a transit packet whose TTL
 * stays above zero. TTL, protocol and checksum are one 4-byte word: read
 * once, written once.
 */
static __rte_always_inline uint16_t
ip4_rewrite_fast(struct rte_mbuf *m)
{
	struct nfv_mbuf_meta *meta = nfv_meta(m);
	const struct nfv_nexthop *nh = meta->nh;
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, NFV_L2_LEN);

	if (unlikely(nh == NULL || meta->flags != 0 || ip->time_to_live <= 1 ||
		     rte_pktmbuf_pkt_len(m) - NFV_L2_LEN > nh->fwd_mtu))
		return NFV_NEXT_SLOW;
	return ip4_rewrite_forward(m, ip, nh, true);
}

static uint16_t
ip4_rewrite_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_node_run(graph, node, objs, n, ip4_rewrite_fast, ip4_rewrite_slow, false);
}

static struct rte_node_register ip4_rewrite_node = {
	.name = "nfv_ip4_rewrite",
	.process = ip4_rewrite_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP4_REWRITE_NEXT_MAX,
	.next_nodes = {
		[IP4_REWRITE_NEXT_TX] = "nfv_port_tx",
		[IP4_REWRITE_NEXT_ICMP_ERROR] = "nfv_ip4_icmp_error",
		[IP4_REWRITE_NEXT_DROP] = "nfv_drop",
		[IP4_REWRITE_NEXT_FRAG] = "nfv_ip4_frag",
	},
};

RTE_NODE_REGISTER(ip4_rewrite_node);
