/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flow_in: a feature of the l2_input arc, enabled on every port while flow
 * statistics are on. Counts the IPv4 and IPv6 frames (untagged or with one
 * 802.1Q tag) of a burst in this worker's flow tables: the key is the
 * 5-tuple (ports for TCP, UDP and SCTP when the packet is not a later
 * fragment, else 0; for IPv6 the protocol and ports past the extension
 * headers) and the receiving port; the entry gets packets, bytes
 * (the IP packet's length), last seen and the TCP flags OR-ed. Only this
 * worker writes its tables; nothing is shared per packet. Frames that are
 * not IP, or too short for their headers, are not counted. The frames go
 * on untouched, the whole stream at once when they came from one port.
 *
 * The common frame (untagged IPv4 UDP or TCP without options, not a later
 * fragment, at least 48 bytes) is read with a few wide loads (the header
 * checks: one 16-byte load, an XOR and a test against a mask) and
 * counted in place when its flow is in the worker's cache (flow.h): no
 * call, no table lookup. The others, and the frames whose flow the cache misses, wait
 * for one bulk lookup per table (up to 64 frames each); a key not found
 * is a flow's first packet (a new entry).
 *
 * Edges: ip4_fast and ip6_fast (l2_end.h: a burst of one port at the
 * arc's end), the l2_input arc's next features and eth_input.
 * Reads: mbuf->port, the frame's headers. (Not the RSS hash: testing
 * whether the device gave one costs what the key's multiplicative hash
 * costs.)
 * Counters: flows created, packets of flows with no room (table full).
 * Drops nothing.
 */
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_hash.h>
#include <rte_ip.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/flow/flow.h"
#include "modules/flow/l2_end.h"

#if defined(RTE_ARCH_X86) && defined(__SSE4_1__) && RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#include <smmintrin.h>
#define FLOW_SSE_CHECKS 1
#else
#define FLOW_SSE_CHECKS 0
#endif

#define FLOW_CHUNK 64 /* keys per bulk lookup (RTE_HASH_LOOKUP_BULK_MAX) */

/* The bytes of a frame the fast path reads: up to the TCP flags of an
 * untagged IPv4 packet without options. */
#define FLOW_FAST_MIN (RTE_ETHER_HDR_LEN + 20 + 14)

/* Per IP protocol, the mask of the key's second word (destination, then
 * the two ports): the ports only for the protocols that have them. */
static uint64_t hi_mask[256];

RTE_INIT(flow_hi_mask_init)
{
	for (unsigned int p = 0; p < RTE_DIM(hi_mask); p++)
		hi_mask[p] = p == IPPROTO_TCP || p == IPPROTO_UDP || p == IPPROTO_SCTP ?
			     UINT64_MAX : UINT32_MAX;
}

struct nfv_arc_feature nfv_flow_in_feature = {
	.arc_name = "l2_input",
	.node = "nfv_flow_in",
	.runs_after = "nfv_capture_in",
};
NFV_ARC_FEATURE_REGISTER(nfv_flow_in_feature);

/* The frames waiting for a table lookup. */
struct flow_pending {
	unsigned int n4, n6;
	struct nfv_flow_key4 k4[FLOW_CHUNK];
	uint32_t set4[FLOW_CHUNK];     /* the frame's cache set */
	uint32_t len4[FLOW_CHUNK];
	uint16_t fl4[FLOW_CHUNK];
	struct nfv_flow_key6 k6[FLOW_CHUNK];
	const void *kp6[FLOW_CHUNK];
	uint32_t len6[FLOW_CHUNK];
	uint16_t fl6[FLOW_CHUNK];
};

/* The family of an IP frame (its key and length filled in), or -1. */
static int
flow_parse(struct rte_mbuf *m, struct nfv_flow_key4 *k4, struct nfv_flow_key6 *k6,
	   uint32_t *len, uint8_t *flags)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t dl = rte_pktmbuf_data_len(m), off = RTE_ETHER_HDR_LEN, l4;
	uint16_t type, sport = 0, dport = 0;
	uint8_t proto, f = 0;
	uint8_t ports;

	if (unlikely(dl < RTE_ETHER_HDR_LEN + 20))
		return -1;
	type = (uint16_t)(b[12] << 8 | b[13]);
	if (unlikely(type == RTE_ETHER_TYPE_VLAN)) {
		type = (uint16_t)(b[16] << 8 | b[17]);
		off += 4;
	}
	if (likely(type == RTE_ETHER_TYPE_IPV4)) {
		const uint8_t *ip = b + off;
		uint32_t ihl;

		if (unlikely(dl < off + 20 || (ip[0] >> 4) != 4))
			return -1;
		ihl = (uint32_t)(ip[0] & 0xf) * 4;
		proto = ip[9];
		l4 = off + ihl;
		/* Ports only in a first fragment (offset 0). */
		ports = ((ip[6] & 0x1f) | ip[7]) == 0 && ihl >= 20;
		*len = (uint32_t)(ip[2] << 8 | ip[3]);
		memcpy(&k4->src, ip + 12, 4);
		memcpy(&k4->dst, ip + 16, 4);
	} else if (type == RTE_ETHER_TYPE_IPV6) {
		const uint8_t *ip = b + off;

		if (unlikely(dl < off + 40 || (ip[0] >> 4) != 6))
			return -1;
		proto = ip[6];
		l4 = off + 40;
		ports = true;
		/* Past the extension headers (RFC 8200 4.1), at most eight, to
		 * the upper layer: its protocol is the key's (IPFIX's
		 * protocolIdentifier is the last next header), its ports unless
		 * a later fragment or headers beyond the first segment. */
		for (unsigned int i = 0; i < 8 && ports; i++) {
			if (proto == IPPROTO_HOPOPTS || proto == IPPROTO_ROUTING ||
			    proto == IPPROTO_DSTOPTS) {
				if (dl < l4 + 2) {
					ports = false;
					break;
				}
				proto = b[l4];
				l4 += ((uint32_t)b[l4 + 1] + 1) * 8;
			} else if (proto == IPPROTO_FRAGMENT) {
				if (dl < l4 + 4) {
					ports = false;
					break;
				}
				ports = ((b[l4 + 2] << 8 | b[l4 + 3]) & 0xfff8) == 0;
				proto = b[l4];
				l4 += 8;
			} else {
				break;
			}
		}
		*len = 40u + (uint32_t)(ip[4] << 8 | ip[5]);
		memcpy(k6->src, ip + 8, 16);
		memcpy(k6->dst, ip + 24, 16);
	} else {
		return -1;
	}
	if (ports && hi_mask[proto] == UINT64_MAX && dl >= l4 + 4) {
		memcpy(&sport, b + l4, 2);
		memcpy(&dport, b + l4 + 2, 2);
		if (proto == IPPROTO_TCP && dl >= l4 + 14)
			f = b[l4 + 13];
	}
	*flags = f;
	/* The fields both keys have, by the same names. */
#define FLOW_KEY_REST(k) ((k)->sport = sport, (k)->dport = dport, (k)->proto = proto, \
			  (k)->pad = 0, (k)->iface = m->port)
	if (type == RTE_ETHER_TYPE_IPV4) {
		FLOW_KEY_REST(k4);
		return NFV_FLOW_V4;
	}
	FLOW_KEY_REST(k6);
	return NFV_FLOW_V6;
#undef FLOW_KEY_REST
}

/* The big-endian 16 bits at p (x86: a load and a rotate, no byte swap of a
 * copy). */
static __rte_always_inline uint64_t
flow_be16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
#if defined(RTE_ARCH_X86)
	uint64_t x = v;

	__asm__("rolw $8, %w0" : "+r"(x));
	return x;
#else
	return rte_be_to_cpu_16(v);
#endif
}

/* Counts one frame in entry e; flags: its TCP flags, twice. */
static __rte_always_inline void
flow_update(struct nfv_flow_entry *e, uint32_t len, uint16_t flags, uint64_t now)
{
	e->packets++;
	e->bytes += len;
	e->last_tsc = now;
	e->both_flags |= flags;
}

static __rte_always_inline bool
key4_is(const struct nfv_flow_entry *e, uint64_t lo, uint64_t hi)
{
	uint64_t a, b;

	memcpy(&a, &e->key4, 8);
	memcpy(&b, (const uint8_t *)&e->key4 + 8, 8);
	return ((a ^ lo) | (b ^ hi)) == 0;
}

/* An IPv4 frame for the table lookup; flags: its TCP flags. */
static __rte_always_inline void
flow_pend4(struct flow_pending *p, uint64_t lo, uint64_t hi, uint32_t set, uint32_t len,
	   uint8_t flags)
{
	unsigned int k = p->n4++;

	memcpy(&p->k4[k], &lo, 8);
	memcpy((uint8_t *)&p->k4[k] + 8, &hi, 8);
	p->set4[k] = set;
	p->len4[k] = len;
	p->fl4[k] = (uint16_t)(flags * 0x101);
}

/* An IPv4 frame whose flow is not in way 0 of its set: counted when
 * another way has it, else kept for the table lookup. */
static __rte_noinline void
flow_ways(struct nfv_flow_worker *fw, uint64_t lo, uint64_t hi, uint32_t len, uint8_t flags,
	  uint64_t now, struct flow_pending *p)
{
	uint32_t set = nfv_flow_cache_set(lo, hi);

	for (unsigned int way = 1; way < NFV_FLOW_CACHE_WAYS; way++) {
		struct nfv_flow_entry *e = *nfv_flow_cache_way(fw->cache, set, way);

		if (key4_is(e, lo, hi)) {
			flow_update(e, len, (uint16_t)(flags * 0x101), now);
			return;
		}
	}
	flow_pend4(p, lo, hi, set, len, flags);
}

/* An IPv4 frame the fast path did not read. */
static void
flow_count4(struct nfv_flow_worker *fw, const struct nfv_flow_key4 *k, uint32_t len,
	    uint8_t flags, uint64_t now, struct flow_pending *p)
{
	uint64_t lo, hi;
	uint32_t set;
	struct nfv_flow_entry *e;

	memcpy(&lo, k, 8);
	memcpy(&hi, (const uint8_t *)k + 8, 8);
	set = nfv_flow_cache_set(lo, hi);
	e = fw->cache->way0[set];
	if (key4_is(e, lo, hi))
		flow_update(e, len, (uint16_t)(flags * 0x101), now);
	else
		flow_ways(fw, lo, hi, len, flags, now, p);
}

/* The entry of a key the lookup did not find: added (a flow's first
 * packet), or found when an earlier frame of the chunk added it. */
static int32_t
flow_create(struct nfv_flow_worker *fw, int fam, const void *key, uint64_t now,
	    struct nfv_flow_counters *c)
{
	int32_t pos = rte_hash_add_key(fw->hash[fam], key);
	struct nfv_flow_entry *e;

	if (unlikely(pos < 0))
		return -1;
	e = &fw->entries[fam][pos];
	if (e->used)
		return pos;
	__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE); /* odd: being written */
	if (fam == NFV_FLOW_V4)
		memcpy(&e->key4, key, sizeof(e->key4));
	else
		memcpy(&e->key6, key, sizeof(e->key6));
	e->packets = e->bytes = e->exp_packets = e->exp_bytes = 0;
	e->both_flags = 0;
	e->first_tsc = e->last_tsc = e->exp_tsc = now;
	e->used = 1;
	fw->live[fam][pos / 64] |= UINT64_C(1) << (pos % 64);
	fw->n_live[fam]++;
	__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE);
	c->created++;
	return pos;
}

/* The IPv4 frames the cache missed: one bulk lookup, new flows added; each
 * takes way 0 of its set. */
static void
flow_lookup4(struct nfv_flow_worker *fw, struct flow_pending *p, uint64_t now,
	     struct nfv_flow_counters *c)
{
	struct nfv_flow_entry *entries = fw->entries[NFV_FLOW_V4];
	const void *kp[FLOW_CHUNK];
	hash_sig_t sig[FLOW_CHUNK];
	int32_t pos[FLOW_CHUNK];
	unsigned int n = p->n4;

	for (unsigned int k = 0; k < n; k++) {
		kp[k] = &p->k4[k];
		sig[k] = nfv_flow_key4_sig(&p->k4[k]);
	}
	rte_hash_lookup_with_hash_bulk(fw->hash[NFV_FLOW_V4], kp, sig, n, pos);
	for (unsigned int k = 0; k < n; k++) {
		uint32_t set = p->set4[k];
		int32_t at = pos[k];
		unsigned int w;

		if (unlikely(at < 0)) {
			at = flow_create(fw, NFV_FLOW_V4, &p->k4[k], now, c);
			if (at < 0) {
				c->table_full++;
				continue;
			}
		}
		/* Way 0, the others down one (up to the one it held). */
		for (w = 0; w < NFV_FLOW_CACHE_WAYS - 1 &&
			    *nfv_flow_cache_way(fw->cache, set, w) != &entries[at]; w++)
			;
		for (; w > 0; w--)
			*nfv_flow_cache_way(fw->cache, set, w) =
				*nfv_flow_cache_way(fw->cache, set, w - 1);
		fw->cache->way0[set] = &entries[at];
		flow_update(&entries[at], p->len4[k], p->fl4[k], now);
	}
	p->n4 = 0;
}

static void
flow_lookup6(struct nfv_flow_worker *fw, struct flow_pending *p, uint64_t now,
	     struct nfv_flow_counters *c)
{
	int32_t pos[FLOW_CHUNK];
	unsigned int n = p->n6;

	rte_hash_lookup_bulk(fw->hash[NFV_FLOW_V6], p->kp6, n, pos);
	for (unsigned int i = 0; i < n; i++) {
		int32_t at = pos[i];

		if (unlikely(at < 0)) {
			at = flow_create(fw, NFV_FLOW_V6, p->kp6[i], now, c);
			if (at < 0) {
				c->table_full++;
				continue;
			}
		}
		flow_update(&fw->entries[NFV_FLOW_V6][at], p->len6[i], p->fl6[i], now);
	}
	p->n6 = 0;
}

/* A frame the fast path does not read (tagged, IPv6, IPv4 with options or
 * a later fragment, short, not IP): parsed in full. */
static __rte_noinline void
flow_slow(struct nfv_flow_worker *fw, struct rte_mbuf *m, uint64_t now, struct flow_pending *p)
{
	struct nfv_flow_key4 k4;
	uint32_t len;
	uint8_t f;
	int fam = flow_parse(m, &k4, &p->k6[p->n6], &len, &f);

	if (fam == NFV_FLOW_V4) {
		flow_count4(fw, &k4, len, f, now, p);
	} else if (fam == NFV_FLOW_V6) {
		unsigned int k = p->n6++;

		p->kp6[k] = &p->k6[k];
		p->len6[k] = len;
		p->fl6[k] = (uint16_t)(f | f << 8);
	}
}

/* A frame of the fast path, key lo, hi: counted in the entry of way 0 of
 * its set when that holds its flow, else passed to flow_ways(). base: the
 * cache, followed by the IPv4 entries. */
static __rte_always_inline void
flow_fast_count(struct nfv_flow_worker *fw, uint8_t *base, uint64_t lo, uint64_t hi,
		uint64_t len, uint8_t flags, uint64_t now, struct flow_pending *p)
{
	uint32_t set = nfv_flow_cache_set(lo, hi);
	struct nfv_flow_entry *e = ((struct nfv_flow_cache *)base)->way0[set];
	uint64_t k0, k1;

	memcpy(&k0, &e->key4, 8);
	memcpy(&k1, (const uint8_t *)&e->key4 + 8, 8);
	if (unlikely(k0 != lo) || unlikely(k1 != hi)) {
		/* Way 1 here too: the flows that share a set with another. */
		e = ((struct nfv_flow_cache *)base)->more[set][0];
		if (!key4_is(e, lo, hi)) {
			flow_ways(fw, lo, hi, (uint32_t)len, flags, now, p);
			return;
		}
	}
	e->packets++;
	e->bytes += len;
	e->last_tsc = now;
	if (flags != 0)
		e->both_flags |= (uint16_t)(flags * 0x101);
}

/*
 * The frames of a burst, at most FLOW_CHUNK. The common frame (from port0,
 * untagged IPv4 without options, not a later fragment, at least
 * FLOW_FAST_MIN bytes) is read with a few loads at fixed offsets and, when
 * the cache has its flow, counted in place; the others go through
 * flow_slow(). Returns nonzero when a frame came from another port than
 * port0.
 */
static __rte_always_inline uint16_t
flow_chunk(struct nfv_flow_worker *fw, struct rte_mbuf **pkts, unsigned int n, uint16_t port0,
	   uint64_t now, struct flow_pending *p)
{
	uint16_t other = 0;
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	uint8_t *base = (uint8_t *)fw->cache; /* the ways, then the IPv4 entries */
	/* The first word of a UDP key from port0 but for the source address
	 * (struct nfv_flow_key4: source, pad, protocol, port). */
	uint64_t key_udp = (uint64_t)port0 << 48 | (uint64_t)IPPROTO_UDP << 40;

	/* Loop constants in registers (the compiler would rebuild them for
	 * every frame). */
	__asm__("" : "+r"(key_udp), "+r"(base));
#endif
#if FLOW_SSE_CHECKS
	/* Bytes 8-23 of the frame: the ethertype (12-13), version and header
	 * length (14), the fragment offset (20-21, not the flags) and the
	 * protocol (23) under hdr_mask must be those of hdr_udp (IPv4, 20
	 * bytes of header, offset 0, UDP); TCP differs in byte 23 by
	 * hdr_tcp. */
	const __m128i hdr_mask = _mm_setr_epi8(0, 0, 0, 0, -1, -1, -1, 0,
					       0, 0, 0, 0, 0x1f, -1, 0, -1);
	const __m128i hdr_udp = _mm_setr_epi8(0, 0, 0, 0, 0x08, 0x00, 0x45, 0,
					      0, 0, 0, 0, 0, 0, 0, IPPROTO_UDP);
	const __m128i hdr_tcp = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0,
					      0, 0, 0, 0, 0, 0, 0, IPPROTO_UDP ^ IPPROTO_TCP);
#endif
	/* From -n up to 0 before the end: one register, one add and branch. */
	pkts += n;
#pragma GCC unroll 2
	for (intptr_t i = -(intptr_t)n; i != 0; i++) {
		struct rte_mbuf *m = pkts[i];

		if (unlikely(m->port != port0)) {
			other = 1;
			goto slow;
		}
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
		const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
		uint64_t lo, hi, len;
		uint32_t src;

		if (unlikely(rte_pktmbuf_data_len(m) < FLOW_FAST_MIN))
			goto slow;
		/* The source address; the destination address and the ports. */
		memcpy(&src, b + 26, 4);
		memcpy(&hi, b + 30, 8);
		len = flow_be16(b + 16);
		/* The key (struct nfv_flow_key4): source, protocol, port;
		 * destination, ports. */
		lo = (uint64_t)src | key_udp;
#if FLOW_SSE_CHECKS
		/* UDP and TCP here (ports in the key), each with its own copy
		 * of the count; ICMP and the others through the full parse. */
		__m128i hdr = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(b + 8)), hdr_udp);

		/* (The TCP test XORs this again rather than keep the load.) */
		__asm__("" : "+x"(hdr));
		if (likely(_mm_testz_si128(hdr, hdr_mask))) {
			flow_fast_count(fw, base, lo, hi, len, 0, now, p);
			continue;
		}
		if (likely(_mm_testz_si128(_mm_xor_si128(hdr, hdr_tcp), hdr_mask))) {
			lo ^= (uint64_t)(IPPROTO_UDP ^ IPPROTO_TCP) << 40;
			flow_fast_count(fw, base, lo, hi, len, b[47], now, p);
			continue;
		}
#else
		/* IPv4 (08 00), version 4 with 5 words of header (45),
		 * fragment offset 0: compares of memory with immediates. */
		if (unlikely(*(const unaligned_uint16_t *)(b + 12) != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
			     b[14] != 0x45 ||
			     (*(const unaligned_uint16_t *)(b + 20) & RTE_BE16(0x1fff)) != 0))
			goto slow;
		if (likely(b[23] == IPPROTO_UDP)) {
			flow_fast_count(fw, base, lo, hi, len, 0, now, p);
			continue;
		}
		/* (Read again, so that the UDP test is one compare with memory.) */
		if (likely(*(const volatile uint8_t *)(b + 23) == IPPROTO_TCP)) {
			lo ^= (uint64_t)(IPPROTO_UDP ^ IPPROTO_TCP) << 40;
			flow_fast_count(fw, base, lo, hi, len, b[47], now, p);
			continue;
		}
#endif
#endif
slow:
		flow_slow(fw, m, now, p);
	}
	return other;
}

/* The table lookups of what a chunk left pending (misses of the cache,
 * frames the fast path does not read). */
static __rte_noinline void
flow_lookups(struct nfv_flow_worker *fw, struct nfv_worker *w, struct flow_pending *p,
	     uint64_t now)
{
	struct nfv_flow_counters *c = nfv_worker_counters(w, &nfv_flow_counters_block);

	if (p->n4 != 0)
		flow_lookup4(fw, p, now, c);
	if (p->n6 != 0)
		flow_lookup6(fw, p, now, c);
}

/* The frames of a stream past its first FLOW_CHUNK, chunk by chunk. */
static __rte_noinline uint16_t
flow_more(struct nfv_flow_worker *fw, struct nfv_worker *w, struct rte_mbuf **pkts,
	  uint16_t n, uint16_t port0, uint64_t now)
{
	struct flow_pending p;
	uint16_t other = 0;

	p.n4 = p.n6 = 0;
	for (uint16_t i = 0; i < n; i += FLOW_CHUNK) {
		other |= flow_chunk(fw, pkts + i, RTE_MIN((unsigned int)FLOW_CHUNK,
							  (unsigned int)(n - i)), port0, now, &p);
		if ((p.n4 | p.n6) != 0)
			flow_lookups(fw, w, &p, now);
	}
	return other;
}

static uint16_t
flow_in_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_flow_worker *fw = __atomic_load_n(&nfv_flow_workers[w->index],
						     __ATOMIC_ACQUIRE);
	struct flow_pending p;
	uint16_t port0, other;
	uint64_t now;

	if (unlikely(fw == NULL || n == 0))
		return nfv_arc_feature_pass(graph, node, objs, n, &nfv_flow_in_feature, false);
	now = nfv_walk_tsc(w);
	port0 = pkts[0]->port;
	/* The first chunk here (the usual stream is one RX burst), the rest
	 * out of line. */
	p.n4 = p.n6 = 0;
	other = flow_chunk(fw, pkts, RTE_MIN(n, (uint16_t)FLOW_CHUNK), port0, now, &p);
	if (unlikely((p.n4 | p.n6) != 0))
		flow_lookups(fw, w, &p, now);
	if (unlikely(n > FLOW_CHUNK))
		other |= flow_more(fw, w, pkts + FLOW_CHUNK, (uint16_t)(n - FLOW_CHUNK), port0,
				   now);
	if (likely(other == 0)) {
		uint16_t edge = nfv_arc_next_edge(&nfv_flow_in_feature,
						  port0 < NFV_ARC_IFACES ? port0 : 0);

		nfv_l2_end_move(graph, node, &nfv_flow_in_feature, edge, w, objs, n);
		return n;
	}
	return nfv_arc_feature_pass(graph, node, objs, n, &nfv_flow_in_feature, false);
}

static struct rte_node_register flow_in_node = {
	.name = "nfv_flow_in",
	.process = flow_in_process,
	.init = nfv_node_ctx_init,
	.nb_edges = NFV_L2_END_EDGES,
	.next_nodes = { NFV_L2_END_NEXT_NODES },
};

RTE_NODE_REGISTER(flow_in_node);
