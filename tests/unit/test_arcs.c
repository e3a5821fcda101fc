/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Feature arcs, tested on the real nodes with built packets: two test
 * features on the IPv4 ingress arc ("first" declared to run before
 * "second", registered in the other order) and one on the IPv4 egress
 * arc, enabled per interface. Frames are walked through a graph of nfvd's
 * nodes fed by a test source node, on the main lcore; each feature counts
 * what it sees per interface and stamps its own slice of the mbuf private
 * area, so the test sees which features ran, on which interfaces, in which
 * order, and that the packets still left by the right port. A test node
 * registered for a UDP port gets the datagrams for a local address.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_malloc.h>

#include "nfv_test.h"
#include "nfv_test_eal.h"
#include "core/arc.h"
#include "core/counters.h"
#include "core/meta.h"
#include "core/worker.h"
#include "modules/infra/port.h"
#include "modules/ip/udp.h"

static const struct nfv_limits limits = {
	.max_routes4 = 64, .max_routes6 = 64, .tbl8_4 = 64, .tbl8_6 = 1024,
};

/* What the features write in the packets they see. */
struct test_stamp {
	uint8_t order[4]; /* feature ids in the order they ran */
	uint8_t n;
};
NFV_MBUF_PRIV(test_stamp_slice, "test_arcs", struct test_stamp);

enum { FEAT_FIRST = 1, FEAT_SECOND, FEAT_EGRESS };

static uint64_t seen[4][RTE_MAX_ETHPORTS];

static struct nfv_arc_feature feat_second = {
	.arc_name = "ip4_ingress", .node = "nfv_test_second",
};
static struct nfv_arc_feature feat_first = {
	.arc_name = "ip4_ingress", .node = "nfv_test_first", .runs_before = "nfv_test_second",
	.keeps_route = true,
};
static struct nfv_arc_feature feat_l2 = {
	.arc_name = "l2_input", .node = "nfv_test_l2",
};
NFV_ARC_FEATURE_REGISTER(feat_l2);
static uint64_t l2_seen[RTE_MAX_ETHPORTS]; /* written by the real worker */

static struct nfv_arc_feature feat_egress = {
	.arc_name = "ip4_egress", .node = "nfv_test_egress",
};
NFV_ARC_FEATURE_REGISTER(feat_second);
NFV_ARC_FEATURE_REGISTER(feat_first);
NFV_ARC_FEATURE_REGISTER(feat_egress);

static __rte_always_inline uint16_t
feature_run(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
	    const struct nfv_arc_feature *f, uint8_t id, bool egress)
{
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		struct test_stamp *st = nfv_mbuf_priv(m, &test_stamp_slice);
		uint16_t iface = egress ? nfv_meta(m)->tx_port : m->port;

		seen[id][iface]++;
		if (st->n < RTE_DIM(st->order))
			st->order[st->n++] = id;
		rte_node_enqueue_x1(graph, node, nfv_arc_next_edge(f, iface), m);
	}
	return n;
}

static uint16_t
first_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	return feature_run(g, node, objs, n, &feat_first, FEAT_FIRST, false);
}

static uint16_t
second_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	return feature_run(g, node, objs, n, &feat_second, FEAT_SECOND, false);
}

static uint16_t
egress_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	return feature_run(g, node, objs, n, &feat_egress, FEAT_EGRESS, true);
}

/* Runs on the real worker (its graph holds every nfv_ node): counts the
 * frames of each port before eth_input sees them. */
static uint16_t
l2_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];

		__atomic_fetch_add(&l2_seen[m->port], 1, __ATOMIC_RELAXED);
		rte_node_enqueue_x1(g, node, nfv_arc_next_edge(&feat_l2, m->port), m);
	}
	return n;
}

static struct rte_node_register l2_node = {
	.name = "nfv_test_l2", .process = l2_process, .init = nfv_node_ctx_init,
};
RTE_NODE_REGISTER(l2_node);

/* Feature nodes get their edges from the arcs at start-up. */
static struct rte_node_register first_node = {
	.name = "nfv_test_first", .process = first_process, .init = nfv_node_ctx_init,
};
static struct rte_node_register second_node = {
	.name = "nfv_test_second", .process = second_process, .init = nfv_node_ctx_init,
};
static struct rte_node_register egress_node = {
	.name = "nfv_test_egress", .process = egress_process, .init = nfv_node_ctx_init,
};
RTE_NODE_REGISTER(first_node);
RTE_NODE_REGISTER(second_node);
RTE_NODE_REGISTER(egress_node);

/* UDP port 9999 of our IPv4 addresses (a test port: 4789 is the vxlan
 * module's): counted and freed here. */
static uint64_t udp_seen;

static uint16_t
udp_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	udp_seen += n;
	rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
	return n;
}

static struct rte_node_register udp_node = {
	.name = "nfv_test_udp", .process = udp_process, .init = nfv_node_ctx_init,
};
RTE_NODE_REGISTER(udp_node);
NFV_UDP_PORT_REGISTER(test_udp, AF_INET, 9999, "nfv_test_udp");

/* The test's source node: hands the packets of one walk to eth_input. */
static struct rte_mbuf *pending[64];
static uint16_t n_pending;

static uint16_t
test_rx_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t count)
{
	void **to;
	uint16_t n = n_pending;

	if (n == 0)
		return 0;
	to = rte_node_next_stream_get(g, node, 0, n);
	memcpy(to, pending, n * sizeof(pending[0]));
	rte_node_next_stream_put(g, node, 0, n);
	n_pending = 0;
	return n;
}

static struct rte_node_register test_rx_node = {
	.name = "test_rx", .flags = RTE_NODE_SOURCE_F, .process = test_rx_process,
	.nb_edges = 1, .next_nodes = { "nfv_eth_input" },
};
RTE_NODE_REGISTER(test_rx_node);

static struct nfv_worker test_worker;
static struct rte_graph *graph;
static struct nfv_port *port_a, *port_b;

#define MAC_A "02:00:00:00:01:02"
#define MAC_B "02:00:00:00:02:02"

/* A UDP frame to the port's MAC, from 10.1.0.2 (on a) or 10.2.0.2 (on b). */
static struct rte_mbuf *
frame_to_port(struct nfv_port *in, const char *dst, uint16_t dport)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(in->pool);
	uint8_t *p;
	struct {
		uint8_t eth[14];
		uint8_t ip[20];
		uint8_t udp[8];
	} __attribute__((packed)) f = { 0 };
	uint32_t src = htonl(in == port_a ? 0x0a010002 : 0x0a020002), d;

	assert_non_null(m);
	memcpy(f.eth, in->mac.addr_bytes, 6);
	memcpy(f.eth + 6, "\x02\x00\x00\x00\x09\x09", 6);
	f.eth[12] = 0x08;
	f.ip[0] = 0x45;
	f.ip[3] = 28;
	f.ip[8] = 64;
	f.ip[9] = 17;
	memcpy(f.ip + 12, &src, 4);
	assert_int_equal(inet_pton(AF_INET, dst, &d), 1);
	memcpy(f.ip + 16, &d, 4);
	{
		uint32_t sum = 0;
		uint16_t w;

		for (int i = 0; i < 20; i += 2) {
			memcpy(&w, f.ip + i, 2);
			sum += w;
		}
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		w = (uint16_t)~sum;
		memcpy(f.ip + 10, &w, 2);
	}
	f.udp[2] = (uint8_t)(dport >> 8);
	f.udp[3] = (uint8_t)dport;
	f.udp[5] = 8;
	p = (uint8_t *)rte_pktmbuf_append(m, sizeof(f));
	memcpy(p, &f, sizeof(f));
	m->port = in->port_id;
	memset(nfv_mbuf_priv(m, &test_stamp_slice), 0, sizeof(struct test_stamp));
	return m;
}

static struct rte_mbuf *
frame(struct nfv_port *in, const char *dst)
{
	return frame_to_port(in, dst, 0);
}

/* Sends n frames from a (to 10.2.0.9, via b) and n from b (to 10.1.0.9,
 * via a) through the graph; returns the packets port_tx sent. */
static uint64_t
walk(unsigned int n)
{
	uint64_t before = test_worker.stats.tx_packets;

	for (unsigned int i = 0; i < n; i++) {
		pending[n_pending++] = frame(port_a, "10.2.0.9");
		pending[n_pending++] = frame(port_b, "10.1.0.9");
	}
	test_worker.walk_rx_tsc = rte_rdtsc();
	rte_graph_walk(graph);
	assert_int_equal(rte_mempool_in_use_count(port_a->pool), 0);
	assert_int_equal(rte_mempool_in_use_count(port_b->pool), 0);
	return test_worker.stats.tx_packets - before;
}

static int
group_setup(void **state)
{
	static const char *nodes[] = {
		"test_rx", "nfv_eth_input", "nfv_ip4_input", "nfv_ip4_lookup",
		"nfv_ip4_rewrite", "nfv_ip4_local", "nfv_ip4_icmp_error", "nfv_ip6_input",
		"nfv_ip6_lookup", "nfv_ip6_rewrite", "nfv_ip6_local", "nfv_ip6_icmp_error",
		"nfv_port_tx", "nfv_drop", "nfv_test_first", "nfv_test_second",
		"nfv_test_egress", "nfv_test_udp",
	};
	struct rte_graph_param prm = {
		.socket_id = 0, .nb_node_patterns = RTE_DIM(nodes), .node_patterns = nodes,
	};

	if (nfv_test_eal_up(&limits) < 0)
		return -1;
	json_decref(nfv_test_ok("port add a dev net_null0,no-rx=1"));
	json_decref(nfv_test_ok("port add b dev net_null1,no-rx=1"));
	json_decref(nfv_test_ok("addr add 10.1.0.1/24 dev a"));
	json_decref(nfv_test_ok("addr add 10.2.0.1/24 dev b"));
	json_decref(nfv_test_ok("neigh add 10.1.0.9 lladdr " MAC_A " dev a"));
	json_decref(nfv_test_ok("neigh add 10.2.0.9 lladdr " MAC_B " dev b"));
	port_a = nfv_port_by_name("a");
	port_b = nfv_port_by_name("b");
	test_worker.index = 0;
	test_worker.counters = rte_zmalloc(NULL, nfv_counters_area_size() + 8, 64);
	test_worker.counters_base = rte_zmalloc(NULL, nfv_counters_area_size() + 8, 64);
	if (test_worker.counters == NULL || test_worker.counters_base == NULL)
		return -1;
	nfv_worker_being_built = &test_worker;
	graph = rte_graph_lookup(rte_graph_id_to_name(rte_graph_create("test_arcs", &prm)));
	nfv_worker_being_built = NULL;
	return graph == NULL ? -1 : 0;
}

static int
group_teardown(void **state)
{
	if (graph != NULL)
		rte_graph_destroy(rte_graph_from_name("test_arcs"));
	rte_free(test_worker.counters);
	rte_free(test_worker.counters_base);
	nfv_test_clear_tables();
	return nfv_test_group_teardown(state);
}

static void
test_no_feature_goes_straight_to_the_end(void **state)
{
	const struct nfv_arc *in = nfv_arc_by_name("ip4_ingress");
	const struct nfv_arc *out = nfv_arc_by_name("ip4_egress");

	assert_non_null(in);
	assert_non_null(out);
	/* Registered in the other order, run in the order declared (the
	 * modules' own features, acl and policer, are on the arc too). */
	{
		int first = -1, second = -1;

		for (int k = 0; k < in->n_features; k++) {
			if (strcmp(in->features[k]->node, "nfv_test_first") == 0)
				first = k;
			if (strcmp(in->features[k]->node, "nfv_test_second") == 0)
				second = k;
		}
		assert_true(first >= 0 && second > first);
	}
	for (uint16_t i = 0; i < NFV_ARC_IFACES; i++) {
		assert_int_equal(nfv_arc_start_edge(in, i), in->end_edge);
		assert_int_equal(nfv_arc_start_edge(out, i), out->end_edge);
	}
	memset(seen, 0, sizeof(seen));
	assert_int_equal(walk(8), 16);
	for (int f = 0; f < 4; f++)
		for (int p = 0; p < RTE_MAX_ETHPORTS; p++)
			assert_int_equal(seen[f][p], 0);
}

/* The fused node's and the lookup's own entries of the arcs (ip4_input.c,
 * ip4_rewrite.c). */
extern struct nfv_arc_entry nfv_ip4_fast_ingress_entry, nfv_ip4_lookup_egress_entry;

/* The node an entry sends iface's packets to first. */
static bool
entry_goes_to(const struct nfv_arc_entry *e, uint16_t iface, const char *to)
{
	rte_node_t id = rte_node_from_name(e->node);
	rte_edge_t n = rte_node_edge_count(id);
	char **next = malloc(rte_node_edge_get(id, NULL));
	uint16_t edge = nfv_arc_entry_edge(e, iface);
	bool same;

	assert_non_null(next);
	rte_node_edge_get(id, next);
	assert_true(edge < n);
	same = strcmp(next[edge], to) == 0;
	free(next);
	return same;
}

static void
test_features_run_per_interface_in_order(void **state)
{
	char err[NFV_ERR_LEN];
	uint16_t a = port_a->port_id, b = port_b->port_id;

	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_second", a, true, err), 0);
	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_first", a, true, err), 0);
	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_second", b, true, err), 0);
	assert_int_equal(nfv_arc_feature_set("ip4_egress", "nfv_test_egress", b, true, err), 0);
	/* Interfaces with a feature on, per arc (what ip4_fast reads). */
	assert_int_equal(nfv_arc_by_name("ip4_ingress")->n_ifaces_on, 2);
	assert_int_equal(nfv_arc_by_name("ip4_egress")->n_ifaces_on, 1);
	/* The other start nodes follow: ip4_fast hands a's packets to the
	 * first feature, b's to the second, another interface's to the
	 * lookup; ip4_lookup hands what leaves by b to the egress feature. */
	assert_true(entry_goes_to(&nfv_ip4_fast_ingress_entry, a, "nfv_test_first"));
	assert_true(entry_goes_to(&nfv_ip4_fast_ingress_entry, b, "nfv_test_second"));
	assert_true(entry_goes_to(&nfv_ip4_fast_ingress_entry, 200, "nfv_ip4_lookup"));
	assert_true(entry_goes_to(&nfv_ip4_lookup_egress_entry, b, "nfv_test_egress"));
	assert_true(entry_goes_to(&nfv_ip4_lookup_egress_entry, a, "nfv_port_tx"));
	memset(seen, 0, sizeof(seen));
	/* Every packet still forwarded: the features pass them on. */
	assert_int_equal(walk(10), 20);
	assert_int_equal(seen[FEAT_FIRST][a], 10);
	assert_int_equal(seen[FEAT_FIRST][b], 0);
	assert_int_equal(seen[FEAT_SECOND][a], 10);
	assert_int_equal(seen[FEAT_SECOND][b], 10);
	/* Egress on b: the packets from a, which leave by b. */
	assert_int_equal(seen[FEAT_EGRESS][b], 10);
	assert_int_equal(seen[FEAT_EGRESS][a], 0);

	/* Off again: no feature runs, the interface costs nothing more. */
	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_first", a, false, err), 0);
	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_second", a, false, err), 0);
	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_second", b, false, err), 0);
	assert_int_equal(nfv_arc_feature_set("ip4_egress", "nfv_test_egress", b, false, err), 0);
	assert_int_equal(nfv_arc_start_edge(nfv_arc_by_name("ip4_ingress"), a),
			 nfv_arc_by_name("ip4_ingress")->end_edge);
	assert_int_equal(nfv_arc_by_name("ip4_ingress")->n_ifaces_on, 0);
	assert_int_equal(nfv_arc_by_name("ip4_egress")->n_ifaces_on, 0);
	assert_true(entry_goes_to(&nfv_ip4_fast_ingress_entry, a, "nfv_ip4_lookup"));
	assert_true(entry_goes_to(&nfv_ip4_lookup_egress_entry, b, "nfv_port_tx"));
	memset(seen, 0, sizeof(seen));
	assert_int_equal(walk(4), 8);
	assert_int_equal(seen[FEAT_FIRST][a] + seen[FEAT_SECOND][a] + seen[FEAT_SECOND][b] +
			 seen[FEAT_EGRESS][b], 0);
}

/*
 * An interface whose ingress features all keep the route lets packets walk
 * them routed (routed_ok); enabling one that does not takes that back and
 * moves the route gen on, as does the last feature going; disabling it
 * gives it back without a new gen. Packets walk the routed way with the
 * same result: every one forwarded, the features and the egress feature
 * seeing each.
 */
static void
test_routed_ingress(void **state)
{
	char err[NFV_ERR_LEN];
	uint16_t a = port_a->port_id, b = port_b->port_id;
	const struct nfv_arc *in = nfv_arc_by_name("ip4_ingress");
	uint32_t gen = nfv_arc_route_gen(in, a);

	assert_false(nfv_arc_routed_ok(in, a));
	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_first", a, true, err), 0);
	assert_true(nfv_arc_routed_ok(in, a));
	assert_false(nfv_arc_routed_ok(in, b));
	assert_int_equal(nfv_arc_route_gen(in, a), gen);
	assert_int_equal(nfv_arc_feature_set("ip4_egress", "nfv_test_egress", b, true, err), 0);
	memset(seen, 0, sizeof(seen));
	assert_int_equal(walk(10), 20);
	assert_int_equal(seen[FEAT_FIRST][a], 10);
	assert_int_equal(seen[FEAT_EGRESS][b], 10);

	/* One that does not keep the route: taken back, a new gen. */
	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_second", a, true, err), 0);
	assert_false(nfv_arc_routed_ok(in, a));
	assert_int_equal(nfv_arc_route_gen(in, a), gen + 1);
	memset(seen, 0, sizeof(seen));
	assert_int_equal(walk(10), 20);
	assert_int_equal(seen[FEAT_FIRST][a], 10);
	assert_int_equal(seen[FEAT_SECOND][a], 10);
	assert_int_equal(seen[FEAT_EGRESS][b], 10);
	/* Gone again: given back, the gen stays. */
	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_second", a, false, err), 0);
	assert_true(nfv_arc_routed_ok(in, a));
	assert_int_equal(nfv_arc_route_gen(in, a), gen + 1);
	/* The last feature off: nothing to walk, a new gen. */
	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_first", a, false, err), 0);
	assert_false(nfv_arc_routed_ok(in, a));
	assert_int_equal(nfv_arc_route_gen(in, a), gen + 2);
	nfv_arcs_iface_clear(a);
	nfv_arcs_iface_clear(b);
}

/* The order one packet saw, from the stamps in its private-area slice. */
static void
test_order_is_first_then_second(void **state)
{
	char err[NFV_ERR_LEN];
	uint16_t a = port_a->port_id, b = port_b->port_id;
	struct rte_mbuf *m;
	const struct test_stamp *st;

	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_first", a, true, err), 0);
	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_second", a, true, err), 0);
	/* One packet, kept by the test: its stamps after the ingress arc. The
	 * egress feature on b records the order before port_tx frees it. */
	assert_int_equal(nfv_arc_feature_set("ip4_egress", "nfv_test_egress", b, true, err), 0);
	m = frame(port_a, "10.2.0.9");
	rte_mbuf_refcnt_update(m, 1); /* port_tx's free leaves it to us */
	pending[n_pending++] = m;
	rte_graph_walk(graph);
	st = nfv_mbuf_priv(m, &test_stamp_slice);
	assert_int_equal(st->n, 3);
	assert_int_equal(st->order[0], FEAT_FIRST);
	assert_int_equal(st->order[1], FEAT_SECOND);
	assert_int_equal(st->order[2], FEAT_EGRESS);
	rte_pktmbuf_free(m);
	nfv_arcs_iface_clear(a);
	nfv_arcs_iface_clear(b);
	assert_int_equal(nfv_arc_start_edge(nfv_arc_by_name("ip4_egress"), b),
			 nfv_arc_by_name("ip4_egress")->end_edge);
}

static void
test_bad_names_are_refused(void **state)
{
	char err[NFV_ERR_LEN];

	assert_int_equal(nfv_arc_feature_set("ip9_ingress", "nfv_test_first", 0, true, err),
			 -ENOENT);
	assert_non_null(strstr(err, "no arc ip9_ingress"));
	assert_int_equal(nfv_arc_feature_set("ip4_ingress", "nfv_test_egress", 0, true, err),
			 -ENOENT);
	assert_non_null(strstr(err, "not a feature of arc ip4_ingress"));
}

static void
test_udp_port_of_a_local_address(void **state)
{
	uint64_t tx = test_worker.stats.tx_packets;

	udp_seen = 0;
	pending[n_pending++] = frame_to_port(port_a, "10.1.0.1", 9999);
	pending[n_pending++] = frame_to_port(port_a, "10.1.0.1", 9998);
	pending[n_pending++] = frame_to_port(port_b, "10.2.0.1", 9999);
	rte_graph_walk(graph);
	/* Both datagrams to 9999 reach the node; 9998 is nobody's: dropped. */
	assert_int_equal(udp_seen, 2);
	/* 9998 bound at run time to the same node (a tunnel's dstport), then
	 * unbound; a node that registered no port cannot be bound, nor a port
	 * another node serves. */
	assert_int_equal(nfv_udp_port_bind(AF_INET, 9998, "nfv_test_udp"), 0);
	assert_int_equal(nfv_udp_port_bind(AF_INET, 9998, "nfv_drop"), -EEXIST);
	assert_int_equal(nfv_udp_port_bind(AF_INET, 9997, "nfv_drop"), -ENOENT);
	assert_int_equal(nfv_udp_port_bind(AF_INET6, 9998, "nfv_test_udp"), -ENOENT);
	pending[n_pending++] = frame_to_port(port_a, "10.1.0.1", 9998);
	rte_graph_walk(graph);
	assert_int_equal(udp_seen, 3);
	nfv_udp_port_unbind(AF_INET, 9998, "nfv_test_udp");
	pending[n_pending++] = frame_to_port(port_a, "10.1.0.1", 9998);
	rte_graph_walk(graph);
	assert_int_equal(udp_seen, 3);
	assert_int_equal(test_worker.stats.tx_packets, tx);
	assert_int_equal(rte_mempool_in_use_count(port_a->pool), 0);
	assert_int_equal(rte_mempool_in_use_count(port_b->pool), 0);
}

/* A pcap file of n Ethernet frames for nobody (dropped as other_host). */
static char *
pcap_of(unsigned int n)
{
	static const uint32_t head[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	char *path = nfv_test_tmpfile("");
	FILE *f = fopen(path, "wb");
	uint8_t frame[60] = { 0x02, 0, 0, 0, 0x09, 0x09, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00, 0x45 };

	assert_non_null(f);
	fwrite(head, sizeof(head), 1, f);
	for (unsigned int i = 0; i < n; i++) {
		uint32_t rec[4] = { 0, i, sizeof(frame), sizeof(frame) };

		fwrite(rec, sizeof(rec), 1, f);
		fwrite(frame, sizeof(frame), 1, f);
	}
	fclose(f);
	return path;
}

static void
test_l2_input_arc_on_a_real_port(void **state)
{
	char *path = pcap_of(40), line[512], err[NFV_ERR_LEN];
	struct nfv_port *p;
	uint64_t deadline;

	/* The port's id is DPDK's: enable the feature on every port id first,
	 * so that no frame is polled before it is on. */
	for (uint16_t i = 0; i < RTE_MAX_ETHPORTS; i++)
		assert_int_equal(nfv_arc_feature_set("l2_input", "nfv_test_l2", i, true, err), 0);
	snprintf(line, sizeof(line), "port add l2p dev net_pcap7,rx_pcap=%s", path);
	json_decref(nfv_test_ok("%s", line));
	p = nfv_port_by_name("l2p");
	assert_non_null(p);
	deadline = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
	while (__atomic_load_n(&l2_seen[p->port_id], __ATOMIC_RELAXED) < 40 &&
	       rte_get_tsc_cycles() < deadline)
		rte_delay_ms(1);
	assert_int_equal(__atomic_load_n(&l2_seen[p->port_id], __ATOMIC_RELAXED), 40);
	for (uint16_t i = 0; i < RTE_MAX_ETHPORTS; i++)
		assert_int_equal(nfv_arc_feature_set("l2_input", "nfv_test_l2", i, false, err), 0);
	json_decref(nfv_test_ok("port del l2p"));
	unlink(path);
	free(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_feature_goes_straight_to_the_end),
		cmocka_unit_test(test_features_run_per_interface_in_order),
		cmocka_unit_test(test_order_is_first_then_second),
		cmocka_unit_test(test_routed_ingress),
		cmocka_unit_test(test_bad_names_are_refused),
		cmocka_unit_test(test_udp_port_of_a_local_address),
		cmocka_unit_test(test_l2_input_arc_on_a_real_port),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
