/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mirror sessions: which interfaces (ports, VLAN sub-interfaces) are
 * mirrored in which direction to which port. The tables the workers read
 * (nfv_mirror_of, nfv_mirror_dst) are written here with single stores; a
 * session being removed is first unhooked from the arcs and the tables,
 * then after a grace period its slot may be reused. The copies come from
 * one pool, made by the first session and kept until exit (copies in
 * flight in a TX queue come back to it whenever the driver frees them).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rte_mbuf.h>

#include "core/arc.h"
#include "core/counters.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/meta.h"
#include "core/module.h"
#include "core/stats.h"
#include "modules/bridge/bridge.h"
#include "modules/infra/iface.h"
#include "modules/infra/port.h"
#include "modules/mirror/mirror.h"

/* Copies in flight at most: a few full bursts per worker and mirror port. */
#define MIRROR_POOL_SIZE 8191
#define MIRROR_POOL_CACHE 256

uint8_t nfv_mirror_of[NFV_MIRROR_DIRS][NFV_IFACE_MAX];
uint16_t nfv_mirror_dst[NFV_MIRROR_MAX];
uint16_t nfv_mirror_dst_vlan[NFV_MIRROR_MAX];
struct rte_mempool *nfv_mirror_pool;
NFV_COUNTER_BLOCK(nfv_mirror_counters_block, "mirror", struct nfv_mirror_counters);

struct mirror_session {
	bool used;
	char name[NFV_MIRROR_NAME_LEN];
	uint16_t src;         /* a port, a VLAN sub-interface, a bridge, a tunnel */
	uint16_t src_port;    /* the port src's frames use: src, or a VLAN's parent */
	uint8_t src_kind;     /* enum nfv_iface_kind */
	uint16_t dst;         /* a port, or a VLAN sub-interface (copies tagged) */
	uint16_t dst_port;    /* the port dst's frames leave: dst, or a VLAN's parent */
	unsigned int dirs; /* bit NFV_MIRROR_IN, NFV_MIRROR_OUT */
	/* The counters (since start) when the session was made: its slot's
	 * counters go on from there. */
	uint64_t base_copies, base_drops, base_nombuf;
};

static struct mirror_session sessions[NFV_MIRROR_MAX];

static const char *const arc_of[NFV_MIRROR_DIRS][2] = {
	[NFV_MIRROR_IN] = { "l2_input", "nfv_mirror_in" },
	[NFV_MIRROR_OUT] = { "l2_output", "nfv_mirror_out" },
};

/* A VLAN's frames: in on its own arc, out on its port's (by their tag). */
static const char *const vlan_arc_of[NFV_MIRROR_DIRS][2] = {
	[NFV_MIRROR_IN] = { "vlan_l2_input", "nfv_mirror_vlan_in" },
	[NFV_MIRROR_OUT] = { "l2_output", "nfv_mirror_vlan_out" },
};

/* Sessions mirroring a VLAN of each port out. */
static unsigned int vlan_out_sessions[RTE_MAX_ETHPORTS];

static const char *
dirs_name(unsigned int dirs)
{
	return dirs == 3 ? "both" : dirs == 1 ? "in" : "out";
}

static struct mirror_session *
session_by_name(const char *name)
{
	for (unsigned int i = 0; i < NFV_MIRROR_MAX; i++)
		if (sessions[i].used && strcmp(sessions[i].name, name) == 0)
			return &sessions[i];
	return NULL;
}

static void
counters_since_start(struct nfv_mirror_counters *c)
{
	bool was = nfv_stats_since_start(true);

	nfv_counters_sum(&nfv_mirror_counters_block, c);
	nfv_stats_since_start(was);
}

static int
pool_make(char *err)
{
	struct rte_mempool *mp;

	if (nfv_mirror_pool != NULL)
		return 0;
	mp = rte_pktmbuf_pool_create("nfv_mirror", MIRROR_POOL_SIZE, MIRROR_POOL_CACHE,
				     nfv_mbuf_priv_size(), RTE_MBUF_DEFAULT_BUF_SIZE,
				     (int)rte_socket_id());
	if (mp == NULL) {
		snprintf(err, NFV_ERR_LEN, "mirror: no memory for the copies' pool (%u mbufs): %s",
			 MIRROR_POOL_SIZE, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	if (nfv_pool_watch(mp) < 0) {
		rte_mempool_free(mp);
		snprintf(err, NFV_ERR_LEN, "mirror: too many pools");
		return -ENOSPC;
	}
	__atomic_store_n(&nfv_mirror_pool, mp, __ATOMIC_RELEASE);
	return 0;
}

static const char *
kind_name(uint8_t kind)
{
	switch (kind) {
	case NFV_IFACE_KIND_VLAN:
		return "a VLAN";
	case NFV_IFACE_KIND_BRIDGE:
		return "a bridge";
	case NFV_IFACE_KIND_VXLAN:
		return "a VXLAN tunnel";
	default:
		return "not a port";
	}
}

/* The source (any interface: any_ok) or the destination (a port) of a
 * session. */
static struct nfv_iface *
iface_named(const char *name, bool any_ok, char *err)
{
	struct nfv_iface *i = nfv_iface_by_name(name);

	if (i == NULL) {
		snprintf(err, NFV_ERR_LEN, "unknown interface '%s'", name);
		return NULL;
	}
	if (i->kind == NFV_IFACE_KIND_PORT && i->id < RTE_MAX_ETHPORTS)
		return i;
	if (i->kind == NFV_IFACE_KIND_VLAN && i->parent < RTE_MAX_ETHPORTS)
		return i;
	if (any_ok && (i->kind == NFV_IFACE_KIND_BRIDGE || i->kind == NFV_IFACE_KIND_VXLAN))
		return i;
	if (any_ok)
		snprintf(err, NFV_ERR_LEN, "%s is %s: a mirror's source is a port, a VLAN "
			 "sub-interface, a bridge or a VXLAN tunnel", name, kind_name(i->kind));
	else
		snprintf(err, NFV_ERR_LEN, "%s is %s: the destination of a mirror is a port or "
			 "a VLAN sub-interface", name, kind_name(i->kind));
	return NULL;
}

/* Turns the feature of direction d of session s on or off. */
static void
session_hook(const struct mirror_session *s, unsigned int d, bool on)
{
	char err[NFV_ERR_LEN];

	if (s->src_kind == NFV_IFACE_KIND_PORT) {
		(void)nfv_arc_feature_set(arc_of[d][0], arc_of[d][1], s->src, on, err);
		return;
	}
	if (s->src_kind != NFV_IFACE_KIND_VLAN) {
		/* A bridge's or a tunnel's frames: bridge_input's tap. */
		nfv_bridge_tap_set(nfv_mirror_tap, d == NFV_MIRROR_IN ? NFV_BRIDGE_TAP_IN :
				   NFV_BRIDGE_TAP_OUT, s->src, on);
		return;
	}
	if (d == NFV_MIRROR_IN) {
		(void)nfv_arc_feature_set(vlan_arc_of[d][0], vlan_arc_of[d][1], s->src, on, err);
		return;
	}
	/* Out: on the port while one of its VLANs has a session. */
	if (on) {
		if (vlan_out_sessions[s->src_port]++ != 0)
			return;
	} else if (--vlan_out_sessions[s->src_port] != 0) {
		return;
	}
	(void)nfv_arc_feature_set(vlan_arc_of[d][0], vlan_arc_of[d][1], s->src_port, on, err);
}

int
nfv_mirror_add(const char *name, const char *dev, unsigned int dirs, const char *to, char *err)
{
	struct nfv_iface *src, *dst;
	struct nfv_mirror_counters *c;
	struct mirror_session *s = NULL;
	unsigned int idx, d;
	int rc;

	if (session_by_name(name) != NULL) {
		snprintf(err, NFV_ERR_LEN, "mirror %s already exists", name);
		return -EEXIST;
	}
	src = iface_named(dev, true, err);
	if (src == NULL)
		return -EINVAL;
	dst = iface_named(to, false, err);
	if (dst == NULL)
		return -EINVAL;
	if (src->id == dst->id) {
		snprintf(err, NFV_ERR_LEN, "mirror %s: %s cannot be mirrored to itself", name, to);
		return -EINVAL;
	}
	for (d = 0; d < NFV_MIRROR_DIRS; d++)
		if ((dirs & (1u << d)) && nfv_mirror_of[d][src->id] != 0) {
			snprintf(err, NFV_ERR_LEN, "%s is already mirrored %s by %s", dev,
				 d == NFV_MIRROR_IN ? "in" : "out",
				 sessions[nfv_mirror_of[d][src->id] - 1].name);
			return -EEXIST;
		}
	for (idx = 0; idx < NFV_MIRROR_MAX; idx++)
		if (!sessions[idx].used) {
			s = &sessions[idx];
			break;
		}
	if (s == NULL) {
		snprintf(err, NFV_ERR_LEN, "at most %u mirror sessions", NFV_MIRROR_MAX);
		return -ENOSPC;
	}
	rc = pool_make(err);
	if (rc < 0)
		return rc;
	c = malloc(sizeof(*c));
	if (c == NULL) {
		snprintf(err, NFV_ERR_LEN, "out of memory");
		return -ENOMEM;
	}
	counters_since_start(c);
	memset(s, 0, sizeof(*s));
	s->base_copies = c->copies[idx];
	s->base_drops = c->copy_drops[idx];
	s->base_nombuf = c->copy_nombuf[idx];
	free(c);
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->src = src->id;
	s->src_kind = src->kind;
	s->src_port = src->kind == NFV_IFACE_KIND_VLAN ? src->parent : src->id;
	s->dst = dst->id;
	s->dst_port = dst->kind == NFV_IFACE_KIND_VLAN ? dst->parent : dst->id;
	s->dirs = dirs;
	s->used = true;
	__atomic_store_n(&nfv_mirror_dst[idx], s->dst_port, __ATOMIC_RELEASE);
	__atomic_store_n(&nfv_mirror_dst_vlan[idx],
			 dst->kind == NFV_IFACE_KIND_VLAN ? dst->id : 0, __ATOMIC_RELEASE);
	for (d = 0; d < NFV_MIRROR_DIRS; d++) {
		if (!(dirs & (1u << d)))
			continue;
		__atomic_store_n(&nfv_mirror_of[d][src->id], (uint8_t)(idx + 1), __ATOMIC_RELEASE);
		session_hook(s, d, true);
	}
	NFV_LOG(INFO, "mirror %s: %s %s to %s", name, dev, dirs_name(dirs), to);
	return 0;
}

static void
session_remove(struct mirror_session *s)
{
	for (unsigned int d = 0; d < NFV_MIRROR_DIRS; d++) {
		if (!(s->dirs & (1u << d)))
			continue;
		session_hook(s, d, false);
		__atomic_store_n(&nfv_mirror_of[d][s->src], 0, __ATOMIC_RELEASE);
	}
	/* No worker copies for the slot any more once this returns. */
	nfv_rcu_sync();
	NFV_LOG(INFO, "mirror %s removed", s->name);
	s->used = false;
}

int
nfv_mirror_del(const char *name, char *err)
{
	struct mirror_session *s = session_by_name(name);

	if (s == NULL) {
		snprintf(err, NFV_ERR_LEN, "no mirror named %s", name);
		return -ENOENT;
	}
	session_remove(s);
	return 0;
}

json_t *
nfv_mirror_show(void)
{
	struct nfv_mirror_counters *c = malloc(sizeof(*c));
	json_t *a = json_array();

	if (c == NULL)
		return a;
	counters_since_start(c);
	for (unsigned int i = 0; i < NFV_MIRROR_MAX; i++) {
		const struct mirror_session *s = &sessions[i];

		if (!s->used)
			continue;
		json_array_append_new(a, json_pack(
			"{s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "name", s->name,
			"dev", nfv_iface_name_of(s->src), "direction", dirs_name(s->dirs),
			"to", nfv_iface_name_of(s->dst),
			"copies", (json_int_t)(c->copies[i] - s->base_copies),
			"copy_drops", (json_int_t)(c->copy_drops[i] - s->base_drops),
			"copy_nombuf", (json_int_t)(c->copy_nombuf[i] - s->base_nombuf)));
	}
	free(c);
	return json_pack("{s:o}", "mirrors", a);
}

/* An interface that goes takes the sessions that mirror it or to it; a
 * port, those of and to its VLANs too (whichever of the port's and the
 * VLANs' events comes first). */
static void
mirror_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	if (ev != NFV_IFACE_REMOVED)
		return;
	for (unsigned int i = 0; i < NFV_MIRROR_MAX; i++)
		if (sessions[i].used && (sessions[i].src == iface || sessions[i].dst == iface ||
					 sessions[i].src_port == iface ||
					 sessions[i].dst_port == iface))
			session_remove(&sessions[i]);
}
NFV_IFACE_EVENT_HANDLER(mirror_iface_event);

static void
mirror_totals(struct nfv_mirror_counters *c, uint64_t *copies, uint64_t *drops,
	      uint64_t *nombuf)
{
	*copies = *drops = *nombuf = 0;
	for (unsigned int i = 0; i < NFV_MIRROR_MAX; i++) {
		*copies += c->copies[i];
		*drops += c->copy_drops[i];
		*nombuf += c->copy_nombuf[i];
	}
}

static void
mirror_show_stats(json_t *stats)
{
	struct nfv_mirror_counters c;
	uint64_t copies, drops, nombuf;

	nfv_counters_sum(&nfv_mirror_counters_block, &c);
	mirror_totals(&c, &copies, &drops, &nombuf);
	json_object_set_new(stats, "mirror", json_pack("{s:I, s:I, s:I}",
		"copies", (json_int_t)copies, "copy_drops", (json_int_t)drops,
		"copy_nombuf", (json_int_t)nombuf));
}

static void
mirror_metrics(FILE *f)
{
	struct nfv_mirror_counters c;
	uint64_t copies, drops, nombuf;

	nfv_counters_sum(&nfv_mirror_counters_block, &c);
	mirror_totals(&c, &copies, &drops, &nombuf);
	nfv_metrics_help(f, "nfvd_mirror_copies_total", "counter",
			 "Mirror copies the mirror ports took");
	fprintf(f, "nfvd_mirror_copies_total %" PRIu64 "\n", copies);
	nfv_metrics_help(f, "nfvd_mirror_copy_drops_total", "counter",
			 "Mirror copies dropped: mirror port full or down, or no mbuf");
	fprintf(f, "nfvd_mirror_copy_drops_total{reason=\"port\"} %" PRIu64 "\n", drops);
	fprintf(f, "nfvd_mirror_copy_drops_total{reason=\"nombuf\"} %" PRIu64 "\n", nombuf);
}

static const struct nfv_collector mirror_collector = {
	.name = "mirror",
	.show_stats = mirror_show_stats,
	.metrics = mirror_metrics,
};
NFV_COLLECTOR_REGISTER(mirror_collector);

static struct nfv_module mirror_module = {
	.name = "mirror",
	.depends_on = "infra bridge",
};
NFV_MODULE_REGISTER(mirror_module);
