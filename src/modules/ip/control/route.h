/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef NFV_ROUTE_H
#define NFV_ROUTE_H

#include "modules/ip/ip.h"

int nfv_route_db_init(const struct nfv_limits *l, int socket_id);
void nfv_route_db_fini(void);
int nfv_route_set(const struct nfv_prefix *p, enum nfv_route_source src, uint32_t nh, char *err);
int nfv_route_set_static_bulk(const struct nfv_prefix *ps, const uint32_t *nhs, unsigned int n,
			      char *err);
/* Sets (nhs[i] != 0, references consumed) or clears source src of many
 * prefixes of one family and VRF with one FIB update; see
 * nfv_route_source_apply. */
int nfv_route_set_many(const struct nfv_prefix *ps, const uint32_t *nhs, const uint8_t *protos,
		       unsigned int n, enum nfv_route_source src, unsigned int *n_failed,
		       char *err);
uint32_t nfv_route_source_nh(const struct nfv_prefix *p, enum nfv_route_source src);
bool nfv_route_has_room(uint8_t family, uint16_t vrf, uint32_t n_new);
void nfv_route_count_new(const struct nfv_prefix *ps, unsigned int n, uint32_t *n_new);
int nfv_route_count_new_unique(const struct nfv_prefix *ps, unsigned int n, uint32_t *n_new);
uint32_t nfv_route_max(uint8_t family, uint16_t vrf);
/* Room for n_new more routes, growing the default VRF's tables up to their
 * max when they are full (never in the middle of a batch: before it). */
bool nfv_route_reserve(uint8_t family, uint16_t vrf, uint32_t n_new);
/* The default VRF's tables' size now. */
uint32_t nfv_route_capacity(uint8_t family);
/* The sizes the FIBs start with (nfv_route_db_init first). */
void nfv_route_db_start_limits(struct nfv_limits *fib);
unsigned int nfv_route_flush_port(uint16_t port_id);
unsigned int nfv_route_flush_vrf(uint16_t vrf);

#endif
