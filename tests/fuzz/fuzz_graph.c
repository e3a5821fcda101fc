/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: every input is a frame received on port "in" of a test
 * instance (two net_null ports, addresses, neighbors, IPv4/IPv6 routes,
 * ECMP, a blackhole, a small MTU) and walks the whole graph in this thread.
 * Inputs longer than 600 bytes arrive as two chained segments. After each
 * input every mbuf must be back in its pool.
 *
 *   build-fuzz/tests/fuzz/fuzz_graph -max_total_time=600 tests/fuzz/corpus
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_graph.h>
#include <rte_malloc.h>
#include <rte_graph_worker.h>
#include <rte_mbuf.h>

#include "api/cmd.h"
#include "core/arc.h"
#include "core/counters.h"
#include "core/worker.h"
#include "modules/ip/ip.h"
#include "core/meta.h"
#include "modules/infra/port.h"

#define FUZZ_SEG_SPLIT 600

static struct rte_graph *graph;
static struct rte_mempool *pool;
static uint16_t in_port;
static struct rte_mbuf *pending;

static uint16_t
fuzz_rx_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t count)
{
	void **to;

	(void)objs;
	(void)count;
	if (pending == NULL)
		return 0;
	to = rte_node_next_stream_get(g, node, 0, 1);
	to[0] = pending;
	pending = NULL;
	rte_node_next_stream_put(g, node, 0, 1);
	return 1;
}

static struct rte_node_register fuzz_rx_node = {
	.name = "fuzz_rx",
	.flags = RTE_NODE_SOURCE_F,
	.process = fuzz_rx_process,
	.nb_edges = 1,
	.next_nodes = { "nfv_eth_input" },
};
RTE_NODE_REGISTER(fuzz_rx_node);

static const char *setup_cmds[] = {
	"port add in dev net_null0,no-rx=1",
	"port add out dev net_null1,no-rx=1 mtu 600",
	"addr add 10.0.0.1/24 dev in",
	"addr add 10.1.0.1/24 dev out",
	"addr add 2001:db8:a::1/64 dev in",
	"addr add 2001:db8:b::1/64 dev out",
	"neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev in",
	"neigh add 10.1.0.2 lladdr 02:00:00:00:01:02 dev out",
	"neigh add 10.1.0.3 lladdr 02:00:00:00:01:03 dev out",
	"neigh add 2001:db8:a::2 lladdr 02:00:00:00:00:02 dev in",
	"neigh add 2001:db8:b::2 lladdr 02:00:00:00:01:02 dev out",
	"route add 198.18.0.0/15 via 10.1.0.2",
	"route add 198.51.100.0/24 via 10.1.0.2 via 10.1.0.3",
	"route add 203.0.113.0/24 blackhole",
	"route add 192.0.2.0/24 dev out",
	"route add 2001:db8:100::/48 via 2001:db8:b::2",
	"route add ::/0 via 2001:db8:b::2",
};

/* NAT44: what "in" routes out of "out" from 10.0.0.0/24 is translated,
 * and TCP to in's address, port 8080, goes to 10.0.0.2:80. The load
 * balancer: TCP and UDP to 198.18.0.100 port 80 go to two backends, TCP
 * port 443 to two direct-return backends (one never resolved). */
static const char *feature_cmds[] = {
	"nat44 snat add src 10.0.0.0/24 dev out",
	"nat44 dnat add dev in proto tcp dport 8080 to 10.0.0.2:80",
	"lb service add 198.18.0.100:80 proto tcp",
	"lb backend add 198.18.0.100:80 proto tcp 10.1.0.2:8080",
	"lb backend add 198.18.0.100:80 proto tcp 10.0.0.2 weight 3",
	"lb service add 198.18.0.100:80 proto udp",
	"lb backend add 198.18.0.100:80 proto udp 10.1.0.3",
	"lb service add 198.18.0.100:443 proto tcp mode dsr",
	"lb backend add 198.18.0.100:443 proto tcp 10.1.0.2",
	"lb backend add 198.18.0.100:443 proto tcp 10.1.0.99",
};

static void
fuzz_init(void)
{
	static char *eal[] = { "fuzz", "-l", "0", "--no-huge", "-m", "1024", "--no-pci",
			       "--no-telemetry", "--log-level", "error", "--file-prefix", "nfvfuzz",
			       NULL };
	struct nfv_limits limits = { .max_routes4 = 1024, .max_routes6 = 1024, .tbl8_4 = 256,
				     .tbl8_6 = 256 };
	static const char *nodes[] = {
		"fuzz_rx", "nfv_eth_input", "nfv_ip4_input", "nfv_ip4_lookup",
		"nfv_ip4_rewrite", "nfv_ip4_local", "nfv_ip4_icmp_error", "nfv_ip6_input",
		"nfv_ip6_lookup", "nfv_ip6_rewrite", "nfv_ip6_local", "nfv_ip6_icmp_error",
		"nfv_port_tx", "nfv_drop",
	};
	struct rte_graph_param prm = {
		.socket_id = 0,
		.nb_node_patterns = RTE_DIM(nodes),
		.node_patterns = nodes,
	};
	struct rte_meter_srtcm_params icmp = { .cir = 1000000, .cbs = 1000000, .ebs = 0 };
	rte_graph_t id;

	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0 || nfv_meta_register() < 0 ||
	    nfv_ip_init(&limits, 0) < 0)
		abort();
	nfv_n_workers = 1;
	nfv_workers[0].index = 0;
	/* The modules' counter blocks, as nfv_workers_init() gives every worker. */
	nfv_workers[0].counters = rte_zmalloc("fuzz_counters", nfv_counters_area_size() + 8,
					      RTE_CACHE_LINE_SIZE);
	nfv_workers[0].counters_base = rte_zmalloc("fuzz_counters",
						   nfv_counters_area_size() + 8, 0);
	if (nfv_workers[0].counters == NULL || nfv_workers[0].counters_base == NULL)
		abort();
	rte_meter_srtcm_profile_config(&nfv_icmp_meter_profile, &icmp);
	rte_meter_srtcm_config(&nfv_workers[0].icmp_meter[0], &nfv_icmp_meter_profile);
	rte_meter_srtcm_config(&nfv_workers[0].icmp_meter[1], &nfv_icmp_meter_profile);
	for (size_t i = 0; i < RTE_DIM(setup_cmds); i++) {
		struct nfv_reply r;

		if (nfv_cmd_exec(setup_cmds[i], &r) < 0) {
			fprintf(stderr, "fuzz setup: %s: %s\n", setup_cmds[i], r.err);
			abort();
		}
		nfv_reply_clear(&r);
	}
	in_port = nfv_port_by_name("in")->port_id;
	pool = nfv_port_by_name("in")->pool;
	if (nfv_graph_setup() < 0)
		abort();
	/* Features on the arcs, enabled once the arcs exist. */
	for (size_t i = 0; i < RTE_DIM(feature_cmds); i++) {
		struct nfv_reply r;

		if (nfv_cmd_exec(feature_cmds[i], &r) < 0) {
			fprintf(stderr, "fuzz setup: %s: %s\n", feature_cmds[i], r.err);
			abort();
		}
		nfv_reply_clear(&r);
	}
	nfv_worker_being_built = &nfv_workers[0];
	id = rte_graph_create("fuzz", &prm);
	nfv_worker_being_built = NULL;
	if (id == RTE_GRAPH_ID_INVALID)
		abort();
	graph = rte_graph_lookup("fuzz");
}

static struct rte_mbuf *
frame_from(const uint8_t *data, size_t size)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *tail;
	size_t first = size > FUZZ_SEG_SPLIT ? FUZZ_SEG_SPLIT : size;

	if (m == NULL)
		abort();
	memcpy(rte_pktmbuf_append(m, (uint16_t)first), data, first);
	if (size > first) {
		tail = rte_pktmbuf_alloc(pool);
		if (tail == NULL)
			abort();
		memcpy(rte_pktmbuf_append(tail, (uint16_t)(size - first)), data + first,
		       size - first);
		if (rte_pktmbuf_chain(m, tail) != 0)
			abort();
	}
	m->port = in_port;
	nfv_meta(m)->flags = 0;
	nfv_workers[0].walk_rx_tsc = rte_rdtsc();
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (graph == NULL)
		fuzz_init();
	if (size > 2 * FUZZ_SEG_SPLIT + 1000)
		return 0;
	pending = frame_from(data, size);
	/* Most interesting frames are for us: aim the first bytes at our MAC. */
	if (size >= 6 && (data[0] & 1) == 0 && size % 3 != 0)
		memcpy(rte_pktmbuf_mtod(pending, uint8_t *), nfv_ports[in_port].mac.addr_bytes, 6);
	rte_graph_walk(graph);
	if (rte_mempool_in_use_count(pool) != 0 ||
	    rte_mempool_in_use_count(nfv_port_by_name("out")->pool) != 0) {
		fprintf(stderr, "fuzz: mbuf leak: %u + %u mbufs not returned\n",
			rte_mempool_in_use_count(pool),
			rte_mempool_in_use_count(nfv_port_by_name("out")->pool));
		abort();
	}
	return 0;
}
