/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mirror_vlan_in: a feature of the vlan_l2_input arc (vlan_input ->
 * eth_input), enabled on the VLAN sub-interfaces a session mirrors "in"
 * (or "both"). vlan_input has removed the tag and made the frame the
 * sub-interface's: every frame is copied as the sub-interface received it
 * (untagged, as "tcpdump -i eth0.10" shows it) and the copies leave the
 * session's mirror port in one burst on this worker's TX queue; the
 * originals go on to the next feature (bridge_input, for a VLAN that is a
 * bridge port) or eth_input, untouched.
 *
 * Edges: the vlan_l2_input arc's next features and eth_input.
 * Reads: mbuf->port (the sub-interface). Writes: nothing in the originals.
 * Counters: as mirror_in (per session, per worker). Drops nothing.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/mirror/mirror.h"

static struct nfv_arc_feature mirror_vlan_in_feature = {
	.arc_name = "vlan_l2_input",
	.node = "nfv_mirror_vlan_in",
	.runs_before = "nfv_bridge_input",
	.observes = true,
};
NFV_ARC_FEATURE_REGISTER(mirror_vlan_in_feature);

static uint16_t
mirror_vlan_in_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	nfv_mirror_burst(nfv_node_worker(node), (struct rte_mbuf **)objs, n, NFV_MIRROR_IN, false);
	return nfv_arc_feature_pass(graph, node, objs, n, &mirror_vlan_in_feature, false);
}

static struct rte_node_register mirror_vlan_in_node = {
	.name = "nfv_mirror_vlan_in",
	.process = mirror_vlan_in_process,
	.init = nfv_node_ctx_init,
};

RTE_NODE_REGISTER(mirror_vlan_in_node);
