/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upf_downlink: on the ip4 ingress arc of every interface but the N3 one
 * (the N6 side), before the route lookup. An IPv4 packet whose destination
 * is a session's UE address is that session's downlink: the session alone
 * attracts it (no route to the UE is needed). With a FAR that forwards
 * through a GTP-U tunnel (outer header creation GTP-U/UDP/IPv4, TS 29.244
 * 8.2.56), the packet is a router hop for the UE (TTL decremented, RFC
 * 1812 5.3.1, RFC 1624 checksum update) and is carried in a new outer
 * IPv4/UDP/GTP-U header (TS 29.281 5.1: version 1, PT 1, G-PDU, the FAR's
 * TEID; UDP 2152 to 2152 with checksum 0, RFC 768 / TS 29.281 4.4.2.0) from
 * the N3 address to the gNB, then routed by ip4_lookup as a packet nfvd
 * built (the outer TTL, 64, is not decremented). Anything else goes on
 * along the arc.
 *
 * Edges: drop, ip4_lookup, then the arc's.
 * Reads: mbuf->port. Writes: the frame (36 bytes prepended), meta.flags.
 * Counters: upf.downlink_packets, the session's downlink packets and bytes
 * (inner IP length).
 * Drops: upf_downlink/far_drop, far_buffer, no_tunnel, ttl_expired,
 * no_headroom.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "core/arc.h"
#include "core/counters.h"
#include "core/meta.h"
#include "core/node.h"
#include "modules/ip/ip_node.h"
#include "modules/upf/upf.h"

enum upf_downlink_next {
	UPF_DOWNLINK_NEXT_DROP,
	UPF_DOWNLINK_NEXT_LOOKUP,
	UPF_DOWNLINK_NEXT_MAX,
};

NFV_DROP_REASON(drop_upf_dl_far_drop, "upf_downlink", "far_drop",
	"downlink PDR whose FAR says DROP");
NFV_DROP_REASON(drop_upf_dl_far_buffer, "upf_downlink", "far_buffer",
	"downlink PDR whose FAR says BUFF (buffering is not implemented)");
NFV_DROP_REASON(drop_upf_dl_no_tunnel, "upf_downlink", "no_tunnel",
	"downlink FAR forwards without a GTP-U/UDP/IPv4 outer header creation");
NFV_DROP_REASON(drop_upf_dl_ttl, "upf_downlink", "ttl_expired",
	"downlink packet for a UE with TTL 1 or 0 (RFC 1812 5.3.1; no ICMP error)");
NFV_DROP_REASON(drop_upf_dl_headroom, "upf_downlink", "no_headroom",
	"no room in front of the packet for the 36-byte outer header");

static struct nfv_arc_feature upf_downlink_feature = {
	.arc_name = "ip4_ingress", .node = "nfv_upf_downlink", .runs_after = "nfv_nat44_in",
};
NFV_ARC_FEATURE_REGISTER(upf_downlink_feature);

#define UPF_OUTER_LEN (20 + 8 + 8)

static __rte_always_inline uint16_t
upf_encap(struct rte_mbuf *m, const struct nfv_upf_rule *r, rte_be32_t n3, uint32_t *inner_len,
	  rte_be16_t id)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, NFV_L2_LEN);
	struct rte_ipv4_hdr *o;
	struct rte_udp_hdr *udp;
	uint8_t *gtp;
	uint32_t len = rte_be_to_cpu_16(ip->total_length), word;

	switch (r->action) {
	case NFV_UPF_FORWARD:
		break;
	case NFV_UPF_BUFFER:
		return nfv_mark_drop(m, drop_upf_dl_far_buffer.id, UPF_DOWNLINK_NEXT_DROP);
	case NFV_UPF_NO_TUNNEL:
		return nfv_mark_drop(m, drop_upf_dl_no_tunnel.id, UPF_DOWNLINK_NEXT_DROP);
	default:
		return nfv_mark_drop(m, drop_upf_dl_far_drop.id, UPF_DOWNLINK_NEXT_DROP);
	}
	if (unlikely(ip->time_to_live <= 1))
		return nfv_mark_drop(m, drop_upf_dl_ttl.id, UPF_DOWNLINK_NEXT_DROP);
	if (unlikely(rte_pktmbuf_headroom(m) < UPF_OUTER_LEN))
		return nfv_mark_drop(m, drop_upf_dl_headroom.id, UPF_DOWNLINK_NEXT_DROP);
	memcpy(&word, &ip->time_to_live, sizeof(word));
	word = nfv_ip4_ttl_dec_word(word);
	memcpy(&ip->time_to_live, &word, sizeof(word));
	/* Ethernet padding is not the UE's. */
	if (rte_pktmbuf_pkt_len(m) > NFV_L2_LEN + len)
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - NFV_L2_LEN - len));
	rte_pktmbuf_prepend(m, UPF_OUTER_LEN);
	o = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, NFV_L2_LEN);
	o->version_ihl = RTE_IPV4_VHL_DEF;
	o->type_of_service = 0;
	o->total_length = rte_cpu_to_be_16((uint16_t)(len + UPF_OUTER_LEN));
	o->packet_id = id; /* DF clear: it may be fragmented (nfv_ip4_ident_get) */
	o->fragment_offset = 0;
	o->time_to_live = 64;
	o->next_proto_id = IPPROTO_UDP;
	o->hdr_checksum = 0;
	o->src_addr = n3;
	o->dst_addr = r->peer;
	o->hdr_checksum = rte_ipv4_cksum(o);
	udp = (struct rte_udp_hdr *)(o + 1);
	udp->src_port = RTE_BE16(NFV_UPF_GTPU_PORT);
	udp->dst_port = RTE_BE16(NFV_UPF_GTPU_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len + 16));
	udp->dgram_cksum = 0;
	gtp = (uint8_t *)(udp + 1);
	gtp[0] = 0x30; /* version 1, PT 1, no optional fields */
	gtp[1] = 255;  /* G-PDU */
	gtp[2] = (uint8_t)(len >> 8);
	gtp[3] = (uint8_t)len;
	memcpy(gtp + 4, &r->teid, sizeof(r->teid));
	nfv_meta(m)->flags = NFV_META_LOCAL_ORIGIN;
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK);
	*inner_len = len;
	return UPF_DOWNLINK_NEXT_LOOKUP;
}

static uint16_t
upf_downlink_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_upf_counters *c = nfv_worker_counters(w, &nfv_upf_counters_block);
	const struct nfv_upf_n3 *n3 = __atomic_load_n(&nfv_upf_n3, __ATOMIC_ACQUIRE);
	struct nfv_upf_session_counters *sc = nfv_upf_session_counters[w->index];
	struct rte_hash *h = nfv_upf_table[NFV_UPF_DL];
	uint16_t nexts[RTE_GRAPH_BURST_SIZE], ident = nfv_ip4_ident_get(w);
	rte_be32_t dsts[RTE_HASH_LOOKUP_BULK_MAX];
	const void *keys[RTE_HASH_LOOKUP_BULK_MAX];
	void *data[RTE_HASH_LOOKUP_BULK_MAX];
	struct nfv_arc_burst_edge ec = { .iface = UINT16_MAX };

	for (uint16_t base = 0; base < n; base += RTE_HASH_LOOKUP_BULK_MAX) {
		unsigned int k = RTE_MIN((unsigned int)(n - base),
					 (unsigned int)RTE_HASH_LOOKUP_BULK_MAX);
		uint64_t hits = 0;

		for (unsigned int j = 0; j < k; j++) {
			struct rte_mbuf *m = objs[base + j];

			nexts[base + j] = nfv_arc_burst_next_edge(&upf_downlink_feature, &ec, m->port);
			memcpy(&dsts[j], rte_pktmbuf_mtod_offset(m, uint8_t *, NFV_L2_LEN +
					offsetof(struct rte_ipv4_hdr, dst_addr)), 4);
			keys[j] = &dsts[j];
		}
		if (h == NULL || n3 == NULL)
			continue;
		rte_hash_lookup_bulk_data(h, keys, k, &hits, data);
		while (hits != 0) {
			unsigned int j = (unsigned int)__builtin_ctzll(hits);
			struct rte_mbuf *m = objs[base + j];
			const struct nfv_upf_rule *r = data[j];
			uint32_t len = 0;

			hits &= hits - 1;
			nexts[base + j] = upf_encap(m, r, n3->addr, &len, rte_cpu_to_be_16(ident++));
			if (nexts[base + j] == UPF_DOWNLINK_NEXT_LOOKUP) {
				nfv_upf_count(sc, r, len);
				c->downlink_packets++;
			}
		}
	}
	nfv_ip4_ident_put(w, ident);
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

static struct rte_node_register upf_downlink_node = {
	.name = "nfv_upf_downlink",
	.process = upf_downlink_process,
	.init = nfv_node_ctx_init,
	.nb_edges = UPF_DOWNLINK_NEXT_MAX,
	.next_nodes = {
		[UPF_DOWNLINK_NEXT_DROP] = "nfv_drop",
		[UPF_DOWNLINK_NEXT_LOOKUP] = "nfv_ip4_lookup",
	},
};

RTE_NODE_REGISTER(upf_downlink_node);
