/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ip_reasm module (reasm.h): each worker's reassembly table, made
 * before the graphs (its size and timeout from the options), given back
 * with the mbufs it holds at exit, and the control thread's tick: every
 * REASM_TICK_S, a worker that holds fragments gets a packet injected to
 * nfv_ip_reasm_sweep, which drops those that timed out.
 *
 *	--reassembly-timeout SEC   1-3600, default 30 (Linux's ipfrag_time)
 *	--reassembly-max N         datagrams being reassembled per worker,
 *	                           16-65536, default 1024
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip_frag.h>
#include <rte_lcore.h>

#include "core/event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "core/worker.h"
#include "modules/ip/reasm.h"
#include "modules/punt/punt.h"

#define REASM_TICK_S 0.25
/* Entries a bucket of the table (rte_ip_frag: a power of two). */
#define REASM_BUCKET_ENTRIES 8

static uint32_t timeout_s = 30;
static uint32_t max_datagrams = 1024;
static struct nfv_timer *tick_timer;

static const struct nfv_module_option reasm_options[] = {
	{ "reassembly-timeout", "SEC", "how long fragments of a datagram for nfvd's own "
	  "addresses wait for the rest (default 30)" },
	{ "reassembly-max", "N", "datagrams being reassembled at once, per worker (default "
	  "1024)" },
	{ NULL, NULL, NULL },
};

static int
reasm_parse_option(const char *name, const char *value, char *err, size_t len)
{
	if (strcmp(name, "reassembly-timeout") == 0)
		return nfv_module_option_u32(name, value, 1, 3600, &timeout_s, err, len);
	return nfv_module_option_u32(name, value, 16, 65536, &max_datagrams, err, len);
}

/* Each worker's table, on its lcore's socket, once the workers are known
 * (before their graphs). */
static int
reasm_tables_create(void)
{
	uint64_t cycles = (uint64_t)timeout_s * rte_get_tsc_hz();
	uint32_t buckets = rte_align32pow2(max_datagrams) * 2 / REASM_BUCKET_ENTRIES;

	for (unsigned int i = 0; i < nfv_n_workers; i++) {
		struct nfv_reasm_worker *r = &nfv_reasm_workers[i];

		r->tbl = rte_ip_frag_table_create(buckets, REASM_BUCKET_ENTRIES, max_datagrams,
						  cycles,
						  (int)rte_lcore_to_socket_id(nfv_workers[i].lcore_id));
		if (r->tbl == NULL) {
			NFV_LOG(ERR, "no memory for the reassembly table of worker %u (%u datagrams)",
				i, max_datagrams);
			return -ENOMEM;
		}
		r->held = 0;
		r->dr.cnt = 0;
	}
	return 0;
}
NFV_GRAPH_SETUP(reasm_tables_create);

/* A tick to every worker that holds fragments. */
static void
reasm_tick(void *arg)
{
	RTE_SET_USED(arg);
	nfv_ctl_lock();
	for (unsigned int i = 0; i < nfv_n_workers; i++) {
		struct rte_mbuf *m;

		if (__atomic_load_n(&nfv_reasm_workers[i].held, __ATOMIC_RELAXED) == 0)
			continue;
		m = nfv_punt_alloc();
		if (m != NULL)
			(void)nfv_inject(i, m, &nfv_reasm_sweep_target);
	}
	nfv_ctl_unlock();
}

static int
reasm_init(void)
{
	tick_timer = nfv_timer_add("reassembly", REASM_TICK_S, false, reasm_tick, NULL);
	return tick_timer != NULL ? 0 : -ENOMEM;
}

/* The workers have stopped: the tables and the fragments they hold go. */
static void
reasm_stop(void)
{
	for (unsigned int i = 0; i < NFV_MAX_WORKERS; i++) {
		struct nfv_reasm_worker *r = &nfv_reasm_workers[i];

		if (r->tbl != NULL)
			rte_ip_frag_table_destroy(r->tbl);
		rte_ip_frag_free_death_row(&r->dr, 0);
		r->tbl = NULL;
		r->held = 0;
	}
}

static void
reasm_fini(void)
{
	if (tick_timer != NULL)
		nfv_timer_del(tick_timer);
	tick_timer = NULL;
}

static struct nfv_module reasm_module = {
	.name = "ip_reasm",
	.depends_on = "ip punt",
	.init = reasm_init,
	.stop = reasm_stop,
	.fini = reasm_fini,
	.options = reasm_options,
	.parse_option = reasm_parse_option,
};
NFV_MODULE_REGISTER(reasm_module);
