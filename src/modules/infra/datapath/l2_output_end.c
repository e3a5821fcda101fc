/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * l2_output_end: the end of the L2 output arc (port_tx -> features ->
 * l2_output_end -> port_tx). The packets come back from the last feature
 * enabled on their port, marked NFV_META_L2_OUTPUT_DONE by port_tx, and go
 * back to port_tx as one stream, which sends them in the same walk. (A node
 * of its own because a graph node may not have an edge to itself.)
 *
 * Edges: port_tx.
 * Reads, writes, drops: nothing.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>

enum l2_output_end_next {
	L2_OUTPUT_END_NEXT_TX,
	L2_OUTPUT_END_NEXT_MAX,
};

static uint16_t
l2_output_end_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	RTE_SET_USED(objs);
	rte_node_next_stream_move(graph, node, L2_OUTPUT_END_NEXT_TX);
	return n;
}

static struct rte_node_register l2_output_end_node = {
	.name = "nfv_l2_output_end",
	.process = l2_output_end_process,
	.nb_edges = L2_OUTPUT_END_NEXT_MAX,
	.next_nodes = {
		[L2_OUTPUT_END_NEXT_TX] = "nfv_port_tx",
	},
};

RTE_NODE_REGISTER(l2_output_end_node);
