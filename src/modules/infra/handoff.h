/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Worker handoff: a node that finds a packet belongs to state another
 * worker owns (a NAT session made there, a connection hashed to it) hands
 * the packet over, and the owner puts it back into the node it left,
 * where it is now at home (VPP's worker handoff).
 *
 * A module registers a handoff (NFV_HANDOFF_REGISTER) naming the node the
 * packets re-enter and three uint64_t counters of one of its counter
 * blocks: handed out, taken in, refused (ring full). nfv_handoff_use()
 * turns the rings on while a module needs them (with one worker there
 * are none). Each ordered pair of workers has one single-producer,
 * single-consumer ring of NFV_HANDOFF_RING packets; each packet carries
 * its handoff's tag in the pointer's low bits (mbufs are cache-line
 * aligned). The nfv_handoff source node of each worker empties the rings
 * to it; while no module uses a handoff it costs one load a walk.
 *
 * A handed-off packet is freed (or sent) by its owner: an exception to
 * "allocated and freed on one core", for these packets only.
 */
#ifndef NFV_HANDOFF_H
#define NFV_HANDOFF_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_graph.h>
#include <rte_hash_crc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "core/counters.h"
#include "core/node.h"
#include "core/worker.h"

#define NFV_HANDOFF_RING 1024
#define NFV_HANDOFF_TAG_MASK ((uintptr_t)RTE_CACHE_LINE_SIZE - 1)
#define NFV_HANDOFF_MAX 16
/* In an owner array: the packet stays with this worker. */
#define NFV_HANDOFF_KEEP UINT16_MAX

struct nfv_handoff {
	const char *node;                      /* re-entry node at the owner */
	const struct nfv_counter_block *block; /* the module's counters: */
	uint32_t out_off, in_off, full_off;    /* offsets of uint64_t counters in it */
	/* Set at registration. */
	uint8_t tag;
};

void nfv_handoff_register(struct nfv_handoff *h);

#define NFV_HANDOFF_REGISTER(h) \
	RTE_INIT(nfv_handoff_register_##h) \
	{ \
		nfv_handoff_register(&(h)); \
	}

/* Defines and registers handoff var re-entering node_name, counted in the
 * handoff_out, handoff_in and handoff_full fields of counter block blk,
 * whose type is ctype. */
#define NFV_HANDOFF_DEFINE(var, node_name, blk, ctype) \
	struct nfv_handoff var = { \
		.node = node_name, \
		.block = &(blk), \
		.out_off = offsetof(ctype, handoff_out), \
		.in_off = offsetof(ctype, handoff_in), \
		.full_off = offsetof(ctype, handoff_full), \
	}; \
	NFV_HANDOFF_REGISTER(var)

/* Workers read: whether any module uses a handoff (and there are rings). */
extern uint8_t nfv_handoff_active;
extern struct rte_ring *nfv_handoff_rings[NFV_MAX_WORKERS][NFV_MAX_WORKERS]; /* [from][to] */

/* Writes the Prometheus family nfvd_<module>_handoff_packets_total{dir}. */
void nfv_handoff_metrics(FILE *f, const char *module, uint64_t out, uint64_t in, uint64_t full);

/* Control: a module starts (on) or stops (off) needing the handoff; the
 * rings are used while any does. Calls must pair. */
void nfv_handoff_use(bool on);

static __rte_always_inline uint64_t *
nfv_handoff_counter(struct nfv_worker *w, const struct nfv_handoff *h, uint32_t off)
{
	return (uint64_t *)RTE_PTR_ADD(nfv_worker_counters(w, h->block), off);
}

/*
 * For a node that hands packets over before it decides anything: the
 * packets of its stream (objs = node->objs, n of them) whose owner[i] is
 * not NFV_HANDOFF_KEEP go to that worker, those a full ring refuses to
 * drop_edge with drop reason `reason`; the others stay, compacted at the
 * front of objs in order, and the stream's count becomes theirs. Returns
 * how many stay.
 */
uint16_t nfv_handoff_take(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
			  const struct nfv_handoff *h, void **objs, const uint16_t *owner,
			  uint16_t n, uint16_t drop_edge, uint16_t reason);

/* The worker owning the state of the flows of an outside endpoint, addr
 * and port (network order) as a packet carries them: for a NAT or
 * load-balancer session, the client, which both directions carry (one as
 * source, the other as destination). */
static __rte_always_inline uint16_t
nfv_handoff_endpoint_owner(rte_be32_t addr, rte_be16_t port)
{
	return (uint16_t)(rte_hash_crc_4byte(addr, port) % nfv_n_workers);
}

/*
 * The packets of the node's stream (objs = node->objs, n of them) whose
 * owner[i] is not NFV_HANDOFF_KEEP go to that worker; the others stay,
 * compacted at the front of objs (and their nexts[] with them) in order,
 * and the stream's count becomes theirs (so that moving the stream moves
 * only them). A packet a full ring refuses stays too, marked with drop
 * reason `reason` for edge drop_edge. Returns how many stay. Counts out
 * and full in the module's counters.
 */
uint16_t nfv_handoff_split(struct nfv_worker *w, struct rte_node *node,
			   const struct nfv_handoff *h, void **objs, uint16_t *nexts,
			   const uint16_t *owner, uint16_t n, uint16_t drop_edge, uint16_t reason);

/*
 * What a handing node keeps over one burst: whether the handoff is on,
 * and the packets it marked for another worker. Usage:
 *
 *	struct nfv_handoff_burst ho;
 *
 *	nfv_handoff_burst_init(&ho);
 *	for each packet i (nexts[i] set first):
 *		if (ho.on && nfv_handoff_mark(&ho, w, i, owner_of_i))
 *			continue;
 *	nfv_handoff_enqueue(graph, node, w, &handoff, &ho, objs, nexts, n, drop, reason);
 */
struct nfv_handoff_burst {
	bool on;
	uint16_t n;
	uint16_t owner[RTE_GRAPH_BURST_SIZE];
};

static __rte_always_inline void
nfv_handoff_burst_init(struct nfv_handoff_burst *b)
{
	b->on = __atomic_load_n(&nfv_handoff_active, __ATOMIC_RELAXED);
	b->n = 0;
}

/* Packet i goes to worker o unless o is this worker (or NFV_HANDOFF_KEEP):
 * true when it goes (the caller leaves it alone). */
static __rte_always_inline bool
nfv_handoff_mark(struct nfv_handoff_burst *b, const struct nfv_worker *w, uint16_t i, uint16_t o)
{
	if (o == NFV_HANDOFF_KEEP || o == w->index)
		return false;
	if (b->n++ == 0)
		memset(b->owner, 0xff, sizeof(b->owner)); /* NFV_HANDOFF_KEEP */
	b->owner[i] = o;
	return true;
}

/* The end of the burst: the marked packets to their workers, the others
 * (objs[i] to nexts[i]) on their way. */
static __rte_always_inline void
nfv_handoff_enqueue(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
		    const struct nfv_handoff *h, const struct nfv_handoff_burst *b, void **objs,
		    uint16_t *nexts, uint16_t n, uint16_t drop_edge, uint16_t reason)
{
	if (unlikely(b->n != 0))
		n = nfv_handoff_split(w, node, h, objs, nexts, b->owner, n, drop_edge, reason);
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
}

#endif
