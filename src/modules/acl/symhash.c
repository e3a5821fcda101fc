/* SPDX-License-Identifier: BSD-3-Clause */
/* The symmetric Toeplitz hash's tables (see symhash.h). */
#include <stdbool.h>

#include "modules/acl/symhash.h"

uint32_t nfv_symhash_tab[2][256];

void
nfv_symrss_key(uint8_t *key, unsigned int len)
{
	for (unsigned int i = 0; i < len; i++)
		key[i] = i & 1 ? 0x5a : 0x6d;
}

void
nfv_symhash_init(void)
{
	uint8_t key[8];
	uint32_t win[16];

	nfv_symrss_key(key, sizeof(key));
	/* win[j]: the 32 key bits from bit j (bit 0: the first byte's MSB). */
	for (unsigned int j = 0; j < 16; j++) {
		uint64_t k = 0;

		for (unsigned int b = 0; b < 8; b++)
			k = k << 8 | key[b];
		win[j] = (uint32_t)(k >> (32 - j));
	}
	for (unsigned int v = 0; v < 256; v++) {
		uint32_t hi = 0, lo = 0;

		for (unsigned int bit = 0; bit < 8; bit++) {
			if (v & (0x80u >> bit)) {
				hi ^= win[bit];
				lo ^= win[8 + bit];
			}
		}
		nfv_symhash_tab[0][v] = hi;
		nfv_symhash_tab[1][v] = lo;
	}
}
