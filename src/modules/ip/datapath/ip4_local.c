/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_local: packets for one of our addresses. ICMP echo requests are
 * answered in place (RFC 1122 3.2.2.6): addresses swapped, type 0, the
 * checksum updated, and the reply routed back through ip4_lookup.
 * UDP to a port a module registered (udp.h) goes to that module's node.
 * Everything else is dropped: nfvd has no local stack.
 *
 * Fragments of ICMP and UDP datagrams are reassembled first (reasm.h); the
 * whole datagram is then taken as above. Fragments of other protocols are
 * dropped as unsupported_protocol (with a kernel twin, the kernel gets them
 * and reassembles them itself).
 *
 * Edges: ip4_lookup, drop, then the registered UDP ports' nodes.
 * Writes: meta.flags (NFV_META_LOCAL_ORIGIN).
 * Drops: unsupported_protocol, bad_icmp; reassembly_failed,
 * reassembly_timeout (datapath/ip_reasm.c).
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

enum ip4_local_next {
	IP4_LOCAL_NEXT_LOOKUP,
	IP4_LOCAL_NEXT_DROP,
	IP4_LOCAL_NEXT_MAX,
};

/* Drop reasons counted by this node (show drops: node/name). */
NFV_DROP_REASON(drop_ip4_local_unsupported, "ip4_local", "unsupported_protocol",
	"for a local address, not an ICMP echo request");
NFV_DROP_REASON(drop_ip4_local_bad_icmp, "ip4_local", "bad_icmp",
	"ICMP to a local address: short or bad checksum");

static __rte_always_inline uint16_t
ip4_local_one(struct rte_mbuf *m, void *arg)
{
	struct nfv_worker *w = arg;
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, NFV_L2_LEN);
	uint32_t ihl = rte_ipv4_hdr_len(ip);
	uint32_t len = rte_be_to_cpu_16(ip->total_length) - ihl;
	struct rte_icmp_hdr *icmp;
	rte_be32_t tmp;
	uint16_t sum = 0;

	if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG))
		return nfv_mark_drop(m, drop_ip4_local_unsupported.id, IP4_LOCAL_NEXT_DROP);
	if (ip->next_proto_id == IPPROTO_UDP) {
		/* A port a module serves (udp.h): the datagram goes to its node. */
		rte_be16_t dport;
		int edge;

		if (len < sizeof(struct rte_udp_hdr) ||
		    rte_pktmbuf_data_len(m) < NFV_L2_LEN + ihl + sizeof(struct rte_udp_hdr))
			return nfv_mark_drop(m, drop_ip4_local_unsupported.id,
					     IP4_LOCAL_NEXT_DROP);
		memcpy(&dport, (uint8_t *)ip + ihl + offsetof(struct rte_udp_hdr, dst_port),
		       sizeof(dport));
		edge = nfv_udp_port_edge(AF_INET, dport);
		if (edge >= 0)
			return (uint16_t)edge;
	}
	if (ip->next_proto_id != IPPROTO_ICMP)
		return nfv_mark_drop(m, drop_ip4_local_unsupported.id, IP4_LOCAL_NEXT_DROP);
	if (len < sizeof(*icmp) || rte_pktmbuf_data_len(m) < NFV_L2_LEN + ihl + sizeof(*icmp))
		return nfv_mark_drop(m, drop_ip4_local_bad_icmp.id, IP4_LOCAL_NEXT_DROP);
	icmp = (struct rte_icmp_hdr *)((uint8_t *)ip + ihl);
	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST || icmp->icmp_code != 0)
		return nfv_mark_drop(m, drop_ip4_local_unsupported.id, IP4_LOCAL_NEXT_DROP);
	sum = nfv_cksum_mbuf(m, NFV_L2_LEN + ihl, len);
	if (sum != 0xffff)
		return nfv_mark_drop(m, drop_ip4_local_bad_icmp.id, IP4_LOCAL_NEXT_DROP);

	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp->icmp_cksum = nfv_cksum_update16(icmp->icmp_cksum, RTE_IP_ICMP_ECHO_REQUEST << 8,
					      RTE_IP_ICMP_ECHO_REPLY << 8);
	tmp = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = tmp;
	ip->time_to_live = 64;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	nfv_meta(m)->flags = NFV_META_LOCAL_ORIGIN;
	m->ol_flags &= ~RTE_MBUF_F_RX_IP_CKSUM_MASK;
	nfv_ip_counters(w)->echo_replies[0]++;
	return IP4_LOCAL_NEXT_LOOKUP;
}

/* Whether m is a fragment that reassembly takes (ICMP or UDP). */
static __rte_always_inline bool
ip4_local_reasm(const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, NFV_L2_LEN);

	return (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)) &&
	       nfv_reasm_proto(ip->next_proto_id);
}

static uint16_t
ip4_local_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_reasm_local(graph, node, objs, n, ip4_local_reasm, nfv_reasm4, ip4_local_one,
			       IP4_LOCAL_NEXT_DROP);
}

static struct rte_node_register ip4_local_node = {
	.name = "nfv_ip4_local",
	.process = ip4_local_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP4_LOCAL_NEXT_MAX,
	.next_nodes = {
		[IP4_LOCAL_NEXT_LOOKUP] = "nfv_ip4_lookup",
		[IP4_LOCAL_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(ip4_local_node);
