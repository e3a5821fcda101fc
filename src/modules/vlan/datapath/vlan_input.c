/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vlan_input: 802.1Q frames (ethertype 0x8100) from eth_input. The port
 * and the VLAN id name the sub-interface; the tag is removed and the frame
 * goes back to eth_input as the sub-interface's (mbuf->port), which checks
 * its MAC and dispatches it on the inner ethertype. Priority and DEI bits
 * are ignored; a second tag (QinQ) has no sub-interface and is dropped.
 *
 * A priority-tagged frame (VID 0: a priority and no VLAN, IEEE 802.1Q) is
 * the receiving interface's untagged frame, as Linux takes it: the tag is
 * removed and the frame goes back to eth_input as that interface's. A tag
 * behind it is then looked up as the frame's VLAN; a second priority tag
 * right behind the first is dropped, so that a frame of stacked tags does
 * not go round eth_input and this node tag by tag.
 *
 * The "vlan_l2_input" arc starts here, keyed by the sub-interface: its
 * frames go to the first feature enabled on it (bridge_input, for a VLAN
 * that is a bridge port; mirror_vlan_in, capture_vlan_in) instead of
 * eth_input (one table load a frame). A frame for another host is not
 * counted as the interface's when it goes straight to eth_input, nor
 * behind features that only observe it (it is eth_input's to drop).
 *
 * Edges: eth_input, drop, then the vlan_l2_input arc's features.
 * Writes: mbuf->port (the sub-interface), meta.drop_reason.
 * Drops: vlan_input/too_short, unknown_vlan, interface_down,
 * priority_tags.
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
NFV_DROP_REASON(drop_vlan_priority_tags, "vlan_input", "priority_tags",
	"two priority tags (VID 0) in a row");

NFV_ETH_TYPE_REGISTER(vlan, RTE_ETHER_TYPE_VLAN, "nfv_vlan_input");

/* Features on a sub-interface's frames before eth_input (bridging). */
struct nfv_arc nfv_vlan_l2_input_arc = {
	.name = "vlan_l2_input",
	.start_node = "nfv_vlan_input",
	.end_node = "nfv_eth_input",
};
NFV_ARC_REGISTER(nfv_vlan_l2_input_arc);

#define VLAN_HDRS_LEN (RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr))
#define VLAN_VID_MASK 0x0fff

/*
 * A frame that has no sub-interface: a priority-tagged one (VID 0) loses
 * its tag and goes back to eth_input as the same interface's (mbuf->port
 * unchanged, not counted as any VLAN's); any other is an unknown VLAN.
 */
static __rte_noinline uint16_t
vlan_input_no_vlan(struct rte_mbuf *m, uint16_t vid)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);

	if (vid != 0)
		return nfv_mark_drop(m, drop_vlan_unknown.id, VLAN_INPUT_NEXT_DROP);
	if (rte_pktmbuf_data_len(m) >= VLAN_HDRS_LEN + sizeof(struct rte_vlan_hdr)) {
		rte_be16_t inner[2];

		/* The ethertype and TCI after this tag. */
		memcpy(inner, eth + VLAN_HDRS_LEN - 2, sizeof(inner));
		if (inner[0] == RTE_BE16(RTE_ETHER_TYPE_VLAN) &&
		    (inner[1] & RTE_BE16(VLAN_VID_MASK)) == 0)
			return nfv_mark_drop(m, drop_vlan_priority_tags.id, VLAN_INPUT_NEXT_DROP);
	}
	memmove(eth + sizeof(struct rte_vlan_hdr), eth, 2 * RTE_ETHER_ADDR_LEN);
	rte_pktmbuf_adj(m, sizeof(struct rte_vlan_hdr));
	return VLAN_INPUT_NEXT_ETH;
}

static __rte_always_inline uint16_t
vlan_input_one(struct rte_mbuf *m, void *arg)
{
	struct nfv_vlan_counters *c = arg;
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	rte_be16_t tci;
	uint16_t id, vid, edge;

	if (unlikely(rte_pktmbuf_data_len(m) < VLAN_HDRS_LEN))
		return nfv_mark_drop(m, drop_vlan_too_short.id, VLAN_INPUT_NEXT_DROP);
	memcpy(&tci, eth + 2 * RTE_ETHER_ADDR_LEN + 2, sizeof(tci));
	vid = rte_be_to_cpu_16(tci) & VLAN_VID_MASK;
	if (unlikely(m->port >= RTE_MAX_ETHPORTS)) /* tagged inside a VLAN (or a bridge) */
		return vlan_input_no_vlan(m, vid);
	id = __atomic_load_n(&nfv_vlan_iface[m->port][vid], __ATOMIC_RELAXED);
	if (unlikely(id == NFV_VLAN_NONE)) /* VID 0 among them: no sub-interface has it */
		return vlan_input_no_vlan(m, vid);
	if (unlikely(!__atomic_load_n(&nfv_ifaces[id].admin_up, __ATOMIC_RELAXED)))
		return nfv_mark_drop(m, drop_vlan_down.id, VLAN_INPUT_NEXT_DROP);
	/* The addresses move up over the tag, which goes with the adj. */
	memmove(eth + sizeof(struct rte_vlan_hdr), eth, 2 * RTE_ETHER_ADDR_LEN);
	rte_pktmbuf_adj(m, sizeof(struct rte_vlan_hdr));
	m->port = id;
	edge = nfv_arc_start_edge(&nfv_vlan_l2_input_arc, id);
	if (edge == nfv_vlan_l2_input_arc.end_edge ||
	    unlikely(nfv_arc_observed_only(&nfv_vlan_l2_input_arc, id))) {
		uint64_t dst;

		/* For another host: eth_input drops it, not counted as the
		 * interface's (eth_input hands every tagged frame here); so
		 * too behind features that only observe it (a mirror, a
		 * capture). */
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
