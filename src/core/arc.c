/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_debug.h>
#include <rte_graph.h>

#include "core/arc.h"
#include "core/common.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/worker.h"

#define NFV_ARCS_MAX 16
#define NFV_FEATURES_MAX 64
#define NFV_ENTRIES_MAX 16

static struct nfv_arc *arcs[NFV_ARCS_MAX];
static unsigned int n_arcs;
static struct nfv_arc_feature *features[NFV_FEATURES_MAX];
static unsigned int n_features;
static struct nfv_arc_entry *entries[NFV_ENTRIES_MAX];
static unsigned int n_entries;
static bool arcs_ready;

void
nfv_arc_register(struct nfv_arc *a)
{
	if (n_arcs == NFV_ARCS_MAX)
		rte_panic("too many arcs (%s)\n", a->name);
	arcs[n_arcs++] = a;
}

void
nfv_arc_feature_register(struct nfv_arc_feature *f)
{
	if (n_features == NFV_FEATURES_MAX)
		rte_panic("too many arc features (%s)\n", f->node);
	features[n_features++] = f;
}

void
nfv_arc_entry_register(struct nfv_arc_entry *e)
{
	if (n_entries == NFV_ENTRIES_MAX)
		rte_panic("too many arc entries (%s)\n", e->node);
	entries[n_entries++] = e;
}

struct nfv_arc *
nfv_arc_by_name(const char *name)
{
	for (unsigned int i = 0; i < n_arcs; i++)
		if (strcmp(arcs[i]->name, name) == 0)
			return arcs[i];
	return NULL;
}

unsigned int
nfv_arcs_count(void)
{
	return n_arcs;
}

struct nfv_arc *
nfv_arc_at(unsigned int i)
{
	return i < n_arcs ? arcs[i] : NULL;
}

/* The index of node `from`'s edge to `to`, added at the end if missing. */
int
nfv_node_edge_index(const char *from, const char *to)
{
	rte_node_t id = rte_node_from_name(from);
	rte_edge_t n;
	char **next;
	int idx = -1;

	if (id == RTE_NODE_ID_INVALID || rte_node_from_name(to) == RTE_NODE_ID_INVALID) {
		NFV_LOG(ERR, "arc: no node %s", id == RTE_NODE_ID_INVALID ? from : to);
		return -ENOENT;
	}
	n = rte_node_edge_count(id);
	if (n != 0 && n != RTE_EDGE_ID_INVALID) {
		next = malloc(rte_node_edge_get(id, NULL));
		if (next == NULL)
			return -ENOMEM;
		rte_node_edge_get(id, next);
		for (rte_edge_t e = 0; e < n && idx < 0; e++)
			if (strcmp(next[e], to) == 0)
				idx = e;
		free(next);
		if (idx >= 0)
			return idx;
	} else {
		n = 0;
	}
	if (rte_node_edge_update(id, RTE_EDGE_ID_INVALID, &to, 1) == 0)
		return -ENOMEM;
	return (int)n;
}

static int
feature_pos(const struct nfv_arc *a, const char *node)
{
	for (unsigned int i = 0; i < a->n_features; i++)
		if (strcmp(a->features[i]->node, node) == 0)
			return (int)i;
	return -1;
}

/* Orders an arc's features so that every "runs before/after" holds: moves
 * a feature that breaks one next to the other until none does. */
static int
arc_order(struct nfv_arc *a)
{
	for (unsigned int pass = 0; pass <= a->n_features * a->n_features; pass++) {
		bool moved = false;

		for (unsigned int i = 0; i < a->n_features && !moved; i++) {
			struct nfv_arc_feature *f = a->features[i];
			int before = f->runs_before ? feature_pos(a, f->runs_before) : -1;
			int after = f->runs_after ? feature_pos(a, f->runs_after) : -1;
			int to = -1;

			if (before >= 0 && (int)i > before)
				to = before;      /* take the other's place, it moves up */
			else if (after >= 0 && (int)i < after)
				to = after;       /* take its place, it moves down */
			if (to < 0)
				continue;
			if (to < (int)i)
				memmove(&a->features[to + 1], &a->features[to],
					(i - (unsigned int)to) * sizeof(a->features[0]));
			else
				memmove(&a->features[i], &a->features[i + 1],
					((unsigned int)to - i) * sizeof(a->features[0]));
			a->features[to] = f;
			moved = true;
		}
		if (!moved)
			return 0;
	}
	NFV_LOG(ERR, "arc %s: the features' runs before/after cannot all hold", a->name);
	return -ELOOP;
}

/* The edges of one interface: from the start node (and each entry) to the
 * first enabled feature, from each feature to the next enabled one, else to
 * the end. */
static bool arc_routed(const struct nfv_arc *a, uint32_t on);

static void
arc_iface_update(struct nfv_arc *a, uint16_t iface)
{
	uint32_t on = a->enabled[iface];
	int next = (int)a->n_features; /* the end */
	bool routed = arc_routed(a, on);
	bool observed = on != 0;

	/* Observers only: said before the edges lead to them, unsaid after
	 * the edges lead elsewhere. */
	for (unsigned int i = 0; i < a->n_features; i++)
		if ((on & (1u << i)) && !a->features[i]->observes)
			observed = false;
	if (observed)
		__atomic_store_n(&a->observed_only[iface], 1, __ATOMIC_RELEASE);

	/* Routed packets stamped before this are routed again at the arc's
	 * end; a feature that does not keep the route: no packet routed
	 * before it is enabled is still in a walk when its edges are written.
	 * (routed_ok first, then the gen: a packet stamped with the old gen
	 * may have seen routed_ok 1, one with the new gen has seen 0.) */
	if (!routed && __atomic_load_n(&a->routed_ok[iface], __ATOMIC_RELAXED)) {
		__atomic_store_n(&a->routed_ok[iface], 0, __ATOMIC_RELEASE);
		__atomic_store_n(&a->route_gen[iface], a->route_gen[iface] + 1, __ATOMIC_RELEASE);
		if (on != 0)
			nfv_rcu_sync();
	}

	for (int i = (int)a->n_features - 1; i >= 0; i--) {
		struct nfv_arc_feature *f = a->features[i];

		__atomic_store_n(&f->next_edge[iface], f->edge_to[next], __ATOMIC_RELEASE);
		if (on & (1u << i))
			next = i;
	}
	__atomic_store_n(&a->start_edge[iface],
			 next == (int)a->n_features ? a->end_edge :
			 a->features[next]->edge_from_start, __ATOMIC_RELEASE);
	for (unsigned int k = 0; k < a->n_entries; k++) {
		struct nfv_arc_entry *e = a->entries[k];

		__atomic_store_n(&e->start_edge[iface],
				 next == (int)a->n_features ? e->end_edge : e->edge_to[next],
				 __ATOMIC_RELEASE);
	}
	{
		uint16_t n = 0;

		for (uint16_t i = 0; i < NFV_ARC_IFACES; i++)
			n += a->enabled[i] != 0;
		__atomic_store_n(&a->n_ifaces_on, n, __ATOMIC_RELEASE);
	}
	if (routed)
		__atomic_store_n(&a->routed_ok[iface], 1, __ATOMIC_RELEASE);
	if (!observed)
		__atomic_store_n(&a->observed_only[iface], 0, __ATOMIC_RELEASE);
}

int
nfv_arcs_init(void)
{
	int rc;

	if (arcs_ready)
		return 0;
	for (unsigned int k = 0; k < n_features; k++) {
		struct nfv_arc_feature *f = features[k];
		struct nfv_arc *a = nfv_arc_by_name(f->arc_name);

		if (a == NULL) {
			NFV_LOG(ERR, "feature %s: no arc %s", f->node, f->arc_name);
			return -ENOENT;
		}
		if (a->n_features == NFV_ARC_FEATURES_MAX) {
			NFV_LOG(ERR, "arc %s: more than %u features", a->name,
				NFV_ARC_FEATURES_MAX);
			return -ENOSPC;
		}
		f->arc = a;
		a->features[a->n_features++] = f;
	}
	for (unsigned int k = 0; k < n_entries; k++) {
		struct nfv_arc_entry *e = entries[k];
		struct nfv_arc *a = nfv_arc_by_name(e->arc_name);

		if (a == NULL) {
			NFV_LOG(ERR, "arc entry %s: no arc %s", e->node, e->arc_name);
			return -ENOENT;
		}
		if (a->n_entries == NFV_ARC_ENTRIES_MAX) {
			NFV_LOG(ERR, "arc %s: more than %u entries", a->name,
				NFV_ARC_ENTRIES_MAX);
			return -ENOSPC;
		}
		e->arc = a;
		a->entries[a->n_entries++] = e;
	}
	for (unsigned int k = 0; k < n_arcs; k++) {
		struct nfv_arc *a = arcs[k];

		rc = arc_order(a);
		if (rc < 0)
			return rc;
		rc = nfv_node_edge_index(a->start_node, a->end_node);
		if (rc < 0)
			return rc;
		a->end_edge = (uint16_t)rc;
		for (unsigned int i = 0; i < a->n_features; i++) {
			struct nfv_arc_feature *f = a->features[i];

			f->index = (uint16_t)i;
			rc = nfv_node_edge_index(a->start_node, f->node);
			if (rc < 0)
				return rc;
			f->edge_from_start = (uint16_t)rc;
			for (unsigned int j = i + 1; j <= a->n_features; j++) {
				rc = nfv_node_edge_index(f->node, j < a->n_features ?
						a->features[j]->node : a->end_node);
				if (rc < 0)
					return rc;
				f->edge_to[j] = (uint16_t)rc;
			}
		}
		for (unsigned int x = 0; x < a->n_entries; x++) {
			struct nfv_arc_entry *e = a->entries[x];

			rc = nfv_node_edge_index(e->node, a->end_node);
			if (rc < 0)
				return rc;
			e->end_edge = (uint16_t)rc;
			for (unsigned int i = 0; i < a->n_features; i++) {
				rc = nfv_node_edge_index(e->node, a->features[i]->node);
				if (rc < 0)
					return rc;
				e->edge_to[i] = (uint16_t)rc;
			}
		}
		memset(a->enabled, 0, sizeof(a->enabled));
		for (uint16_t iface = 0; iface < NFV_ARC_IFACES; iface++)
			arc_iface_update(a, iface);
	}
	arcs_ready = true;
	return 0;
}

int
nfv_arc_feature_set(const char *arc, const char *feature_node, uint16_t iface, bool on,
		    char *err)
{
	struct nfv_arc *a = nfv_arc_by_name(arc);
	int i;

	if (a == NULL || !arcs_ready) {
		snprintf(err, NFV_ERR_LEN, "no arc %s", arc);
		return -ENOENT;
	}
	i = feature_pos(a, feature_node);
	if (i < 0) {
		snprintf(err, NFV_ERR_LEN, "%s is not a feature of arc %s", feature_node, arc);
		return -ENOENT;
	}
	if (iface >= NFV_ARC_IFACES) {
		snprintf(err, NFV_ERR_LEN, "no interface %u", iface);
		return -EINVAL;
	}
	if (on)
		a->enabled[iface] |= 1u << i;
	else
		a->enabled[iface] &= ~(1u << i);
	arc_iface_update(a, iface);
	return 0;
}

/* Whether enabled set on (of arc a) lets packets walk it routed. */
static bool
arc_routed(const struct nfv_arc *a, uint32_t on)
{
	if (on == 0)
		return false;
	for (unsigned int i = 0; i < a->n_features; i++)
		if ((on & (1u << i)) && !a->features[i]->keeps_route)
			return false;
	return true;
}

void
nfv_arcs_iface_clear(uint16_t iface)
{
	for (unsigned int k = 0; k < n_arcs && arcs_ready; k++) {
		arcs[k]->enabled[iface] = 0;
		arc_iface_update(arcs[k], iface);
	}
}

/* An interface that goes takes its features with it (its id may come back
 * as another interface). */
static void
arcs_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	if (ev == NFV_IFACE_REMOVED && iface < NFV_ARC_IFACES)
		nfv_arcs_iface_clear(iface);
}
NFV_IFACE_EVENT_HANDLER(arcs_iface_event);
