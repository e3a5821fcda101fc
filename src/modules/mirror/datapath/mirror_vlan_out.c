/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mirror_vlan_out: a feature of the l2_output arc (port_tx -> l2_output_end
 * -> port_tx), enabled on the ports that have a VLAN sub-interface a
 * session mirrors "out" (or "both"). The frames a sub-interface sends
 * leave its port tagged with its VLAN id, whichever way they came (routed
 * through vlan_output, answered or resolved by nfvd itself, flooded or
 * forwarded by a bridge): each frame whose tag names a mirrored
 * sub-interface of the port is copied as it will be sent, and the copy's
 * tag removed (the sub-interface's frame, as "tcpdump -i eth0.10" shows
 * it); the copies leave the session's mirror port in one burst on this
 * worker's TX queue. The port's other frames (untagged, other VLANs) are
 * not copied; the originals go back to port_tx, untouched.
 *
 * Edges: the l2_output arc's next features and l2_output_end.
 * Reads: meta.tx_port, the frame's 802.1Q tag. Writes: nothing in the
 * originals.
 * Counters: as mirror_in (per session, per worker). Drops nothing.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/mirror/mirror.h"

static struct nfv_arc_feature mirror_vlan_out_feature = {
	.arc_name = "l2_output",
	.node = "nfv_mirror_vlan_out",
	.runs_after = "nfv_mirror_out",
	.observes = true,
};
NFV_ARC_FEATURE_REGISTER(mirror_vlan_out_feature);

static uint16_t
mirror_vlan_out_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	nfv_mirror_burst(nfv_node_worker(node), (struct rte_mbuf **)objs, n, NFV_MIRROR_OUT, true);
	return nfv_arc_feature_pass(graph, node, objs, n, &mirror_vlan_out_feature, true);
}

static struct rte_node_register mirror_vlan_out_node = {
	.name = "nfv_mirror_vlan_out",
	.process = mirror_vlan_out_process,
	.init = nfv_node_ctx_init,
};

RTE_NODE_REGISTER(mirror_vlan_out_node);
