/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include <rte_malloc.h>

#include "core/slots.h"

int
nfv_slots_init(struct nfv_slots *s, uint32_t capacity, int socket)
{
	s->free_list = rte_malloc_socket("nfv_slots", capacity * sizeof(uint32_t), 0, socket);
	if (s->free_list == NULL)
		return -ENOMEM;
	s->capacity = capacity;
	s->sweep = 0;
	nfv_slots_reset(s);
	return 0;
}

void
nfv_slots_fini(struct nfv_slots *s)
{
	rte_free(s->free_list);
	s->free_list = NULL;
	s->capacity = 0;
}

void
nfv_slots_reset(struct nfv_slots *s)
{
	/* Lowest index on top: entries are handed out in order. */
	for (uint32_t i = 0; i < s->capacity; i++)
		s->free_list[i] = s->capacity - 1 - i;
	s->n_free = s->capacity;
	s->count = 0;
}

uint32_t
nfv_slots_sweep(struct nfv_slots *s, uint32_t n, uint64_t now, nfv_slots_expire_fn expire,
		void *table)
{
	uint32_t forgot = 0;

	for (uint32_t k = 0; k < n && s->count > 0; k++) {
		uint32_t i = s->sweep;

		s->sweep = i + 1 == s->capacity ? 0 : i + 1;
		forgot += expire(table, i, now);
	}
	return forgot;
}
