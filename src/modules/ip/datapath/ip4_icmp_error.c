/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_icmp_error: turns a packet that cannot be forwarded into the ICMP
 * error about it (RFC 792, RFC 1812 4.3.2): the original IP header and as
 * much of its data as fits in 576 bytes (4.3.2.3), sent from the first
 * IPv4 address of the ingress port, routed back through ip4_lookup.
 * No error is sent about an ICMP error, a non-first fragment, a
 * broadcast/multicast, a packet from an invalid source (4.3.2.7) or a
 * packet nfvd built itself, nor beyond the per-worker rate limit (4.3.2.8,
 * srTCM meter). The source is the ingress port's address; ip4_rewrite puts
 * the output port's in its place where they differ (4.3.2.4). The original
 * packet is counted under its drop reason either way.
 *
 * The error starts the ip4_icmp_error arc: features enabled on the
 * interface its offending packet came in by see it before it is routed,
 * e.g. a translator that puts back in the quote what it changed in the
 * packet (lb: a client must see its own packet quoted, not the one nfvd
 * sent on to a backend).
 *
 * Edges: ip4_lookup, and the arc's features.
 * Reads: meta.icmp_type/code/info, meta.drop_reason, meta.flags.
 * Counters: icmp errors sent, rate limited, no source address, not allowed.
 */
#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "modules/ip/datapath/icmp_error.h"
#include "modules/ip/ip_node.h"
#include "modules/ip/ip.h"

enum ip4_icmp_error_next {
	IP4_ICMP_ERROR_NEXT_LOOKUP,
	IP4_ICMP_ERROR_NEXT_MAX,
};

/* The features that see every ICMP error nfvd builds, by the interface
 * the offending packet came in by (mbuf->port), before the route lookup
 * (core/arc.h). */
struct nfv_arc nfv_ip4_icmp_error_arc = {
	.name = "ip4_icmp_error",
	.start_node = "nfv_ip4_icmp_error",
	.end_node = "nfv_ip4_lookup",
};
NFV_ARC_REGISTER(nfv_ip4_icmp_error_arc);

#define ICMP4_ERROR_MAX_LEN 576
#define ICMP4_HDRS_LEN (sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_icmp_hdr))

static bool
icmp4_error_allowed(struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, NFV_L2_LEN);
	uint32_t src = rte_be_to_cpu_32(ip->src_addr);
	uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
	uint32_t ihl = rte_ipv4_hdr_len(ip);

	/* Not about link-layer broadcasts, nor about nfvd's own packets (an
	 * echo reply with no way back would earn an error to ourselves). */
	if (nfv_meta(m)->flags & (NFV_META_L2_MCAST | NFV_META_LOCAL_ORIGIN))
		return false;
	if (nfv_ip4_is_martian_src(src) || dst >= 0xe0000000)
		return false;
	if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK))
		return false;
	if (ip->next_proto_id == IPPROTO_ICMP) {
		const struct rte_icmp_hdr *icmp;

		if (rte_be_to_cpu_16(ip->total_length) < ihl + 1 ||
		    rte_pktmbuf_data_len(m) < NFV_L2_LEN + ihl + 1)
			return false;
		icmp = (const struct rte_icmp_hdr *)((const uint8_t *)ip + ihl);
		switch (icmp->icmp_type) {
		case NFV_ICMP_DEST_UNREACH:
		case 4:  /* source quench */
		case 5:  /* redirect */
		case NFV_ICMP_TIME_EXCEEDED:
		case 12: /* parameter problem */
			return false;
		default:
			break;
		}
	}
	return true;
}

static bool
icmp4_has_source(const struct nfv_port_l3 *l3)
{
	return l3->has4;
}

static void
icmp4_error_build(struct rte_mbuf *m, const struct nfv_port_l3 *l3)
{
	rte_be32_t src = l3->src4;
	struct nfv_mbuf_meta *meta = nfv_meta(m);
	struct rte_ipv4_hdr *orig = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, NFV_L2_LEN);
	uint32_t quote = rte_be_to_cpu_16(orig->total_length);
	rte_be32_t orig_src = orig->src_addr;
	struct rte_ipv4_hdr *ip;
	struct rte_icmp_hdr *icmp;
	uint16_t sum = 0;

	if (quote > ICMP4_ERROR_MAX_LEN - ICMP4_HDRS_LEN)
		quote = ICMP4_ERROR_MAX_LEN - ICMP4_HDRS_LEN;
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - NFV_L2_LEN - quote));
	/* The Ethernet header moves to the front; ip4_rewrite rewrites it. */
	rte_pktmbuf_prepend(m, ICMP4_HDRS_LEN);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, NFV_L2_LEN);
	icmp = (struct rte_icmp_hdr *)(ip + 1);

	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0xc0; /* internetwork control, as Linux */
	ip->total_length = rte_cpu_to_be_16((uint16_t)(ICMP4_HDRS_LEN + quote));
	ip->packet_id = 0;
	ip->fragment_offset = 0;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = src;
	ip->dst_addr = orig_src;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);

	icmp->icmp_type = meta->icmp_type;
	icmp->icmp_code = meta->icmp_code;
	icmp->icmp_cksum = 0;
	icmp->icmp_ident = 0;
	icmp->icmp_seq_nb = meta->icmp_type == NFV_ICMP_DEST_UNREACH && meta->icmp_code == 4 ?
			    rte_cpu_to_be_16((uint16_t)meta->icmp_info) : 0;
	sum = nfv_cksum_mbuf(m, NFV_L2_LEN + sizeof(*ip), sizeof(*icmp) + quote);
	icmp->icmp_cksum = (uint16_t)~sum;

	meta->flags = NFV_META_LOCAL_ORIGIN | NFV_META_ICMP_ERROR;
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_RSS_HASH);
}

static const struct nfv_icmp_error_ops icmp4_ops = {
	.fam = 0,
	.hdrs_len = ICMP4_HDRS_LEN,
	.allowed = icmp4_error_allowed,
	.has_source = icmp4_has_source,
	.build = icmp4_error_build,
	.arc = &nfv_ip4_icmp_error_arc,
};

static uint16_t
ip4_icmp_error_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_icmp_error_burst(graph, node, objs, n, &icmp4_ops, IP4_ICMP_ERROR_NEXT_LOOKUP);
}

static struct rte_node_register ip4_icmp_error_node = {
	.name = "nfv_ip4_icmp_error",
	.process = ip4_icmp_error_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP4_ICMP_ERROR_NEXT_MAX,
	.next_nodes = {
		[IP4_ICMP_ERROR_NEXT_LOOKUP] = "nfv_ip4_lookup",
	},
};

RTE_NODE_REGISTER(ip4_icmp_error_node);
