/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_debug.h>

#include "core/counters.h"
#include "core/stats.h"

#define NFV_COLLECTORS_MAX 64

static uint32_t area_size;
static const struct nfv_collector *collectors[NFV_COLLECTORS_MAX];
static unsigned int n_collectors;

void
nfv_counter_block_register(struct nfv_counter_block *b)
{
	b->offset = area_size;
	area_size += RTE_ALIGN_CEIL(b->size, RTE_CACHE_LINE_SIZE);
}

uint32_t
nfv_counters_area_size(void)
{
	return area_size;
}

void
nfv_counters_sum(const struct nfv_counter_block *b, void *out)
{
	uint64_t *o = out;
	size_t words = b->size / sizeof(uint64_t);
	bool since_start = nfv_stats_since_start(false);

	nfv_stats_since_start(since_start);
	memset(out, 0, b->size);
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		const uint64_t *cur = (const uint64_t *)(nfv_workers[w].counters + b->offset);
		const uint64_t *base = (const uint64_t *)(nfv_workers[w].counters_base + b->offset);

		if (nfv_workers[w].counters == NULL)
			continue;
		for (size_t i = 0; i < words; i++)
			o[i] += __atomic_load_n(&cur[i], __ATOMIC_RELAXED) -
				(since_start ? 0 : base[i]);
	}
}

void
nfv_collector_register(const struct nfv_collector *c)
{
	if (n_collectors == NFV_COLLECTORS_MAX)
		rte_panic("too many collectors (%s)\n", c->name);
	collectors[n_collectors++] = c;
}

void
nfv_collectors_show_stats(json_t *stats)
{
	for (unsigned int i = 0; i < n_collectors; i++)
		if (collectors[i]->show_stats != NULL)
			collectors[i]->show_stats(stats);
}

void
nfv_collectors_metrics(FILE *f)
{
	for (unsigned int i = 0; i < n_collectors; i++)
		if (collectors[i]->metrics != NULL)
			collectors[i]->metrics(f);
}

void
nfv_metrics_help(FILE *f, const char *name, const char *type, const char *text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}
