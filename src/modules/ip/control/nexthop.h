/* SPDX-License-Identifier: BSD-3-Clause */
/* Control-side next-hop API; every get takes a reference, put drops one. */
#ifndef NFV_NEXTHOP_H
#define NFV_NEXTHOP_H

#include "modules/ip/ip.h"

int nfv_nh_init(int socket_id);
void nfv_nh_fini(void);
uint32_t nfv_nh_get_gateway(const struct nfv_ip *gw, uint16_t port_id);
uint32_t nfv_nh_find_gateway(const struct nfv_ip *gw, uint16_t port_id); /* no reference */
uint32_t nfv_nh_get_connected(uint8_t family, uint16_t port_id);
uint32_t nfv_nh_get_local(uint8_t family);
uint32_t nfv_nh_get_blackhole(uint8_t family);
uint32_t nfv_nh_new_group(uint8_t family, const uint32_t *members, unsigned int n);
void nfv_nh_ref(uint32_t id);
void nfv_nh_put(uint32_t id);
struct nfv_nexthop *nfv_nh_ctl(uint32_t id);
int nfv_nh_set_neigh(uint32_t id, bool has, const uint8_t mac[6]);
int nfv_nh_set_learned(uint32_t id, bool has, const uint8_t mac[6], bool notify);
void nfv_nh_port_changed(uint16_t port_id);
bool nfv_nh_uses_port(uint32_t id, uint16_t port_id);

/* control/hooks.c */
int nfv_nh_use_init(int socket_id);
void nfv_nh_use_fini(void);
void nfv_neigh_rows(json_t *rows, int dev, int vrf);

#endif
