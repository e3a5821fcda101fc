/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip6_icmp_error: turns a packet that cannot be forwarded into the ICMPv6
 * error about it (RFC 4443 2.4): as much of the original packet as fits in
 * the minimum IPv6 MTU (1280 bytes), sent from the first global (not
 * link-local) IPv6 address of the ingress port (ip6_rewrite puts the
 * output port's in its place where they differ), routed back through
 * ip6_lookup. No error about an ICMPv6 error or redirect (found behind any
 * extension headers), a multicast destination or link-layer multicast, a
 * packet nfvd built itself, or from an unspecified/multicast source
 * (2.4 e, f), nor beyond the per-worker rate limit (2.4 f). The original
 * packet is counted under its drop reason.
 *
 * Edges: ip6_lookup.
 * Reads: meta.icmp_type/code/info, meta.drop_reason, meta.flags.
 */
#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "modules/ip/datapath/icmp_error.h"
#include "modules/ip/ip_node.h"
#include "modules/ip/ip.h"

enum ip6_icmp_error_next {
	IP6_ICMP_ERROR_NEXT_LOOKUP,
	IP6_ICMP_ERROR_NEXT_MAX,
};

#define ICMP6_ERROR_MAX_LEN 1280
#define ICMP6_HDRS_LEN (sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_icmp_hdr))

static bool
icmp6_error_allowed(struct rte_mbuf *m)
{
	const struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, NFV_L2_LEN);
	static const uint8_t zero[16];
	const uint8_t *b = (const uint8_t *)ip;
	uint32_t end = sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len), off = sizeof(*ip);
	uint8_t proto = ip->proto;

	/* Not about link-layer multicast, nor about nfvd's own packets. */
	if (nfv_meta(m)->flags & (NFV_META_L2_MCAST | NFV_META_LOCAL_ORIGIN))
		return false;
	if (ip->src_addr[0] == 0xff || memcmp(ip->src_addr, zero, 16) == 0 ||
	    ip->dst_addr[0] == 0xff)
		return false;
	if (end > (uint32_t)rte_pktmbuf_data_len(m) - NFV_L2_LEN)
		end = (uint32_t)rte_pktmbuf_data_len(m) - NFV_L2_LEN;
	/* The upper layer behind hop-by-hop, routing and destination options
	 * headers, and a first fragment's (RFC 4443 2.4 e: the ICMPv6 type
	 * decides, wherever the header is). */
	for (unsigned int k = 0; k < 8 && off + 8 <= end; k++) {
		if (proto == IPPROTO_HOPOPTS || proto == IPPROTO_ROUTING ||
		    proto == IPPROTO_DSTOPTS) {
			proto = b[off];
			off += (b[off + 1] + 1u) * 8;
		} else if (proto == IPPROTO_FRAGMENT) {
			if ((b[off + 2] << 8 | b[off + 3]) & 0xfff8)
				return true; /* not the first fragment: no upper header */
			proto = b[off];
			off += 8;
		} else {
			break;
		}
	}
	if (proto == IPPROTO_ICMPV6) {
		if (off + 1 > end)
			return false;
		/* Errors (type < 128) and redirects (137) get no error back. */
		if (b[off] < 128 || b[off] == 137)
			return false;
	}
	return true;
}

static bool
icmp6_has_source(const struct nfv_port_l3 *l3)
{
	return l3->has6;
}

static void
icmp6_error_build(struct rte_mbuf *m, const struct nfv_port_l3 *l3)
{
	const uint8_t *src = l3->src6;
	struct nfv_mbuf_meta *meta = nfv_meta(m);
	struct rte_ipv6_hdr *orig = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, NFV_L2_LEN);
	uint32_t quote = sizeof(*orig) + rte_be_to_cpu_16(orig->payload_len);
	uint8_t orig_src[16];
	struct rte_ipv6_hdr *ip;
	struct rte_icmp_hdr *icmp;

	memcpy(orig_src, orig->src_addr, 16);
	if (quote > ICMP6_ERROR_MAX_LEN - ICMP6_HDRS_LEN)
		quote = ICMP6_ERROR_MAX_LEN - ICMP6_HDRS_LEN;
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - NFV_L2_LEN - quote));
	rte_pktmbuf_prepend(m, ICMP6_HDRS_LEN);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, NFV_L2_LEN);
	icmp = (struct rte_icmp_hdr *)(ip + 1);

	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(sizeof(*icmp) + quote));
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 64;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, orig_src, 16);

	icmp->icmp_type = meta->icmp_type;
	icmp->icmp_code = meta->icmp_code;
	icmp->icmp_cksum = 0;
	/* Bytes 4-7: the MTU for "packet too big", else unused (zero). */
	{
		rte_be32_t info = meta->icmp_type == 2 ? rte_cpu_to_be_32(meta->icmp_info) : 0;

		memcpy(&icmp->icmp_ident, &info, sizeof(info));
	}
	icmp->icmp_cksum = (uint16_t)~nfv_ip6_l4_sum(m, ip, NFV_L2_LEN + sizeof(*ip));

	meta->flags = NFV_META_LOCAL_ORIGIN | NFV_META_ICMP_ERROR;
	m->ol_flags &= ~RTE_MBUF_F_RX_RSS_HASH;
}

static const struct nfv_icmp_error_ops icmp6_ops = {
	.fam = 1,
	.hdrs_len = ICMP6_HDRS_LEN,
	.allowed = icmp6_error_allowed,
	.has_source = icmp6_has_source,
	.build = icmp6_error_build,
};

static uint16_t
ip6_icmp_error_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_icmp_error_burst(graph, node, objs, n, &icmp6_ops, IP6_ICMP_ERROR_NEXT_LOOKUP);
}

static struct rte_node_register ip6_icmp_error_node = {
	.name = "nfv_ip6_icmp_error",
	.process = ip6_icmp_error_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP6_ICMP_ERROR_NEXT_MAX,
	.next_nodes = {
		[IP6_ICMP_ERROR_NEXT_LOOKUP] = "nfv_ip6_lookup",
	},
};

RTE_NODE_REGISTER(ip6_icmp_error_node);
