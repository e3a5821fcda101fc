/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow statistics, the control side: the workers' tables and rings (made
 * the first time flow statistics are turned on, on each worker's socket,
 * kept until exit), the flow_in feature on every port, the timeouts, the
 * drain of the workers' rings into the IPFIX exporter (every
 * FLOW_DRAIN_PERIOD), "flow show" from the workers' tables, and the last
 * records of every flow at exit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "api/cmd.h"
#include "core/arc.h"
#include "core/counters.h"
#include "core/event.h"
#include "core/iface_event.h"
#include "core/log.h"
#include "core/module.h"
#include "core/stats.h"
#include "modules/flow/flow.h"
#include "modules/infra/iface.h"

#define FLOW_CAPACITY 32768       /* entries per table per worker */
#define FLOW_RING_SIZE 16384      /* records per worker */
#define FLOW_DRAIN_PERIOD 0.1     /* seconds */
#define FLOW_ACTIVE_DEFAULT 60    /* seconds */
#define FLOW_IDLE_DEFAULT 15
#define FLOW_DRAIN_BURST 64

struct nfv_flow_conf nfv_flow_conf;
struct nfv_flow_worker *nfv_flow_workers[NFV_MAX_WORKERS];
NFV_COUNTER_BLOCK(nfv_flow_counters_block, "flow", struct nfv_flow_counters);

static struct nfv_ipfix *exporter;
static uint32_t active_s = FLOW_ACTIVE_DEFAULT, idle_s = FLOW_IDLE_DEFAULT;
static uint64_t records_drained, records_discarded;
/* Wall time of a TSC reading (taken at init). */
static uint64_t clock_tsc, clock_ms, tsc_hz;

static uint64_t
tsc_to_ms(uint64_t tsc)
{
	int64_t d = (int64_t)(tsc - clock_tsc);
	uint64_t a = (uint64_t)(d < 0 ? -d : d), s = a / tsc_hz;
	uint64_t ms = s * 1000 + (a - s * tsc_hz) * 1000 / tsc_hz;

	return d < 0 ? clock_ms - ms : clock_ms + ms;
}

static void
timeouts_set(uint32_t active, uint32_t idle)
{
	active_s = active;
	idle_s = idle;
	__atomic_store_n(&nfv_flow_conf.active_tsc, (uint64_t)active * tsc_hz, __ATOMIC_RELEASE);
	__atomic_store_n(&nfv_flow_conf.idle_tsc, (uint64_t)idle * tsc_hz, __ATOMIC_RELEASE);
}

static void
worker_free(struct nfv_flow_worker *fw)
{
	if (fw == NULL)
		return;
	for (int f = 0; f < NFV_FLOW_FAMILIES; f++) {
		rte_hash_free(fw->hash[f]);
		rte_free(fw->live[f]);
	}
	rte_free(fw->entries[NFV_FLOW_V6]);
	rte_ring_free(fw->ring);
	rte_free(fw->cache); /* and the IPv4 entries after it */
	rte_free(fw);
}

static struct nfv_flow_worker *
worker_make(unsigned int i, char *err)
{
	int socket = (int)rte_lcore_to_socket_id(nfv_workers[i].lcore_id);
	struct nfv_flow_worker *fw = rte_zmalloc_socket("nfv_flow", sizeof(*fw),
							RTE_CACHE_LINE_SIZE, socket);
	char name[RTE_HASH_NAMESIZE];

	if (fw == NULL)
		goto nomem;
	/* The cache, then the IPv4 entries (flow.h). */
	fw->cache = rte_zmalloc_socket("nfv_flow_cache", NFV_FLOW_CACHE_BYTES +
				       FLOW_CAPACITY * sizeof(struct nfv_flow_entry),
				       RTE_CACHE_LINE_SIZE, socket);
	if (fw->cache == NULL)
		goto nomem;
	for (int f = 0; f < NFV_FLOW_FAMILIES; f++) {
		struct rte_hash_parameters hp = {
			.name = name,
			.entries = FLOW_CAPACITY,
			.key_len = f == NFV_FLOW_V4 ? sizeof(struct nfv_flow_key4) :
				   sizeof(struct nfv_flow_key6),
			.hash_func = rte_hash_crc,
			.socket_id = socket,
			/* Every key finds room while the table has some. */
			.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
		};

		snprintf(name, sizeof(name), "nfv_flow%d_w%u", f == NFV_FLOW_V4 ? 4 : 6, i);
		fw->hash[f] = rte_hash_create(&hp);
		fw->entries[f] = f == NFV_FLOW_V4 ?
			RTE_PTR_ADD(fw->cache, NFV_FLOW_CACHE_BYTES) :
			rte_zmalloc_socket("nfv_flow_entries",
					   FLOW_CAPACITY * sizeof(struct nfv_flow_entry),
					   RTE_CACHE_LINE_SIZE, socket);
		fw->live[f] = rte_zmalloc_socket("nfv_flow_live", FLOW_CAPACITY / 8,
						 RTE_CACHE_LINE_SIZE, socket);
		if (fw->hash[f] == NULL || fw->entries[f] == NULL || fw->live[f] == NULL)
			goto nomem;
		/* No entry holds an IPv4 flow yet. */
		for (uint32_t p = 0; p < FLOW_CAPACITY; p++)
			fw->entries[f][p].key4.pad = NFV_FLOW_KEY4_NONE;
	}
	/* Every way points at entry 0, which holds no flow yet. */
	for (uint32_t set = 0; set < NFV_FLOW_CACHE_SETS; set++)
		for (unsigned int way = 0; way < NFV_FLOW_CACHE_WAYS; way++)
			*nfv_flow_cache_way(fw->cache, set, way) = fw->entries[NFV_FLOW_V4];
	snprintf(name, sizeof(name), "nfv_flow_ring_w%u", i);
	fw->ring = rte_ring_create_elem(name, sizeof(struct nfv_flow_record), FLOW_RING_SIZE,
					socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (fw->ring == NULL)
		goto nomem;
	return fw;
nomem:
	snprintf(err, NFV_ERR_LEN, "flow: no memory for worker %u's flow tables (%u flows "
		 "per family)", i, FLOW_CAPACITY);
	worker_free(fw);
	return NULL;
}

static void
ports_set(bool on)
{
	char err[NFV_ERR_LEN];

	for (uint16_t id = 0; id < RTE_MAX_ETHPORTS; id++)
		if (nfv_ifaces[id].used && nfv_ifaces[id].kind == NFV_IFACE_KIND_PORT)
			(void)nfv_arc_feature_set("l2_input", "nfv_flow_in", id, on, err);
}

int
nfv_flow_enable(bool on, char *err)
{
	if (on) {
		for (unsigned int i = 0; i < nfv_n_workers; i++) {
			struct nfv_flow_worker *fw;

			if (nfv_flow_workers[i] != NULL)
				continue;
			fw = worker_make(i, err);
			if (fw == NULL)
				return -ENOMEM;
			__atomic_store_n(&nfv_flow_workers[i], fw, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&nfv_flow_conf.on, true, __ATOMIC_RELEASE);
		ports_set(true);
	} else {
		/* The workers end every flow (records to the rings) at their
		 * next scans. */
		ports_set(false);
		__atomic_store_n(&nfv_flow_conf.on, false, __ATOMIC_RELEASE);
	}
	return 0;
}

int
nfv_flow_export_set(const char *addr, uint32_t active, uint32_t idle, char *err)
{
	struct nfv_ipfix *x = nfv_ipfix_open(addr, err);
	uint32_t was_active = active_s, was_idle = idle_s;
	int rc;

	if (x == NULL)
		return -EINVAL;
	timeouts_set(active, idle);
	rc = nfv_flow_enable(true, err);
	if (rc < 0) {
		/* Refused: the export and its timeouts as they were. */
		timeouts_set(was_active, was_idle);
		nfv_ipfix_close(x);
		return rc;
	}
	nfv_ipfix_close(exporter);
	exporter = x;
	NFV_LOG(INFO, "flow export: IPFIX to %s, active timeout %u s, idle timeout %u s", addr,
		active, idle);
	return 0;
}

int
nfv_flow_export_del(char *err)
{
	if (exporter == NULL) {
		snprintf(err, NFV_ERR_LEN, "no flow export");
		return -ENOENT;
	}
	nfv_ipfix_close(exporter);
	exporter = NULL;
	return 0;
}

static void
record_out(const struct nfv_flow_record *r)
{
	if (exporter != NULL)
		nfv_ipfix_add(exporter, r, tsc_to_ms(r->start_tsc), tsc_to_ms(r->end_tsc));
	else
		records_discarded++;
	records_drained++;
}

static void
flow_drain(void)
{
	struct nfv_flow_record recs[FLOW_DRAIN_BURST];

	for (unsigned int i = 0; i < nfv_n_workers; i++) {
		struct nfv_flow_worker *fw = nfv_flow_workers[i];
		unsigned int n;

		if (fw == NULL)
			continue;
		while ((n = rte_ring_sc_dequeue_burst_elem(fw->ring, recs, sizeof(recs[0]),
							   RTE_DIM(recs), NULL)) != 0)
			for (unsigned int k = 0; k < n; k++)
				record_out(&recs[k]);
	}
	if (exporter != NULL)
		nfv_ipfix_flush(exporter);
}

static void
flow_timer(void *arg)
{
	nfv_ctl_lock();
	flow_drain();
	nfv_ctl_unlock();
}

/* A flow of "flow show": its key, its totals. */
struct flow_row {
	uint16_t worker;
	struct nfv_flow_record r;   /* the key */
	uint64_t packets;
	uint64_t bytes;
	uint64_t first_tsc;
	uint64_t last_tsc;
	uint8_t tcp_flags;
};

static int
row_cmp(const void *a, const void *b)
{
	const struct flow_row *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->packets < y->packets ? 1 : x->packets > y->packets ? -1 : 0;
}

/* A consistent copy of a worker's entry, or false (free or changing). */
static bool
entry_read(const struct nfv_flow_entry *e, struct nfv_flow_entry *out)
{
	uint32_t g = __atomic_load_n(&e->gen, __ATOMIC_ACQUIRE);

	if ((g & 1) != 0 || !e->used)
		return false;
	memcpy(out, e, sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&e->gen, __ATOMIC_RELAXED) == g && out->used;
}

json_t *
nfv_flow_show(uint32_t top)
{
	struct nfv_flow_counters c;
	struct flow_row *rows = NULL;
	size_t n = 0, cap = 0;
	json_t *a = json_array(), *o;

	for (unsigned int i = 0; i < nfv_n_workers; i++) {
		struct nfv_flow_worker *fw = nfv_flow_workers[i];

		for (int f = 0; fw != NULL && f < NFV_FLOW_FAMILIES; f++)
			for (uint32_t p = 0; p < FLOW_CAPACITY; p++) {
				struct nfv_flow_entry e;

				if (!entry_read(&fw->entries[f][p], &e))
					continue;
				if (n == cap) {
					struct flow_row *r;

					cap = cap ? 2 * cap : 1024;
					r = realloc(rows, cap * sizeof(*rows));
					if (r == NULL)
						goto out;
					rows = r;
				}
				rows[n].worker = (uint16_t)i;
				nfv_flow_record_key(f, &e, &rows[n].r);
				rows[n].packets = e.packets;
				rows[n].bytes = e.bytes;
				rows[n].first_tsc = e.first_tsc;
				rows[n].last_tsc = e.last_tsc;
				rows[n++].tcp_flags = e.tcp_flags;
			}
	}
	if (n > 0) /* qsort needs a real array, even for no rows */
		qsort(rows, n, sizeof(*rows), row_cmp);
	for (size_t k = 0; k < n && (top == 0 || k < top); k++) {
		const struct flow_row *w = &rows[k];
		const struct nfv_flow_record *r = &w->r;
		char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
		int af = r->family == NFV_FLOW_V4 ? AF_INET : AF_INET6;

		inet_ntop(af, r->src, src, sizeof(src));
		inet_ntop(af, r->dst, dst, sizeof(dst));
		json_array_append_new(a, json_pack(
			"{s:s, s:s, s:i, s:i, s:i, s:s, s:I, s:I, s:i, s:I, s:I, s:i}",
			"src", src, "dst", dst, "proto", r->proto, "sport", ntohs(r->sport),
			"dport", ntohs(r->dport), "dev", nfv_iface_name_of(r->iface),
			"packets", (json_int_t)w->packets, "bytes", (json_int_t)w->bytes,
			"tcp_flags", w->tcp_flags, "first_ms", (json_int_t)tsc_to_ms(w->first_tsc),
			"last_ms", (json_int_t)tsc_to_ms(w->last_tsc), "worker", w->worker));
	}
out:
	free(rows);
	nfv_counters_sum(&nfv_flow_counters_block, &c);
	o = json_pack("{s:b, s:I, s:o, s:i, s:i}", "enabled", nfv_flow_conf.on,
		      "active_flows", (json_int_t)n, "flows", a, "active_timeout", active_s,
		      "idle_timeout", idle_s);
	json_object_set_new(o, "export", exporter ? nfv_ipfix_stats(exporter) : json_null());
	return o;
}

/* New ports get the feature while flow statistics are on. */
uint32_t nfv_flow_iface_epoch;
uint32_t nfv_flow_iface_removed_at[NFV_IFACE_MAX];

static void
flow_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	char err[NFV_ERR_LEN];

	if (ev == NFV_IFACE_REMOVED && iface < NFV_IFACE_MAX) {
		/* Its flows end at each worker's next scan (flow.h). */
		uint32_t epoch = __atomic_load_n(&nfv_flow_iface_epoch, __ATOMIC_RELAXED) + 1;

		__atomic_store_n(&nfv_flow_iface_removed_at[iface], epoch, __ATOMIC_RELEASE);
		__atomic_store_n(&nfv_flow_iface_epoch, epoch, __ATOMIC_RELEASE);
		return;
	}

	if (ev == NFV_IFACE_ADDED && nfv_flow_conf.on && iface < RTE_MAX_ETHPORTS &&
	    nfv_ifaces[iface].kind == NFV_IFACE_KIND_PORT)
		(void)nfv_arc_feature_set("l2_input", "nfv_flow_in", iface, true, err);
}
NFV_IFACE_EVENT_HANDLER(flow_iface_event);

static void
flow_show_stats(json_t *stats)
{
	struct nfv_flow_counters c;

	nfv_counters_sum(&nfv_flow_counters_block, &c);
	json_object_set_new(stats, "flow", json_pack(
		"{s:I, s:I, s:I, s:I, s:I, s:I}",
		"flows_created", (json_int_t)c.created, "flows_ended", (json_int_t)c.expired,
		"table_full", (json_int_t)c.table_full, "records", (json_int_t)c.records,
		"ring_full", (json_int_t)c.ring_full,
		"records_exported", (json_int_t)(records_drained - records_discarded)));
}

static void
flow_metrics(FILE *f)
{
	struct nfv_flow_counters c;
	bool was = nfv_stats_since_start(true);

	nfv_counters_sum(&nfv_flow_counters_block, &c);
	nfv_stats_since_start(was);
	nfv_metrics_help(f, "nfvd_flows_total", "counter", "Flows created by flow statistics");
	fprintf(f, "nfvd_flows_total %" PRIu64 "\n", c.created);
	nfv_metrics_help(f, "nfvd_flows_active", "gauge", "Flows in the workers' tables");
	fprintf(f, "nfvd_flows_active %" PRIu64 "\n", c.created - c.expired);
	nfv_metrics_help(f, "nfvd_flow_table_full_total", "counter",
			 "Packets not counted: their flow found no room in the table");
	fprintf(f, "nfvd_flow_table_full_total %" PRIu64 "\n", c.table_full);
	nfv_metrics_help(f, "nfvd_flow_records_total", "counter",
			 "Flow records the workers reported");
	fprintf(f, "nfvd_flow_records_total %" PRIu64 "\n", c.records);
	nfv_metrics_help(f, "nfvd_flow_records_exported_total", "counter",
			 "Flow records sent to the IPFIX collector");
	fprintf(f, "nfvd_flow_records_exported_total %" PRIu64 "\n",
		records_drained - records_discarded);
}

static const struct nfv_collector flow_collector = {
	.name = "flow",
	.show_stats = flow_show_stats,
	.metrics = flow_metrics,
};
NFV_COLLECTOR_REGISTER(flow_collector);

static struct nfv_timer *drain_timer;

static int
flow_init(void)
{
	struct timespec ts;

	tsc_hz = rte_get_tsc_hz();
	clock_tsc = rte_get_tsc_cycles();
	clock_gettime(CLOCK_REALTIME, &ts);
	clock_ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	nfv_flow_conf.capacity = FLOW_CAPACITY;
	nfv_flow_conf.scan_tsc = tsc_hz / 1000;
	timeouts_set(FLOW_ACTIVE_DEFAULT, FLOW_IDLE_DEFAULT);
	drain_timer = nfv_timer_add("flow-drain", FLOW_DRAIN_PERIOD, false, flow_timer, NULL);
	return drain_timer == NULL ? -ENOMEM : 0;
}

/* At exit (workers stopped): what the rings hold, then the rest of every
 * flow, goes to the collector. */
static void
flow_stop(void)
{
	flow_drain();
	for (unsigned int i = 0; i < nfv_n_workers; i++) {
		struct nfv_flow_worker *fw = nfv_flow_workers[i];

		for (int f = 0; fw != NULL && f < NFV_FLOW_FAMILIES; f++)
			for (uint32_t p = 0; p < FLOW_CAPACITY; p++) {
				const struct nfv_flow_entry *e = &fw->entries[f][p];
				struct nfv_flow_record r;

				if (e->used && nfv_flow_record_make(f, e, true, &r))
					record_out(&r);
			}
	}
	nfv_ipfix_close(exporter);
	exporter = NULL;
}

static void
flow_fini(void)
{
	if (drain_timer != NULL)
		nfv_timer_del(drain_timer);
	for (unsigned int i = 0; i < NFV_MAX_WORKERS; i++) {
		worker_free(nfv_flow_workers[i]);
		nfv_flow_workers[i] = NULL;
	}
}

static struct nfv_module flow_module = {
	.name = "flow",
	.depends_on = "infra",
	.init = flow_init,
	.stop = flow_stop,
	.fini = flow_fini,
};
NFV_MODULE_REGISTER(flow_module);
