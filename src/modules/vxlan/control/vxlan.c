/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VXLAN interfaces: the tunnels (nfv_vxlans, immutable once published) and
 * the keys vxlan_input matches datagrams on. A slot of the key table is
 * freed by clearing its interface and waiting a grace period before it is
 * written again, so a worker never matches a half-written key.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <jansson.h>

#include <rte_ethdev.h>

#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "modules/bridge/bridge.h"
#include "modules/infra/iface.h"
#include "modules/ip/udp.h"
#include "modules/vxlan/vxlan.h"

struct nfv_vxlan *nfv_vxlans[NFV_IFACE_MAX];
struct nfv_vxlan_key nfv_vxlan_keys[NFV_VXLAN_MAX];
uint16_t nfv_vxlan_n_keys;
NFV_COUNTER_BLOCK(nfv_vxlan_counters_block, "vxlan", struct nfv_vxlan_counters);

NFV_UDP_PORT_REGISTER(vxlan, AF_INET, NFV_VXLAN_PORT, "nfv_vxlan_input");

RTE_INIT(vxlan_bridge_kind)
{
	nfv_bridge_port_kind_register(NFV_IFACE_KIND_VXLAN, "nfv_vxlan_output");
}

static struct nfv_vxlan_counters created;

static void
vxlan_counters_since_start(struct nfv_vxlan_counters *c)
{
	bool was = nfv_stats_since_start(true);

	nfv_counters_sum(&nfv_vxlan_counters_block, c);
	nfv_stats_since_start(was);
}

static unsigned int
vxlan_count(void)
{
	unsigned int n = 0;

	for (unsigned int id = 0; id < NFV_IFACE_MAX; id++)
		n += nfv_vxlans[id] != NULL;
	return n;
}

/* Another tunnel on the same port: the dstport is bound already. */
static bool
vxlan_port_in_use(uint16_t dstport, uint16_t except)
{
	for (unsigned int id = 0; id < NFV_IFACE_MAX; id++)
		if (nfv_vxlans[id] != NULL && id != except && nfv_vxlans[id]->dstport == dstport)
			return true;
	return false;
}

int
nfv_vxlan_add(const char *name, const struct nfv_vxlan_conf *c, char *err)
{
	struct nfv_vxlan_counters *cnt;
	struct nfv_vxlan *t;
	struct nfv_iface ifc;
	unsigned int slot;
	int id, rc;

	if (nfv_iface_by_name(name) != NULL) {
		snprintf(err, NFV_ERR_LEN, "interface %s already exists", name);
		return -EEXIST;
	}
	for (unsigned int i = 0; i < NFV_IFACE_MAX; i++) {
		const struct nfv_vxlan *o = nfv_vxlans[i];

		if (o != NULL && o->vni == c->vni && o->local == c->local &&
		    o->dstport == c->dstport) {
			snprintf(err, NFV_ERR_LEN, "%s already has VNI %u on this local address "
				 "and port", nfv_ifaces[i].name, c->vni);
			return -EEXIST;
		}
	}
	if (vxlan_count() == NFV_VXLAN_MAX) {
		snprintf(err, NFV_ERR_LEN, "at most %u VXLAN interfaces", NFV_VXLAN_MAX);
		return -ENOSPC;
	}
	for (slot = 0; slot < NFV_VXLAN_MAX && nfv_vxlan_keys[slot].iface != 0; slot++)
		;
	if (c->dstport != NFV_VXLAN_PORT && !vxlan_port_in_use(c->dstport, UINT16_MAX)) {
		rc = nfv_udp_port_bind(AF_INET, c->dstport, "nfv_vxlan_input");
		if (rc < 0) {
			snprintf(err, NFV_ERR_LEN, "dstport %u: %s", c->dstport,
				 rc == -EEXIST ? "another module serves this UDP port" :
				 "no room for another UDP port");
			return rc;
		}
	}
	id = nfv_iface_alloc_id();
	t = calloc(1, sizeof(*t));
	cnt = malloc(sizeof(*cnt));
	if (id < 0 || t == NULL || cnt == NULL) {
		free(t);
		free(cnt);
		if (c->dstport != NFV_VXLAN_PORT && !vxlan_port_in_use(c->dstport, UINT16_MAX))
			nfv_udp_port_unbind(AF_INET, c->dstport, "nfv_vxlan_input");
		snprintf(err, NFV_ERR_LEN, id < 0 ? "no interface id left" : "out of memory");
		return id < 0 ? id : -ENOMEM;
	}
	vxlan_counters_since_start(cnt);
	created.rx_packets[id] = cnt->rx_packets[id];
	created.rx_bytes[id] = cnt->rx_bytes[id];
	created.tx_packets[id] = cnt->tx_packets[id];
	created.tx_bytes[id] = cnt->tx_bytes[id];
	free(cnt);
	t->iface = (uint16_t)id;
	t->vni = c->vni;
	t->local = c->local;
	t->dstport = c->dstport;
	t->n_remotes = c->n_remotes;
	memcpy(t->remotes, c->remotes, sizeof(t->remotes));
	memset(&ifc, 0, sizeof(ifc));
	ifc.kind = NFV_IFACE_KIND_VXLAN;
	ifc.id = (uint16_t)id;
	ifc.parent = (uint16_t)id;
	ifc.mtu = NFV_VXLAN_MTU;
	rte_eth_random_addr(ifc.mac.addr_bytes);
	ifc.admin_up = true;
	snprintf(ifc.name, sizeof(ifc.name), "%s", name);
	__atomic_store_n(&nfv_vxlans[id], t, __ATOMIC_RELEASE);
	nfv_iface_publish(&ifc);
	/* Last: from here on datagrams reach the interface. */
	nfv_vxlan_keys[slot].dstport = rte_cpu_to_be_16(c->dstport);
	nfv_vxlan_keys[slot].local = c->local;
	nfv_vxlan_keys[slot].vni = rte_cpu_to_be_32(c->vni << 8);
	__atomic_store_n(&nfv_vxlan_keys[slot].iface, (uint16_t)id, __ATOMIC_RELEASE);
	if (slot >= nfv_vxlan_n_keys)
		__atomic_store_n(&nfv_vxlan_n_keys, (uint16_t)(slot + 1), __ATOMIC_RELEASE);
	NFV_LOG(INFO, "vxlan %s: VNI %u, port %u, %u remotes (interface %d)", name, c->vni,
		c->dstport, c->n_remotes, id);
	return 0;
}

int
nfv_vxlan_del(const char *name, char *err)
{
	struct nfv_iface *v = nfv_iface_by_name(name);
	struct nfv_vxlan *t;
	uint16_t id;

	if (v == NULL || v->kind != NFV_IFACE_KIND_VXLAN || nfv_vxlans[v->id] == NULL) {
		snprintf(err, NFV_ERR_LEN, "no VXLAN interface named %s", name);
		return -ENOENT;
	}
	id = v->id;
	t = nfv_vxlans[id];
	/* No datagram maps to it, then it leaves its bridge (the interface
	 * event) and goes. */
	for (unsigned int i = 0; i < NFV_VXLAN_MAX; i++)
		if (nfv_vxlan_keys[i].iface == id)
			__atomic_store_n(&nfv_vxlan_keys[i].iface, 0, __ATOMIC_RELEASE);
	if (t->dstport != NFV_VXLAN_PORT && !vxlan_port_in_use(t->dstport, id))
		nfv_udp_port_unbind(AF_INET, t->dstport, "nfv_vxlan_input");
	nfv_iface_remove(id);
	__atomic_store_n(&nfv_vxlans[id], NULL, __ATOMIC_RELEASE);
	nfv_rcu_sync();
	free(t);
	NFV_LOG(INFO, "vxlan %s removed", name);
	return 0;
}

static json_t *
vxlan_remotes_json(const struct nfv_vxlan *t)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < t->n_remotes; i++) {
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &t->remotes[i], ip, sizeof(ip));
		json_array_append_new(a, json_string(ip));
	}
	return a;
}

static json_t *
vxlan_json(const struct nfv_vxlan *t)
{
	char local[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &t->local, local, sizeof(local));
	return json_pack("{s:s, s:I, s:s, s:o, s:i, s:s}", "name", nfv_ifaces[t->iface].name,
			 "vni", (json_int_t)t->vni, "local", local,
			 "remotes", vxlan_remotes_json(t),
			 "dstport", (int)t->dstport,
			 "bridge", nfv_bridge_of[t->iface] != 0 ?
				   nfv_iface_name_of(nfv_bridge_of[t->iface]) : "");
}

json_t *
nfv_vxlan_show(const char *name, char *err)
{
	json_t *list = json_array();

	for (unsigned int id = 0; id < NFV_IFACE_MAX; id++) {
		const struct nfv_vxlan *t = nfv_vxlans[id];

		if (t != NULL && (name == NULL || strcmp(name, nfv_ifaces[id].name) == 0))
			json_array_append_new(list, vxlan_json(t));
	}
	if (name != NULL && json_array_size(list) == 0) {
		json_decref(list);
		snprintf(err, NFV_ERR_LEN, "no VXLAN interface named %s", name);
		return NULL;
	}
	return json_pack("{s:o}", "vxlans", list);
}

static json_int_t
vxlan_count_of(const uint64_t *since_reset, const uint64_t *since_start,
	       const uint64_t *at_creation, unsigned int id)
{
	return (json_int_t)RTE_MIN(since_reset[id], since_start[id] - at_creation[id]);
}

/* "port show" rows of the VXLAN interfaces (inner frames counted). */
static void
vxlan_rows(void *rows, const char *name)
{
	struct nfv_vxlan_counters *c = NULL, *s = NULL;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	for (unsigned int id = RTE_MAX_ETHPORTS; id < NFV_IFACE_MAX; id++) {
		const struct nfv_iface *v = &nfv_ifaces[id];
		const struct nfv_vxlan *t = nfv_vxlans[id];
		json_t *row, *more;

		if (!v->used || v->kind != NFV_IFACE_KIND_VXLAN || t == NULL ||
		    (name != NULL && strcmp(name, v->name) != 0))
			continue;
		if (c == NULL) {
			c = malloc(2 * sizeof(*c));
			if (c == NULL)
				return;
			s = c + 1;
			nfv_counters_sum(&nfv_vxlan_counters_block, c);
			vxlan_counters_since_start(s);
		}
		nfv_format_mac(mac, sizeof(mac), &v->mac);
		row = vxlan_json(t);
		more = json_pack(
			"{s:s, s:s, s:s, s:b, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			"kind", "vxlan", "vrf", nfv_iface_vrf_name(v->id), "mac", mac,
			"admin_up", v->admin_up, "mtu", v->mtu,
			"rx_packets", vxlan_count_of(c->rx_packets, s->rx_packets,
						     created.rx_packets, id),
			"rx_bytes", vxlan_count_of(c->rx_bytes, s->rx_bytes, created.rx_bytes, id),
			"tx_packets", vxlan_count_of(c->tx_packets, s->tx_packets,
						     created.tx_packets, id),
			"tx_bytes", vxlan_count_of(c->tx_bytes, s->tx_bytes, created.tx_bytes, id),
			"rx_missed", (json_int_t)0, "rx_errors", (json_int_t)0,
			"rx_nombuf", (json_int_t)0, "tx_errors", (json_int_t)0);
		json_object_update(row, more);
		json_decref(more);
		json_array_append_new(rows, row);
	}
	free(c);
}

RTE_INIT(vxlan_rows_register)
{
	nfv_iface_rows_register(vxlan_rows);
}

static void
vxlan_fini(void)
{
	for (unsigned int id = 0; id < NFV_IFACE_MAX; id++) {
		free(nfv_vxlans[id]);
		nfv_vxlans[id] = NULL;
	}
}

static struct nfv_module vxlan_module = {
	.name = "vxlan",
	.depends_on = "infra ip bridge",
	.fini = vxlan_fini,
};
NFV_MODULE_REGISTER(vxlan_module);
