/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * policer_in4 / policer_in6 / policer_out4 / policer_out6: meters each
 * packet with the policer attached to its interface ("in": the receiving
 * one, after the ACL on the ingress arcs; "out": the output one, after the
 * ACL and before the VLAN tag on the egress arcs). Colour-blind srTCM
 * (RFC 2697) or trTCM (RFC 2698) through rte_meter, on this worker's meter
 * and its share of the rates (policer.h); the length metered is the IP
 * packet's. Green and yellow pass; red is dropped.
 *
 * Edges: drop, then the arc's.
 * Reads: mbuf->port (in), meta.tx_port (out).
 * Drops: policer/red.
 * Counters: packets and bytes per colour, per policer and worker.
 */
#include <rte_cycles.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_meter.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/policer/policer.h"

enum policer_next {
	POLICER_NEXT_DROP,
	POLICER_NEXT_MAX,
};

NFV_DROP_REASON(drop_policer_red, "policer", "red",
	"over the policer's rate: red (RFC 2697 / RFC 2698)");

static struct nfv_arc_feature policer_in4_feature = {
	.arc_name = "ip4_ingress", .node = "nfv_policer_in4", .runs_after = "nfv_acl_in4",
	.keeps_route = true, /* reads the length only */
};
static struct nfv_arc_feature policer_in6_feature = {
	.arc_name = "ip6_ingress", .node = "nfv_policer_in6", .runs_after = "nfv_acl_in6",
	.keeps_route = true,
};
static struct nfv_arc_feature policer_out4_feature = {
	.arc_name = "ip4_egress", .node = "nfv_policer_out4", .runs_after = "nfv_acl_out4",
	.runs_before = "nfv_vlan_output4",
};
static struct nfv_arc_feature policer_out6_feature = {
	.arc_name = "ip6_egress", .node = "nfv_policer_out6", .runs_after = "nfv_acl_out6",
	.runs_before = "nfv_vlan_output6",
};
NFV_ARC_FEATURE_REGISTER(policer_in4_feature);
NFV_ARC_FEATURE_REGISTER(policer_in6_feature);
NFV_ARC_FEATURE_REGISTER(policer_out4_feature);
NFV_ARC_FEATURE_REGISTER(policer_out6_feature);

static __rte_always_inline uint16_t
policer_run(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
	    const enum nfv_policer_dir dir, const struct nfv_arc_feature *f)
{
	unsigned int wi = nfv_node_worker(node)->index;
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint64_t now = rte_rdtsc();
	struct nfv_arc_burst_edge ec = { .iface = UINT16_MAX };

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t iface = dir == NFV_POLICER_IN ? m->port : nfv_meta(m)->tx_port;
		struct nfv_policer *p = __atomic_load_n(&nfv_policer_bound[dir][iface],
							__ATOMIC_ACQUIRE);
		struct nfv_policer_worker *pw;
		uint32_t len = rte_pktmbuf_pkt_len(m) - NFV_L2_LEN;
		enum rte_color c;
		unsigned int cur;

		nexts[i] = nfv_arc_burst_next_edge(f, &ec, iface);
		if (p == NULL)
			continue; /* detached while the packet was on its way */
		pw = &p->w[wi];
		cur = __atomic_load_n(&pw->cur, __ATOMIC_ACQUIRE);
		if (p->trtcm)
			c = rte_meter_trtcm_color_blind_check(&pw->m.tr, &pw->prof[cur].tr, now, len);
		else
			c = rte_meter_srtcm_color_blind_check(&pw->m.sr, &pw->prof[cur].sr, now, len);
		pw->packets[c]++;
		pw->bytes[c] += len;
		if (c == RTE_COLOR_RED)
			nexts[i] = nfv_mark_drop(m, drop_policer_red.id, POLICER_NEXT_DROP);
	}
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

static uint16_t
policer_in4_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return policer_run(graph, node, objs, n, NFV_POLICER_IN, &policer_in4_feature);
}

static uint16_t
policer_in6_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return policer_run(graph, node, objs, n, NFV_POLICER_IN, &policer_in6_feature);
}

static uint16_t
policer_out4_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return policer_run(graph, node, objs, n, NFV_POLICER_OUT, &policer_out4_feature);
}

static uint16_t
policer_out6_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return policer_run(graph, node, objs, n, NFV_POLICER_OUT, &policer_out6_feature);
}

#define POLICER_NODE(var, name_, fn) \
	static struct rte_node_register var = { \
		.name = name_, \
		.process = fn, \
		.init = nfv_node_ctx_init, \
		.nb_edges = POLICER_NEXT_MAX, \
		.next_nodes = { [POLICER_NEXT_DROP] = "nfv_drop" }, \
	}; \
	RTE_NODE_REGISTER(var)

POLICER_NODE(policer_in4_node, "nfv_policer_in4", policer_in4_process);
POLICER_NODE(policer_in6_node, "nfv_policer_in6", policer_in6_process);
POLICER_NODE(policer_out4_node, "nfv_policer_out4", policer_out4_process);
POLICER_NODE(policer_out6_node, "nfv_policer_out6", policer_out6_process);
