/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fused forwarding nodes (ip4_fast, ip6_fast) share: after each
 * family's validation pass and bulk FIB lookup, the pass that decides
 * which packets are forwarded here and rewrites them, written once with a
 * constant family flag (STYLE rule 6).
 *
 * A packet is forwarded by a fused node when its next hop is a single
 * resolved one (or the member of an ECMP group the rewrite node would
 * pick) whose fwd_mtu the packet fits, its TTL / hop limit is above 1 and
 * its output interface has no feature on the family's egress arc. Any other
 * packet goes to the chain's input node untouched: the chain decides for it
 * and names its drop.
 */
#ifndef NFV_IP_FAST_H
#define NFV_IP_FAST_H

#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_node.h"

/* The edges of both fused nodes: port_tx, and the family's input node. */
enum nfv_ip_fast_next {
	NFV_IP_FAST_NEXT_TX,
	NFV_IP_FAST_NEXT_CHAIN,
	NFV_IP_FAST_NEXT_MAX,
};

/* The byte of the TTL (IPv4) or hop limit (IPv6). */
#define NFV_IP_FAST_HOP_OFF(v6) \
	((v6) ? offsetof(struct rte_ipv6_hdr, hop_limits) : \
		offsetof(struct rte_ipv4_hdr, time_to_live))

/* Next hops remembered per burst, direct-mapped by a multiplicative hash of
 * the id (ids of one configuration step are often a few apart, and would
 * collide on their low bits): a burst goes to few. */
#define NFV_IP_FAST_CACHE_BITS 3
#define NFV_IP_FAST_CACHE (1u << NFV_IP_FAST_CACHE_BITS)

/* What stands for "no next hop" in the fast pass: forwards nothing
 * (fwd_mtu 0), so no test of its own is needed. */
static const struct nfv_nexthop nfv_ip_fast_no_nh = { .type = NFV_NH_NONE };

/* The ECMP member of group g that carries the packet (as the rewrite node
 * picks it), or NULL. */
static __rte_noinline const struct nfv_nexthop *
nfv_ip_fast_group_pick(const struct nfv_nexthop *g, const struct rte_mbuf *m, const uint8_t *ip,
		       const bool v6)
{
	return nfv_nh_group_pick(g, v6 ? nfv_ip6_flow_hash(m, (const struct rte_ipv6_hdr *)ip) :
				 nfv_ip4_flow_hash(m, (const struct rte_ipv4_hdr *)ip));
}

/* TTL (and checksum, RFC 1624) or hop limit, and the Ethernet header
 * (which sits just before ip). */
static __rte_always_inline void
nfv_ip_fast_rewrite(struct rte_mbuf *m, uint8_t *ip, const struct nfv_nexthop *nh, const bool v6)
{
	if (v6) {
		ip[offsetof(struct rte_ipv6_hdr, hop_limits)]--;
	} else {
		uint8_t *ttl = ip + offsetof(struct rte_ipv4_hdr, time_to_live);
		uint32_t w;

		memcpy(&w, ttl, sizeof(w));
		w = nfv_ip4_ttl_dec_word(w);
		memcpy(ttl, &w, sizeof(w));
	}
	memcpy(ip - NFV_L2_LEN, nh->l2, RTE_ETHER_HDR_LEN);
	nfv_meta(m)->tx_port = nh->port_id;
}

/*
 * After the lookup (nhs[]: the FIB's values; hdrs[]: each packet's IP
 * header). A packet is forwarded here when its next hop is a single
 * resolved one (or the ECMP member the rewrite node would pick) whose
 * fwd_mtu it fits (fwd_mtu is 0 for anything else), its TTL / hop limit is
 * above 1 and its output interface has no feature on the egress arc. What
 * depends on the next hop alone is decided once per next hop and burst (a
 * direct-mapped cache of eight entries: most bursts go to few next hops,
 * often interleaved).
 *
 * one_pass (no interface has a feature on the egress arc): each packet is
 * decided and rewritten in one loop. Otherwise a first loop decides and
 * finds whether a packet leaves by an interface with an egress feature
 * (then the whole burst goes to the chain, nothing written, so that what
 * the chain forwards is not reordered with what is forwarded here), and a
 * second rewrites. A feature enabled while a one-pass burst runs only sends
 * its packets to the chain one at a time.
 */
static __rte_always_inline uint16_t
nfv_ip_fast_forward(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
		    uint64_t *nhs, uint8_t *const *hdrs, const struct nfv_arc *egress,
		    const bool v6, const bool one_pass)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	const uint16_t out_end = egress->end_edge;
	/* Next hops seen in this burst, by the low bits of their id. */
	struct {
		uint32_t id;
		uint32_t mtu;
		const struct nfv_nexthop *nh;
	} cache[NFV_IP_FAST_CACHE];
	uint16_t any = 0, all = UINT16_MAX, i;
	bool chain_fwd = false;

	for (i = 0; i < NFV_IP_FAST_CACHE; i++)
		cache[i].id = UINT32_MAX;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *ip = hdrs[i];
		uint32_t id = nfv_fib_nh_id(nhs[i]), c_mtu;
		uint32_t slot = (id * 0x9e3779b1u) >> (32 - NFV_IP_FAST_CACHE_BITS);
		const struct nfv_nexthop *nh, *c_nh;
		uint16_t next = NFV_IP_FAST_NEXT_TX;

		if (unlikely(cache[slot].id != id)) {
			/* mtu: 0 for no next hop, a group (decided per packet
			 * below) or an interface with an egress feature. */
			c_nh = nfv_nh_get(id);
			if (c_nh == NULL)
				c_nh = &nfv_ip_fast_no_nh;
			cache[slot].id = id;
			cache[slot].nh = c_nh;
			cache[slot].mtu = nfv_arc_start_edge(egress, c_nh->port_id) == out_end ?
					  c_nh->fwd_mtu : 0;
			if (!one_pass)
				chain_fwd |= c_nh->type != NFV_NH_GROUP && nfv_nh_forwards(c_nh) &&
					     nfv_arc_start_edge(egress, c_nh->port_id) != out_end;
		}
		c_nh = cache[slot].nh;
		c_mtu = cache[slot].mtu;
		nh = c_nh;
		if (unlikely(!((ip[NFV_IP_FAST_HOP_OFF(v6)] > 1) &
			       (rte_pktmbuf_pkt_len(m) - NFV_L2_LEN <= c_mtu)))) {
			uint32_t mtu = 0;

			next = NFV_IP_FAST_NEXT_CHAIN;
			if (c_nh->type == NFV_NH_GROUP) {
				nh = nfv_ip_fast_group_pick(c_nh, m, ip, v6);
				if (nh == NULL)
					nh = &nfv_ip_fast_no_nh;
				mtu = nfv_arc_start_edge(egress, nh->port_id) == out_end ?
				      nh->fwd_mtu : 0;
				if (!one_pass)
					chain_fwd |= nfv_nh_forwards(nh) && mtu == 0 &&
						     nfv_arc_start_edge(egress, nh->port_id) != out_end;
				if ((ip[NFV_IP_FAST_HOP_OFF(v6)] > 1) &
				    (rte_pktmbuf_pkt_len(m) - NFV_L2_LEN <= mtu))
					next = NFV_IP_FAST_NEXT_TX;
			}
		}
		if (one_pass) {
			if (likely(next == NFV_IP_FAST_NEXT_TX))
				nfv_ip_fast_rewrite(m, ip, nh, v6);
		} else {
			nhs[i] = next == NFV_IP_FAST_NEXT_TX ? (uintptr_t)nh : 0;
		}
		nexts[i] = next;
		any |= next;
		all &= next;
	}
	if (!one_pass) {
		if (chain_fwd) {
			rte_node_next_stream_move(graph, node, NFV_IP_FAST_NEXT_CHAIN);
			return n;
		}
		for (i = 0; i < n; i++)
			if (nhs[i] != 0)
				nfv_ip_fast_rewrite(pkts[i], hdrs[i],
						    (const struct nfv_nexthop *)(uintptr_t)nhs[i], v6);
	}
	if (likely(any == all))
		rte_node_next_stream_move(graph, node, any);
	else
		nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

/* The lookup's second half for a node whose egress arc is egress. */
static __rte_always_inline uint16_t
nfv_ip_fast_finish(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
		   uint64_t *nhs, uint8_t *const *hdrs, struct nfv_arc *egress, const bool v6)
{
	if (likely(__atomic_load_n(&egress->n_ifaces_on, __ATOMIC_ACQUIRE) == 0))
		return nfv_ip_fast_forward(graph, node, objs, n, nhs, hdrs, egress, v6, true);
	return nfv_ip_fast_forward(graph, node, objs, n, nhs, hdrs, egress, v6, false);
}

#endif
