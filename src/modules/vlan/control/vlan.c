/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VLAN table: (port, VLAN id) -> sub-interface, read by vlan_input.
 * A sub-interface is an interface (infra's table) on top of a port; it
 * goes when its port goes. Its packets leave through the vlan_output
 * feature, enabled on the IPv4 and IPv6 egress arcs of every
 * sub-interface.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <rte_ethdev.h>

#include "core/arc.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "modules/infra/iface.h"
#include "modules/vlan/vlan.h"

uint16_t nfv_vlan_iface[RTE_MAX_ETHPORTS][4096];
NFV_COUNTER_BLOCK(nfv_vlan_counters_block, "vlan", struct nfv_vlan_counters);

/*
 * The counters (since start) of each VLAN interface's id when it was
 * created: an id "vlan del" frees is the next VLAN's, which starts from
 * zero, as a port does. Like "stats reset", a baseline the views subtract;
 * the workers' counters are never written back.
 */
static struct nfv_vlan_counters created;

static void
vlan_counters_since_start(struct nfv_vlan_counters *c)
{
	bool was = nfv_stats_since_start(true);

	nfv_counters_sum(&nfv_vlan_counters_block, c);
	nfv_stats_since_start(was);
}

/* A VLAN interface's count since the last "stats reset" or since it was
 * created, whichever came last: the smaller. */
static json_int_t
vlan_count(const uint64_t *since_reset, const uint64_t *since_start, const uint64_t *at_creation,
	   unsigned int id)
{
	return (json_int_t)RTE_MIN(since_reset[id], since_start[id] - at_creation[id]);
}

static const char *const output_features[][2] = {
	{ "ip4_egress", "nfv_vlan_output4" },
	{ "ip6_egress", "nfv_vlan_output6" },
};

int
nfv_vlan_add(const char *name, const char *parent, uint32_t vlan_id, char *err)
{
	struct nfv_iface *p = nfv_iface_by_name(parent), ifc;
	struct nfv_vlan_counters *c;
	int id;

	if (nfv_iface_by_name(name) != NULL) {
		snprintf(err, NFV_ERR_LEN, "interface %s already exists", name);
		return -EEXIST;
	}
	if (p == NULL) {
		snprintf(err, NFV_ERR_LEN, "unknown interface '%s'", parent);
		return -ENOENT;
	}
	if (p->kind != NFV_IFACE_KIND_PORT) {
		snprintf(err, NFV_ERR_LEN, "%s is not a port: VLANs are on ports only", parent);
		return -EINVAL;
	}
	if (nfv_vlan_iface[p->id][vlan_id] != NFV_VLAN_NONE) {
		snprintf(err, NFV_ERR_LEN, "port %s already has VLAN %u: %s", parent, vlan_id,
			 nfv_iface_name_of(nfv_vlan_iface[p->id][vlan_id]));
		return -EEXIST;
	}
	id = nfv_iface_alloc_id();
	if (id < 0) {
		snprintf(err, NFV_ERR_LEN, "no interface id left (at most %u interfaces)",
			 NFV_IFACE_MAX);
		return id;
	}
	/* The id counts nothing until the interface exists (frames map to it
	 * last, routes come after). */
	c = malloc(sizeof(*c));
	if (c == NULL) {
		snprintf(err, NFV_ERR_LEN, "out of memory");
		return -ENOMEM;
	}
	vlan_counters_since_start(c);
	created.rx_packets[id] = c->rx_packets[id];
	created.rx_bytes[id] = c->rx_bytes[id];
	created.tx_packets[id] = c->tx_packets[id];
	created.tx_bytes[id] = c->tx_bytes[id];
	free(c);
	memset(&ifc, 0, sizeof(ifc));
	ifc.kind = NFV_IFACE_KIND_VLAN;
	ifc.id = (uint16_t)id;
	ifc.parent = p->id;
	ifc.vlan_id = (uint16_t)vlan_id;
	ifc.mtu = p->mtu;
	ifc.mac = p->mac;
	ifc.admin_up = true;
	ifc.vrf = p->vrf;
	snprintf(ifc.name, sizeof(ifc.name), "%s", name);
	nfv_iface_publish(&ifc);
	for (unsigned int i = 0; i < RTE_DIM(output_features); i++)
		if (nfv_arc_feature_set(output_features[i][0], output_features[i][1],
					(uint16_t)id, true, err) < 0) {
			nfv_iface_remove((uint16_t)id);
			return -EINVAL;
		}
	/* Last: from here on tagged frames reach the interface. */
	__atomic_store_n(&nfv_vlan_iface[p->id][vlan_id], (uint16_t)id, __ATOMIC_RELEASE);
	NFV_LOG(INFO, "vlan %s: port %s VLAN %u (interface %d)", name, parent, vlan_id, id);
	return 0;
}

static void
vlan_remove(uint16_t id)
{
	const struct nfv_iface *v = &nfv_ifaces[id];

	/* No frame maps to it any more, then it goes (its routes, addresses
	 * and neighbors with it, through the interface event). */
	__atomic_store_n(&nfv_vlan_iface[v->parent][v->vlan_id], NFV_VLAN_NONE,
			 __ATOMIC_RELEASE);
	NFV_LOG(INFO, "vlan %s removed", v->name);
	nfv_iface_remove(id);
}

int
nfv_vlan_del(const char *name, char *err)
{
	struct nfv_iface *v = nfv_iface_by_name(name);

	if (v == NULL || v->kind != NFV_IFACE_KIND_VLAN) {
		snprintf(err, NFV_ERR_LEN, "no VLAN interface named %s", name);
		return -ENOENT;
	}
	vlan_remove(v->id);
	return 0;
}

/* A port that goes takes its VLANs with it. */
static void
vlan_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	if (ev != NFV_IFACE_REMOVED || nfv_ifaces[iface].kind != NFV_IFACE_KIND_PORT ||
	    iface >= RTE_MAX_ETHPORTS)
		return;
	for (unsigned int vid = 0; vid < 4096; vid++)
		if (nfv_vlan_iface[iface][vid] != NFV_VLAN_NONE)
			vlan_remove(nfv_vlan_iface[iface][vid]);
}
NFV_IFACE_EVENT_HANDLER(vlan_iface_event);

/* "port show" rows of the VLAN interfaces, with their own counters. */
static void
vlan_rows(void *rows, const char *name)
{
	struct nfv_vlan_counters *c = NULL, *s = NULL;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	for (unsigned int id = RTE_MAX_ETHPORTS; id < NFV_IFACE_MAX; id++) {
		const struct nfv_iface *v = &nfv_ifaces[id];

		if (!v->used || v->kind != NFV_IFACE_KIND_VLAN ||
		    (name != NULL && strcmp(name, v->name) != 0))
			continue;
		if (c == NULL) {
			c = malloc(2 * sizeof(*c));
			if (c == NULL)
				return;
			s = c + 1;
			nfv_counters_sum(&nfv_vlan_counters_block, c);
			vlan_counters_since_start(s);
		}
		nfv_format_mac(mac, sizeof(mac), &v->mac);
		json_array_append_new(rows, json_pack(
			"{s:s, s:s, s:s, s:s, s:i, s:s, s:b, s:i, s:I, s:I, s:I, s:I, s:I, s:I, "
			"s:I, s:I}",
			"name", v->name, "kind", "vlan", "vrf", nfv_iface_vrf_name(v->id),
			"parent", nfv_iface_name_of(v->parent), "vlan_id", v->vlan_id,
			"mac", mac, "admin_up", v->admin_up, "mtu", v->mtu,
			"rx_packets", vlan_count(c->rx_packets, s->rx_packets, created.rx_packets, id),
			"rx_bytes", vlan_count(c->rx_bytes, s->rx_bytes, created.rx_bytes, id),
			"tx_packets", vlan_count(c->tx_packets, s->tx_packets, created.tx_packets, id),
			"tx_bytes", vlan_count(c->tx_bytes, s->tx_bytes, created.tx_bytes, id),
			"rx_missed", (json_int_t)0, "rx_errors", (json_int_t)0,
			"rx_nombuf", (json_int_t)0, "tx_errors", (json_int_t)0));
	}
	free(c);
}

RTE_INIT(vlan_rows_register)
{
	nfv_iface_rows_register(vlan_rows);
}

static struct nfv_module vlan_module = {
	.name = "vlan",
	.depends_on = "infra ip",
};
NFV_MODULE_REGISTER(vlan_module);
