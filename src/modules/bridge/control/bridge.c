/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bridges: the bridge interfaces, their member lists (RCU-published), the
 * member -> bridge map, the per-worker FDBs (made with the first bridge)
 * and "fdb show", which reads the workers' entries without stopping them.
 *
 * Learning and several workers: each worker learns into its own FDB from
 * the frames it receives and looks up only its own. A worker that has not
 * seen a frame from a MAC floods frames for it (correct, more copies);
 * with RSS spreading one port's flows over workers, a MAC is learned by
 * every worker that receives frames from it. No worker writes another's
 * table, so learning needs no lock or atomic operation on the fast path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "core/arc.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "modules/bridge/bridge.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip.h"
#include "modules/punt/punt.h"

struct nfv_bridge *nfv_bridges[NFV_IFACE_MAX];
uint16_t nfv_bridge_of[NFV_IFACE_MAX];
struct nfv_fdb *nfv_fdbs[NFV_MAX_WORKERS];

NFV_COUNTER_BLOCK(nfv_bridge_counters_block, "bridge", struct nfv_bridge_counters);
NFV_MBUF_PRIV(nfv_bridge_meta_slice, "bridge", struct nfv_bridge_meta);

static uint32_t bridge_gen;

/* What the control side sends out of a bridge (ARP, ND) is bridged. */
static struct nfv_inject_target bridge_inject = { .name = "bridge", .node = "nfv_bridge_input" };
NFV_INJECT_TARGET_REGISTER(bridge_inject);

RTE_INIT(bridge_inject_kind)
{
	nfv_inject_kind_register(NFV_IFACE_KIND_BRIDGE, &bridge_inject);
}
static uint32_t fdb_size = NFV_FDB_SIZE_DEFAULT;

/* Members that are not ports: their kind's node, and bridge_input's edge
 * (-1: none) by kind, which the node reads. */
int16_t nfv_bridge_kind_edge[NFV_BRIDGE_KINDS_MAX] = { -1, -1, -1, -1, -1, -1, -1, -1 };
static const char *port_kind_node[NFV_BRIDGE_KINDS_MAX];

void
nfv_bridge_port_kind_register(uint8_t kind, const char *node)
{
	if (kind >= NFV_BRIDGE_KINDS_MAX || port_kind_node[kind] != NULL)
		rte_panic("bad or second bridge port kind %u (%s)\n", kind, node);
	port_kind_node[kind] = node;
}

static int
bridge_kinds_setup(void)
{
	for (unsigned int k = 0; k < NFV_BRIDGE_KINDS_MAX; k++) {
		int e;

		if (port_kind_node[k] == NULL)
			continue;
		e = nfv_node_edge_index("nfv_bridge_input", port_kind_node[k]);
		if (e < 0)
			return e;
		nfv_bridge_kind_edge[k] = (int16_t)e;
	}
	return 0;
}
NFV_GRAPH_SETUP(bridge_kinds_setup);

/* ---- taps (bridge.h) --------------------------------------------------------------------- */

nfv_bridge_tap_fn nfv_bridge_tap_fns[NFV_BRIDGE_TAPS_MAX];
uint8_t nfv_bridge_tap_wants[NFV_BRIDGE_TAP_DIRS][NFV_IFACE_MAX];
uint32_t nfv_bridge_taps_on;
static unsigned int n_taps;

unsigned int
nfv_bridge_tap_register(nfv_bridge_tap_fn fn)
{
	if (n_taps == NFV_BRIDGE_TAPS_MAX)
		rte_panic("more than %u bridge taps\n", NFV_BRIDGE_TAPS_MAX);
	nfv_bridge_tap_fns[n_taps] = fn;
	return n_taps++;
}

void
nfv_bridge_tap_set(unsigned int tap, enum nfv_bridge_tap_dir dir, uint16_t iface, bool on)
{
	uint8_t *want, bit;

	if (tap >= n_taps || dir >= NFV_BRIDGE_TAP_DIRS || iface >= NFV_IFACE_MAX)
		return;
	want = &nfv_bridge_tap_wants[dir][iface];
	bit = (uint8_t)(1u << tap);
	if (((*want & bit) != 0) == on)
		return;
	__atomic_store_n(want, (uint8_t)(on ? *want | bit : *want & ~bit), __ATOMIC_RELEASE);
	__atomic_store_n(&nfv_bridge_taps_on, nfv_bridge_taps_on + (on ? 1 : -1),
			 __ATOMIC_RELEASE);
}

/* ---- per-worker FDBs ----------------------------------------------------------------- */

static int
fdbs_create(char *err)
{
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		int socket = (int)rte_lcore_to_socket_id(nfv_workers[w].lcore_id);
		char name[RTE_HASH_NAMESIZE];
		struct rte_hash_parameters p = {
			.name = name,
			.entries = fdb_size,
			.key_len = sizeof(uint64_t),
			.hash_func = rte_hash_crc,
			.socket_id = socket,
			.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
		};
		struct nfv_fdb *f;

		if (nfv_fdbs[w] != NULL)
			continue;
		snprintf(name, sizeof(name), "nfv_fdb_%u", w);
		f = rte_zmalloc_socket("nfv_fdb", sizeof(*f), RTE_CACHE_LINE_SIZE, socket);
		if (f == NULL)
			goto nomem;
		f->size = fdb_size;
		f->e = rte_zmalloc_socket("nfv_fdb_entries", sizeof(f->e[0]) * fdb_size,
					  RTE_CACHE_LINE_SIZE, socket);
		f->h = rte_hash_create(&p);
		if (f->e == NULL || f->h == NULL) {
			rte_hash_free(f->h);
			rte_free(f->e);
			rte_free(f);
			goto nomem;
		}
		__atomic_store_n(&nfv_fdbs[w], f, __ATOMIC_RELEASE);
	}
	return 0;
nomem:
	snprintf(err, NFV_ERR_LEN, "out of memory for the forwarding tables (%u entries a worker)",
		 fdb_size);
	return -ENOMEM;
}

static void
fdbs_free(void)
{
	for (unsigned int w = 0; w < NFV_MAX_WORKERS; w++) {
		struct nfv_fdb *f = nfv_fdbs[w];

		if (f == NULL)
			continue;
		nfv_fdbs[w] = NULL;
		rte_hash_free(f->h);
		rte_free(f->e);
		rte_free(f);
	}
}

/* ---- bridges --------------------------------------------------------------------------- */

static struct nfv_bridge_counters created; /* the counters of each id at creation */

static void
bridge_counters_since_start(struct nfv_bridge_counters *c)
{
	bool was = nfv_stats_since_start(true);

	nfv_counters_sum(&nfv_bridge_counters_block, c);
	nfv_stats_since_start(was);
}

static struct nfv_bridge *
bridge_need(const char *name, char *err)
{
	struct nfv_iface *i = nfv_iface_by_name(name);

	if (i == NULL || i->kind != NFV_IFACE_KIND_BRIDGE || nfv_bridges[i->id] == NULL) {
		snprintf(err, NFV_ERR_LEN, "no bridge named %s", name);
		return NULL;
	}
	return nfv_bridges[i->id];
}

int
nfv_bridge_add(const char *name, uint32_t ageing_s, const struct rte_ether_addr *mac, char *err)
{
	struct nfv_bridge_counters *c;
	struct nfv_bridge *b;
	struct nfv_iface ifc;
	int id, rc;

	if (nfv_iface_by_name(name) != NULL) {
		snprintf(err, NFV_ERR_LEN, "interface %s already exists", name);
		return -EEXIST;
	}
	rc = fdbs_create(err);
	if (rc < 0)
		return rc;
	id = nfv_iface_alloc_id();
	if (id < 0) {
		snprintf(err, NFV_ERR_LEN, "no interface id left (at most %u interfaces)",
			 NFV_IFACE_MAX);
		return id;
	}
	b = calloc(1, sizeof(*b));
	c = malloc(sizeof(*c));
	if (b != NULL)
		b->ports = calloc(1, sizeof(*b->ports));
	if (b == NULL || c == NULL || b->ports == NULL) {
		if (b != NULL)
			free(b->ports);
		free(b);
		free(c);
		snprintf(err, NFV_ERR_LEN, "out of memory");
		return -ENOMEM;
	}
	bridge_counters_since_start(c);
	created.rx_packets[id] = c->rx_packets[id];
	created.rx_bytes[id] = c->rx_bytes[id];
	created.tx_packets[id] = c->tx_packets[id];
	created.tx_bytes[id] = c->tx_bytes[id];
	free(c);
	b->iface = (uint16_t)id;
	b->gen = ++bridge_gen;
	b->ageing_s = ageing_s;
	b->ageing_tsc = (uint64_t)ageing_s * rte_get_tsc_hz();
	memset(&ifc, 0, sizeof(ifc));
	ifc.kind = NFV_IFACE_KIND_BRIDGE;
	ifc.id = (uint16_t)id;
	ifc.parent = (uint16_t)id;
	ifc.mtu = RTE_ETHER_MTU;
	if (mac != NULL)
		ifc.mac = *mac;
	else
		rte_eth_random_addr(ifc.mac.addr_bytes);
	ifc.admin_up = true;
	snprintf(ifc.name, sizeof(ifc.name), "%s", name);
	nfv_iface_publish(&ifc);
	__atomic_store_n(&nfv_bridges[id], b, __ATOMIC_RELEASE);
	__atomic_store_n(&nfv_bridge_of[id], (uint16_t)id, __ATOMIC_RELEASE);
	NFV_LOG(INFO, "bridge %s (interface %d), ageing %u s", name, id, ageing_s);
	return 0;
}

/* The arc whose bridge_input feature takes a member's frames (ports and
 * VLANs); NULL for kinds whose node sends them (VXLAN). */
static const char *
bridge_member_arc(uint8_t kind)
{
	return kind == NFV_IFACE_KIND_PORT ? "l2_input" :
	       kind == NFV_IFACE_KIND_VLAN ? "vlan_l2_input" : NULL;
}

/* Publishes a copy of b's member list with id added (add) or removed. */
static int
bridge_ports_publish(struct nfv_bridge *b, uint16_t id, bool add)
{
	struct nfv_bridge_ports *old = b->ports, *np = calloc(1, sizeof(*np));

	if (np == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < old->n; i++)
		if (old->ids[i] != id)
			np->ids[np->n++] = old->ids[i];
	if (add)
		np->ids[np->n++] = id;
	__atomic_store_n(&b->ports, np, __ATOMIC_RELEASE);
	nfv_rcu_sync();
	free(old);
	return 0;
}

static void
bridge_member_remove(struct nfv_bridge *b, uint16_t id)
{
	char err[NFV_ERR_LEN];

	if (bridge_member_arc(nfv_ifaces[id].kind) != NULL)
		nfv_arc_feature_set(bridge_member_arc(nfv_ifaces[id].kind), "nfv_bridge_input", id,
				    false, err);
	__atomic_store_n(&nfv_bridge_of[id], 0, __ATOMIC_RELEASE);
	if (bridge_ports_publish(b, id, false) < 0) {
		/* No memory for the new list: the member stays listed but is no
		 * longer one (bridge_input checks nfv_bridge_of). */
		NFV_LOG(WARNING, "bridge %s: out of memory removing %s", nfv_ifaces[b->iface].name,
			nfv_ifaces[id].name);
	}
	NFV_LOG(INFO, "bridge %s: port %s removed", nfv_ifaces[b->iface].name,
		nfv_ifaces[id].name);
}

/* The bridge's own MTU, as Linux sets it: its members' smallest (a VLAN
 * member has its port's, a VXLAN member its own 1450), 1500 without
 * members. Packets routed into the bridge over it are refused at
 * ip4_rewrite / ip6_rewrite with an ICMP error, as for any interface. */
static void
bridge_mtu_update(struct nfv_bridge *b)
{
	uint16_t mtu = UINT16_MAX;

	for (unsigned int i = 0; i < b->ports->n; i++)
		mtu = RTE_MIN(mtu, nfv_ifaces[b->ports->ids[i]].mtu);
	nfv_iface_set_mtu(b->iface, b->ports->n ? mtu : RTE_ETHER_MTU);
}

/*
 * A bridge with an address routes: packets routed out of it take the
 * bridge_output features of the egress arcs (to bridge_input), and the
 * broadcast and multicast frames of its ports reach its interface too.
 * The features are on only while it has an address, so that a bridge
 * that only bridges costs routed traffic nothing.
 */
static void
bridge_l3_set(struct nfv_bridge *b, bool on)
{
	static const char *const features[][2] = {
		{ "ip4_egress", "nfv_bridge_output4" },
		{ "ip6_egress", "nfv_bridge_output6" },
	};
	char err[NFV_ERR_LEN];

	if (b->l3 == on)
		return;
	for (unsigned int i = 0; i < RTE_DIM(features); i++)
		if (nfv_arc_feature_set(features[i][0], features[i][1], b->iface, on, err) < 0)
			NFV_LOG(WARNING, "bridge %s: %s", nfv_ifaces[b->iface].name, err);
	__atomic_store_n(&b->l3, on, __ATOMIC_RELEASE);
	NFV_LOG(INFO, "bridge %s: %s", nfv_ifaces[b->iface].name,
		on ? "has an address, routes" : "no address left, bridges only");
}

int
nfv_bridge_del(const char *name, char *err)
{
	struct nfv_bridge *b = bridge_need(name, err);
	uint16_t id;

	if (b == NULL)
		return -ENOENT;
	id = b->iface;
	while (b->ports->n != 0)
		bridge_member_remove(b, b->ports->ids[b->ports->n - 1]);
	bridge_l3_set(b, false);
	__atomic_store_n(&nfv_bridge_of[id], 0, __ATOMIC_RELEASE);
	__atomic_store_n(&nfv_bridges[id], NULL, __ATOMIC_RELEASE);
	nfv_rcu_sync();
	free(b->ports);
	free(b);
	NFV_LOG(INFO, "bridge %s removed", name);
	nfv_iface_remove(id);
	return 0;
}

int
nfv_bridge_port_add(const char *bridge, const char *dev, char *err)
{
	struct nfv_bridge *b = bridge_need(bridge, err);
	struct nfv_iface *m;
	int rc;

	if (b == NULL)
		return -ENOENT;
	m = nfv_iface_by_name(dev);
	if (m == NULL) {
		snprintf(err, NFV_ERR_LEN, "unknown interface '%s'", dev);
		return -ENOENT;
	}
	if (!(m->kind == NFV_IFACE_KIND_PORT && m->id < RTE_MAX_ETHPORTS) &&
	    m->kind != NFV_IFACE_KIND_VLAN &&
	    (m->kind >= NFV_BRIDGE_KINDS_MAX || port_kind_node[m->kind] == NULL)) {
		snprintf(err, NFV_ERR_LEN, "%s cannot be a bridge port (ports, VLAN and VXLAN "
			 "interfaces can)", dev);
		return -EINVAL;
	}
	if (nfv_bridge_of[m->id] != 0) {
		snprintf(err, NFV_ERR_LEN, "%s is already a port of bridge %s", dev,
			 nfv_iface_name_of(nfv_bridge_of[m->id]));
		return -EEXIST;
	}
	/* A bridged port takes all its frames, tagged ones too. */
	if (m->kind == NFV_IFACE_KIND_VLAN && nfv_bridge_of[m->parent] != 0) {
		snprintf(err, NFV_ERR_LEN, "%s is on %s, a port of bridge %s (which takes its "
			 "tagged frames)", dev, nfv_iface_name_of(m->parent),
			 nfv_iface_name_of(nfv_bridge_of[m->parent]));
		return -EINVAL;
	}
	for (unsigned int i = RTE_MAX_ETHPORTS; m->kind == NFV_IFACE_KIND_PORT &&
	     i < NFV_IFACE_MAX; i++)
		if (nfv_ifaces[i].used && nfv_ifaces[i].kind == NFV_IFACE_KIND_VLAN &&
		    nfv_ifaces[i].parent == m->id && nfv_bridge_of[i] != 0) {
			snprintf(err, NFV_ERR_LEN, "%s has VLAN %s, a port of bridge %s", dev,
				 nfv_ifaces[i].name, nfv_iface_name_of(nfv_bridge_of[i]));
			return -EINVAL;
		}
	if (b->ports->n == NFV_BRIDGE_PORTS_MAX) {
		snprintf(err, NFV_ERR_LEN, "bridge %s has %u ports already (the most)", bridge,
			 NFV_BRIDGE_PORTS_MAX);
		return -ENOSPC;
	}
	rc = bridge_ports_publish(b, m->id, true);
	if (rc < 0) {
		snprintf(err, NFV_ERR_LEN, "out of memory");
		return rc;
	}
	__atomic_store_n(&nfv_bridge_of[m->id], b->iface, __ATOMIC_RELEASE);
	/* Last: from here on the port's frames are bridged. */
	if (bridge_member_arc(m->kind) != NULL &&
	    (rc = nfv_arc_feature_set(bridge_member_arc(m->kind), "nfv_bridge_input", m->id, true,
				      err)) < 0) {
		__atomic_store_n(&nfv_bridge_of[m->id], 0, __ATOMIC_RELEASE);
		bridge_ports_publish(b, m->id, false);
		return rc;
	}
	NFV_LOG(INFO, "bridge %s: port %s added", bridge, dev);
	bridge_mtu_update(b);
	return 0;
}

int
nfv_bridge_port_del(const char *bridge, const char *dev, char *err)
{
	struct nfv_bridge *b = bridge_need(bridge, err);
	struct nfv_iface *m;

	if (b == NULL)
		return -ENOENT;
	m = nfv_iface_by_name(dev);
	if (m == NULL) {
		snprintf(err, NFV_ERR_LEN, "unknown interface '%s'", dev);
		return -ENOENT;
	}
	if (nfv_bridge_of[m->id] != b->iface) {
		snprintf(err, NFV_ERR_LEN, "%s is not a port of bridge %s", dev, bridge);
		return -ENOENT;
	}
	bridge_member_remove(b, m->id);
	bridge_mtu_update(b);
	return 0;
}

/* A member that goes leaves its bridge (a bridge that goes has taken its
 * members' memberships in nfv_bridge_del), and the bridge's MTU follows
 * its members'; a bridge with an address is the gateway of its ports. */
static void
bridge_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	uint16_t br = nfv_bridge_of[iface];

	RTE_SET_USED(arg);
	if (ev == NFV_IFACE_ADDR && nfv_bridges[iface] != NULL) {
		struct nfv_prefix a[NFV_ADDR_PER_PORT_MAX];

		bridge_l3_set(nfv_bridges[iface], nfv_addr_of_iface(iface, a) > 0);
		return;
	}
	if ((ev != NFV_IFACE_REMOVED && ev != NFV_IFACE_CHANGED) || br == iface)
		return;
	if (br == 0 || nfv_bridges[br] == NULL)
		return;
	if (ev == NFV_IFACE_REMOVED)
		bridge_member_remove(nfv_bridges[br], iface);
	bridge_mtu_update(nfv_bridges[br]);
}
NFV_IFACE_EVENT_HANDLER(bridge_iface_event);

/* ---- views ----------------------------------------------------------------------------- */

static json_int_t
bridge_count(const uint64_t *since_reset, const uint64_t *since_start, const uint64_t *at_creation,
	     unsigned int id)
{
	return (json_int_t)RTE_MIN(since_reset[id], since_start[id] - at_creation[id]);
}

static json_t *
bridge_ports_json(const struct nfv_bridge *b)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < b->ports->n; i++)
		json_array_append_new(a, json_string(nfv_iface_name_of(b->ports->ids[i])));
	return a;
}

/* "port show" rows of the bridges. */
static void
bridge_rows(void *rows, const char *name)
{
	struct nfv_bridge_counters *c = NULL, *s = NULL;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	for (unsigned int id = RTE_MAX_ETHPORTS; id < NFV_IFACE_MAX; id++) {
		const struct nfv_iface *v = &nfv_ifaces[id];
		const struct nfv_bridge *b = nfv_bridges[id];

		if (!v->used || v->kind != NFV_IFACE_KIND_BRIDGE || b == NULL ||
		    (name != NULL && strcmp(name, v->name) != 0))
			continue;
		if (c == NULL) {
			c = malloc(2 * sizeof(*c));
			if (c == NULL)
				return;
			s = c + 1;
			nfv_counters_sum(&nfv_bridge_counters_block, c);
			bridge_counters_since_start(s);
		}
		nfv_format_mac(mac, sizeof(mac), &v->mac);
		json_array_append_new(rows, json_pack(
			"{s:s, s:s, s:s, s:s, s:b, s:i, s:i, s:o, s:I, s:I, s:I, s:I, s:I, s:I, "
			"s:I, s:I}",
			"name", v->name, "kind", "bridge", "vrf", nfv_iface_vrf_name(v->id),
			"mac", mac, "admin_up", v->admin_up, "mtu", v->mtu,
			"ageing", (int)b->ageing_s, "ports", bridge_ports_json(b),
			"rx_packets", bridge_count(c->rx_packets, s->rx_packets,
						   created.rx_packets, id),
			"rx_bytes", bridge_count(c->rx_bytes, s->rx_bytes, created.rx_bytes, id),
			"tx_packets", bridge_count(c->tx_packets, s->tx_packets,
						   created.tx_packets, id),
			"tx_bytes", bridge_count(c->tx_bytes, s->tx_bytes, created.tx_bytes, id),
			"rx_missed", (json_int_t)0, "rx_errors", (json_int_t)0,
			"rx_nombuf", (json_int_t)0, "tx_errors", (json_int_t)0));
	}
	free(c);
}

RTE_INIT(bridge_rows_register)
{
	nfv_iface_rows_register(bridge_rows);
}

json_t *
nfv_bridge_show(const char *name, char *err)
{
	json_t *list = json_array();

	if (name != NULL && bridge_need(name, err) == NULL) {
		json_decref(list);
		return NULL;
	}
	for (unsigned int id = RTE_MAX_ETHPORTS; id < NFV_IFACE_MAX; id++) {
		const struct nfv_bridge *b = nfv_bridges[id];
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		if (b == NULL || (name != NULL && strcmp(name, nfv_ifaces[id].name) != 0))
			continue;
		nfv_format_mac(mac, sizeof(mac), &nfv_ifaces[id].mac);
		json_array_append_new(list, json_pack("{s:s, s:s, s:b, s:i, s:o}",
			"name", nfv_ifaces[id].name, "mac", mac,
			"admin_up", nfv_ifaces[id].admin_up,
			"ageing", (int)b->ageing_s, "ports", bridge_ports_json(b)));
	}
	return json_pack("{s:o}", "bridges", list);
}

/* One worker's entry, read while it may change it: false when it is free,
 * being written, or changed under the read. */
static bool
fdb_entry_read(const struct nfv_fdb_entry *e, struct nfv_fdb_entry *out)
{
	uint32_t s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE), s2;

	if (s1 & 1)
		return false;
	out->bridge = e->bridge;
	out->port = e->port;
	out->gen = e->gen;
	out->remote = e->remote;
	out->seen = __atomic_load_n(&e->seen, __ATOMIC_RELAXED);
	out->key = e->key;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	return s1 == s2 && out->key != 0;
}

static int
fdb_row_cmp(const void *a, const void *b)
{
	const struct nfv_fdb_entry *x = a, *y = b;

	if (x->bridge != y->bridge)
		return x->bridge < y->bridge ? -1 : 1;
	/* The MAC in its byte order: the key's low 48 bits, little-endian. */
	for (int i = 0; i < 6; i++) {
		uint8_t bx = (uint8_t)(x->key >> (8 * i)), by = (uint8_t)(y->key >> (8 * i));

		if (bx != by)
			return bx < by ? -1 : 1;
	}
	return 0;
}

json_t *
nfv_fdb_show(const char *bridge, char *err)
{
	uint16_t only = 0;
	struct nfv_fdb_entry *rows = NULL;
	size_t n = 0, cap = 0;
	uint64_t now = rte_get_tsc_cycles(), hz = rte_get_tsc_hz();
	json_t *list;

	if (bridge != NULL) {
		struct nfv_bridge *b = bridge_need(bridge, err);

		if (b == NULL)
			return NULL;
		only = b->iface;
	}
	for (unsigned int w = 0; w < NFV_MAX_WORKERS; w++) {
		const struct nfv_fdb *f = nfv_fdbs[w];

		if (f == NULL)
			continue;
		for (uint32_t i = 0; i < f->size; i++) {
			struct nfv_fdb_entry e;
			const struct nfv_bridge *b;
			size_t k;

			if (f->e[i].key == 0 || !fdb_entry_read(&f->e[i], &e))
				continue;
			b = nfv_bridges[e.bridge];
			if (b == NULL || e.gen != b->gen || (only != 0 && e.bridge != only) ||
			    nfv_bridge_of[e.port] != e.bridge ||
			    (now > e.seen && now - e.seen > b->ageing_tsc))
				continue;
			/* Learned by several workers: the latest. */
			for (k = 0; k < n && rows[k].key != e.key; k++)
				;
			if (k < n) {
				if (e.seen > rows[k].seen)
					rows[k] = e;
				continue;
			}
			if (n == cap) {
				struct nfv_fdb_entry *r = realloc(rows, (cap ? 2 * cap : 64) *
								  sizeof(*rows));

				if (r == NULL)
					break;
				rows = r;
				cap = cap ? 2 * cap : 64;
			}
			rows[n++] = e;
		}
	}
	if (n > 0)
		qsort(rows, n, sizeof(*rows), fdb_row_cmp);
	list = json_array();
	/* Each bridge's own MAC first: static (frames for it are the bridge's). */
	for (unsigned int id = RTE_MAX_ETHPORTS; id < NFV_IFACE_MAX; id++) {
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		if (nfv_bridges[id] == NULL || (only != 0 && id != only))
			continue;
		nfv_format_mac(mac, sizeof(mac), &nfv_ifaces[id].mac);
		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s, s:i}", "mac", mac,
			"bridge", nfv_ifaces[id].name, "port", nfv_ifaces[id].name,
			"type", "static", "age", 0));
	}
	for (size_t i = 0; i < n; i++) {
		char mac[RTE_ETHER_ADDR_FMT_SIZE];
		struct rte_ether_addr a;
		json_t *row;

		for (int k = 0; k < 6; k++)
			a.addr_bytes[k] = (uint8_t)(rows[i].key >> (8 * k));
		nfv_format_mac(mac, sizeof(mac), &a);
		row = json_pack("{s:s, s:s, s:s, s:s, s:I}", "mac", mac,
			"bridge", nfv_iface_name_of(rows[i].bridge),
			"port", nfv_iface_name_of(rows[i].port), "type", "learned",
			"age", (json_int_t)(now > rows[i].seen ? (now - rows[i].seen) / hz : 0));
		if (rows[i].remote != 0) {
			char ip[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &rows[i].remote, ip, sizeof(ip));
			json_object_set_new(row, "remote", json_string(ip));
		}
		json_array_append_new(list, row);
	}
	free(rows);
	return json_pack("{s:o}", "fdb", list);
}

/* ---- show stats, Prometheus ------------------------------------------------------------ */

static void
bridge_show_stats(json_t *stats)
{
	struct nfv_bridge_counters *c;

	if (nfv_fdbs[0] == NULL)
		return;
	c = malloc(sizeof(*c));
	if (c == NULL)
		return;
	nfv_counters_sum(&nfv_bridge_counters_block, c);
	json_object_set_new(stats, "bridge", json_pack("{s:I, s:I, s:I, s:I, s:I}",
		"learned", (json_int_t)c->learned, "moved", (json_int_t)c->moved,
		"aged", (json_int_t)c->aged, "flooded", (json_int_t)c->flooded,
		"fdb_full", (json_int_t)c->fdb_full));
	free(c);
}

static void
bridge_metrics(FILE *f)
{
	struct nfv_bridge_counters *c;
	bool was;

	if (nfv_fdbs[0] == NULL)
		return;
	c = malloc(sizeof(*c));
	if (c == NULL)
		return;
	was = nfv_stats_since_start(true);
	nfv_counters_sum(&nfv_bridge_counters_block, c);
	nfv_stats_since_start(was);
	nfv_metrics_help(f, "nfvd_bridge_fdb_events_total", "counter",
			 "FDB events: learned, moved, aged, flooded frames, table full");
	fprintf(f, "nfvd_bridge_fdb_events_total{event=\"learned\"} %" PRIu64 "\n", c->learned);
	fprintf(f, "nfvd_bridge_fdb_events_total{event=\"moved\"} %" PRIu64 "\n", c->moved);
	fprintf(f, "nfvd_bridge_fdb_events_total{event=\"aged\"} %" PRIu64 "\n", c->aged);
	fprintf(f, "nfvd_bridge_fdb_events_total{event=\"flooded\"} %" PRIu64 "\n", c->flooded);
	fprintf(f, "nfvd_bridge_fdb_events_total{event=\"fdb_full\"} %" PRIu64 "\n", c->fdb_full);
	free(c);
}

static const struct nfv_collector bridge_collector = {
	.name = "bridge",
	.show_stats = bridge_show_stats,
	.metrics = bridge_metrics,
};
NFV_COLLECTOR_REGISTER(bridge_collector);

/* ---- the module ------------------------------------------------------------------------ */

static const struct nfv_module_option bridge_options[] = {
	{ "fdb-size", "N", "MAC addresses each worker's forwarding table holds (default 16384)" },
	{ NULL, NULL, NULL },
};

static int
bridge_parse_option(const char *name, const char *value, char *err, size_t len)
{
	return nfv_module_option_u32(name, value, 64, 1u << 24, &fdb_size, err, len);
}

static void
bridge_fini(void)
{
	for (unsigned int id = 0; id < NFV_IFACE_MAX; id++) {
		struct nfv_bridge *b = nfv_bridges[id];

		if (b == NULL)
			continue;
		nfv_bridges[id] = NULL;
		free(b->ports);
		free(b);
	}
	fdbs_free();
}

static struct nfv_module bridge_module = {
	.name = "bridge",
	.depends_on = "infra ip punt vlan",
	.fini = bridge_fini,
	.options = bridge_options,
	.parse_option = bridge_parse_option,
};
NFV_MODULE_REGISTER(bridge_module);
