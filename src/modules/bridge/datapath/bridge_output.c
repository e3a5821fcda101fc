/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bridge_output4 / bridge_output6: features of the IPv4 and IPv6 egress
 * arcs on every bridge that has an address (the gateway of its ports).
 * They run after the other egress features (ACL, policer, NAT44), which
 * see the packet as routed out of the bridge. A packet routed out of the
 * bridge (its Ethernet header written by the rewrite, the bridge's MAC as
 * source) goes to bridge_input as sent by the bridge itself (mbuf->port
 * the bridge), which looks its destination up in the FDB or floods it to
 * the ports.
 *
 * Edges: bridge_input, then the arc's (unused: every packet is bridged).
 * Reads: meta.tx_port (the bridge). Writes: mbuf->port.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/bridge/bridge.h"

enum bridge_output_next {
	BRIDGE_OUTPUT_NEXT_BRIDGE,
	BRIDGE_OUTPUT_NEXT_MAX,
};

static struct nfv_arc_feature bridge_output4_feature = {
	.arc_name = "ip4_egress", .node = "nfv_bridge_output4", .runs_after = "nfv_nat44_out",
};
static struct nfv_arc_feature bridge_output6_feature = {
	.arc_name = "ip6_egress", .node = "nfv_bridge_output6", .runs_after = "nfv_policer_out6",
};
NFV_ARC_FEATURE_REGISTER(bridge_output4_feature);
NFV_ARC_FEATURE_REGISTER(bridge_output6_feature);

static uint16_t
bridge_output_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];

		m->port = nfv_meta(m)->tx_port;
	}
	rte_node_next_stream_move(graph, node, BRIDGE_OUTPUT_NEXT_BRIDGE);
	return n;
}

static struct rte_node_register bridge_output4_node = {
	.name = "nfv_bridge_output4",
	.process = bridge_output_process,
	.init = nfv_node_ctx_init,
	.nb_edges = BRIDGE_OUTPUT_NEXT_MAX,
	.next_nodes = { [BRIDGE_OUTPUT_NEXT_BRIDGE] = "nfv_bridge_input" },
};

static struct rte_node_register bridge_output6_node = {
	.name = "nfv_bridge_output6",
	.process = bridge_output_process,
	.init = nfv_node_ctx_init,
	.nb_edges = BRIDGE_OUTPUT_NEXT_MAX,
	.next_nodes = { [BRIDGE_OUTPUT_NEXT_BRIDGE] = "nfv_bridge_input" },
};

RTE_NODE_REGISTER(bridge_output4_node);
RTE_NODE_REGISTER(bridge_output6_node);
