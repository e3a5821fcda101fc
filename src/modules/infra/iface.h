/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interfaces: every object a packet can arrive on or leave by, with a name,
 * an id, a MAC, an MTU, an admin state and a VRF. A port is one (its id is
 * its DPDK port id); a VLAN sub-interface is one on top of a port; so are
 * bridges and VXLAN tunnels. "dev NAME" in any command resolves any of them.
 * The module that creates an interface announces it (core/iface_event.h).
 * Workers read nfv_ifaces[] fields marked so; control writes them.
 */
#ifndef NFV_IFACE_H
#define NFV_IFACE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "core/common.h"

#define NFV_IFACE_NAME_LEN 32

enum nfv_iface_kind {
	NFV_IFACE_KIND_PORT,
	NFV_IFACE_KIND_VLAN,
	NFV_IFACE_KIND_BRIDGE,
	NFV_IFACE_KIND_VXLAN,
};

struct nfv_iface {
	bool used;
	bool admin_up;
	uint8_t kind;             /* enum nfv_iface_kind */
	uint16_t id;
	uint16_t parent;          /* VLAN: the port it is on */
	uint16_t vlan_id;         /* VLAN: 1-4094 */
	uint16_t mtu;             /* L3 MTU */
	uint16_t vrf;             /* 0: the default VRF */
	struct rte_ether_addr mac;
	char name[NFV_IFACE_NAME_LEN];
};

extern struct nfv_iface nfv_ifaces[NFV_IFACE_MAX];
/* Each interface's MAC as its 6 bytes in an 8-byte word (the last 2 zero),
 * for eth_input's one-compare check against an 8-byte load of a frame. */
extern uint64_t nfv_iface_mac_key[NFV_IFACE_MAX];

struct nfv_iface *nfv_iface_by_name(const char *name);
static inline const char *
nfv_iface_name_of(uint16_t id)
{
	return id < NFV_IFACE_MAX && nfv_ifaces[id].used ? nfv_ifaces[id].name : "?";
}

/* For the modules that create interfaces: a free id at or above
 * RTE_MAX_ETHPORTS (ports use their own), or -ENOSPC. */
int nfv_iface_alloc_id(void);
/* Publishes an interface (its MAC key too) and announces it added. */
void nfv_iface_publish(const struct nfv_iface *ifc);
/* Admin state of an interface that is not a port (ports: nfv_port_set_admin). */
void nfv_iface_set_admin(uint16_t id, bool up);
/* The L3 MTU of an interface that is not a port (a bridge's follows its
 * members'): announced as changed, so next hops and twins follow. */
void nfv_iface_set_mtu(uint16_t id, uint16_t mtu);
/* Announces it removed and frees its id. */
void nfv_iface_remove(uint16_t id);
/* Moves an interface to VRF vrf: workers see the new VRF of its packets
 * once this returns (a grace period has passed). For the module that keeps
 * VRFs, from its "vrf" attribute handler. */
void nfv_iface_set_vrf(uint16_t id, uint16_t vrf);

/*
 * Interface attributes other modules own: "port set NAME KEY VALUE" calls
 * the handler registered for KEY (the ip module's "vrf"). The handler
 * returns 0 or a negative errno with err (NFV_ERR_LEN) naming the bad input.
 */
typedef int (*nfv_iface_attr_fn)(uint16_t iface, const char *value, char *err);
void nfv_iface_attr_register(const char *key, nfv_iface_attr_fn fn);
bool nfv_iface_attr_known(const char *key);
/* -ENOENT when no module handles key. */
int nfv_iface_attr_set(uint16_t iface, const char *key, const char *value, char *err);
/* The registered keys, "|"-separated, for usage lines. */
const char *nfv_iface_attr_keys(void);

#endif
