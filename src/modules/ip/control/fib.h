/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef NFV_FIB_H
#define NFV_FIB_H

#include "modules/ip/ip.h"

/* nh_id 0 deletes the prefix. old_nh_id is what to restore on failure. */
struct nfv_fib_op {
	struct nfv_prefix prefix;
	uint32_t nh_id;
	uint32_t old_nh_id;
};

int nfv_fib_init(const struct nfv_limits *l, int socket_id);
void nfv_fib_fini(void);
/* Tables of a new VRF (small, RIB-based), and their removal (after a grace
 * period, so no worker reads them any more). */
int nfv_fib_vrf_create(uint16_t vrf);
void nfv_fib_vrf_destroy(uint16_t vrf);
/* All ops of one batch belong to one family and VRF; the route database already
 * holds the new state. All or nothing. */
int nfv_fib_apply_batch(const struct nfv_fib_op *ops, unsigned int n);
int nfv_fib_apply(const struct nfv_prefix *p, uint32_t nh_id, uint32_t old_nh_id);
/* What the default VRF's tbl8 groups may grow to when a batch finds none
 * left (they start scaled to the table's size). */
void nfv_fib_tbl8_max(uint32_t tbl8_4, uint32_t tbl8_6);
/* Resizes the default VRF's pair of a family (routes, tbl8 groups): 0, or
 * -errno with nothing changed. */
int nfv_fib_grow(uint8_t family, uint32_t routes, uint32_t tbl8);
/* Brings the standby table back in step with the route database. */
int nfv_fib_resync_standby(uint8_t family, uint16_t vrf);
/* The trie of a new, empty rte_fib6 TRIE table made with num_tbl8 groups,
 * for the inline read (modules/ip/fib6_trie.h), or NULL when its layout is
 * not the one that read expects (then the table may have lost capacity:
 * make a fresh one). Leaves the table empty. */
struct nfv_trie6;
const struct nfv_trie6 *nfv_fib6_trie_check(struct rte_fib6 *fib, uint32_t num_tbl8);

#endif
