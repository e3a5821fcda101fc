/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Worker lcores and the RX queue map. Every worker walks its own clone of
 * the graph and reports a quiescent state after each walk; the control
 * thread publishes new queue maps and table entries with RCU and never
 * stops a worker to do so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_debug.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "core/arc.h"
#include "core/counters.h"
#include "core/walk.h"
#include "core/worker.h"
#include "core/log.h"
#include "modules/infra/port.h"

struct nfv_worker nfv_workers[NFV_MAX_WORKERS];
unsigned int nfv_n_workers;
struct rte_rcu_qsbr *nfv_rcu;
struct rte_meter_srtcm_profile nfv_icmp_meter_profile;
struct nfv_worker *nfv_worker_being_built;
int nfv_logtype = RTE_LOGTYPE_USER1;

static unsigned int burst_size = NFV_BURST_DEFAULT;
static unsigned int walk_max = NFV_BURST_DEFAULT;
/* No queue is polled until the startup file has been applied whole. */
static bool polling_enabled;
static uint64_t grace_periods;

/* Explicit "worker set" assignments, by port and queue: worker index + 1. */
static uint8_t pinned[RTE_MAX_ETHPORTS][NFV_MAX_RXQ_PER_WORKER];

/* Each worker's graph holds every node a module registered: their names
 * carry the project prefix (DPDK's own librte_node has an "ip4_lookup").
 * They are listed from the sources along the edges (breadth first), so that
 * the views show the graph in the order packets cross it. */
#define NFV_MAX_GRAPH_NODES 256
static const char *graph_nodes[NFV_MAX_GRAPH_NODES];
static unsigned int n_graph_nodes;

static bool
is_nfv_node(rte_node_t id)
{
	const char *name = rte_node_id_to_name(id);

	return name != NULL && strncmp(name, NFV_NODE_PREFIX, strlen(NFV_NODE_PREFIX)) == 0;
}

static unsigned int
node_edges(rte_node_t id, char ***next)
{
	rte_edge_t n = rte_node_edge_count(id);

	*next = NULL;
	if (n == 0 || n == RTE_EDGE_ID_INVALID)
		return 0;
	*next = malloc(rte_node_edge_get(id, NULL));
	if (*next == NULL)
		return 0;
	rte_node_edge_get(id, *next);
	return n;
}

static int
graph_nodes_collect(void)
{
	rte_node_t max = rte_node_max_count();
	rte_node_t order[NFV_MAX_GRAPH_NODES];
	bool *target = calloc(max + 1, sizeof(bool)), *seen = calloc(max + 1, sizeof(bool));
	unsigned int n = 0, head = 0;

	if (target == NULL || seen == NULL) {
		free(target);
		free(seen);
		return -ENOMEM;
	}
	for (rte_node_t id = 0; id < max; id++) {
		char **next;
		unsigned int k = is_nfv_node(id) ? node_edges(id, &next) : 0;

		for (unsigned int e = 0; e < k; e++) {
			rte_node_t t = rte_node_from_name(next[e]);

			if (t < max)
				target[t] = true;
		}
		if (k > 0)
			free(next);
	}
	/* Sources first (nothing points to them), then along the edges; any
	 * node left (a cycle with no source) at the end. */
	for (int pass = 0; pass < 2; pass++) {
		for (rte_node_t id = 0; id < max && n < NFV_MAX_GRAPH_NODES; id++) {
			if (!is_nfv_node(id) || seen[id] || (pass == 0 && target[id]))
				continue;
			seen[id] = true;
			order[n++] = id;
			while (head < n) {
				char **next;
				unsigned int k = node_edges(order[head++], &next);

				for (unsigned int e = 0; e < k && n < NFV_MAX_GRAPH_NODES; e++) {
					rte_node_t t = rte_node_from_name(next[e]);

					if (t < max && !seen[t] && is_nfv_node(t)) {
						seen[t] = true;
						order[n++] = t;
					}
				}
				if (k > 0)
					free(next);
			}
		}
	}
	for (unsigned int i = 0; i < n; i++)
		graph_nodes[i] = rte_node_id_to_name(order[i]);
	n_graph_nodes = n;
	free(target);
	free(seen);
	return 0;
}

#define NFV_GRAPH_SETUP_MAX 16
static int (*graph_setup_fns[NFV_GRAPH_SETUP_MAX])(void);
static unsigned int n_graph_setup_fns;

void
nfv_graph_setup_register(int (*fn)(void))
{
	if (n_graph_setup_fns == NFV_GRAPH_SETUP_MAX)
		rte_panic("too many graph setup functions\n");
	graph_setup_fns[n_graph_setup_fns++] = fn;
}

int
nfv_graph_setup(void)
{
	static bool done;
	int rc = nfv_arcs_init();

	if (rc < 0 || done)
		return rc;
	for (unsigned int i = 0; i < n_graph_setup_fns; i++) {
		rc = graph_setup_fns[i]();
		if (rc < 0)
			return rc;
	}
	done = true;
	return 0;
}

static const char *poller_name;

void
nfv_walk_poller_register(const char *node_name)
{
	poller_name = node_name;
}

/* Puts the poller last among graph's sources (their order means nothing
 * else); false when it has none. */
static bool
poller_last(struct rte_graph *graph)
{
	rte_graph_off_t *src = graph->cir_start;

	if (poller_name == NULL)
		return false;
	for (int32_t k = (int32_t)graph->head; k < 0; k++) {
		const struct rte_node *node = RTE_PTR_ADD(graph, src[k]);

		if (strcmp(node->name, poller_name) == 0) {
			rte_graph_off_t off = src[k];

			src[k] = src[-1];
			src[-1] = off;
			return true;
		}
	}
	return false;
}

int
nfv_node_ctx_init(const struct rte_graph *graph, struct rte_node *node)
{
	struct nfv_node_ctx *ctx = (struct nfv_node_ctx *)node->ctx;

	RTE_BUILD_BUG_ON(sizeof(struct nfv_node_ctx) > RTE_NODE_CTX_SZ);
	ctx->worker = nfv_worker_being_built;
	return ctx->worker == NULL ? -EINVAL : 0;
}

void
nfv_rcu_sync(void)
{
	if (nfv_rcu == NULL) /* no worker has started */
		return;
	rte_rcu_qsbr_synchronize(nfv_rcu, RTE_QSBR_THRID_INVALID);
	grace_periods++;
}

uint64_t
nfv_rcu_grace_periods(void)
{
	return grace_periods;
}

struct nfv_worker *
nfv_worker_by_lcore(unsigned int lcore)
{
	for (unsigned int i = 0; i < nfv_n_workers; i++)
		if (nfv_workers[i].lcore_id == lcore)
			return &nfv_workers[i];
	return NULL;
}

int
nfv_workers_init(unsigned int burst, unsigned int max_per_walk)
{
	struct rte_meter_srtcm_params icmp = { .cir = 1000, .cbs = 100, .ebs = 0 };
	size_t sz;
	unsigned int lcore;

	burst_size = burst;
	walk_max = RTE_MAX(max_per_walk, burst);
	if (walk_max > RTE_GRAPH_BURST_SIZE)
		walk_max = RTE_GRAPH_BURST_SIZE;
	nfv_n_workers = 0;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (nfv_n_workers == NFV_MAX_WORKERS)
			break;
		nfv_workers[nfv_n_workers].lcore_id = lcore;
		nfv_workers[nfv_n_workers].index = nfv_n_workers;
		nfv_n_workers++;
	}
	if (nfv_n_workers == 0) {
		NFV_LOG(ERR, "no worker lcore: give EAL at least two lcores (e.g. -l 0,1): the "
			"first runs control, the others forward");
		return -EINVAL;
	}
	sz = rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE);
	nfv_rcu = rte_zmalloc("nfv_rcu", sz, RTE_CACHE_LINE_SIZE);
	if (nfv_rcu == NULL || rte_rcu_qsbr_init(nfv_rcu, RTE_MAX_LCORE) != 0)
		return -ENOMEM;
	/* ICMP error rate limit: 1000 per second per worker, bursts of 100
	 * (one "byte" of the meter is one packet). */
	if (rte_meter_srtcm_profile_config(&nfv_icmp_meter_profile, &icmp) != 0)
		return -EINVAL;
	if (nfv_graph_setup() < 0)
		return -EINVAL;
	if (graph_nodes_collect() < 0)
		return -ENOMEM;
	for (unsigned int i = 0; i < nfv_n_workers; i++) {
		struct nfv_worker *w = &nfv_workers[i];
		struct rte_graph_param prm = {
			.socket_id = (int)rte_lcore_to_socket_id(w->lcore_id),
			.nb_node_patterns = n_graph_nodes,
			.node_patterns = graph_nodes,
		};
		char name[RTE_GRAPH_NAMESIZE];

		/* Kept until exit: the exit summary reads them after the workers stop. */
		w->counters = rte_zmalloc_socket("nfv_counters", nfv_counters_area_size() + 8,
						 RTE_CACHE_LINE_SIZE, prm.socket_id);
		w->counters_base = rte_zmalloc("nfv_counters_base",
					       nfv_counters_area_size() + 8, 0);
		if (w->counters == NULL || w->counters_base == NULL)
			return -ENOMEM;
		rte_meter_srtcm_config(&w->icmp_meter[0], &nfv_icmp_meter_profile);
		rte_meter_srtcm_config(&w->icmp_meter[1], &nfv_icmp_meter_profile);
		w->conf = rte_zmalloc("nfv_wconf", sizeof(*w->conf), 0);
		if (w->conf == NULL)
			return -ENOMEM;
		w->conf->burst = (uint16_t)burst_size;
		w->conf->walk_max = (uint16_t)walk_max;
		/* Address space only until a long stream first needs it. */
		w->slice_rest = malloc(sizeof(void *) * (UINT16_MAX + 1 - RTE_GRAPH_BURST_SIZE));
		if (w->slice_rest == NULL)
			return -ENOMEM;
		snprintf(name, sizeof(name), "worker%u", w->index);
		nfv_worker_being_built = w;
		w->graph_id = rte_graph_create(name, &prm);
		nfv_worker_being_built = NULL;
		if (w->graph_id == RTE_GRAPH_ID_INVALID) {
			NFV_LOG(ERR, "cannot create the graph of worker %u (lcore %u): %s", i,
				w->lcore_id, rte_strerror(rte_errno));
			return -ENOMEM;
		}
		w->graph = rte_graph_lookup(name);
		w->services_lazy = poller_last(w->graph);
	}
	return 0;
}

uint32_t
nfv_walk_slices(struct rte_graph *graph, struct rte_node *node)
{
	const uint32_t rest = node->idx - RTE_GRAPH_BURST_SIZE;
	struct nfv_worker *w = &nfv_workers[0];
	uint32_t rc, done = 0;

	for (unsigned int i = 1; i < nfv_n_workers; i++)
		if (nfv_workers[i].graph == graph)
			w = &nfv_workers[i];
	__atomic_store_n(&w->slice_streams, w->slice_streams + 1, __ATOMIC_RELAXED);
	memcpy(w->slice_rest, &node->objs[RTE_GRAPH_BURST_SIZE], sizeof(void *) * rest);
	node->idx = RTE_GRAPH_BURST_SIZE;
	rc = node->process(graph, node, node->objs, RTE_GRAPH_BURST_SIZE);
	while (done < rest) {
		/* The node may have moved its buffer on to the next node and
		 * taken that one's (never smaller than a slice). */
		uint16_t n = (uint16_t)RTE_MIN(rest - done, (uint32_t)RTE_GRAPH_BURST_SIZE);

		memcpy(node->objs, &w->slice_rest[done], sizeof(void *) * n);
		node->idx = n;
		rc += node->process(graph, node, node->objs, n);
		done += n;
	}
	return rc;
}

static int
worker_main(void *arg)
{
	struct nfv_worker *w = arg;
	struct rte_graph *graph = w->graph;
	unsigned int tid = w->lcore_id;
	unsigned int walks = 0;
	/* Whether the services run every walk: always without a poller to
	 * start at, else while one had work (core/walk.h). */
	const bool every = !w->services_lazy;
	bool busy = every;

	rte_rcu_qsbr_thread_register(nfv_rcu, tid);
	rte_rcu_qsbr_thread_online(nfv_rcu, tid);
	w->running = true;
	RTE_BUILD_BUG_ON(NFV_WALK_SAMPLE % NFV_WALK_SERVICES != 0);
	while (!__atomic_load_n(&w->stop, __ATOMIC_RELAXED)) {
		bool services = ++walks % NFV_WALK_SERVICES == 0 || busy;

		if (unlikely(w->stats_off)) {
			if (services)
				busy = nfv_graph_walk(graph, true, busy, false, false) || every;
			else
				nfv_graph_walk(graph, false, false, false, false);
		} else if (unlikely(walks % NFV_WALK_SAMPLE == 0)) {
			/* A measured walk (a multiple of NFV_WALK_SERVICES: it
			 * runs the services). */
			busy = nfv_graph_walk(graph, true, busy, true, true) || every;
		} else if (services) {
			busy = nfv_graph_walk(graph, true, busy, false, true) || every;
		} else {
			nfv_graph_walk(graph, false, false, false, true);
		}
		rte_rcu_qsbr_quiescent(nfv_rcu, tid);
	}
	rte_rcu_qsbr_thread_offline(nfv_rcu, tid);
	rte_rcu_qsbr_thread_unregister(nfv_rcu, tid);
	w->running = false;
	return 0;
}

int
nfv_workers_start(void)
{
	for (unsigned int i = 0; i < nfv_n_workers; i++) {
		int rc = rte_eal_remote_launch(worker_main, &nfv_workers[i],
					       nfv_workers[i].lcore_id);

		if (rc < 0) {
			NFV_LOG(ERR, "cannot launch worker on lcore %u", nfv_workers[i].lcore_id);
			return rc;
		}
	}
	/* Wait until every worker is registered with RCU before any update. */
	for (unsigned int i = 0; i < nfv_n_workers; i++)
		while (!__atomic_load_n(&nfv_workers[i].running, __ATOMIC_ACQUIRE))
			rte_pause();
	return 0;
}

void
nfv_workers_stop(void)
{
	for (unsigned int i = 0; i < nfv_n_workers; i++)
		__atomic_store_n(&nfv_workers[i].stop, true, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	for (unsigned int i = 0; i < nfv_n_workers; i++) {
		struct nfv_worker *w = &nfv_workers[i];

		if (w->graph_id != RTE_GRAPH_ID_INVALID && w->graph != NULL)
			rte_graph_destroy(w->graph_id);
		w->graph = NULL;
		rte_free(w->conf);
		w->conf = NULL;
		free(w->slice_rest);
		w->slice_rest = NULL;
	}
	rte_free(nfv_rcu);
	nfv_rcu = NULL;
}

/* The worker polling a port's queue in the published map, or -1. */
static int
rxq_owner(uint16_t pid, uint16_t q)
{
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		const struct nfv_worker_conf *c = nfv_workers[w].conf;

		for (uint16_t i = 0; c != NULL && i < c->n_rxq; i++)
			if (c->rxq[i].port_id == pid && c->rxq[i].queue_id == q)
				return (int)w;
	}
	return -1;
}

static bool
conf_has_rxq(const struct nfv_worker_conf *c, struct nfv_rxq rxq)
{
	for (uint16_t i = 0; c != NULL && i < c->n_rxq; i++)
		if (c->rxq[i].port_id == rxq.port_id && c->rxq[i].queue_id == rxq.queue_id)
			return true;
	return false;
}

/* Publishes confs[] (each worker's new map) and waits for every worker to
 * take it; confs[] then holds the maps replaced, for the caller to free. */
static void
publish_confs(struct nfv_worker_conf **confs)
{
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		struct nfv_worker_conf *old = nfv_workers[w].conf;

		__atomic_store_n(&nfv_workers[w].conf, confs[w], __ATOMIC_RELEASE);
		confs[w] = old;
	}
	nfv_rcu_sync();
}

/*
 * Gives every RX queue of the ports that are up to one worker: pinned queues
 * ("worker set") to theirs, the others to the least loaded worker, the one
 * that polls it now on a tie (so adding or removing a port does not move
 * other ports' queues). An RX queue must never be polled by two workers at
 * once: when queues change hands, the new maps are published in two steps,
 * first without the queues that leave a worker, then, after a grace period
 * (no worker still polls them), with the queues that join one.
 */
int
nfv_workers_publish(void)
{
	struct nfv_worker_conf *confs[NFV_MAX_WORKERS] = { 0 };
	struct nfv_worker_conf *step[NFV_MAX_WORKERS] = { 0 };
	size_t sz = sizeof(struct nfv_worker_conf) +
		    NFV_MAX_RXQ_PER_WORKER * sizeof(struct nfv_rxq);
	bool moves = false;
	unsigned int w;

	for (w = 0; w < nfv_n_workers; w++) {
		confs[w] = rte_zmalloc("nfv_wconf", sz, RTE_CACHE_LINE_SIZE);
		step[w] = rte_zmalloc("nfv_wconf", sz, RTE_CACHE_LINE_SIZE);
		if (confs[w] == NULL || step[w] == NULL)
			goto nomem;
		confs[w]->burst = (uint16_t)burst_size;
		confs[w]->walk_max = (uint16_t)walk_max;
	}
	/* Pinned queues first, then spread the rest over the least loaded. */
	for (int pass = 0; pass < 2 && polling_enabled; pass++) {
		for (uint16_t pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
			const struct nfv_port *p = &nfv_ports[pid];

			if (!p->used || p->removing ||
			    !__atomic_load_n(&p->admin_up, __ATOMIC_ACQUIRE))
				continue;
			for (uint16_t q = 0; q < p->n_rxq && q < NFV_MAX_RXQ_PER_WORKER; q++) {
				unsigned int target = 0;

				if (pass == 0) {
					if (pinned[pid][q] == 0)
						continue;
					target = pinned[pid][q] - 1u;
				} else {
					int owner = rxq_owner(pid, q);

					if (pinned[pid][q] != 0)
						continue;
					for (w = 1; w < nfv_n_workers; w++)
						if (confs[w]->n_rxq < confs[target]->n_rxq)
							target = w;
					if (owner >= 0 &&
					    confs[owner]->n_rxq == confs[target]->n_rxq)
						target = (unsigned int)owner;
				}
				if (confs[target]->n_rxq == NFV_MAX_RXQ_PER_WORKER) {
					NFV_LOG(ERR, "worker %u polls %u queues already; port %s "
						"queue %u left unpolled", target,
						NFV_MAX_RXQ_PER_WORKER, p->name, q);
					continue;
				}
				confs[target]->rxq[confs[target]->n_rxq].port_id = pid;
				confs[target]->rxq[confs[target]->n_rxq].queue_id = q;
				confs[target]->n_rxq++;
			}
		}
	}
	/* Step one: each worker keeps what it polls now and will still poll. */
	for (w = 0; w < nfv_n_workers; w++) {
		const struct nfv_worker_conf *cur = nfv_workers[w].conf;

		*step[w] = *confs[w];
		step[w]->n_rxq = 0;
		for (uint16_t i = 0; cur != NULL && i < cur->n_rxq; i++) {
			if (conf_has_rxq(confs[w], cur->rxq[i]))
				step[w]->rxq[step[w]->n_rxq++] = cur->rxq[i];
			else
				moves = true;
		}
	}
	if (moves)
		publish_confs(step);
	/* Step two: the new maps, queues that leave a worker now polled by none. */
	publish_confs(confs);
	for (w = 0; w < nfv_n_workers; w++) {
		rte_free(confs[w]);
		rte_free(step[w]);
	}
	return 0;
nomem:
	for (w = 0; w < nfv_n_workers; w++) {
		rte_free(confs[w]);
		rte_free(step[w]);
	}
	return -ENOMEM;
}

int
nfv_workers_enable_polling(void)
{
	polling_enabled = true;
	return nfv_workers_publish();
}

int
nfv_worker_set_rxqs(unsigned int lcore, const struct nfv_rxq *rxqs, unsigned int n, char *err)
{
	struct nfv_worker *w = nfv_worker_by_lcore(lcore);

	if (w == NULL) {
		snprintf(err, NFV_ERR_LEN, "lcore %u is not a worker "
			 "(workers: %u lcores after the main one)",
			 lcore, nfv_n_workers);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct nfv_port *p = &nfv_ports[rxqs[i].port_id];

		if (rxqs[i].queue_id >= p->n_rxq || rxqs[i].queue_id >= NFV_MAX_RXQ_PER_WORKER) {
			snprintf(err, NFV_ERR_LEN, "port %s has no RX queue %u (it has %u)", p->name,
				 rxqs[i].queue_id, p->n_rxq);
			return -EINVAL;
		}
	}
	for (unsigned int i = 0; i < n; i++)
		pinned[rxqs[i].port_id][rxqs[i].queue_id] = (uint8_t)(w->index + 1);
	return nfv_workers_publish();
}

void
nfv_workers_port_removed(uint16_t port_id)
{
	memset(pinned[port_id], 0, sizeof(pinned[port_id]));
}
