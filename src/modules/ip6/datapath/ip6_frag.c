/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip6_frag: fragmentation of nfvd's own IPv6 packets (RFC 8200 4.5: the
 * source fragments; routers never do, so a forwarded packet over the MTU
 * gets packet too big in ip6_rewrite). ip6_rewrite sends here a packet
 * nfvd originated (NFV_META_LOCAL_ORIGIN: an echo reply to a reassembled
 * request, modules/ip/reasm.h) that is larger than the next hop's MTU,
 * its next hop resolved and picked (meta.nh).
 *
 * The packet (its fixed header followed by the upper layer: nfvd's own
 * packets carry no extension header) is cut into fragments that fit the
 * MTU, each one new contiguous mbuf of its pool: the IPv6 header, a
 * fragment header (the packet's next header, the offset in 8-byte units,
 * M on all but the last, one random identification for all, RFC 7739),
 * and the data, a multiple of 8 bytes but in the last; the next hop's
 * Ethernet header. The fragments go, in order, to the output interface's
 * first egress feature or port_tx (this node's entry of the ip6_egress
 * arc); the packet is freed.
 *
 * Edges: drop, then the ip6_egress arc's.
 * Reads: meta.nh. Drops: ip6_frag/no_mbuf (the packet whole),
 * ip6_frag/too_small (the MTU leaves no room for 8 bytes of data, or more
 * than IP6_FRAG_MAX fragments).
 * Counters: ip6 fragmented (packets cut), fragments (made of them).
 */
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include "core/arc.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_counters.h"
#include "modules/ip/ip_node.h"

enum ip6_frag_next {
	IP6_FRAG_NEXT_DROP,
	IP6_FRAG_NEXT_MAX,
};

NFV_DROP_REASON(drop_ip6_frag_no_mbuf, "ip6_frag", "no_mbuf",
	"no mbufs left in the packet's pool for its fragments (the packet is dropped whole)");
NFV_DROP_REASON(drop_ip6_frag_too_small, "ip6_frag", "too_small",
	"the output MTU leaves no room for 8 bytes of data after the IPv6 and fragment "
	"headers, or would cut the packet into more than 64 fragments");

struct nfv_arc_entry nfv_ip6_frag_egress_entry = {
	.arc_name = "ip6_egress", .node = "nfv_ip6_frag",
};
NFV_ARC_ENTRY_REGISTER(nfv_ip6_frag_egress_entry);

#define IP6_FRAG_MAX 64 /* fragments of one packet at most (65,535 / 1,232) */

/* Cuts m into fragments for next hop nh, into frags; returns their number
 * (0: none made, the reason in *reason). */
static uint32_t
ip6_frag_cut(struct rte_mbuf *m, const struct rte_ipv6_hdr *ip, const struct nfv_nexthop *nh,
	     struct rte_mbuf **frags, uint16_t *reason)
{
	const uint32_t hdrs = sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_ipv6_fragment_ext);
	const uint32_t room = rte_pktmbuf_data_room_size(m->pool) - RTE_PKTMBUF_HEADROOM;
	const uint32_t mtu = RTE_MIN((uint32_t)nh->mtu, room - NFV_L2_LEN);
	const uint32_t data = rte_be_to_cpu_16(ip->payload_len);
	const rte_be32_t ident = rte_cpu_to_be_32((uint32_t)rte_rand());
	uint32_t per, done = 0, n = 0;

	per = mtu > hdrs ? (mtu - hdrs) & ~7u : 0;
	if (per == 0 || data > per * IP6_FRAG_MAX) {
		*reason = drop_ip6_frag_too_small.id;
		return 0;
	}
	while (done < data) {
		uint32_t chunk = RTE_MIN(per, data - done);
		struct rte_ipv6_fragment_ext *fh;
		struct rte_ipv6_hdr *fip;
		struct rte_mbuf *f;
		const void *src;
		uint8_t *p;

		f = rte_pktmbuf_alloc(m->pool);
		if (f == NULL)
			goto fail;
		frags[n++] = f;
		p = (uint8_t *)rte_pktmbuf_append(f, (uint16_t)(NFV_L2_LEN + hdrs + chunk));
		if (p == NULL)
			goto fail;
		fip = (struct rte_ipv6_hdr *)(p + NFV_L2_LEN);
		fh = (struct rte_ipv6_fragment_ext *)(fip + 1);
		memcpy(fip, ip, sizeof(*fip));
		fip->payload_len = rte_cpu_to_be_16((uint16_t)(sizeof(*fh) + chunk));
		fip->proto = IPPROTO_FRAGMENT;
		fh->next_header = ip->proto;
		fh->reserved = 0;
		fh->frag_data = rte_cpu_to_be_16((uint16_t)(done | (done + chunk < data)));
		fh->id = ident;
		/* The data, wherever it is in m's segments. */
		src = rte_pktmbuf_read(m, NFV_L2_LEN + sizeof(*ip) + done, chunk, p + NFV_L2_LEN + hdrs);
		if (src == NULL)
			goto fail;
		if (src != p + NFV_L2_LEN + hdrs)
			memcpy(p + NFV_L2_LEN + hdrs, src, chunk);
		f->port = m->port;
		*nfv_meta(f) = *nfv_meta(m);
		nfv_rewrite_l2(f, nh);
		done += chunk;
	}
	return n;
fail:
	rte_pktmbuf_free_bulk(frags, n);
	*reason = drop_ip6_frag_no_mbuf.id;
	return 0;
}

static uint16_t
ip6_frag_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	struct nfv_ip_counters *c = nfv_ip_counters(nfv_node_worker(node));
	struct rte_mbuf *frags[IP6_FRAG_MAX];

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		const struct nfv_nexthop *nh = nfv_meta(m)->nh;
		const struct rte_ipv6_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, NFV_L2_LEN);
		uint16_t reason = 0;
		uint32_t k = ip6_frag_cut(m, ip, nh, frags, &reason);

		if (k == 0) {
			rte_node_enqueue_x1(graph, node,
					    nfv_mark_drop(m, reason, IP6_FRAG_NEXT_DROP), m);
			continue;
		}
		rte_node_enqueue(graph, node,
				 nfv_arc_entry_edge(&nfv_ip6_frag_egress_entry, nh->port_id),
				 (void **)frags, (uint16_t)k);
		rte_pktmbuf_free(m);
		c->fragmented6++;
		c->fragments6 += k;
	}
	return n;
}

static struct rte_node_register ip6_frag_node = {
	.name = "nfv_ip6_frag",
	.process = ip6_frag_process,
	.init = nfv_node_ctx_init,
	.nb_edges = IP6_FRAG_NEXT_MAX,
	.next_nodes = {
		[IP6_FRAG_NEXT_DROP] = "nfv_drop",
	},
};

RTE_NODE_REGISTER(ip6_frag_node);
