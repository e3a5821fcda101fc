/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Feature arcs (VPP's feature arcs, per interface). An arc is a point of
 * the graph where features may run between a start node and an end node,
 * e.g. "ip4_ingress" between ip4_input and ip4_lookup. A module declares
 * the arcs its nodes start (NFV_ARC_REGISTER); a feature module declares
 * its node as a feature of an arc, with "runs before/after" another
 * feature (NFV_ARC_FEATURE_REGISTER), and enables it per interface
 * (nfv_arc_feature_set). The start node sends each packet to
 * nfv_arc_start_edge(arc, iface): the first feature enabled on that
 * interface, or straight to the end node, so a feature enabled on one
 * interface costs the others nothing but that one table load. A feature
 * node sends the packets it keeps to nfv_arc_next_edge(feature, iface).
 *
 * An arc may have more start nodes than its own (entries): a node that has
 * done the start node's work itself, e.g. a fused forwarding node that made
 * ip4_input's checks, declares itself an entry of the arc
 * (NFV_ARC_ENTRY_REGISTER) and sends each packet to
 * nfv_arc_entry_edge(entry, iface): the same first feature (or the end),
 * by its own edges. The features see no difference.
 *
 * Edges are added to the nodes by nfv_arcs_init(), before any graph is
 * created; the per-interface tables are written by control (one 16-bit
 * store per entry) and read by workers.
 */
#ifndef NFV_ARC_H
#define NFV_ARC_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

#include <rte_common.h>
#include <rte_config.h>

#include "core/common.h"

#define NFV_ARC_FEATURES_MAX 16
#define NFV_ARC_ENTRIES_MAX 4
#define NFV_ARC_IFACES NFV_IFACE_MAX

struct nfv_arc_feature;
struct nfv_arc_entry;

struct nfv_arc {
	const char *name;
	const char *start_node; /* registered node names */
	const char *end_node;
	/* Set by nfv_arcs_init(). */
	uint16_t n_features;
	uint16_t end_edge;      /* from the start node to the end node */
	uint16_t n_ifaces_on;   /* interfaces with a feature enabled (workers may read) */
	struct nfv_arc_feature *features[NFV_ARC_FEATURES_MAX]; /* in run order */
	uint16_t n_entries;
	struct nfv_arc_entry *entries[NFV_ARC_ENTRIES_MAX]; /* other start nodes */
	uint32_t enabled[NFV_ARC_IFACES];   /* control: bit i for features[i] */
	uint16_t start_edge[NFV_ARC_IFACES] __rte_cache_aligned; /* workers */
	/* Workers: 1 when the interface has features on the arc and every one
	 * of them keeps_route (nfv_arc_routed_ok); route_gen counts the times
	 * it went from 1 to 0. */
	uint8_t routed_ok[NFV_ARC_IFACES];
	uint32_t route_gen[NFV_ARC_IFACES];
	/* Workers: 1 when the interface has features on the arc and every one
	 * of them only observes (nfv_arc_observed_only): its packets all
	 * reach the end node as they would without them. */
	uint8_t observed_only[NFV_ARC_IFACES];
};

struct nfv_arc_feature {
	const char *arc_name;
	const char *node;
	const char *runs_before; /* a feature node of the same arc, or NULL */
	const char *runs_after;
	/* The feature reads a packet's headers and may drop it or pass it on,
	 * but never changes its addresses (nor anything else a route depends
	 * on) and reads neither its TTL / hop limit nor its Ethernet header:
	 * a packet may reach it already forwarded (looked up, rewritten, its
	 * output port in meta.tx_port), as the fused IPv4 node sends it to an
	 * interface's ingress features when all of them keep the route. */
	bool keeps_route;
	/* The feature only watches: it passes every packet on to the next
	 * feature unchanged (a mirror, a capture). A start node that would
	 * treat a packet differently when it does not go straight to the end
	 * node may treat it as if it did (nfv_arc_observed_only). */
	bool observes;
	/* Set by nfv_arcs_init(). */
	struct nfv_arc *arc;
	uint16_t index;                               /* in arc->features */
	uint16_t edge_from_start;
	uint16_t edge_to[NFV_ARC_FEATURES_MAX + 1];   /* to later features, [n] the end */
	uint16_t next_edge[NFV_ARC_IFACES] __rte_cache_aligned; /* workers */
};

/* Another start node of an arc: its own edges to the features and the end
 * node, and its own per-interface table of where a packet goes first. */
struct nfv_arc_entry {
	const char *arc_name;
	const char *node;
	/* Set by nfv_arcs_init(). */
	struct nfv_arc *arc;
	uint16_t end_edge;                            /* to the arc's end node */
	uint16_t edge_to[NFV_ARC_FEATURES_MAX];       /* to each feature */
	uint16_t start_edge[NFV_ARC_IFACES] __rte_cache_aligned; /* workers */
};

void nfv_arc_register(struct nfv_arc *a);
void nfv_arc_feature_register(struct nfv_arc_feature *f);
void nfv_arc_entry_register(struct nfv_arc_entry *e);

#define NFV_ARC_REGISTER(a) \
	RTE_INIT(nfv_arc_register_##a) \
	{ \
		nfv_arc_register(&(a)); \
	}

#define NFV_ARC_FEATURE_REGISTER(f) \
	RTE_INIT(nfv_arc_feature_register_##f) \
	{ \
		nfv_arc_feature_register(&(f)); \
	}

#define NFV_ARC_ENTRY_REGISTER(e) \
	RTE_INIT(nfv_arc_entry_register_##e) \
	{ \
		nfv_arc_entry_register(&(e)); \
	}

/* The index of node from's edge to node to (registered names), added at the
 * end of its edges if it has none; -errno. Only before the graphs exist. */
int nfv_node_edge_index(const char *from, const char *to);

/* Resolves names, orders each arc's features, adds the edges. Once, before
 * the workers' graphs are created; 0 or -errno (logged). */
int nfv_arcs_init(void);
/* Enables or disables a feature on an interface; 0 or -errno with err. */
int nfv_arc_feature_set(const char *arc, const char *feature_node, uint16_t iface, bool on,
			char *err);
/* Every feature off on an interface (it is going away). */
void nfv_arcs_iface_clear(uint16_t iface);
struct nfv_arc *nfv_arc_by_name(const char *name);
unsigned int nfv_arcs_count(void);
struct nfv_arc *nfv_arc_at(unsigned int i);

static __rte_always_inline uint16_t
nfv_arc_start_edge(const struct nfv_arc *a, uint16_t iface)
{
	return a->start_edge[iface];
}

/* From an entry: the first feature enabled on iface, else the end node. */
static __rte_always_inline uint16_t
nfv_arc_entry_edge(const struct nfv_arc_entry *e, uint16_t iface)
{
	return e->start_edge[iface];
}

/*
 * Whether a packet of iface may walk the arc's features already routed:
 * iface has features on the arc, all of them keeps_route. A node that
 * routes a packet on this answer stamps it with nfv_arc_route_gen(), read
 * before it. When the answer goes to 0, the gen moves on: the arc's end
 * node trusts a routed packet only while its stamp is the interface's gen
 * (else it routes the packet again, as if it had not been). When that is
 * because a feature that does not keep the route is enabled, a grace
 * period also passes before its edges are written: no packet routed
 * before meets it within a walk (one handed to another worker in between
 * may, and the end node sees its stamp is old).
 */
static __rte_always_inline uint32_t
nfv_arc_route_gen(const struct nfv_arc *a, uint16_t iface)
{
	return __atomic_load_n(&a->route_gen[iface], __ATOMIC_ACQUIRE);
}

static __rte_always_inline bool
nfv_arc_routed_ok(const struct nfv_arc *a, uint16_t iface)
{
	return __atomic_load_n(&a->routed_ok[iface], __ATOMIC_ACQUIRE) != 0;
}

/* Whether iface's packets walk features that only observe (and at least
 * one): they reach the end node as if no feature were on. */
static __rte_always_inline bool
nfv_arc_observed_only(const struct nfv_arc *a, uint16_t iface)
{
	return __atomic_load_n(&a->observed_only[iface], __ATOMIC_RELAXED) != 0;
}

static __rte_always_inline uint16_t
nfv_arc_next_edge(const struct nfv_arc_feature *f, uint16_t iface)
{
	return f->next_edge[iface];
}

/*
 * A feature's next edge for the packets of one burst, read once per
 * change of interface: control may change the arc while a worker is in the
 * middle of a burst, and a table read for every packet could then send a
 * flow's packets two ways, the first ones through a feature and the later
 * ones past it, which reorders them. Start with { .iface = UINT16_MAX }.
 */
struct nfv_arc_burst_edge {
	uint16_t iface;
	uint16_t edge;
};

static __rte_always_inline uint16_t
nfv_arc_burst_next_edge(const struct nfv_arc_feature *f, struct nfv_arc_burst_edge *c,
			uint16_t iface)
{
	if (unlikely(iface != c->iface)) {
		c->iface = iface;
		c->edge = nfv_arc_next_edge(f, iface);
	}
	return c->edge;
}

#endif
