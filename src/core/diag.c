/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "show diag": names the failure patterns of the field reports when the
 * counters show them.
 *  - burst mismatch: TX bursts much smaller than RX bursts (a feature cuts
 *    the batch; cycles per packet rise while every core shows 100 %), and
 *    than the packets a walk has for each output port (traffic spread over
 *    k ports leaves in bursts k times smaller, as it does from l3fwd);
 *  - empty polls: a worker mostly polls nothing (RSS imbalance, too many
 *    workers for the load);
 *  - rx_nombuf / imissed growing: pool too small or mbufs not coming back,
 *    or the worker is too slow for the queue;
 *  - pool near exhaustion;
 *  - tail latency: P99.9 far above P50 (cache/mempool storms).
 */
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_graph.h>
#include <stdarg.h>
#include <stdlib.h>
#include <inttypes.h>

#include "core/stats.h"
#include "core/worker.h"
#include "modules/infra/port.h"

#define DIAG_MIN_BURSTS 1000
#define DIAG_BURST_RATIO 0.5
#define DIAG_EMPTY_POLL_PCT 60.0
#define DIAG_POOL_PCT 90.0
#define DIAG_TAIL_RATIO 10.0

/* Last two one-second samples of the port error counters. */
static struct {
	uint64_t nombuf, missed;
	uint64_t d_nombuf, d_missed;
	bool valid;
} port_sample[RTE_MAX_ETHPORTS];

void
nfv_stats_sample(void)
{
	for (uint16_t pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		struct rte_eth_stats st;

		if (!nfv_ports[pid].used || rte_eth_stats_get(pid, &st) != 0) {
			port_sample[pid].valid = false;
			continue;
		}
		if (port_sample[pid].valid) {
			port_sample[pid].d_nombuf = st.rx_nombuf - port_sample[pid].nombuf;
			port_sample[pid].d_missed = st.imissed - port_sample[pid].missed;
		} else {
			port_sample[pid].d_nombuf = 0;
			port_sample[pid].d_missed = 0;
		}
		port_sample[pid].nombuf = st.rx_nombuf;
		port_sample[pid].missed = st.imissed;
		port_sample[pid].valid = true;
	}
}

static void
finding(json_t *a, const char *pattern, const char *severity, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
finding(json_t *a, const char *pattern, const char *severity, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "pattern", pattern, "severity",
					   severity, "detail", msg));
}

static void
pool_check(const struct nfv_pool_usage *u, void *arg)
{
	if (u->size != 0 && 100.0 * u->in_use / u->size >= DIAG_POOL_PCT)
		finding(arg, "pool_exhaustion", "critical",
			"mempool %s is %.0f%% in use (%u of %u mbufs): mbufs are held somewhere "
			"(TX rings, a leak) or the pool is too small for the descriptors",
			u->name, 100.0 * u->in_use / u->size, u->in_use, u->size);
}

json_t *
nfv_stats_diag_json(void)
{
	json_t *a = json_array(), *lat;
	double p50, p999;

	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		struct nfv_worker_stats s;
		double rx_avg, tx_avg, group_avg, empty;

		nfv_stats_worker(w, &s);
		rx_avg = s.rx_bursts ? (double)s.rx_burst_packets / (double)s.rx_bursts : 0;
		tx_avg = s.tx_bursts ? (double)s.tx_burst_packets / (double)s.tx_bursts : 0;
		group_avg = s.tx_groups ? (double)s.tx_burst_packets / (double)s.tx_groups : 0;
		if (s.rx_bursts >= DIAG_MIN_BURSTS && s.tx_bursts >= DIAG_MIN_BURSTS &&
		    tx_avg < DIAG_BURST_RATIO * rx_avg && tx_avg < DIAG_BURST_RATIO * group_avg)
			finding(a, "burst_mismatch", "warning",
				"worker %u: TX bursts average %.1f packets but RX bursts %.1f "
				"(%.1f per output port and walk): the batch is cut between RX "
				"and TX, so the per-burst costs (doorbells, "
				"ring operations, prefetch) are paid %.1fx more often per packet; "
				"look for a node that flushes early", w, tx_avg, rx_avg, group_avg,
				RTE_MIN(rx_avg, group_avg) / (tx_avg > 0 ? tx_avg : 1));
		empty = s.polls ? 100.0 * (double)s.empty_polls / (double)s.polls : 0;
		if (s.rx_packets > 0 && s.polls >= 100000 && empty >= DIAG_EMPTY_POLL_PCT)
			finding(a, "empty_polls", "info",
				"worker %u: %.0f%% of polls find no packet while others may be "
				"busy: check the RSS spread over queues ('show workers') or use "
				"fewer workers", w, empty);
	}
	for (uint16_t pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		if (!nfv_ports[pid].used || !port_sample[pid].valid)
			continue;
		if (port_sample[pid].d_nombuf > 0)
			finding(a, "rx_nombuf", "critical",
				"port %s: rx_nombuf grew by %" PRIu64 " in the last second: the "
				"mbuf pool runs dry (too small for rxd/txd, or mbufs held/leaked)",
				nfv_ports[pid].name, port_sample[pid].d_nombuf);
		if (port_sample[pid].d_missed > 0)
			finding(a, "rx_missed", "warning",
				"port %s: imissed grew by %" PRIu64 " in the last second: the "
				"worker does not empty the RX queue fast enough (more queues and "
				"workers, larger rxd, or fewer cycles per packet)",
				nfv_ports[pid].name, port_sample[pid].d_missed);
	}
	nfv_pools_walk(pool_check, a);
	lat = nfv_stats_latency_json();
	p50 = json_real_value(json_object_get(lat, "p50_ns"));
	p999 = json_real_value(json_object_get(lat, "p999_ns"));
	if (json_integer_value(json_object_get(lat, "packets")) >= 10000 && p50 > 0 &&
	    p999 > DIAG_TAIL_RATIO * p50)
		finding(a, "tail_latency", "warning",
			"P99.9 latency %.0f ns is %.0fx P50 %.0f ns: the tail is dominated by "
			"rare stalls (mempool cache misses, remote frees, large bursts); see "
			"'show latency'", p999, p999 / p50, p50);
	json_decref(lat);
	return json_pack("{s:o, s:s}", "findings", a, "verdict",
			 json_array_size(a) == 0 ? "no known problem pattern seen" :
			 "see findings");
}

/* The live graph in Graphviz format, edges read back from rte_graph. */
json_t *
nfv_stats_graph_dot(void)
{
	json_t *nodes = nfv_stats_graph_json(), *n, *o;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL) {
		json_decref(nodes);
		return NULL;
	}
	fprintf(f, "digraph nfvd {\n\trankdir=LR;\n\tnode [shape=box, style=rounded];\n");
	json_array_foreach(json_object_get(nodes, "nodes"), i, n) {
		const char *name = json_string_value(json_object_get(n, "node"));
		char full[RTE_NODE_NAMESIZE];
		rte_node_t id;
		rte_edge_t n_edges;
		char **next;

		if (json_integer_value(json_object_get(n, "worker")) != 0)
			continue;
		snprintf(full, sizeof(full), NFV_NODE_PREFIX "%s", name);
		id = rte_node_from_name(full);
		n_edges = rte_node_edge_count(id);
		fprintf(f, "\t\"%s\" [label=\"%s\\n%" JSON_INTEGER_FORMAT
			" pkts, %.1f cyc/pkt\"];\n",
			name, name, json_integer_value(json_object_get(n, "packets")),
			json_real_value(json_object_get(n, "cycles_per_packet")));
		if (n_edges == 0 || n_edges == RTE_EDGE_ID_INVALID)
			continue;
		next = malloc(rte_node_edge_get(id, NULL));
		if (next == NULL)
			continue;
		rte_node_edge_get(id, next);
		for (rte_edge_t e = 0; e < n_edges; e++)
			fprintf(f, "\t\"%s\" -> \"%s\";\n", name,
				nfv_node_display_name(next[e]));
		free(next);
	}
	fprintf(f, "}\n");
	fclose(f);
	json_decref(nodes);
	o = json_pack("{s:s}", "dot", buf);
	free(buf);
	return o;
}
