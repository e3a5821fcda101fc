/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Punt and inject, the control side: the rings of every worker, the
 * policers' profiles, the drain on the control event loop (every
 * millisecond, at most PUNT_DRAIN_BUDGET packets a worker a turn), the
 * inject path and the pool of control-built packets; counters for "show
 * stats", telemetry and Prometheus.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_meter.h>
#include <rte_ring.h>

#include "core/arc.h"
#include "core/counters.h"
#include "core/event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "core/worker.h"
#include "modules/punt/punt.h"
#include "modules/punt/punt_private.h"

#define PUNT_RING_SIZE 1024
#define INJECT_RING_SIZE 4096
#define PUNT_POOL_SIZE 1023
#define PUNT_POOL_CACHE 32
#define PUNT_DRAIN_PERIOD_S 0.001
/* Packets taken from one worker's ring in one turn of the event loop. */
#define PUNT_DRAIN_BUDGET 256

NFV_MBUF_PRIV(nfv_punt_slice, "punt", struct nfv_punt_meta);
NFV_COUNTER_BLOCK(nfv_punt_counters_block, "punt", struct nfv_punt_counters);

struct nfv_punt_worker nfv_punt_workers_state[NFV_MAX_WORKERS];
unsigned int nfv_punt_n_queues;
struct rte_meter_srtcm_profile nfv_punt_profiles[NFV_PUNT_QUEUES_MAX][2];
unsigned int nfv_punt_profile_active[NFV_PUNT_QUEUES_MAX];
int16_t nfv_inject_edges[NFV_INJECT_TARGETS_MAX];
unsigned int nfv_inject_n_targets;

static struct nfv_punt_queue *queues[NFV_PUNT_QUEUES_MAX];
static struct nfv_inject_target *targets[NFV_INJECT_TARGETS_MAX];
static struct rte_mempool *pool;
static struct nfv_timer *drain_timer;
/* Control-side counts. */
static uint64_t handled[NFV_PUNT_QUEUES_MAX];
static uint64_t inject_sent[NFV_INJECT_TARGETS_MAX];
static uint64_t inject_full[NFV_INJECT_TARGETS_MAX];
static uint64_t alloc_failed;

struct nfv_inject_target nfv_inject_port_tx = { .name = "port_tx", .node = "nfv_port_tx" };
NFV_INJECT_TARGET_REGISTER(nfv_inject_port_tx);
struct nfv_inject_target nfv_inject_eth_input = { .name = "eth_input",
						  .node = "nfv_eth_input" };
NFV_INJECT_TARGET_REGISTER(nfv_inject_eth_input);

void
nfv_punt_queue_register(struct nfv_punt_queue *q)
{
	if (nfv_punt_n_queues == NFV_PUNT_QUEUES_MAX)
		rte_panic("too many punt queues (%s)\n", q->name);
	q->id = (uint16_t)nfv_punt_n_queues;
	queues[nfv_punt_n_queues++] = q;
}

void
nfv_inject_target_register(struct nfv_inject_target *t)
{
	if (nfv_inject_n_targets == NFV_INJECT_TARGETS_MAX)
		rte_panic("too many inject targets (%s)\n", t->name);
	t->id = (uint16_t)nfv_inject_n_targets;
	targets[nfv_inject_n_targets] = t;
	nfv_inject_edges[nfv_inject_n_targets] = -1;
	nfv_inject_n_targets++;
}

static const struct nfv_inject_target *kind_targets[UINT8_MAX + 1];

void
nfv_inject_kind_register(uint8_t iface_kind, const struct nfv_inject_target *t)
{
	kind_targets[iface_kind] = t;
}

const struct nfv_inject_target *
nfv_inject_target_of_kind(uint8_t iface_kind)
{
	return kind_targets[iface_kind];
}

int
nfv_inject_setup_edges(const char *from)
{
	for (unsigned int i = 0; i < nfv_inject_n_targets; i++) {
		int e = nfv_node_edge_index(from, targets[i]->node);

		if (e < 0)
			return e;
		nfv_inject_edges[i] = (int16_t)e;
	}
	return 0;
}

static int
profile_config(struct rte_meter_srtcm_profile *p, uint32_t rate, uint32_t burst)
{
	struct rte_meter_srtcm_params prm = {
		.cir = rate == 0 ? 1 : rate,
		.cbs = burst == 0 ? 1 : burst,
		.ebs = 0,
	};

	return rte_meter_srtcm_profile_config(p, &prm);
}

int
nfv_punt_queue_set(const char *name, uint32_t rate, uint32_t burst, char *err)
{
	for (unsigned int q = 0; q < nfv_punt_n_queues; q++) {
		unsigned int next;
		int rc;

		if (strcmp(queues[q]->name, name) != 0)
			continue;
		if (burst == 0)
			burst = queues[q]->burst;
		next = nfv_punt_profile_active[q] ^ 1;
		rc = profile_config(&nfv_punt_profiles[q][next], rate, burst);
		if (rc < 0) {
			snprintf(err, NFV_ERR_LEN, "rate %u burst %u: %s", rate, burst,
				 strerror(-rc));
			return rc;
		}
		__atomic_store_n(&nfv_punt_profile_active[q], next, __ATOMIC_RELEASE);
		nfv_rcu_sync(); /* the old profile is the next one written */
		queues[q]->rate = rate;
		queues[q]->burst = burst;
		return 0;
	}
	snprintf(err, NFV_ERR_LEN, "unknown punt queue '%s'", name);
	return -ENOENT;
}

unsigned int
nfv_punt_workers(void)
{
	return nfv_n_workers;
}

int
nfv_inject(unsigned int worker, struct rte_mbuf *m, const struct nfv_inject_target *t)
{
	struct rte_ring *r;

	if (nfv_n_workers == 0) {
		rte_pktmbuf_free(m);
		inject_full[t->id]++;
		return -ENOBUFS;
	}
	r = nfv_punt_workers_state[worker % nfv_n_workers].inject_ring;
	nfv_punt_meta(m)->queue = t->id;
	if (r == NULL || rte_ring_mp_enqueue(r, m) != 0) {
		rte_pktmbuf_free(m);
		inject_full[t->id]++;
		return -ENOBUFS;
	}
	inject_sent[t->id]++;
	return 0;
}

struct rte_mbuf *
nfv_punt_alloc(void)
{
	struct rte_mbuf *m = pool != NULL ? rte_pktmbuf_alloc(pool) : NULL;

	if (m == NULL) {
		alloc_failed++;
		return NULL;
	}
	memset(nfv_meta(m), 0, sizeof(struct nfv_mbuf_meta));
	return m;
}

void
nfv_punt_drain(void)
{
	struct rte_mbuf *pkts[64];

	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		struct rte_ring *r = nfv_punt_workers_state[w].punt_ring;
		unsigned int done = 0, n;

		if (r == NULL)
			continue;
		while (done < PUNT_DRAIN_BUDGET &&
		       (n = rte_ring_sc_dequeue_burst(r, (void **)pkts, RTE_DIM(pkts), NULL)) > 0) {
			for (unsigned int i = 0; i < n; i++) {
				uint16_t q = nfv_punt_meta(pkts[i])->queue;

				if (q < nfv_punt_n_queues && queues[q]->handler != NULL) {
					handled[q]++;
					queues[q]->handler(pkts[i], w);
				} else {
					rte_pktmbuf_free(pkts[i]);
				}
			}
			done += n;
		}
	}
}

static void
drain_tick(void *arg)
{
	bool any = false;

	RTE_SET_USED(arg);
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		struct rte_ring *r = nfv_punt_workers_state[w].punt_ring;

		any |= r != NULL && !rte_ring_empty(r);
	}
	if (!any)
		return;
	nfv_ctl_lock();
	nfv_punt_drain();
	nfv_ctl_unlock();
}

static int
punt_init(void)
{
	/* The workers do not exist yet: a pair of rings for every lcore that
	 * may become one. */
	unsigned int n_rings = RTE_MIN(rte_lcore_count(), (unsigned int)NFV_MAX_WORKERS);
	char name[RTE_RING_NAMESIZE];
	int socket = (int)rte_socket_id();

	for (unsigned int q = 0; q < nfv_punt_n_queues; q++) {
		if (profile_config(&nfv_punt_profiles[q][0], queues[q]->rate,
				   queues[q]->burst) < 0)
			return -EINVAL;
		nfv_punt_profiles[q][1] = nfv_punt_profiles[q][0];
	}
	for (unsigned int w = 0; w < NFV_MAX_WORKERS; w++) {
		struct nfv_punt_worker *pw = &nfv_punt_workers_state[w];

		for (unsigned int q = 0; q < nfv_punt_n_queues; q++)
			rte_meter_srtcm_config(&pw->meter[q], &nfv_punt_profiles[q][0]);
	}
	for (unsigned int w = 0; w < n_rings; w++) {
		struct nfv_punt_worker *pw = &nfv_punt_workers_state[w];

		snprintf(name, sizeof(name), "nfv_punt%u", w);
		pw->punt_ring = rte_ring_create(name, PUNT_RING_SIZE, socket,
						RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "nfv_inject%u", w);
		pw->inject_ring = rte_ring_create(name, INJECT_RING_SIZE, socket, RING_F_SC_DEQ);
		if (pw->punt_ring == NULL || pw->inject_ring == NULL)
			return -ENOMEM;
	}
	pool = rte_pktmbuf_pool_create("nfv_punt_pool", PUNT_POOL_SIZE, PUNT_POOL_CACHE,
				       nfv_mbuf_priv_size(), RTE_MBUF_DEFAULT_BUF_SIZE, socket);
	if (pool == NULL)
		return -ENOMEM;
	drain_timer = nfv_timer_add("punt-drain", PUNT_DRAIN_PERIOD_S, false, drain_tick, NULL);
	return drain_timer == NULL ? -ENOMEM : 0;
}

static void
free_ring(struct rte_ring *r)
{
	struct rte_mbuf *m;

	if (r == NULL)
		return;
	while (rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

/* The workers have stopped: what is still on the rings goes back to its
 * pool (the modules that handle punted packets may have stopped already). */
static void
punt_stop(void)
{
	for (unsigned int w = 0; w < NFV_MAX_WORKERS; w++) {
		free_ring(nfv_punt_workers_state[w].punt_ring);
		free_ring(nfv_punt_workers_state[w].inject_ring);
	}
}

static void
punt_fini(void)
{
	if (drain_timer != NULL)
		nfv_timer_del(drain_timer);
	drain_timer = NULL;
	for (unsigned int w = 0; w < NFV_MAX_WORKERS; w++) {
		struct nfv_punt_worker *pw = &nfv_punt_workers_state[w];

		free_ring(pw->punt_ring);
		free_ring(pw->inject_ring);
		rte_ring_free(pw->punt_ring);
		rte_ring_free(pw->inject_ring);
		pw->punt_ring = NULL;
		pw->inject_ring = NULL;
	}
	rte_mempool_free(pool);
	pool = NULL;
}

static struct nfv_module punt_module = {
	.name = "punt",
	.depends_on = "infra",
	.init = punt_init,
	.stop = punt_stop,
	.fini = punt_fini,
};
NFV_MODULE_REGISTER(punt_module);

/* Statistics: "punt" in show stats (and telemetry), nfvd_punt_* in Prometheus. */
json_t *
nfv_punt_json(void)
{
	struct nfv_punt_counters c;
	json_t *qs = json_array(), *ts = json_array();

	nfv_counters_sum(&nfv_punt_counters_block, &c);
	for (unsigned int q = 0; q < nfv_punt_n_queues; q++)
		json_array_append_new(qs, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}",
			"name", queues[q]->name, "rate", (json_int_t)queues[q]->rate,
			"burst", (json_int_t)queues[q]->burst,
			"punted", (json_int_t)c.punted[q], "policed", (json_int_t)c.policed[q],
			"queue_full", (json_int_t)c.queue_full[q], "handled",
			(json_int_t)handled[q]));
	for (unsigned int t = 0; t < nfv_inject_n_targets; t++)
		json_array_append_new(ts, json_pack("{s:s, s:I, s:I, s:I}", "name",
			targets[t]->name, "sent", (json_int_t)inject_sent[t],
			"ring_full", (json_int_t)inject_full[t],
			"delivered", (json_int_t)c.injected[t]));
	return json_pack("{s:o, s:o, s:I}", "queues", qs, "inject", ts, "alloc_failed",
			 (json_int_t)alloc_failed);
}

static void
punt_show_stats(json_t *stats)
{
	json_object_set_new(stats, "punt", nfv_punt_json());
}

static void
punt_metrics(FILE *f)
{
	struct nfv_punt_counters c;
	bool was = nfv_stats_since_start(true);

	nfv_counters_sum(&nfv_punt_counters_block, &c);
	nfv_stats_since_start(was);
	nfv_metrics_help(f, "nfvd_punt_packets_total", "counter",
			 "Packets punted to the control thread, by queue and outcome.");
	for (unsigned int q = 0; q < nfv_punt_n_queues; q++) {
		fprintf(f, "nfvd_punt_packets_total{queue=\"%s\",outcome=\"punted\"} %" PRIu64 "\n",
			queues[q]->name, c.punted[q]);
		fprintf(f, "nfvd_punt_packets_total{queue=\"%s\",outcome=\"policed\"} %" PRIu64
			"\n", queues[q]->name, c.policed[q]);
		fprintf(f, "nfvd_punt_packets_total{queue=\"%s\",outcome=\"queue_full\"} %" PRIu64
			"\n", queues[q]->name, c.queue_full[q]);
		fprintf(f, "nfvd_punt_packets_total{queue=\"%s\",outcome=\"handled\"} %" PRIu64
			"\n", queues[q]->name, handled[q]);
	}
	nfv_metrics_help(f, "nfvd_inject_packets_total", "counter",
			 "Packets the control thread injected into the workers, by target.");
	for (unsigned int t = 0; t < nfv_inject_n_targets; t++) {
		fprintf(f, "nfvd_inject_packets_total{target=\"%s\",outcome=\"sent\"} %" PRIu64
			"\n", targets[t]->name, inject_sent[t]);
		fprintf(f, "nfvd_inject_packets_total{target=\"%s\",outcome=\"ring_full\"} %"
			PRIu64 "\n", targets[t]->name, inject_full[t]);
	}
}

static const struct nfv_collector punt_collector = {
	.name = "punt",
	.show_stats = punt_show_stats,
	.metrics = punt_metrics,
};
NFV_COLLECTOR_REGISTER(punt_collector);
