/* SPDX-License-Identifier: BSD-3-Clause */
/* The control side of arp_nd: frames it sends (packets.c), the table (neigh.c). */
#ifndef NFV_ARP_ND_NEIGH_H
#define NFV_ARP_ND_NEIGH_H

#include <stdint.h>

#include <jansson.h>
#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "modules/arp_nd/arp_nd.h"
#include "modules/ip/ip.h"

/* The interface's EUI-64 link-local address (fe80::/64). */
void nfv_nd_link_local(uint16_t iface, uint8_t out[16]);
/* Sends the Ethernet frame m out of iface through a worker's port_tx
 * (802.1Q tag added for a VLAN interface). Takes m. */
int nfv_arp_nd_send(uint16_t iface, struct rte_mbuf *m, unsigned int worker);
void nfv_arp_fill(struct rte_mbuf *m, uint16_t op, const uint8_t *eth_dst, const uint8_t *sha,
		  rte_be32_t sip, const uint8_t *tha, rte_be32_t tip);
/* unicast_mac NULL: broadcast (multicast to the solicited-node group). */
int nfv_arp_send_request(uint16_t iface, rte_be32_t tip, const uint8_t *unicast_mac,
			 unsigned int worker);
int nfv_nd_send_ns(uint16_t iface, const uint8_t target[16], const uint8_t *unicast_mac,
		   unsigned int worker);
#define ND_NA_ROUTER 0x80
#define ND_NA_SOLICITED 0x40
#define ND_NA_OVERRIDE 0x20
/* In m (the solicitation, rewritten in place), or a new packet (m NULL). */
int nfv_nd_send_na(struct rte_mbuf *m, uint16_t iface, const uint8_t *eth_dst,
		   const uint8_t *dst, const uint8_t *target, uint8_t flags, unsigned int worker);

#endif
