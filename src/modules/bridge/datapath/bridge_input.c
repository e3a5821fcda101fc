/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bridge_input: every frame a bridge port receives. A feature of the
 * l2_input arc on member ports (enabled by "bridge port add"); vxlan_input
 * sends it the frames it decapsulates, with mbuf->port the VXLAN interface
 * and the remote VTEP in the L2 metadata; bridge_output4/6 the packets
 * routed out of a bridge and the inject node the frames nfvd's control
 * side sends out of one (ARP, ND), with mbuf->port the bridge itself.
 *
 * For each frame (IEEE 802.1Q 8.7 / 8.8, the learning bridge): the source
 * MAC is learned on the receiving port (in this worker's FDB, with the
 * remote VTEP for a tunnel); a frame for the bridge's own MAC goes to
 * eth_input as the bridge interface's; a known unicast destination is sent
 * to its port, unless that is the port it came from; broadcast, multicast
 * and unknown unicast are flooded to every other member that is up (a copy
 * each, the original to the last). A bridge with an address is the gateway
 * of its ports (a BVI): it also gets a copy of the broadcast and multicast
 * frames. What the bridge itself sends is neither learned nor sent back
 * to it. Frames for the reserved group
 * addresses 01:80:c2:00:00:00-0f (STP, LACP, 802.1X) are not forwarded.
 * Entries older than the bridge's ageing time are not used, and a sweep of
 * a few entries per call forgets them. A frame does not leave by a member
 * whose MTU its L2 payload (less an 802.1Q tag it carries) exceeds: known
 * unicast is dropped, a flood leaves that member out.
 *
 * VLAN sub-interfaces are ports too: their frames come from vlan_input
 * (this node is also a feature of the vlan_l2_input arc), and frames to
 * them leave their port with the tag inserted here. A member's
 * priority-tagged frame (VID 0) loses its tag here (it is the member's
 * untagged frame); frames tagged with a VLAN are bridged as they are.
 *
 * Edges: port_tx (member ports), eth_input (the bridge's own frames),
 * drop, then the nodes of other member kinds (vxlan_output).
 * Reads: mbuf->port, nfv_bridge_meta.remote (from a tunnel).
 * Writes: meta.tx_port (the member), meta.flags (0), meta.drop_reason,
 * nfv_bridge_meta.remote (the learned VTEP, 0: all), mbuf->port (to
 * eth_input: the bridge).
 * Drops: bridge_input/too_short, not_a_port, bridge_down, bad_source,
 * reserved_group, same_port, port_down, no_ports, no_mbuf, no_headroom,
 * mtu_exceeded.
 * Counters: per bridge frames and bytes in and out; learned, moved, aged,
 * flooded, fdb_full (per worker).
 */
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_hash.h>

#include "core/arc.h"
#include "core/node.h"
#include "modules/bridge/bridge.h"
#include "modules/infra/eth.h"
#include "modules/infra/iface.h"
#include "modules/infra/port.h"
#include "modules/vlan/vlan.h"

enum bridge_input_next {
	BRIDGE_INPUT_NEXT_PORT_TX,
	BRIDGE_INPUT_NEXT_ETH_INPUT,
	BRIDGE_INPUT_NEXT_DROP,
	BRIDGE_INPUT_NEXT_MAX,
};

NFV_DROP_REASON(drop_br_too_short, "bridge_input", "too_short",
	"frame shorter than an Ethernet header (or headers split across segments)");
NFV_DROP_REASON(drop_br_not_port, "bridge_input", "not_a_port",
	"received on an interface that has just left its bridge");
NFV_DROP_REASON(drop_br_down, "bridge_input", "bridge_down",
	"the bridge is down");
NFV_DROP_REASON(drop_br_bad_source, "bridge_input", "bad_source",
	"source MAC is multicast or broadcast");
NFV_DROP_REASON(drop_br_reserved, "bridge_input", "reserved_group",
	"to a reserved group address 01:80:c2:00:00:0x (STP, LACP, 802.1X): not forwarded");
NFV_DROP_REASON(drop_br_same_port, "bridge_input", "same_port",
	"destination learned on the port the frame came from");
NFV_DROP_REASON(drop_br_port_down, "bridge_input", "port_down",
	"the destination's port is down");
NFV_DROP_REASON(drop_br_no_ports, "bridge_input", "no_ports",
	"flooded frame and no other port of the bridge is up");
NFV_DROP_REASON(drop_br_no_mbuf, "bridge_input", "no_mbuf",
	"no mbuf for a flooded copy (one copy not sent)");
NFV_DROP_REASON(drop_br_no_headroom, "bridge_input", "no_headroom",
	"no room in front of the frame for a VLAN port's 802.1Q tag");
NFV_DROP_REASON(drop_br_mtu, "bridge_input", "mtu_exceeded",
	"frame larger than the MTU of the port it would leave by (one per port not sent to)");

/* After the observers (mirror, capture, flow statistics): they see a
 * bridged port's frames as received. */
static struct nfv_arc_feature bridge_input_feature = {
	.arc_name = "l2_input", .node = "nfv_bridge_input", .runs_after = "nfv_flow_in",
};
NFV_ARC_FEATURE_REGISTER(bridge_input_feature);
/* VLAN sub-interfaces that are bridge ports. */
static struct nfv_arc_feature bridge_input_vlan_feature = {
	.arc_name = "vlan_l2_input", .node = "nfv_bridge_input",
};
NFV_ARC_FEATURE_REGISTER(bridge_input_vlan_feature);

/* Entries the sweep looks at per call. */
#define FDB_SWEEP 4
/* Frames (with copies) collected before they are enqueued. */
#define BRIDGE_OUT_MAX (2 * RTE_GRAPH_BURST_SIZE)

struct bridge_out {
	uint16_t n;
	bool direct;   /* objs[i] went to edges[i], in order: no copy, no flush */
	void *objs[BRIDGE_OUT_MAX];
	uint16_t edges[BRIDGE_OUT_MAX];
};

/* Tap t's frames of (dir, iface), handed over as a run. */
static void
bridge_tap_run(struct nfv_worker *w, struct rte_mbuf **run, uint16_t k,
	       enum nfv_bridge_tap_dir dir, uint16_t iface)
{
	uint8_t want = __atomic_load_n(&nfv_bridge_tap_wants[dir][iface], __ATOMIC_ACQUIRE);

	for (unsigned int t = 0; want != 0; t++, want >>= 1)
		if (want & 1)
			nfv_bridge_tap_fns[t](w, run, k, dir, iface);
}

/*
 * The frames of pkts[] that a tap wants (bridge.h), in runs of one
 * direction and interface. edges NULL: the frames as they came in (a
 * bridge's own: it sends them; a tunnel's: it received them); else the
 * frames as they leave by edges[]: to eth_input, received by the bridge;
 * to a tunnel's node, sent by the tunnel.
 */
static __rte_noinline void
bridge_taps(struct nfv_worker *w, void **pkts, const uint16_t *edges, uint16_t n)
{
	struct rte_mbuf *run[BRIDGE_OUT_MAX];
	enum nfv_bridge_tap_dir dir = NFV_BRIDGE_TAP_IN;
	uint16_t k = 0, iface = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		enum nfv_bridge_tap_dir d;
		uint16_t id;

		if (edges == NULL) {
			id = m->port;
			d = id == nfv_bridge_of_iface(id) ? NFV_BRIDGE_TAP_OUT : NFV_BRIDGE_TAP_IN;
		} else if (edges[i] == BRIDGE_INPUT_NEXT_ETH_INPUT) {
			id = m->port;
			d = NFV_BRIDGE_TAP_IN;
		} else if (edges[i] >= BRIDGE_INPUT_NEXT_MAX) {
			id = nfv_meta(m)->tx_port;
			d = NFV_BRIDGE_TAP_OUT;
		} else {
			continue;
		}
		if (id >= NFV_IFACE_MAX ||
		    __atomic_load_n(&nfv_bridge_tap_wants[d][id], __ATOMIC_RELAXED) == 0)
			continue;
		if (k != 0 && (d != dir || id != iface)) {
			bridge_tap_run(w, run, k, dir, iface);
			k = 0;
		}
		dir = d;
		iface = id;
		run[k++] = m;
	}
	if (k != 0)
		bridge_tap_run(w, run, k, dir, iface);
}

static void
bridge_out_flush(struct rte_graph *graph, struct rte_node *node, struct bridge_out *o)
{
	uint16_t i = 0;

	if (unlikely(__atomic_load_n(&nfv_bridge_taps_on, __ATOMIC_RELAXED) != 0))
		bridge_taps(nfv_node_worker(node), o->objs, o->edges, o->n);

	while (i < o->n) {
		uint16_t start = i, e = o->edges[i];

		while (i < o->n && o->edges[i] == e)
			i++;
		rte_node_enqueue(graph, node, e, &o->objs[start], i - start);
	}
	o->n = 0;
}

static __rte_always_inline void
bridge_emit(struct rte_graph *graph, struct rte_node *node, struct bridge_out *o,
	    struct rte_mbuf *m, uint16_t edge)
{
	if (unlikely(o->n == BRIDGE_OUT_MAX)) {
		bridge_out_flush(graph, node, o);
		o->direct = false;
	}
	o->objs[o->n] = m;
	o->edges[o->n++] = edge;
}

static __rte_always_inline void
fdb_entry_write(struct nfv_fdb_entry *e, uint64_t key, uint16_t bridge, uint16_t port,
		uint32_t gen, rte_be32_t remote, uint64_t now)
{
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	e->key = key;
	e->bridge = bridge;
	e->port = port;
	e->gen = gen;
	e->remote = remote;
	__atomic_store_n(&e->seen, now, __ATOMIC_RELAXED);
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
}

static void
fdb_forget(struct nfv_fdb *f, uint32_t pos)
{
	struct nfv_fdb_entry *e = &f->e[pos];

	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	rte_hash_del_key(f->h, &e->key);
	e->key = 0;
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
}

/* An entry that may be used: its bridge's generation, its port still a
 * member, younger than the ageing time. */
static __rte_always_inline bool
fdb_entry_live(const struct nfv_fdb_entry *e, const struct nfv_bridge *b, uint64_t now)
{
	return e->gen == b->gen && nfv_bridge_of_iface(e->port) == b->iface &&
	       now - e->seen <= b->ageing_tsc;
}

static void
fdb_sweep(struct nfv_fdb *f, uint64_t now, struct nfv_bridge_counters *c)
{
	for (unsigned int k = 0; k < FDB_SWEEP; k++) {
		uint32_t pos = f->sweep;
		const struct nfv_fdb_entry *e = &f->e[pos];
		const struct nfv_bridge *b;

		f->sweep = pos + 1 == f->size ? 0 : pos + 1;
		if (e->key == 0)
			continue;
		b = __atomic_load_n(&nfv_bridges[e->bridge], __ATOMIC_ACQUIRE);
		if (b == NULL || !fdb_entry_live(e, b, now)) {
			fdb_forget(f, pos);
			c->aged++;
		}
	}
}

static __rte_always_inline void
fdb_learn(struct nfv_fdb *f, const struct nfv_bridge *b, const uint8_t *src, uint16_t port,
	  rte_be32_t remote, uint64_t now, struct nfv_bridge_counters *c)
{
	uint64_t key = nfv_fdb_key(src, b->iface);
	int32_t pos = nfv_fdb_lookup(f, key);
	struct nfv_fdb_entry *e;

	if (likely(pos >= 0)) {
		e = &f->e[pos];
		if (likely(e->port == port && e->remote == remote && e->gen == b->gen)) {
			__atomic_store_n(&e->seen, now, __ATOMIC_RELAXED);
			return;
		}
		if (e->gen == b->gen && now - e->seen <= b->ageing_tsc)
			c->moved++;
		else
			c->learned++;
		fdb_entry_write(e, key, b->iface, port, b->gen, remote, now);
		return;
	}
	pos = rte_hash_add_key(f->h, &key);
	if (unlikely(pos < 0 || (uint32_t)pos >= f->size)) {
		if (pos >= 0)
			rte_hash_del_key(f->h, &key);
		c->fdb_full++;
		return;
	}
	fdb_entry_write(&f->e[pos], key, b->iface, port, b->gen, remote, now);
	f->cache[nfv_fdb_cache_slot(key)] = (uint32_t)pos + 1;
	c->learned++;
}

/* A VLAN member's frame: its 802.1Q tag inserted after the MAC addresses
 * (priority 0), out of its port (as vlan_output does for routed packets). */
static uint16_t
bridge_vlan_tag(struct rte_mbuf *m, uint16_t member)
{
	const struct nfv_iface *v = &nfv_ifaces[member];

	if (unlikely(!nfv_vlan_tag_insert(m, v->vlan_id)))
		return nfv_mark_drop(m, drop_br_no_headroom.id, BRIDGE_INPUT_NEXT_DROP);
	nfv_meta(m)->tx_port = v->parent;
	return BRIDGE_INPUT_NEXT_PORT_TX;
}

/*
 * Whether a frame of len bytes may leave by a member of MTU mtu: its L2
 * payload (the frame less its Ethernet header, and less an 802.1Q tag it
 * carries) is at most the MTU, the limit routed packets have (Linux's
 * bridge allows any frame 4 bytes more, for a tag). A VLAN member has its
 * port's MTU and adds its tag on top, so the frame as received is what
 * counts. One compare on the common path: the tag is looked at only for a
 * frame over the untagged limit.
 */
static __rte_always_inline bool
bridge_fits(const struct rte_mbuf *m, uint32_t len, uint16_t mtu)
{
	const struct rte_ether_hdr *eth;

	if (likely(len <= (uint32_t)mtu + RTE_ETHER_HDR_LEN))
		return true;
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	return len <= (uint32_t)mtu + RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr) &&
	       eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN);
}

/* The edge to a member (meta.tx_port set), remote: the VTEP for a tunnel. */
static __rte_always_inline uint16_t
bridge_member_edge(struct rte_mbuf *m, uint16_t member, rte_be32_t remote)
{
	uint8_t kind = nfv_ifaces[member].kind;

	nfv_meta(m)->tx_port = member;
	if (likely(kind == NFV_IFACE_KIND_PORT))
		return BRIDGE_INPUT_NEXT_PORT_TX;
	if (kind == NFV_IFACE_KIND_VLAN)
		return bridge_vlan_tag(m, member);
	nfv_bridge_meta(m)->remote = remote;
	return (uint16_t)nfv_bridge_kind_edge[kind];
}

/* A member to flood to: not the one the frame came from, still a member,
 * up (a VLAN: its port too). */
static __rte_always_inline bool
bridge_member_up(uint16_t member, uint16_t br, uint16_t from)
{
	const struct nfv_iface *i = &nfv_ifaces[member];

	return member != from && nfv_bridge_of_iface(member) == br &&
	       __atomic_load_n(&i->admin_up, __ATOMIC_RELAXED) &&
	       (i->kind != NFV_IFACE_KIND_VLAN ||
		__atomic_load_n(&nfv_ifaces[i->parent].admin_up, __ATOMIC_RELAXED));
}

/* Broadcast, multicast and unknown unicast: a copy to every other member
 * that is up and whose MTU the frame fits, the frame itself to the last
 * one; with to_self (a bridge with an address, broadcast or multicast
 * from a port), a copy to the bridge's interface too (eth_input), first.
 * Each member the frame is too large for counts one mtu_exceeded drop
 * (the frame itself is that drop when no member takes it). */
static void
bridge_flood(struct rte_graph *graph, struct rte_node *node, struct bridge_out *o,
	     struct nfv_worker *w, struct nfv_bridge_counters *c, const struct nfv_bridge *b,
	     struct rte_mbuf *m, uint16_t from, bool to_self)
{
	const struct nfv_bridge_ports *ports = __atomic_load_n(&b->ports, __ATOMIC_ACQUIRE);
	uint16_t br = b->iface, last = UINT16_MAX;
	uint32_t len = rte_pktmbuf_pkt_len(m), too_big = 0;
	uint64_t to = 0;   /* the members to send to, by their index in ports */

	RTE_BUILD_BUG_ON(NFV_BRIDGE_PORTS_MAX > 64);
	for (unsigned int i = 0; i < ports->n; i++) {
		uint16_t member = ports->ids[i];

		if (!bridge_member_up(member, br, from))
			continue;
		if (unlikely(!bridge_fits(m, len, nfv_ifaces[member].mtu))) {
			too_big++;
			continue;
		}
		to |= UINT64_C(1) << i;
		last = (uint16_t)i;
	}
	if (unlikely(too_big != 0)) {
		if (last == UINT16_MAX && !to_self) {
			/* No member takes it and no copy for the bridge: the
			 * frame itself is one of these drops (the drop node's). */
			w->stats.drops[drop_br_mtu.id] += too_big - 1;
			bridge_emit(graph, node, o, m, nfv_mark_drop(m, drop_br_mtu.id,
								      BRIDGE_INPUT_NEXT_DROP));
			return;
		}
		w->stats.drops[drop_br_mtu.id] += too_big;
	}
	if (to_self) {
		struct rte_mbuf *copy = m;

		if (last != UINT16_MAX) {
			copy = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
			o->direct = false;
		}
		if (unlikely(copy == NULL)) {
			w->stats.drops[drop_br_no_mbuf.id]++;
		} else {
			copy->port = br;
			bridge_emit(graph, node, o, copy, BRIDGE_INPUT_NEXT_ETH_INPUT);
		}
		if (last == UINT16_MAX)
			return;
	}
	if (last == UINT16_MAX) {
		bridge_emit(graph, node, o, m, nfv_mark_drop(m, drop_br_no_ports.id,
							      BRIDGE_INPUT_NEXT_DROP));
		return;
	}
	c->flooded++;
	for (uint64_t rest = to & ~(UINT64_C(1) << last); rest != 0; rest &= rest - 1) {
		uint16_t member = ports->ids[rte_bsf64(rest)];
		struct rte_mbuf *copy;

		copy = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
		if (unlikely(copy == NULL)) {
			w->stats.drops[drop_br_no_mbuf.id]++;
			continue;
		}
		o->direct = false;
		bridge_emit(graph, node, o, copy, bridge_member_edge(copy, member, 0));
		c->tx_packets[br]++;
		c->tx_bytes[br] += len;
	}
	bridge_emit(graph, node, o, m, bridge_member_edge(m, ports->ids[last], 0));
	c->tx_packets[br]++;
	c->tx_bytes[br] += len;
}

/* A priority-tagged frame (VID 0: a priority and no VLAN, IEEE 802.1Q) is
 * its member's untagged frame: the tag is removed before the frame is
 * learned and forwarded, as vlan_input does on a port that is not bridged.
 * Frames tagged with a VLAN are bridged as they are. Returns the frame's
 * start. */
static __rte_noinline const uint8_t *
bridge_untag_priority(struct rte_mbuf *m)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	rte_be16_t tci;

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr))
		return eth;
	memcpy(&tci, eth + RTE_ETHER_HDR_LEN, sizeof(tci));
	if ((tci & RTE_BE16(0x0fff)) != 0)
		return eth;
	memmove(eth + sizeof(struct rte_vlan_hdr), eth, 2 * RTE_ETHER_ADDR_LEN);
	rte_pktmbuf_adj(m, sizeof(struct rte_vlan_hdr));
	return rte_pktmbuf_mtod(m, const uint8_t *);
}

static __rte_always_inline bool
bridge_reserved_group(const uint8_t *dst)
{
	static const uint8_t prefix[5] = { 0x01, 0x80, 0xc2, 0x00, 0x00 };

	return memcmp(dst, prefix, sizeof(prefix)) == 0 && dst[5] <= 0x0f;
}

static uint16_t
bridge_input_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_bridge_counters *c = nfv_bridge_counters(w);
	struct nfv_fdb *f = __atomic_load_n(&nfv_fdbs[w->index], __ATOMIC_ACQUIRE);
	uint64_t now = rte_rdtsc();
	struct bridge_out o;

	o.n = 0;
	o.direct = true;
	if (unlikely(__atomic_load_n(&nfv_bridge_taps_on, __ATOMIC_RELAXED) != 0))
		bridge_taps(w, objs, NULL, n);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		struct nfv_mbuf_meta *meta = nfv_meta(m);
		uint16_t from = m->port, br, edge;
		const struct nfv_bridge *b;
		const uint8_t *eth;
		rte_be32_t remote = 0;
		uint64_t dst8;
		bool own;

		meta->flags = 0;
		br = nfv_bridge_of_iface(from);
		b = br != 0 ? __atomic_load_n(&nfv_bridges[br], __ATOMIC_ACQUIRE) : NULL;
		if (unlikely(b == NULL || f == NULL)) {
			bridge_emit(graph, node, &o, m, nfv_mark_drop(m, drop_br_not_port.id,
								       BRIDGE_INPUT_NEXT_DROP));
			continue;
		}
		if (unlikely(!__atomic_load_n(&nfv_ifaces[br].admin_up, __ATOMIC_RELAXED))) {
			bridge_emit(graph, node, &o, m, nfv_mark_drop(m, drop_br_down.id,
								       BRIDGE_INPUT_NEXT_DROP));
			continue;
		}
		if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)) {
			bridge_emit(graph, node, &o, m, nfv_mark_drop(m, drop_br_too_short.id,
								       BRIDGE_INPUT_NEXT_DROP));
			continue;
		}
		eth = rte_pktmbuf_mtod(m, const uint8_t *);
		own = from == br;
		if (likely(!own)) {
			rte_be16_t type;

			if (unlikely(eth[RTE_ETHER_ADDR_LEN] & 1)) {
				bridge_emit(graph, node, &o, m,
					    nfv_mark_drop(m, drop_br_bad_source.id,
							  BRIDGE_INPUT_NEXT_DROP));
				continue;
			}
			memcpy(&type, eth + 2 * RTE_ETHER_ADDR_LEN, sizeof(type));
			if (unlikely(type == RTE_BE16(RTE_ETHER_TYPE_VLAN)))
				eth = bridge_untag_priority(m);
			c->rx_packets[br]++;
			c->rx_bytes[br] += rte_pktmbuf_pkt_len(m);
			if (nfv_ifaces[from].kind != NFV_IFACE_KIND_PORT)
				remote = nfv_bridge_meta(m)->remote;
			fdb_learn(f, b, eth + RTE_ETHER_ADDR_LEN, from, remote, now, c);
		}
		if (likely(!(eth[0] & 1))) {
			uint64_t key;
			int32_t pos;

			memcpy(&dst8, eth, sizeof(dst8));
			if (unlikely(!nfv_mac_key_differs(dst8, nfv_iface_mac_key[br])) && !own) {
				/* The bridge's own: its interface takes it (eth_input). */
				m->port = br;
				bridge_emit(graph, node, &o, m, BRIDGE_INPUT_NEXT_ETH_INPUT);
				continue;
			}
			key = nfv_fdb_key(eth, br);
			pos = nfv_fdb_lookup(f, key);
			if (pos >= 0 && fdb_entry_live(&f->e[pos], b, now)) {
				const struct nfv_fdb_entry *e = &f->e[pos];

				if (unlikely(e->port == from))
					edge = nfv_mark_drop(m, drop_br_same_port.id,
							     BRIDGE_INPUT_NEXT_DROP);
				else if (unlikely(!__atomic_load_n(&nfv_ifaces[e->port].admin_up,
								   __ATOMIC_RELAXED)))
					edge = nfv_mark_drop(m, drop_br_port_down.id,
							     BRIDGE_INPUT_NEXT_DROP);
				else if (unlikely(!bridge_fits(m, rte_pktmbuf_pkt_len(m),
							       nfv_ifaces[e->port].mtu)))
					edge = nfv_mark_drop(m, drop_br_mtu.id,
							     BRIDGE_INPUT_NEXT_DROP);
				else {
					edge = bridge_member_edge(m, e->port, e->remote);
					c->tx_packets[br]++;
					c->tx_bytes[br] += rte_pktmbuf_pkt_len(m);
				}
				bridge_emit(graph, node, &o, m, edge);
				continue;
			}
			bridge_flood(graph, node, &o, w, c, b, m, from, false);
			continue;
		} else if (unlikely(bridge_reserved_group(eth))) {
			bridge_emit(graph, node, &o, m, nfv_mark_drop(m, drop_br_reserved.id,
								       BRIDGE_INPUT_NEXT_DROP));
			continue;
		}
		bridge_flood(graph, node, &o, w, c, b, m, from,
			     !own && __atomic_load_n(&b->l3, __ATOMIC_RELAXED));
		continue;
	}
	if (f != NULL)
		fdb_sweep(f, now, c);
	if (likely(o.direct && o.n == n)) {
		if (unlikely(__atomic_load_n(&nfv_bridge_taps_on, __ATOMIC_RELAXED) != 0))
			bridge_taps(w, objs, o.edges, n);
		nfv_enqueue_nexts(graph, node, objs, o.edges, n);
	} else {
		bridge_out_flush(graph, node, &o);
	}
	return n;
}

static struct rte_node_register bridge_input_node = {
	.name = "nfv_bridge_input",
	.process = bridge_input_process,
	.init = nfv_node_ctx_init,
	.nb_edges = BRIDGE_INPUT_NEXT_MAX,
	.next_nodes = {
		[BRIDGE_INPUT_NEXT_PORT_TX] = "nfv_port_tx",
		[BRIDGE_INPUT_NEXT_ETH_INPUT] = "nfv_eth_input",
		[BRIDGE_INPUT_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(bridge_input_node);
