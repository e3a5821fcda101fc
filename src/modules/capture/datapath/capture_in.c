/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * capture_in: a feature of the l2_input arc, enabled on the ports a capture
 * watches "in" (or "both"). Frames that match the capture's filter are
 * copied (rte_pcapng_copy: this worker's index as the queue, the walk's TSC
 * as the time, direction in) and put on the capture's ring for the control
 * thread to write; the originals go on untouched.
 *
 * Edges: ip4_fast and ip6_fast (a burst of one port at the arc's end:
 * modules/flow/l2_end.h), the l2_input arc's next features and its end.
 * Reads: mbuf->port, the frame (filter). Writes: nothing in the originals.
 * Counters: captured, filtered out, ring full, no mbuf; per capture, per
 * worker. Drops nothing.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/capture/capture.h"
#include "modules/flow/l2_end.h"

struct nfv_arc_feature nfv_capture_in_feature = {
	.arc_name = "l2_input",
	.node = "nfv_capture_in",
	.runs_after = "nfv_mirror_in",
	.observes = true,
};
NFV_ARC_FEATURE_REGISTER(nfv_capture_in_feature);

static uint16_t
capture_in_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	uint16_t port0;

	if (likely(nfv_capture_burst(w, (struct rte_mbuf **)objs, n, NFV_CAPTURE_IN, &port0))) {
		/* One port: the whole stream to its next feature (or, at the
		 * arc's end, where port_rx would send it). */
		uint16_t edge = nfv_arc_next_edge(&nfv_capture_in_feature,
						  port0 < NFV_ARC_IFACES ? port0 : 0);

		nfv_l2_end_move(graph, node, &nfv_capture_in_feature, edge, w, objs, n);
		return n;
	}
	return nfv_arc_feature_pass(graph, node, objs, n, &nfv_capture_in_feature, false);
}

static struct rte_node_register capture_in_node = {
	.name = "nfv_capture_in",
	.process = capture_in_process,
	.init = nfv_node_ctx_init,
	.nb_edges = NFV_L2_END_EDGES,
	.next_nodes = { NFV_L2_END_NEXT_NODES },
};

RTE_NODE_REGISTER(capture_in_node);
