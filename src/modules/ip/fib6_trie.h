/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The default VRF's IPv6 FIB read inline: DPDK 22.11's rte_fib6 TRIE
 * (lib/fib/trie.h, what rte_fib6_get_dp() returns) as nfv creates it, with
 * 4-byte entries. An entry is a value shifted left by one; its low bit set
 * means it is the index of a group of 256 tbl8 entries, for the next byte
 * of the address. The first three bytes index tbl24, then each extended
 * entry takes one more byte (the fourth, the fifth...) until an entry is
 * not extended: the value is that entry shifted right by one.
 *
 * The layout is DPDK's own, not part of its API: fib.c checks it on every
 * IPv6 table of the default VRF it creates (nfv_fib6_trie_check: header
 * fields, then routes down to /128 looked up both ways) and leaves
 * nfv_fib6.trie[] NULL for a table that does not match, so another DPDK
 * gets rte_fib6_lookup_bulk, not wrong answers.
 */
#ifndef NFV_FIB6_TRIE_H
#define NFV_FIB6_TRIE_H

#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_fib6.h>

#include "modules/ip/ip.h"

struct nfv_trie6 {
	uint32_t number_tbl8s;   /* tbl8 groups the table has */
	uint32_t rsvd_tbl8s;     /* groups reserved by the routes added */
	uint32_t cur_tbl8s;      /* not kept by the trie (always 0) */
	uint64_t def_nh;         /* the value of an address no route covers */
	enum rte_fib_trie_nh_sz nh_sz;
	uint32_t *tbl8;          /* groups of 256 entries, 4-byte ones here */
	uint32_t *tbl8_pool;     /* free group indexes, a stack */
	uint32_t tbl8_pool_pos;  /* groups in use */
	uint32_t tbl24[] __rte_cache_aligned;
};

/* The entry of address a after the bytes from `from` on: e is the entry
 * the walk stopped at before byte `from`. */
static __rte_always_inline uint32_t
nfv_trie6_walk(const struct nfv_trie6 *t, const uint8_t *a, uint32_t e, unsigned int from)
{
	for (unsigned int j = from; e & 1; j++)
		e = t->tbl8[(size_t)(e >> 1) * 256 + a[j]];
	return e;
}

/* The entry after the first eight bytes of a (the walk may end earlier). */
static __rte_always_inline uint32_t
nfv_trie6_walk8(const struct nfv_trie6 *t, const uint8_t *a)
{
	uint32_t w, e;

	memcpy(&w, a, sizeof(w));
	e = t->tbl24[rte_be_to_cpu_32(w) >> 8];
	for (unsigned int j = 3; j < 8 && (e & 1); j++)
		e = t->tbl8[(size_t)(e >> 1) * 256 + a[j]];
	return e;
}

/* The FIB value of IPv6 address a, as rte_fib6_lookup_bulk() gives it. */
static __rte_always_inline uint64_t
nfv_trie6_get(const struct nfv_trie6 *t, const uint8_t *a)
{
	return nfv_trie6_walk(t, a, nfv_trie6_walk8(t, a), 8) >> 1;
}

/*
 * The FIB values of n addresses (n >= 1), as rte_fib6_lookup_bulk() gives
 * them. Most packets of a burst share their first 64 bits (their /64) with
 * another one of the burst: the entry reached after those eight bytes is
 * remembered per burst in a small direct-mapped cache keyed by them, and
 * the walk resumes from it at the ninth byte (where it ends at once unless
 * a route longer than /64 is in that /64). The walk depends on the bytes
 * alone, so the result is the same. The cache starts with every slot
 * holding the first address's key and entry, so no slot is ever empty.
 */
#define NFV_TRIE6_CACHE_BITS 3
#define NFV_TRIE6_CACHE (1u << NFV_TRIE6_CACHE_BITS)

/* The slot of a key (the eight bytes as loaded): a multiplicative hash of
 * them as a big-endian number, so that /64s a few apart (which differ in
 * their last bytes) go to different slots. */
static __rte_always_inline unsigned int
nfv_trie6_slot(uint64_t key)
{
	return (unsigned int)((rte_be_to_cpu_64(key) * 0x9e3779b97f4a7c15ull) >>
			      (64 - NFV_TRIE6_CACHE_BITS));
}

static __rte_always_inline void
nfv_trie6_lookup_burst(const struct nfv_trie6 *t, uint8_t ips[][RTE_FIB6_IPV6_ADDR_SIZE],
		       uint64_t *nhs, unsigned int n)
{
	uint64_t keys[NFV_TRIE6_CACHE];
	uint32_t ents[NFV_TRIE6_CACHE];
	uint64_t k0;
	uint32_t e0 = nfv_trie6_walk8(t, ips[0]);

	memcpy(&k0, ips[0], sizeof(k0));
	for (unsigned int s = 0; s < NFV_TRIE6_CACHE; s++) {
		keys[s] = k0;
		ents[s] = e0;
	}
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *a = ips[i];
		uint64_t k;
		unsigned int s;
		uint32_t e;

		memcpy(&k, a, sizeof(k));
		s = nfv_trie6_slot(k);
		if (likely(keys[s] == k)) {
			e = ents[s];
		} else {
			e = nfv_trie6_walk8(t, a);
			keys[s] = k;
			ents[s] = e;
		}
		if (unlikely(e & 1))
			e = nfv_trie6_walk(t, a, e, 8);
		nhs[i] = e >> 1;
	}
}

/* The active IPv6 table of the default VRF for an inline read, or NULL. */
static inline const struct nfv_trie6 *
nfv_fib6_trie_active(void)
{
	unsigned int a = __atomic_load_n(&nfv_fib6.active, __ATOMIC_ACQUIRE);

	return nfv_fib6.trie[a];
}

/* The default VRF's IPv6 lookup of n addresses: inline when the active
 * table passed the layout check, else rte_fib6_lookup_bulk. */
static __rte_always_inline void
nfv_fib6_lookup(uint8_t ips[][RTE_FIB6_IPV6_ADDR_SIZE], uint64_t *nhs, unsigned int n)
{
	unsigned int a = __atomic_load_n(&nfv_fib6.active, __ATOMIC_ACQUIRE);
	const struct nfv_trie6 *t = nfv_fib6.trie[a];

	if (unlikely(n == 0))
		return;
	if (likely(t != NULL))
		nfv_trie6_lookup_burst(t, ips, nhs, n);
	else
		rte_fib6_lookup_bulk(nfv_fib6.tbl[a], ips, nhs, (int)n);
}

#endif
