/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acl_in4 / acl_in6 / acl_out4 / acl_out6: the ACL attached to the packet's
 * interface ("in": the receiving one, on the ip4/ip6 ingress arcs; "out":
 * the output one, on the egress arcs, before the VLAN tag is added).
 *
 * For each packet: the 5-tuple is read (for ICMP the type and code stand
 * for the ports; a non-first fragment has none); a packet of a flow the
 * connection table knows (either direction, recorded on this interface) is
 * permitted at once; the others are looked up in the worker's decision
 * cache (key: the classifier input and the ACL version's gen; value: the
 * rte_acl result) and the misses are classified in one rte_acl_classify
 * call per ACL version in the burst, then cached. The lowest prio wins; permit passes,
 * deny drops, reflect passes and records the flow; no match drops.
 *
 * IPv6: the next header is followed through hop-by-hop, routing,
 * destination options and fragment headers (at most eight).
 *
 * acl_in4 and acl_in6 decide the output ACL too for the packets ip4_fast /
 * ip6_fast routed when the two ACLs are the only features on their way
 * (acl_fused below) and send them to port_tx.
 *
 * Edges: drop, port_tx (acl_in4, acl_in6), then the arc's (later features,
 * the end node).
 * Reads: mbuf->port (in), meta.tx_port (out; in, for acl_fused), the L3/L4
 * headers. Writes: meta.flags (acl_fused: 0, as ip4_lookup leaves it).
 * Writes: worker.tx_runs (out: a burst that goes whole to port_tx, all to
 * one port, is recorded as one run, as the fused nodes record theirs).
 * With several workers, on an interface whose ACL records flows, a packet
 * whose flow another worker owns is first handed to it (acl.h).
 *
 * Drops: acl/denied, acl/no_match, acl/handoff_full, conntrack/table_full,
 *        and the reasons connection tracking gives (conntrack/invalid_rst,
 *        conntrack/out_of_window).
 * Counters: acl (permitted, denied, no_match, flow_hits, cache_hits,
 *           cache_misses, handoff_out, handoff_full, fused), per-rule hits,
 *           conntrack (created, expired, table_full, hits, related,
 *           invalid_rst).
 */
#include <netinet/in.h>

#include <rte_acl.h>
#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_prefetch.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_tcp.h>

#include "core/arc.h"
#include "core/counters.h"
#include "core/node.h"
#include "modules/acl/acl.h"
#include "modules/acl/symhash.h"
#include "modules/infra/handoff.h"
#include "modules/ip/ip.h"
#include "modules/ip/ip_node.h"

#if defined(RTE_ARCH_X86) && defined(__SSE4_1__)
#include <smmintrin.h>
#define ACL_PAIR_SSE 1
#else
#define ACL_PAIR_SSE 0
#endif

enum acl_next {
	ACL_NEXT_DROP,
	ACL_NEXT_TX, /* acl_in4: packets whose output ACL it decided too */
	ACL_NEXT_MAX,
};

NFV_DROP_REASON(drop_acl_denied, "acl", "denied", "a deny rule of the attached ACL matched");
NFV_DROP_REASON(drop_acl_no_match, "acl", "no_match",
	"no rule of the attached ACL matched (the default action is deny)");
NFV_DROP_REASON(drop_acl_handoff_full, "acl", "handoff_full",
	"the ring to the worker that owns the packet's flow was full");
NFV_DROP_REASON(drop_ct_full, "conntrack", "table_full",
	"a reflect rule matched but the connection table is full (conntrack set max)");

static struct nfv_arc_feature acl_in4_feature = {
	.arc_name = "ip4_ingress", .node = "nfv_acl_in4",
	.keeps_route = true, /* reads the 5-tuple (and TCP state) only */
};
static struct nfv_arc_feature acl_in6_feature = {
	.arc_name = "ip6_ingress", .node = "nfv_acl_in6",
	.keeps_route = true,
};
static struct nfv_arc_feature acl_out4_feature = {
	.arc_name = "ip4_egress", .node = "nfv_acl_out4", .runs_before = "nfv_vlan_output4",
};
static struct nfv_arc_feature acl_out6_feature = {
	.arc_name = "ip6_egress", .node = "nfv_acl_out6", .runs_before = "nfv_vlan_output6",
};
NFV_ARC_FEATURE_REGISTER(acl_in4_feature);
NFV_ARC_FEATURE_REGISTER(acl_in6_feature);
NFV_ARC_FEATURE_REGISTER(acl_out4_feature);
NFV_ARC_FEATURE_REGISTER(acl_out6_feature);

/* The window scale option of a SYN (0xff: none). */
static uint8_t
tcp_wscale(const struct rte_mbuf *m, uint32_t off, unsigned int hlen)
{
	uint8_t buf[40];
	const uint8_t *o;

	if (hlen <= 20 || (o = rte_pktmbuf_read(m, off + 20, hlen - 20, buf)) == NULL)
		return 0xff;
	for (unsigned int i = 0; i < hlen - 20;) {
		if (o[i] == 0)
			break;
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (i + 1 >= hlen - 20 || o[i + 1] < 2)
			break;
		if (o[i] == 3 && o[i + 1] == 3 && i + 2 < hlen - 20)
			return o[i + 2];
		i += o[i + 1];
	}
	return 0xff;
}

/* The TCP header's flags, sequence, acknowledgment, window (and a SYN's
 * window scale); false when the packet is too short for them. */
static __rte_always_inline bool
tcp_read(const struct rte_mbuf *m, uint32_t off, struct nfv_ct_pkt *p)
{
	uint8_t buf[20];
	const struct rte_tcp_hdr *t = rte_pktmbuf_read(m, off, sizeof(*t), buf);

	if (t == NULL)
		return false;
	p->tcp_flags = t->tcp_flags;
	p->seq = rte_be_to_cpu_32(t->sent_seq);
	p->ack = rte_be_to_cpu_32(t->recv_ack);
	p->win = rte_be_to_cpu_16(t->rx_win);
	p->wscale = t->tcp_flags & RTE_TCP_SYN_FLAG ? tcp_wscale(m, off, (t->data_off >> 4) * 4u) :
						     0xff;
	p->seglen = nfv_ct_tcp_seglen(m, off, t->data_off);
	return true;
}

/* The ports (or ICMP type and code) at off; l4 stays 0 when the packet is
 * too short to hold them. */
static __rte_always_inline void
l4_read(const struct rte_mbuf *m, uint32_t off, uint8_t proto, rte_be16_t *sport,
	rte_be16_t *dport, rte_be32_t *l4, struct nfv_ct_pkt *p)
{
	uint8_t buf[14];
	const uint8_t *h;

	switch (proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_SCTP:
		h = rte_pktmbuf_read(m, off, 4, buf);
		if (h == NULL)
			return;
		memcpy(sport, h, 2);
		memcpy(dport, h + 2, 2);
		if (proto == IPPROTO_TCP && !tcp_read(m, off, p))
			break; /* no flags: not tracked */
		p->trackable = 1;
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		h = rte_pktmbuf_read(m, off, 4, buf);
		if (h == NULL)
			return;
		*sport = rte_cpu_to_be_16(h[0]);
		*dport = rte_cpu_to_be_16(h[1]);
		if (proto == IPPROTO_ICMP ? (h[0] == 3 || h[0] == 11 || h[0] == 12) :
		    (h[0] >= 1 && h[0] <= 4)) {
			p->related = 1; /* unreachable, time exceeded, parameter (too big) */
			p->l4_off = (uint16_t)off;
		}
		if (h[1] == 0 && (proto == IPPROTO_ICMP ? (h[0] == 8 || h[0] == 0) :
				  (h[0] == 128 || h[0] == 129))) {
			uint8_t echo = h[0] == 8 || h[0] == 128 ? 1 : 2; /* request, reply */

			h = rte_pktmbuf_read(m, off + 4, 2, buf);
			if (h != NULL) {
				memcpy(&p->icmp_id, h, 2);
				p->icmp_echo = echo;
				p->trackable = 1;
			}
		}
		break;
	default:
		p->trackable = 1; /* tracked by addresses and protocol */
		return;
	}
	*l4 = RTE_BE32(1);
}

static __rte_always_inline void
key4_build(const struct rte_mbuf *m, struct nfv_acl4_key *k, struct nfv_ct_pkt *p)
{
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, NFV_L2_LEN);

	memset(k, 0, sizeof(*k));
	memset(p, 0, sizeof(*p));
	k->proto = ip->next_proto_id;
	k->src = ip->src_addr;
	k->dst = ip->dst_addr;
	if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK))
		return; /* a non-first fragment: no L4 header */
	l4_read(m, NFV_L2_LEN + rte_ipv4_hdr_len(ip), k->proto, &k->sport, &k->dport, &k->l4, p);
}

/* The usual case in a few loads: a 20-byte header without options, not a
 * fragment, TCP or UDP with its ports (and TCP flags) in the first segment. */
static __rte_always_inline void
key4_build_fast(const struct rte_mbuf *m, struct nfv_acl4_key *k, struct nfv_ct_pkt *p)
{
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, NFV_L2_LEN);
	uint8_t proto = ip->next_proto_id;
	uint32_t need = NFV_L2_LEN + sizeof(*ip) + (proto == IPPROTO_TCP ? 20 : 4);

	if (likely(ip->version_ihl == 0x45 && m->data_len >= need &&
		   (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) == 0 &&
		   (proto == IPPROTO_UDP || proto == IPPROTO_TCP))) {
		const uint8_t *l4 = (const uint8_t *)(ip + 1);
		uint32_t w0 = proto;

		memcpy(k, &w0, 4);
		memcpy(&k->src, &ip->src_addr, 8);
		memcpy(&k->sport, l4, 4);
		k->l4 = RTE_BE32(1);
		memset(p, 0, sizeof(*p));
		p->trackable = 1;
		if (proto == IPPROTO_TCP)
			tcp_read(m, NFV_L2_LEN + sizeof(*ip), p);
		return;
	}
	key4_build(m, k, p);
}

/*
 * The upper-layer protocol of an IPv6 packet whose extension headers (or
 * upper-layer header) start at *off with next header nh: hop-by-hop,
 * routing, destination options and fragment headers followed, at most
 * eight. *off is left at the upper-layer header. Returns
 * NFV_IP6_UPPER_OK, NFV_IP6_UPPER_LATER (a non-first fragment: no
 * upper-layer header in it) or NFV_IP6_UPPER_CUT (headers cut short or too
 * many); *proto is the last next header read in every case.
 */
enum { NFV_IP6_UPPER_OK, NFV_IP6_UPPER_LATER, NFV_IP6_UPPER_CUT };

static __rte_always_inline int
ip6_upper(const struct rte_mbuf *m, uint32_t *off, uint8_t nh, uint8_t *proto)
{
	uint8_t buf[8];

	for (unsigned int i = 0; i < 8; i++) {
		const uint8_t *h;

		*proto = nh;
		if (nh == IPPROTO_HOPOPTS || nh == IPPROTO_ROUTING || nh == IPPROTO_DSTOPTS) {
			h = rte_pktmbuf_read(m, *off, 2, buf);
			if (h == NULL)
				return NFV_IP6_UPPER_CUT;
			nh = h[0];
			*off += ((uint32_t)h[1] + 1) * 8;
		} else if (nh == IPPROTO_FRAGMENT) {
			h = rte_pktmbuf_read(m, *off, 4, buf);
			if (h == NULL)
				return NFV_IP6_UPPER_CUT;
			nh = h[0];
			*off += 8;
			if (((h[2] << 8 | h[3]) & 0xfff8) != 0) {
				*proto = nh;
				return NFV_IP6_UPPER_LATER;
			}
		} else {
			return NFV_IP6_UPPER_OK;
		}
	}
	*proto = nh;
	return NFV_IP6_UPPER_CUT;
}

static __rte_always_inline void
key6_build(const struct rte_mbuf *m, struct nfv_acl6_key *k, struct nfv_ct_pkt *p)
{
	const struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, NFV_L2_LEN);
	uint32_t off = NFV_L2_LEN + sizeof(*ip);

	memset(k, 0, sizeof(*k));
	memset(p, 0, sizeof(*p));
	memcpy(k->src, ip->src_addr, 16);
	memcpy(k->dst, ip->dst_addr, 16);
	/* A non-first fragment, or headers cut short: the protocol, no ports. */
	if (ip6_upper(m, &off, ip->proto, &k->proto) == NFV_IP6_UPPER_OK)
		l4_read(m, off, k->proto, &k->sport, &k->dport, &k->l4, p);
}

static __rte_always_inline void
ct_key_build(struct nfv_ct_key *ck, const void *key, const struct nfv_ct_pkt *p,
	     uint16_t iface, const unsigned int fam)
{
	memset(ck, 0, sizeof(*ck));
	ck->iface = iface;
	if (fam == 0) {
		const struct nfv_acl4_key *k = key;

		ck->family = AF_INET;
		ck->proto = k->proto;
		ck->sport = k->sport;
		ck->dport = k->dport;
		memcpy(ck->src, &k->src, 4);
		memcpy(ck->dst, &k->dst, 4);
	} else {
		const struct nfv_acl6_key *k = key;

		ck->family = AF_INET6;
		ck->proto = k->proto;
		ck->sport = k->sport;
		ck->dport = k->dport;
		memcpy(ck->src, k->src, 16);
		memcpy(ck->dst, k->dst, 16);
	}
	if (p->icmp_echo) {
		/* Request and reply carry the same identifier. */
		ck->sport = p->icmp_id;
		ck->dport = p->icmp_id;
	}
}

/* The connection key of the flow an ICMP error is about: the header it
 * carries (addresses, protocol past IPv6 extension headers, ports or echo
 * identifier), on iface. false when that header is cut short or is a
 * non-first fragment. */
static bool
ct_key_related(const struct rte_mbuf *m, const struct nfv_ct_pkt *p, uint16_t iface,
	       const unsigned int fam, struct nfv_ct_key *ck)
{
	uint32_t off = p->l4_off + 8u, l4;
	uint8_t buf[40], pb[8];
	const uint8_t *h;
	uint8_t proto;

	memset(ck, 0, sizeof(*ck));
	ck->iface = iface;
	if (fam == 0) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_read(m, off, sizeof(*ip), buf);

		if (ip == NULL || (ip->version_ihl >> 4) != 4 || (ip->version_ihl & 0xf) < 5 ||
		    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)))
			return false;
		ck->family = AF_INET;
		proto = ip->next_proto_id;
		memcpy(ck->src, &ip->src_addr, 4);
		memcpy(ck->dst, &ip->dst_addr, 4);
		l4 = off + rte_ipv4_hdr_len(ip);
	} else {
		const struct rte_ipv6_hdr *ip = rte_pktmbuf_read(m, off, sizeof(*ip), buf);

		if (ip == NULL || (rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)
			return false;
		ck->family = AF_INET6;
		memcpy(ck->src, ip->src_addr, 16);
		memcpy(ck->dst, ip->dst_addr, 16);
		/* Through its extension headers, as key6_build does. */
		l4 = off + sizeof(*ip);
		if (ip6_upper(m, &l4, ip->proto, &proto) != NFV_IP6_UPPER_OK)
			return false;
	}
	ck->proto = proto;
	switch (proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_SCTP:
		h = rte_pktmbuf_read(m, l4, 4, pb);
		if (h == NULL)
			return false;
		memcpy(&ck->sport, h, 2);
		memcpy(&ck->dport, h + 2, 2);
		return true;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		h = rte_pktmbuf_read(m, l4, 6, pb);
		if (h == NULL || h[1] != 0 || !(proto == IPPROTO_ICMP ? (h[0] == 8 || h[0] == 0) :
						  (h[0] == 128 || h[0] == 129)))
			return false;
		memcpy(&ck->sport, h + 4, 2);
		memcpy(&ck->dport, h + 4, 2);
		return true;
	default:
		return true; /* addresses and protocol */
	}
}

/* ---- worker handoff ---- */

static __rte_always_inline bool
icmp4_error(uint8_t type)
{
	return type == 3 || type == 11 || type == 12; /* unreachable, time exceeded, parameter */
}

static __rte_always_inline bool
icmp6_error(uint8_t type)
{
	return type >= 1 && type <= 4;
}

/* The symmetric hash of the IPv4 (fam 0) or IPv6 packet at off: addresses,
 * and the ports of TCP and UDP unless it is a non-first fragment (a first
 * fragment has its ports and belongs with its flow, where a NIC would hash
 * it by addresses; later fragments are not tracked). IPv6: the ports only
 * when TCP or UDP follows the fixed header (as a NIC without the
 * extension-header hash). An ICMP error is hashed by the header it carries
 * (the flow it is about); inner: that header. */
static uint32_t
flow_hash(const struct rte_mbuf *m, uint32_t off, const unsigned int fam, bool inner)
{
	uint8_t buf[sizeof(struct rte_ipv6_hdr)], pb[4];
	const uint8_t *h, *src, *dst;
	rte_be16_t p[2] = { 0, 0 };
	bool ports = false, frag = false;
	uint8_t proto, icmp;
	uint32_t l4;

	if (fam == 0) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_read(m, off, sizeof(*ip), buf);

		if (ip == NULL)
			return 0;
		l4 = off + rte_ipv4_hdr_len(ip);
		proto = ip->next_proto_id;
		frag = (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) != 0;
		src = (const uint8_t *)&ip->src_addr;
		dst = (const uint8_t *)&ip->dst_addr;
		icmp = IPPROTO_ICMP;
	} else {
		const struct rte_ipv6_hdr *ip = rte_pktmbuf_read(m, off, sizeof(*ip), buf);

		if (ip == NULL)
			return 0;
		l4 = off + sizeof(*ip);
		proto = ip->proto;
		src = ip->src_addr;
		dst = ip->dst_addr;
		icmp = IPPROTO_ICMPV6;
	}
	if (!frag && (proto == IPPROTO_TCP || proto == IPPROTO_UDP)) {
		h = rte_pktmbuf_read(m, l4, 4, pb);
		if (h != NULL) {
			memcpy(p, h, 4);
			ports = true;
		}
	} else if (!frag && !inner && proto == icmp) {
		h = rte_pktmbuf_read(m, l4, 1, pb);
		if (h != NULL && (fam == 0 ? icmp4_error(h[0]) : icmp6_error(h[0])) &&
		    rte_pktmbuf_read(m, l4 + 8, 1, pb) != NULL)
			return flow_hash(m, l4 + 8, fam, true);
	}
	if (fam == 0) {
		rte_be32_t s4, d4;

		memcpy(&s4, src, 4);
		memcpy(&d4, dst, 4);
		return nfv_symhash4(s4, d4, p[0], p[1], ports);
	}
	return nfv_symhash6(src, dst, p[0], p[1], ports);
}

uint8_t nfv_acl_handoff_on[NFV_IFACE_MAX];
uint8_t nfv_acl_handoff_any;

/* Where a handed packet goes back in at its owner: the node it left,
 * [family | direction << 1]. */
NFV_HANDOFF_DEFINE(acl_handoff_in4, "nfv_acl_in4", nfv_acl_counters_block,
		   struct nfv_acl_counters);
NFV_HANDOFF_DEFINE(acl_handoff_in6, "nfv_acl_in6", nfv_acl_counters_block,
		   struct nfv_acl_counters);
NFV_HANDOFF_DEFINE(acl_handoff_out4, "nfv_acl_out4", nfv_acl_counters_block,
		   struct nfv_acl_counters);
NFV_HANDOFF_DEFINE(acl_handoff_out6, "nfv_acl_out6", nfv_acl_counters_block,
		   struct nfv_acl_counters);
static const struct nfv_handoff *const acl_handoffs[4] = {
	&acl_handoff_in4, &acl_handoff_in6, &acl_handoff_out4, &acl_handoff_out6,
};

/* Hands the packets of flows other workers own to them; keeps the others
 * (compacted at the front of pkts, the node's stream) and returns how
 * many. */
static __rte_noinline uint16_t
acl_handoff(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
	    struct rte_mbuf **pkts, uint16_t n, const unsigned int fam, const enum nfv_acl_dir dir)
{
	uint16_t owner[RTE_GRAPH_BURST_SIZE], no = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t iface = dir == NFV_ACL_IN ? m->port : nfv_meta(m)->tx_port;
		uint32_t o;

		owner[i] = NFV_HANDOFF_KEEP;
		if (iface >= NFV_IFACE_MAX || !nfv_acl_handoff_on[iface])
			continue;
		o = flow_hash(m, NFV_L2_LEN, fam, false) % nfv_n_workers;
		if (o != w->index) {
			owner[i] = (uint16_t)o;
			no++;
		}
	}
	if (no == 0)
		return n;
	return nfv_handoff_take(graph, node, w, acl_handoffs[fam | (unsigned int)dir << 1],
				(void **)pkts, owner, n, ACL_NEXT_DROP, drop_acl_handoff_full.id);
}

/* ---- decision cache ---- */

/* The second word's flags: the key has L4 fields; they are the packet's
 * first four L4 bytes as they are (TCP, UDP and SCTP ports: what the
 * one-pass loop reads without looking at the protocol). */
#define CACHE4_HAS_L4 (UINT64_C(1) << 8)
#define CACHE4_RAW_PORTS (UINT64_C(1) << 9)

/* A key's protocol, the flags above and its ports (sport, dport as they
 * sit in memory) in one word. */
static __rte_always_inline uint64_t
cache_b_word(uint8_t proto, rte_be32_t l4, const rte_be16_t *sport)
{
	uint32_t ports;
	bool raw = l4 != 0 && (proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
			       proto == IPPROTO_SCTP);

	memcpy(&ports, sport, 4);
	return (uint64_t)proto | (l4 != 0 ? CACHE4_HAS_L4 : 0) | (raw ? CACHE4_RAW_PORTS : 0) |
	       (uint64_t)ports << 32;
}

/* An IPv4 key as the cache holds it: the addresses; the protocol, the
 * flags above and the ports. */
static __rte_always_inline void
cache4_words(const void *key, uint64_t *a, uint64_t *b)
{
	const struct nfv_acl4_key *k = key;

	memcpy(a, &k->src, 8);
	*b = cache_b_word(k->proto, k->l4, &k->sport);
}

/*
 * The set of an IPv4 key (its two words) under gen_mix, cache4_gen_mix() of
 * the version's gen: the top bits of a sum of products (cache4_h0), which
 * depend on every bit of the key (two multiplies where two crc32 calls
 * took fourteen instructions). The set only spreads the keys: a hit
 * compares the whole key and the gen.
 */
static __rte_always_inline uint64_t
cache4_gen_mix(uint64_t gen)
{
	return gen * 0xd6e8feb86659fd93ull;
}

static __rte_always_inline uint64_t
cache4_h0(uint64_t ka, uint64_t kb)
{
	return (ka * 0x9e3779b97f4a7c15ull) ^ (kb * 0xc2b2ae3d27d4eb4full);
}

/* The set of a key's cache4_h0() under gen_mix. */
static __rte_always_inline uint32_t
cache4_set_h(uint64_t h0, uint64_t gen_mix)
{
	return (uint32_t)((h0 ^ gen_mix) >> (64 - __builtin_ctz(NFV_ACL_CACHE_SETS))) *
	       NFV_ACL_CACHE_WAYS;
}

static __rte_always_inline uint32_t
cache4_set(uint64_t ka, uint64_t kb, uint64_t gen_mix)
{
	return cache4_set_h(cache4_h0(ka, kb), gen_mix);
}

/* The hash of an IPv6 key before its version's gen_mix: its addresses in
 * four words (s0, s1: source; d0, d1: destination), and its b word
 * (cache_b_word), the same way. */
static __rte_always_inline uint64_t
cache6_h0(uint64_t s0, uint64_t s1, uint64_t d0, uint64_t d1, uint64_t kb)
{
	return (s0 * 0x9e3779b97f4a7c15ull) ^ (s1 * 0xbf58476d1ce4e5b9ull) ^
	       (d0 * 0x94d049bb133111ebull) ^ (d1 * 0xff51afd7ed558ccdull) ^
	       (kb * 0xc2b2ae3d27d4eb4full);
}

/* The set of an IPv6 key's cache6_h0() under gen_mix (as cache4_set_h). */
static __rte_always_inline uint32_t
cache6_set_h(uint64_t h0, uint64_t gen_mix)
{
	return cache4_set_h(h0, gen_mix);
}

static __rte_always_inline uint32_t
cache6_set(uint64_t s0, uint64_t s1, uint64_t d0, uint64_t d1, uint64_t kb, uint64_t gen_mix)
{
	return cache6_set_h(cache6_h0(s0, s1, d0, d1, kb), gen_mix);
}

static __rte_always_inline void *
cache_set(const struct nfv_acl_cache *dc, const void *key, uint64_t gen, const unsigned int fam)
{
	if (fam == 0) {
		uint64_t ka, kb;

		cache4_words(key, &ka, &kb);
		return &dc->v4[cache4_set(ka, kb, cache4_gen_mix(gen))];
	}
	const struct nfv_acl6_key *k = key;
	uint64_t w[4];

	memcpy(w, k->src, 32);
	return &dc->v6[cache6_set(w[0], w[1], w[2], w[3], cache_b_word(k->proto, k->l4, &k->sport),
				  cache4_gen_mix(gen))];
}

/* The cached result of key under version gen in set e; false: not cached. */
static __rte_always_inline bool
cache_get(const void *e, const void *key, uint64_t gen, uint32_t *res, const unsigned int fam)
{
	for (unsigned int w = 0; w < NFV_ACL_CACHE_WAYS; w++) {
		if (fam == 0) {
			const struct nfv_acl_cache4_entry *c =
				&((const struct nfv_acl_cache4_entry *)e)[w];
			uint64_t ka, kb;

			cache4_words(key, &ka, &kb);
			if (((c->a ^ ka) | (c->b ^ kb) | (c->gen ^ gen)) == 0) {
				*res = c->res;
				return true;
			}
		} else {
			const struct nfv_acl_cache6_entry *c =
				&((const struct nfv_acl_cache6_entry *)e)[w];

			if (c->gen == gen && memcmp(&c->key, key, sizeof(c->key)) == 0) {
				*res = c->res;
				return true;
			}
		}
	}
	return false;
}

/* Inserts in way 0, the others move down a way and the last one goes
 * (unless the key is there: two packets of one new flow in a burst). */
static __rte_always_inline void
cache_put(void *e, const void *key, uint64_t gen, uint32_t res, const unsigned int fam)
{
	uint32_t old;

	if (cache_get(e, key, gen, &old, fam))
		return;
	if (fam == 0) {
		struct nfv_acl_cache4_entry *c = e;

		for (unsigned int w = NFV_ACL_CACHE_WAYS - 1; w > 0; w--)
			c[w] = c[w - 1];
		cache4_words(key, &c[0].a, &c[0].b);
		c[0].res = res;
		c[0].gen = gen;
	} else {
		struct nfv_acl_cache6_entry *c = e;

		for (unsigned int w = NFV_ACL_CACHE_WAYS - 1; w > 0; w--)
			c[w] = c[w - 1];
		memcpy(&c[0].key, key, sizeof(c[0].key));
		c[0].res = res;
		c[0].gen = gen;
	}
}

struct acl_scratch {
	union {
		struct nfv_acl4_key k4[RTE_GRAPH_BURST_SIZE];
		struct nfv_acl6_key k6[RTE_GRAPH_BURST_SIZE];
	};
	struct nfv_ct_pkt cp[RTE_GRAPH_BURST_SIZE];
	const struct nfv_acl_compiled *comp[RTE_GRAPH_BURST_SIZE];
	const uint8_t *data[RTE_GRAPH_BURST_SIZE];
	uint32_t res[RTE_GRAPH_BURST_SIZE];
	uint32_t pres[RTE_GRAPH_BURST_SIZE];  /* per packet: the rte_acl result */
	void *set[RTE_GRAPH_BURST_SIZE];      /* per packet: its cache set */
	uint16_t miss[RTE_GRAPH_BURST_SIZE];
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint16_t ifaces[RTE_GRAPH_BURST_SIZE];
	uint16_t todo[RTE_GRAPH_BURST_SIZE];
	uint16_t batch[RTE_GRAPH_BURST_SIZE];
	/* Connection table lookups, in bulk. */
	struct nfv_ct_key ck[RTE_GRAPH_BURST_SIZE];
	const void *ckp[RTE_GRAPH_BURST_SIZE];
	void *ctdata[RTE_GRAPH_BURST_SIZE];
	uint16_t lk[RTE_GRAPH_BURST_SIZE];
};

/* What acl_fast holds for an interface whose ACL went while the burst was
 * on its way: a version no cache entry has (gens count from 1), so its
 * packets take the general path, which lets them pass. */
static const struct nfv_acl_compiled acl_detached = { .gen = UINT64_MAX };

/* The bytes of a packet acl_fast reads in its first segment: the
 * Ethernet and IP headers and the ports. */
#define ACL_FAST4_NEED (NFV_L2_LEN + sizeof(struct rte_ipv4_hdr) + 4)
#define ACL_FAST6_NEED (NFV_L2_LEN + sizeof(struct rte_ipv6_hdr) + 4)

#if ACL_PAIR_SSE
/* Whether way e of an IPv6 set holds the key whose addresses are src and
 * dst (as in the packet, a 16-byte register each), whose first four bytes
 * are proto (protocol and padding) and whose tail is the ports, then l4 =
 * 1, under version gen: two 16-byte compares and three words. */
static __rte_always_inline bool
cache6_is_sse(const struct nfv_acl_cache6_entry *e, uint32_t proto, __m128i src, __m128i dst,
	      uint64_t tail, uint64_t gen)
{
	const uint8_t *b = (const uint8_t *)&e->key;
	__m128i d = _mm_or_si128(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(b + 4)), src),
				 _mm_xor_si128(_mm_loadu_si128((const __m128i *)(b + 20)), dst));
	uint64_t t;
	uint32_t p;

	memcpy(&p, b, 4);
	memcpy(&t, b + 36, 8);
	return _mm_testz_si128(d, d) & (((uint64_t)(p ^ proto) | (t ^ tail) | (e->gen ^ gen)) == 0);
}
#define CACHE6_IS(e, gen) cache6_is_sse(e, proto, src6, dst6, tail, gen)
#else
/* Way e of an IPv6 set holds the key whose words are proto (the first
 * four bytes: protocol and padding), s0, s1, d0, d1 (the addresses) and
 * tail (the ports, then l4 = 1), under version gen. */
static __rte_always_inline bool
cache6_is(const struct nfv_acl_cache6_entry *e, uint32_t proto, uint64_t s0, uint64_t s1,
	  uint64_t d0, uint64_t d1, uint64_t tail, uint64_t gen)
{
	const uint8_t *b = (const uint8_t *)&e->key;
	uint64_t w[5];
	uint32_t p;

	memcpy(&p, b, 4);
	memcpy(w, b + 4, 40);
	return ((uint64_t)(p ^ proto) | (w[0] ^ s0) | (w[1] ^ s1) | (w[2] ^ d0) | (w[3] ^ d1) |
		(w[4] ^ tail) | (e->gen ^ gen)) == 0;
}
#define CACHE6_IS(e, gen) cache6_is(e, proto, s0, s1, d0, d1, tail, gen)
#endif

/*
 * The output ACL decided in the input node. A packet ip4_fast routed before
 * the ingress features (meta: NFV_META_ROUTED, the interface's route gen)
 * whose input ACL is its interface's last ingress feature and whose output
 * interface's only egress feature is its output ACL would go from here to
 * ip4_lookup (which only sends it on by meta.tx_port), then acl_out4, then
 * port_tx. When both ACLs permit it from their decision caches, this node
 * sends it to port_tx itself: one probe of the pair cache (acl.h) decides
 * both, else a probe of the output ACL's cache after the input one's; a
 * pair both permit is then cached. Every other packet (a miss, a deny, a
 * reflect rule, other features) takes the usual way, where acl_out4
 * decides it. Counters and per-rule hits are those the two nodes would
 * count; acl "fused" counts the packets. IPv6 (acl_in6, to ip6_lookup and
 * acl_out6) likewise, with its own pair cache (struct nfv_acl_pair6_entry:
 * the addresses as in the packet, the ports and protocol in one word).
 */
struct acl_fused {
	const struct nfv_acl_cache *out; /* the worker's output caches */
	uint32_t n;                      /* packets sent to port_tx */
	uint16_t tx;                     /* the first routed one's port (UINT16_MAX: none) */
	bool one_tx;                     /* every routed one to that port */
};

extern struct nfv_arc_entry nfv_ip4_lookup_egress_entry; /* modules/ip */
extern struct nfv_arc_entry nfv_ip6_lookup_egress_entry; /* modules/ip6 */

/* The output ACL of interface tx (fam 0: IPv4, 1: IPv6) when it is that
 * interface's only egress feature, else NULL. */
static __rte_always_inline const struct nfv_acl_compiled *
acl_fused_out(uint16_t tx, const unsigned int fam)
{
	const struct nfv_arc_entry *e = fam == 0 ? &nfv_ip4_lookup_egress_entry :
						   &nfv_ip6_lookup_egress_entry;
	const struct nfv_arc_feature *o = fam == 0 ? &acl_out4_feature : &acl_out6_feature;
	const struct nfv_acl *acl;

	if (unlikely(tx >= NFV_IFACE_MAX) ||
	    nfv_arc_entry_edge(e, tx) != e->edge_to[o->index] ||
	    nfv_arc_next_edge(o, tx) != o->edge_to[o->arc->n_features])
		return NULL;
	acl = __atomic_load_n(&nfv_acl_bound[NFV_ACL_OUT][tx], __ATOMIC_ACQUIRE);
	return acl != NULL ? nfv_acl_active(acl) : NULL;
}

/* Whether the pair cache's way e holds key (ka, kb) under gens gi, go. */
static __rte_always_inline bool
pair_is(const struct nfv_acl_pair_entry *e, uint64_t ka, uint64_t kb, uint64_t gi, uint64_t go)
{
	return ((e->a ^ ka) | (e->b ^ kb) | (e->gen_in ^ gi) | (e->gen_out ^ go)) == 0;
}

/* Puts a pair in way 0 of set e, the others down a way. */
static __rte_always_inline void
pair_put(struct nfv_acl_pair_entry *e, uint64_t ka, uint64_t kb, uint64_t gi, uint64_t go,
	 uint64_t res)
{
	for (unsigned int w = 0; w < NFV_ACL_CACHE_WAYS; w++)
		if (pair_is(&e[w], ka, kb, gi, go))
			return; /* two packets of one new flow in a burst */
	for (unsigned int w = NFV_ACL_CACHE_WAYS - 1; w > 0; w--)
		e[w] = e[w - 1];
	e[0].a = ka;
	e[0].b = kb;
	e[0].gen_in = gi;
	e[0].gen_out = go;
	e[0].res = res;
}

/* The pair cache's set: gen_mix of both gens. */
static __rte_always_inline uint64_t
pair_gen_mix(uint64_t gi, uint64_t go)
{
	return cache4_gen_mix(gi) ^ (go * 0x9fb21c651e98df25ull);
}

/* The IPv6 pair cache's set of a key whose addresses' four words XOR-ed
 * are fold, whose tail is ptail (struct nfv_acl_pair6_entry), under
 * pair_mix: one multiply (the set only spreads the keys; a hit compares
 * all of it). */
static __rte_always_inline uint32_t
pair6_set(uint64_t fold, uint64_t ptail, uint64_t pair_mix)
{
	return cache4_set_h((fold ^ ptail) * 0x9e3779b97f4a7c15ull, pair_mix);
}

/* Whether the IPv6 pair cache's way e holds the key whose addresses are
 * s0, s1, d0, d1 (as loaded from the packet) and whose tail is ptail, under
 * gens gi, go. */
static __rte_always_inline bool
pair6_is(const struct nfv_acl_pair6_entry *e, uint64_t s0, uint64_t s1, uint64_t d0,
	 uint64_t d1, uint64_t ptail, uint64_t gi, uint64_t go)
{
	uint64_t w[4];

	memcpy(w, e->src, sizeof(w));
	return ((w[0] ^ s0) | (w[1] ^ s1) | (w[2] ^ d0) | (w[3] ^ d1) | (e->tail ^ ptail) |
		(e->gen_in ^ gi) | (e->gen_out ^ go)) == 0;
}

#if ACL_PAIR_SSE
/* pair6_is with the addresses and the two gens in a 16-byte register each. */
static __rte_always_inline bool
pair6_is_sse(const struct nfv_acl_pair6_entry *e, __m128i src, __m128i dst, __m128i gens,
	     uint64_t ptail)
{
	__m128i d = _mm_or_si128(_mm_xor_si128(_mm_load_si128((const __m128i *)e->src), src),
				 _mm_xor_si128(_mm_load_si128((const __m128i *)e->dst), dst));

	d = _mm_or_si128(d, _mm_xor_si128(_mm_load_si128((const __m128i *)&e->gen_in), gens));
	return _mm_testz_si128(d, d) & (e->tail == ptail);
}
#define PAIR6_IS(e) pair6_is_sse(e, src6, dst6, \
	_mm_set_epi64x((long long)gout, (long long)cgen), ptail)
#else
#define PAIR6_IS(e) pair6_is(e, s0, s1, d0, d1, ptail, cgen, gout)
#endif

/* pair_put for IPv6. */
static __rte_always_inline void
pair6_put(struct nfv_acl_pair6_entry *e, uint64_t s0, uint64_t s1, uint64_t d0, uint64_t d1,
	  uint64_t ptail, uint64_t gi, uint64_t go, uint64_t res)
{
	const uint64_t w[4] = { s0, s1, d0, d1 };

	for (unsigned int k = 0; k < NFV_ACL_CACHE_WAYS; k++)
		if (pair6_is(&e[k], s0, s1, d0, d1, ptail, gi, go))
			return; /* two packets of one new flow in a burst */
	for (unsigned int k = NFV_ACL_CACHE_WAYS - 1; k > 0; k--)
		e[k] = e[k - 1];
	memcpy(e[0].src, w, sizeof(w));
	e[0].tail = ptail;
	e[0].gen_in = gi;
	e[0].gen_out = go;
	e[0].res = res;
}

/*
 * A pair probe's answer pres (UINT64_MAX: not cached) against the run of
 * pair hits so far (its result prun_res, its length prun, its rules' hit
 * slots): true when the packet is decided by it, counted in the run (a new
 * run when its result is another; the old one's hits counted).
 */
static __rte_always_inline bool
pair_run_add(uint64_t pres, uint64_t *prun, uint64_t *prun_res, uint32_t *prun_in,
	     uint32_t *prun_out, uint64_t *hits, const struct nfv_acl_compiled *c,
	     const struct nfv_acl_compiled *co)
{
	if (likely(pres == *prun_res)) {
		(*prun)++;
		return true;
	}
	if (pres == UINT64_MAX)
		return false;
	if (*prun != 0) {
		hits[*prun_in] += *prun;
		hits[*prun_out] += *prun;
	}
	*prun_res = pres;
	*prun_in = c->rule[(uint32_t)pres - 1].slot;
	*prun_out = co->rule[(pres >> 32) - 1].slot;
	*prun = 1;
	return true;
}

/*
 * The decision cache on and, for IPv6, no tracked flow on this worker (the
 * common stateless case), one pass: each packet's cache key is read
 * straight from its header (the addresses in one load, the ports in
 * another), hashed with two multiplies (cache4_set), its set probed and, on a
 * hit, the packet decided at once (permit, deny, no match). The probes of
 * successive packets do not depend on each other, so the CPU overlaps
 * them (a pass that computed and prefetched every set first cost 13 more
 * instructions a packet). The protocol is not looked at: the first four
 * L4 bytes go in the key as they are, which is the key of a TCP, UDP or
 * SCTP packet only (CACHE4_RAW_PORTS), so any other packet misses. IPv6
 * (fam 1): a TCP, UDP or SCTP header right after the fixed one, the
 * addresses in four words compared in place. What
 * this path does not finish (misses, reflect rules, headers it cannot
 * read in place) is listed in slow[] for the
 * general path; returns how many. Counters go to sum; nexts[] is set for
 * every packet.
 */
static __rte_always_inline uint16_t
acl_fast(struct rte_mbuf **pkts, uint16_t n, const enum nfv_acl_dir dir,
	 const struct nfv_arc_feature *f, const struct nfv_acl_cache *dc, uint64_t *hits,
	 uint16_t *nexts, uint16_t *slow, struct nfv_acl_counters *sum,
	 struct nfv_ct_table *ct, struct nfv_ct_counters *cc, uint64_t now, const bool ct_on,
	 bool *uniform, const unsigned int fam, struct acl_fused *fz)
{
	uint16_t last_iface = UINT16_MAX, last_next = 0, ns = 0;
	const struct nfv_acl_compiled *c = NULL;
	/* Packets decided here by neither cache (dropped by the connection
	 * table, or passed untracked when the ACL went): with ns and nflow,
	 * what is not a cache hit. */
	uint32_t nother = 0, nflow = 0, nudp = 0, ndeny = 0, nnomatch = 0, odd = 0, nhit;
	/* A run of hits on one permit rule is counted once at its end
	 * (run_res: that rule's result; RUN_NONE matches no lookup's). */
	const uint32_t RUN_NONE = UINT32_MAX - 1;
	uint32_t run_res = RUN_NONE, run_slot = 0;
	uint64_t run = 0, cgen = 0, gen_mix = 0;
	/* Version 4 with a 20-byte header, not a non-first fragment: the
	 * header's first 8 bytes but the TOS, length, id and flags. */
	const uint8_t want_bytes[8] = { 0x45, 0, 0, 0, 0, 0, 0, 0 };
	const uint8_t mask_bytes[8] = { 0xff, 0, 0, 0, 0, 0, 0x1f, 0xff };
	uint64_t want, mask;
	/* The cache's entries in a register: the stores of the loop (nexts[],
	 * hits[]) could alias dc->v4 for the compiler, which would reload it
	 * for every packet. */
	const struct nfv_acl_cache4_entry *v4 = dc->v4;
	const struct nfv_acl_cache6_entry *v6 = dc->v6;
	/* The output ACL in this node (fz): in_ok while the interface's ACL
	 * is its last ingress feature; the packet's route gen must be rgen,
	 * the second word of its metadata but tx_port routed_w1. The output
	 * ACL (co, gen gout) of the last output interface; a run of pair hits
	 * with one result (prun_res) counted at its end. */
	const bool reroute = fz != NULL && __atomic_load_n(&nfv_ip_reroute_all,
							   __ATOMIC_RELAXED);
	const uint64_t routed_w1 = (uint64_t)NFV_META_ROUTED << 32;
	const struct nfv_acl_compiled *co = NULL;
	struct nfv_acl_pair_entry *pv = fz != NULL ? dc->pair : NULL;
	struct nfv_acl_pair_entry *pset = NULL;
	struct nfv_acl_pair6_entry *pv6 = fz != NULL ? dc->pair6 : NULL;
	struct nfv_acl_pair6_entry *pset6 = NULL;
	bool in_ok = false, pair_try = false;
	uint16_t last_tx = UINT16_MAX;
	uint32_t rgen = 0, nfused = 0, prun_in = 0, prun_out = 0;
	uint64_t gout = 0, pair_mix = 0, out_mix = 0, prun = 0, prun_res = 0, h0 = 0;
	struct nfv_mbuf_meta *meta = NULL;

	memcpy(&want, want_bytes, sizeof(want));
	memcpy(&mask, mask_bytes, sizeof(mask));
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t iface = dir == NFV_ACL_IN ? m->port : nfv_meta(m)->tx_port;
		const struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, NFV_L2_LEN);
		uint8_t proto = ip->next_proto_id;
		uint64_t w0;
		uint32_t ports;
		uint32_t res = UINT32_MAX;
		const struct nfv_acl_cache4_entry *e;
		const struct nfv_acl_compiled_rule *r;
		uint64_t ka, kb, s0 = 0, s1 = 0, d0 = 0, d1 = 0, tail = 0, ptail = 0;
#if ACL_PAIR_SSE
		__m128i src6 = _mm_setzero_si128(), dst6 = _mm_setzero_si128();
#endif
		bool routed;

		pair_try = false;
		if (unlikely(iface != last_iface)) {
			const struct nfv_acl *acl = __atomic_load_n(&nfv_acl_bound[dir][iface],
								    __ATOMIC_ACQUIRE);

			last_iface = iface;
			last_next = nfv_arc_next_edge(f, iface);
			c = acl != NULL ? nfv_acl_active(acl) : NULL;
			if (c == NULL)
				c = &acl_detached;
			cgen = c->gen;
			gen_mix = cache4_gen_mix(cgen);
			if (run != 0)
				hits[run_slot] += run; /* the slot was of the old version */
			run = 0;
			run_res = RUN_NONE;
			odd++;
			if (fz != NULL) {
				in_ok = (fam == 1 ? pv6 != NULL : pv != NULL) && !reroute &&
					c != &acl_detached &&
					last_next == f->edge_to[f->arc->n_features];
				rgen = nfv_arc_route_gen(f->arc, iface);
				last_tx = UINT16_MAX; /* the pair gens again */
			}
		}
		nexts[i] = last_next;
		if (ct_on && unlikely(c == &acl_detached)) {
			nother++; /* detached while the packet was on its way */
			continue;
		}
		/* Routed by the fused node to an interface whose only egress
		 * feature is its output ACL (co): that ACL may be decided here. */
		routed = false;
		if (fz != NULL && in_ok) {
			uint64_t mw0, mw1;

			meta = nfv_meta(m);
			memcpy(&mw0, meta, sizeof(mw0));
			memcpy(&mw1, &meta->tx_port, sizeof(mw1));
			if (likely(((((uint32_t)mw0) ^ rgen) |
				    ((mw1 & ~UINT64_C(0xffff)) ^ routed_w1)) == 0)) {
				uint16_t tx = (uint16_t)mw1;

				if (unlikely(tx != last_tx)) {
					if (prun != 0) {
						hits[prun_in] += prun;
						hits[prun_out] += prun;
					}
					prun = 0;
					prun_res = 0; /* no pair's (an input result is not 0) */
					last_tx = tx;
					if (fz->tx == UINT16_MAX)
						fz->tx = tx;
					else if (tx != fz->tx)
						fz->one_tx = false;
					co = acl_fused_out(tx, fam);
					if (co != NULL) {
						gout = co->gen;
						pair_mix = pair_gen_mix(cgen, gout);
						out_mix = cache4_gen_mix(gout);
					}
				}
				routed = co != NULL;
			}
		}
		if (fam == 1) {
			const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)ip;
			const struct nfv_acl_cache6_entry *e6;

			proto = ip6->proto;
			if (unlikely(!(proto == IPPROTO_UDP || proto == IPPROTO_TCP ||
				       proto == IPPROTO_SCTP) | (m->data_len < ACL_FAST6_NEED))) {
				slow[ns++] = i;
				continue;
			}
			memcpy(&s0, ip6->src_addr, 8);
			memcpy(&s1, ip6->src_addr + 8, 8);
			memcpy(&d0, ip6->dst_addr, 8);
			memcpy(&d1, ip6->dst_addr + 8, 8);
			memcpy(&ports, ip6 + 1, 4);
			kb = (uint64_t)proto | CACHE4_HAS_L4 | CACHE4_RAW_PORTS | (uint64_t)ports << 32;
			tail = (uint64_t)ports | (uint64_t)RTE_BE32(1) << 32;
#if ACL_PAIR_SSE
			src6 = _mm_loadu_si128((const __m128i *)ip6->src_addr);
			dst6 = _mm_loadu_si128((const __m128i *)ip6->dst_addr);
#endif
			h0 = cache6_h0(s0, s1, d0, d1, kb);
			ptail = (uint64_t)ports | (uint64_t)proto << 32;
			if (routed) {
				const struct nfv_acl_pair6_entry *pe;
				uint64_t pres = UINT64_MAX;

				pset6 = &pv6[pair6_set(s0 ^ s1 ^ d0 ^ d1, ptail, pair_mix)];
				pe = pset6;
				for (unsigned int w = 0; w < NFV_ACL_CACHE_WAYS; w++, pe++) {
					if (PAIR6_IS(pe)) {
						pres = pe->res;
						break;
					}
				}
				if (pair_run_add(pres, &prun, &prun_res, &prun_in, &prun_out, hits, c,
						 co))
					goto fused;
			}
			e6 = &v6[cache6_set_h(h0, gen_mix)];
			for (unsigned int w = 0; w < NFV_ACL_CACHE_WAYS; w++, e6++) {
				if (CACHE6_IS(e6, cgen)) {
					res = e6->res;
					break;
				}
			}
			/* Not in the pair cache: the output ACL's own, once the
			 * input one permits. */
			pair_try = routed;
			goto decided;
		}
		memcpy(&w0, ip, sizeof(w0));
		if (unlikely(((w0 & mask) != want) | (m->data_len < ACL_FAST4_NEED))) {
			slow[ns++] = i;
			continue;
		}
		memcpy(&ka, &ip->src_addr, 8);
		memcpy(&ports, ip + 1, 4);
		if (ct_on) {
			/* Tracked flows first: a packet of a flow the cache
			 * knows passes; any other goes to the general path,
			 * which looks the table up before the rules. */
			uint64_t cb = nfv_ct_cache_b(proto, iface, ports), ser = 0;
			const struct nfv_ct_cache_entry *ce =
				&ct->cache[(rte_hash_crc_8byte(cb, rte_hash_crc_8byte(ka, 0)) &
					    (NFV_CT_CACHE_SETS - 1)) * NFV_CT_CACHE_WAYS];
			uint32_t val = UINT32_MAX;
			struct nfv_ct_flow *fl;

			for (unsigned int w = 0; w < NFV_CT_CACHE_WAYS; w++, ce++) {
				if (((ce->a ^ ka) | (ce->b ^ cb)) == 0) {
					val = ce->val;
					ser = ce->serial;
					break;
				}
			}
			if (val == UINT32_MAX) {
				slow[ns++] = i;
				continue;
			}
			fl = &ct->flows[val >> 1];
			/* A forgotten flow's serial is 0 (never an entry's). */
			if (unlikely(fl->serial != ser || (int64_t)(now - fl->expire_tsc) >= 0)) {
				slow[ns++] = i; /* forgotten or expired: the table says */
				continue;
			}
			if (proto == IPPROTO_TCP) {
				struct nfv_ct_pkt cp = { .trackable = 1 };
				int r;

				if (unlikely(!tcp_read(m, NFV_L2_LEN + sizeof(*ip), &cp))) {
					slow[ns++] = i; /* no whole TCP header: not tracked */
					continue;
				}
				r = nfv_ct_hit(ct, cc, (const void *)(uintptr_t)val, proto, &cp, now);
				if (r == 0) {
					slow[ns++] = i; /* a new connection: the rules decide */
					continue;
				}
				if (r < 0) {
					nexts[i] = nfv_mark_drop(m, (uint16_t)-r, ACL_NEXT_DROP);
					nother++;
					continue;
				}
			} else {
				unsigned int d = val & 1;

				if (fl->state == NFV_CT_UDP && d == 1)
					fl->state = NFV_CT_UDP_STREAM;
				fl->packets[d]++;
				fl->expire_tsc = now + __atomic_load_n(&nfv_ct_timeout_tsc[fl->state],
									__ATOMIC_RELAXED);
				nudp++;
			}
			nflow++;
			continue;
		}
		/* As cache4_words() says it for TCP, UDP and SCTP: ports in
		 * place. Any other protocol's key has no CACHE4_RAW_PORTS, so
		 * this one is never found: such a packet takes the general
		 * path, which builds its key as that protocol has it. */
		kb = (uint64_t)proto | CACHE4_HAS_L4 | CACHE4_RAW_PORTS | (uint64_t)ports << 32;
		if (routed) {
			const struct nfv_acl_pair_entry *pe;
			uint64_t pres = UINT64_MAX;

			h0 = cache4_h0(ka, kb);
			pset = &pv[cache4_set_h(h0, pair_mix)];
			pe = pset;
			for (unsigned int w = 0; w < NFV_ACL_CACHE_WAYS; w++, pe++) {
				if (pair_is(pe, ka, kb, cgen, gout)) {
					pres = pe->res;
					break;
				}
			}
			if (pair_run_add(pres, &prun, &prun_res, &prun_in, &prun_out, hits, c, co))
				goto fused;
			pair_try = true;
		}
		e = &v4[cache4_set(ka, kb, gen_mix)];
		for (unsigned int w = 0; w < NFV_ACL_CACHE_WAYS; w++, e++) {
			if (((e->a ^ ka) | (e->b ^ kb) | (e->gen ^ cgen)) == 0) {
				res = e->res;
				break;
			}
		}
decided:
		if (likely(res == run_res)) {
			run++;
			if (fz != NULL && pair_try)
				goto out_acl;
			continue;
		}
		if (res == UINT32_MAX) {
			slow[ns++] = i;
			continue;
		}
		if (res == 0) {
			hits[c->default_slot]++;
			nnomatch++;
			nexts[i] = nfv_mark_drop(m, drop_acl_no_match.id, ACL_NEXT_DROP);
			continue;
		}
		r = &c->rule[res - 1];
		if (r->action == NFV_ACL_REFLECT) {
			slow[ns++] = i; /* records a flow: the general path */
			continue;
		}
		if (r->action == NFV_ACL_DENY) {
			hits[r->slot]++;
			ndeny++;
			nexts[i] = nfv_mark_drop(m, drop_acl_denied.id, ACL_NEXT_DROP);
			continue;
		}
		if (run != 0)
			hits[run_slot] += run;
		run_res = res;
		run_slot = r->slot;
		run = 1;
		if (!(fz != NULL && pair_try))
			continue;
out_acl:
		/* Permitted in, no pair cached: the output ACL's own cache. */
		{
			uint32_t ores = 0;

			if (fam == 1) {
				const struct nfv_acl_cache6_entry *oe =
					&fz->out->v6[cache6_set_h(h0, out_mix)];

				for (unsigned int w = 0; w < NFV_ACL_CACHE_WAYS; w++, oe++) {
					if (CACHE6_IS(oe, gout)) {
						ores = oe->res;
						break;
					}
				}
			} else {
				const struct nfv_acl_cache4_entry *oe =
					&fz->out->v4[cache4_set_h(h0, out_mix)];

				for (unsigned int w = 0; w < NFV_ACL_CACHE_WAYS; w++, oe++) {
					if (((oe->a ^ ka) | (oe->b ^ kb) | (oe->gen ^ gout)) == 0) {
						ores = oe->res;
						break;
					}
				}
			}
			/* Not there, no match, or not a permit rule: acl_out4's
			 * (acl_out6's). */
			if (ores == 0 || co->rule[ores - 1].action != NFV_ACL_PERMIT)
				continue;
			hits[co->rule[ores - 1].slot]++;
			if (fam == 0)
				pair_put(pset, ka, kb, cgen, gout, res | (uint64_t)ores << 32);
			else
				pair6_put(pset6, s0, s1, d0, d1, ptail, cgen, gout,
					  res | (uint64_t)ores << 32);
		}
fused:
		nexts[i] = ACL_NEXT_TX;
		meta->flags = 0; /* as ip4_lookup leaves a routed packet */
		nfused++;
	}
	if (run != 0)
		hits[run_slot] += run;
	if (prun != 0) {
		hits[prun_in] += prun;
		hits[prun_out] += prun;
	}
	if (fz != NULL) {
		fz->n = nfused;
		sum->fused += nfused;
		sum->cache_hits += nfused; /* the output ACL's decisions */
		sum->permitted += nfused;
	}
	nhit = n - ns - nflow - nother;
	sum->cache_hits += nhit;
	sum->denied += ndeny;
	sum->no_match += nnomatch;
	sum->permitted += nhit - ndeny - nnomatch;
	sum->flow_hits += nflow;
	if (ct_on)
		cc->hits += nudp; /* TCP hits counted by nfv_ct_hit */
	/* Every packet to the one edge of one interface: no scan needed. */
	*uniform = ns == 0 && odd <= 1 && ndeny == 0 && nnomatch == 0 && !(ct_on && nflow != n) &&
		   nfused == 0;
	return ns;
}

/* Whether a packet of the usual burst for the pair cache (acl_pair_run):
 * from iface, its metadata meta_want's under meta_mask (routed under the
 * interface's gen, to the burst's port), an IPv4 header without options,
 * not a later fragment, its ports in the first segment. */
#if ACL_PAIR_SSE
#define ACL_PAIR_META_OK(meta) \
	_mm_testz_si128(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(meta)), meta_want), \
			meta_mask)
#else
#define ACL_PAIR_META_OK(meta) \
	({ uint64_t mw0_, mw1_; \
	   memcpy(&mw0_, (meta), 8); \
	   memcpy(&mw1_, &(meta)->tx_port, 8); \
	   (((uint32_t)mw0_ ^ rgen) | (mw1_ ^ want1)) == 0; })
#endif

/*
 * From packet i on, the packets of the usual burst (above) of one pair
 * result, packet i's: returns the index past them (i: packet i is not
 * one, or its pair is not cached), the result in *res. Their
 * meta.flags are cleared, as ip4_lookup leaves a routed packet. fam 0:
 * IPv4, pv the pair cache; 1: IPv6 (ip6_fast routed the packets: version
 * 6), pv the IPv6 pair cache, a TCP, UDP or SCTP header right after the
 * fixed one (any other next header is in no pair).
 */
static __rte_always_inline uint16_t
pair_same(struct rte_mbuf **pkts, uint16_t i, const uint16_t n, const uint16_t iface,
	  const void *pv, const uint64_t pair_mix,
#if ACL_PAIR_SSE
	  const __m128i meta_want, const __m128i meta_mask, const __m128i gens,
#else
	  const uint32_t rgen, const uint64_t want1, const uint64_t gin, const uint64_t gout,
#endif
	  uint64_t *res, const unsigned int fam, const bool noted)
{
	uint64_t run_res = 0; /* no result's (an input result is not 0) */
#if ACL_PAIR_SSE
	/* Header bytes 8-23 to the key's words (cache4_words): the addresses
	 * (12-19); the protocol (9), the flags byte, two zeros, the ports
	 * (20-23). */
	const __m128i pair_shuf = _mm_setr_epi8(4, 5, 6, 7, 8, 9, 10, 11,
						1, -1, -1, -1, 12, 13, 14, 15);
	const __m128i pair_flags = _mm_set_epi64x((long long)(CACHE4_HAS_L4 | CACHE4_RAW_PORTS), 0);
#endif

	for (; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, NFV_L2_LEN);
		struct nfv_mbuf_meta *meta = nfv_meta(m);
		uint64_t pres = UINT64_MAX;
		uint32_t ports;

		/* Compares with memory: no constant held in a register. (All
		 * known when the fused node's note is this stream's.) */
		if (!noted && (unlikely(m->port != iface) || unlikely(!ACL_PAIR_META_OK(meta))))
			break;
		if (fam == 0) {
			const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
			const struct nfv_acl_pair_entry *pe;
			uint64_t ka, kb;

			if ((!noted && unlikely(ip->version_ihl != 0x45)) ||
			    unlikely(ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) ||
			    unlikely(m->data_len < ACL_FAST4_NEED))
				break;
#if ACL_PAIR_SSE
			/* The key's two words from one load of header bytes 8-23
			 * (protocol at 9, addresses at 12, ports at 20): a
			 * shuffle into place and the flags OR-ed in. */
			const __m128i key = _mm_or_si128(
				_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(l3 + 8)),
						 pair_shuf),
				pair_flags);

			ka = (uint64_t)_mm_cvtsi128_si64(key);
			kb = (uint64_t)_mm_extract_epi64(key, 1);
#else
			memcpy(&ka, &ip->src_addr, 8);
			memcpy(&ports, ip + 1, 4);
			kb = (uint64_t)ip->next_proto_id | CACHE4_HAS_L4 | CACHE4_RAW_PORTS |
			     (uint64_t)ports << 32;
#endif
			pe = &((const struct nfv_acl_pair_entry *)pv)[cache4_set_h(cache4_h0(ka, kb),
										   pair_mix)];
#if ACL_PAIR_SSE
			for (unsigned int w = 0; w < NFV_ACL_CACHE_WAYS; w++, pe++) {
				__m128i d = _mm_or_si128(
					_mm_xor_si128(_mm_load_si128((const __m128i *)&pe->a), key),
					_mm_xor_si128(_mm_load_si128((const __m128i *)&pe->gen_in),
						      gens));

				if (_mm_testz_si128(d, d)) {
					pres = pe->res;
					break;
				}
			}
#else
			for (unsigned int w = 0; w < NFV_ACL_CACHE_WAYS; w++, pe++) {
				if (pair_is(pe, ka, kb, gin, gout)) {
					pres = pe->res;
					break;
				}
			}
#endif
		} else {
			const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)l3;
			const struct nfv_acl_pair6_entry *pe;
			uint64_t ptail;

			if (unlikely(m->data_len < ACL_FAST6_NEED))
				break;
			memcpy(&ports, ip6 + 1, 4);
			ptail = (uint64_t)ports | (uint64_t)ip6->proto << 32;
#if ACL_PAIR_SSE
			const __m128i src6 = _mm_loadu_si128((const __m128i *)ip6->src_addr);
			const __m128i dst6 = _mm_loadu_si128((const __m128i *)ip6->dst_addr);
			const __m128i x6 = _mm_xor_si128(src6, dst6);

			pe = &((const struct nfv_acl_pair6_entry *)pv)[
				pair6_set((uint64_t)_mm_cvtsi128_si64(x6) ^
					  (uint64_t)_mm_extract_epi64(x6, 1), ptail, pair_mix)];
			for (unsigned int w = 0; w < NFV_ACL_CACHE_WAYS; w++, pe++) {
				if (pair6_is_sse(pe, src6, dst6, gens, ptail)) {
					pres = pe->res;
					break;
				}
			}
#else
			uint64_t s0, s1, d0, d1;

			memcpy(&s0, ip6->src_addr, 8);
			memcpy(&s1, ip6->src_addr + 8, 8);
			memcpy(&d0, ip6->dst_addr, 8);
			memcpy(&d1, ip6->dst_addr + 8, 8);
			pe = &((const struct nfv_acl_pair6_entry *)pv)[pair6_set(s0 ^ s1 ^ d0 ^ d1, ptail,
										  pair_mix)];
			for (unsigned int w = 0; w < NFV_ACL_CACHE_WAYS; w++, pe++) {
				if (pair6_is(pe, s0, s1, d0, d1, ptail, gin, gout)) {
					pres = pe->res;
					break;
				}
			}
#endif
		}
		if (unlikely(pres != run_res)) {
			if (run_res != 0 || pres == UINT64_MAX)
				break; /* another result, or not cached */
			run_res = pres; /* packet i's */
		}
		meta->flags = 0;
	}
	*res = run_res;
	return i;
}

/*
 * The usual burst of a port with ACLs in and out (acl_fused): packets of
 * one interface, routed to one output port, each of a pair the pair cache
 * holds (fam 0: IPv4, 1: IPv6). From the first packet on, as long as
 * they are: returns how many (sent to port_tx; nexts[] not written),
 * their port in *tx0. Counts as
 * acl_fast does, the two decisions of each packet; the rule counters once
 * per run of one pair result. Out of line: inside acl_run the compiler
 * keeps the loop's constants on the stack.
 */
static __rte_noinline uint16_t
acl_pair_run(const struct rte_node *node, struct rte_mbuf **pkts, uint16_t n,
	     const struct nfv_arc_feature *f, const struct nfv_ip_fast_note *note,
	     const struct nfv_acl_cache *dc, uint64_t *hits, struct nfv_acl_counters *sum,
	     uint16_t *tx0, const unsigned int fam)
{
	const uint16_t iface = pkts[0]->port, tx = nfv_meta(pkts[0])->tx_port;
	const struct nfv_acl_compiled *c, *co;
	const struct nfv_acl *acl;
	const struct nfv_acl_pair_entry *pv = dc->pair;
	const struct nfv_acl_pair6_entry *pv6 = dc->pair6;
	uint64_t gin, gout, pair_mix, want1, res;
	uint32_t rgen;
	uint16_t i, j;
	bool noted;

	if (unlikely(iface >= NFV_IFACE_MAX) ||
	    __atomic_load_n(&nfv_ip_reroute_all, __ATOMIC_RELAXED) ||
	    nfv_arc_next_edge(f, iface) != f->edge_to[f->arc->n_features])
		return 0;
	acl = __atomic_load_n(&nfv_acl_bound[NFV_ACL_IN][iface], __ATOMIC_ACQUIRE);
	c = acl != NULL ? nfv_acl_active(acl) : NULL;
	co = acl_fused_out(tx, fam);
	if (c == NULL || co == NULL)
		return 0;
	gin = c->gen;
	gout = co->gen;
	pair_mix = pair_gen_mix(gin, gout);
	rgen = nfv_arc_route_gen(f->arc, iface);
	want1 = tx | (uint64_t)NFV_META_ROUTED << 32;
	/* The fused node's note of this very stream: every packet from
	 * iface, routed to tx under rgen, its header checked there. */
	noted = note->to == node && note->objs == (void **)pkts && note->n == n &&
		note->iface == iface && note->tx == tx && note->gen == rgen;
#if ACL_PAIR_SSE
	/* The metadata (both words, but the first one's high half) and the
	 * gens, each in one register. */
	const __m128i meta_want = _mm_set_epi64x((long long)want1, rgen);
	const __m128i meta_mask = _mm_set_epi64x(-1, UINT32_MAX);
	const __m128i gens = _mm_set_epi64x((long long)gout, (long long)gin);
#endif
	for (i = 0; i < n; i = j) {
		/* One copy of the loop per family: fam a constant in each. */
#if ACL_PAIR_SSE
#define PAIR_SAME(tab, fam_, noted_) pair_same(pkts, i, n, iface, tab, pair_mix, meta_want, \
					       meta_mask, gens, &res, fam_, noted_)
#else
#define PAIR_SAME(tab, fam_, noted_) pair_same(pkts, i, n, iface, tab, pair_mix, rgen, \
					       want1, gin, gout, &res, fam_, noted_)
#endif
		if (noted)
			j = fam == 0 ? PAIR_SAME(pv, 0, true) : PAIR_SAME(pv6, 1, true);
		else
			j = fam == 0 ? PAIR_SAME(pv, 0, false) : PAIR_SAME(pv6, 1, false);
#undef PAIR_SAME
		if (j == i)
			break;
		hits[c->rule[(uint32_t)res - 1].slot] += j - i;
		hits[co->rule[(res >> 32) - 1].slot] += j - i;
	}
	sum->permitted += 2u * i;
	sum->cache_hits += 2u * i;
	sum->fused += i;
	*tx0 = tx;
	return i;
}

/* The flow cache's miss watch: packets per window, bursts it steps aside. */
#define CT_CACHE_WINDOW 1024
#define CT_CACHE_SKIP 1024

/* Puts a flow rte_hash found for an IPv4 TCP/UDP packet (key k on iface;
 * val: the hash's value) in the flow cache, in way 0 (the others move down
 * a way and the last one goes), or where its key already is. */
static __rte_always_inline void
ct_cache_put(struct nfv_ct_table *ct, const struct nfv_acl4_key *k, uint16_t iface,
	     uint32_t val)
{
	uint64_t ka, cb;
	uint32_t ports;
	struct nfv_ct_cache_entry *e;
	unsigned int w;

	memcpy(&ka, &k->src, 8);
	memcpy(&ports, &k->sport, 4);
	cb = nfv_ct_cache_b(k->proto, iface, ports);
	e = &ct->cache[(rte_hash_crc_8byte(cb, rte_hash_crc_8byte(ka, 0)) &
			(NFV_CT_CACHE_SETS - 1)) * NFV_CT_CACHE_WAYS];
	for (w = 0; w < NFV_CT_CACHE_WAYS - 1; w++)
		if (e[w].a == ka && e[w].b == cb)
			break;
	for (; w > 0; w--)
		e[w] = e[w - 1];
	e[0].a = ka;
	e[0].b = cb;
	e[0].val = val;
	e[0].serial = ct->flows[val >> 1].serial;
}

/* Every packet of the burst decided by both ACLs (acl_fused), to port tx:
 * one run for port_tx. Returns n. */
static __rte_always_inline uint16_t
acl_fused_all(struct rte_graph *graph, struct rte_node *node, struct nfv_worker *w,
	      struct nfv_acl_counters *ac, const struct nfv_acl_counters *sum, uint16_t n,
	      uint16_t tx)
{
	ac->permitted += sum->permitted;
	ac->cache_hits += sum->cache_hits;
	ac->fused += sum->fused;
	nfv_tx_runs_add(&w->tx_runs, __rte_node_next_node_get(node, ACL_NEXT_TX)->idx, n, tx);
	rte_node_next_stream_move(graph, node, ACL_NEXT_TX);
	return n;
}

static __rte_always_inline uint16_t
acl_run(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
	const unsigned int fam, const enum nfv_acl_dir dir, const struct nfv_arc_feature *f)
{
	struct nfv_worker *w = nfv_node_worker(node);
	struct nfv_acl_counters *ac = nfv_worker_counters(w, &nfv_acl_counters_block);
	struct nfv_ct_counters *cc = nfv_worker_counters(w, &nfv_ct_counters_block);
	struct nfv_ct_table *ct = &nfv_ct_tables[w->index];
	uint64_t *hits = nfv_acl_hits[w->index];
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	struct acl_scratch s;
	const struct nfv_acl_cache *dc = &nfv_acl_caches[w->index][dir];
	struct nfv_acl_counters sum = { 0 };
	uint64_t now = nfv_walk_tsc(w);
	bool ct_on = nfv_ct_burst_start(ct, cc, now);
	uint64_t created0 = cc->created;
	bool cache_on = __atomic_load_n(&nfv_acl_cache_on, __ATOMIC_RELAXED) && dc->v6 != NULL;
	uint16_t nt = 0, nl = 0, nm = 0, n_in = n;
	/* The fused node's note of the stream it handed here (ingress). */
	const struct nfv_ip_fast_note note = dir == NFV_ACL_IN ?
		nfv_ip_fast_note_take(w->index, fam) : (struct nfv_ip_fast_note){ .to = NULL };

	if (unlikely(__atomic_load_n(&nfv_acl_handoff_any, __ATOMIC_RELAXED))) {
		n = acl_handoff(graph, node, w, pkts, n, fam, dir);
		if (n == 0)
			return n_in;
	}
	/* Consecutive packets mostly share their interface: its ACL version
	 * and next edge are looked up when it changes. */
	uint16_t last_iface = UINT16_MAX, last_next = 0, idx[RTE_GRAPH_BURST_SIZE], cnt = n;
	const struct nfv_acl_compiled *last_comp = NULL;

	bool uniform = false;
	struct acl_fused fz = { .n = 0 };

	if (fam == 0 && ct_on && likely(ct->cache_skip == 0)) {
		cnt = acl_fast(pkts, n, dir, f, dc, hits, s.nexts, idx, &sum, ct, cc, now, true,
			       &uniform, 0, NULL);
		/* Over each window of packets: when misses outnumber hits
		 * three to one, probing and filling the cache costs more than
		 * it saves; go without it for a while, then look again. */
		ct->cache_win_hits += (uint32_t)sum.flow_hits;
		ct->cache_win_misses += cnt;
		if (ct->cache_win_hits + ct->cache_win_misses >= CT_CACHE_WINDOW) {
			if (ct->cache_win_misses > 3 * ct->cache_win_hits)
				ct->cache_skip = CT_CACHE_SKIP;
			ct->cache_win_hits = 0;
			ct->cache_win_misses = 0;
		}
	} else if (fam == 0 && ct_on) {
		ct->cache_skip--;
		for (uint16_t i = 0; i < n; i++)
			idx[i] = i;
	} else if (cache_on && !ct_on && dir == NFV_ACL_IN &&
		   (fam == 0 ? (const void *)nfv_acl_caches[w->index][NFV_ACL_OUT].v4 :
		    (const void *)nfv_acl_caches[w->index][NFV_ACL_OUT].v6) != NULL) {
		/* The usual burst first, then the rest (if any) packet by
		 * packet. */
		uint16_t k = 0, tx0 = UINT16_MAX;

		if ((fam == 0 ? (const void *)dc->pair : (const void *)dc->pair6) != NULL &&
		    likely(n != 0))
			k = fam == 0 ? acl_pair_run(node, pkts, n, f, &note, dc, hits, &sum, &tx0,
						    0) :
				       acl_pair_run(node, pkts, n, f, &note, dc, hits, &sum, &tx0,
						    1);
		fz.out = &nfv_acl_caches[w->index][NFV_ACL_OUT];
		fz.tx = tx0;
		fz.one_tx = true;
		cnt = k == n ? 0 : acl_fast(pkts + k, n - k, dir, f, dc, hits, s.nexts + k, idx,
					    &sum, ct, cc, now, false, &uniform, fam, &fz);
		if (fz.n + k == n && fz.one_tx && n != 0 && likely(n == n_in))
			return acl_fused_all(graph, node, w, ac, &sum, n, fz.tx);
		if (k != 0) {
			for (uint16_t x = 0; x < cnt; x++)
				idx[x] = (uint16_t)(idx[x] + k);
			for (uint16_t i = 0; i < k; i++)
				s.nexts[i] = ACL_NEXT_TX;
			uniform = false;
		}
	} else if (fam == 0 && cache_on) {
		cnt = acl_fast(pkts, n, dir, f, dc, hits, s.nexts, idx, &sum, ct, cc, now, false,
			       &uniform, 0, NULL);
	} else if (fam == 1 && cache_on && !ct_on) {
		cnt = acl_fast(pkts, n, dir, f, dc, hits, s.nexts, idx, &sum, ct, cc, now, false,
			       &uniform, 1, NULL);
	} else {
		for (uint16_t i = 0; i < n; i++)
			idx[i] = i;
	}
	/* The general path: every packet, or what the fast one left. */
	for (uint16_t x = 0; x < cnt; x++) {
		uint16_t i = idx[x];
		struct rte_mbuf *m = pkts[i];
		uint16_t iface = dir == NFV_ACL_IN ? m->port : nfv_meta(m)->tx_port;
		void *key = fam == 0 ? (void *)&s.k4[i] : (void *)&s.k6[i];

		if (unlikely(iface != last_iface)) {
			const struct nfv_acl *acl = __atomic_load_n(&nfv_acl_bound[dir][iface],
								    __ATOMIC_ACQUIRE);

			last_iface = iface;
			last_next = nfv_arc_next_edge(f, iface);
			last_comp = acl != NULL ? nfv_acl_active(acl) : NULL;
		}
		s.nexts[i] = last_next;
		s.ifaces[i] = iface;
		if (last_comp == NULL)
			continue; /* detached while the packet was on its way */
		s.comp[i] = last_comp;
		if (fam == 0)
			key4_build_fast(m, key, &s.cp[i]);
		else
			key6_build(m, key, &s.cp[i]);
		if (ct_on && s.cp[i].trackable) {
			ct_key_build(&s.ck[nl], key, &s.cp[i], iface, fam);
			s.ckp[nl] = &s.ck[nl];
			s.lk[nl++] = (uint16_t)i;
			continue;
		}
		if (ct_on && s.cp[i].related && ct_key_related(m, &s.cp[i], iface, fam, &s.ck[nl])) {
			s.ckp[nl] = &s.ck[nl];
			s.lk[nl++] = (uint16_t)i;
			continue;
		}
		s.todo[nt++] = (uint16_t)i;
	}
	/* Packets of known flows pass; the others go to the rules. */
	for (uint16_t k = 0; k < nl; k += RTE_HASH_LOOKUP_BULK_MAX) {
		uint32_t cnt = RTE_MIN(nl - k, RTE_HASH_LOOKUP_BULK_MAX);
		uint64_t hit = 0;

		rte_hash_lookup_bulk_data(ct->hash, &s.ckp[k], cnt, &hit, &s.ctdata[k]);
		for (uint32_t j = 0; j < cnt; j++) {
			uint16_t i = s.lk[k + j];
			int r = 0;

			if (hit >> j & 1)
				r = s.cp[i].related ? nfv_ct_related(ct, cc, s.ctdata[k + j], now) :
					nfv_ct_hit(ct, cc, s.ctdata[k + j], s.ck[k + j].proto,
						   &s.cp[i], now);
			if (r > 0) {
				sum.flow_hits++;
				if (fam == 0 && ct->cache_skip == 0 && !s.cp[i].related &&
				    !s.cp[i].icmp_echo &&
				    s.k4[i].l4 != 0 && (s.k4[i].proto == IPPROTO_UDP ||
							s.k4[i].proto == IPPROTO_TCP))
					ct_cache_put(ct, &s.k4[i], s.ifaces[i],
						     (uint32_t)(uintptr_t)s.ctdata[k + j]);
			} else if (r < 0)
				s.nexts[i] = nfv_mark_drop(pkts[i], (uint16_t)-r, ACL_NEXT_DROP);
			else
				s.todo[nt++] = i;
		}
	}

	/* The decision cache answers for the packets of flows it has seen
	 * under the same ACL version: the sets are found (and fetched) first,
	 * then read. */
	if (cache_on) {
		for (uint16_t k = 0; k < nt; k++) {
			uint16_t i = s.todo[k];
			const void *key = fam == 0 ? (const void *)&s.k4[i] : (const void *)&s.k6[i];

			s.set[i] = cache_set(dc, key, s.comp[i]->gen, fam);
			rte_prefetch0(s.set[i]);
			rte_prefetch0(RTE_PTR_ADD(s.set[i], RTE_CACHE_LINE_SIZE));
		}
		for (uint16_t k = 0; k < nt; k++) {
			uint16_t i = s.todo[k];
			const void *key = fam == 0 ? (const void *)&s.k4[i] : (const void *)&s.k6[i];

			if (!cache_get(s.set[i], key, s.comp[i]->gen, &s.pres[i], fam))
				s.miss[nm++] = i;
		}
		sum.cache_hits += nt - nm;
		sum.cache_misses = nm;
	} else {
		memcpy(s.miss, s.todo, nt * sizeof(s.miss[0]));
		nm = nt;
	}

	/* One classify call per ACL version among the misses (one when the
	 * burst came from or goes to one interface). */
	while (nm > 0) {
		const struct nfv_acl_compiled *c = s.comp[s.miss[0]];
		struct rte_acl_ctx *ctx = c->ctx[fam];
		uint16_t nb = 0, rest = 0;

		for (uint16_t k = 0; k < nm; k++) {
			uint16_t i = s.miss[k];

			if (s.comp[i] == c) {
				s.batch[nb] = i;
				s.data[nb] = fam == 0 ? (const uint8_t *)&s.k4[i] :
							(const uint8_t *)&s.k6[i];
				s.res[nb] = 0;
				nb++;
			} else {
				s.miss[rest++] = i;
			}
		}
		nm = rest;
		if (ctx != NULL)
			rte_acl_classify(ctx, s.data, s.res, nb, 1);
		for (uint16_t k = 0; k < nb; k++) {
			uint16_t i = s.batch[k];

			s.pres[i] = s.res[k];
			if (cache_on)
				cache_put(s.set[i], s.data[k], c->gen, s.res[k], fam);
		}
	}

	/* The verdicts: every packet counts on its rule, hit or miss. */
	for (uint16_t k = 0; k < nt; k++) {
		uint16_t i = s.todo[k];
		const struct nfv_acl_compiled *c = s.comp[i];
		const struct nfv_acl_compiled_rule *r;

		if (s.pres[i] == 0) {
			hits[c->default_slot]++;
			sum.no_match++;
			s.nexts[i] = nfv_mark_drop(pkts[i], drop_acl_no_match.id, ACL_NEXT_DROP);
			continue;
		}
		r = &c->rule[s.pres[i] - 1];
		hits[r->slot]++;
		if (r->action == NFV_ACL_DENY) {
			sum.denied++;
			s.nexts[i] = nfv_mark_drop(pkts[i], drop_acl_denied.id, ACL_NEXT_DROP);
			continue;
		}
		if (r->action == NFV_ACL_REFLECT) {
			struct nfv_ct_key ck;
			const void *key = fam == 0 ? (const void *)&s.k4[i] : (const void *)&s.k6[i];

			int r;

			ct_key_build(&ck, key, &s.cp[i], s.ifaces[i], fam);
			/* The burst's lookups missed this key (or it has no
			 * table lookup to make); only a flow created since, by
			 * an earlier packet of the burst, can be found now. */
			r = cc->created != created0 ? nfv_ct_lookup(ct, cc, &ck, &s.cp[i], now) : 0;
			if (r < 0) {
				s.nexts[i] = nfv_mark_drop(pkts[i], (uint16_t)-r, ACL_NEXT_DROP);
				continue;
			}
			if (r == 0 && nfv_ct_create(ct, cc, &ck, &s.cp[i], now) < 0) {
				s.nexts[i] = nfv_mark_drop(pkts[i], drop_ct_full.id, ACL_NEXT_DROP);
				continue;
			}
		}
		sum.permitted++;
	}
	ac->permitted += sum.permitted;
	ac->denied += sum.denied;
	ac->no_match += sum.no_match;
	ac->flow_hits += sum.flow_hits;
	ac->cache_hits += sum.cache_hits;
	ac->cache_misses += sum.cache_misses;
	ac->fused += sum.fused;
	if (likely(n == n_in) && uniform) {
		/* Out, to the arc's end: every packet of the stream leaves by
		 * one port, a run port_tx sends without looking at each. */
		if (dir == NFV_ACL_OUT && s.nexts[0] == f->edge_to[f->arc->n_features])
			nfv_tx_runs_add(&w->tx_runs, __rte_node_next_node_get(node, s.nexts[0])->idx,
					n, nfv_meta(pkts[0])->tx_port);
		rte_node_next_stream_move(graph, node, s.nexts[0]);
	} else if (likely(n == n_in)) {
		nfv_enqueue_nexts(graph, node, objs, s.nexts, n);
	} else {
		/* Some went to other workers: the stream cannot move whole. */
		for (uint16_t i = 0; i < n;) {
			uint16_t j = i + 1;

			while (j < n && s.nexts[j] == s.nexts[i])
				j++;
			rte_node_enqueue(graph, node, s.nexts[i], &objs[i], (uint16_t)(j - i));
			i = j;
		}
	}
	return n_in;
}

static uint16_t
acl_in4_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return acl_run(graph, node, objs, n, 0, NFV_ACL_IN, &acl_in4_feature);
}

static uint16_t
acl_in6_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return acl_run(graph, node, objs, n, 1, NFV_ACL_IN, &acl_in6_feature);
}

static uint16_t
acl_out4_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return acl_run(graph, node, objs, n, 0, NFV_ACL_OUT, &acl_out4_feature);
}

static uint16_t
acl_out6_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	return acl_run(graph, node, objs, n, 1, NFV_ACL_OUT, &acl_out6_feature);
}

#define ACL_NODE(var, name_, fn) \
	static struct rte_node_register var = { \
		.name = name_, \
		.process = fn, \
		.init = nfv_node_ctx_init, \
		.nb_edges = ACL_NEXT_MAX, \
		.next_nodes = { [ACL_NEXT_DROP] = "nfv_drop", [ACL_NEXT_TX] = "nfv_port_tx" }, \
	}; \
	RTE_NODE_REGISTER(var)

ACL_NODE(acl_in4_node, "nfv_acl_in4", acl_in4_process);
ACL_NODE(acl_in6_node, "nfv_acl_in6", acl_in6_process);
ACL_NODE(acl_out4_node, "nfv_acl_out4", acl_out4_process);
ACL_NODE(acl_out6_node, "nfv_acl_out6", acl_out6_process);
