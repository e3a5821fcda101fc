/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip6_input: validates IPv6 headers before forwarding: version 6, payload
 * length within the frame (link padding trimmed), no unspecified,
 * multicast or loopback source, no unspecified or loopback destination,
 * no link-local address on either side (RFC 4291 2.5.6: never forwarded),
 * no multicast destination (not routed).
 *
 * ICMPv6 echo requests and ND messages to a link-local unicast or
 * link-scope multicast destination go to the link module's node when one
 * registered (nfv_ip6_link_register: ND), and so do duplicate address
 * detection probes (a neighbor solicitation from the unspecified address
 * to a solicited-node group), which nfvd answers for its own addresses.
 *
 * Edges: ip6_lookup, drop, the link module's node.
 * Drops: too_short, headers_not_contiguous, bad_version,
 *        bad_payload_length, martian_source, martian_destination,
 *        link_local, multicast_destination.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>

#include "core/arc.h"
#include "modules/ip/ip_node.h"

enum ip6_input_next {
	IP6_INPUT_NEXT_LOOKUP,
	IP6_INPUT_NEXT_DROP,
	IP6_INPUT_NEXT_MAX,
};

/* The IPv6 ingress arc: features enabled on the receiving interface run
 * between input and lookup (core/arc.h). */
struct nfv_arc nfv_ip6_ingress_arc = {
	.name = "ip6_ingress",
	.start_node = "nfv_ip6_input",
	.end_node = "nfv_ip6_lookup",
};
NFV_ARC_REGISTER(nfv_ip6_ingress_arc);

/* ip6_fast starts the arc too, for a burst that passed its checks (which
 * are this node's): modules/ip/ip_fast.h. */
struct nfv_arc_entry nfv_ip6_fast_ingress_entry = {
	.arc_name = "ip6_ingress", .node = "nfv_ip6_fast",
};
NFV_ARC_ENTRY_REGISTER(nfv_ip6_fast_ingress_entry);

/* Drop reasons counted by this node (show drops: node/name). */
NFV_DROP_REASON(drop_ip6_too_short, "ip6_input", "too_short",
	"shorter than an IPv6 header");
NFV_DROP_REASON(drop_ip6_headers_split, "ip6_input", "headers_not_contiguous",
	"IPv6 header split across mbuf segments");
NFV_DROP_REASON(drop_ip6_bad_version, "ip6_input", "bad_version",
	"IP version is not 6");
NFV_DROP_REASON(drop_ip6_bad_length, "ip6_input", "bad_payload_length",
	"payload length beyond the frame");
NFV_DROP_REASON(drop_ip6_martian_source, "ip6_input", "martian_source",
	"source is unspecified, multicast, loopback or IPv4-mapped");
NFV_DROP_REASON(drop_ip6_multicast, "ip6_input", "multicast_destination",
	"IPv6 multicast is not routed");
NFV_DROP_REASON(drop_ip6_martian_dest, "ip6_input", "martian_destination",
	"destination is unspecified, loopback or IPv4-mapped");
NFV_DROP_REASON(drop_ip6_link_local, "ip6_input", "link_local",
	"link-local source or destination is not forwarded");

static __rte_always_inline bool
ip6_is_unspecified(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

static __rte_always_inline bool
ip6_is_loopback(const uint8_t *a)
{
	static const uint8_t lo[16] = { [15] = 1 };

	return memcmp(a, lo, 16) == 0;
}

/* ::ffff:0:0/96, IPv4-mapped: never on the wire (RFC 4291 2.5.5.2, RFC 6890). */
static __rte_always_inline bool
ip6_is_v4_mapped(const uint8_t *a)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(a, mapped, 12) == 0;
}

static __rte_always_inline bool
ip6_is_link_local(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/* A solicited-node multicast address, ff02::1:ff00:0/104 (RFC 4291 2.7.1). */
static __rte_always_inline bool
ip6_is_solicited_node(const uint8_t *a)
{
	static const uint8_t prefix[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

	return memcmp(a, prefix, sizeof(prefix)) == 0;
}

/* ICMPv6 echo request or neighbor discovery (types 133-137), no extension
 * header: what the link module takes from link-scope destinations. */
static __rte_always_inline bool
ip6_is_nd_or_echo(const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip)
{
	uint8_t type;

	if (ip->proto != IPPROTO_ICMPV6 || rte_be_to_cpu_16(ip->payload_len) < 4 ||
	    rte_pktmbuf_data_len(m) < NFV_L2_LEN + sizeof(*ip) + 4)
		return false;
	type = *((const uint8_t *)(ip + 1));
	return type == 128 || (type >= 133 && type <= 137);
}

/* Every check, one at a time, to name the reason. */
static __rte_noinline uint16_t
ip6_input_slow(struct rte_mbuf *m)
{
	const struct rte_ipv6_hdr *ip;
	uint32_t l3_len = rte_pktmbuf_pkt_len(m) - NFV_L2_LEN, total;

	if (unlikely(l3_len < sizeof(struct rte_ipv6_hdr)))
		return nfv_mark_drop(m, drop_ip6_too_short.id, IP6_INPUT_NEXT_DROP);
	if (unlikely(rte_pktmbuf_data_len(m) < NFV_L2_LEN + sizeof(struct rte_ipv6_hdr)))
		return nfv_mark_drop(m, drop_ip6_headers_split.id, IP6_INPUT_NEXT_DROP);
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, NFV_L2_LEN);
	if (unlikely((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6))
		return nfv_mark_drop(m, drop_ip6_bad_version.id, IP6_INPUT_NEXT_DROP);
	total = sizeof(struct rte_ipv6_hdr) + rte_be_to_cpu_16(ip->payload_len);
	if (unlikely(total > l3_len))
		return nfv_mark_drop(m, drop_ip6_bad_length.id, IP6_INPUT_NEXT_DROP);
	if (unlikely(total < l3_len) && nfv_pktmbuf_trim(m, l3_len - total) < 0)
		return nfv_mark_drop(m, drop_ip6_bad_length.id, IP6_INPUT_NEXT_DROP);
	/* From the unspecified address, only a duplicate address detection
	 * probe (RFC 4862 5.4.2: a neighbor solicitation to a solicited-node
	 * group, RFC 4861 7.1.1), for the module that handles the link. */
	if (unlikely(ip6_is_unspecified(ip->src_addr)) && nfv_ip6_link_edge_input >= 0 &&
	    ip6_is_solicited_node(ip->dst_addr) && ip6_is_nd_or_echo(m, ip) &&
	    *((const uint8_t *)(ip + 1)) == 135)
		return (uint16_t)nfv_ip6_link_edge_input;
	if (unlikely(ip->src_addr[0] == 0xff || ip6_is_unspecified(ip->src_addr) ||
		     ip6_is_loopback(ip->src_addr) || ip6_is_v4_mapped(ip->src_addr)))
		return nfv_mark_drop(m, drop_ip6_martian_source.id, IP6_INPUT_NEXT_DROP);
	/* Echo requests and ND to a link-local unicast or link-scope multicast
	 * (ff02::/16) destination belong to the module that handles the link
	 * (ND), if there is one. */
	if (nfv_ip6_link_edge_input >= 0 &&
	    ((ip->dst_addr[0] == 0xff && (ip->dst_addr[1] & 0x0f) == 0x2) ||
	     ip6_is_link_local(ip->dst_addr)) && ip6_is_nd_or_echo(m, ip))
		return (uint16_t)nfv_ip6_link_edge_input;
	if (unlikely(ip->dst_addr[0] == 0xff))
		return nfv_mark_drop(m, drop_ip6_multicast.id, IP6_INPUT_NEXT_DROP);
	if (unlikely(ip6_is_unspecified(ip->dst_addr) || ip6_is_loopback(ip->dst_addr) ||
		     ip6_is_v4_mapped(ip->dst_addr)))
		return nfv_mark_drop(m, drop_ip6_martian_dest.id, IP6_INPUT_NEXT_DROP);
	if (unlikely(ip6_is_link_local(ip->src_addr) || ip6_is_link_local(ip->dst_addr)))
		return nfv_mark_drop(m, drop_ip6_link_local.id, IP6_INPUT_NEXT_DROP);
	return nfv_arc_start_edge(&nfv_ip6_ingress_arc, m->port);
}

/*
 * First bytes of the addresses that need a closer look: ::/8 (unspecified,
 * loopback), fe00::/8 (link-local) and ff00::/8 (multicast).
 */
static const uint8_t ip6_special_first_byte[256] = {
	[0x00] = 1, [0xfe] = 1, [0xff] = 1,
};

/*
 * The common case in one pass and one branch: a whole 40-byte header, no
 * link padding, no special address. Version and payload length are checked
 * at once, as the first 8 bytes of the header but the traffic class, flow
 * label and the next two fields, against what they must be. Anything else
 * takes ip6_input_slow.
 */
static __rte_always_inline uint16_t
ip6_input_fast(struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, NFV_L2_LEN);
	const uint8_t want_bytes[8] = { 0x60, 0, 0, 0, 0, 0, 0, 0 };
	const uint8_t mask_bytes[8] = { 0xf0, 0, 0, 0, 0xff, 0xff, 0, 0 };
	uint32_t payload = rte_pktmbuf_pkt_len(m) - NFV_L2_LEN - sizeof(struct rte_ipv6_hdr);
	rte_be16_t len = rte_cpu_to_be_16((uint16_t)payload);
	uint64_t first, want, mask;
	bool ok;

	memcpy(&first, ip, sizeof(first));
	memcpy(&want, want_bytes, sizeof(want));
	memcpy(&mask, mask_bytes, sizeof(mask));
	memcpy((uint8_t *)&want + offsetof(struct rte_ipv6_hdr, payload_len), &len, sizeof(len));
	ok = ((first & mask) == want) & (payload <= UINT16_MAX) &
	     (rte_pktmbuf_data_len(m) >= NFV_L2_LEN + sizeof(struct rte_ipv6_hdr)) &
	     !(ip6_special_first_byte[ip[offsetof(struct rte_ipv6_hdr, src_addr)]] |
	       ip6_special_first_byte[ip[offsetof(struct rte_ipv6_hdr, dst_addr)]]);
	return likely(ok) ? nfv_arc_start_edge(&nfv_ip6_ingress_arc, m->port) : NFV_NEXT_SLOW;
}

static uint16_t
ip6_input_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_node_run(graph, node, objs, n, ip6_input_fast, ip6_input_slow, false);
}

static struct rte_node_register ip6_input_node = {
	.name = "nfv_ip6_input",
	.process = ip6_input_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP6_INPUT_NEXT_MAX,
	.next_nodes = {
		[IP6_INPUT_NEXT_LOOKUP] = "nfv_ip6_lookup",
		[IP6_INPUT_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(ip6_input_node);
