/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the IPv4 and IPv6 nodes share: the dispatch after a bulk FIB lookup,
 * the ECMP member choice, the Ethernet rewrite, ICMP error marks and the
 * IP header arithmetic (RFC 1624, RFC 1812 5.3.7).
 */
#ifndef NFV_IP_NODE_H
#define NFV_IP_NODE_H

#include <string.h>

#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_per_lcore.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "core/node.h"
#include "modules/ip/ip.h"

#define NFV_ICMP_DEST_UNREACH 3
#define NFV_ICMP_TIME_EXCEEDED 11

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

/* The flow hash that picks an IPv6 packet's ECMP member: the device's RSS
 * hash, else the addresses and the flow label. */
static __rte_always_inline uint32_t
nfv_ip6_flow_hash(const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip)
{
	uint64_t addrs[4]; /* rte_hash_crc reads 8 bytes at a time: align them */

	if (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
		return m->hash.rss;
	memcpy(addrs, ip->src_addr, sizeof(addrs));
	return rte_hash_crc(addrs, sizeof(addrs), rte_be_to_cpu_32(ip->vtc_flow) & 0xfffff);
}

/* The resolution module's hooks (control/hooks.c): -1 when none. */
extern int16_t nfv_ip_unresolved_edge[2]; /* ip4_rewrite's, ip6_rewrite's */
extern int16_t nfv_ip6_link_edge_input;
extern int16_t nfv_ip6_link_edge_local;
extern struct rte_ring *nfv_nh_use_ring[RTE_MAX_LCORE];
RTE_DECLARE_PER_LCORE(uint32_t, nfv_nh_last_use);
RTE_DECLARE_PER_LCORE(uint64_t, nfv_nh_last_use_tsc);

/*
 * A slow path used a next hop with notify set (a stale neighbor): tells the
 * control side on this lcore's ring, once per next hop and millisecond at
 * most (a full ring loses the report; the next use reports again).
 */
static inline void
nfv_nh_note_use(const struct nfv_nexthop *nh)
{
	struct rte_ring *r = nfv_nh_use_ring[rte_lcore_id()];
	uint64_t now = rte_rdtsc();
	uint32_t id = nh->id;

	if (r == NULL || (RTE_PER_LCORE(nfv_nh_last_use) == id &&
			  now - RTE_PER_LCORE(nfv_nh_last_use_tsc) < rte_get_tsc_hz() / 1000))
		return;
	RTE_PER_LCORE(nfv_nh_last_use) = id;
	RTE_PER_LCORE(nfv_nh_last_use_tsc) = now;
	rte_ring_sp_enqueue_elem(r, &id, sizeof(id));
}

/*
 * ipX_rewrite's answer for a next hop without a neighbor: the resolution
 * module's node (meta.nh set to the member that needs one), else the drop.
 */
static __rte_always_inline uint16_t
nfv_rewrite_unresolved(struct rte_mbuf *m, const struct nfv_nexthop *nh, unsigned int fam,
		       uint16_t reason, uint16_t drop_edge)
{
	int16_t e = nfv_ip_unresolved_edge[fam];

	if (e < 0)
		return nfv_mark_drop(m, reason, drop_edge);
	nfv_meta(m)->nh = nh;
	return (uint16_t)e;
}

/* The rewrite's last step: the next hop's Ethernet header and output port. */
static __rte_always_inline void
nfv_rewrite_l2(struct rte_mbuf *m, const struct nfv_nexthop *nh)
{
	memcpy(rte_pktmbuf_mtod(m, void *), nh->l2, RTE_ETHER_HDR_LEN);
	nfv_meta(m)->tx_port = nh->port_id;
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

/*
 * True when a 20-byte IPv4 header's checksum is right: the one's-complement
 * sum of its ten 16-bit words, checksum included, is 0xffff. As 2^16 = 1
 * (mod 0xffff), a sum of the header's bytes taken as wider words, in either
 * byte order, is congruent to that sum modulo 0xffff, and so is a 64-bit
 * sum whose carries out are added back in (2^64 = 1 too): a right header's
 * sum is a non-zero multiple of 0xffff, and the sum is zero only for a
 * header of zeros. Two 8-byte words and a 4-byte one, unaligned-safe, with
 * end-around carries (add, adc), then one multiply-based divisibility test
 * instead of folds (one 20-byte copy made the compiler bounce the header
 * through the stack).
 */
static __rte_always_inline uint64_t
nfv_ip4_hdr20_sum(const void *hdr)
{
	const uint8_t *b = hdr;
	uint64_t lo, hi, s;
	uint32_t w4;

	memcpy(&lo, b, 8);
	memcpy(&hi, b + 8, 8);
	memcpy(&w4, b + 16, 4);
#if defined(RTE_ARCH_X86_64)
	/* add, adc, adc: the carries stay in the flags (the builtins below
	 * made the compiler keep one in a register, spilled in a busy loop).
	 * The last adc cannot carry out: as below. */
	s = lo;
	__asm__("add %[hi], %[s]\n\t"
		"adc %[w4], %[s]\n\t"
		"adc $0, %[s]"
		: [s] "+&r"(s)
		: [hi] "r"(hi), [w4] "r"((uint64_t)w4)
		: "cc");
	return s;
#else
	uint64_t t;
	bool c1, c2;

	c1 = __builtin_add_overflow(lo, hi, &s);
	/* w4 + c1 <= 2^32: no carry out of its own. */
	c2 = __builtin_add_overflow(s, (uint64_t)w4 + c1, &t);
	/* t < 2^32 when c2: no carry out either. */
	return t + c2;
#endif
}

/*
 * nfv_ip4_hdr20_sum() times the inverse of 0xffff modulo 2^64: at most
 * NFV_IP4_SUM_KEY_MAX exactly when the sum is a multiple of 0xffff (the
 * multiply-based divisibility test), so the largest key of many headers
 * tells whether all their sums are (a loop keeps a maximum, one compare
 * and a conditional move a header, and tests once). As for the remainder,
 * the caller must have seen a non-zero word.
 */
#define NFV_IP4_SUM_KEY_MAX (UINT64_MAX / 0xffff)

static __rte_always_inline uint64_t
nfv_ip4_hdr20_sum_key(const void *hdr)
{
	return nfv_ip4_hdr20_sum(hdr) * UINT64_C(0xfffefffefffeffff);
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
	/* TTL - 1 in the low byte, x + 1 in the high half: w - 1 + 0x10000,
	 * and x' = 0 or 1 (x - 0xfffe less, i.e. 0x10000 more, modulo 2^32)
	 * when x is 0xfffe or 0xffff. Written as one addend chosen by the
	 * compare: compare, sbb, a 16-bit clear and one lea. */
	return w + (w >= 0xfffe0000u ? 0x1ffffu : 0xffffu);
#else
	uint32_t sum = (uint16_t)~w + 0xfeffu;

	sum = (sum & 0xffff) + (sum >> 16);
	return ((w - 0x01000000) & 0xffff0000) | (~sum & 0xffff);
#endif
}

/* Whether a received IPv4 UDP datagram's checksum (not 0: the sender
 * computed one) is right (RFC 768): the device's verdict when it gave one,
 * else the sum over the pseudo-header and the udp_len bytes at l4_off. */
static inline bool
nfv_udp4_cksum_ok(const struct rte_mbuf *m, const struct rte_ipv4_hdr *ip, uint32_t l4_off,
		  uint32_t udp_len)
{
	uint32_t sum;

	if (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_GOOD)
		return true;
	if (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_BAD)
		return false;
	sum = (uint32_t)rte_ipv4_phdr_cksum(ip, 0) + nfv_cksum_mbuf(m, l4_off, udp_len);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
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

/* IPv4 address class tests on host-order addresses (RFC 1812 5.3.7). */
static __rte_always_inline int
nfv_ip4_is_martian_src(uint32_t a)
{
	uint8_t first = (uint8_t)(a >> 24);

	return first == 0 || first == 127 || first >= 224;
}

/*
 * What a fused node knows of a burst it hands whole to an interface's
 * first ingress feature, every packet routed (nfv_ip_fast_to_ingress_routed
 * in ip_fast.h), so that the feature need not test it again per packet:
 * the stream (the receiving node, its objs array and count after the
 * hand-over), that every packet came in by iface, has a header the fused
 * node checked (IPv4: version 4, 20 bytes, in the first segment; IPv6:
 * version 6) and was rewritten and marked NFV_META_ROUTED for one next
 * hop, to port tx, under the interface's route gen. Per worker and family
 * ([0] IPv4, [1] IPv6); to is NULL when there is none. A feature takes it
 * for a stream that is exactly this one, and clears it on every call
 * (nfv_ip_fast_note_take), so it never outlives its walk.
 */
struct nfv_ip_fast_note {
	const struct rte_node *to;
	void **objs;
	uint32_t gen;
	uint16_t n;
	uint16_t iface;
	uint16_t tx;
};
extern struct nfv_ip_fast_note nfv_ip_fast_notes[NFV_MAX_WORKERS][2];

/*
 * The IPv4 identification of a datagram nfvd originates that may be
 * fragmented on its way (a tunnel's outer packet, DF clear: VXLAN,
 * GTP-U): unique for its source, destination and protocol while it may
 * live (RFC 6864 4.1; 0 for all of them made a receiver join the
 * fragments of different datagrams). A counter per worker, from a random
 * start (ip module init), as Linux's per-destination counters do it.
 */
struct nfv_ip4_ident {
	uint16_t next;
} __rte_cache_aligned;

extern struct nfv_ip4_ident nfv_ip4_idents[NFV_MAX_WORKERS];

/* A node's loop takes worker w's next identification once, numbers its
 * datagrams from it in a register (rte_cpu_to_be_16(next++)) and gives
 * back what follows. */
static __rte_always_inline uint16_t
nfv_ip4_ident_get(const struct nfv_worker *w)
{
	return nfv_ip4_idents[w->index].next;
}

static __rte_always_inline void
nfv_ip4_ident_put(const struct nfv_worker *w, uint16_t next)
{
	nfv_ip4_idents[w->index].next = next;
}

/* The note of worker wi, family fam, cleared: a feature takes it once a
 * call, whether it uses it or not. */
static __rte_always_inline struct nfv_ip_fast_note
nfv_ip_fast_note_take(unsigned int wi, unsigned int fam)
{
	struct nfv_ip_fast_note *p = &nfv_ip_fast_notes[wi][fam], note = *p;

	p->to = NULL;
	return note;
}

#endif
