/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the graph nodes: moving a burst to its next nodes with
 * as few copies as possible, marking drops, RFC 1624 checksum updates.
 */
#ifndef NFV_NODE_H
#define NFV_NODE_H

#include <string.h>

#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "core/meta.h"
#include "core/worker.h"
#include "modules/ip/ip.h"
#include "core/drop_reasons.h"

#define NFV_ICMP_DEST_UNREACH 3
#define NFV_ICMP_TIME_EXCEEDED 11

/*
 * Sends objs[i] to edge nexts[i]. When every packet takes the same edge the
 * whole stream moves without a copy (rte_node_next_stream_move); otherwise
 * runs of the same edge are enqueued together.
 */
static __rte_always_inline void
nfv_enqueue_nexts(struct rte_graph *graph, struct rte_node *node, void **objs,
		  const uint16_t *nexts, uint16_t n)
{
	uint16_t i = 0, diff = 0;

	for (uint16_t k = 1; k < n; k++)
		diff |= nexts[k] ^ nexts[0];
	if (likely(diff == 0 && n > 0)) {
		rte_node_next_stream_move(graph, node, nexts[0]);
		return;
	}

	while (i < n) {
		uint16_t start = i, next = nexts[i];

		while (i < n && nexts[i] == next)
			i++;
		if (start == 0 && i == n) {
			rte_node_next_stream_move(graph, node, next);
			return;
		}
		rte_node_enqueue(graph, node, next, &objs[start], i - start);
	}
}

/*
 * A node that decides packet by packet: one() returns each packet's edge
 * (arg: the node's state), then runs of the same edge are enqueued (the
 * whole stream moves when every packet takes one).
 */
static __rte_always_inline uint16_t
nfv_node_each(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
	      uint16_t (*one)(struct rte_mbuf *m, void *arg), void *arg)
{
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];

	for (uint16_t i = 0; i < n; i++)
		nexts[i] = one((struct rte_mbuf *)objs[i], arg);
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

/* What a fast path returns for a packet it leaves untouched for the slow one. */
#define NFV_NEXT_SLOW 0x8000

/*
 * The end of a fast-path pass: nexts[] holds each packet's edge or
 * NFV_NEXT_SLOW, any and all their OR and AND. When they are equal every
 * packet took the same edge and the whole stream moves; otherwise slow()
 * decides for each packet the fast path left alone, and runs are enqueued.
 */
static __rte_always_inline uint16_t
nfv_node_finish(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t *nexts,
		uint16_t n, uint16_t any, uint16_t all, uint16_t (*slow)(struct rte_mbuf *m))
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;

	if (likely(any == all && !(any & NFV_NEXT_SLOW))) {
		rte_node_next_stream_move(graph, node, any);
		return n;
	}
	if (any & NFV_NEXT_SLOW) {
		for (uint16_t i = 0; i < n; i++)
			if (nexts[i] == NFV_NEXT_SLOW)
				nexts[i] = slow(pkts[i]);
	}
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

/*
 * The two-pass batch loop of a node with a fast path (STYLE rule 6). fast()
 * takes the common case of one packet with few or no branches and returns
 * its edge, or NFV_NEXT_SLOW having changed nothing; slow() then handles
 * that packet in full (every check, one at a time, to name the reason).
 * Pass one keeps the OR and the AND of the edges: when they are equal,
 * every packet took the same edge and the whole stream moves without a
 * second look at the edges. prefetch: bring in the packet data four
 * packets ahead (for the first node that reads it). nfv_node_pass() is the
 * first pass alone, for a node that ends its own way (eth_input).
 */
static __rte_always_inline void
nfv_node_pass(struct rte_mbuf **pkts, uint16_t n, uint16_t *nexts, uint16_t *any_out,
	      uint16_t *all_out, uint16_t (*fast)(struct rte_mbuf *m), const bool prefetch)
{
	uint16_t any = 0, all = UINT16_MAX;
	uint16_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		uint16_t r0, r1, r2, r3;

		if (prefetch && i + 8 <= n) {
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 5], void *));
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 6], void *));
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 7], void *));
		}
		r0 = fast(pkts[i]);
		r1 = fast(pkts[i + 1]);
		r2 = fast(pkts[i + 2]);
		r3 = fast(pkts[i + 3]);
		nexts[i] = r0;
		nexts[i + 1] = r1;
		nexts[i + 2] = r2;
		nexts[i + 3] = r3;
		any |= r0 | r1 | r2 | r3;
		all &= r0 & r1 & r2 & r3;
	}
	for (; i < n; i++) {
		nexts[i] = fast(pkts[i]);
		any |= nexts[i];
		all &= nexts[i];
	}
	*any_out = any;
	*all_out = all;
}

static __rte_always_inline uint16_t
nfv_node_run(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
	     uint16_t (*fast)(struct rte_mbuf *m), uint16_t (*slow)(struct rte_mbuf *m),
	     const bool prefetch)
{
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint16_t any, all;

	nfv_node_pass((struct rte_mbuf **)objs, n, nexts, &any, &all, fast, prefetch);
	return nfv_node_finish(graph, node, objs, nexts, n, any, all, slow);
}

/*
 * The second half of ip4_lookup and ip6_lookup, after the bulk FIB lookup
 * gave nhs[]: records each packet's next hop and sends it to fwd_edge when
 * it is a unicast frame to a next hop that forwards; anything else (no
 * route, local, blackhole, link-layer broadcast) goes through slow().
 */
static __rte_always_inline uint16_t
nfv_lookup_dispatch(struct rte_graph *graph, struct rte_node *node, void **objs,
		    const uint64_t *nhs, uint16_t n, uint16_t fwd_edge,
		    uint16_t (*slow)(struct rte_mbuf *m))
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint16_t any = 0, all = UINT16_MAX;

	for (uint16_t i = 0; i < n; i++) {
		struct nfv_mbuf_meta *meta = nfv_meta(pkts[i]);
		const struct nfv_nexthop *nh = nfv_nh_get(nfv_fib_nh_id(nhs[i]));

		meta->nh = nh;
		nexts[i] = likely(nh != NULL && nfv_nh_forwards(nh) && meta->flags == 0) ?
			   fwd_edge : NFV_NEXT_SLOW;
		any |= nexts[i];
		all &= nexts[i];
	}
	return nfv_node_finish(graph, node, objs, nexts, n, any, all, slow);
}

/* A 32-bit finaliser (MurmurHash3's fmix32): CRC is linear in its seed, so
 * scores taken straight from it would rank members by a few bits only. */
static __rte_always_inline uint32_t
nfv_mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/*
 * The member of ECMP group g that carries a flow, by rendezvous (highest
 * random weight) hashing: each member scores the flow hash mixed with what
 * names it, its gateway address and port, and the highest score wins. A
 * member added or removed (the route replaced with one "via" more or less)
 * moves only its own share of the flows, whatever the order of the "via"s
 * or the next-hop ids. A member without a neighbor does not black-hole its
 * share: the best resolved member takes it, the others' flows stay. With no
 * resolved member, the best one (the caller names the drop); NULL if none.
 */
static inline const struct nfv_nexthop *
nfv_nh_group_pick(const struct nfv_nexthop *g, uint32_t hash)
{
	const struct nfv_nexthop *best = NULL, *best_live = NULL;
	uint32_t best_score = 0, live_score = 0;

	for (unsigned int i = 0; i < g->n_members; i++) {
		const struct nfv_nexthop *m = nfv_nh_get(g->members[i]);
		uint32_t score;

		if (m == NULL)
			continue;
		if (m->gw.family == AF_INET6) {
			uint64_t w[2]; /* the address is only 4-byte aligned */

			memcpy(w, m->gw.v6, sizeof(w));
			score = rte_hash_crc_8byte(w[1], rte_hash_crc_8byte(w[0],
									   hash ^ m->port_id));
		} else {
			score = rte_hash_crc_4byte(m->gw.v4, hash ^ m->port_id);
		}
		score = nfv_mix32(score);
		if (best == NULL || score > best_score) {
			best = m;
			best_score = score;
		}
		if (m->resolved && (best_live == NULL || score > live_score)) {
			best_live = m;
			live_score = score;
		}
	}
	return best_live != NULL ? best_live : best;
}

/* The flow hash that picks an IPv4 packet's ECMP member: the device's RSS
 * hash, else addresses and (unfragmented TCP/UDP) ports. */
static __rte_always_inline uint32_t
nfv_ip4_flow_hash(const struct rte_mbuf *m, const struct rte_ipv4_hdr *ip)
{
	uint32_t h;

	if (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
		return m->hash.rss;
	h = rte_hash_crc_4byte(ip->src_addr, ip->dst_addr);
	if ((ip->next_proto_id == IPPROTO_TCP || ip->next_proto_id == IPPROTO_UDP) &&
	    (ip->fragment_offset &
	     RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)) == 0 &&
	    rte_pktmbuf_data_len(m) >= NFV_L2_LEN + rte_ipv4_hdr_len(ip) + 4) {
		uint32_t ports;

		memcpy(&ports, (const uint8_t *)ip + rte_ipv4_hdr_len(ip), sizeof(ports));
		h = rte_hash_crc_4byte(ports, h);
	}
	return h;
}

/* The rewrite's last step: the next hop's Ethernet header and output port. */
static __rte_always_inline void
nfv_rewrite_l2(struct rte_mbuf *m, const struct nfv_nexthop *nh)
{
	memcpy(rte_pktmbuf_mtod(m, void *), nh->l2, RTE_ETHER_HDR_LEN);
	nfv_meta(m)->tx_port = nh->port_id;
}

static __rte_always_inline uint16_t
nfv_mark_drop(struct rte_mbuf *m, uint16_t reason, uint16_t drop_edge)
{
	nfv_meta(m)->drop_reason = (uint16_t)reason;
	return drop_edge;
}

/* Sends the packet to an ICMP error node: the error to build (type, code,
 * info: the MTU of "too big" errors, else 0) and the reason the packet
 * itself is counted under. */
static __rte_always_inline uint16_t
nfv_mark_icmp(struct rte_mbuf *m, uint8_t type, uint8_t code, uint32_t info,
	      uint16_t reason, uint16_t icmp_edge)
{
	struct nfv_mbuf_meta *meta = nfv_meta(m);

	meta->icmp_type = type;
	meta->icmp_code = code;
	meta->icmp_info = info;
	meta->drop_reason = (uint16_t)reason;
	return icmp_edge;
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), 16-bit words in host order. */
static __rte_always_inline rte_be16_t
nfv_cksum_update16(rte_be16_t cksum, uint16_t old_word, uint16_t new_word)
{
	uint32_t sum = (uint16_t)~rte_be_to_cpu_16(cksum);

	sum += (uint16_t)~old_word;
	sum += new_word;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return rte_cpu_to_be_16((uint16_t)~sum);
}

/*
 * True when a 20-byte IPv4 header's checksum is right: the one's-complement
 * sum of its ten 16-bit words, checksum included, is 0xffff. As 2^16 = 1
 * (mod 0xffff), the plain sum of the five 32-bit words is congruent to that
 * sum modulo 0xffff, in either byte order: a right header's plain sum is a
 * non-zero multiple of 0xffff. One multiply-based divisibility test instead
 * of four folds; five 4-byte loads, unaligned-safe (one 20-byte copy made
 * the compiler bounce the header through the stack).
 */
static __rte_always_inline uint64_t
nfv_ip4_hdr20_sum(const void *hdr)
{
	const uint8_t *b = hdr;
	uint32_t w0, w1, w2, w3, w4;

	memcpy(&w0, b, 4);
	memcpy(&w1, b + 4, 4);
	memcpy(&w2, b + 8, 4);
	memcpy(&w3, b + 12, 4);
	memcpy(&w4, b + 16, 4);
	return (uint64_t)w0 + w1 + w2 + w3 + w4;
}

/* A caller that has seen a non-zero word (the version) may test
 * nfv_ip4_hdr20_sum() % 0xffff == 0 alone. */
static __rte_always_inline bool
nfv_ip4_hdr20_cksum_ok(const void *hdr)
{
	uint64_t sum = nfv_ip4_hdr20_sum(hdr);

	return (sum % 0xffff == 0) & (sum != 0);
}

/*
 * The TTL decrement of a forwarded IPv4 packet on the header's 4-byte word
 * at the TTL (TTL, protocol, checksum; as loaded from memory), with the
 * checksum updated by RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'). With m the
 * TTL/protocol word and m' = m - 0x100, ~m + m' is 0xfeff whatever m is, so
 * HC' = ~(~HC + 0xfeff): HC + 0x100 in one's-complement arithmetic, but
 * +0 (0x0000) where that sum is -0 (0xFFFF). Read as the 16-bit number x of
 * its bytes in memory order on a little-endian host, adding 0x100 to HC is
 * adding 1 to x (the carry out of HC's high byte lands in its low byte, as
 * the end-around carry wants), and the whole rule is x' = (x + 1) mod 0xffff.
 * The caller has made sure TTL > 0.
 */
static __rte_always_inline uint32_t
nfv_ip4_ttl_dec_word(uint32_t w)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	uint32_t x = (w >> 16) + 1;

	x -= x >= 0xffff ? 0xffff : 0;
	return ((w - 1) & 0xffff) | x << 16;
#else
	uint32_t sum = (uint16_t)~w + 0xfeffu;

	sum = (sum & 0xffff) + (sum >> 16);
	return ((w - 0x01000000) & 0xffff0000) | (~sum & 0xffff);
#endif
}

/*
 * One's-complement sum of len bytes from offset off, across segments, folded
 * to 16 bits (not complemented). DPDK 22.11's rte_raw_cksum_mbuf() loses
 * carries when a segment starts at an odd distance from off; this folds each
 * segment's sum before byte-swapping it.
 */
static inline uint16_t
nfv_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint32_t sum = 0, done = 0;

	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	for (; m != NULL && done < len; m = m->next, off = 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len - done);
		uint32_t part = rte_raw_cksum(rte_pktmbuf_mtod_offset(m, const void *, off), n);

		if (done & 1)
			part = ((part & 0xff) << 8) | (part >> 8);
		sum += part;
		done += n;
	}
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* ICMPv6 (or any upper layer) sum with the IPv6 pseudo-header (RFC 8200 8.1),
 * folded, not complemented: 0xffff when a received checksum is right. */
static inline uint16_t
nfv_ip6_l4_sum(const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip, uint32_t l4_off)
{
	uint32_t sum = rte_ipv6_phdr_cksum(ip, 0);

	sum += nfv_cksum_mbuf(m, l4_off, rte_be_to_cpu_16(ip->payload_len));
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/*
 * Removes len bytes from the end of a packet (link-layer padding) across
 * segments: rte_pktmbuf_trim() only trims within the last one. Segments
 * left with nothing are freed. Returns 0, or -1 when len is beyond the
 * packet (nothing changed).
 */
static inline int
nfv_pktmbuf_trim(struct rte_mbuf *m, uint32_t len)
{
	uint32_t keep, off = 0;
	struct rte_mbuf *seg = m, *tail;
	uint16_t n_segs = 1;

	if (len > rte_pktmbuf_pkt_len(m))
		return -1;
	if (len <= UINT16_MAX && rte_pktmbuf_trim(m, (uint16_t)len) == 0)
		return 0;
	keep = rte_pktmbuf_pkt_len(m) - len;
	while (seg->next != NULL && off + seg->data_len < keep) {
		off += seg->data_len;
		seg = seg->next;
		n_segs++;
	}
	seg->data_len = (uint16_t)(keep - off);
	tail = seg->next;
	seg->next = NULL;
	m->nb_segs = n_segs;
	m->pkt_len = keep;
	if (tail != NULL)
		rte_pktmbuf_free(tail);
	return 0;
}

/* IPv4 address class tests on host-order addresses (RFC 1812 5.3.7). */
static __rte_always_inline int
nfv_ip4_is_martian_src(uint32_t a)
{
	uint8_t first = (uint8_t)(a >> 24);

	return first == 0 || first == 127 || first >= 224;
}

#endif
