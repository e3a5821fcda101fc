/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfv_handoff: a source node that takes the packets other workers handed
 * to this one (modules/infra/handoff.h) and puts each back into the node
 * its handoff names, in runs of one handoff. Also the rings, the
 * registrations and nfv_handoff_split, which the handing nodes call.
 *
 * Edges: one per registered handoff, in registration order.
 */
#include <inttypes.h>

#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_lcore.h>

#include "core/arc.h"
#include "core/log.h"
#include "core/module.h"
#include "core/node.h"
#include "modules/infra/handoff.h"

uint8_t nfv_handoff_active;
struct rte_ring *nfv_handoff_rings[NFV_MAX_WORKERS][NFV_MAX_WORKERS];

static struct nfv_handoff *handoffs[NFV_HANDOFF_MAX];
static unsigned int n_handoffs;
static uint16_t edge_of[NFV_HANDOFF_MAX]; /* the source node's edge to each */
static unsigned int users;                /* control: modules that need the rings */

void
nfv_handoff_register(struct nfv_handoff *h)
{
	RTE_BUILD_BUG_ON(NFV_HANDOFF_MAX > NFV_HANDOFF_TAG_MASK);
	if (n_handoffs == NFV_HANDOFF_MAX)
		rte_panic("more than %u worker handoffs registered\n", NFV_HANDOFF_MAX);
	h->tag = (uint8_t)n_handoffs;
	handoffs[n_handoffs++] = h;
}

void
nfv_handoff_use(bool on)
{
	if (on)
		users++;
	else if (users > 0)
		users--;
	__atomic_store_n(&nfv_handoff_active, users > 0 && nfv_n_workers > 1, __ATOMIC_RELEASE);
}

void
nfv_handoff_metrics(FILE *f, const char *module, uint64_t out, uint64_t in, uint64_t full)
{
	char family[64], help[96];

	snprintf(family, sizeof(family), "nfvd_%s_handoff_packets_total", module);
	snprintf(help, sizeof(help), "packets handed to the worker owning their %s session",
		 module);
	nfv_metrics_help(f, family, "counter", help);
	fprintf(f, "%s{dir=\"out\"} %" PRIu64 "\n", family, out);
	fprintf(f, "%s{dir=\"in\"} %" PRIu64 "\n", family, in);
	fprintf(f, "%s{dir=\"full\"} %" PRIu64 "\n", family, full);
}

/* Sends the packets of objs[0..n) whose owner is another worker; marks in
 * refused[] those a full ring refused. */
static void
handoff_send(struct nfv_worker *w, const struct nfv_handoff *h, void **objs,
	     const uint16_t *owner, uint16_t n, bool *refused)
{
	uint64_t owners = 0;

	for (uint16_t i = 0; i < n; i++)
		if (owner[i] != NFV_HANDOFF_KEEP)
			owners |= 1ull << owner[i];
	while (owners != 0) {
		unsigned int o = (unsigned int)__builtin_ctzll(owners);
		void *tagged[RTE_GRAPH_BURST_SIZE];
		uint16_t idx[RTE_GRAPH_BURST_SIZE], nb = 0, sent;

		owners &= owners - 1;
		for (uint16_t i = 0; i < n; i++) {
			if (owner[i] == o) {
				idx[nb] = i;
				tagged[nb++] = (void *)((uintptr_t)objs[i] | h->tag);
			}
		}
		sent = (uint16_t)rte_ring_sp_enqueue_burst(nfv_handoff_rings[w->index][o], tagged,
							   nb, NULL);
		*nfv_handoff_counter(w, h, h->out_off) += sent;
		*nfv_handoff_counter(w, h, h->full_off) += (uint64_t)(nb - sent);
		for (uint16_t k = sent; k < nb; k++)
			refused[idx[k]] = true;
	}
}

uint16_t
nfv_handoff_split(struct nfv_worker *w, struct rte_node *node, const struct nfv_handoff *h,
		  void **objs, uint16_t *nexts, const uint16_t *owner, uint16_t n,
		  uint16_t drop_edge, uint16_t reason)
{
	bool refused[RTE_GRAPH_BURST_SIZE] = { false };
	uint16_t keep = 0;

	handoff_send(w, h, objs, owner, n, refused);
	/* What stays, in order: the kept ones, and the refused ones to drop. */
	for (uint16_t i = 0; i < n; i++) {
		if (owner[i] == NFV_HANDOFF_KEEP) {
			objs[keep] = objs[i];
			nexts[keep++] = nexts[i];
		} else if (refused[i]) {
			objs[keep] = objs[i];
			nexts[keep++] = nfv_mark_drop(objs[i], reason, drop_edge);
		}
	}
	/* rte_node_next_stream_move() moves node->idx packets. */
	RTE_ASSERT(objs == node->objs);
	node->idx = keep;
	return keep;
}

uint16_t
nfv_handoff_take(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
		 const struct nfv_handoff *h, void **objs, const uint16_t *owner, uint16_t n,
		 uint16_t drop_edge, uint16_t reason)
{
	bool refused[RTE_GRAPH_BURST_SIZE] = { false };
	uint16_t keep = 0;

	handoff_send(w, h, objs, owner, n, refused);
	for (uint16_t i = 0; i < n; i++) {
		if (owner[i] == NFV_HANDOFF_KEEP) {
			objs[keep++] = objs[i];
		} else if (refused[i]) {
			nfv_mark_drop(objs[i], reason, drop_edge);
			rte_node_enqueue_x1(graph, node, drop_edge, objs[i]);
		}
	}
	RTE_ASSERT(objs == node->objs);
	node->idx = keep;
	return keep;
}

/* The rings to this worker, drained (handoff_process when handoffs are on). */
static __rte_noinline uint16_t
handoff_drain(struct rte_graph *graph, struct rte_node *node)
{
	struct nfv_worker *w = nfv_node_worker(node);
	void *pkts[RTE_GRAPH_BURST_SIZE];
	uint16_t got = 0;

	for (unsigned int from = 0; from < nfv_n_workers && got < RTE_GRAPH_BURST_SIZE; from++) {
		struct rte_ring *r = nfv_handoff_rings[from][w->index];

		if (r == NULL || rte_ring_empty(r))
			continue;
		got = (uint16_t)(got + rte_ring_sc_dequeue_burst(r, &pkts[got],
								 RTE_GRAPH_BURST_SIZE - got, NULL));
	}
	for (uint16_t i = 0; i < got;) {
		uintptr_t tag = (uintptr_t)pkts[i] & NFV_HANDOFF_TAG_MASK;
		uint16_t j = i;

		while (j < got && ((uintptr_t)pkts[j] & NFV_HANDOFF_TAG_MASK) == tag) {
			pkts[j] = (void *)((uintptr_t)pkts[j] & ~NFV_HANDOFF_TAG_MASK);
			j++;
		}
		*nfv_handoff_counter(w, handoffs[tag], handoffs[tag]->in_off) += (uint64_t)(j - i);
		rte_node_enqueue(graph, node, edge_of[tag], &pkts[i], (uint16_t)(j - i));
		i = j;
	}
	return got;
}

/* Idle (the usual case: one worker, or no handoff on) in a load and a
 * branch: the frame of the arrays above is set up only when there is work. */
static uint16_t
handoff_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t count)
{
	RTE_SET_USED(objs);
	RTE_SET_USED(count);
	if (likely(!__atomic_load_n(&nfv_handoff_active, __ATOMIC_RELAXED)))
		return 0;
	return handoff_drain(graph, node);
}

static struct rte_node_register handoff_node = {
	.name = "nfv_handoff",
	.flags = RTE_NODE_SOURCE_F,
	.process = handoff_process,
	.init = nfv_node_ctx_init,
	.nb_edges = 0,
};
RTE_NODE_REGISTER(handoff_node);

/* The edges to the re-entry nodes; one ring per ordered pair of workers
 * (none with one worker). */
static int
handoff_setup(void)
{
	for (unsigned int i = 0; i < n_handoffs; i++) {
		int e = nfv_node_edge_index("nfv_handoff", handoffs[i]->node);

		if (e < 0) {
			NFV_LOG(ERR, "handoff: no edge to %s", handoffs[i]->node);
			return e;
		}
		edge_of[i] = (uint16_t)e;
	}
	if (nfv_n_workers < 2 || n_handoffs == 0)
		return 0;
	for (unsigned int a = 0; a < nfv_n_workers; a++) {
		for (unsigned int b = 0; b < nfv_n_workers; b++) {
			char name[RTE_RING_NAMESIZE];

			if (a == b)
				continue;
			snprintf(name, sizeof(name), "nfv_ho_%u_%u", a, b);
			nfv_handoff_rings[a][b] = rte_ring_create(name, NFV_HANDOFF_RING,
				(int)rte_lcore_to_socket_id(nfv_workers[b].lcore_id),
				RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (nfv_handoff_rings[a][b] == NULL) {
				NFV_LOG(ERR, "handoff: no memory for the worker rings");
				return -ENOMEM;
			}
		}
	}
	return 0;
}
NFV_GRAPH_SETUP(handoff_setup);

/* The workers stopped: what is still on a ring goes back to its pool. */
static void
handoff_stop(void)
{
	for (unsigned int a = 0; a < NFV_MAX_WORKERS; a++) {
		for (unsigned int b = 0; b < NFV_MAX_WORKERS; b++) {
			struct rte_ring *r = nfv_handoff_rings[a][b];
			void *p;

			while (r != NULL && rte_ring_sc_dequeue(r, &p) == 0)
				rte_pktmbuf_free((struct rte_mbuf *)((uintptr_t)p &
								     ~NFV_HANDOFF_TAG_MASK));
		}
	}
}

static void
handoff_fini(void)
{
	for (unsigned int a = 0; a < NFV_MAX_WORKERS; a++) {
		for (unsigned int b = 0; b < NFV_MAX_WORKERS; b++) {
			rte_ring_free(nfv_handoff_rings[a][b]);
			nfv_handoff_rings[a][b] = NULL;
		}
	}
}

static struct nfv_module handoff_module = {
	.name = "handoff",
	.depends_on = "infra",
	.stop = handoff_stop,
	.fini = handoff_fini,
};
NFV_MODULE_REGISTER(handoff_module);
