/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interface table. Ports take the ids of their DPDK ports; other kinds
 * take ids from RTE_MAX_ETHPORTS up. Names are unique across kinds.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_debug.h>
#include <rte_ethdev.h>

#include "core/iface_event.h"
#include "core/worker.h"
#include "modules/infra/iface.h"

struct nfv_iface nfv_ifaces[NFV_IFACE_MAX];
uint64_t nfv_iface_mac_key[NFV_IFACE_MAX];


struct nfv_iface *
nfv_iface_by_name(const char *name)
{
	for (unsigned int i = 0; i < NFV_IFACE_MAX; i++)
		if (nfv_ifaces[i].used && strcmp(nfv_ifaces[i].name, name) == 0)
			return &nfv_ifaces[i];
	return NULL;
}

int
nfv_iface_alloc_id(void)
{
	for (unsigned int i = RTE_MAX_ETHPORTS; i < NFV_IFACE_MAX; i++)
		if (!nfv_ifaces[i].used)
			return (int)i;
	return -ENOSPC;
}

void
nfv_iface_publish(const struct nfv_iface *ifc)
{
	uint64_t key = 0;

	nfv_ifaces[ifc->id] = *ifc;
	nfv_ifaces[ifc->id].used = true;
	memcpy(&key, ifc->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	__atomic_store_n(&nfv_iface_mac_key[ifc->id], key, __ATOMIC_RELEASE);
	nfv_iface_event_notify(NFV_IFACE_ADDED, ifc->id);
}

void
nfv_iface_remove(uint16_t id)
{
	/* The MAC key stays: packets received before the interface went are
	 * still in flight (the next interface with this id sets its own). */
	nfv_iface_event_notify(NFV_IFACE_REMOVED, id);
	memset(&nfv_ifaces[id], 0, sizeof(nfv_ifaces[id]));
}

void
nfv_iface_set_admin(uint16_t id, bool up)
{
	if (nfv_ifaces[id].admin_up == up)
		return;
	__atomic_store_n(&nfv_ifaces[id].admin_up, up, __ATOMIC_RELEASE);
	nfv_iface_event_notify(up ? NFV_IFACE_UP : NFV_IFACE_DOWN, id);
}

void
nfv_iface_set_mtu(uint16_t id, uint16_t mtu)
{
	if (nfv_ifaces[id].mtu == mtu)
		return;
	__atomic_store_n(&nfv_ifaces[id].mtu, mtu, __ATOMIC_RELEASE);
	nfv_iface_event_notify(NFV_IFACE_CHANGED, id);
}

void
nfv_iface_set_vrf(uint16_t id, uint16_t vrf)
{
	__atomic_store_n(&nfv_ifaces[id].vrf, vrf, __ATOMIC_RELEASE);
	nfv_rcu_sync();
	nfv_iface_event_notify(NFV_IFACE_VRF, id);
}

#define NFV_IFACE_ATTR_MAX 16
static struct {
	const char *key;
	nfv_iface_attr_fn fn;
} attrs[NFV_IFACE_ATTR_MAX];
static unsigned int n_attrs;
static char attr_keys[256];

void
nfv_iface_attr_register(const char *key, nfv_iface_attr_fn fn)
{
	size_t len = strlen(attr_keys);

	if (n_attrs == NFV_IFACE_ATTR_MAX)
		rte_panic("too many interface attributes (%s)\n", key);
	attrs[n_attrs].key = key;
	attrs[n_attrs++].fn = fn;
	snprintf(attr_keys + len, sizeof(attr_keys) - len, "%s%s", len ? "|" : "", key);
}

bool
nfv_iface_attr_known(const char *key)
{
	for (unsigned int i = 0; i < n_attrs; i++)
		if (strcmp(attrs[i].key, key) == 0)
			return true;
	return false;
}

int
nfv_iface_attr_set(uint16_t iface, const char *key, const char *value, char *err)
{
	for (unsigned int i = 0; i < n_attrs; i++)
		if (strcmp(attrs[i].key, key) == 0)
			return attrs[i].fn(iface, value, err);
	return -ENOENT;
}

const char *
nfv_iface_attr_keys(void)
{
	return attr_keys;
}
