/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/stats.h"
#include "core/iface_event.h"
#include "core/counters.h"
#include "core/drop_reasons.h"
#include "core/worker.h"
#include "modules/infra/port.h"

/*
 * Baselines taken at "stats reset", for workers, graph nodes and ports: the
 * views subtract them, and nothing is ever written back, so DPDK's own port
 * counters keep counting and every view of one moment agrees. Prometheus
 * reads counters since start (nfv_stats_since_start), which never go back.
 */
static struct nfv_worker_stats base[NFV_MAX_WORKERS];
#define NFV_MAX_NODES 256 /* as many as a worker graph holds (worker.c) */
static struct {
	uint64_t calls, objs, cycles;
} node_base[NFV_MAX_WORKERS][NFV_MAX_NODES];
static struct rte_eth_stats port_base[RTE_MAX_ETHPORTS];
static bool since_start; /* under the control lock */

bool
nfv_stats_since_start(bool on)
{
	bool was = since_start;

	since_start = on;
	return was;
}

/* A new port starts from zero (its id may have been another port's). */
static void
stats_iface_event(enum nfv_iface_event ev, uint16_t iface, void *arg)
{
	if (ev == NFV_IFACE_ADDED && iface < RTE_MAX_ETHPORTS) /* ports only */
		memset(&port_base[iface], 0, sizeof(port_base[iface]));
}
NFV_IFACE_EVENT_HANDLER(stats_iface_event);

/* A port's counters since the last reset (or since start). */
static int
port_stats_get(uint16_t port_id, struct rte_eth_stats *st)
{
	const struct rte_eth_stats *b = &port_base[port_id];
	int rc;

	memset(st, 0, sizeof(*st));
	rc = rte_eth_stats_get(port_id, st);
	if (rc != 0 || since_start)
		return rc;
	st->ipackets -= b->ipackets;
	st->opackets -= b->opackets;
	st->ibytes -= b->ibytes;
	st->obytes -= b->obytes;
	st->imissed -= b->imissed;
	st->ierrors -= b->ierrors;
	st->oerrors -= b->oerrors;
	st->rx_nombuf -= b->rx_nombuf;
	return 0;
}

void
nfv_stats_worker(unsigned int w, struct nfv_worker_stats *out)
{
	const struct nfv_worker_stats *s = &nfv_workers[w].stats;
	const uint64_t *cur = (const uint64_t *)s;
	const uint64_t *b = (const uint64_t *)&base[w];
	uint64_t *o = (uint64_t *)out;

	for (size_t i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		o[i] = __atomic_load_n(&cur[i], __ATOMIC_RELAXED) - (since_start ? 0 : b[i]);
}

void
nfv_stats_sum(struct nfv_worker_stats *sum)
{
	struct nfv_worker_stats one;
	uint64_t *o = (uint64_t *)sum, *x = (uint64_t *)&one;

	memset(sum, 0, sizeof(*sum));
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		nfv_stats_worker(w, &one);
		for (size_t i = 0; i < sizeof(one) / sizeof(uint64_t); i++)
			o[i] += x[i];
	}
}

/* RSS as configured: the hash functions and the key (null: no RSS). */
static json_t *
rss_json(const struct nfv_port *p)
{
	static const struct { uint64_t bit; const char *name; } fns[] = {
		{ RTE_ETH_RSS_IPV4, "ipv4" }, { RTE_ETH_RSS_FRAG_IPV4, "ipv4-frag" },
		{ RTE_ETH_RSS_NONFRAG_IPV4_TCP, "ipv4-tcp" },
		{ RTE_ETH_RSS_NONFRAG_IPV4_UDP, "ipv4-udp" },
		{ RTE_ETH_RSS_NONFRAG_IPV4_OTHER, "ipv4-other" }, { RTE_ETH_RSS_IPV6, "ipv6" },
		{ RTE_ETH_RSS_FRAG_IPV6, "ipv6-frag" },
		{ RTE_ETH_RSS_NONFRAG_IPV6_TCP, "ipv6-tcp" },
		{ RTE_ETH_RSS_NONFRAG_IPV6_UDP, "ipv6-udp" },
		{ RTE_ETH_RSS_NONFRAG_IPV6_OTHER, "ipv6-other" }, { RTE_ETH_RSS_IPV6_EX, "ipv6-ex" },
		{ RTE_ETH_RSS_IPV6_TCP_EX, "ipv6-tcp-ex" }, { RTE_ETH_RSS_IPV6_UDP_EX, "ipv6-udp-ex" },
	};
	char key[2 * sizeof(p->rss_key) + 1];
	json_t *a;

	if (p->rss_hf == 0)
		return json_null();
	a = json_array();
	for (size_t i = 0; i < RTE_DIM(fns); i++)
		if (p->rss_hf & fns[i].bit)
			json_array_append_new(a, json_string(fns[i].name));
	for (unsigned int i = 0; i < p->rss_key_len; i++)
		snprintf(&key[2 * i], 3, "%02x", p->rss_key[i]);
	key[2 * p->rss_key_len] = '\0';
	return json_pack("{s:o, s:s, s:b}", "hash", a, "key", key, "symmetric", true);
}

static json_t *
port_json(const struct nfv_port *p)
{
	struct rte_eth_stats st;
	struct rte_eth_link link;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	port_stats_get(p->port_id, &st);
	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(p->port_id, &link);
	nfv_format_mac(mac, sizeof(mac), &p->mac);
	return json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:b, s:b, s:i, s:i, s:i, s:i, s:i, "
			 "s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
			 "name", p->name, "kind", "port", "vrf", nfv_iface_vrf_name(p->port_id),
			 "port_id", p->port_id, "dev", p->dev_name,
			 "driver", p->driver, "mac", mac, "admin_up", p->admin_up,
			 "link_up", link.link_status == RTE_ETH_LINK_UP, "mtu", p->mtu,
			 "rxq", p->n_rxq, "txq", p->n_txq, "rxd", p->rxd, "txd", p->txd,
			 "link_speed_mbps", (int)link.link_speed,
			 "rx_packets", (json_int_t)st.ipackets, "rx_bytes", (json_int_t)st.ibytes,
			 "tx_packets", (json_int_t)st.opackets, "tx_bytes", (json_int_t)st.obytes,
			 "rx_missed", (json_int_t)st.imissed, "rx_errors", (json_int_t)st.ierrors,
			 "rx_nombuf", (json_int_t)st.rx_nombuf,
			 "tx_errors", (json_int_t)st.oerrors, "rss", rss_json(p));
}

/* The device's extended statistics, by their driver names. */
static json_t *
xstats_json(uint16_t port_id)
{
	int n = rte_eth_xstats_get_names(port_id, NULL, 0);
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *vals;
	json_t *o = json_object();

	if (n <= 0)
		return o;
	names = calloc((size_t)n, sizeof(*names));
	vals = calloc((size_t)n, sizeof(*vals));
	if (names != NULL && vals != NULL && rte_eth_xstats_get_names(port_id, names, n) == n &&
	    rte_eth_xstats_get(port_id, vals, n) == n)
		for (int i = 0; i < n; i++)
			if (vals[i].id < (uint64_t)n)
				json_object_set_new(o, names[vals[i].id].name,
						    json_integer((json_int_t)vals[i].value));
	free(names);
	free(vals);
	return o;
}

/* All ports, or one port with its device's xstats too. */
json_t *
nfv_stats_ports_json(const char *name)
{
	json_t *a = json_array();

	for (uint16_t pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		const struct nfv_port *p = &nfv_ports[pid];
		json_t *o;

		if (!p->used || (name != NULL && strcmp(name, p->name) != 0))
			continue;
		o = port_json(p);
		if (name != NULL)
			json_object_set_new(o, "xstats", xstats_json(pid));
		json_array_append_new(a, o);
	}
	nfv_iface_rows(a, name);
	return json_pack("{s:o}", "ports", a);
}

static void
pool_cb(const struct nfv_pool_usage *u, void *arg)
{
	json_array_append_new(arg, json_pack("{s:s, s:i, s:i, s:i}", "name", u->name, "size",
					     u->size, "in_use", u->in_use, "available",
					     u->size - u->in_use));
}

json_t *
nfv_stats_pools_json(void)
{
	json_t *a = json_array();

	nfv_pools_walk(pool_cb, a);
	return json_pack("{s:o, s:i}", "pools", a, "mbufs_in_use", nfv_pools_in_use());
}

/* The drop reasons that counted, and their total, from one snapshot. */
static json_t *
drops_json(const struct nfv_worker_stats *s)
{
	json_t *a = json_array();
	uint64_t total = 0;

	for (unsigned int r = 0; r < nfv_drop_reasons_count; r++) {
		if (s->drops[r] == 0)
			continue;
		total += s->drops[r];
		json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:s}", "node",
						   nfv_drop_reasons[r]->node, "reason",
						   nfv_drop_reasons[r]->name, "packets",
						   (json_int_t)s->drops[r], "description",
						   nfv_drop_reasons[r]->help));
	}
	return json_pack("{s:o, s:I}", "drops", a, "total", (json_int_t)total);
}

json_t *
nfv_stats_drops_json(void)
{
	struct nfv_worker_stats s;

	nfv_stats_sum(&s);
	return drops_json(&s);
}

json_t *
nfv_stats_json(void)
{
	struct nfv_worker_stats s;
	json_t *ports = nfv_stats_ports_json(NULL), *pools = nfv_stats_pools_json();
	json_t *drops, *o;
	uint64_t total_drops = 0;

	/* One snapshot for the totals and the list: they add up. */
	nfv_stats_sum(&s);
	drops = drops_json(&s);
	for (unsigned int r = 0; r < nfv_drop_reasons_count; r++)
		total_drops += s.drops[r];
	o = json_pack("{s:O, s:{s:I, s:I, s:I, s:I, s:I}, s:O, s:O, s:{s:I, s:I}}",
		      "ports", json_object_get(ports, "ports"),
		      "packets", "received", (json_int_t)s.rx_packets, "forwarded",
		      (json_int_t)s.tx_packets, "dropped", (json_int_t)total_drops,
		      "polls", (json_int_t)s.polls, "empty_polls", (json_int_t)s.empty_polls,
		      "drops", json_object_get(drops, "drops"),
		      "pools", json_object_get(pools, "pools"),
		      "tables", "rcu_grace_periods", (json_int_t)nfv_rcu_grace_periods(),
		      "mbufs_in_use", (json_int_t)nfv_pools_in_use());
	json_decref(ports);
	json_decref(pools);
	json_decref(drops);
	nfv_collectors_show_stats(o);
	return o;
}

json_t *
nfv_stats_graph_json(void)
{
	json_t *a = json_array();

	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		struct rte_graph *g = nfv_workers[w].graph;
		struct rte_node *node;
		rte_graph_off_t off;
		rte_node_t count;

		if (g == NULL)
			continue;
		rte_graph_foreach_node(count, off, g, node) {
			uint64_t calls, objs, cycles;

			if (count >= NFV_MAX_NODES)
				break;
			calls = node->total_calls;
			objs = node->total_objs;
			cycles = node->total_cycles;
			if (!since_start) {
				calls -= node_base[w][count].calls;
				objs -= node_base[w][count].objs;
				cycles -= node_base[w][count].cycles;
			}
			json_array_append_new(a, json_pack(
				"{s:s, s:i, s:I, s:I, s:I, s:f, s:f}", "node", nfv_node_display_name(node->name),
				"worker", w, "calls", (json_int_t)calls,
				"packets", (json_int_t)objs,
				"cycles", (json_int_t)cycles, "packets_per_call",
				calls ? (double)objs / (double)calls : 0.0, "cycles_per_packet",
				objs ? (double)cycles / (double)objs : 0.0));
		}
	}
	return json_pack("{s:o}", "nodes", a);
}

/* {"1": n, "2-3": n, "4-7": n, ...}: burst sizes by power of two. */
static json_t *
burst_hist_json(const uint64_t *hist)
{
	json_t *o = json_object();

	for (unsigned int b = 1; b < NFV_BURST_BUCKETS; b++) {
		char key[16];
		unsigned int lo = 1u << (b - 1), hi = (1u << b) - 1;

		if (lo == hi)
			snprintf(key, sizeof(key), "%u", lo);
		else
			snprintf(key, sizeof(key), "%u-%u", lo, hi);
		json_object_set_new(o, key, json_integer((json_int_t)hist[b]));
	}
	return o;
}

json_t *
nfv_stats_workers_json(void)
{
	json_t *a = json_array();

	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		const struct nfv_worker_conf *c = nfv_workers[w].conf;
		struct nfv_worker_stats s;
		json_t *q = json_array();

		nfv_stats_worker(w, &s);
		for (unsigned int i = 0; c != NULL && i < c->n_rxq; i++) {
			char buf[64];

			snprintf(buf, sizeof(buf), "%s:%u", nfv_ports[c->rxq[i].port_id].name,
				 c->rxq[i].queue_id);
			json_array_append_new(q, json_string(buf));
		}
		json_array_append_new(a, json_pack(
			"{s:i, s:i, s:o, s:I, s:I, s:f, s:I, s:I, s:f, s:f, s:o, s:o}", "worker", w,
			"lcore", nfv_workers[w].lcore_id, "rxqs", q, "polls", (json_int_t)s.polls,
			"empty_polls", (json_int_t)s.empty_polls, "empty_poll_pct",
			s.polls ? 100.0 * (double)s.empty_polls / (double)s.polls : 0.0,
			"rx_packets", (json_int_t)s.rx_packets, "tx_packets",
			(json_int_t)s.tx_packets, "rx_burst_avg",
			s.rx_bursts ? (double)s.rx_burst_packets / (double)s.rx_bursts : 0.0,
			"tx_burst_avg", s.tx_bursts ? (double)s.tx_burst_packets /
			(double)s.tx_bursts : 0.0,
			"rx_burst_hist", burst_hist_json(s.rx_burst_hist),
			"tx_burst_hist", burst_hist_json(s.tx_burst_hist)));
		/* Streams longer than a node's arrays, given to it in slices. */
		json_object_set_new(json_array_get(a, json_array_size(a) - 1), "sliced_streams",
				    json_integer((json_int_t)__atomic_load_n(
					    &nfv_workers[w].slice_streams, __ATOMIC_RELAXED)));
	}
	return json_pack("{s:o}", "workers", a);
}

static double
percentile_cycles(const uint64_t *hist, uint64_t total, double pct)
{
	uint64_t target = (uint64_t)((double)total * pct / 100.0 + 0.5), acc = 0;

	if (target == 0)
		target = 1;
	for (unsigned int i = 0; i < NFV_LAT_BUCKETS; i++) {
		acc += hist[i];
		if (acc >= target) {
			uint64_t lo = nfv_lat_bucket_low(i);
			uint64_t hi = i + 1 < NFV_LAT_BUCKETS ? nfv_lat_bucket_low(i + 1) : lo * 2;

			if (hi <= lo)
				hi = lo + 1;
			return (double)(lo + hi) / 2.0; /* bucket midpoint */
		}
	}
	return 0;
}

json_t *
nfv_stats_latency_json(void)
{
	struct nfv_worker_stats s;
	double ns_per_cycle = 1e9 / (double)rte_get_tsc_hz();
	uint64_t total = 0, max_bucket = 0;
	json_t *buckets = json_array();
	static const double pcts[] = { 50, 90, 99, 99.9 };
	static const char *names[] = { "p50_ns", "p90_ns", "p99_ns", "p999_ns" };
	json_t *o;

	nfv_stats_sum(&s);
	for (unsigned int i = 0; i < NFV_LAT_BUCKETS; i++) {
		total += s.lat_hist[i];
		if (s.lat_hist[i] != 0) {
			max_bucket = i;
			json_array_append_new(buckets, json_pack(
				"{s:f, s:I}", "le_ns",
				(double)nfv_lat_bucket_low(i + 1) * ns_per_cycle, "packets",
				(json_int_t)s.lat_hist[i]));
		}
	}
	o = json_pack("{s:I, s:f, s:o}", "packets", (json_int_t)total, "mean_ns",
		      total ? (double)s.lat_sum / (double)total * ns_per_cycle : 0.0, "buckets",
		      buckets);
	for (unsigned int i = 0; i < RTE_DIM(pcts); i++)
		json_object_set_new(o, names[i], json_real(total ? percentile_cycles(
			s.lat_hist, total, pcts[i]) * ns_per_cycle : 0.0));
	json_object_set_new(o, "max_ns", json_real(total ? (double)nfv_lat_bucket_low(
		max_bucket + 1) * ns_per_cycle : 0.0));
	return o;
}

void
nfv_stats_reset(void)
{
	for (unsigned int w = 0; w < nfv_n_workers; w++) {
		struct rte_graph *g = nfv_workers[w].graph;
		struct rte_node *node;
		rte_graph_off_t off;
		rte_node_t count;

		memcpy(&base[w], (const void *)&nfv_workers[w].stats, sizeof(base[w]));
		if (nfv_workers[w].counters != NULL)
			memcpy(nfv_workers[w].counters_base, nfv_workers[w].counters,
			       nfv_counters_area_size());
		if (g == NULL)
			continue;
		rte_graph_foreach_node(count, off, g, node) {
			if (count >= NFV_MAX_NODES)
				break;
			node_base[w][count].calls = node->total_calls;
			node_base[w][count].objs = node->total_objs;
			node_base[w][count].cycles = node->total_cycles;
		}
	}
	for (uint16_t pid = 0; pid < RTE_MAX_ETHPORTS; pid++)
		if (nfv_ports[pid].used)
			rte_eth_stats_get(pid, &port_base[pid]);
}

void
nfv_stats_report_line(double interval_s, char *buf, size_t len)
{
	/* Counters since start, which "stats reset" does not move; a port
	 * added again under the same id starts from zero. */
	static uint64_t last_rx[RTE_MAX_ETHPORTS], last_tx[RTE_MAX_ETHPORTS];
	static uint64_t last_drops[NFV_DROP_MAX];
	bool was = nfv_stats_since_start(true);
	struct nfv_worker_stats s;
	size_t off = 0;

	nfv_stats_sum(&s);
	nfv_stats_since_start(was);
	for (uint16_t pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		struct rte_eth_stats st;
		double rx, tx;

		if (!nfv_ports[pid].used || rte_eth_stats_get(pid, &st) != 0)
			continue;
		if (st.ipackets < last_rx[pid] || st.opackets < last_tx[pid])
			last_rx[pid] = last_tx[pid] = 0;
		rx = (double)(st.ipackets - last_rx[pid]) / interval_s / 1e6;
		tx = (double)(st.opackets - last_tx[pid]) / interval_s / 1e6;
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s rx %.3f tx %.3f Mpps  ",
						nfv_ports[pid].name, rx, tx);
		last_rx[pid] = st.ipackets;
		last_tx[pid] = st.opackets;
	}
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, "| drops/s:");
	for (unsigned int r = 0; r < nfv_drop_reasons_count; r++) {
		uint64_t d = s.drops[r] - last_drops[r];

		if (d != 0 && off < len)
			off += (size_t)snprintf(buf + off, len - off, " %s/%s %.0f",
						nfv_drop_reasons[r]->node,
						nfv_drop_reasons[r]->name,
						(double)d / interval_s);
		last_drops[r] = s.drops[r];
	}
}
