/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fused forwarding nodes (ip4_fast, ip6_fast) share: after each
 * family's validation pass and bulk FIB lookup, the pass that decides
 * which packets are forwarded here and rewrites them, written once with a
 * constant family flag (STYLE rule 6).
 *
 * A packet is forwarded by a fused node when its next hop is a single
 * resolved one (or the member of an ECMP group the rewrite node would
 * pick) whose fwd_mtu the packet fits and its TTL / hop limit is above 1;
 * when its output interface has a feature on the family's egress arc, it
 * goes to that feature, rewritten (nfv_ip_fast_forward_arc). Any other
 * packet goes to the chain's input node untouched: the chain decides for it
 * and names its drop. A burst that passed the input checks but came in by
 * an interface with an ingress feature goes to that feature from the fused
 * node (nfv_ip_fast_to_ingress).
 */
#ifndef NFV_IP_FAST_H
#define NFV_IP_FAST_H

#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ether.h>
#include <rte_ip.h>
#if defined(RTE_ARCH_X86) && defined(__SSE4_1__)
#include <smmintrin.h>
#endif

#include "core/arc.h"
#include "core/node.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_node.h"

/* What a fused node's valid() returns for a frame that fails a check (bit
 * 32 of the first pass's accumulator; 0 when all pass): its tables of
 * special first bytes hold it, so a frame's two lookups OR in. */
#define NFV_IP_FAST_FAIL (UINT64_C(1) << 32)

/* The edges of both fused nodes: port_tx, the family's input node, and
 * eth_input (for a burst port_rx handed over that is not all this family's
 * frames for the port's MAC). */
enum nfv_ip_fast_next {
	NFV_IP_FAST_NEXT_TX,
	NFV_IP_FAST_NEXT_CHAIN,
	NFV_IP_FAST_NEXT_ETH,
	NFV_IP_FAST_NEXT_MAX,
};

/* The byte of the TTL (IPv4) or hop limit (IPv6). */
#define NFV_IP_FAST_HOP_OFF(v6) \
	((v6) ? offsetof(struct rte_ipv6_hdr, hop_limits) : \
		offsetof(struct rte_ipv4_hdr, time_to_live))

/* Next hops remembered per burst, direct-mapped by a multiplicative hash of
 * the id (ids of one configuration step are often a few apart, and would
 * collide on their low bits; with eight entries, ids four apart did): a
 * burst goes to few. */
#define NFV_IP_FAST_CACHE_BITS 4
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

/* The 4-byte word at the IPv4 TTL (TTL, protocol, checksum) as loaded. */
static __rte_always_inline uint32_t
nfv_ip_fast_ttl_word(const uint8_t *ip)
{
	uint32_t w;

	memcpy(&w, ip + offsetof(struct rte_ipv4_hdr, time_to_live), sizeof(w));
	return w;
}

/* Whether the TTL (IPv4: in w, the word at it) or hop limit lets the
 * packet be forwarded (above 1). */
static __rte_always_inline bool
nfv_ip_fast_hop_ok(const uint8_t *ip, uint32_t w, const bool v6)
{
	if (v6)
		return ip[offsetof(struct rte_ipv6_hdr, hop_limits)] > 1;
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return (uint8_t)w > 1;
#else
	return (uint8_t)(w >> 24) > 1;
#endif
}

/* TTL (and checksum, RFC 1624) or hop limit, the Ethernet header (which
 * sits just before ip: l2a its first 8 bytes, l2b its last 8, bytes 6-13)
 * and the metadata port_tx reads: the output port, and flags, drop reason
 * and ICMP fields cleared (eth_input's flags for a unicast frame; the fused
 * nodes may be reached before eth_input), in one 8-byte store (tail). For
 * IPv4, w is the word at the TTL as loaded (nfv_ip_fast_ttl_word). */
static __rte_always_inline void
nfv_ip_fast_rewrite_word(struct rte_mbuf *m, uint8_t *ip, uint32_t w, uint64_t l2a, uint64_t l2b,
			 uint64_t tail, const bool v6)
{
	struct nfv_mbuf_meta *meta = nfv_meta(m);

	RTE_BUILD_BUG_ON(offsetof(struct nfv_mbuf_meta, pad) - offsetof(struct nfv_mbuf_meta, tx_port)
			 != sizeof(tail) - 1);
	if (v6) {
		ip[offsetof(struct rte_ipv6_hdr, hop_limits)]--;
	} else {
		w = nfv_ip4_ttl_dec_word(w);
		memcpy(ip + offsetof(struct rte_ipv4_hdr, time_to_live), &w, sizeof(w));
	}
	memcpy(ip - NFV_L2_LEN, &l2a, sizeof(l2a));
	memcpy(ip - NFV_L2_LEN + 6, &l2b, sizeof(l2b));
	memcpy(&meta->tx_port, &tail, sizeof(tail));
}

/* nfv_ip_fast_rewrite_word, the TTL word loaded here. */
static __rte_always_inline void
nfv_ip_fast_rewrite_with(struct rte_mbuf *m, uint8_t *ip, uint64_t l2a, uint64_t l2b,
			 uint64_t tail, const bool v6)
{
	nfv_ip_fast_rewrite_word(m, ip, v6 ? 0 : nfv_ip_fast_ttl_word(ip), l2a, l2b, tail, v6);
}

/* The metadata word of nfv_ip_fast_rewrite_with for next hop nh: tx_port,
 * then drop_reason, flags, ICMP type and code, pad: 0. */
static __rte_always_inline uint64_t
nfv_ip_fast_tail(const struct nfv_nexthop *nh)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return nh->port_id;
#else
	return (uint64_t)nh->port_id << 48;
#endif
}

/* nfv_ip_fast_rewrite_word for next hop nh. */
static __rte_always_inline void
nfv_ip_fast_rewrite_nh_word(struct rte_mbuf *m, uint8_t *ip, uint32_t w,
			    const struct nfv_nexthop *nh, const bool v6)
{
	uint64_t l2a, l2b;

	memcpy(&l2a, nh->l2, sizeof(l2a));
	memcpy(&l2b, nh->l2 + 6, sizeof(l2b));
	nfv_ip_fast_rewrite_word(m, ip, w, l2a, l2b, nfv_ip_fast_tail(nh), v6);
}

/* nfv_ip_fast_rewrite_with for next hop nh. */
static __rte_always_inline void
nfv_ip_fast_rewrite(struct rte_mbuf *m, uint8_t *ip, const struct nfv_nexthop *nh, const bool v6)
{
	nfv_ip_fast_rewrite_nh_word(m, ip, v6 ? 0 : nfv_ip_fast_ttl_word(ip), nh, v6);
}

/*
 * The Ethernet check of eth_input's fast step, for a burst that port_rx
 * handed straight to a fused node: false when the frame is for the
 * receiving interface's MAC (key: nfv_iface_mac_key[] of mbuf->port, the
 * MAC in its first 6 bytes, 0 in the other two) with ethertype type_be. The
 * caller has checked that the first segment holds the Ethernet and IP
 * headers (the frame's first 16 bytes are in the data room in any case).
 * With SSE4.1: the frame's first 16 bytes against the key with the
 * ethertype in bytes 12-13, compared under a mask of bytes 0-5 and 12-13.
 */
static __rte_always_inline bool
nfv_ip_fast_l2_mismatch(const uint8_t *ip, uint64_t key, uint16_t type_be)
{
	const uint8_t *eth = ip - NFV_L2_LEN;
#if defined(RTE_ARCH_X86) && defined(__SSE4_1__)
	const __m128i frame = _mm_loadu_si128((const __m128i *)eth);
	const __m128i want = _mm_or_si128(_mm_cvtsi64_si128((long long)key),
					  _mm_set_epi16(0, type_be, 0, 0, 0, 0, 0, 0));
	const __m128i mask = _mm_set_epi16(0, -1, 0, 0, 0, -1, -1, -1);

	return !_mm_testz_si128(_mm_xor_si128(frame, want), mask);
#else
	uint64_t dst;
	uint16_t type;

	memcpy(&dst, eth, sizeof(dst));
	memcpy(&type, eth + 2 * RTE_ETHER_ADDR_LEN, sizeof(type));
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return (((dst ^ key) << 16) | (uint16_t)(type ^ type_be)) != 0;
#else
	return (((dst ^ key) >> 16) | (uint16_t)(type ^ type_be)) != 0;
#endif
#endif
}

/* The burst goes to the chain's input node, as it came: meta.flags as
 * eth_input sets them for a unicast frame to the port's MAC (what every
 * frame of a burst the fused node checked is). */
static __rte_noinline void
nfv_ip_fast_to_chain(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		nfv_meta((struct rte_mbuf *)objs[i])->flags = 0;
	rte_node_next_stream_move(graph, node, NFV_IP_FAST_NEXT_CHAIN);
}

/*
 * What a fused node hands on, grouped: the packets for each of the first
 * NFV_IP_FAST_GROUPS output ports of the burst in a group of their own,
 * those for any other port in one more, those left to the chain in the
 * last. port_tx receives the groups one after the other, each port's
 * packets in the order they came: one run per port, which it sends as it
 * is (one TX burst per output port without a grouping pass of its own).
 */
#define NFV_IP_FAST_GROUPS 4
#define NFV_IP_FAST_G_OTHER NFV_IP_FAST_GROUPS
#define NFV_IP_FAST_G_CHAIN (NFV_IP_FAST_GROUPS + 1)

struct nfv_ip_fast_out {
	uint16_t n_ports;
	uint16_t port[NFV_IP_FAST_GROUPS];
	void **end[NFV_IP_FAST_GROUPS + 2]; /* where each group's next packet goes */
	void *grp[NFV_IP_FAST_GROUPS + 2][RTE_GRAPH_BURST_SIZE];
};

static __rte_always_inline uint16_t
nfv_ip_fast_count(const struct nfv_ip_fast_out *out, unsigned int g)
{
	return (uint16_t)(out->end[g] - out->grp[g]);
}

/* The group of output port port_id (a new one while there is room). */
static __rte_noinline uint32_t
nfv_ip_fast_group_of(struct nfv_ip_fast_out *out, uint16_t port_id)
{
	uint16_t g;

	for (g = 0; g < out->n_ports; g++)
		if (out->port[g] == port_id)
			return g;
	if (g == NFV_IP_FAST_GROUPS)
		return NFV_IP_FAST_G_OTHER;
	out->port[g] = port_id;
	out->n_ports++;
	return g;
}

/*
 * In a lookup node (ip4_lookup, ip6_lookup, which forward in one pass too):
 * the packets not forwarded there (meta.nh set, NULL for no route) take the
 * lookup's own way on, to the rewrite node or through its slow path, in
 * runs of one edge.
 */
static __rte_noinline void
nfv_ip_lookup_rest(struct rte_graph *graph, struct rte_node *node, void **pkts, uint16_t n,
		   uint16_t (*slow)(struct rte_mbuf *m), uint16_t rewrite_edge)
{
	uint16_t nexts[RTE_GRAPH_BURST_SIZE], i, start;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct nfv_nexthop *nh = nfv_meta(m)->nh;

		nexts[i] = nh != NULL && nfv_nh_forwards(nh) && nfv_meta(m)->flags == 0 ?
			   rewrite_edge : slow(m);
	}
	for (i = 0; i < n; i = start) {
		for (start = i + 1; start < n && nexts[start] == nexts[i]; start++)
			;
		rte_node_enqueue(graph, node, nexts[i], &pkts[i], start - i);
	}
}

/*
 * The groups to their edges: all of the burst in one group (one output
 * port, nothing for the chain) moves as the stream it is. The runs of
 * port_tx's stream that go to one known port are recorded for it
 * (worker.tx_runs), so that it sends them without looking at each packet.
 */
static __rte_always_inline void
nfv_ip_fast_emit(struct rte_graph *graph, struct rte_node *node, struct nfv_ip_fast_out *out,
		 uint16_t n, const uint16_t tx_edge, uint16_t (*lookup_slow)(struct rte_mbuf *m),
		 const uint16_t rewrite_edge)
{
	struct nfv_tx_runs *runs = &nfv_node_worker(node)->tx_runs;
	uint16_t at = __rte_node_next_node_get(node, tx_edge)->idx;
	uint16_t n_chain = nfv_ip_fast_count(out, NFV_IP_FAST_G_CHAIN);
	uint16_t n_tx = n - n_chain, k = 0;

	if (likely(nfv_ip_fast_count(out, 0) == n)) {
		nfv_tx_runs_add(runs, at, n, out->port[0]);
		rte_node_next_stream_move(graph, node, tx_edge);
		return;
	}
	if (n_tx != 0) {
		void **to = rte_node_next_stream_get(graph, node, tx_edge, n_tx);

		for (uint16_t g = 0; g <= NFV_IP_FAST_G_OTHER; g++) {
			uint16_t c = nfv_ip_fast_count(out, g);

			if (c == 0)
				continue;
			memcpy(to + k, out->grp[g], c * sizeof(void *));
			/* The other ports' group is no run of one port. */
			nfv_tx_runs_add(runs, at + k, c,
					g == NFV_IP_FAST_G_OTHER ? NFV_TX_RUN_MIXED : out->port[g]);
			k += c;
		}
		rte_node_next_stream_put(graph, node, tx_edge, n_tx);
	}
	if (n_chain != 0) {
		void **chain = out->grp[NFV_IP_FAST_G_CHAIN];

		if (lookup_slow != NULL) {
			nfv_ip_lookup_rest(graph, node, chain, n_chain, lookup_slow, rewrite_edge);
			return;
		}
		for (uint16_t i = 0; i < n_chain; i++)
			nfv_meta((struct rte_mbuf *)chain[i])->flags = 0;
		rte_node_enqueue(graph, node, NFV_IP_FAST_NEXT_CHAIN, chain, n_chain);
	}
}

/* What the fast pass decided for one FIB value (a next hop) in a burst:
 * lim, the longest frame its MTU lets through (fwd_mtu + NFV_L2_LEN), 0 for
 * no next hop, a group (decided per packet) or an interface with an egress
 * feature; end: where the packets for its group go
 * (&nfv_ip_fast_out.end[g]). */
struct nfv_ip_fast_cached {
	uint32_t key; /* the FIB value's low 32 bits (all of it); UINT32_MAX: empty */
	uint32_t lim;
	uint16_t g;
	const struct nfv_nexthop *nh;
	void ***end;
};

/* The decision for FIB value key, made and remembered in c (its slot). */
static __rte_always_inline void
nfv_ip_fast_decide(struct nfv_ip_fast_cached *c, uint32_t key, struct nfv_ip_fast_out *out,
		   const struct nfv_arc *egress, const bool one_pass, bool *chain_fwd)
{
	const uint16_t out_end = egress->end_edge;
	const struct nfv_nexthop *nh = nfv_nh_get(nfv_fib_nh_id(key));
	uint32_t mtu, g;

	if (nh == NULL)
		nh = &nfv_ip_fast_no_nh;
	mtu = nfv_arc_start_edge(egress, nh->port_id) == out_end ? nh->fwd_mtu : 0;
	g = mtu != 0 ? nfv_ip_fast_group_of(out, nh->port_id) : NFV_IP_FAST_G_CHAIN;
	c->key = key;
	c->nh = nh;
	c->lim = mtu != 0 ? mtu + NFV_L2_LEN : 0;
	c->g = (uint16_t)g;
	c->end = &out->end[g];
	if (!one_pass)
		*chain_fwd |= nh->type != NFV_NH_GROUP && nfv_nh_forwards(nh) &&
			      nfv_arc_start_edge(egress, nh->port_id) != out_end;
}

/* The cache slot of FIB value key. */
static __rte_always_inline uint32_t
nfv_ip_fast_slot(uint32_t key)
{
	return (key * 0x9e3779b1u) >> (32 - NFV_IP_FAST_CACHE_BITS);
}

/*
 * From packet i on, the packets to the next hop whose FIB result is key
 * (l2a, l2b, tail: its header and metadata word, lim the longest frame its
 * MTU lets through) whose TTL or hop limit lets them go: rewritten, and
 * with stamp their metadata's routed_gen set to route_gen. Returns the
 * index past them: the end, a packet of another next hop, or one the
 * caller decides alone.
 */
static __rte_always_inline uint16_t
nfv_ip_fast_run_from(struct rte_mbuf **pkts, uint8_t *const *hdrs, const uint64_t *nhs,
		     uint16_t i, const uint16_t n, const uint32_t key, const uint32_t lim,
		     const uint64_t l2a, const uint64_t l2b, const uint64_t tail,
		     const bool stamp, const uint32_t route_gen, const bool v6)
{
	for (; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *ip = hdrs[i];
		uint32_t w = v6 ? 0 : nfv_ip_fast_ttl_word(ip);

		/* Three branches, each taken almost never: fewer instructions
		 * than their conditions combined. */
		if (unlikely((uint32_t)nhs[i] != key))
			break;
		if (unlikely(!nfv_ip_fast_hop_ok(ip, w, v6)))
			break;
		if (unlikely(rte_pktmbuf_pkt_len(m) > lim))
			break;
		nfv_ip_fast_rewrite_word(m, ip, w, l2a, l2b, tail, v6);
		if (stamp)
			nfv_meta(m)->routed_gen = route_gen;
	}
	return i;
}

/*
 * One pass's first packets while they all have the FIB value of the first
 * (most bursts of one flow or one destination prefix), whose decision is in
 * c: each packet that this next hop forwards here (TTL, MTU) is rewritten
 * with the next hop's header and port held in registers, no cache probe,
 * no group pointer. Returns how many were, the packets of c's group (they
 * are the burst's first: out->grp holds them only if a packet remains).
 */
static __rte_always_inline uint16_t
nfv_ip_fast_run0(struct rte_mbuf **pkts, uint16_t n, const uint64_t *nhs, uint8_t *const *hdrs,
		 const struct nfv_ip_fast_cached *c, struct nfv_ip_fast_out *out, const bool v6)
{
	const struct nfv_nexthop *nh = c->nh;
	/* The longest frame the MTU lets through (the frames here are longer
	 * than NFV_L2_LEN: the first pass saw their IP header). */
	const uint32_t key = c->key, lim = c->lim;
	const uint64_t tail = nfv_ip_fast_tail(nh);
	uint64_t l2a, l2b;
	uint16_t i;

	memcpy(&l2a, nh->l2, sizeof(l2a));
	memcpy(&l2b, nh->l2 + 6, sizeof(l2b));
	i = nfv_ip_fast_run_from(pkts, hdrs, nhs, 0, n, key, lim, l2a, l2b, tail, false, 0, v6);
	if (i < n)
		memcpy(out->grp[c->g], pkts, i * sizeof(void *));
	*c->end += i;
	return i;
}

/*
 * After the lookup (nhs[]: the FIB's values; hdrs[]: each packet's IP
 * header). A packet is forwarded here when its next hop is a single
 * resolved one (or the ECMP member the rewrite node would pick) whose
 * fwd_mtu it fits (fwd_mtu is 0 for anything else), its TTL / hop limit is
 * above 1 and its output interface has no feature on the egress arc. What
 * depends on the next hop alone is decided once per FIB value and burst (a
 * direct-mapped cache of sixteen entries: most bursts go to few next hops,
 * often interleaved), its output port's group (nfv_ip_fast_out) with it.
 *
 * tx_edge: the node's edge to port_tx. lookup_slow: NULL in the fused nodes
 * (what is not forwarded goes to the chain's input node); in a lookup node,
 * its slow path, and what is not forwarded goes on as the lookup sends it
 * (nfv_ip_lookup_rest: rewrite_edge, or the slow path), only with one_pass.
 *
 * one_pass (no interface has a feature on the egress arc): each packet is
 * decided, rewritten and put in its group in one loop (its first packets
 * while they share the first's next hop by nfv_ip_fast_run0). Otherwise a
 * first loop decides and finds whether a packet leaves by an interface with
 * an egress feature (then the whole burst goes to the chain, nothing
 * written, so that what the chain forwards is not reordered with what is
 * forwarded here), and a second rewrites and groups. A feature enabled while
 * a one-pass burst runs only sends its packets to the chain one at a time.
 */
static __rte_always_inline uint16_t
nfv_ip_fast_forward(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
		    uint64_t *nhs, uint8_t *const *hdrs, const struct nfv_arc *egress,
		    const bool v6, const bool one_pass, const uint16_t tx_edge,
		    uint16_t (*lookup_slow)(struct rte_mbuf *m), const uint16_t rewrite_edge)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	struct nfv_ip_fast_out out;
	uint8_t gs[RTE_GRAPH_BURST_SIZE];
	const uint16_t out_end = egress->end_edge;
	/* FIB values seen in this burst, by a hash of the value. */
	struct nfv_ip_fast_cached cache[NFV_IP_FAST_CACHE];
	uint16_t i;
	bool chain_fwd = false;

	out.n_ports = 0;
	for (i = 0; i < NFV_IP_FAST_GROUPS + 2; i++)
		out.end[i] = out.grp[i];
	for (i = 0; i < NFV_IP_FAST_CACHE; i++)
		cache[i].key = UINT32_MAX;
	i = 0;
	if (one_pass && likely(n != 0)) {
		struct nfv_ip_fast_cached *c = &cache[nfv_ip_fast_slot((uint32_t)nhs[0])];

		nfv_ip_fast_decide(c, (uint32_t)nhs[0], &out, egress, true, &chain_fwd);
		if (likely(c->g != NFV_IP_FAST_G_CHAIN))
			i = nfv_ip_fast_run0(pkts, n, nhs, hdrs, c, &out, v6);
	}
	for (; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *ip = hdrs[i];
		uint32_t key = (uint32_t)nhs[i];
		struct nfv_ip_fast_cached *c = &cache[nfv_ip_fast_slot(key)];
		const struct nfv_nexthop *nh, *c_nh;
		void ***end;
		uint32_t w;

		if (unlikely(c->key != key))
			nfv_ip_fast_decide(c, key, &out, egress, one_pass, &chain_fwd);
		c_nh = c->nh;
		nh = c_nh;
		end = c->end;
		w = v6 ? 0 : nfv_ip_fast_ttl_word(ip);
		if (unlikely(!(nfv_ip_fast_hop_ok(ip, w, v6) &
			       (rte_pktmbuf_pkt_len(m) <= c->lim)))) {
			uint32_t mtu = 0, g = NFV_IP_FAST_G_CHAIN;

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
					g = nfv_ip_fast_group_of(&out, nh->port_id);
			}
			end = &out.end[g];
		}
		if (one_pass) {
			if (likely(end != &out.end[NFV_IP_FAST_G_CHAIN]))
				nfv_ip_fast_rewrite_nh_word(m, ip, w, nh, v6);
			else if (lookup_slow != NULL)
				nfv_meta(m)->nh = c_nh == &nfv_ip_fast_no_nh ? NULL : c_nh;
			*(*end)++ = m;
		} else {
			nhs[i] = (uintptr_t)nh;
			gs[i] = (uint8_t)(end - out.end);
		}
	}
	if (!one_pass) {
		if (chain_fwd) {
			nfv_ip_fast_to_chain(graph, node, objs, n);
			return n;
		}
		for (i = 0; i < n; i++) {
			uint32_t g = gs[i];

			if (g != NFV_IP_FAST_G_CHAIN)
				nfv_ip_fast_rewrite(pkts[i], hdrs[i],
						    (const struct nfv_nexthop *)(uintptr_t)nhs[i], v6);
			*out.end[g]++ = pkts[i];
		}
	}
	nfv_ip_fast_emit(graph, node, &out, n, tx_edge, lookup_slow, rewrite_edge);
	return n;
}

/*
 * The fused nodes' and the lookup nodes' own entries of the families' arcs
 * (core/arc.h): ip4_fast and ip6_fast hand a burst that passed their input
 * checks to the receiving interface's first ingress feature (ip4_input.c,
 * ip6_input.c); they and the lookups hand a packet they forwarded to the
 * output interface's first egress feature (ip4_rewrite.c, ip6_rewrite.c).
 */
extern struct nfv_arc_entry nfv_ip4_fast_ingress_entry, nfv_ip6_fast_ingress_entry;
extern struct nfv_arc_entry nfv_ip4_fast_egress_entry, nfv_ip6_fast_egress_entry;
extern struct nfv_arc_entry nfv_ip4_lookup_egress_entry, nfv_ip6_lookup_egress_entry;

/* The forwarded packets of a burst that go to an egress feature, not port_tx. */
#define NFV_IP_FAST_G_ARC (NFV_IP_FAST_GROUPS + 2)

/* nfv_ip_fast_emit's second half for a burst part of which went to egress
 * features: the n_tx packets of the port groups to port_tx (their runs
 * recorded), then what is left to the chain or the lookup's way. */
static __rte_noinline void
nfv_ip_fast_emit_rest(struct rte_graph *graph, struct rte_node *node, struct nfv_ip_fast_out *out,
		      uint16_t n_tx, const uint16_t tx_edge,
		      uint16_t (*lookup_slow)(struct rte_mbuf *m), const uint16_t rewrite_edge)
{
	struct nfv_tx_runs *runs = &nfv_node_worker(node)->tx_runs;
	uint16_t n_chain = nfv_ip_fast_count(out, NFV_IP_FAST_G_CHAIN), k = 0;

	if (n_tx != 0) {
		uint16_t at = __rte_node_next_node_get(node, tx_edge)->idx;
		void **to = rte_node_next_stream_get(graph, node, tx_edge, n_tx);

		for (uint16_t g = 0; g <= NFV_IP_FAST_G_OTHER; g++) {
			uint16_t c = nfv_ip_fast_count(out, g);

			if (c == 0)
				continue;
			memcpy(to + k, out->grp[g], c * sizeof(void *));
			nfv_tx_runs_add(runs, at + k, c,
					g == NFV_IP_FAST_G_OTHER ? NFV_TX_RUN_MIXED : out->port[g]);
			k += c;
		}
		rte_node_next_stream_put(graph, node, tx_edge, n_tx);
	}
	if (n_chain != 0) {
		void **chain = out->grp[NFV_IP_FAST_G_CHAIN];

		if (lookup_slow != NULL) {
			nfv_ip_lookup_rest(graph, node, chain, n_chain, lookup_slow, rewrite_edge);
			return;
		}
		for (uint16_t i = 0; i < n_chain; i++)
			nfv_meta((struct rte_mbuf *)chain[i])->flags = 0;
		rte_node_enqueue(graph, node, NFV_IP_FAST_NEXT_CHAIN, chain, n_chain);
	}
}

/*
 * nfv_ip_fast_forward_arc's usual burst: every packet to one next hop
 * whose interface has the egress feature. The run of the first packet's
 * next hop, when its interface has one, is rewritten in the plain path's
 * loop (nfv_ip_fast_run_from): a burst that is one run becomes that
 * feature's stream (returns n); else its first packets, rewritten, are
 * put in feat[] with their edge and their count returned (0: none).
 */
static __rte_noinline uint16_t
nfv_ip_fast_arc_run0(struct rte_graph *graph, struct rte_node *node, struct rte_mbuf **pkts,
		     uint16_t n, const uint64_t *nhs, uint8_t *const *hdrs,
		     const struct nfv_arc_entry *entry, void **feat, uint16_t *feat_edge,
		     const bool v6)
{
	const struct nfv_nexthop *nh0;
	uint64_t l2a, l2b;
	uint16_t edge0, i;

	if (unlikely(n == 0))
		return 0;
	nh0 = nfv_nh_get(nfv_fib_nh_id(nhs[0]));
	if (nh0 == NULL || nh0->fwd_mtu == 0 ||
	    (edge0 = nfv_arc_entry_edge(entry, nh0->port_id)) == entry->end_edge)
		return 0;
	memcpy(&l2a, nh0->l2, sizeof(l2a));
	memcpy(&l2b, nh0->l2 + 6, sizeof(l2b));
	i = nfv_ip_fast_run_from(pkts, hdrs, nhs, 0, n, (uint32_t)nhs[0],
				 nh0->fwd_mtu + NFV_L2_LEN, l2a, l2b, nfv_ip_fast_tail(nh0), false,
				 0, v6);
	if (likely(i == n)) {
		rte_node_next_stream_move(graph, node, edge0);
		return n;
	}
	for (uint16_t k = 0; k < i; k++) {
		feat[k] = pkts[k];
		feat_edge[k] = edge0;
	}
	return i;
}

/*
 * nfv_ip_fast_forward when some interface has a feature on the egress arc
 * (entry: this node's entry of that arc), still in one pass: a packet
 * forwarded to an interface with an egress feature is rewritten here as
 * any other (TTL / hop limit, the Ethernet header, meta.tx_port: what the
 * rewrite node writes) and handed to that interface's first feature, where
 * the rewrite node would have sent it; the others go to port_tx in their
 * groups, and what is not forwarded here goes on as nfv_ip_fast_forward
 * sends it. Which way a packet takes depends on its next hop alone, so a
 * flow's packets all take one and none is reordered. The features' share
 * is enqueued first: what they pass on joins port_tx's stream before
 * port_tx runs in the walk.
 */
static __rte_always_inline uint16_t
nfv_ip_fast_forward_arc(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
			const uint64_t *nhs, uint8_t *const *hdrs,
			const struct nfv_arc_entry *entry, const bool v6, const uint16_t tx_edge,
			uint16_t (*lookup_slow)(struct rte_mbuf *m), const uint16_t rewrite_edge)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	struct nfv_ip_fast_out out;
	void *feat[RTE_GRAPH_BURST_SIZE];
	uint16_t feat_edge[RTE_GRAPH_BURST_SIZE];
	const uint16_t out_end = entry->end_edge;
	struct {
		uint32_t id;
		uint16_t mtu;
		uint16_t g;
		uint16_t edge;
		const struct nfv_nexthop *nh;
	} cache[NFV_IP_FAST_CACHE];
	uint16_t i, n_feat = 0, feat_diff = 0;

	out.n_ports = 0;
	for (i = 0; i < NFV_IP_FAST_GROUPS + 2; i++)
		out.end[i] = out.grp[i];
	for (i = 0; i < NFV_IP_FAST_CACHE; i++)
		cache[i].id = UINT32_MAX;
	/* The usual burst first (out of this function's line). */
	i = nfv_ip_fast_arc_run0(graph, node, pkts, n, nhs, hdrs, entry, feat, feat_edge, v6);
	if (likely(i == n) && n != 0)
		return n;
	n_feat = i;
	for (; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *ip = hdrs[i];
		uint32_t id = nfv_fib_nh_id(nhs[i]), g;
		uint32_t slot = (id * 0x9e3779b1u) >> (32 - NFV_IP_FAST_CACHE_BITS);
		const struct nfv_nexthop *nh, *c_nh;
		uint16_t edge;

		if (unlikely(cache[slot].id != id)) {
			/* mtu: 0 for no next hop or a group (decided per
			 * packet below); g: the port group, or the features. */
			c_nh = nfv_nh_get(id);
			if (c_nh == NULL)
				c_nh = &nfv_ip_fast_no_nh;
			edge = nfv_arc_entry_edge(entry, c_nh->port_id);
			cache[slot].id = id;
			cache[slot].nh = c_nh;
			cache[slot].mtu = c_nh->fwd_mtu;
			cache[slot].edge = edge;
			cache[slot].g = c_nh->fwd_mtu == 0 ? NFV_IP_FAST_G_CHAIN :
					edge != out_end ? NFV_IP_FAST_G_ARC :
					nfv_ip_fast_group_of(&out, c_nh->port_id);
		}
		c_nh = cache[slot].nh;
		nh = c_nh;
		g = cache[slot].g;
		edge = cache[slot].edge;
		if (unlikely(!((ip[NFV_IP_FAST_HOP_OFF(v6)] > 1) &
			       (rte_pktmbuf_pkt_len(m) - NFV_L2_LEN <= cache[slot].mtu)))) {
			g = NFV_IP_FAST_G_CHAIN;
			if (c_nh->type == NFV_NH_GROUP) {
				nh = nfv_ip_fast_group_pick(c_nh, m, ip, v6);
				if (nh == NULL)
					nh = &nfv_ip_fast_no_nh;
				if ((ip[NFV_IP_FAST_HOP_OFF(v6)] > 1) &
				    (rte_pktmbuf_pkt_len(m) - NFV_L2_LEN <= nh->fwd_mtu)) {
					edge = nfv_arc_entry_edge(entry, nh->port_id);
					g = edge != out_end ? NFV_IP_FAST_G_ARC :
					    nfv_ip_fast_group_of(&out, nh->port_id);
				}
			}
		}
		if (likely(g != NFV_IP_FAST_G_CHAIN))
			nfv_ip_fast_rewrite(m, ip, nh, v6);
		else if (lookup_slow != NULL)
			nfv_meta(m)->nh = c_nh == &nfv_ip_fast_no_nh ? NULL : c_nh;
		if (g == NFV_IP_FAST_G_ARC) {
			feat[n_feat] = m;
			feat_edge[n_feat] = edge;
			feat_diff |= edge ^ feat_edge[0];
			n_feat++;
		} else {
			*out.end[g]++ = m;
		}
	}
	if (n_feat == 0) {
		nfv_ip_fast_emit(graph, node, &out, n, tx_edge, lookup_slow, rewrite_edge);
		return n;
	}
	if (likely(n_feat == n && feat_diff == 0)) {
		rte_node_next_stream_move(graph, node, feat_edge[0]);
		return n;
	}
	for (uint16_t k = 0, j; k < n_feat; k = j) {
		for (j = k + 1; j < n_feat && feat_edge[j] == feat_edge[k]; j++)
			;
		rte_node_enqueue(graph, node, feat_edge[k], &feat[k], j - k);
	}
	nfv_ip_fast_emit_rest(graph, node, &out,
			      n - n_feat - nfv_ip_fast_count(&out, NFV_IP_FAST_G_CHAIN), tx_edge,
			      lookup_slow, rewrite_edge);
	return n;
}

/* The lookup's second half for a node whose egress arc is egress: with an
 * egress feature on some interface, its packets handed to it here. */
static __rte_always_inline uint16_t
nfv_ip_fast_finish(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
		   uint64_t *nhs, uint8_t *const *hdrs, struct nfv_arc *egress, const bool v6)
{
	if (likely(__atomic_load_n(&egress->n_ifaces_on, __ATOMIC_ACQUIRE) == 0))
		return nfv_ip_fast_forward(graph, node, objs, n, nhs, hdrs, egress, v6, true,
					   NFV_IP_FAST_NEXT_TX, NULL, 0);
	return nfv_ip_fast_forward_arc(graph, node, objs, n, nhs, hdrs,
				       v6 ? &nfv_ip6_fast_egress_entry : &nfv_ip4_fast_egress_entry,
				       v6, NFV_IP_FAST_NEXT_TX, NULL, 0);
}

/*
 * A burst that passed every check of the input node (and was trimmed as it
 * trims) but came in by an interface with a feature on the family's
 * ingress arc, or in a VRF: each packet to its interface's first ingress
 * feature, or to the lookup node (the arc's end), by the fused node's own
 * entry of the arc, with the metadata the input node would have left
 * (meta.flags as eth_input sets them for a unicast frame to the port's
 * MAC; the input node writes nothing else): the input node is not run
 * again. same_port: every packet came in by the first one's interface.
 */
static __rte_noinline uint16_t
nfv_ip_fast_to_ingress(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
		       bool same_port, const struct nfv_arc_entry *entry)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];

	for (uint16_t i = 0; i < n; i++)
		nfv_meta(pkts[i])->flags = 0;
	if (likely(same_port)) {
		rte_node_next_stream_move(graph, node, nfv_arc_entry_edge(entry, pkts[0]->port));
		return n;
	}
	for (uint16_t i = 0; i < n; i++)
		nexts[i] = nfv_arc_entry_edge(entry, pkts[i]->port);
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

/* nfv_ip_fast_tail() with meta.flags NFV_META_ROUTED. */
static __rte_always_inline uint64_t
nfv_ip_fast_tail_routed(const struct nfv_nexthop *nh)
{
	RTE_BUILD_BUG_ON(offsetof(struct nfv_mbuf_meta, flags) - offsetof(struct nfv_mbuf_meta, tx_port)
			 != 4);
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return nfv_ip_fast_tail(nh) | (uint64_t)NFV_META_ROUTED << 32;
#else
	return nfv_ip_fast_tail(nh) | (uint64_t)NFV_META_ROUTED << 24;
#endif
}

/*
 * nfv_ip_fast_to_ingress for a burst of one interface in the default
 * VRF whose ingress features all keep the route (core/arc.h): each packet
 * this node would forward (nhs[]: its FIB value, read in the first pass)
 * is forwarded here first, rewritten (TTL or hop limit, Ethernet header,
 * meta.tx_port) and marked NFV_META_ROUTED, stamped with the interface's route gen
 * (route_gen, read before the arc's answer: core/arc.h); the
 * others (TTL expiring, no route, local, unresolved, too big) get meta.flags
 * 0 as from the input node. The whole burst then goes to the interface's
 * first ingress feature; at the arc's end the lookup node sends the marked
 * packets on by meta.tx_port (to the output interface's egress features or
 * port_tx) without a second lookup and rewrite, and decides for the others
 * as for any packet (nfv_ip_lookup_routed). When every packet was
 * forwarded to one next hop, the feature gets a note of it (struct
 * nfv_ip_fast_note, ip_node.h).
 */
static __rte_noinline uint16_t
nfv_ip_fast_to_ingress_routed(struct rte_graph *graph, struct rte_node *node, void **objs,
			      uint16_t n, const uint64_t *nhs, uint8_t *const *hdrs,
			      uint32_t route_gen, const bool v6)
{
	/* Out of the fused node's line; each fused node passes its own
	 * constant v6, which the compiler propagates into its copy. */
	const struct nfv_arc_entry *entry = v6 ? &nfv_ip6_fast_ingress_entry :
						 &nfv_ip4_fast_ingress_entry;
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	struct {
		uint32_t id;
		const struct nfv_nexthop *nh;
	} cache[NFV_IP_FAST_CACHE];
	/* The last packet's next hop in registers (a burst mostly goes to
	 * one): its id, the frame length its MTU allows, its Ethernet header
	 * and metadata word; the others in the cache. */
	uint32_t cur_id = UINT32_MAX, cur_lim = 0;
	const struct nfv_nexthop *cur = &nfv_ip_fast_no_nh;
	uint64_t l2a = 0, l2b = 0, tail = 0;
	/* Every packet forwarded, to the first one's next hop (the note). */
	bool one_nh = true;
	struct rte_node *to;
	uint16_t i;

	for (i = 0; i < NFV_IP_FAST_CACHE; i++)
		cache[i].id = UINT32_MAX;
	for (i = 0; i < n;) {
		const uint32_t key = (uint32_t)nhs[i];
		uint32_t id = nfv_fib_nh_id(nhs[i]);
		struct rte_mbuf *m;
		uint8_t *ip;
		const struct nfv_nexthop *nh;
		uint32_t frame_len;
		bool ttl_ok;

		if (unlikely(id != cur_id)) {
			uint32_t slot = nfv_ip_fast_slot(id);

			one_nh &= i == 0;
			if (cache[slot].id != id) {
				cache[slot].id = id;
				cache[slot].nh = nfv_nh_get(id);
				if (cache[slot].nh == NULL)
					cache[slot].nh = &nfv_ip_fast_no_nh;
			}
			cur_id = id;
			cur = cache[slot].nh;
			cur_lim = cur->fwd_mtu + NFV_L2_LEN;
			memcpy(&l2a, cur->l2, sizeof(l2a));
			memcpy(&l2b, cur->l2 + 6, sizeof(l2b));
			tail = nfv_ip_fast_tail_routed(cur);
		}
		i = nfv_ip_fast_run_from(pkts, hdrs, nhs, i, n, key, cur_lim, l2a, l2b, tail,
					 true, route_gen, v6);
		if (i == n)
			break;
		if ((uint32_t)nhs[i] != key)
			continue; /* the next run: another next hop */
		/* Packet i: its TTL expires, it is too big for cur's MTU, or
		 * cur is an ECMP group (fwd_mtu 0): its member, as for any
		 * packet; else not forwarded here. */
		m = pkts[i];
		ip = hdrs[i];
		frame_len = rte_pktmbuf_pkt_len(m);
		ttl_ok = ip[NFV_IP_FAST_HOP_OFF(v6)] > 1;
		nh = cur->type == NFV_NH_GROUP ? nfv_ip_fast_group_pick(cur, m, ip, v6) : NULL;
		one_nh = false;
		if (nh == NULL || !(ttl_ok & (frame_len - NFV_L2_LEN <= nh->fwd_mtu))) {
			nfv_meta(m)->flags = 0;
		} else {
			uint64_t a, b;

			memcpy(&a, nh->l2, sizeof(a));
			memcpy(&b, nh->l2 + 6, sizeof(b));
			nfv_ip_fast_rewrite_with(m, ip, a, b, nfv_ip_fast_tail_routed(nh), v6);
			nfv_meta(m)->routed_gen = route_gen;
		}
		i++;
	}
	i = nfv_arc_entry_edge(entry, pkts[0]->port);
	to = __rte_node_next_node_get(node, i);
	/* The note only of a stream that is this burst alone: one that held
	 * packets already (appended to, not handed over) is none. */
	one_nh &= to->idx == 0;
	rte_node_next_stream_move(graph, node, i);
	if (one_nh) {
		struct nfv_ip_fast_note *note = &nfv_ip_fast_notes[nfv_node_worker(node)->index][v6];

		note->to = to;
		note->objs = to->objs;
		note->n = (uint16_t)to->idx;
		note->iface = pkts[0]->port;
		note->tx = cur->port_id;
		note->gen = route_gen;
	}
	return n;
}

/* The receiving interface's test: default VRF, no feature on the family's
 * ingress arc. */
static __rte_always_inline bool
nfv_ip_fast_iface_ok(uint16_t iface, const struct nfv_arc *ingress)
{
	return nfv_ifaces[iface].vrf == 0 &&
	       nfv_arc_start_edge(ingress, iface) == ingress->end_edge;
}

/*
 * A burst with a packet whose header word is not that of a packet filling
 * the frame: true when each packet's length by its header (total(): the
 * IP packet's length when the header is a plain one of the family, else
 * UINT32_MAX) is within its frame, and then the link padding beyond it is
 * trimmed as the input nodes trim it; false (nothing changed) otherwise.
 */
static __rte_always_inline bool
nfv_ip_fast_trim(struct rte_mbuf **pkts, uint16_t n, uint32_t (*total)(const uint8_t *ip))
{
	uint16_t i;

	for (i = 0; i < n; i++)
		if (total(rte_pktmbuf_mtod_offset(pkts[i], const uint8_t *, NFV_L2_LEN)) >
		    rte_pktmbuf_pkt_len(pkts[i]) - NFV_L2_LEN)
			return false;
	for (i = 0; i < n; i++) {
		uint32_t l3_len = rte_pktmbuf_pkt_len(pkts[i]) - NFV_L2_LEN;
		uint32_t len = total(rte_pktmbuf_mtod_offset(pkts[i], const uint8_t *, NFV_L2_LEN));

		if (len < l3_len)
			nfv_pktmbuf_trim(pkts[i], l3_len - len);
	}
	return true;
}

/* Destinations gathered for the bulk lookup: IPv4 (host order) or IPv6. */
union nfv_ip_fast_dsts {
	uint32_t v4[RTE_GRAPH_BURST_SIZE];
	uint8_t v6[RTE_GRAPH_BURST_SIZE][16];
};

/*
 * The frames' Ethernet check, each against its own receiving port's MAC,
 * for a burst the first pass does not take as it is (a frame not for the
 * first one's port's MAC, or a port other than the first's): true when
 * every frame holds the Ethernet header and is for its port's MAC with
 * ethertype type_be.
 */
static __rte_noinline bool
nfv_ip_fast_l2_own(struct rte_mbuf **pkts, uint16_t n, uint16_t type_be)
{
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (nfv_ip_fast_l2_mismatch(rte_pktmbuf_mtod_offset(m, uint8_t *, NFV_L2_LEN),
					    nfv_iface_mac_key[m->port], type_be) ||
		    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)
			return false;
	}
	return true;
}

/*
 * The IPv4 header checksums of a burst in which the device flagged a frame
 * BAD (or NONE): each frame's as ip4_input weighs them (the device's BAD,
 * or NONE, fails; GOOD passes; unknown: the sum decides).
 */
static __rte_noinline bool
nfv_ip_fast_csum_each(struct rte_mbuf **pkts, uint8_t *const *hdrs, uint16_t n)
{
	bool ok = true;

	for (uint16_t i = 0; i < n; i++)
		ok &= ((pkts[i]->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) |
		       (nfv_ip4_hdr20_sum(hdrs[i]) % 0xffff == 0 ?
			RTE_MBUF_F_RX_IP_CKSUM_GOOD : 0)) == RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	return ok;
}

/*
 * The first pass of a fused node over a burst: eth_input's fast step unless
 * l2_checked (eth_input classified every frame already), the family's
 * input checks (valid(): everything but the header word, which it returns
 * in *mismatch as its difference from that of a packet filling the frame;
 * its result is NFV_IP_FAST_FAIL when a check fails; the IPv4 software
 * checksum's key in *sum_key: nfv_ip4_hdr20_sum_key, whose largest over
 * the burst is compared once), the
 * IP header pointers, and the destinations: for IPv4 with dir, their FIB
 * values read inline, else gathered for the bulk lookup. Returns -1 when a
 * frame is not this family's for its port's MAC, else whether every check
 * passed (when it says false, the chain decides: it weighs the checksum
 * flags for itself); *mismatches and *ports (the receiving ports'
 * difference from the first's) ORed over the burst.
 *
 * Unless l2_checked, each frame is compared with the first one's port's
 * MAC and ethertype (held in a register) and must hold the IP header too;
 * a burst that fails that, or has frames of another port, has each frame
 * checked against its own port's MAC (nfv_ip_fast_l2_own) and, when all
 * pass, is taken again as l2_checked. Each frame's software checksum must
 * be right; the device's IPv4 checksum flags are ORed over the burst and
 * looked at once: unknown or GOOD agree with a right sum, and a frame
 * flagged BAD (or NONE) has the burst weighed frame by frame as ip4_input
 * does (nfv_ip_fast_csum_each). With one_port (port_rx put the whole
 * stream there from one RX burst: worker.rx_one_port), the receiving ports
 * are known to be the first's and not compared.
 */
static __rte_always_inline int
nfv_ip_fast_pass1_do(struct rte_mbuf **pkts, uint16_t n, const bool v6, const bool l2_checked,
		     const bool one_port, const bool inline_fib, const struct nfv_dir24_8 *dir,
		     uint64_t (*valid)(const struct rte_mbuf *m, const uint8_t *ip, uint64_t *mismatch,
				       uint64_t *sum_key, const bool len_checked),
		     union nfv_ip_fast_dsts *dsts, uint64_t *nhs, uint8_t **hdrs,
		     uint64_t *mismatches, uint16_t *ports)
{
	const uint16_t type = v6 ? RTE_BE16(RTE_ETHER_TYPE_IPV6) : RTE_BE16(RTE_ETHER_TYPE_IPV4);
	const uint16_t need = NFV_L2_LEN + (v6 ? sizeof(struct rte_ipv6_hdr) :
					    sizeof(struct rte_ipv4_hdr));
	const uint16_t port0 = pkts[0]->port;
	const uint64_t key0 = l2_checked ? 0 : nfv_iface_mac_key[port0];
	/* One accumulator: the header words' mismatches (32 bits each) in
	 * bits 0-31, a failed check in bit 32, the receiving ports'
	 * difference from the first's in bits 33-48. (Kept apart, the busy
	 * loop had no register left for the flag or the ports: an AND or an
	 * OR into the stack each frame, a store-to-load chain across the
	 * burst.) */
	uint64_t mis = 0, fl_or = 0, sum_max = 0;
	uint16_t pdiff;
	bool ok;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, NFV_L2_LEN);
		uint64_t mismatch, fail, sum_key;

		if (!l2_checked) {
			if (unlikely(nfv_ip_fast_l2_mismatch(ip, key0, type)))
				goto own;
			if (unlikely(rte_pktmbuf_data_len(m) < need))
				goto own;
		}
		fail = valid(m, ip, &mismatch, &sum_key, !l2_checked);
		if (!v6)
			sum_max = RTE_MAX(sum_max, sum_key);
		if (!v6)
			fl_or |= m->ol_flags;
		mis |= mismatch | fail;
		if (!one_port)
			mis |= (uint64_t)(uint16_t)(m->port ^ port0) << 33;
		hdrs[i] = ip;
		if (v6) {
			memcpy(dsts->v6[i], ip + offsetof(struct rte_ipv6_hdr, dst_addr), 16);
		} else {
			rte_be32_t dst;

			memcpy(&dst, ip + offsetof(struct rte_ipv4_hdr, dst_addr), sizeof(dst));
			if (inline_fib)
				nhs[i] = nfv_dir24_8_get(dir, rte_be_to_cpu_32(dst));
			else
				dsts->v4[i] = rte_be_to_cpu_32(dst);
		}
	}
	pdiff = one_port ? 0 : (uint16_t)(mis >> 33);
	if (!l2_checked && unlikely(pdiff != 0))
		goto own;
	ok = ((mis >> 32) & 1) == 0 && (v6 || sum_max <= NFV_IP4_SUM_KEY_MAX);
	/* (BAD is the bit that BAD and NONE have.) */
	if (!v6 && unlikely(fl_or & RTE_MBUF_F_RX_IP_CKSUM_BAD) && ok)
		ok = nfv_ip_fast_csum_each(pkts, hdrs, n);
	*mismatches = (uint32_t)mis;
	*ports = pdiff;
	return ok;
own:
	if (l2_checked || !nfv_ip_fast_l2_own(pkts, n, type))
		return -1;
	return nfv_ip_fast_pass1_do(pkts, n, v6, true, one_port, inline_fib, dir, valid, dsts, nhs,
				    hdrs, mismatches, ports);
}

/* nfv_ip_fast_pass1_do, with the test of dir out of its loop. */
static __rte_always_inline int
nfv_ip_fast_pass1(struct rte_mbuf **pkts, uint16_t n, const bool v6, const bool l2_checked,
		  const bool one_port, const struct nfv_dir24_8 *dir,
		  uint64_t (*valid)(const struct rte_mbuf *m, const uint8_t *ip, uint64_t *mismatch,
				       uint64_t *sum_key, const bool len_checked),
		  union nfv_ip_fast_dsts *dsts, uint64_t *nhs, uint8_t **hdrs,
		  uint64_t *mismatches, uint16_t *ports)
{
	if (!v6 && likely(dir != NULL))
		return nfv_ip_fast_pass1_do(pkts, n, v6, l2_checked, one_port, true, dir, valid,
					    dsts, nhs, hdrs, mismatches, ports);
	return nfv_ip_fast_pass1_do(pkts, n, v6, l2_checked, one_port, false, dir, valid, dsts,
				    nhs, hdrs, mismatches, ports);
}

/*
 * A fused node's process function, for both families (v6 constant): the
 * first pass (nfv_ip_fast_pass1; a burst that is not all this family's
 * frames for the port's MAC goes to eth_input whole, uncounted); one packet
 * failing the checks sends the whole burst to the chain (it may forward
 * that packet: options...), so no flow is reordered and the burst reaches
 * port_tx in one piece. The receiving interfaces are tested once when they
 * are all the same: a burst that passed the checks but came in by an
 * interface with an ingress feature (or in another VRF) goes on from here
 * (nfv_ip_fast_to_ingress), as from the input node. Then the bulk lookup
 * (unless done inline) and nfv_ip_fast_forward.
 */
static __rte_always_inline uint16_t
nfv_ip_fast_run(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
		const bool v6, const struct nfv_arc *ingress, struct nfv_arc *egress,
		uint64_t (*valid)(const struct rte_mbuf *m, const uint8_t *ip, uint64_t *mismatch,
				       uint64_t *sum_key, const bool len_checked),
		uint32_t (*total)(const uint8_t *ip),
		void (*lookup)(union nfv_ip_fast_dsts *dsts, uint64_t *nhs, uint16_t n))
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	struct nfv_worker *w = nfv_node_worker(node);
	union nfv_ip_fast_dsts dsts;
	uint64_t nhs[RTE_GRAPH_BURST_SIZE];
	uint8_t *hdrs[RTE_GRAPH_BURST_SIZE];
	uint64_t mismatches;
	uint16_t ports, i;
	bool here = true;
	int ok;
	/* IPv4: the FIB read inline in the first pass when it can be. */
	const struct nfv_dir24_8 *dir = v6 ? NULL : nfv_fib4_dir_active();
	bool l2_checked = w->fast_l2_checked[v6] == n;
	bool one_port = w->rx_one_port[v6] == n;

	w->fast_l2_checked[v6] = 0;
	w->rx_one_port[v6] = 0;
	if (unlikely(n == 0))
		return 0;
	if (l2_checked)
		ok = nfv_ip_fast_pass1(pkts, n, v6, true, false, dir, valid, &dsts, nhs, hdrs,
				       &mismatches, &ports);
	else if (likely(one_port))
		ok = nfv_ip_fast_pass1(pkts, n, v6, false, true, dir, valid, &dsts, nhs, hdrs,
				       &mismatches, &ports);
	else
		ok = nfv_ip_fast_pass1(pkts, n, v6, false, false, dir, valid, &dsts, nhs, hdrs,
				       &mismatches, &ports);
	if (unlikely(ok < 0)) {
		/* What eth_input sends here always passes that test (it is its
		 * own fast step), so a burst never goes round. */
		rte_node_next_stream_move(graph, node, NFV_IP_FAST_NEXT_ETH);
		return 0;
	}
	if (likely(ports == 0))
		here = nfv_ip_fast_iface_ok(pkts[0]->port, ingress);
	else
		for (i = 0; i < n; i++)
			here &= nfv_ip_fast_iface_ok(pkts[i]->port, ingress);
	if (unlikely(!ok || (mismatches != 0 && !nfv_ip_fast_trim(pkts, n, total)))) {
		nfv_ip_fast_to_chain(graph, node, objs, n);
		return n;
	}
	if (unlikely(!here)) {
		/* (The gen before the answer: core/arc.h.) */
		uint32_t gen = nfv_arc_route_gen(ingress, pkts[0]->port);

		if ((v6 || dir != NULL) && ports == 0 && nfv_ifaces[pkts[0]->port].vrf == 0 &&
		    nfv_arc_routed_ok(ingress, pkts[0]->port)) {
			if (v6)
				lookup(&dsts, nhs, n);
			return nfv_ip_fast_to_ingress_routed(graph, node, objs, n, nhs, hdrs, gen,
							     v6);
		}
		return nfv_ip_fast_to_ingress(graph, node, objs, n, ports == 0,
					      v6 ? &nfv_ip6_fast_ingress_entry :
					      &nfv_ip4_fast_ingress_entry);
	}
	if (v6 || dir == NULL)
		lookup(&dsts, nhs, n);
	/* Which packets are forwarded here; the others (no route, local,
	 * blackhole, unresolved, too big, TTL expiring) are not forwarded by
	 * the chain either, and go to it as they came. */
	return nfv_ip_fast_finish(graph, node, objs, n, nhs, hdrs, egress, v6);
}

#endif
