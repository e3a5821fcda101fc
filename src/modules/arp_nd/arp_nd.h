/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP (RFC 826) and IPv6 neighbor discovery (RFC 4861): what the arp_nd
 * nodes and control files share.
 *
 * The workers punt ARP frames, ND messages (and echo requests to the
 * interfaces' link-local addresses) and packets whose next hop has no
 * neighbor to the control thread (the punt module: policed per queue).
 * The control thread keeps the neighbor table and its state machine,
 * answers, solicits, and publishes what it learns as the MAC of the
 * gateway next hop (nfv_neigh_learn), then sends the held packets back
 * through ipX_lookup.
 */
#ifndef NFV_ARP_ND_H
#define NFV_ARP_ND_H

#include <stdint.h>

#include "core/drop_reasons.h"
#include "core/meta.h"
#include "modules/punt/punt.h"

/* The neighbor a held packet waits for (neigh_hold writes it). */
struct nfv_neigh_hold_meta {
	uint8_t addr[16]; /* IPv4 in the first 4 bytes */
	uint16_t iface;
	uint8_t family;
	uint8_t connected; /* the destination itself (no gateway): needs the host route */
};
extern struct nfv_mbuf_priv_slice nfv_neigh_hold_slice;

static inline struct nfv_neigh_hold_meta *
nfv_neigh_hold_meta(struct rte_mbuf *m)
{
	return nfv_mbuf_priv(m, &nfv_neigh_hold_slice);
}

/* Asks for the neighbor ip on iface unless it is known (control thread):
 * for a module that will send to it without a packet to hold first (the
 * load balancer's direct-return backends). 0 (known, or asked), -ENODEV,
 * -ENOSPC (table full), -EADDRNOTAVAIL (no address on iface to ask from). */
struct nfv_ip;
int nfv_neigh_resolve(const struct nfv_ip *ip, uint16_t iface);

/* Punt queues. */
extern struct nfv_punt_queue nfv_arp_queue;   /* ARP frames */
extern struct nfv_punt_queue nfv_nd_queue;    /* ND messages, link-local echo requests */
extern struct nfv_punt_queue nfv_hold_queue;  /* packets waiting for a neighbor */

/* A drop reason the control side also gives packets (it injects them to
 * the drop node, or to the ICMP error nodes): a global, not a static. */
#define NFV_ARP_ND_DROP_REASON(var, node_, name_, help_) \
	struct nfv_drop_reason var = { .node = node_, .name = name_, .help = help_ }; \
	RTE_INIT(nfv_drop_reason_register_##var) \
	{ \
		nfv_drop_reason_register(&var); \
	}

/* Drop reasons the control side gives packets (injected to the drop node
 * or the ICMP error nodes). */
extern struct nfv_drop_reason drop_arp_not_ours;
extern struct nfv_drop_reason drop_arp_reply_received;
extern struct nfv_drop_reason drop_nd_not_ours;
extern struct nfv_drop_reason drop_nd_advert_received;
extern struct nfv_drop_reason drop_nd_bad;
extern struct nfv_drop_reason drop_neigh_hold_overflow;
extern struct nfv_drop_reason drop_neigh_resolution_failed;
extern struct nfv_drop_reason drop_neigh_table_full;
extern struct nfv_drop_reason drop_neigh_no_source;
extern struct nfv_drop_reason drop_neigh_removed;

#endif
