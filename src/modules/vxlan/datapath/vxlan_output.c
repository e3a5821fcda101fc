/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vxlan_output: frames a bridge sends out of a VXLAN interface
 * (meta.tx_port). Each is encapsulated (RFC 7348 5) towards the remote VTEP
 * the bridge learned for its destination (nfv_bridge_meta.remote), or to
 * every remote of the interface when it is 0 (a flooded frame: head-end
 * replication, a copy per remote but the last), and routed: ip4_lookup
 * with mbuf->port the VXLAN interface (its VRF's FIB), built by nfvd (no
 * TTL decrement, no ICMP error about it).
 *
 * Outer headers: Ethernet (written by the rewrite), IPv4 (TTL 64, DF
 * clear as Linux's vxlan sets it, so that a smaller MTU on the way
 * fragments it, and so an identification per datagram,
 * nfv_ip4_ident_get; header checksum), UDP (source port 49152-65535
 * from a hash of the inner frame's addresses and ports, so one inner flow
 * keeps one outer path through ECMP / RSS; destination the interface's
 * dstport; checksum 0, which RFC 7348 allows over IPv4), VXLAN (I flag,
 * VNI).
 *
 * Edges: ip4_lookup, drop.
 * Reads: meta.tx_port, nfv_bridge_meta.remote.
 * Writes: mbuf->port, meta.flags (NFV_META_LOCAL_ORIGIN), meta.drop_reason.
 * Drops: vxlan_output/interface_down, no_remote, no_headroom, no_mbuf (a
 * replicated copy).
 * Counters: inner frames and bytes sent per VXLAN interface (per copy).
 */
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "core/node.h"
#include "modules/bridge/bridge.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip_node.h"
#include "modules/vxlan/vxlan.h"

enum vxlan_output_next {
	VXLAN_OUTPUT_NEXT_LOOKUP,
	VXLAN_OUTPUT_NEXT_DROP,
	VXLAN_OUTPUT_NEXT_MAX,
};

NFV_DROP_REASON(drop_vxo_down, "vxlan_output", "interface_down",
	"the VXLAN interface is down (or was removed)");
NFV_DROP_REASON(drop_vxo_no_remote, "vxlan_output", "no_remote",
	"flooded frame and the VXLAN interface has no remote");
NFV_DROP_REASON(drop_vxo_no_headroom, "vxlan_output", "no_headroom",
	"no room in front of the frame for the outer headers");
NFV_DROP_REASON(drop_vxo_no_mbuf, "vxlan_output", "no_mbuf",
	"no mbuf for a replicated copy (one copy not sent)");

/* A hash of the inner frame's flow: MAC addresses, and for IPv4 the
 * addresses and (first fragment) TCP/UDP ports. */
static __rte_always_inline uint32_t
vxlan_flow_hash(const struct rte_mbuf *m)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	uint64_t macs;
	uint32_t h;

	memcpy(&macs, eth, sizeof(macs));
	h = rte_hash_crc_8byte(macs, 0);
	h = rte_hash_crc_4byte(*(const uint32_t *)(eth + 8), h);
	if (eth[12] == 0x08 && eth[13] == 0x00 && len >= NFV_L2_LEN + 20) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + NFV_L2_LEN);
		uint32_t ihl = rte_ipv4_hdr_len(ip);
		uint64_t addrs;

		memcpy(&addrs, &ip->src_addr, sizeof(addrs));
		h = rte_hash_crc_8byte(addrs, h);
		if ((ip->next_proto_id == IPPROTO_TCP || ip->next_proto_id == IPPROTO_UDP) &&
		    !(ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) &&
		    len >= NFV_L2_LEN + ihl + 4) {
			uint32_t ports;

			memcpy(&ports, eth + NFV_L2_LEN + ihl, sizeof(ports));
			h = rte_hash_crc_4byte(ports, h);
		}
	}
	return nfv_mix32(h);
}

/* The outer headers in front of m, to remote, identification id; false:
 * no headroom. */
static __rte_always_inline bool
vxlan_encap(struct rte_mbuf *m, const struct nfv_vxlan *t, rte_be32_t remote, uint32_t hash,
	    rte_be16_t id)
{
	uint32_t inner = rte_pktmbuf_pkt_len(m);
	uint8_t *p = (uint8_t *)rte_pktmbuf_prepend(m, NFV_VXLAN_ENCAP_LEN);
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	rte_be32_t *vx;

	if (unlikely(p == NULL))
		return false;
	memset(p, 0, 2 * RTE_ETHER_ADDR_LEN);
	p[12] = 0x08;
	p[13] = 0x00;
	ip = (struct rte_ipv4_hdr *)(p + NFV_L2_LEN);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(inner + 20 + 8 + 8));
	ip->packet_id = id;
	ip->fragment_offset = 0;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = t->local;
	ip->dst_addr = remote;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = rte_cpu_to_be_16((uint16_t)(0xc000 | (hash & 0x3fff)));
	udp->dst_port = rte_cpu_to_be_16(t->dstport);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(inner + 8 + 8));
	udp->dgram_cksum = 0;
	vx = (rte_be32_t *)(udp + 1);
	vx[0] = RTE_BE32(0x08000000);
	vx[1] = rte_cpu_to_be_32(t->vni << 8);
	m->port = t->iface;
	m->ol_flags = 0;
	m->packet_type = 0;
	nfv_meta(m)->flags = NFV_META_LOCAL_ORIGIN;
	return true;
}

static uint16_t
vxlan_output_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_vxlan_counters *c = nfv_vxlan_counters(w);
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint16_t ident = nfv_ip4_ident_get(w);
	bool copied = false;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		uint16_t id = nfv_meta(m)->tx_port;
		const struct nfv_vxlan *t = __atomic_load_n(&nfv_vxlans[id], __ATOMIC_ACQUIRE);
		rte_be32_t remote = nfv_bridge_meta(m)->remote;
		uint32_t hash, len = rte_pktmbuf_pkt_len(m);

		if (unlikely(t == NULL ||
			     !__atomic_load_n(&nfv_ifaces[id].admin_up, __ATOMIC_RELAXED))) {
			nexts[i] = nfv_mark_drop(m, drop_vxo_down.id, VXLAN_OUTPUT_NEXT_DROP);
			continue;
		}
		if (remote == 0) {
			if (unlikely(t->n_remotes == 0)) {
				nexts[i] = nfv_mark_drop(m, drop_vxo_no_remote.id,
							 VXLAN_OUTPUT_NEXT_DROP);
				continue;
			}
			remote = t->remotes[t->n_remotes - 1];
		}
		hash = vxlan_flow_hash(m);
		/* Head-end replication: a copy to each remote but the last. */
		if (nfv_bridge_meta(m)->remote == 0) {
			for (unsigned int r = 0; r + 1 < t->n_remotes; r++) {
				struct rte_mbuf *copy = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);

				if (unlikely(copy == NULL)) {
					w->stats.drops[drop_vxo_no_mbuf.id]++;
					continue;
				}
				if (unlikely(!vxlan_encap(copy, t, t->remotes[r], hash,
								 rte_cpu_to_be_16(ident++)))) {
					w->stats.drops[drop_vxo_no_headroom.id]++;
					rte_pktmbuf_free(copy);
					continue;
				}
				c->tx_packets[id]++;
				c->tx_bytes[id] += len;
				rte_node_enqueue_x1(graph, node, VXLAN_OUTPUT_NEXT_LOOKUP, copy);
				copied = true;
			}
		}
		if (unlikely(!vxlan_encap(m, t, remote, hash, rte_cpu_to_be_16(ident++)))) {
			nexts[i] = nfv_mark_drop(m, drop_vxo_no_headroom.id,
						 VXLAN_OUTPUT_NEXT_DROP);
			continue;
		}
		c->tx_packets[id]++;
		c->tx_bytes[id] += len;
		nexts[i] = VXLAN_OUTPUT_NEXT_LOOKUP;
	}
	nfv_ip4_ident_put(w, ident);
	/* Copies already in the lookup's stream: the move below appends to it. */
	RTE_SET_USED(copied);
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

static struct rte_node_register vxlan_output_node = {
	.name = "nfv_vxlan_output",
	.process = vxlan_output_process,
	.init = nfv_node_ctx_init,
	.nb_edges = VXLAN_OUTPUT_NEXT_MAX,
	.next_nodes = {
		[VXLAN_OUTPUT_NEXT_LOOKUP] = "nfv_ip4_lookup",
		[VXLAN_OUTPUT_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(vxlan_output_node);
