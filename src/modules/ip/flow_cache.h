/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A per-worker cache in front of a session table keyed by 16-byte flow
 * keys (nat44, lb): two-way sets of 32-bit values (a session index and
 * direction, or empty), the set chosen by two multiplications of the key's
 * halves. A value is only a hint: the caller compares the whole key with
 * the session's, so a stale value (its session forgotten or reused) is a
 * miss and nothing needs invalidating. A key found in the table takes its
 * set's first slot and the former first moves to the second.
 */
#ifndef NFV_FLOW_CACHE_H
#define NFV_FLOW_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>

#define NFV_FLOW_CACHE_EMPTY UINT32_MAX

/* The first slot of the set of key k16 (16 bytes) in a cache of 1 << bits. */
static __rte_always_inline uint32_t
nfv_flow_cache_set(const void *k16, unsigned int bits)
{
	uint64_t a, b;

	memcpy(&a, k16, 8);
	memcpy(&b, (const uint8_t *)k16 + 8, 8);
	return (uint32_t)(((a * 0x9e3779b97f4a7c15ull) ^ b) * 0xc2b2ae3d27d4eb4full >>
			  (64 - bits)) & ~1u;
}

static __rte_always_inline bool
nfv_key16_eq(const void *x, const void *y)
{
	uint64_t a0, a1, b0, b1;

	memcpy(&a0, x, 8);
	memcpy(&a1, (const uint8_t *)x + 8, 8);
	memcpy(&b0, y, 8);
	memcpy(&b1, (const uint8_t *)y + 8, 8);
	return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

/* v found in the table: first in its set. */
static __rte_always_inline void
nfv_flow_cache_put(uint32_t *set, uint32_t v)
{
	set[1] = set[0];
	set[0] = v;
}

#endif
