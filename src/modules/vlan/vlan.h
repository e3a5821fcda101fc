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

#include <stdint.h>

#include <rte_config.h>

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

int nfv_vlan_add(const char *name, const char *parent, uint32_t vlan_id, char *err);
int nfv_vlan_del(const char *name, char *err);

#endif
