/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lcp_xconnect: what the kernel sends on a twin leaves by its interface,
 * untouched (VPP linux-cp's xconnect): a feature of the l2_input arc
 * enabled on every twin port, so a twin's frames never reach eth_input.
 * A VLAN sub-interface's twin sends untagged frames: they leave its port
 * with the sub-interface's 802.1Q tag inserted. A bridge's twin sends the
 * bridge's own frames: they go to bridge_input as the bridge's (mbuf->port
 * the bridge), which sends them to the member that has their destination
 * or floods them.
 *
 * Edges: port_tx, drop, bridge_input.
 * Reads: mbuf->port (the twin port).
 * Writes: meta.tx_port (the interface's port), the tag of a VLAN's frame;
 *         mbuf->port (a bridge's frame: the bridge).
 * Drops: no_interface (the twin's interface went while the frame was in
 *        flight), no_headroom (no room for a VLAN's tag).
 * Counters: lcp.from_twin per interface.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/counters.h"
#include "core/node.h"
#include "modules/infra/iface.h"
#include "modules/lcp/lcp.h"
#include "modules/vlan/vlan.h"

enum lcp_xconnect_next {
	LCP_XCONNECT_NEXT_TX,
	LCP_XCONNECT_NEXT_DROP,
	LCP_XCONNECT_NEXT_BRIDGE,
	LCP_XCONNECT_NEXT_MAX,
};

NFV_DROP_REASON(drop_lcp_no_iface, "lcp_xconnect", "no_interface",
	"sent by a kernel twin whose interface is gone");
NFV_DROP_REASON(drop_lcp_no_headroom, "lcp_xconnect", "no_headroom",
	"no room in front of a VLAN twin's frame for its 802.1Q tag");

static uint16_t
lcp_xconnect_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_lcp_counters *c = nfv_worker_counters(w, &nfv_lcp_counters_block);
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		uint16_t iface = m->port < RTE_MAX_ETHPORTS ?
			__atomic_load_n(&nfv_lcp_iface_of[m->port], __ATOMIC_ACQUIRE) :
			NFV_LCP_NONE;

		if (unlikely(iface == NFV_LCP_NONE)) {
			nexts[i] = nfv_mark_drop(m, drop_lcp_no_iface.id, LCP_XCONNECT_NEXT_DROP);
			continue;
		}
		if (iface >= RTE_MAX_ETHPORTS &&
		    nfv_ifaces[iface].kind == NFV_IFACE_KIND_BRIDGE) {
			m->port = iface;
			c->from_twin_iface[iface]++;
			nexts[i] = LCP_XCONNECT_NEXT_BRIDGE;
			continue;
		}
		if (iface >= RTE_MAX_ETHPORTS) {
			/* A VLAN sub-interface. */
			const struct nfv_iface *v = &nfv_ifaces[iface];

			if (unlikely(!nfv_vlan_tag_insert(m, v->vlan_id))) {
				nexts[i] = nfv_mark_drop(m, drop_lcp_no_headroom.id,
							 LCP_XCONNECT_NEXT_DROP);
				continue;
			}
			nfv_meta(m)->tx_port = v->parent;
		} else {
			nfv_meta(m)->tx_port = iface;
		}
		c->from_twin_iface[iface]++;
		nexts[i] = LCP_XCONNECT_NEXT_TX;
	}
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

static struct rte_node_register lcp_xconnect_node = {
	.name = "nfv_lcp_xconnect",
	.process = lcp_xconnect_process,
	.init = nfv_node_ctx_init,
	.nb_edges = LCP_XCONNECT_NEXT_MAX,
	.next_nodes = {
		[LCP_XCONNECT_NEXT_TX] = "nfv_port_tx",
		[LCP_XCONNECT_NEXT_DROP] = "nfv_drop",
		[LCP_XCONNECT_NEXT_BRIDGE] = "nfv_bridge_input",
	},
};

RTE_NODE_REGISTER(lcp_xconnect_node);
