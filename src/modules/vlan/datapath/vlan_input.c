/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vlan_input: 802.1Q frames (ethertype 0x8100) from eth_input. The port
 * and the VLAN id name the sub-interface; the tag is removed and the frame
 * goes back to eth_input as the sub-interface's (mbuf->port), which checks
 * its MAC and dispatches it on the inner ethertype. Priority and DEI bits
 * are ignored; a second tag (QinQ) has no sub-interface and is dropped.
 *
 * The "vlan_l2_input" arc starts here, keyed by the sub-interface: its
 * frames go to the first feature enabled on it (bridge_input, for a VLAN
 * that is a bridge port) instead of eth_input (one table load a frame).
 *
 * Edges: eth_input, drop, then the vlan_l2_input arc's features.
 * Writes: mbuf->port (the sub-interface), meta.drop_reason.
 * Drops: vlan_input/too_short, unknown_vlan, interface_down.
 * Counters: packets and bytes received per VLAN interface (per worker).
 */
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/infra/eth.h"
#include "modules/infra/iface.h"
#include "modules/infra/port.h"
#include "modules/vlan/vlan.h"

enum vlan_input_next {
	VLAN_INPUT_NEXT_ETH,
	VLAN_INPUT_NEXT_DROP,
	VLAN_INPUT_NEXT_MAX,
};

NFV_DROP_REASON(drop_vlan_too_short, "vlan_input", "too_short",
	"tagged frame shorter than its Ethernet and 802.1Q headers");
NFV_DROP_REASON(drop_vlan_unknown, "vlan_input", "unknown_vlan",
	"no VLAN interface for this port and VLAN id (or a second tag)");
NFV_DROP_REASON(drop_vlan_down, "vlan_input", "interface_down",
	"the VLAN interface is down");

NFV_ETH_TYPE_REGISTER(vlan, RTE_ETHER_TYPE_VLAN, "nfv_vlan_input");

/* Features on a sub-interface's frames before eth_input (bridging). */
struct nfv_arc nfv_vlan_l2_input_arc = {
	.name = "vlan_l2_input",
	.start_node = "nfv_vlan_input",
	.end_node = "nfv_eth_input",
};
NFV_ARC_REGISTER(nfv_vlan_l2_input_arc);

#define VLAN_HDRS_LEN (RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr))

static __rte_always_inline uint16_t
vlan_input_one(struct rte_mbuf *m, void *arg)
{
	struct nfv_vlan_counters *c = arg;
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	rte_be16_t tci;
	uint16_t id, edge;

	if (unlikely(rte_pktmbuf_data_len(m) < VLAN_HDRS_LEN))
		return nfv_mark_drop(m, drop_vlan_too_short.id, VLAN_INPUT_NEXT_DROP);
	if (unlikely(m->port >= RTE_MAX_ETHPORTS)) /* tagged inside a VLAN */
		return nfv_mark_drop(m, drop_vlan_unknown.id, VLAN_INPUT_NEXT_DROP);
	memcpy(&tci, eth + 2 * RTE_ETHER_ADDR_LEN + 2, sizeof(tci));
	id = __atomic_load_n(&nfv_vlan_iface[m->port][rte_be_to_cpu_16(tci) & 0xfff],
			     __ATOMIC_RELAXED);
	if (unlikely(id == NFV_VLAN_NONE))
		return nfv_mark_drop(m, drop_vlan_unknown.id, VLAN_INPUT_NEXT_DROP);
	if (unlikely(!__atomic_load_n(&nfv_ifaces[id].admin_up, __ATOMIC_RELAXED)))
		return nfv_mark_drop(m, drop_vlan_down.id, VLAN_INPUT_NEXT_DROP);
	/* The addresses move up over the tag, which goes with the adj. */
	memmove(eth + sizeof(struct rte_vlan_hdr), eth, 2 * RTE_ETHER_ADDR_LEN);
	rte_pktmbuf_adj(m, sizeof(struct rte_vlan_hdr));
	m->port = id;
	edge = nfv_arc_start_edge(&nfv_vlan_l2_input_arc, id);
	if (edge == nfv_vlan_l2_input_arc.end_edge) {
		uint64_t dst;

		/* For another host: eth_input drops it, not counted as the
		 * interface's (eth_input hands every tagged frame here). */
		eth += sizeof(struct rte_vlan_hdr);
		memcpy(&dst, eth, sizeof(dst));
		if (!(eth[0] & 1) && nfv_mac_key_differs(dst, nfv_iface_mac_key[id]))
			return edge;
	}
	c->rx_packets[id]++;
	c->rx_bytes[id] += rte_pktmbuf_pkt_len(m);
	return edge;
}

static uint16_t
vlan_input_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_node_each(graph, node, objs, n, vlan_input_one,
			     nfv_vlan_counters(nfv_node_worker(node)));
}

static struct rte_node_register vlan_input_node = {
	.name = "nfv_vlan_input",
	.process = vlan_input_process,
	.init = nfv_node_ctx_init,
	.nb_edges = VLAN_INPUT_NEXT_MAX,
	.next_nodes = {
		[VLAN_INPUT_NEXT_ETH] = "nfv_eth_input",
		[VLAN_INPUT_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(vlan_input_node);
