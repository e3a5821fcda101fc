/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VXLAN tunnels (RFC 7348): "vxlan add NAME vni N local IP [remote IP]...
 * [dstport 4789]". A VXLAN interface is a bridge port: what reaches nfvd's
 * address `local` on UDP `dstport` with its VNI is decapsulated and
 * bridged as received on the interface; frames the bridge sends out of it
 * are encapsulated to the remote VTEP the bridge learned for their
 * destination, or to every `remote` (head-end replication) when flooded,
 * and routed through the FIB of the interface's VRF.
 */
#ifndef NFV_VXLAN_H
#define NFV_VXLAN_H

#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_config.h>

#include "core/common.h"
#include "core/counters.h"

#define NFV_VXLAN_PORT 4789
#define NFV_VXLAN_MAX 64
#define NFV_VXLAN_REMOTES_MAX 16
#define NFV_VXLAN_MTU 1450
/* Outer Ethernet, IPv4, UDP and VXLAN headers. */
#define NFV_VXLAN_ENCAP_LEN (14 + 20 + 8 + 8)

struct nfv_vxlan {
	uint16_t iface;
	uint16_t dstport;             /* host order */
	uint32_t vni;
	rte_be32_t local;
	uint16_t n_remotes;
	rte_be32_t remotes[NFV_VXLAN_REMOTES_MAX];
};

/* By interface id; NULL: not a VXLAN interface. Immutable once published. */
extern struct nfv_vxlan *nfv_vxlans[NFV_IFACE_MAX];

/* What vxlan_input matches a datagram on: iface 0 is a free slot. */
struct nfv_vxlan_key {
	uint16_t iface;
	rte_be16_t dstport;
	rte_be32_t local;
	rte_be32_t vni;               /* as in the header: VNI << 8, network order */
};
extern struct nfv_vxlan_key nfv_vxlan_keys[NFV_VXLAN_MAX];
extern uint16_t nfv_vxlan_n_keys;   /* slots in use are below */

struct nfv_vxlan_counters {
	uint64_t rx_packets[NFV_IFACE_MAX];
	uint64_t rx_bytes[NFV_IFACE_MAX];
	uint64_t tx_packets[NFV_IFACE_MAX];
	uint64_t tx_bytes[NFV_IFACE_MAX];
};
extern struct nfv_counter_block nfv_vxlan_counters_block;

static inline struct nfv_vxlan_counters *
nfv_vxlan_counters(struct nfv_worker *w)
{
	return nfv_worker_counters(w, &nfv_vxlan_counters_block);
}

struct nfv_vxlan_conf {
	uint32_t vni;
	rte_be32_t local;
	uint16_t dstport;
	uint16_t n_remotes;
	rte_be32_t remotes[NFV_VXLAN_REMOTES_MAX];
};

int nfv_vxlan_add(const char *name, const struct nfv_vxlan_conf *c, char *err);
int nfv_vxlan_del(const char *name, char *err);
json_t *nfv_vxlan_show(const char *name, char *err);

#endif
