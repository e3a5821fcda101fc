/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip6_fast: plain IPv6 unicast forwarding in one node, ip4_fast's twin:
 * ip6_input's checks, ip6_lookup's FIB6 lookup (the trie read inline,
 * modules/ip/fib6_trie.h) and ip6_rewrite's hop limit and Ethernet rewrite
 * fused (a pass that validates and gathers the destinations, the lookup, a
 * pass that decides and rewrites: modules/ip/ip_fast.h), straight to
 * port_tx. port_rx sends it every walk whose first frame is IPv6,
 * eth_input the IPv6 frames of the bursts its fast path takes whole
 * (neither unless "debug fastpath off"); as in ip4_fast, its first pass
 * does eth_input's fast step too and gives eth_input, uncounted, a burst
 * that is not all IPv6 for the port's MAC.
 *
 * A packet is forwarded here when all of these hold: a 40-byte header whole
 * in the first segment, version 6, a payload length within the frame (link
 * padding beyond it is trimmed here, as ip6_input does), source and
 * destination outside ::/8 (unspecified, loopback, IPv4-mapped), fe00::/8
 * (link-local, RFC 4291 2.5.6) and ff00::/8 (multicast: a source is a
 * martian, a destination is not routed), the receiving interface in the
 * default VRF with no feature on its IPv6 ingress arc, a route to a
 * resolved next hop (single, whose fwd_mtu the packet fits: routers never
 * fragment IPv6, RFC 8200 5; or the member of an ECMP group ip6_rewrite
 * would pick) and a hop limit above 1 (RFC 4443 3.3); one whose output
 * interface has a feature on the IPv6 egress arc goes to that feature,
 * rewritten. Any other packet goes to ip6_input as
 * it came (nothing but the padding trim is written before every test has
 * passed): the node chain, the reference, decides for it, sends its
 * ICMPv6 error and names its drop. This node drops nothing. As in
 * ip4_fast, a burst that passed the checks but came in by an interface
 * with an ingress feature (or in a VRF) goes from here to that feature
 * (or ip6_lookup).
 *
 * As in ip4_fast, one packet failing the header checks sends the whole
 * burst to the chain, so that what the chain forwards is never reordered
 * with what is forwarded here.
 *
 * Edges: port_tx, ip6_input, eth_input, then those of its entries of the
 * IPv6 arcs (ip6_lookup, the features).
 * Writes: meta.tx_port and meta.flags, as ip4_fast.
 */
#include <rte_fib6.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>

#include "core/arc.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip.h"
#include "modules/ip/fib6_trie.h"
#include "modules/ip/ip_fast.h"
#include "modules/ip/ip_node.h"

extern struct nfv_arc nfv_ip6_ingress_arc; /* ip6_input.c */
extern struct nfv_arc nfv_ip6_egress_arc;  /* ip6_rewrite.c */

/* First bytes of addresses ip6_input must look at: ::/8, fe00::/8, ff00::/8
 * (the same set as its fast path). */
static const uint64_t ip6_fast_special[256] = {
	[0x00] = NFV_IP_FAST_FAIL, [0xfe] = NFV_IP_FAST_FAIL, [0xff] = NFV_IP_FAST_FAIL,
};

/*
 * ip6_input_fast's test but for version and payload length, returned in
 * *mismatch: zero when the version is 6 and the payload length is what
 * fills the frame (the common case), else not (a frame shorter than the
 * header, or longer than any payload length, never gives zero). Loads
 * before the length test, as there: within the data room, thrown away
 * when short. Returns NFV_IP_FAST_FAIL when the frame is shorter than the
 * header or an address is special, else 0.
 */
static __rte_always_inline uint64_t
ip6_fast_valid(const struct rte_mbuf *m, const uint8_t *ip, uint64_t *mismatch, uint64_t *sum_key,
	       const bool len_checked)
{
	uint32_t payload = rte_pktmbuf_pkt_len(m) - NFV_L2_LEN - sizeof(struct rte_ipv6_hdr);
	rte_be16_t len;

	memcpy(&len, ip + offsetof(struct rte_ipv6_hdr, payload_len), sizeof(len));
	*mismatch = ((ip[0] & 0xf0u) ^ 0x60u) | (rte_be_to_cpu_16(len) ^ payload);
	*sum_key = 0; /* no header checksum */
	return ip6_fast_special[ip[offsetof(struct rte_ipv6_hdr, src_addr)]] |
	       ip6_fast_special[ip[offsetof(struct rte_ipv6_hdr, dst_addr)]] |
	       (uint64_t)(!len_checked && rte_pktmbuf_data_len(m) <
			  NFV_L2_LEN + sizeof(struct rte_ipv6_hdr)) << 32;
}

/* For the padding trim: the length of a version 6 packet by its header,
 * else UINT32_MAX. */
static __rte_always_inline uint32_t
ip6_fast_total(const uint8_t *hdr)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)hdr;

	return (rte_be_to_cpu_32(ip->vtc_flow) >> 28) == 6 ?
	       sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len) : UINT32_MAX;
}

/* The trie read inline (modules/ip/fib6_trie.h), or the bulk lookup. */
static __rte_always_inline void
ip6_fast_lookup(union nfv_ip_fast_dsts *dsts, uint64_t *nhs, uint16_t n)
{
	nfv_fib6_lookup(dsts->v6, nhs, n);
}

static uint16_t
ip6_fast_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_ip_fast_run(graph, node, objs, n, true, &nfv_ip6_ingress_arc,
			       &nfv_ip6_egress_arc, ip6_fast_valid, ip6_fast_total,
			       ip6_fast_lookup);
}

static struct rte_node_register ip6_fast_node = {
	.name = "nfv_ip6_fast",
	.process = ip6_fast_process,
	.init = nfv_node_ctx_init,
	.nb_edges = NFV_IP_FAST_NEXT_MAX,
	.next_nodes = {
		[NFV_IP_FAST_NEXT_TX] = "nfv_port_tx",
		[NFV_IP_FAST_NEXT_CHAIN] = "nfv_ip6_input",
		[NFV_IP_FAST_NEXT_ETH] = "nfv_eth_input",
	},
};

RTE_NODE_REGISTER(ip6_fast_node);
