/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vxlan_input: UDP datagrams to one of nfvd's addresses on a VXLAN port
 * (4789, registered with the ip module, or a tunnel's dstport), whole from
 * ip4_local (the data starts at the outer Ethernet header; ip4_input has
 * checked the outer IPv4 header and trimmed link padding).
 *
 * RFC 7348 5: the I flag must be set (the other flag and reserved bits are
 * ignored on receipt); the VNI, the destination address and the UDP port
 * name the tunnel. A UDP checksum other than 0 is verified (RFC 768). The
 * outer headers are removed and the inner frame goes to bridge_input as
 * received on the VXLAN interface (mbuf->port), with the outer source
 * address as the remote VTEP the bridge learns the inner source MAC with
 * (RFC 7348 4.1).
 *
 * Edges: bridge_input, drop.
 * Writes: mbuf->port, nfv_bridge_meta.remote, meta.drop_reason.
 * Drops: vxlan_input/too_short, bad_udp_checksum, bad_flags, no_tunnel
 * (no tunnel on this address and port), bad_vni (a tunnel on this address
 * and port, not this VNI), interface_down, not_bridged.
 * Counters: inner frames and bytes received per VXLAN interface.
 */
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "core/node.h"
#include "modules/bridge/bridge.h"
#include "modules/infra/iface.h"
#include "modules/ip/ip_node.h"
#include "modules/vxlan/vxlan.h"

enum vxlan_input_next {
	VXLAN_INPUT_NEXT_BRIDGE,
	VXLAN_INPUT_NEXT_DROP,
	VXLAN_INPUT_NEXT_MAX,
};

NFV_DROP_REASON(drop_vx_too_short, "vxlan_input", "too_short",
	"shorter than its UDP and VXLAN headers and an inner Ethernet header");
NFV_DROP_REASON(drop_vx_cksum, "vxlan_input", "bad_udp_checksum",
	"UDP checksum wrong");
NFV_DROP_REASON(drop_vx_flags, "vxlan_input", "bad_flags",
	"VXLAN header without the I flag (RFC 7348 5)");
NFV_DROP_REASON(drop_vx_no_tunnel, "vxlan_input", "no_tunnel",
	"no VXLAN interface on this local address and UDP port");
NFV_DROP_REASON(drop_vx_bad_vni, "vxlan_input", "bad_vni",
	"no VXLAN interface with this VNI on this local address and UDP port");
NFV_DROP_REASON(drop_vx_down, "vxlan_input", "interface_down",
	"the VXLAN interface is down");
NFV_DROP_REASON(drop_vx_not_bridged, "vxlan_input", "not_bridged",
	"the VXLAN interface is not a bridge port");

/* Packed: it follows the UDP header at an offset that is only 2-byte
 * aligned (14 + 20 + 8 from a frame start that is itself 2 mod 4). */
struct vxlan_hdr {
	rte_be32_t flags;   /* I flag: 0x08000000 */
	rte_be32_t vni;     /* VNI << 8 */
} __rte_packed;

#define VXLAN_FLAG_I RTE_BE32(0x08000000)

static __rte_always_inline uint16_t
vxlan_input_one(struct rte_mbuf *m, void *arg)
{
	struct nfv_vxlan_counters *c = arg;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								NFV_L2_LEN);
	uint32_t ihl = rte_ipv4_hdr_len(ip), l4_off = NFV_L2_LEN + ihl;
	uint32_t hdrs = l4_off + sizeof(struct rte_udp_hdr) + sizeof(struct vxlan_hdr);
	const struct rte_udp_hdr *udp;
	const struct vxlan_hdr *vx;
	uint16_t n, iface = 0, br;
	bool addr_port = false;
	uint32_t udp_len;

	if (unlikely(rte_pktmbuf_data_len(m) < hdrs + RTE_ETHER_HDR_LEN))
		return nfv_mark_drop(m, drop_vx_too_short.id, VXLAN_INPUT_NEXT_DROP);
	udp = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, l4_off);
	vx = (const struct vxlan_hdr *)(udp + 1);
	udp_len = rte_be_to_cpu_16(udp->dgram_len);
	if (unlikely(udp_len < hdrs - l4_off + RTE_ETHER_HDR_LEN ||
		     udp_len > rte_pktmbuf_pkt_len(m) - l4_off))
		return nfv_mark_drop(m, drop_vx_too_short.id, VXLAN_INPUT_NEXT_DROP);
	if (udp->dgram_cksum != 0 && unlikely(!nfv_udp4_cksum_ok(m, ip, l4_off, udp_len)))
		return nfv_mark_drop(m, drop_vx_cksum.id, VXLAN_INPUT_NEXT_DROP);
	if (unlikely(!(vx->flags & VXLAN_FLAG_I)))
		return nfv_mark_drop(m, drop_vx_flags.id, VXLAN_INPUT_NEXT_DROP);
	n = __atomic_load_n(&nfv_vxlan_n_keys, __ATOMIC_ACQUIRE);
	for (uint16_t i = 0; i < n; i++) {
		const struct nfv_vxlan_key *k = &nfv_vxlan_keys[i];
		uint16_t id = __atomic_load_n(&k->iface, __ATOMIC_ACQUIRE);

		if (id == 0 || k->local != ip->dst_addr || k->dstport != udp->dst_port)
			continue;
		addr_port = true;
		if (k->vni == (vx->vni & RTE_BE32(0xffffff00))) {
			iface = id;
			break;
		}
	}
	if (unlikely(iface == 0))
		return nfv_mark_drop(m, addr_port ? drop_vx_bad_vni.id : drop_vx_no_tunnel.id,
				     VXLAN_INPUT_NEXT_DROP);
	if (unlikely(!__atomic_load_n(&nfv_ifaces[iface].admin_up, __ATOMIC_RELAXED)))
		return nfv_mark_drop(m, drop_vx_down.id, VXLAN_INPUT_NEXT_DROP);
	br = nfv_bridge_of_iface(iface);
	if (unlikely(br == 0))
		return nfv_mark_drop(m, drop_vx_not_bridged.id, VXLAN_INPUT_NEXT_DROP);
	nfv_bridge_meta(m)->remote = ip->src_addr;
	/* The inner frame: what the UDP length covers after the VXLAN header. */
	if (unlikely(rte_pktmbuf_pkt_len(m) > l4_off + udp_len))
		nfv_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - (l4_off + udp_len));
	rte_pktmbuf_adj(m, (uint16_t)hdrs);
	m->port = iface;
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK);
	c->rx_packets[iface]++;
	c->rx_bytes[iface] += rte_pktmbuf_pkt_len(m);
	return VXLAN_INPUT_NEXT_BRIDGE;
}

static uint16_t
vxlan_input_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return nfv_node_each(graph, node, objs, n, vxlan_input_one,
			     nfv_vxlan_counters(nfv_node_worker(node)));
}

static struct rte_node_register vxlan_input_node = {
	.name = "nfv_vxlan_input",
	.process = vxlan_input_process,
	.init = nfv_node_ctx_init,
	.nb_edges = VXLAN_INPUT_NEXT_MAX,
	.next_nodes = {
		[VXLAN_INPUT_NEXT_BRIDGE] = "nfv_bridge_input",
		[VXLAN_INPUT_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(vxlan_input_node);
