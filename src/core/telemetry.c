/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK telemetry commands under /nfvd/ (read them with dpdk-telemetry.py).
 * Telemetry in DPDK 22.11 takes flat dictionaries, so each command returns
 * its "show" result flattened: nested keys joined with '/', lists of rows
 * keyed by the row's name (e.g. "ip4_lookup/no_route", "p0/rx_packets").
 * A dictionary holds RTE_TEL_MAX_DICT_ENTRIES values: a reply that would hold
 * more (many ports or workers) ends with "truncated", the number of values
 * left out, rather than stopping silently; nfvctl and /metrics have them all.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <rte_telemetry.h>

#include "core/stats.h"

static void
sanitize(char *k)
{
	for (; *k != '\0'; k++)
		if (!isalnum((unsigned char)*k) && *k != '_' && *k != '/')
			*k = '_';
}

static const char *
row_name(const json_t *row, char *buf, size_t len)
{
	static const char *keys[] = { "name", "node", "prefix", "address", "pattern" };
	const json_t *w = json_object_get(row, "worker");
	const json_t *reason = json_object_get(row, "reason");

	for (size_t i = 0; i < RTE_DIM(keys); i++) {
		const char *v = json_string_value(json_object_get(row, keys[i]));

		if (v == NULL)
			continue;
		if (reason != NULL)
			snprintf(buf, len, "%s/%s", v, json_string_value(reason));
		else if (json_is_integer(w))
			snprintf(buf, len, "%s/%" JSON_INTEGER_FORMAT, v, json_integer_value(w));
		else
			snprintf(buf, len, "%s", v);
		return buf;
	}
	if (json_is_integer(w)) {
		snprintf(buf, len, "worker%" JSON_INTEGER_FORMAT, json_integer_value(w));
		return buf;
	}
	return NULL;
}

struct tel_count {
	unsigned int n;       /* values added */
	unsigned int skipped; /* values left out: the dictionary is full */
};

static void
flatten(struct rte_tel_data *d, const char *prefix, const json_t *v, struct tel_count *n)
{
	char key[RTE_TEL_MAX_STRING_LEN];
	const char *k;
	json_t *c;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		json_object_foreach((json_t *)v, k, c) {
			snprintf(key, sizeof(key), "%s%s%s", prefix, prefix[0] ? "/" : "", k);
			flatten(d, key, c, n);
		}
		return;
	case JSON_ARRAY:
		json_array_foreach(v, i, c) {
			char name[96];

			if (json_is_object(c) && row_name(c, name, sizeof(name)) != NULL)
				snprintf(key, sizeof(key), "%s%s%s",
					 prefix, prefix[0] ? "/" : "", name);
			else
				snprintf(key, sizeof(key), "%s/%zu", prefix, i);
			flatten(d, key, c, n);
		}
		return;
	case JSON_NULL:
		return;
	default:
		break;
	}
	if (n->n >= RTE_TEL_MAX_DICT_ENTRIES - 1) { /* one kept for "truncated" */
		n->skipped++;
		return;
	}
	snprintf(key, sizeof(key), "%s", prefix);
	sanitize(key);
	switch (json_typeof(v)) {
	case JSON_INTEGER:
		rte_tel_data_add_dict_u64(d, key, (uint64_t)json_integer_value(v));
		break;
	case JSON_REAL:
		rte_tel_data_add_dict_u64(d, key, (uint64_t)(json_real_value(v) + 0.5));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		rte_tel_data_add_dict_int(d, key, json_is_true(v));
		break;
	case JSON_STRING: {
		char val[RTE_TEL_MAX_STRING_LEN];

		snprintf(val, sizeof(val), "%s", json_string_value(v));
		rte_tel_data_add_dict_string(d, key, val);
		break;
	}
	default:
		return;
	}
	n->n++;
}

static int
reply(struct rte_tel_data *d, json_t *(*builder)(void), const char *skip)
{
	struct tel_count n = { 0, 0 };
	json_t *o;

	nfv_ctl_lock();
	o = builder();
	nfv_ctl_unlock();
	if (o == NULL)
		return -1;
	if (skip != NULL)
		json_object_del(o, skip);
	rte_tel_data_start_dict(d);
	flatten(d, "", o, &n);
	if (n.skipped > 0)
		rte_tel_data_add_dict_u64(d, "truncated", n.skipped);
	json_decref(o);
	return 0;
}

static json_t *
stats_summary(void)
{
	json_t *o = nfv_stats_json();

	/* Ports, drops and pools have their own commands. */
	json_object_del(o, "ports");
	json_object_del(o, "drops");
	json_object_del(o, "pools");
	return o;
}

static json_t *
ports_all(void)
{
	return nfv_stats_ports_json(NULL);
}

#define TEL_CMD(fn, builder, skip) \
	static int fn(const char *cmd, const char *params, struct rte_tel_data *d) \
	{ \
		return reply(d, builder, skip); \
	}

TEL_CMD(tel_stats, stats_summary, NULL)
TEL_CMD(tel_ports, ports_all, NULL)
TEL_CMD(tel_drops, nfv_stats_drops_json, NULL)
TEL_CMD(tel_graph, nfv_stats_graph_json, NULL)
TEL_CMD(tel_workers, nfv_stats_workers_json, NULL)
TEL_CMD(tel_latency, nfv_stats_latency_json, "buckets")
TEL_CMD(tel_pools, nfv_stats_pools_json, NULL)
TEL_CMD(tel_diag, nfv_stats_diag_json, NULL)

static const struct {
	const char *path;
	telemetry_cb fn;
	const char *help;
} tel_cmds[] = {
	{ "/nfvd/stats", tel_stats, "nfvd packet totals, ICMP, tables. No parameters" },
	{ "/nfvd/ports", tel_ports, "nfvd per-port counters. No parameters" },
	{ "/nfvd/drops", tel_drops, "nfvd drops by node/reason. No parameters" },
	{ "/nfvd/graph", tel_graph,
	  "nfvd per node and worker: calls, packets, cycles. No parameters" },
	{ "/nfvd/workers", tel_workers, "nfvd per worker: polls, bursts. No parameters" },
	{ "/nfvd/latency", tel_latency, "nfvd RX-to-TX latency percentiles (ns). No parameters" },
	{ "/nfvd/pools", tel_pools, "nfvd mempools in use. No parameters" },
	{ "/nfvd/diag", tel_diag, "nfvd known problem patterns. No parameters" },
};

int
nfv_telemetry_init(void)
{
	int rc = 0;

	for (size_t i = 0; i < RTE_DIM(tel_cmds); i++)
		rc |= rte_telemetry_register_cmd(tel_cmds[i].path, tel_cmds[i].fn,
						 tel_cmds[i].help);
	return rc;
}
