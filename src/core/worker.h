/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Worker lcores: each walks its own clone of the graph, run to completion,
 * over the RX queues the control thread publishes to it.
 */
#ifndef NFV_WORKER_H
#define NFV_WORKER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_meter.h>
#include <rte_rcu_qsbr.h>

#include "core/drop_reasons.h"

#define NFV_MAX_WORKERS 64
#define NFV_MAX_RXQ_PER_WORKER 128
#define NFV_BURST_DEFAULT 32
#define NFV_BURST_MAX 256

#define NFV_LAT_BUCKETS 256
#define NFV_BURST_BUCKETS 10

static inline unsigned int
nfv_burst_bucket(unsigned int n)
{
	return n == 0 ? 0 : 32u - (unsigned int)__builtin_clz(n);
}

/* Four buckets per power of two: bucket i >= 8 covers
 * [(4 | (i & 3)) << ((i >> 2) - 2), (5 | (i & 3)) << ((i >> 2) - 2)). */
static inline unsigned int
nfv_lat_bucket(uint64_t d)
{
	unsigned int msb;

	if (d < 4)
		return (unsigned int)d;
	msb = 63u - (unsigned int)__builtin_clzll(d);
	return (msb << 2) | (unsigned int)((d >> (msb - 2)) & 3);
}

static inline uint64_t
nfv_lat_bucket_low(unsigned int i)
{
	if (i < 8)
		return i < 4 ? i : 4;
	return (uint64_t)(4 | (i & 3)) << ((i >> 2) - 2);
}

struct nfv_rxq {
	uint16_t port_id;
	uint16_t queue_id;
};

/* Published by control with RCU; immutable once published. */
struct nfv_worker_conf {
	uint16_t n_rxq;
	uint16_t burst;
	uint16_t walk_max; /* packets polled per graph walk at most */
	struct nfv_rxq rxq[];
};

/* Written only by the owning worker, summed by control when read. */
struct nfv_worker_stats {
	uint64_t drops[NFV_DROP_MAX];
	uint64_t polls;       /* graph walks */
	uint64_t empty_polls; /* walks that received nothing */
	uint64_t rx_packets;
	uint64_t tx_packets;
	/* RX-to-TX latency in TSC cycles, log-linear buckets (nfv_lat_bucket). */
	uint64_t lat_hist[NFV_LAT_BUCKETS];
	uint64_t lat_sum;
	/* Burst sizes of rte_eth_rx_burst (non-empty) and rte_eth_tx_burst
	 * calls, by power of two: bucket b holds sizes [2^(b-1), 2^b). */
	uint64_t rx_burst_hist[NFV_BURST_BUCKETS];
	uint64_t tx_burst_hist[NFV_BURST_BUCKETS];
	uint64_t tx_bursts;
	uint64_t rx_bursts;
	/* Packets of the bursts counted above (with "stats off" neither moves,
	 * so averages stay right). */
	uint64_t rx_burst_packets;
	uint64_t tx_burst_packets;
	/* port_tx: one per output port per call, the fewest TX bursts the
	 * traffic's spread over ports allows (counted with the bursts). */
	uint64_t tx_groups;
} __rte_cache_aligned;

/* Test hooks, off unless "debug" commands set them (read once per burst). */
struct nfv_worker_debug {
	uint16_t tx_split;    /* send TX bursts in chunks of at most this many */
	uint32_t delay_cycles; /* busy-wait this long in port_rx per non-empty burst */
	bool fastpath_off;     /* IP through the node chain, not ip4_fast/ip6_fast */
};

/*
 * Runs of port_tx's stream whose packets each go to one output port,
 * recorded by the node that enqueued them (the fused forwarding nodes group
 * their packets by port as they rewrite them), so that port_tx sends them
 * without reading every packet's port. For the current walk only: port_tx
 * uses them when they cover its whole stream (else it looks for itself) and
 * clears them.
 */
#define NFV_TX_RUNS_MAX 8
#define NFV_TX_RUN_MIXED UINT16_MAX /* a run for several ports */

struct nfv_tx_runs {
	uint16_t n; /* NFV_TX_RUNS_MAX + 1: more were recorded, unusable */
	uint16_t start[NFV_TX_RUNS_MAX];
	uint16_t len[NFV_TX_RUNS_MAX];
	uint16_t port[NFV_TX_RUNS_MAX];
};

static inline void
nfv_tx_runs_add(struct nfv_tx_runs *r, uint16_t start, uint16_t len, uint16_t port)
{
	uint16_t last = r->n - 1;

	/* Right after a run for the same port (two nodes' output, a mixed
	 * IPv4/IPv6 burst): one run. */
	if (r->n != 0 && r->n <= NFV_TX_RUNS_MAX && port != NFV_TX_RUN_MIXED &&
	    r->port[last] == port && r->start[last] + r->len[last] == start) {
		r->len[last] += len;
		return;
	}
	if (likely(r->n < NFV_TX_RUNS_MAX)) {
		r->start[r->n] = start;
		r->len[r->n] = len;
		r->port[r->n] = port;
		r->n++;
	} else {
		r->n = NFV_TX_RUNS_MAX + 1;
	}
}

struct nfv_worker {
	unsigned int lcore_id;
	unsigned int index;           /* also the TX queue this worker owns on every port */
	struct nfv_worker_conf *conf; /* RCU-published */
	struct rte_graph *graph;
	rte_graph_t graph_id;
	volatile bool stop;
	volatile bool running;
	/* "stats off": no per-node, burst-size or latency counting (packet,
	 * drop and port counters always count). Read once per walk. */
	volatile bool stats_off;
	struct rte_meter_srtcm icmp_meter[2]; /* ICMP error rate limit: [0] IPv4, [1] IPv6 */
	struct nfv_worker_debug debug;
	/* TSC when port_rx received this walk's packets: every packet of a walk
	 * is received and sent (or dropped) within that walk. 0 in a walk whose
	 * poll found nothing, and under "stats off". */
	uint64_t walk_rx_tsc;
	/* TSC when port_tx last finished, and whether that was in the
	 * previous walk with packets and no empty poll since (port_rx clears
	 * it): then it stands for this walk's RX time, and port_rx reads no
	 * TSC of its own (one TSC read per walk for the latency, not two). */
	uint64_t last_tx_tsc;
	bool tx_tsc_fresh;
	struct nfv_tx_runs tx_runs;
	/* [0] ip4_fast, [1] ip6_fast: the size of the node's stream when
	 * eth_input filled it from empty with frames its fast step classified
	 * (the fused node then skips the Ethernet check), else 0. The fused
	 * node reads and clears it: a stream of another size holds frames
	 * from elsewhere too. */
	uint16_t fast_l2_checked[2];
	/* [0] ip4_fast, [1] ip6_fast: the size of the node's stream when
	 * port_rx filled it from empty with one RX burst (frames of one port:
	 * the fused node does not compare their ports), else 0. Read and
	 * cleared as fast_l2_checked. */
	uint16_t rx_one_port[2];
	/* The poller (nfv_walk_poller_register) is the graph's last source, so
	 * that a walk without the service sources starts at it. */
	bool services_lazy;
	/* nfv_walk_slices' room for a long stream's packets past the first
	 * slice (allocated with the worker; its pages are touched only when a
	 * long stream first comes), and how many such streams. */
	void **slice_rest;
	uint64_t slice_streams;
	struct nfv_worker_stats stats;
	/* Module counter blocks (core/counters.h) and their reset baselines. */
	uint8_t *counters;
	uint8_t *counters_base;
} __rte_cache_aligned;

extern struct nfv_worker nfv_workers[NFV_MAX_WORKERS];
extern unsigned int nfv_n_workers;
extern struct rte_rcu_qsbr *nfv_rcu;
extern struct rte_meter_srtcm_profile nfv_icmp_meter_profile;

/* Every node's registered name starts with the prefix; views show the rest. */
#define NFV_NODE_PREFIX "nfv_"

static inline const char *
nfv_node_display_name(const char *name)
{
	size_t n = sizeof(NFV_NODE_PREFIX) - 1;

	return strncmp(name, NFV_NODE_PREFIX, n) == 0 ? name + n : name;
}

/* The worker a node instance belongs to (stored in the node context). */
struct nfv_node_ctx {
	struct nfv_worker *worker;
};

static inline struct nfv_worker *
nfv_node_worker(struct rte_node *node)
{
	return ((struct nfv_node_ctx *)node->ctx)->worker;
}

/* Set by control while it creates a worker's graph; node init reads it. */
extern struct nfv_worker *nfv_worker_being_built;

int nfv_node_ctx_init(const struct rte_graph *graph, struct rte_node *node);

/* Work a module must do on the nodes before any graph exists (adding
 * edges): run once by nfv_workers_init(), after the arcs are set up. */
void nfv_graph_setup_register(int (*fn)(void));

/*
 * The source node that polls the ports (infra's port_rx), from a
 * constructor: it runs every walk. The other source nodes are services
 * (packets injected by control, the handoff rings, flow scans): they run
 * one walk in NFV_WALK_SERVICES, and every walk while one of them had
 * work in the last walk that ran them (core/walk.h).
 */
void nfv_walk_poller_register(const char *node_name);
#define NFV_GRAPH_SETUP(fn) \
	RTE_INIT(nfv_graph_setup_register_##fn) \
	{ \
		nfv_graph_setup_register(fn); \
	}
/* The arcs, then every graph setup function; once. */
int nfv_graph_setup(void);

int nfv_workers_init(unsigned int burst, unsigned int walk_max);
int nfv_workers_start(void);
void nfv_workers_stop(void);
/* Recomputes the RX queue map and publishes it; waits for a grace period. */
int nfv_workers_publish(void);
/* Called once the startup file is applied: from then on queues are polled. */
int nfv_workers_enable_polling(void);
/* Waits until every worker has passed a quiescent state. */
void nfv_rcu_sync(void);
uint64_t nfv_rcu_grace_periods(void);
/* Explicit queue map: "worker set LCORE rxq NAME:Q,..." */
int nfv_worker_set_rxqs(unsigned int lcore, const struct nfv_rxq *rxqs, unsigned int n, char *err);
void nfv_workers_port_removed(uint16_t port_id);
struct nfv_worker *nfv_worker_by_lcore(unsigned int lcore);

/*
 * The time for a node that needs one per burst (expiry, idle timeouts,
 * rates): the walk's RX time when port_rx took one (a busy walk: no TSC
 * read, which costs tens of cycles in a VM), else a TSC read. Never later
 * than the TSC now, and never earlier than a time an earlier walk gave.
 */
static inline uint64_t
nfv_walk_tsc(const struct nfv_worker *w)
{
	uint64_t t = w->walk_rx_tsc;

	return likely(t != 0) ? t : rte_rdtsc();
}

#endif
