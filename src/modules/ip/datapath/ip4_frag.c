/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_frag: IPv4 fragmentation (RFC 791, RFC 1812 5.2.6: a router
 * fragments a packet larger than the output MTU whose DF bit is clear).
 * ip4_rewrite sends such a packet here, its next hop resolved and picked
 * (meta.nh, a single next hop), its TTL not yet decremented.
 *
 * The TTL is decremented once (a transit packet), then the packet is cut
 * into fragments that each fit the next hop's MTU, each one contiguous
 * frame (so any driver sends it): the first is the packet's own mbuf, cut
 * short in place, when the packet is one segment (no copy of its data);
 * the others, and every fragment of a chained packet, are new mbufs of the
 * packet's pool (a pool whose mbufs hold less than the MTU makes fragments
 * that fit them). Each fragment's data is a multiple of 8 bytes but the
 * last's. The first fragment keeps
 * the whole header with its options; the later ones keep the options
 * whose copied flag is set (RFC 791 3.1), padded with end-of-options. A
 * packet that is already a fragment is cut with its own offset as the
 * base, and its MF flag kept on its last piece. Each fragment's total
 * length, offset and MF flag and its header checksum are written, the
 * next hop's Ethernet header and meta.tx_port too; the fragments go, in
 * order, to the output interface's first egress feature or port_tx (this
 * node's entry of the ip4_egress arc); a chained packet is freed.
 *
 * Counters: ip fragmented (packets cut), fragments (made of them): each
 * fragment is forwarded as a packet, so received + fragments - fragmented
 * = forwarded + dropped.
 *
 * Edges: drop, then the ip4_egress arc's (its features and port_tx).
 * Reads: meta.nh, meta.flags (NFV_META_LOCAL_ORIGIN: no TTL decrement).
 * Drops: ip4_frag/no_mbuf (the pool had no room for the fragments: the
 * packet is dropped whole), ip4_frag/too_small (the MTU leaves no room for
 * 8 bytes of data after the header, or would make more than IP4_FRAG_MAX
 * fragments).
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "core/arc.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_counters.h"
#include "modules/ip/ip_node.h"

enum ip4_frag_next {
	IP4_FRAG_NEXT_DROP,
	IP4_FRAG_NEXT_MAX,
};

NFV_DROP_REASON(drop_ip4_frag_no_mbuf, "ip4_frag", "no_mbuf",
	"no mbufs left in the packet's pool for its fragments (the packet is dropped whole)");
NFV_DROP_REASON(drop_ip4_frag_too_small, "ip4_frag", "too_small",
	"the output MTU leaves no room for 8 bytes of data after the IPv4 header, or would "
	"cut the packet into more than 256 fragments");

struct nfv_arc_entry nfv_ip4_frag_egress_entry = {
	.arc_name = "ip4_egress", .node = "nfv_ip4_frag",
};
NFV_ARC_ENTRY_REGISTER(nfv_ip4_frag_egress_entry);

#define IP4_FRAG_MAX 256 /* fragments of one packet at most */

/* The options of header ip (ihl bytes) that every fragment carries (the
 * copied flag), into opts; returns their length, padded to 4 bytes. */
static uint32_t
ip4_frag_copied_options(const uint8_t *ip, uint32_t ihl, uint8_t *opts)
{
	uint32_t at = sizeof(struct rte_ipv4_hdr), n = 0;

	while (at < ihl) {
		uint8_t type = ip[at];
		uint32_t len;

		if (type == 0) /* end of options */
			break;
		if (type == 1) { /* no operation */
			at++;
			continue;
		}
		len = at + 1 < ihl ? ip[at + 1] : 0;
		if (len < 2 || at + len > ihl)
			break; /* malformed: ip4_input let it through; copy no more */
		if (type & 0x80) {
			memcpy(opts + n, ip + at, len);
			n += len;
		}
		at += len;
	}
	while (n % 4 != 0)
		opts[n++] = 0;
	return n;
}

/* Fragment header fields: offset (with MF) fo and total length, the
 * checksum over them; then the next hop's Ethernet header. */
static void
ip4_frag_finish(struct rte_mbuf *f, struct rte_ipv4_hdr *fip, uint16_t fo, uint32_t len,
		const struct nfv_nexthop *nh)
{
	fip->fragment_offset = rte_cpu_to_be_16(fo);
	fip->total_length = rte_cpu_to_be_16((uint16_t)len);
	fip->hdr_checksum = 0;
	fip->hdr_checksum = rte_ipv4_cksum(fip);
	nfv_rewrite_l2(f, nh);
}

/* Cuts m (its IP header at ip, ihl bytes) into fragments for next hop nh;
 * the fragments in frags (frags[0] is m itself when it is one segment),
 * their number returned (0: none made, the reason in *reason). */
static uint32_t
ip4_frag_cut(struct rte_mbuf *m, struct rte_ipv4_hdr *ip, uint32_t ihl,
	     const struct nfv_nexthop *nh, struct rte_mbuf **frags, uint16_t *reason)
{
	uint8_t later_hdr[60], opts[40];
	const uint32_t total = rte_be_to_cpu_16(ip->total_length);
	const uint16_t off0 = rte_be_to_cpu_16(ip->fragment_offset);
	const uint32_t base = (uint32_t)(off0 & RTE_IPV4_HDR_OFFSET_MASK) * 8;
	const bool more = (off0 & RTE_IPV4_HDR_MF_FLAG) != 0;
	/* What a fragment may hold: the next hop's MTU, or less when the
	 * pool's mbufs are smaller (a fragment is one mbuf). */
	const uint32_t room = rte_pktmbuf_data_room_size(m->pool) - RTE_PKTMBUF_HEADROOM;
	const uint32_t mtu = RTE_MIN((uint32_t)nh->mtu, room - NFV_L2_LEN);
	/* The first fragment is m, cut short, when m is one segment. */
	const bool in_place = m->nb_segs == 1;
	uint32_t later_ihl, data = total - ihl, first, done, n = 0;

	later_ihl = sizeof(struct rte_ipv4_hdr) +
		    ip4_frag_copied_options((const uint8_t *)ip, ihl, opts);
	memcpy(later_hdr, ip, sizeof(struct rte_ipv4_hdr));
	memcpy(later_hdr + sizeof(struct rte_ipv4_hdr), opts,
	       later_ihl - sizeof(struct rte_ipv4_hdr));
	later_hdr[0] = (uint8_t)(0x40 | later_ihl / 4);
	if (mtu < ihl + 8 || mtu < later_ihl + 8 ||
	    data > ((mtu - ihl) & ~7u) + (IP4_FRAG_MAX - 1) * ((mtu - later_ihl) & ~7u)) {
		*reason = drop_ip4_frag_too_small.id;
		return 0;
	}
	first = RTE_MIN((mtu - ihl) & ~7u, data);
	done = in_place ? first : 0;
	if (in_place)
		frags[n++] = m; /* finished last: the others are cut from its data */
	while (done < data) {
		const uint32_t h = done == 0 ? ihl : later_ihl;
		uint32_t chunk = RTE_MIN((mtu - h) & ~7u, data - done);
		struct rte_mbuf *f;
		const void *src;
		uint8_t *p;
		uint16_t fo;

		f = rte_pktmbuf_alloc(m->pool);
		if (f == NULL)
			goto fail;
		frags[n++] = f;
		p = (uint8_t *)rte_pktmbuf_append(f, (uint16_t)(NFV_L2_LEN + h + chunk));
		if (p == NULL)
			goto fail;
		memcpy(p + NFV_L2_LEN, done == 0 ? (const void *)ip : later_hdr, h);
		/* The data, wherever it is in m's segments (copied into
		 * place when it spans two, else pointed to). */
		src = rte_pktmbuf_read(m, NFV_L2_LEN + ihl + done, chunk, p + NFV_L2_LEN + h);
		if (src == NULL)
			goto fail;
		if (src != p + NFV_L2_LEN + h)
			memcpy(p + NFV_L2_LEN + h, src, chunk);
		fo = (uint16_t)((base + done) / 8);
		if (more || done + chunk < data)
			fo |= RTE_IPV4_HDR_MF_FLAG;
		f->port = m->port;
		*nfv_meta(f) = *nfv_meta(m);
		ip4_frag_finish(f, (struct rte_ipv4_hdr *)(p + NFV_L2_LEN), fo, h + chunk, nh);
		done += chunk;
	}
	if (in_place) {
		m->data_len = (uint16_t)(NFV_L2_LEN + ihl + first);
		m->pkt_len = m->data_len;
		ip4_frag_finish(m, ip, (uint16_t)(base / 8 | RTE_IPV4_HDR_MF_FLAG), ihl + first, nh);
	}
	return n;
fail:
	rte_pktmbuf_free_bulk(frags + in_place, n - in_place);
	*reason = drop_ip4_frag_no_mbuf.id;
	return 0;
}

static uint16_t
ip4_frag_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_ip_counters *c = nfv_ip_counters(nfv_node_worker(node));
	struct rte_mbuf *frags[IP4_FRAG_MAX];

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		struct nfv_mbuf_meta *meta = nfv_meta(m);
		const struct nfv_nexthop *nh = meta->nh;
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
								  NFV_L2_LEN);
		uint32_t ihl = rte_ipv4_hdr_len(ip), k;
		uint16_t reason = 0;

		if (!(meta->flags & NFV_META_LOCAL_ORIGIN)) {
			uint32_t w;

			memcpy(&w, &ip->time_to_live, sizeof(w));
			w = nfv_ip4_ttl_dec_word(w);
			memcpy(&ip->time_to_live, &w, sizeof(w));
		}
		k = ip4_frag_cut(m, ip, ihl, nh, frags, &reason);
		if (k == 0) {
			rte_node_enqueue_x1(graph, node,
					    nfv_mark_drop(m, reason, IP4_FRAG_NEXT_DROP), m);
			continue;
		}
		rte_node_enqueue(graph, node,
				 nfv_arc_entry_edge(&nfv_ip4_frag_egress_entry, nh->port_id),
				 (void **)frags, (uint16_t)k);
		if (frags[0] != m)
			rte_pktmbuf_free(m);
		c->fragmented++;
		c->fragments += k;
	}
	return n;
}

static struct rte_node_register ip4_frag_node = {
	.name = "nfv_ip4_frag",
	.process = ip4_frag_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP4_FRAG_NEXT_MAX,
	.next_nodes = {
		[IP4_FRAG_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(ip4_frag_node);
