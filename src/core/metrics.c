/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prometheus text exposition (format 0.0.4) at http://ADDR:PORT/metrics,
 * served by libmicrohttpd's own thread; every value comes from the same
 * builders as "show ..." so the CLI, telemetry and /metrics agree.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>
#include <rte_cycles.h>

#include "core/counters.h"
#include "core/stats.h"
#include "core/worker.h"

static struct MHD_Daemon *mhd;
static uint64_t missing_fields; /* under the control lock */

static void
help(FILE *f, const char *name, const char *type, const char *text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

static void
label_escape(char *out, size_t len, const char *in)
{
	size_t o = 0;

	for (; *in != '\0' && o + 2 < len; in++) {
		if (*in == '"' || *in == '\\')
			out[o++] = '\\';
		out[o++] = *in;
	}
	out[o] = '\0';
}

static void
port_metrics(FILE *f, const json_t *ports)
{
	static const struct {
		const char *field, *metric, *type, *text;
	} m[] = {
		{ "rx_packets", "nfvd_port_rx_packets_total", "counter", "Packets received" },
		{ "rx_bytes", "nfvd_port_rx_bytes_total", "counter", "Bytes received" },
		{ "tx_packets", "nfvd_port_tx_packets_total", "counter", "Packets sent" },
		{ "tx_bytes", "nfvd_port_tx_bytes_total", "counter", "Bytes sent" },
		{ "rx_missed", "nfvd_port_rx_missed_total", "counter",
		  "Packets the device dropped because the RX queue was full (imissed)" },
		{ "rx_errors", "nfvd_port_rx_errors_total", "counter",
		  "Erroneous received packets" },
		{ "rx_nombuf", "nfvd_port_rx_nombuf_total", "counter",
		  "RX mbuf allocation failures" },
		{ "tx_errors", "nfvd_port_tx_errors_total", "counter", "Failed transmissions" },
	};
	json_t *p;
	size_t i;

	for (size_t k = 0; k < RTE_DIM(m); k++) {
		help(f, m[k].metric, m[k].type, m[k].text);
		json_array_foreach(ports, i, p) {
			char name[64];

			label_escape(name, sizeof(name),
				     json_string_value(json_object_get(p, "name")));
			const json_t *v = json_object_get(p, m[k].field);

			/* A field the port view does not have is a bug: say it,
			 * never export a 0 for it. */
			if (!json_is_integer(v)) {
				missing_fields++;
				continue;
			}
			fprintf(f, "%s{port=\"%s\"} %" JSON_INTEGER_FORMAT "\n", m[k].metric, name,
				json_integer_value(v));
		}
	}
}

static void
burst_hist(FILE *f, const char *metric, unsigned int w, const uint64_t *hist, uint64_t sum)
{
	uint64_t acc = 0;

	for (unsigned int b = 1; b < NFV_BURST_BUCKETS; b++) {
		acc += hist[b];
		fprintf(f, "%s_bucket{worker=\"%u\",le=\"%u\"} %" PRIu64 "\n", metric, w,
			(1u << b) - 1, acc);
	}
	fprintf(f, "%s_bucket{worker=\"%u\",le=\"+Inf\"} %" PRIu64 "\n", metric, w, acc);
	fprintf(f, "%s_sum{worker=\"%u\"} %" PRIu64 "\n", metric, w, sum);
	fprintf(f, "%s_count{worker=\"%u\"} %" PRIu64 "\n", metric, w, acc);
}

static void
node_metrics(FILE *f, const json_t *nodes)
{
	static const struct {
		const char *field, *metric, *text;
	} m[] = {
		{ "calls", "nfvd_node_calls_total", "Graph node invocations" },
		{ "packets", "nfvd_node_packets_total", "Packets processed by a graph node" },
		{ "cycles", "nfvd_node_cycles_total", "TSC cycles spent in a graph node" },
	};
	json_t *n;
	size_t i;

	for (size_t k = 0; k < RTE_DIM(m); k++) {
		help(f, m[k].metric, "counter", m[k].text);
		json_array_foreach(nodes, i, n)
			fprintf(f, "%s{node=\"%s\",worker=\"%" JSON_INTEGER_FORMAT "\"} %"
				JSON_INTEGER_FORMAT "\n", m[k].metric,
				json_string_value(json_object_get(n, "node")),
				json_integer_value(json_object_get(n, "worker")),
				json_integer_value(json_object_get(n, m[k].field)));
	}
}

static void
worker_metrics(FILE *f)
{
	static struct nfv_worker_stats s[NFV_MAX_WORKERS]; /* under the control lock */
	unsigned int w;

	for (w = 0; w < nfv_n_workers; w++)
		nfv_stats_worker(w, &s[w]);
	help(f, "nfvd_worker_polls_total", "counter", "Graph walks (RX polls) per worker");
	for (w = 0; w < nfv_n_workers; w++)
		fprintf(f, "nfvd_worker_polls_total{worker=\"%u\"} %" PRIu64 "\n", w, s[w].polls);
	help(f, "nfvd_worker_empty_polls_total", "counter", "Polls that received nothing");
	for (w = 0; w < nfv_n_workers; w++)
		fprintf(f, "nfvd_worker_empty_polls_total{worker=\"%u\"} %" PRIu64 "\n", w,
			s[w].empty_polls);
	help(f, "nfvd_rx_burst_size", "histogram", "Packets per non-empty rte_eth_rx_burst");
	for (w = 0; w < nfv_n_workers; w++)
		burst_hist(f, "nfvd_rx_burst_size", w, s[w].rx_burst_hist,
			   s[w].rx_burst_packets);
	help(f, "nfvd_tx_burst_size", "histogram", "Packets per rte_eth_tx_burst");
	for (w = 0; w < nfv_n_workers; w++)
		burst_hist(f, "nfvd_tx_burst_size", w, s[w].tx_burst_hist,
			   s[w].tx_burst_packets);
}

/*
 * The latency histogram with fixed bounds (every power of two of TSC cycles,
 * from 64), so that scrapes always carry the same series.
 */
static void
latency_metrics(FILE *f, double sec_per_cycle)
{
	struct nfv_worker_stats s;
	uint64_t acc = 0;
	unsigned int b = 0;

	nfv_stats_sum(&s);
	help(f, "nfvd_latency_seconds", "histogram", "RX-to-TX latency of forwarded packets");
	for (unsigned int k = 6; k < NFV_LAT_BUCKETS / 4; k++) {
		/* Buckets below index 4k hold latencies below 2^k cycles. */
		for (; b < 4 * k; b++)
			acc += s.lat_hist[b];
		fprintf(f, "nfvd_latency_seconds_bucket{le=\"%.9g\"} %" PRIu64 "\n",
			(double)(1ull << k) * sec_per_cycle, acc);
	}
	for (; b < NFV_LAT_BUCKETS; b++)
		acc += s.lat_hist[b];
	fprintf(f, "nfvd_latency_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n", acc);
	fprintf(f, "nfvd_latency_seconds_sum %.9g\n", (double)s.lat_sum * sec_per_cycle);
	fprintf(f, "nfvd_latency_seconds_count %" PRIu64 "\n", acc);
}

char *
nfv_metrics_text(void)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	json_t *stats, *graph, *d;
	double sec_per_cycle = 1.0 / (double)rte_get_tsc_hz();
	bool was_since_start;

	if (f == NULL)
		return NULL;
	nfv_ctl_lock();
	/* Counters since start: a "stats reset" must not send them back. */
	was_since_start = nfv_stats_since_start(true);
	stats = nfv_stats_json();
	graph = nfv_stats_graph_json();

	port_metrics(f, json_object_get(stats, "ports"));

	help(f, "nfvd_drop_packets_total", "counter", "Packets dropped, by node and reason");
	json_array_foreach(json_object_get(stats, "drops"), i, d)
		fprintf(f, "nfvd_drop_packets_total{node=\"%s\",reason=\"%s\"} %"
			JSON_INTEGER_FORMAT "\n", json_string_value(json_object_get(d, "node")),
			json_string_value(json_object_get(d, "reason")),
			json_integer_value(json_object_get(d, "packets")));

	node_metrics(f, json_object_get(graph, "nodes"));
	worker_metrics(f);
	latency_metrics(f, sec_per_cycle);

	help(f, "nfvd_mempool_in_use", "gauge", "Mbufs out of their pool");
	json_array_foreach(json_object_get(stats, "pools"), i, d)
		fprintf(f, "nfvd_mempool_in_use{pool=\"%s\"} %" JSON_INTEGER_FORMAT "\n",
			json_string_value(json_object_get(d, "name")),
			json_integer_value(json_object_get(d, "in_use")));
	help(f, "nfvd_mempool_size", "gauge", "Mbufs in the pool");
	json_array_foreach(json_object_get(stats, "pools"), i, d)
		fprintf(f, "nfvd_mempool_size{pool=\"%s\"} %" JSON_INTEGER_FORMAT "\n",
			json_string_value(json_object_get(d, "name")),
			json_integer_value(json_object_get(d, "size")));
	help(f, "nfvd_rcu_grace_periods_total", "counter", "RCU grace periods waited");
	fprintf(f, "nfvd_rcu_grace_periods_total %" PRIu64 "\n", nfv_rcu_grace_periods());
	nfv_collectors_metrics(f);
	help(f, "nfvd_metrics_missing_fields_total", "counter",
	     "Values a metric was to be read from and was not there (a bug if not 0)");
	fprintf(f, "nfvd_metrics_missing_fields_total %" PRIu64 "\n", missing_fields);
	nfv_stats_since_start(was_since_start);
	nfv_ctl_unlock();
	json_decref(stats);
	json_decref(graph);
	fclose(f);
	return buf;
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
	   const char *version, const char *upload, size_t *upload_size, void **state)
{
	struct MHD_Response *r;
	enum MHD_Result rc;
	char *body;
	unsigned int status = MHD_HTTP_OK;

	(void)cls;
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		body = strdup("only GET\n");
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
	} else if (strcmp(url, "/metrics") != 0) {
		body = strdup("nfvd: metrics are at /metrics\n");
		status = MHD_HTTP_NOT_FOUND;
	} else {
		body = nfv_metrics_text();
	}
	if (body == NULL)
		return MHD_NO;
	r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

int
nfv_metrics_start(const char *addr_port, char *err, size_t errlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char host[64];
	const char *colon = strrchr(addr_port, ':');
	char *end;
	unsigned long port;

	if (colon == NULL || (size_t)(colon - addr_port) >= sizeof(host)) {
		snprintf(err, errlen, "bad --metrics '%s' (expected ADDR:PORT)", addr_port);
		return -EINVAL;
	}
	memcpy(host, addr_port, (size_t)(colon - addr_port));
	host[colon - addr_port] = '\0';
	port = strtoul(colon + 1, &end, 10);
	if (*end != '\0' || port == 0 || port > 65535 ||
	    inet_pton(AF_INET, host[0] ? host : "0.0.0.0", &sa.sin_addr) != 1) {
		snprintf(err, errlen, "bad --metrics '%s' (expected IPv4ADDR:PORT)", addr_port);
		return -EINVAL;
	}
	sa.sin_port = htons((uint16_t)port);
	mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
			       (uint16_t)port, NULL, NULL, on_request, NULL,
			       MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			       MHD_OPTION_CONNECTION_LIMIT, 16u,
			       MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	if (mhd == NULL) {
		snprintf(err, errlen, "cannot serve metrics on %s (port in use?)", addr_port);
		return -EADDRINUSE;
	}
	return 0;
}

void
nfv_metrics_stop(void)
{
	if (mhd != NULL)
		MHD_stop_daemon(mhd);
	mhd = NULL;
}
