/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Next-hop objects. A route points at a next-hop id; the id indexes
 * nfv_nh_table, whose entries workers read. Gateways are shared by every
 * route through them (keyed by family, port and address) and reference
 * counted; a change (neighbor resolved, port MAC or MTU) publishes a new
 * copy and frees the old one after a grace period.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "modules/ip/ip.h"
#include "modules/ip/control/nexthop.h"
#include "core/log.h"
#include "core/worker.h"
#include "modules/infra/port.h"

struct nfv_nexthop *nfv_nh_table[NFV_NH_MAX];

struct gw_key {
	uint8_t family;
	uint8_t pad;
	uint16_t port_id;
	uint8_t addr[16];
};

static struct rte_hash *gw_hash;
static uint32_t free_ids[NFV_NH_MAX];
static uint32_t n_free;
static uint32_t n_used;
/* Shared singletons: connected (per port and family), local, blackhole. */
static uint32_t connected_nh[NFV_IFACE_MAX][2];
static uint32_t local_nh[2];
static uint32_t blackhole_nh[2];

static unsigned int
fam_idx(uint8_t family)
{
	return family == AF_INET ? 0 : 1;
}

int
nfv_nh_init(int socket_id)
{
	struct rte_hash_parameters hp = {
		.name = "nfv_gw",
		.entries = NFV_NH_MAX,
		.key_len = sizeof(struct gw_key),
		.hash_func = rte_jhash,
		.socket_id = socket_id,
	};

	gw_hash = rte_hash_create(&hp);
	if (gw_hash == NULL)
		return -ENOMEM;
	n_free = 0;
	for (uint32_t id = NFV_NH_MAX - 1; id >= 1; id--)
		free_ids[n_free++] = id;
	return 0;
}

void
nfv_nh_fini(void)
{
	for (uint32_t id = 1; id < NFV_NH_MAX; id++) {
		rte_free(nfv_nh_table[id]);
		nfv_nh_table[id] = NULL;
	}
	rte_hash_free(gw_hash);
	gw_hash = NULL;
}

uint32_t
nfv_nh_count(void)
{
	return n_used;
}

static void
gw_key_of(struct gw_key *k, const struct nfv_ip *gw, uint16_t port_id)
{
	memset(k, 0, sizeof(*k));
	k->family = gw->family;
	k->port_id = port_id;
	if (gw->family == AF_INET)
		memcpy(k->addr, &gw->v4, 4);
	else
		memcpy(k->addr, gw->v6, 16);
}

/* Fills the rewrite template from the neighbor and port. */
static void
nh_fill_l2(struct nfv_nexthop *nh)
{
	const struct nfv_iface *p = &nfv_ifaces[nh->port_id];
	uint16_t et = rte_cpu_to_be_16(nh->family == AF_INET ? RTE_ETHER_TYPE_IPV4 :
				       RTE_ETHER_TYPE_IPV6);

	memset(nh->l2, 0, sizeof(nh->l2));
	memcpy(nh->l2, nh->has_neigh ? nh->neigh_mac : nh->learned_mac, 6);
	memcpy(nh->l2 + 6, p->mac.addr_bytes, 6);
	memcpy(nh->l2 + 12, &et, 2);
	nh->mtu = p->mtu;
	nh->resolved = nh->has_neigh || nh->learned;
	if (nh->has_neigh)
		nh->notify = 0;
	nh->fwd_mtu = nh->resolved && !nh->notify ? nh->mtu : 0;
}

static uint32_t
nh_alloc(const struct nfv_nexthop *tmpl)
{
	struct nfv_nexthop *nh;
	uint32_t id;

	if (n_free == 0)
		return 0;
	nh = rte_zmalloc("nfv_nh", sizeof(*nh), RTE_CACHE_LINE_SIZE);
	if (nh == NULL)
		return 0;
	id = free_ids[--n_free];
	*nh = *tmpl;
	nh->id = id;
	nh->refcnt = 1;
	if (nh->type == NFV_NH_GATEWAY || nh->type == NFV_NH_CONNECTED)
		nh_fill_l2(nh);
	__atomic_store_n(&nfv_nh_table[id], nh, __ATOMIC_RELEASE);
	n_used++;
	return id;
}

/* Publishes a modified copy of next hop id. */
static int
nh_republish(uint32_t id, void (*modify)(struct nfv_nexthop *, const void *), const void *arg)
{
	struct nfv_nexthop *old = nfv_nh_table[id], *nh;

	nh = rte_zmalloc("nfv_nh", sizeof(*nh), RTE_CACHE_LINE_SIZE);
	if (nh == NULL)
		return -ENOMEM;
	*nh = *old;
	modify(nh, arg);
	__atomic_store_n(&nfv_nh_table[id], nh, __ATOMIC_RELEASE);
	nfv_rcu_sync();
	rte_free(old);
	return 0;
}

struct nfv_nexthop *
nfv_nh_ctl(uint32_t id)
{
	return id < NFV_NH_MAX ? nfv_nh_table[id] : NULL;
}

void
nfv_nh_ref(uint32_t id)
{
	nfv_nh_table[id]->refcnt++;
}

void
nfv_nh_put(uint32_t id)
{
	struct nfv_nexthop *nh;

	if (id == 0)
		return;
	nh = nfv_nh_table[id];
	if (--nh->refcnt > 0)
		return;
	if (nh->type == NFV_NH_GATEWAY) {
		struct gw_key k;

		gw_key_of(&k, &nh->gw, nh->port_id);
		rte_hash_del_key(gw_hash, &k);
	} else if (nh->type == NFV_NH_GROUP) {
		for (unsigned int i = 0; i < nh->n_members; i++)
			nfv_nh_put(nh->members[i]);
	} else if (nh->type == NFV_NH_CONNECTED) {
		connected_nh[nh->port_id][fam_idx(nh->family)] = 0;
	} else if (nh->type == NFV_NH_LOCAL) {
		local_nh[fam_idx(nh->family)] = 0;
	} else if (nh->type == NFV_NH_BLACKHOLE) {
		blackhole_nh[fam_idx(nh->family)] = 0;
	}
	__atomic_store_n(&nfv_nh_table[id], NULL, __ATOMIC_RELEASE);
	nfv_rcu_sync();
	rte_free(nh);
	free_ids[n_free++] = id;
	n_used--;
}

uint32_t
nfv_nh_get_gateway(const struct nfv_ip *gw, uint16_t port_id)
{
	struct nfv_nexthop tmpl;
	struct gw_key k;
	uintptr_t data;
	uint32_t id;

	gw_key_of(&k, gw, port_id);
	if (rte_hash_lookup_data(gw_hash, &k, (void **)&data) >= 0) {
		id = (uint32_t)data;
		nfv_nh_ref(id);
		return id;
	}
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.type = NFV_NH_GATEWAY;
	tmpl.family = gw->family;
	tmpl.port_id = port_id;
	tmpl.gw = *gw;
	id = nh_alloc(&tmpl);
	if (id == 0)
		return 0;
	if (rte_hash_add_key_data(gw_hash, &k, (void *)(uintptr_t)id) < 0) {
		nfv_nh_put(id);
		return 0;
	}
	return id;
}

uint32_t
nfv_nh_find_gateway(const struct nfv_ip *gw, uint16_t port_id)
{
	struct gw_key k;
	uintptr_t data;

	gw_key_of(&k, gw, port_id);
	if (rte_hash_lookup_data(gw_hash, &k, (void **)&data) >= 0)
		return (uint32_t)data;
	return 0;
}

static uint32_t
get_singleton(uint32_t *slot, enum nfv_nh_type type, uint8_t family, uint16_t port_id)
{
	struct nfv_nexthop tmpl;

	if (*slot != 0) {
		nfv_nh_ref(*slot);
		return *slot;
	}
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.type = type;
	tmpl.family = family;
	tmpl.port_id = port_id;
	*slot = nh_alloc(&tmpl);
	return *slot;
}

uint32_t
nfv_nh_get_connected(uint8_t family, uint16_t port_id)
{
	return get_singleton(&connected_nh[port_id][fam_idx(family)], NFV_NH_CONNECTED, family,
			     port_id);
}

uint32_t
nfv_nh_get_local(uint8_t family)
{
	return get_singleton(&local_nh[fam_idx(family)], NFV_NH_LOCAL, family, 0);
}

uint32_t
nfv_nh_get_blackhole(uint8_t family)
{
	return get_singleton(&blackhole_nh[fam_idx(family)], NFV_NH_BLACKHOLE, family, 0);
}

/* Takes over the references of members[]. */
uint32_t
nfv_nh_new_group(uint8_t family, const uint32_t *members, unsigned int n)
{
	struct nfv_nexthop tmpl;

	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.type = NFV_NH_GROUP;
	tmpl.family = family;
	tmpl.n_members = (uint8_t)n;
	tmpl.port_id = nfv_nh_table[members[0]]->port_id;
	memcpy(tmpl.members, members, n * sizeof(members[0]));
	return nh_alloc(&tmpl);
}

struct neigh_arg {
	bool has;
	uint8_t mac[6];
};

static void
set_neigh(struct nfv_nexthop *nh, const void *arg)
{
	const struct neigh_arg *a = arg;

	nh->has_neigh = a->has;
	memcpy(nh->neigh_mac, a->mac, 6);
	nh_fill_l2(nh);
}

int
nfv_nh_set_neigh(uint32_t id, bool has, const uint8_t mac[6])
{
	struct neigh_arg a = { .has = has };

	if (has)
		memcpy(a.mac, mac, 6);
	return nh_republish(id, set_neigh, &a);
}

struct learn_arg {
	bool has;
	bool notify;
	uint8_t mac[6];
};

static void
set_learned(struct nfv_nexthop *nh, const void *arg)
{
	const struct learn_arg *a = arg;

	nh->learned = a->has;
	nh->notify = a->has && a->notify;
	memcpy(nh->learned_mac, a->mac, 6);
	nh_fill_l2(nh);
}

int
nfv_nh_set_learned(uint32_t id, bool has, const uint8_t mac[6], bool notify)
{
	struct nfv_nexthop *nh = nfv_nh_table[id];
	struct learn_arg a = { .has = has, .notify = notify };

	if (has)
		memcpy(a.mac, mac, 6);
	if (nh->learned == a.has && (nh->notify != 0) == (a.has && a.notify) &&
	    memcmp(nh->learned_mac, a.mac, 6) == 0)
		return 0; /* nothing a worker would see changes */
	return nh_republish(id, set_learned, &a);
}

static void
refresh_l2(struct nfv_nexthop *nh, const void *arg)
{
	nh_fill_l2(nh);
}

void
nfv_nh_port_changed(uint16_t port_id)
{
	for (uint32_t id = 1; id < NFV_NH_MAX; id++) {
		struct nfv_nexthop *nh = nfv_nh_table[id];

		if (nh != NULL && nh->port_id == port_id &&
		    (nh->type == NFV_NH_GATEWAY || nh->type == NFV_NH_CONNECTED))
			nh_republish(id, refresh_l2, NULL);
	}
}

bool
nfv_nh_uses_port(uint32_t id, uint16_t port_id)
{
	const struct nfv_nexthop *nh = nfv_nh_table[id];

	if (nh == NULL)
		return false;
	switch (nh->type) {
	case NFV_NH_GATEWAY:
	case NFV_NH_CONNECTED:
		return nh->port_id == port_id;
	case NFV_NH_GROUP:
		for (unsigned int i = 0; i < nh->n_members; i++)
			if (nfv_nh_uses_port(nh->members[i], port_id))
				return true;
		return false;
	default:
		return false;
	}
}

void
nfv_nh_walk(nfv_nh_cb cb, void *arg)
{
	for (uint32_t id = 1; id < NFV_NH_MAX; id++)
		if (nfv_nh_table[id] != NULL)
			cb(nfv_nh_table[id], arg);
}
