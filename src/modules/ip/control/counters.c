/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ip module's counters and its part of the views: "icmp" / "icmp6" and
 * the table sizes in "show stats", the same in Prometheus.
 */
#include <inttypes.h>

#include "core/counters.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_counters.h"
#include "modules/ip/control/route.h"
#include "modules/ip/reasm.h"

NFV_COUNTER_BLOCK(nfv_ip_counters_block, "ip", struct nfv_ip_counters);

static json_t *
icmp_json(const struct nfv_ip_counters *c, unsigned int f)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "errors_sent", (json_int_t)c->icmp_sent[f],
			 "rate_limited", (json_int_t)c->icmp_rate_limited[f],
			 "no_source_address", (json_int_t)c->icmp_no_source[f],
			 "not_allowed", (json_int_t)c->icmp_not_allowed[f],
			 "echo_replies", (json_int_t)c->echo_replies[f]);
}

/* Fragments the workers' reassembly tables hold now, of both families. */
static uint64_t
reasm_held(void)
{
	uint64_t held = 0;

	for (unsigned int i = 0; i < NFV_MAX_WORKERS; i++)
		held += __atomic_load_n(&nfv_reasm_workers[i].held, __ATOMIC_RELAXED);
	return held;
}

static void
ip_show_stats(json_t *stats)
{
	struct nfv_ip_counters c;
	json_t *tables = json_object_get(stats, "tables");

	nfv_counters_sum(&nfv_ip_counters_block, &c);
	json_object_set_new(stats, "icmp", icmp_json(&c, 0));
	json_object_set_new(stats, "icmp6", icmp_json(&c, 1));
	json_object_set_new(stats, "ip4", json_pack("{s:I, s:I, s:I, s:I, s:I}", "routed_again",
						    (json_int_t)c.routed_again[0],
						    "fragmented", (json_int_t)c.fragmented,
						    "fragments", (json_int_t)c.fragments,
						    "reassembled", (json_int_t)c.reassembled[0],
						    "reassembled_fragments",
						    (json_int_t)c.reassembled_fragments[0]));
	json_object_set_new(stats, "ip6", json_pack("{s:I, s:I, s:I, s:I, s:I}", "routed_again",
						    (json_int_t)c.routed_again[1],
						    "fragmented", (json_int_t)c.fragmented6,
						    "fragments", (json_int_t)c.fragments6,
						    "reassembled", (json_int_t)c.reassembled[1],
						    "reassembled_fragments",
						    (json_int_t)c.reassembled_fragments[1]));
	if (tables != NULL) {
		json_object_set_new(tables, "ipv4_routes",
				    json_integer((json_int_t)nfv_route_count(AF_INET)));
		json_object_set_new(tables, "ipv6_routes",
				    json_integer((json_int_t)nfv_route_count(AF_INET6)));
		json_object_set_new(tables, "nexthops", json_integer((json_int_t)nfv_nh_count()));
		/* Fragments held for reassembly (both families share a
		 * worker's table). */
		json_object_set_new(tables, "reassembly_held",
				    json_integer((json_int_t)reasm_held()));
		/* The tables' size now, and what they may grow to. */
		json_object_set_new(tables, "ipv4_route_capacity",
				    json_integer((json_int_t)nfv_route_capacity(AF_INET)));
		json_object_set_new(tables, "ipv6_route_capacity",
				    json_integer((json_int_t)nfv_route_capacity(AF_INET6)));
		json_object_set_new(tables, "ipv4_route_max",
				    json_integer((json_int_t)nfv_route_max(AF_INET, 0)));
		json_object_set_new(tables, "ipv6_route_max",
				    json_integer((json_int_t)nfv_route_max(AF_INET6, 0)));
		json_object_set_new(tables, "memory_bytes", json_pack(
			"{s:I, s:I, s:I, s:I}",
			"ipv4_fib", (json_int_t)nfv_ip_memory.fib4,
			"ipv6_fib", (json_int_t)nfv_ip_memory.fib6,
			"routes", (json_int_t)nfv_ip_memory.routes,
			"nexthops", (json_int_t)nfv_ip_memory.nexthops));
	}
}

/* One counter or gauge without labels. */
static void
metric_one(FILE *f, const char *name, const char *type, const char *help, uint64_t v)
{
	nfv_metrics_help(f, name, type, help);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

/* One counter of each family: v4 and v6. */
static void
metric_families(FILE *f, const char *name, const char *help, uint64_t v4, uint64_t v6)
{
	nfv_metrics_help(f, name, "counter", help);
	fprintf(f, "%s{family=\"ipv4\"} %" PRIu64 "\n", name, v4);
	fprintf(f, "%s{family=\"ipv6\"} %" PRIu64 "\n", name, v6);
}

static void
ip_metrics(FILE *f)
{
	struct nfv_ip_counters c;

	nfv_counters_sum(&nfv_ip_counters_block, &c);
	metric_families(f, "nfvd_icmp_errors_sent_total", "ICMP errors sent", c.icmp_sent[0],
			c.icmp_sent[1]);
	metric_one(f, "nfvd_ip4_routed_again_total", "counter",
		   "IPv4 packets forwarded before the ingress features and routed again after "
		   "those features changed", c.routed_again[0]);
	metric_one(f, "nfvd_ip6_routed_again_total", "counter",
		   "IPv6 packets forwarded before the ingress features and routed again after "
		   "those features changed", c.routed_again[1]);
	metric_one(f, "nfvd_ip4_fragmented_total", "counter",
		   "IPv4 packets larger than the output MTU without DF, cut into fragments",
		   c.fragmented);
	metric_one(f, "nfvd_ip4_fragments_total", "counter",
		   "IPv4 fragments made of them (each sent as a packet)", c.fragments);
	metric_one(f, "nfvd_ip6_fragmented_total", "counter",
		   "nfvd's own IPv6 packets larger than the output MTU, cut into fragments",
		   c.fragmented6);
	metric_one(f, "nfvd_ip6_fragments_total", "counter",
		   "IPv6 fragments made of them (each sent as a packet)", c.fragments6);
	metric_families(f, "nfvd_ip_reassembled_total",
			"Datagrams for nfvd's own addresses reassembled from fragments",
			c.reassembled[0], c.reassembled[1]);
	metric_families(f, "nfvd_ip_reassembled_fragments_total",
			"Fragments those datagrams were made of", c.reassembled_fragments[0],
			c.reassembled_fragments[1]);
	metric_one(f, "nfvd_ip_reassembly_held", "gauge",
		   "Fragments held until their datagram is complete or times out", reasm_held());
	nfv_metrics_help(f, "nfvd_routes", "gauge", "Routes in the FIB");
	fprintf(f, "nfvd_routes{family=\"ipv4\"} %u\n", nfv_route_count(AF_INET));
	fprintf(f, "nfvd_routes{family=\"ipv6\"} %u\n", nfv_route_count(AF_INET6));
	nfv_metrics_help(f, "nfvd_nexthops", "gauge", "Next-hop objects");
	fprintf(f, "nfvd_nexthops %u\n", nfv_nh_count());
	nfv_metrics_help(f, "nfvd_table_memory_bytes", "gauge",
			 "Memory the route tables took when created");
	fprintf(f, "nfvd_table_memory_bytes{table=\"ipv4_fib\"} %zu\n", nfv_ip_memory.fib4);
	fprintf(f, "nfvd_table_memory_bytes{table=\"ipv6_fib\"} %zu\n", nfv_ip_memory.fib6);
	fprintf(f, "nfvd_table_memory_bytes{table=\"routes\"} %zu\n", nfv_ip_memory.routes);
	fprintf(f, "nfvd_table_memory_bytes{table=\"nexthops\"} %zu\n", nfv_ip_memory.nexthops);
}

static const struct nfv_collector ip_collector = {
	.name = "ip",
	.show_stats = ip_show_stats,
	.metrics = ip_metrics,
};
NFV_COLLECTOR_REGISTER(ip_collector);
