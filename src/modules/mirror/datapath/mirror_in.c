/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mirror_in: a feature of the l2_input arc (port_rx -> eth_input), enabled
 * on the ports a session mirrors "in" (or "both"). Every frame is copied
 * as received (rte_pktmbuf_copy into the mirror pool) and the copies leave
 * the session's mirror port in one burst on this worker's TX queue; the
 * originals go on to the next feature or eth_input, untouched.
 *
 * Edges: the l2_input arc's next features and eth_input.
 * Reads: mbuf->port. Writes: nothing in the originals.
 * Counters: mirror copies, copy drops (mirror port refused them or is
 * down), copies without an mbuf; per session, per worker. Drops nothing.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/mirror/mirror.h"

struct nfv_arc_feature nfv_mirror_in_feature = {
	.arc_name = "l2_input",
	.node = "nfv_mirror_in",
	.observes = true,
};
NFV_ARC_FEATURE_REGISTER(nfv_mirror_in_feature);

static uint16_t
mirror_in_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	nfv_mirror_burst(nfv_node_worker(node), (struct rte_mbuf **)objs, n, NFV_MIRROR_IN, false);
	return nfv_arc_feature_pass(graph, node, objs, n, &nfv_mirror_in_feature, false);
}

static struct rte_node_register mirror_in_node = {
	.name = "nfv_mirror_in",
	.process = mirror_in_process,
	.init = nfv_node_ctx_init,
};

RTE_NODE_REGISTER(mirror_in_node);
