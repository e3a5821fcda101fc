/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip6_rewrite: picks the ECMP member by flow hash, checks that the next
 * hop is resolved, the hop limit (RFC 4443 3.3: time exceeded when it would
 * reach zero) and the output MTU (RFC 4443 3.2: packet too big; routers
 * never fragment IPv6, but a source does: nfvd's own packets over the MTU
 * go to ip6_frag), decrements the hop limit (no header checksum in IPv6)
 * and writes the Ethernet header.
 *
 * Edges: port_tx, ip6_icmp_error, drop, ip6_frag, and the resolution
 * module's node for unresolved next hops (nfv_ip_unresolved_register).
 * Reads: meta.nh, meta.flags. Writes: meta.tx_port, meta.icmp_*.
 * Drops: hop_limit_expired, neigh_unresolved, packet_too_big, no_route.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_hash_crc.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "core/arc.h"
#include "modules/ip/ip_node.h"
#include "modules/ip/ip.h"

enum ip6_rewrite_next {
	IP6_REWRITE_NEXT_TX,
	IP6_REWRITE_NEXT_ICMP_ERROR,
	IP6_REWRITE_NEXT_DROP,
	IP6_REWRITE_NEXT_FRAG,
	IP6_REWRITE_NEXT_MAX,
};

/* The IPv6 egress arc: features enabled on the output interface run
 * between the rewrite and port_tx (core/arc.h). */
struct nfv_arc nfv_ip6_egress_arc = {
	.name = "ip6_egress",
	.start_node = "nfv_ip6_rewrite",
	.end_node = "nfv_port_tx",
};
NFV_ARC_REGISTER(nfv_ip6_egress_arc);

/* ip6_fast and ip6_lookup start the arc too, for the packets they forward
 * and rewrite themselves in one pass (modules/ip/ip_fast.h). */
struct nfv_arc_entry nfv_ip6_fast_egress_entry = {
	.arc_name = "ip6_egress", .node = "nfv_ip6_fast",
};
struct nfv_arc_entry nfv_ip6_lookup_egress_entry = {
	.arc_name = "ip6_egress", .node = "nfv_ip6_lookup",
};
NFV_ARC_ENTRY_REGISTER(nfv_ip6_fast_egress_entry);
NFV_ARC_ENTRY_REGISTER(nfv_ip6_lookup_egress_entry);

/* Drop reasons counted by this node (show drops: node/name). */
NFV_DROP_REASON(drop_ip6_no_route, "ip6_rewrite", "no_route",
	"route or ECMP member removed since the lookup");
NFV_DROP_REASON(drop_ip6_hop_limit_expired, "ip6_rewrite", "hop_limit_expired",
	"hop limit would reach 0");
NFV_DROP_REASON(drop_ip6_neigh_unresolved, "ip6_rewrite", "neigh_unresolved",
	"next hop has no neighbor entry");
NFV_DROP_REASON(drop_ip6_too_big, "ip6_rewrite", "packet_too_big",
	"larger than the output MTU (ICMPv6 sent)");

static __rte_noinline uint16_t
ip6_rewrite_slow(struct rte_mbuf *m)
{
	struct nfv_mbuf_meta *meta = nfv_meta(m);
	const struct nfv_nexthop *nh = meta->nh;
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, NFV_L2_LEN);

	if (unlikely(nh == NULL)) /* removed since the lookup */
		return nfv_mark_drop(m, drop_ip6_no_route.id, IP6_REWRITE_NEXT_DROP);
	/* The hop limit first: an expired packet is answered whatever its next hop. */
	if (likely(!(meta->flags & NFV_META_LOCAL_ORIGIN)) && unlikely(ip->hop_limits <= 1)) {
		return nfv_mark_icmp(m, 3 /* time exceeded */, 0 /* hop limit exceeded */, 0,
				     drop_ip6_hop_limit_expired.id, IP6_REWRITE_NEXT_ICMP_ERROR);
	}
	if (unlikely(nh->type == NFV_NH_GROUP)) {
		nh = nfv_nh_group_pick(nh, nfv_ip6_flow_hash(m, ip));
		if (unlikely(nh == NULL))
			return nfv_mark_drop(m, drop_ip6_no_route.id, IP6_REWRITE_NEXT_DROP);
	}
	if (unlikely(!nh->resolved))
		return nfv_rewrite_unresolved(m, nh, 1, drop_ip6_neigh_unresolved.id,
					      IP6_REWRITE_NEXT_DROP);
	if (unlikely(nh->notify))
		nfv_nh_note_use(nh);
	if (unlikely(rte_pktmbuf_pkt_len(m) - NFV_L2_LEN > nh->mtu)) {
		if ((meta->flags & (NFV_META_LOCAL_ORIGIN | NFV_META_ICMP_ERROR)) ==
		    NFV_META_LOCAL_ORIGIN) {
			/* Ours (an echo reply): fragmented, by the member
			 * picked (ip6_frag). */
			meta->nh = nh;
			return IP6_REWRITE_NEXT_FRAG;
		}
		return nfv_mark_icmp(m, 2 /* packet too big */, 0, nh->mtu, drop_ip6_too_big.id,
				     IP6_REWRITE_NEXT_ICMP_ERROR);
	}
	if (meta->flags & NFV_META_ICMP_ERROR) {
		/* From an address of the port it leaves by (RFC 4443 2.2), as for
		 * IPv4: the ICMPv6 checksum covers the source, so it is redone. */
		const struct nfv_port_l3 *l3 = nfv_port_l3_get(nh->port_id);
		struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)(ip + 1);
		const uint32_t l4_off = NFV_L2_LEN + sizeof(*ip);

		if (l3 != NULL && l3->has6 && memcmp(l3->src6, ip->src_addr, 16) != 0) {
			memcpy(ip->src_addr, l3->src6, 16);
			icmp->icmp_cksum = 0;
			icmp->icmp_cksum = (uint16_t)~nfv_ip6_l4_sum(m, ip, l4_off);
		}
	}
	if (likely(!(meta->flags & NFV_META_LOCAL_ORIGIN)))
		ip->hop_limits--;
	nfv_rewrite_l2(m, nh);
	return nfv_arc_start_edge(&nfv_ip6_egress_arc, nh->port_id);
}

/* The common case with one test; anything else takes ip6_rewrite_slow. */
static __rte_always_inline uint16_t
ip6_rewrite_fast(struct rte_mbuf *m)
{
	struct nfv_mbuf_meta *meta = nfv_meta(m);
	const struct nfv_nexthop *nh = meta->nh;
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, NFV_L2_LEN);

	if (unlikely(nh == NULL || meta->flags != 0 || ip->hop_limits <= 1 ||
		     rte_pktmbuf_pkt_len(m) - NFV_L2_LEN > nh->fwd_mtu))
		return NFV_NEXT_SLOW;
	ip->hop_limits--;
	nfv_rewrite_l2(m, nh);
	return nfv_arc_start_edge(&nfv_ip6_egress_arc, nh->port_id);
}

static uint16_t
ip6_rewrite_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_node_run(graph, node, objs, n, ip6_rewrite_fast, ip6_rewrite_slow, false);
}

static struct rte_node_register ip6_rewrite_node = {
	.name = "nfv_ip6_rewrite",
	.process = ip6_rewrite_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP6_REWRITE_NEXT_MAX,
	.next_nodes = {
		[IP6_REWRITE_NEXT_TX] = "nfv_port_tx",
		[IP6_REWRITE_NEXT_ICMP_ERROR] = "nfv_ip6_icmp_error",
		[IP6_REWRITE_NEXT_DROP] = "nfv_drop",
		[IP6_REWRITE_NEXT_FRAG] = "nfv_ip6_frag",
	},
};

RTE_NODE_REGISTER(ip6_rewrite_node);
