/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * capture_vlan_in: a feature of the vlan_l2_input arc (vlan_input ->
 * eth_input), enabled on the VLAN sub-interfaces a capture watches "in"
 * (or "both"). vlan_input has removed the tag and made the frame the
 * sub-interface's: the frames that match the capture's filter are copied
 * as the sub-interface received them (untagged, as "tcpdump -i eth0.10"
 * shows them; rte_pcapng_copy, this worker's index as the queue, direction
 * in) and put on the capture's ring; the originals go on to the next
 * feature (bridge_input, for a VLAN that is a bridge port) or eth_input,
 * untouched.
 *
 * Edges: the vlan_l2_input arc's next features and eth_input.
 * Reads: mbuf->port (the sub-interface). Writes: nothing in the originals.
 * Counters: as capture_in (per capture, per worker). Drops nothing.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/capture/capture.h"

static struct nfv_arc_feature capture_vlan_in_feature = {
	.arc_name = "vlan_l2_input",
	.node = "nfv_capture_vlan_in",
	.runs_after = "nfv_mirror_vlan_in",
	.runs_before = "nfv_bridge_input",
	.observes = true,
};
NFV_ARC_FEATURE_REGISTER(capture_vlan_in_feature);

static uint16_t
capture_vlan_in_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	nfv_capture_vlan_frames(nfv_node_worker(node), (struct rte_mbuf **)objs, n,
				NFV_CAPTURE_IN, 0);
	return nfv_arc_feature_pass(graph, node, objs, n, &capture_vlan_in_feature, false);
}

static struct rte_node_register capture_vlan_in_node = {
	.name = "nfv_capture_vlan_in",
	.process = capture_vlan_in_process,
	.init = nfv_node_ctx_init,
};

RTE_NODE_REGISTER(capture_vlan_in_node);
