/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Maglev consistent hashing (Eisenbud et al., NSDI 2016, section 3.4),
 * weighted: each backend fills the lookup table's entries in the order of
 * its own permutation (offset + j * skip, modulo the table's prime size),
 * taking turns in proportion to its weight. A backend added or removed
 * moves few of the other backends' entries, so few existing flows would be
 * scheduled elsewhere. Pure functions: no DPDK state.
 */
#ifndef NFV_MAGLEV_H
#define NFV_MAGLEV_H

#include <stdint.h>

#define NFV_MAGLEV_SIZE 65537u /* a prime; at least 100x the backends of a service */
#define NFV_MAGLEV_NONE 0xff   /* an entry of a table whose backends all weigh 0 */

struct nfv_maglev_backend {
	uint32_t addr;   /* what names it (network order), hashed for its permutation */
	uint16_t port;
	uint16_t weight; /* 0: takes no entry (being drained, or deleted) */
};

/* Fills table[size] with backend indexes (< n, at most 255 backends), or
 * NFV_MAGLEV_NONE everywhere when no backend has a weight. */
void nfv_maglev_build(const struct nfv_maglev_backend *be, unsigned int n, uint8_t *table,
		      uint32_t size);

#endif
