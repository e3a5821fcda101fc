/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Slots: the bookkeeping of a table of fixed entries that one worker owns
 * and forgets lazily (connection tracking, NAT sessions): a stack of free
 * entry indexes, the count in use, a sweep cursor that visits a few entries
 * per burst, and the generation of the last flush seen. The entries
 * themselves (and their keys) are the module's; it says through a callback
 * whether an entry has expired (and forgets it). Written by its worker
 * only; no lock, no atomic.
 */
#ifndef NFV_SLOTS_H
#define NFV_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

struct nfv_slots {
	uint32_t *free_list;
	uint32_t capacity;
	uint32_t n_free;
	uint32_t count;  /* entries in use */
	uint32_t sweep;  /* the next entry the sweep looks at */
	uint32_t gen;    /* the flush generation the table was last cleared for */
};

/* A free list for capacity entries on socket; 0 or -ENOMEM. All free. */
int nfv_slots_init(struct nfv_slots *s, uint32_t capacity, int socket);
void nfv_slots_fini(struct nfv_slots *s);
/* Every entry free (the module clears its entries and keys). */
void nfv_slots_reset(struct nfv_slots *s);

/* A free entry's index (counted in use), or UINT32_MAX when none is. */
static inline uint32_t
nfv_slots_take(struct nfv_slots *s)
{
	if (s->n_free == 0)
		return UINT32_MAX;
	s->count++;
	return s->free_list[--s->n_free];
}

/* Gives entry idx back. */
static inline void
nfv_slots_put(struct nfv_slots *s, uint32_t idx)
{
	s->free_list[s->n_free++] = idx;
	s->count--;
}

/* Forgets entry idx (and puts it back) when it has expired at now; returns
 * whether it did. */
typedef bool (*nfv_slots_expire_fn)(void *table, uint32_t idx, uint64_t now);

/* Looks at the next n entries (fewer when the table empties), forgetting
 * the expired ones; returns how many it forgot. */
uint32_t nfv_slots_sweep(struct nfv_slots *s, uint32_t n, uint64_t now,
			 nfv_slots_expire_fn expire, void *table);

/* True (once) when the flush generation moved past the table's: the
 * module then clears its entries if it has any. */
static inline bool
nfv_slots_flushed(struct nfv_slots *s, uint32_t gen)
{
	if (likely(s->gen == gen))
		return false;
	s->gen = gen;
	return true;
}

#endif
