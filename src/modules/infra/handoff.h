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

#include <rte_common.h>
#include <rte_graph.h>
#include <rte_hash_crc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "core/counters.h"
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

#endif
