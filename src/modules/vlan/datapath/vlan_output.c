/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vlan_output4 / vlan_output6: the last feature of the IPv4 and IPv6 egress
 * arcs on every VLAN interface. Inserts the 802.1Q tag (TPID 0x8100, the
 * interface's VLAN id, priority 0) after the MAC addresses the rewrite
 * wrote, and hands the packet to the parent port.
 *
 * Edges: drop, then the arc's (later features, port_tx).
 * Reads: meta.tx_port (the VLAN interface). Writes: meta.tx_port (its port).
 * Drops: vlan_output/interface_down, no_headroom.
 * Counters: packets and bytes sent per VLAN interface (per worker).
 */
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/infra/iface.h"
#include "modules/vlan/vlan.h"

enum vlan_output_next {
	VLAN_OUTPUT_NEXT_DROP,
	VLAN_OUTPUT_NEXT_MAX,
};

NFV_DROP_REASON(drop_vlan_out_down, "vlan_output", "interface_down",
	"the VLAN interface is down");
NFV_DROP_REASON(drop_vlan_no_headroom, "vlan_output", "no_headroom",
	"no room in front of the packet for the 802.1Q tag");

static struct nfv_arc_feature vlan_output4_feature = {
	.arc_name = "ip4_egress", .node = "nfv_vlan_output4",
};
static struct nfv_arc_feature vlan_output6_feature = {
	.arc_name = "ip6_egress", .node = "nfv_vlan_output6",
};
NFV_ARC_FEATURE_REGISTER(vlan_output4_feature);
NFV_ARC_FEATURE_REGISTER(vlan_output6_feature);

struct vlan_output_state {
	const struct nfv_arc_feature *f;
	struct nfv_vlan_counters *c;
};

static __rte_always_inline uint16_t
vlan_output_one(struct rte_mbuf *m, void *arg)
{
	const struct vlan_output_state *st = arg;
	const struct nfv_arc_feature *f = st->f;
	struct nfv_vlan_counters *c = st->c;
	struct nfv_mbuf_meta *meta = nfv_meta(m);
	uint16_t id = meta->tx_port;
	const struct nfv_iface *v = &nfv_ifaces[id];
	uint16_t next = nfv_arc_next_edge(f, id);

	if (unlikely(!__atomic_load_n(&v->admin_up, __ATOMIC_RELAXED)))
		return nfv_mark_drop(m, drop_vlan_out_down.id, VLAN_OUTPUT_NEXT_DROP);
	if (unlikely(!nfv_vlan_tag_insert(m, v->vlan_id)))
		return nfv_mark_drop(m, drop_vlan_no_headroom.id, VLAN_OUTPUT_NEXT_DROP);
	meta->tx_port = v->parent;
	c->tx_packets[id]++;
	c->tx_bytes[id] += rte_pktmbuf_pkt_len(m) - sizeof(struct rte_vlan_hdr);
	return next;
}

static __rte_always_inline uint16_t
vlan_output_run(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
		const struct nfv_arc_feature *f)
{
	struct vlan_output_state st = { f, nfv_vlan_counters(nfv_node_worker(node)) };

	return nfv_node_each(graph, node, objs, n, vlan_output_one, &st);
}

static uint16_t
vlan_output4_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return vlan_output_run(graph, node, objs, n, &vlan_output4_feature);
}

static uint16_t
vlan_output6_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return vlan_output_run(graph, node, objs, n, &vlan_output6_feature);
}

static struct rte_node_register vlan_output4_node = {
	.name = "nfv_vlan_output4",
	.process = vlan_output4_process,
	.init = nfv_node_ctx_init,
	.nb_edges = VLAN_OUTPUT_NEXT_MAX,
	.next_nodes = { [VLAN_OUTPUT_NEXT_DROP] = "nfv_drop" },
};

static struct rte_node_register vlan_output6_node = {
	.name = "nfv_vlan_output6",
	.process = vlan_output6_process,
	.init = nfv_node_ctx_init,
	.nb_edges = VLAN_OUTPUT_NEXT_MAX,
	.next_nodes = { [VLAN_OUTPUT_NEXT_DROP] = "nfv_drop" },
};

RTE_NODE_REGISTER(vlan_output4_node);
RTE_NODE_REGISTER(vlan_output6_node);
