/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_input: validates IPv4 headers as RFC 1812 5.2.2 asks before a
 * router may forward a packet: version 4, header length of at least five
 * words and within the packet, a correct header checksum (the device's RX
 * checksum flag when it has one, else computed here), a total length not
 * below the header nor beyond the frame (link padding is trimmed). Martian
 * addresses (RFC 1812 5.3.7), link-local ones (169.254/16, RFC 3927 7)
 * and multicast are dropped.
 *
 * Edges: ip4_lookup, drop.
 * Drops: too_short, headers_not_contiguous, bad_version, bad_ihl,
 *        bad_checksum, bad_total_length, martian_source,
 *        martian_destination, multicast_destination, broadcast_destination,
 *        link_local.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>

#include "core/arc.h"
#include "modules/ip/ip_node.h"

enum ip4_input_next {
	IP4_INPUT_NEXT_LOOKUP,
	IP4_INPUT_NEXT_DROP,
	IP4_INPUT_NEXT_MAX,
};

/* The IPv4 ingress arc: features enabled on the receiving interface run
 * between input and lookup (core/arc.h). */
struct nfv_arc nfv_ip4_ingress_arc = {
	.name = "ip4_ingress",
	.start_node = "nfv_ip4_input",
	.end_node = "nfv_ip4_lookup",
};
NFV_ARC_REGISTER(nfv_ip4_ingress_arc);

/* ip4_fast starts the arc too, for a burst that passed its checks (which
 * are this node's): modules/ip/ip_fast.h. */
struct nfv_arc_entry nfv_ip4_fast_ingress_entry = {
	.arc_name = "ip4_ingress", .node = "nfv_ip4_fast",
};
NFV_ARC_ENTRY_REGISTER(nfv_ip4_fast_ingress_entry);

/* Drop reasons counted by this node (show drops: node/name). */
NFV_DROP_REASON(drop_ip4_too_short, "ip4_input", "too_short",
	"shorter than an IPv4 header");
NFV_DROP_REASON(drop_ip4_headers_split, "ip4_input", "headers_not_contiguous",
	"IPv4 header split across mbuf segments");
NFV_DROP_REASON(drop_ip4_bad_version, "ip4_input", "bad_version",
	"IP version is not 4");
NFV_DROP_REASON(drop_ip4_bad_ihl, "ip4_input", "bad_ihl",
	"header length below 5 words or beyond the packet");
NFV_DROP_REASON(drop_ip4_bad_checksum, "ip4_input", "bad_checksum",
	"header checksum wrong (RFC 1812 5.2.2)");
NFV_DROP_REASON(drop_ip4_bad_length, "ip4_input", "bad_total_length",
	"total length below the header or beyond the frame");
NFV_DROP_REASON(drop_ip4_martian_source, "ip4_input", "martian_source",
	"source is 0/8, 127/8, multicast, class E or broadcast (RFC 1812 5.3.7)");
NFV_DROP_REASON(drop_ip4_broadcast, "ip4_input", "broadcast_destination",
	"limited broadcast is not forwarded");
NFV_DROP_REASON(drop_ip4_multicast, "ip4_input", "multicast_destination",
	"IPv4 multicast is not routed");
NFV_DROP_REASON(drop_ip4_martian_dest, "ip4_input", "martian_destination",
	"destination is 0/8, 127/8 or class E (RFC 1812 5.3.7)");
NFV_DROP_REASON(drop_ip4_link_local, "ip4_input", "link_local",
	"link-local (169.254/16) source or destination is not forwarded (RFC 3927 7)");

/*
 * First octets of addresses that are never forwarded, from or to
 * (0/8, 127/8, 169.254/16 link-local, 224/4 multicast, 240/4 and the
 * limited broadcast): the fast path sends these to ip4_input_slow for the
 * exact reason.
 */
static const uint8_t ip4_special_first_octet[256] = {
	[0] = 1, [127] = 1, [169] = 1, [224 ... 255] = 1,
};

/* Every check, one at a time, to name the reason (and the rare cases). */
static __rte_noinline uint16_t
ip4_input_slow(struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip;
	uint32_t l3_len = rte_pktmbuf_pkt_len(m) - NFV_L2_LEN;
	uint32_t ihl, total, src, dst;
	uint64_t csum_flags;

	if (unlikely(l3_len < sizeof(struct rte_ipv4_hdr)))
		return nfv_mark_drop(m, drop_ip4_too_short.id, IP4_INPUT_NEXT_DROP);
	if (unlikely(rte_pktmbuf_data_len(m) < NFV_L2_LEN + sizeof(struct rte_ipv4_hdr)))
		return nfv_mark_drop(m, drop_ip4_headers_split.id, IP4_INPUT_NEXT_DROP);
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, NFV_L2_LEN);
	if (unlikely(ip->version_ihl != RTE_IPV4_VHL_DEF)) {
		if ((ip->version_ihl >> 4) != 4)
			return nfv_mark_drop(m, drop_ip4_bad_version.id, IP4_INPUT_NEXT_DROP);
		ihl = (uint32_t)(ip->version_ihl & 0xf) * 4;
		if (ihl < sizeof(struct rte_ipv4_hdr) || ihl > l3_len)
			return nfv_mark_drop(m, drop_ip4_bad_ihl.id, IP4_INPUT_NEXT_DROP);
		if (rte_pktmbuf_data_len(m) < NFV_L2_LEN + ihl)
			return nfv_mark_drop(m, drop_ip4_headers_split.id, IP4_INPUT_NEXT_DROP);
	} else {
		ihl = sizeof(struct rte_ipv4_hdr);
	}
	csum_flags = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	if (csum_flags == RTE_MBUF_F_RX_IP_CKSUM_BAD ||
	    (csum_flags != RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
	     !(likely(ihl == sizeof(struct rte_ipv4_hdr)) ? nfv_ip4_hdr20_cksum_ok(ip) :
	       rte_raw_cksum(ip, ihl) == 0xffff)))
		return nfv_mark_drop(m, drop_ip4_bad_checksum.id, IP4_INPUT_NEXT_DROP);
	total = rte_be_to_cpu_16(ip->total_length);
	if (unlikely(total < ihl || total > l3_len))
		return nfv_mark_drop(m, drop_ip4_bad_length.id, IP4_INPUT_NEXT_DROP);
	if (unlikely(total < l3_len) && nfv_pktmbuf_trim(m, l3_len - total) < 0)
		return nfv_mark_drop(m, drop_ip4_bad_length.id, IP4_INPUT_NEXT_DROP);
	src = rte_be_to_cpu_32(ip->src_addr);
	dst = rte_be_to_cpu_32(ip->dst_addr);
	if (unlikely(nfv_ip4_is_martian_src(src)))
		return nfv_mark_drop(m, drop_ip4_martian_source.id, IP4_INPUT_NEXT_DROP);
	if (unlikely((dst >> 24) == 0 || (dst >> 24) == 127 || dst >= 0xe0000000)) {
		if (dst == 0xffffffff)
			return nfv_mark_drop(m, drop_ip4_broadcast.id, IP4_INPUT_NEXT_DROP);
		if ((dst >> 28) == 0xe)
			return nfv_mark_drop(m, drop_ip4_multicast.id, IP4_INPUT_NEXT_DROP);
		return nfv_mark_drop(m, drop_ip4_martian_dest.id, IP4_INPUT_NEXT_DROP);
	}
	if (unlikely((src >> 16) == 0xa9fe || (dst >> 16) == 0xa9fe))
		return nfv_mark_drop(m, drop_ip4_link_local.id, IP4_INPUT_NEXT_DROP);
	return nfv_arc_start_edge(&nfv_ip4_ingress_arc, m->port);
}

/*
 * The common case in one pass and one branch: a 20-byte header whole in the
 * first segment, no link padding, a right checksum (the device's flag, or
 * the header summed here) and no special address. Anything else takes
 * ip4_input_slow, which also handles a device that could verify the header
 * but not its checksum (RTE_MBUF_F_RX_IP_CKSUM_NONE). As in eth_input, the
 * header is read before the length test says it is whole: within the data
 * room, and thrown away if not.
 */
static __rte_always_inline uint16_t
ip4_input_fast(struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, NFV_L2_LEN);
	uint64_t csum_flags = m->ol_flags;
	uint32_t w0, head;
	bool ok;

	/* Version 4, IHL 5 and a total length that is the frame's, at once:
	 * the first word but its TOS byte, against the word expected (which
	 * makes the header's sum non-zero, as nfv_ip4_hdr20_sum asks). */
	memcpy(&w0, ip, sizeof(w0));
	head = rte_cpu_to_be_32(RTE_IPV4_VHL_DEF << 24 | (rte_pktmbuf_pkt_len(m) - NFV_L2_LEN));
	ok = ((nfv_ip4_hdr20_sum(ip) % 0xffff == 0) |
	      ((csum_flags & RTE_MBUF_F_RX_IP_CKSUM_GOOD) != 0)) &
	     ((csum_flags & RTE_MBUF_F_RX_IP_CKSUM_BAD) == 0) &
	     ((w0 & RTE_BE32(0xff00ffff)) == head) &
	     (rte_pktmbuf_data_len(m) >= NFV_L2_LEN + sizeof(struct rte_ipv4_hdr)) &
	     !(ip4_special_first_octet[ip[12]] | ip4_special_first_octet[ip[16]]);
	return likely(ok) ? nfv_arc_start_edge(&nfv_ip4_ingress_arc, m->port) : NFV_NEXT_SLOW;
}

static uint16_t
ip4_input_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_node_run(graph, node, objs, n, ip4_input_fast, ip4_input_slow, false);
}

static struct rte_node_register ip4_input_node = {
	.name = "nfv_ip4_input",
	.process = ip4_input_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP4_INPUT_NEXT_MAX,
	.next_nodes = {
		[IP4_INPUT_NEXT_LOOKUP] = "nfv_ip4_lookup",
		[IP4_INPUT_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(ip4_input_node);
