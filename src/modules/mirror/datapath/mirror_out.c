/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mirror_out: a feature of the l2_output arc (port_tx -> l2_output_end ->
 * port_tx), enabled on the ports a session mirrors "out" (or "both"). Every
 * frame is copied as it will be sent (rewritten, tagged) and the copies
 * leave the session's mirror port in one burst on this worker's TX queue;
 * the originals go back to port_tx, untouched, and leave in the same walk.
 *
 * Edges: the l2_output arc's next features and l2_output_end.
 * Reads: meta.tx_port. Writes: nothing in the originals.
 * Counters: as mirror_in (per session, per worker). Drops nothing.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/mirror/mirror.h"

struct nfv_arc_feature nfv_mirror_out_feature = {
	.arc_name = "l2_output",
	.node = "nfv_mirror_out",
	.observes = true,
};
NFV_ARC_FEATURE_REGISTER(nfv_mirror_out_feature);

static uint16_t
mirror_out_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	nfv_mirror_burst(nfv_node_worker(node), (struct rte_mbuf **)objs, n, NFV_MIRROR_OUT, false);
	return nfv_arc_feature_pass(graph, node, objs, n, &nfv_mirror_out_feature, true);
}

static struct rte_node_register mirror_out_node = {
	.name = "nfv_mirror_out",
	.process = mirror_out_process,
	.init = nfv_node_ctx_init,
};

RTE_NODE_REGISTER(mirror_out_node);
