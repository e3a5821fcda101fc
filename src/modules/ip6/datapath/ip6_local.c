/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip6_local: packets for one of our addresses. ICMPv6 echo requests are
 * answered in place (RFC 4443 4.2): addresses swapped (the pseudo-header
 * sum does not change), type 129, the checksum updated, and the reply
 * routed back through ip6_lookup. UDP to a port a module registered
 * (udp.h) goes to that module's node. Everything else is dropped.
 *
 * ICMPv6 neighbor discovery (types 133-137) goes to the link module's node
 * (nfv_ip6_link_register).
 *
 * Fragments (a fragment header right after the fixed one) of ICMPv6 and
 * UDP datagrams are reassembled first (modules/ip/reasm.h); the whole
 * datagram is then taken as above. Other fragments are dropped as
 * unsupported_protocol (with a kernel twin, the kernel gets them).
 *
 * Edges: ip6_lookup, drop, then the registered UDP ports' nodes and the
 * link module's node.
 * Drops: unsupported_protocol, bad_icmp; reassembly_failed,
 * reassembly_timeout (modules/ip/datapath/ip_reasm.c).
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "modules/ip/ip_node.h"
#include "modules/ip/ip_counters.h"
#include "modules/ip/reasm.h"
#include "modules/ip/udp.h"

enum ip6_local_next {
	IP6_LOCAL_NEXT_LOOKUP,
	IP6_LOCAL_NEXT_DROP,
	IP6_LOCAL_NEXT_MAX,
};

/* Drop reasons counted by this node (show drops: node/name). */
NFV_DROP_REASON(drop_ip6_local_unsupported, "ip6_local", "unsupported_protocol",
	"for a local address, not an ICMPv6 echo request");
NFV_DROP_REASON(drop_ip6_local_bad_icmp, "ip6_local", "bad_icmp",
	"ICMPv6 to a local address: short or bad checksum");

#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129

static __rte_always_inline uint16_t
ip6_local_one(struct rte_mbuf *m, void *arg)
{
	struct nfv_worker *w = arg;
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, NFV_L2_LEN);
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)(ip + 1);
	uint8_t tmp[16];

	if (ip->proto == IPPROTO_UDP &&
	    rte_be_to_cpu_16(ip->payload_len) >= sizeof(struct rte_udp_hdr) &&
	    rte_pktmbuf_data_len(m) >= NFV_L2_LEN + sizeof(*ip) + sizeof(struct rte_udp_hdr)) {
		/* A port a module serves (udp.h); no extension headers. */
		rte_be16_t dport;
		int edge;

		memcpy(&dport, (uint8_t *)(ip + 1) + offsetof(struct rte_udp_hdr, dst_port),
		       sizeof(dport));
		edge = nfv_udp_port_edge(AF_INET6, dport);
		if (edge >= 0)
			return (uint16_t)edge;
	}
	if (ip->proto != IPPROTO_ICMPV6)
		return nfv_mark_drop(m, drop_ip6_local_unsupported.id, IP6_LOCAL_NEXT_DROP);
	if (rte_be_to_cpu_16(ip->payload_len) < sizeof(*icmp) ||
	    rte_pktmbuf_data_len(m) < NFV_L2_LEN + sizeof(*ip) + sizeof(*icmp))
		return nfv_mark_drop(m, drop_ip6_local_bad_icmp.id, IP6_LOCAL_NEXT_DROP);
	if (icmp->icmp_type >= 133 && icmp->icmp_type <= 137 && nfv_ip6_link_edge_local >= 0)
		return (uint16_t)nfv_ip6_link_edge_local; /* neighbor discovery (RFC 4861) */
	if (icmp->icmp_type != ICMP6_ECHO_REQUEST || icmp->icmp_code != 0)
		return nfv_mark_drop(m, drop_ip6_local_unsupported.id, IP6_LOCAL_NEXT_DROP);
	if (nfv_ip6_l4_sum(m, ip, NFV_L2_LEN + sizeof(*ip)) != 0xffff)
		return nfv_mark_drop(m, drop_ip6_local_bad_icmp.id, IP6_LOCAL_NEXT_DROP);

	icmp->icmp_type = ICMP6_ECHO_REPLY;
	icmp->icmp_cksum = nfv_cksum_update16(icmp->icmp_cksum, ICMP6_ECHO_REQUEST << 8,
					      ICMP6_ECHO_REPLY << 8);
	memcpy(tmp, ip->src_addr, 16);
	memcpy(ip->src_addr, ip->dst_addr, 16);
	memcpy(ip->dst_addr, tmp, 16);
	ip->hop_limits = 64;
	nfv_meta(m)->flags = NFV_META_LOCAL_ORIGIN;
	nfv_ip_counters(w)->echo_replies[1]++;
	return IP6_LOCAL_NEXT_LOOKUP;
}

/* Whether m is a fragment that reassembly takes: its fragment header
 * right after the fixed one, of an ICMPv6 or UDP datagram. */
static __rte_always_inline bool
ip6_local_reasm(const struct rte_mbuf *m)
{
	const struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, NFV_L2_LEN);

	return ip->proto == IPPROTO_FRAGMENT &&
	       rte_pktmbuf_data_len(m) >= NFV_L2_LEN + sizeof(*ip) + 8 &&
	       nfv_reasm_proto(*(const uint8_t *)(ip + 1));
}

static uint16_t
ip6_local_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_reasm_local(graph, node, objs, n, ip6_local_reasm, nfv_reasm6, ip6_local_one,
			       IP6_LOCAL_NEXT_DROP);
}

static struct rte_node_register ip6_local_node = {
	.name = "nfv_ip6_local",
	.process = ip6_local_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP6_LOCAL_NEXT_MAX,
	.next_nodes = {
		[IP6_LOCAL_NEXT_LOOKUP] = "nfv_ip6_lookup",
		[IP6_LOCAL_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(ip6_local_node);
