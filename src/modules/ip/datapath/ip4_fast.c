/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_fast: plain IPv4 unicast forwarding in one node, for the common case
 * only: ip4_input's checks, ip4_lookup's bulk FIB lookup and ip4_rewrite's
 * TTL and Ethernet rewrite fused in one node (a pass that validates and
 * gathers the destinations, the lookup, a pass that decides and rewrites:
 * modules/ip/ip_fast.h, shared with ip6_fast), straight to port_tx.
 * port_rx sends it every walk whose first frame is IPv4, and eth_input the
 * IPv4 frames of the bursts its fast path takes whole as IP for the port's
 * own MAC (neither unless "debug fastpath off"). Its first pass does
 * eth_input's fast step too (the port's MAC, the ethertype): a burst that
 * is not all IPv4 for the port's MAC goes to eth_input whole, uncounted
 * here, and eth_input then decides as without this node. What eth_input
 * sends here passes that step (it is its own), so no burst goes round.
 *
 * A packet is forwarded here when all of these hold: a 20-byte header
 * whole in the first segment, version 4, a total length within the frame
 * (link padding beyond it is trimmed here, as ip4_input does), a right
 * header checksum (the device's flag or computed here), no special source
 * or destination (ip4_input's table), the receiving interface in the
 * default VRF with no feature on its IPv4 ingress arc, a route to a
 * resolved next hop (a single one whose fwd_mtu the packet fits, or the
 * member of an ECMP group ip4_rewrite would pick), a TTL above 1, and no
 * feature on the output interface's IPv4 egress arc. Any other packet goes
 * to ip4_input as it came (nothing but the padding trim is written to a
 * packet before every test has passed): the node chain, the reference,
 * decides for it and names its drop. This node drops nothing.
 *
 * So that the packets the chain forwards are never reordered with those
 * forwarded here (a flow's packets, and the one TX burst per output port
 * of a walk), the whole burst goes to the chain when one of its packets
 * fails the header checks or leaves by an interface with an egress
 * feature (nfv_ip_fast_forward).
 *
 * Forwarded packets are grouped by output port (ip_fast.h), and the runs
 * recorded for port_tx (worker.tx_runs): one TX burst per port with no
 * pass of port_tx's own.
 *
 * Edges: port_tx, ip4_input, eth_input.
 * Writes: meta.tx_port and meta.flags (0: a unicast frame to the port's
 * MAC, as eth_input writes them) of the packets it forwards or gives to
 * ip4_input.
 */
#include <rte_fib.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>

#include "core/arc.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_fast.h"
#include "modules/ip/ip_node.h"

extern struct nfv_arc nfv_ip4_ingress_arc; /* ip4_input.c */
extern struct nfv_arc nfv_ip4_egress_arc;  /* ip4_rewrite.c */

/* First octets never forwarded, from or to: the same set as ip4_input's
 * fast path (0/8, 127/8, 169.254/16, 224/4, 240/4 and broadcast). */
static const uint8_t ip4_fast_special[256] = {
	[0] = 1, [127] = 1, [169] = 1, [224 ... 255] = 1,
};

/*
 * ip4_input_fast's test but for version, IHL and total length, whose word
 * (the header's first but for its TOS byte) is returned in *mismatch as
 * its difference from that of a 20-byte header filling the frame: zero in
 * the common case. Header loads before the length test, as there: within
 * the mbuf's data room, and the result thrown away when short.
 */
static __rte_always_inline bool
ip4_fast_valid(const struct rte_mbuf *m, const uint8_t *ip, uint32_t *mismatch)
{
	uint64_t csum_flags = m->ol_flags;
	uint32_t w0, head;

	memcpy(&w0, ip, sizeof(w0));
	head = rte_cpu_to_be_32(RTE_IPV4_VHL_DEF << 24 | (rte_pktmbuf_pkt_len(m) - NFV_L2_LEN));
	*mismatch = (w0 & RTE_BE32(0xff00ffff)) ^ head;
	return ((nfv_ip4_hdr20_sum(ip) % 0xffff == 0) |
		((csum_flags & RTE_MBUF_F_RX_IP_CKSUM_GOOD) != 0)) &
	       ((csum_flags & RTE_MBUF_F_RX_IP_CKSUM_BAD) == 0) &
	       (rte_pktmbuf_data_len(m) >= NFV_L2_LEN + sizeof(struct rte_ipv4_hdr)) &
	       !(ip4_fast_special[ip[12]] | ip4_fast_special[ip[16]]);
}

/* The receiving interface's test: default VRF, no ingress feature. */
static __rte_always_inline bool
ip4_fast_iface_ok(uint16_t iface)
{
	return nfv_ifaces[iface].vrf == 0 &&
	       nfv_arc_start_edge(&nfv_ip4_ingress_arc, iface) == nfv_ip4_ingress_arc.end_edge;
}

/*
 * A burst with a packet whose first word is not that of a 20-byte header
 * filling the frame: true when each such packet is a 20-byte header (which
 * makes the checksum test of ip4_fast_valid sound: a non-zero sum) with
 * link padding beyond its total length, which is then trimmed as
 * ip4_input does; false (nothing changed) when one is anything else.
 */
static __rte_noinline bool
ip4_fast_trim(struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		const struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(pkts[i], const struct rte_ipv4_hdr *, NFV_L2_LEN);
		uint32_t l3_len = rte_pktmbuf_pkt_len(pkts[i]) - NFV_L2_LEN;
		uint32_t total = rte_be_to_cpu_16(ip->total_length);

		if (ip->version_ihl != RTE_IPV4_VHL_DEF || total < sizeof(*ip) || total > l3_len)
			return false;
	}
	for (i = 0; i < n; i++) {
		const struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(pkts[i], const struct rte_ipv4_hdr *, NFV_L2_LEN);
		uint32_t l3_len = rte_pktmbuf_pkt_len(pkts[i]) - NFV_L2_LEN;
		uint32_t total = rte_be_to_cpu_16(ip->total_length);

		if (total < l3_len)
			nfv_pktmbuf_trim(pkts[i], l3_len - total);
	}
	return true;
}

static uint16_t
ip4_fast_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint32_t ips[RTE_GRAPH_BURST_SIZE];
	uint64_t nhs[RTE_GRAPH_BURST_SIZE];
	uint8_t *hdrs[RTE_GRAPH_BURST_SIZE];
	uint32_t mismatches = 0;
	uint16_t port0, ports = 0, i;
	bool valid = true;

	if (unlikely(n == 0))
		return 0;
	/* eth_input's fast step (the burst may come from port_rx), then
	 * ip4_input's checks: one packet that fails those sends the whole
	 * burst to the chain (it may forward that packet: options...), so no
	 * flow is reordered and the burst reaches port_tx in one piece. The
	 * receiving interfaces are tested once when they are all the same. */
	port0 = pkts[0]->port;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, NFV_L2_LEN);
		uint32_t mismatch;
		rte_be32_t dst;

		if (unlikely((nfv_ip_fast_l2_mismatch(ip, nfv_iface_mac_key[m->port],
						      RTE_BE16(RTE_ETHER_TYPE_IPV4)) != 0) |
			     (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)))
			goto not_ip4;
		valid &= ip4_fast_valid(m, ip, &mismatch);
		mismatches |= mismatch;
		ports |= m->port ^ port0;
		hdrs[i] = ip;
		memcpy(&dst, ip + offsetof(struct rte_ipv4_hdr, dst_addr), sizeof(dst));
		ips[i] = rte_be_to_cpu_32(dst);
	}
	if (likely(ports == 0))
		valid &= ip4_fast_iface_ok(port0);
	else
		for (i = 0; i < n; i++)
			valid &= ip4_fast_iface_ok(pkts[i]->port);
	if (unlikely(!valid || (mismatches != 0 && !ip4_fast_trim(pkts, n)))) {
		nfv_ip_fast_to_chain(graph, node, objs, n);
		return n;
	}
	rte_fib_lookup_bulk(nfv_fib4_active(), ips, nhs, n);
	/* Which packets are forwarded here; the others (no route, local,
	 * blackhole, unresolved, too big, TTL expiring) are not forwarded by
	 * the chain either, and go to it as they came. */
	return nfv_ip_fast_finish(graph, node, objs, n, nhs, hdrs, &nfv_ip4_egress_arc, false);

not_ip4:
	/* Not all IPv4 for the port's MAC (or shorter than an Ethernet
	 * header): eth_input decides, from the first frame on. The burst is
	 * not counted here. What eth_input sends here always passes that test
	 * (it is its own fast step), so a burst never goes round. */
	rte_node_next_stream_move(graph, node, NFV_IP_FAST_NEXT_ETH);
	return 0;
}

static struct rte_node_register ip4_fast_node = {
	.name = "nfv_ip4_fast",
	.process = ip4_fast_process,
	.init = nfv_node_ctx_init,
	.nb_edges = NFV_IP_FAST_NEXT_MAX,
	.next_nodes = {
		[NFV_IP_FAST_NEXT_TX] = "nfv_port_tx",
		[NFV_IP_FAST_NEXT_CHAIN] = "nfv_ip4_input",
		[NFV_IP_FAST_NEXT_ETH] = "nfv_eth_input",
	},
};

RTE_NODE_REGISTER(ip4_fast_node);
