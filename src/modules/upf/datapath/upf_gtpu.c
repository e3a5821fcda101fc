/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upf_gtpu: GTP-U (TS 29.281) datagrams to UDP port 2152 of a local
 * address, from ip4_local. For the N3 address:
 *   - a G-PDU (type 255) whose TEID is a session's uplink F-TEID loses its
 *     outer IPv4, UDP and GTP-U headers (extension headers included,
 *     5.2) and the inner IPv4 packet, checked as a router checks a packet
 *     it receives (RFC 1812 5.2.2: version, IHL, checksum, lengths, the
 *     total length within the G-PDU's; 5.3.7: no special source or
 *     destination) and, when the PDR names a UE address, sent from it
 *     (TS 29.244 5.2.1: the PDI's UE IP address), goes to ip4_lookup as a
 *     transit packet (TTL decremented by ip4_rewrite);
 *   - an Echo Request (type 1) is answered in place with an Echo Response
 *     (7.2.2): the same sequence number, a Recovery IE (restart counter 0),
 *     from the N3 address to the requester's address and port.
 * A UDP checksum other than 0 is verified first (RFC 768). Everything else
 * is dropped under a named reason.
 *
 * Edges: ip4_lookup, drop.
 * Writes: meta.flags (0 for decapsulated packets, LOCAL_ORIGIN for echo
 * responses). Counters: upf.uplink_packets, upf.echo_replies, and the
 * session's uplink packets and bytes (inner IP length).
 * Drops: upf_gtpu/no_n3, bad_udp_checksum, bad_gtpu, unsupported_type,
 * inner_not_ipv4, bad_inner_ip, inner_martian, no_pdr, not_ue_address,
 * far_drop, far_buffer, far_unsupported.
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "core/counters.h"
#include "core/meta.h"
#include "core/node.h"
#include "modules/ip/ip_node.h"
#include "modules/ip/udp.h"
#include "modules/upf/upf.h"

enum upf_gtpu_next {
	UPF_GTPU_NEXT_LOOKUP,
	UPF_GTPU_NEXT_DROP,
	UPF_GTPU_NEXT_MAX,
};

NFV_DROP_REASON(drop_upf_no_n3, "upf_gtpu", "no_n3",
	"GTP-U to a local address that is not the N3 address (upf set n3)");
NFV_DROP_REASON(drop_upf_bad_udp_cksum, "upf_gtpu", "bad_udp_checksum",
	"GTP-U datagram whose UDP checksum (not 0) is wrong");
NFV_DROP_REASON(drop_upf_bad_gtpu, "upf_gtpu", "bad_gtpu",
	"GTP-U header: short, not version 1 / PT 1, or lengths that do not add up");
NFV_DROP_REASON(drop_upf_unsupported, "upf_gtpu", "unsupported_type",
	"GTP-U message other than G-PDU and Echo Request (error indication, end marker...)");
NFV_DROP_REASON(drop_upf_inner_v6, "upf_gtpu", "inner_not_ipv4",
	"G-PDU whose payload is not IPv4 (IPv6 UEs are not supported)");
NFV_DROP_REASON(drop_upf_bad_inner, "upf_gtpu", "bad_inner_ip",
	"inner IPv4 header: short, bad IHL, checksum, or a total length beyond the G-PDU (RFC 1812 5.2.2)");
NFV_DROP_REASON(drop_upf_inner_martian, "upf_gtpu", "inner_martian",
	"inner source or destination 0/8, 127/8, 169.254/16, multicast, class E or broadcast (RFC 1812 5.3.7)");
NFV_DROP_REASON(drop_upf_no_pdr, "upf_gtpu", "no_pdr",
	"G-PDU whose TEID is no session's uplink F-TEID");
NFV_DROP_REASON(drop_upf_not_ue, "upf_gtpu", "not_ue_address",
	"G-PDU whose inner source is not the UE address of its uplink PDR (TS 29.244 5.2.1)");
NFV_DROP_REASON(drop_upf_far_drop, "upf_gtpu", "far_drop",
	"uplink PDR whose FAR says DROP");
NFV_DROP_REASON(drop_upf_far_buffer, "upf_gtpu", "far_buffer",
	"uplink PDR whose FAR says BUFF (buffering is not implemented)");
NFV_DROP_REASON(drop_upf_far_unsupported, "upf_gtpu", "far_unsupported",
	"uplink FAR with outer header creation (N9 forwarding is not implemented)");

NFV_UDP_PORT_REGISTER(upf_gtpu, AF_INET, NFV_UPF_GTPU_PORT, "nfv_upf_gtpu");

#define GTPU_HDR_LEN 8
#define GTPU_ECHO_REQ 1
#define GTPU_ECHO_RESP 2
#define GTPU_GPDU 255
#define GTPU_IE_RECOVERY 14
#define GTPU_FLAGS_EXT 0x07 /* E, S, PN: the optional 4 octets follow */

/* TS 29.281 7.2.2: Echo Response, in place, sequence number kept. */
static uint16_t
upf_echo_reply(struct rte_mbuf *m, struct rte_ipv4_hdr *ip, const uint8_t *gtp,
	       uint32_t gtp_len, rte_be32_t n3)
{
	uint8_t seq[2] = { 0, 0 };
	struct rte_udp_hdr *udp;
	rte_be16_t sport;
	uint32_t want = NFV_L2_LEN + 20 + 8 + 12 + 2, have = rte_pktmbuf_pkt_len(m);
	uint8_t *g;

	if (gtp[0] & 0x02) {
		if (gtp_len < 12)
			return nfv_mark_drop(m, drop_upf_bad_gtpu.id, UPF_GTPU_NEXT_DROP);
		seq[0] = gtp[8];
		seq[1] = gtp[9];
	}
	if (!rte_pktmbuf_is_contiguous(m))
		return nfv_mark_drop(m, drop_upf_bad_gtpu.id, UPF_GTPU_NEXT_DROP);
	memcpy(&sport, (const uint8_t *)ip + rte_ipv4_hdr_len(ip), sizeof(sport));
	if (have > want)
		rte_pktmbuf_trim(m, (uint16_t)(have - want));
	else if (have < want && rte_pktmbuf_append(m, (uint16_t)(want - have)) == NULL)
		return nfv_mark_drop(m, drop_upf_bad_gtpu.id, UPF_GTPU_NEXT_DROP);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0;
	ip->total_length = rte_cpu_to_be_16(20 + 8 + 12 + 2);
	ip->packet_id = 0;
	ip->fragment_offset = 0;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->dst_addr = ip->src_addr;
	ip->src_addr = n3;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = RTE_BE16(NFV_UPF_GTPU_PORT);
	udp->dst_port = sport;
	udp->dgram_len = rte_cpu_to_be_16(8 + 12 + 2);
	udp->dgram_cksum = 0;
	g = (uint8_t *)(udp + 1);
	g[0] = 0x32; /* version 1, PT 1, S */
	g[1] = GTPU_ECHO_RESP;
	g[2] = 0;
	g[3] = 4 + 2;
	memset(g + 4, 0, 4); /* TEID 0 */
	g[8] = seq[0];
	g[9] = seq[1];
	g[10] = 0; /* N-PDU number */
	g[11] = 0; /* next extension header type */
	g[12] = GTPU_IE_RECOVERY;
	g[13] = 0; /* restart counter */
	nfv_meta(m)->flags = NFV_META_LOCAL_ORIGIN;
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK);
	return UPF_GTPU_NEXT_LOOKUP;
}

/*
 * Checks the outer headers; returns the offset of the inner packet from
 * the start of the frame (edge set in *next when the packet goes no further
 * here: a drop or an echo response), the TEID and, in *end, the offset of
 * the G-PDU's end (its length field's).
 */
static __rte_always_inline uint32_t
upf_gtpu_parse(struct rte_mbuf *m, const struct nfv_upf_n3 *n3, rte_be32_t *teid,
	       uint32_t *end, uint16_t *next, struct nfv_upf_counters *c)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, NFV_L2_LEN);
	uint32_t ihl = rte_ipv4_hdr_len(ip), dlen = rte_pktmbuf_data_len(m);
	uint32_t udp_off = NFV_L2_LEN + ihl, gtp_off = udp_off + 8, off, ulen, glen;
	const struct rte_udp_hdr *udp;
	const uint8_t *gtp;

	if (unlikely(n3 == NULL || ip->dst_addr != n3->addr)) {
		*next = nfv_mark_drop(m, drop_upf_no_n3.id, UPF_GTPU_NEXT_DROP);
		return 0;
	}
	if (unlikely(dlen < gtp_off + GTPU_HDR_LEN))
		goto bad;
	udp = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, udp_off);
	gtp = rte_pktmbuf_mtod_offset(m, const uint8_t *, gtp_off);
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	glen = (uint32_t)gtp[2] << 8 | gtp[3];
	/* The UDP length within the IP packet, the GTP-U length within UDP. */
	if (unlikely(ulen < 8 + GTPU_HDR_LEN || ulen > rte_be_to_cpu_16(ip->total_length) - ihl ||
		     glen + GTPU_HDR_LEN > ulen - 8 || (gtp[0] & 0xf0) != 0x30))
		goto bad;
	if (udp->dgram_cksum != 0 && unlikely(!nfv_udp4_cksum_ok(m, ip, udp_off, ulen))) {
		*next = nfv_mark_drop(m, drop_upf_bad_udp_cksum.id, UPF_GTPU_NEXT_DROP);
		return 0;
	}
	if (unlikely(gtp[1] != GTPU_GPDU)) {
		if (gtp[1] == GTPU_ECHO_REQ) {
			*next = upf_echo_reply(m, ip, gtp, glen + GTPU_HDR_LEN, n3->addr);
			if (*next == UPF_GTPU_NEXT_LOOKUP)
				c->echo_replies++;
			return 0;
		}
		*next = nfv_mark_drop(m, drop_upf_unsupported.id, UPF_GTPU_NEXT_DROP);
		return 0;
	}
	off = GTPU_HDR_LEN;
	if (gtp[0] & GTPU_FLAGS_EXT) {
		uint8_t type;

		off += 4;
		if (glen + GTPU_HDR_LEN < off || dlen < gtp_off + off)
			goto bad;
		type = (gtp[0] & 0x04) ? gtp[off - 1] : 0;
		/* 5.2.1: each extension header's length in 4-octet units, its
		 * last octet the type of the next one (0: none). */
		while (type != 0) {
			uint32_t elen;

			if (dlen < gtp_off + off + 1 || (elen = gtp[off] * 4u) == 0 ||
			    glen + GTPU_HDR_LEN < off + elen || dlen < gtp_off + off + elen)
				goto bad;
			off += elen;
			type = gtp[off - 1];
		}
	}
	memcpy(teid, gtp + 4, sizeof(*teid));
	*end = gtp_off + GTPU_HDR_LEN + glen;
	*next = UPF_GTPU_NEXT_MAX;
	return gtp_off + off;
bad:
	*next = nfv_mark_drop(m, drop_upf_bad_gtpu.id, UPF_GTPU_NEXT_DROP);
	return 0;
}

/* RFC 1812 5.2.2 and 5.3.7 on the inner packet at off, which ends by end
 * at the latest (the G-PDU's end); its length, or 0. */
static __rte_always_inline uint32_t
upf_inner_check(const struct rte_mbuf *m, uint32_t off, uint32_t end, uint16_t *next,
		struct rte_mbuf *mm)
{
	const uint8_t *p = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	uint32_t left = rte_pktmbuf_data_len(m) - off, ihl, tot, src, dst;

	if (unlikely(left < 20 || (p[0] >> 4) != 4)) {
		*next = nfv_mark_drop(mm, left >= 1 && (p[0] >> 4) == 6 ? drop_upf_inner_v6.id :
				      drop_upf_bad_inner.id, UPF_GTPU_NEXT_DROP);
		return 0;
	}
	ihl = (p[0] & 0x0f) * 4u;
	tot = (uint32_t)p[2] << 8 | p[3];
	if (unlikely(ihl < 20 || left < ihl || tot < ihl || tot > end - off ||
		     tot > rte_pktmbuf_pkt_len(m) - off || rte_raw_cksum(p, ihl) != 0xffff)) {
		*next = nfv_mark_drop(mm, drop_upf_bad_inner.id, UPF_GTPU_NEXT_DROP);
		return 0;
	}
	src = (uint32_t)p[12] << 24 | (uint32_t)p[13] << 16 | (uint32_t)p[14] << 8 | p[15];
	dst = (uint32_t)p[16] << 24 | (uint32_t)p[17] << 16 | (uint32_t)p[18] << 8 | p[19];
	if (unlikely(nfv_ip4_is_martian_src(src) || (dst >> 24) == 0 || (dst >> 24) == 127 ||
		     dst >= 0xe0000000 || (src >> 16) == 0xa9fe || (dst >> 16) == 0xa9fe)) {
		*next = nfv_mark_drop(mm, drop_upf_inner_martian.id, UPF_GTPU_NEXT_DROP);
		return 0;
	}
	return tot;
}

static uint16_t
upf_gtpu_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_upf_counters *c = nfv_worker_counters(w, &nfv_upf_counters_block);
	const struct nfv_upf_n3 *n3 = __atomic_load_n(&nfv_upf_n3, __ATOMIC_ACQUIRE);
	struct nfv_upf_session_counters *sc = nfv_upf_session_counters[w->index];
	struct rte_hash *h = nfv_upf_table[NFV_UPF_UL];
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint32_t offs[RTE_GRAPH_BURST_SIZE], lens[RTE_GRAPH_BURST_SIZE], end;
	rte_be32_t teids[RTE_GRAPH_BURST_SIZE];
	const void *keys[RTE_GRAPH_BURST_SIZE];
	void *data[RTE_GRAPH_BURST_SIZE];
	struct rte_mbuf *look[RTE_GRAPH_BURST_SIZE];
	uint16_t idx[RTE_GRAPH_BURST_SIZE];
	uint64_t hits = 0;
	unsigned int k = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];

		offs[i] = upf_gtpu_parse(m, n3, &teids[i], &end, &nexts[i], c);
		if (nexts[i] != UPF_GTPU_NEXT_MAX)
			continue;
		lens[i] = upf_inner_check(m, offs[i], end, &nexts[i], m);
		if (lens[i] == 0)
			continue;
		if (h == NULL) {
			nexts[i] = nfv_mark_drop(m, drop_upf_no_pdr.id, UPF_GTPU_NEXT_DROP);
			continue;
		}
		keys[k] = &teids[i];
		look[k] = m;
		idx[k++] = i;
	}
	for (unsigned int j = 0; j < k; j++) {
		struct rte_mbuf *m = look[j];
		const struct nfv_upf_rule *r;
		uint16_t i = idx[j];

		/* One bulk lookup per RTE_HASH_LOOKUP_BULK_MAX packets. */
		if (j % RTE_HASH_LOOKUP_BULK_MAX == 0)
			rte_hash_lookup_bulk_data(h, keys + j, RTE_MIN(k - j,
					(unsigned int)RTE_HASH_LOOKUP_BULK_MAX), &hits, data + j);
		r = data[j];
		if (!(hits & (1ull << (j % RTE_HASH_LOOKUP_BULK_MAX)))) {
			nexts[i] = nfv_mark_drop(m, drop_upf_no_pdr.id, UPF_GTPU_NEXT_DROP);
			continue;
		}
		if (r->ue != 0 && memcmp(rte_pktmbuf_mtod_offset(m, const uint8_t *, offs[i] + 12),
					 &r->ue, sizeof(r->ue)) != 0) {
			nexts[i] = nfv_mark_drop(m, drop_upf_not_ue.id, UPF_GTPU_NEXT_DROP);
			continue;
		}
		switch (r->action) {
		case NFV_UPF_FORWARD:
			break;
		case NFV_UPF_BUFFER:
			nexts[i] = nfv_mark_drop(m, drop_upf_far_buffer.id, UPF_GTPU_NEXT_DROP);
			continue;
		case NFV_UPF_UNSUPPORTED:
			nexts[i] = nfv_mark_drop(m, drop_upf_far_unsupported.id,
						 UPF_GTPU_NEXT_DROP);
			continue;
		default:
			nexts[i] = nfv_mark_drop(m, drop_upf_far_drop.id, UPF_GTPU_NEXT_DROP);
			continue;
		}
		/* Outer header removal: the inner packet where the outer IPv4
		 * header was, the L2 room kept in front; padding cut. */
		rte_pktmbuf_adj(m, (uint16_t)(offs[i] - NFV_L2_LEN));
		if (rte_pktmbuf_pkt_len(m) > NFV_L2_LEN + lens[i])
			rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - NFV_L2_LEN -
						       lens[i]));
		nfv_meta(m)->flags = 0;
		m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK);
		nfv_upf_count(sc, r, lens[i]);
		c->uplink_packets++;
		nexts[i] = UPF_GTPU_NEXT_LOOKUP;
	}
	nfv_enqueue_nexts(graph, node, objs, nexts, n);
	return n;
}

static struct rte_node_register upf_gtpu_node = {
	.name = "nfv_upf_gtpu",
	.process = upf_gtpu_process,
	.init = nfv_node_ctx_init,
	.nb_edges = UPF_GTPU_NEXT_MAX,
	.next_nodes = {
		[UPF_GTPU_NEXT_LOOKUP] = "nfv_ip4_lookup",
		[UPF_GTPU_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(upf_gtpu_node);
