/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_fast: plain IPv4 unicast forwarding in one node, for the common case
 * only: ip4_input's checks, ip4_lookup's bulk FIB lookup and ip4_rewrite's
 * TTL and Ethernet rewrite fused in one node (a pass that validates and
 * gathers the destinations, the lookup, a pass that decides and rewrites),
 * straight to port_tx. eth_input sends it the bursts its fast path takes
 * whole as IPv4 for the port's own MAC (unless "debug fastpath off").
 *
 * A packet is forwarded here when all of these hold: a 20-byte header
 * whole in the first segment, version 4, a total length that is the
 * frame's (no link padding), a right header checksum (the device's flag or
 * computed here), no special source or destination (ip4_input's table),
 * the receiving interface in the default VRF with no feature on its IPv4
 * ingress arc, a route to a resolved next hop (a single one whose fwd_mtu
 * the packet fits, or the member of an ECMP group ip4_rewrite would pick),
 * a TTL above 1, and no feature on the output interface's IPv4 egress arc.
 * Any other packet goes to ip4_input as it came (nothing is written to a
 * packet before every test has passed): the node chain, the reference,
 * decides for it and names its drop. This node drops nothing.
 *
 * So that the packets the chain forwards are never reordered with those
 * forwarded here (a flow's packets, and the one TX burst per output port
 * of a walk), the whole burst goes to the chain when one of its packets
 * fails the header checks or leaves by an interface with an egress
 * feature (ip4_fast_forward); eth_input sends only bursts that are all IPv4 for the port's
 * MAC (IPv6 in the same burst would reach port_tx later than the IPv4
 * forwarded here, in a second TX burst).
 *
 * Edges: port_tx, ip4_input.
 * Writes: meta.tx_port (forwarded packets only).
 */
#include <rte_fib.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>

#include "core/arc.h"
#include "modules/ip/ip_node.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip.h"

enum ip4_fast_next {
	IP4_FAST_NEXT_TX,
	IP4_FAST_NEXT_INPUT,
	IP4_FAST_NEXT_MAX,
};

extern struct nfv_arc nfv_ip4_ingress_arc; /* ip4_input.c */
extern struct nfv_arc nfv_ip4_egress_arc;  /* ip4_rewrite.c */

/* First octets never forwarded, from or to: the same set as ip4_input's
 * fast path (0/8, 127/8, 169.254/16, 224/4, 240/4 and broadcast). */
static const uint8_t ip4_fast_special[256] = {
	[0] = 1, [127] = 1, [169] = 1, [224 ... 255] = 1,
};

/*
 * ip4_input_fast's test. Header loads before the length test, as there:
 * within the mbuf's data room, and the result thrown away when short.
 */
static __rte_always_inline bool
ip4_fast_valid(const struct rte_mbuf *m, const uint8_t *ip)
{
	uint64_t csum_flags = m->ol_flags;
	uint32_t w0, head;

	memcpy(&w0, ip, sizeof(w0));
	head = rte_cpu_to_be_32(RTE_IPV4_VHL_DEF << 24 | (rte_pktmbuf_pkt_len(m) - NFV_L2_LEN));
	return ((nfv_ip4_hdr20_sum(ip) % 0xffff == 0) |
		((csum_flags & RTE_MBUF_F_RX_IP_CKSUM_GOOD) != 0)) &
	       ((csum_flags & RTE_MBUF_F_RX_IP_CKSUM_BAD) == 0) &
	       ((w0 & RTE_BE32(0xff00ffff)) == head) &
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
 * The next hop a forwarded packet leaves by (the ECMP member of a group,
 * picked as ip4_rewrite does), or NULL when the chain must decide.
 */
static __rte_always_inline const struct nfv_nexthop *
ip4_fast_out_nh(const struct rte_mbuf *m, const uint8_t *ip, const struct nfv_nexthop *nh)
{
	if (unlikely(nh != NULL && nh->type == NFV_NH_GROUP))
		nh = nfv_nh_group_pick(nh, nfv_ip4_flow_hash(m, (const struct rte_ipv4_hdr *)ip));
	return nh;
}

/* TTL, checksum and Ethernet header of a packet forwarded to nh. */
static __rte_always_inline void
ip4_fast_rewrite(struct rte_mbuf *m, uint8_t *ip, const struct nfv_nexthop *nh)
{
	uint8_t *ttl = ip + offsetof(struct rte_ipv4_hdr, time_to_live);
	uint32_t w;

	memcpy(&w, ttl, sizeof(w));
	w = nfv_ip4_ttl_dec_word(w);
	memcpy(ttl, &w, sizeof(w));
	nfv_rewrite_l2(m, nh);
}

/*
 * After the lookup. one_pass (no interface has an egress feature): each
 * packet is decided and rewritten in one loop. Otherwise a first loop
 * decides and finds whether a packet leaves by an interface with an egress
 * feature (then the whole burst goes to the chain, nothing written), and a
 * second rewrites. A feature enabled while a one-pass burst runs only sends
 * its packets to the chain one at a time.
 */
static __rte_always_inline uint16_t
ip4_fast_forward(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
		 uint64_t *nhs, const bool one_pass)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	const uint16_t out_end = nfv_ip4_egress_arc.end_edge;
	uint16_t any = 0, all = UINT16_MAX, i;
	bool chain_fwd = false;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, NFV_L2_LEN);
		const struct nfv_nexthop *nh = ip4_fast_out_nh(m, ip,
								nfv_nh_get(nfv_fib_nh_id(nhs[i])));
		bool fwd;

		/* fwd_mtu is 0 but for a single resolved next hop. */
		fwd = nh != NULL && ip[offsetof(struct rte_ipv4_hdr, time_to_live)] > 1 &&
		      rte_pktmbuf_pkt_len(m) - NFV_L2_LEN <= nh->fwd_mtu;
		if (one_pass) {
			uint16_t next = IP4_FAST_NEXT_INPUT;

			if (likely(fwd && nfv_arc_start_edge(&nfv_ip4_egress_arc,
							     nh->port_id) == out_end)) {
				ip4_fast_rewrite(m, ip, nh);
				next = IP4_FAST_NEXT_TX;
			}
			nexts[i] = next;
			any |= next;
			all &= next;
		} else {
			chain_fwd |= nh != NULL && nfv_nh_forwards(nh) &&
				     nfv_arc_start_edge(&nfv_ip4_egress_arc, nh->port_id) != out_end;
			nhs[i] = fwd ? (uintptr_t)nh : 0;
		}
	}
	if (!one_pass) {
		if (chain_fwd) {
			rte_node_next_stream_move(graph, node, IP4_FAST_NEXT_INPUT);
			return n;
		}
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			const struct nfv_nexthop *nh = (const struct nfv_nexthop *)(uintptr_t)nhs[i];
			uint16_t next = IP4_FAST_NEXT_INPUT;

			if (likely(nh != NULL)) {
				ip4_fast_rewrite(m, rte_pktmbuf_mtod_offset(m, uint8_t *, NFV_L2_LEN),
						 nh);
				next = IP4_FAST_NEXT_TX;
			}
			nexts[i] = next;
			any |= next;
			all &= next;
		}
	}
	if (likely(any == all))
		rte_node_next_stream_move(graph, node, any);
	else
		nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

static uint16_t
ip4_fast_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint32_t ips[RTE_GRAPH_BURST_SIZE];
	uint64_t nhs[RTE_GRAPH_BURST_SIZE];
	uint16_t port0, ports = 0, i;
	bool valid = true;

	if (unlikely(n == 0))
		return 0;
	/* ip4_input's checks: one packet that fails them sends the whole burst
	 * to the chain (it may forward that packet: options, link padding), so
	 * no flow is reordered and the burst reaches port_tx in one piece. The
	 * receiving interfaces are tested once when they are all the same. */
	port0 = pkts[0]->port;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, NFV_L2_LEN);
		rte_be32_t dst;

		valid &= ip4_fast_valid(m, ip);
		ports |= m->port ^ port0;
		memcpy(&dst, ip + offsetof(struct rte_ipv4_hdr, dst_addr), sizeof(dst));
		ips[i] = rte_be_to_cpu_32(dst);
	}
	if (likely(ports == 0))
		valid &= ip4_fast_iface_ok(port0);
	else
		for (i = 0; i < n; i++)
			valid &= ip4_fast_iface_ok(pkts[i]->port);
	if (unlikely(!valid)) {
		rte_node_next_stream_move(graph, node, IP4_FAST_NEXT_INPUT);
		return n;
	}
	rte_fib_lookup_bulk(nfv_fib4_active(), ips, nhs, n);
	/* Which packets are forwarded here; the others (no route, local,
	 * blackhole, unresolved, too big, TTL expiring) are not forwarded by
	 * the chain either, and go to it as they came. */
	if (likely(__atomic_load_n(&nfv_ip4_egress_arc.n_ifaces_on, __ATOMIC_ACQUIRE) == 0))
		return ip4_fast_forward(graph, node, objs, n, nhs, true);
	return ip4_fast_forward(graph, node, objs, n, nhs, false);
}

static struct rte_node_register ip4_fast_node = {
	.name = "nfv_ip4_fast",
	.process = ip4_fast_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP4_FAST_NEXT_MAX,
	.next_nodes = {
		[IP4_FAST_NEXT_TX] = "nfv_port_tx",
		[IP4_FAST_NEXT_INPUT] = "nfv_ip4_input",
	},
};

RTE_NODE_REGISTER(ip4_fast_node);
