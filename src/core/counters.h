/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Module counters and collectors.
 *
 * A module keeps its per-worker counters in a block of 64-bit words that it
 * registers from its own files; each worker gets its own copy, cache
 * aligned, written only by that worker (STYLE rule 3), and the control side
 * sums the copies when it reads them ("stats reset" baselines included):
 *
 *	struct ip_counters { uint64_t icmp_sent[2]; ... };
 *	NFV_COUNTER_BLOCK(ip_counters_block, "ip", struct ip_counters);
 *	((struct ip_counters *)nfv_worker_counters(w, &ip_counters_block))->icmp_sent[0]++;
 *
 * A collector adds the module's part to the views: "show stats" (and so the
 * /nfvd/stats telemetry command) and the Prometheus text. The writers walk
 * the collectors; none names a module.
 */
#ifndef NFV_COUNTERS_H
#define NFV_COUNTERS_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>
#include <rte_common.h>

#include "core/worker.h"

struct nfv_counter_block {
	const char *name;
	uint32_t size;   /* bytes, a multiple of 8 */
	uint32_t offset; /* in each worker's area, set at registration */
};

void nfv_counter_block_register(struct nfv_counter_block *b);

#define NFV_COUNTER_BLOCK(var, name_, type) \
	struct nfv_counter_block var = { .name = name_, .size = sizeof(type) }; \
	RTE_INIT(nfv_counter_block_register_##var) \
	{ \
		RTE_BUILD_BUG_ON(sizeof(type) % sizeof(uint64_t) != 0); \
		nfv_counter_block_register(&var); \
	}

static inline void *
nfv_worker_counters(struct nfv_worker *w, const struct nfv_counter_block *b)
{
	return w->counters + b->offset;
}

/* Bytes of every worker's counter area (all blocks). */
uint32_t nfv_counters_area_size(void);
/* The block summed over the workers, since the last reset (or since start,
 * see nfv_stats_since_start), into out (b->size bytes). Control side. */
void nfv_counters_sum(const struct nfv_counter_block *b, void *out);

struct nfv_collector {
	const char *name;
	/* Adds the module's keys to the "show stats" object. */
	void (*show_stats)(json_t *stats);
	/* Writes the module's Prometheus families (counters since start). */
	void (*metrics)(FILE *f);
};

void nfv_collector_register(const struct nfv_collector *c);

#define NFV_COLLECTOR_REGISTER(c) \
	RTE_INIT(nfv_collector_register_##c) \
	{ \
		nfv_collector_register(&(c)); \
	}

void nfv_collectors_show_stats(json_t *stats);
void nfv_collectors_metrics(FILE *f);

/* A Prometheus family's HELP and TYPE lines. */
void nfv_metrics_help(FILE *f, const char *name, const char *type, const char *text);

#endif
