/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_hash_crc.h>

#include "modules/lb/maglev.h"

/* Two independent hashes of a backend's name (address and port). */
static uint32_t
be_hash(const struct nfv_maglev_backend *b, uint32_t seed)
{
	uint64_t v = (uint64_t)b->addr << 16 | b->port;

	return rte_hash_crc_8byte(v, seed);
}

void
nfv_maglev_build(const struct nfv_maglev_backend *be, unsigned int n, uint8_t *table,
		 uint32_t size)
{
	uint32_t offset[256], skip[256], next[256], credit[256];
	uint32_t filled = 0, max_w = 0;

	memset(table, NFV_MAGLEV_NONE, size);
	if (n > 255)
		n = 255;
	for (unsigned int i = 0; i < n; i++) {
		offset[i] = be_hash(&be[i], 0x5bd1e995) % size;
		skip[i] = be_hash(&be[i], 0x1b873593) % (size - 1) + 1;
		next[i] = 0;
		credit[i] = 0;
		max_w = RTE_MAX(max_w, (uint32_t)be[i].weight);
	}
	if (max_w == 0)
		return;
	/*
	 * Rounds: each backend earns its weight in credit and takes one entry
	 * per max_w of credit, so the heaviest takes one a round and a backend
	 * of half its weight one every other round. An entry already taken
	 * makes the backend try the next one of its permutation.
	 */
	for (;;) {
		for (unsigned int i = 0; i < n; i++) {
			if (be[i].weight == 0)
				continue;
			credit[i] += be[i].weight;
			if (credit[i] < max_w)
				continue;
			credit[i] -= max_w;
			for (;;) {
				uint32_t c = (uint32_t)(((uint64_t)offset[i] +
							 (uint64_t)next[i] * skip[i]) % size);

				next[i]++;
				if (table[c] == NFV_MAGLEV_NONE) {
					table[c] = (uint8_t)i;
					break;
				}
			}
			if (++filled == size)
				return;
		}
	}
}
