/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VLAN sub-interfaces (802.1Q): "vlan add NAME dev PORT id N". A tagged
 * frame received on PORT with VLAN id N is the sub-interface's (its tag
 * removed); a packet routed out of the sub-interface leaves PORT tagged N.
 * The sub-interface has the port's MAC and MTU, its own addresses,
 * neighbors, routes, admin state and counters.
 */
#ifndef NFV_VLAN_H
#define NFV_VLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_config.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "core/common.h"
#include "core/counters.h"

/* VLAN interfaces have ids from RTE_MAX_ETHPORTS up: 0 is never one. */
#define NFV_VLAN_NONE 0

/* Interface id of (port, VLAN id), NFV_VLAN_NONE if none; workers read it. */
extern uint16_t nfv_vlan_iface[RTE_MAX_ETHPORTS][4096];

/* Features on a sub-interface's frames before eth_input, keyed by it
 * (started by vlan_input, ends at eth_input): a bridge port's frames go
 * to bridge_input. */
struct nfv_arc;
extern struct nfv_arc nfv_vlan_l2_input_arc;

struct nfv_vlan_counters {
	uint64_t rx_packets[NFV_IFACE_MAX];
	uint64_t rx_bytes[NFV_IFACE_MAX];
	uint64_t tx_packets[NFV_IFACE_MAX];
	uint64_t tx_bytes[NFV_IFACE_MAX];
};
extern struct nfv_counter_block nfv_vlan_counters_block;

static inline struct nfv_vlan_counters *
nfv_vlan_counters(struct nfv_worker *w)
{
	return nfv_worker_counters(w, &nfv_vlan_counters_block);
}

/* Inserts an 802.1Q tag of VLAN vlan_id (TPID 0x8100, priority 0) behind
 * the frame's MAC addresses, in its headroom; false when there is no room. */
static inline bool
nfv_vlan_tag_insert(struct rte_mbuf *m, uint16_t vlan_id)
{
	uint8_t *eth = (uint8_t *)rte_pktmbuf_prepend(m, sizeof(struct rte_vlan_hdr));
	rte_be16_t tag[2];

	if (unlikely(eth == NULL))
		return false;
	memmove(eth, eth + sizeof(struct rte_vlan_hdr), 2 * RTE_ETHER_ADDR_LEN);
	tag[0] = RTE_BE16(RTE_ETHER_TYPE_VLAN);
	tag[1] = rte_cpu_to_be_16(vlan_id);
	memcpy(eth + 2 * RTE_ETHER_ADDR_LEN, tag, sizeof(tag));
	return true;
}

/*
 * The sub-interface whose frame m is, as it leaves port (or as port
 * received it, tag and all): the interface of its 802.1Q tag's VLAN id
 * on that port; NFV_VLAN_NONE when it has no tag or no sub-interface has
 * its VLAN id (VID 0, a priority tag, never has one). For the observers of
 * a sub-interface's frames on its port (mirror, capture).
 */
static inline uint16_t
nfv_vlan_iface_of_frame(const struct rte_mbuf *m, uint16_t port)
{
	rte_be16_t tag[2];

	if (port >= RTE_MAX_ETHPORTS ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr))
		return NFV_VLAN_NONE;
	memcpy(tag, rte_pktmbuf_mtod_offset(m, const uint8_t *, 2 * RTE_ETHER_ADDR_LEN),
	       sizeof(tag));
	if (tag[0] != RTE_BE16(RTE_ETHER_TYPE_VLAN))
		return NFV_VLAN_NONE;
	return __atomic_load_n(&nfv_vlan_iface[port][rte_be_to_cpu_16(tag[1]) & 0x0fff],
			       __ATOMIC_RELAXED);
}

/* Removes the outer 802.1Q tag of m, a frame of its own (a copy): the
 * MAC addresses move up over it. m has the tag in its first segment
 * (nfv_vlan_iface_of_frame said so of the frame it is a copy of). */
static inline void
nfv_vlan_untag(struct rte_mbuf *m)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);

	memmove(eth + sizeof(struct rte_vlan_hdr), eth, 2 * RTE_ETHER_ADDR_LEN);
	rte_pktmbuf_adj(m, sizeof(struct rte_vlan_hdr));
}

int nfv_vlan_add(const char *name, const char *parent, uint32_t vlan_id, char *err);
int nfv_vlan_del(const char *name, char *err);

#endif
