/* SPDX-License-Identifier: BSD-3-Clause */
/* What the punt module's nodes and control files share. */
#ifndef NFV_PUNT_PRIVATE_H
#define NFV_PUNT_PRIVATE_H

#include <jansson.h>
#include <rte_meter.h>
#include <rte_ring.h>

#include "core/counters.h"
#include "core/worker.h"
#include "modules/punt/punt.h"

/* Per worker, written by that worker only (the rings: one end each). */
struct nfv_punt_worker {
	struct rte_meter_srtcm meter[NFV_PUNT_QUEUES_MAX];
	struct rte_ring *punt_ring;   /* worker -> control, single producer/consumer */
	struct rte_ring *inject_ring; /* control -> worker */
} __rte_cache_aligned;

extern struct nfv_punt_worker nfv_punt_workers_state[NFV_MAX_WORKERS];
extern unsigned int nfv_punt_n_queues;
/* Two profiles a queue: control writes the one not in use, then flips. */
extern struct rte_meter_srtcm_profile nfv_punt_profiles[NFV_PUNT_QUEUES_MAX][2];
extern unsigned int nfv_punt_profile_active[NFV_PUNT_QUEUES_MAX];
extern int16_t nfv_inject_edges[NFV_INJECT_TARGETS_MAX];
extern unsigned int nfv_inject_n_targets;

struct nfv_punt_counters {
	uint64_t punted[NFV_PUNT_QUEUES_MAX];
	uint64_t policed[NFV_PUNT_QUEUES_MAX];
	uint64_t queue_full[NFV_PUNT_QUEUES_MAX];
	uint64_t injected[NFV_INJECT_TARGETS_MAX]; /* delivered by the inject node */
};
extern struct nfv_counter_block nfv_punt_counters_block;

/* Adds an edge from node from to every inject target's node. */
int nfv_inject_setup_edges(const char *from);
/* The "punt" object of show stats. */
json_t *nfv_punt_json(void);

#endif
