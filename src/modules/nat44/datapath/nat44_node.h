/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the two NAT44 nodes share: reading a packet's translatable fields
 * and rewriting an address and port with incremental checksum updates
 * (RFC 1624) of the IP header and of the TCP / UDP pseudo-header sum or
 * the ICMP checksum.
 */
#ifndef NFV_NAT44_NODE_H
#define NFV_NAT44_NODE_H

#include <netinet/in.h>

#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "core/meta.h"
#include "core/node.h"
#include "modules/ip/l4_rewrite.h"
#include "modules/nat44/nat44.h"

/* A packet of session s in direction dir: translated (the source of what
 * leaves, the destination of what arrives) and counted in the session. */
static __rte_always_inline void
nat_apply(struct nfv_nat_session *s, struct nat_pkt *p, const struct rte_mbuf *m,
	  unsigned int dir, uint64_t now)
{
	if (dir == NFV_NAT_I2O)
		nat_rewrite(p, false, s->out_addr, s->out_port);
	else
		nat_rewrite(p, true, s->in_addr, s->in_port);
	nfv_nat_touch(s, dir, p->tcp_flags, rte_pktmbuf_pkt_len(m) - NFV_L2_LEN, now);
}

static __rte_always_inline void
nat_key(struct nfv_nat_key *k, const struct nat_pkt *p, uint16_t iface)
{
	k->src = p->src;
	k->dst = p->dst;
	k->sport = p->sport;
	k->dport = p->dport;
	k->proto = p->proto;
	k->pad = 0;
	k->iface = iface;
}

/* The set of a fragmented datagram's note (nat44.h). */
static __rte_always_inline struct nfv_nat_frag *
nat_frag_set(struct nfv_nat_table *t, rte_be32_t src, rte_be32_t dst, rte_be16_t id,
	     uint8_t proto, unsigned int dir)
{
	uint32_t h = rte_hash_crc_8byte((uint64_t)src << 32 | dst,
					(uint32_t)id | (uint32_t)proto << 16 | dir << 24);

	return &t->frag[(h & (NFV_NAT_FRAG_SETS - 1)) * NFV_NAT_FRAG_WAYS];
}

static __rte_always_inline bool
nat_frag_is(const struct nfv_nat_frag *f, rte_be32_t src, rte_be32_t dst, rte_be16_t id,
	    uint8_t proto, unsigned int dir, uint16_t iface)
{
	return f->src == src && f->dst == dst && f->id == id && f->proto == proto &&
	       f->dir == dir && f->iface == iface;
}

/* A first fragment (ip: its header as it came: src, dst) translated in
 * direction dir, by iface (owner NFV_HANDOFF_KEEP), or handed to worker
 * owner: its datagram noted, the later fragments to get addr, or to go to
 * owner. In its set, the note of the same datagram, an empty or expired
 * one, or else the one that expires first, is replaced. */
static __rte_noinline __rte_unused void
nat_frag_note(struct nfv_nat_table *t, rte_be32_t src, rte_be32_t dst, const uint8_t *ip,
	      uint8_t proto, unsigned int dir, uint16_t iface, rte_be32_t addr, uint16_t owner,
	      uint64_t now)
{
	rte_be16_t id;
	struct nfv_nat_frag *set, *f;

	memcpy(&id, ip + offsetof(struct rte_ipv4_hdr, packet_id), 2);
	set = nat_frag_set(t, src, dst, id, proto, dir);
	f = &set[0];
	for (unsigned int w = 0; w < NFV_NAT_FRAG_WAYS; w++) {
		if (nat_frag_is(&set[w], src, dst, id, proto, dir, iface) ||
		    (int64_t)(now - set[w].expire_tsc) >= 0) {
			f = &set[w];
			break;
		}
		if (set[w].expire_tsc < f->expire_tsc)
			f = &set[w];
	}
	f->src = src;
	f->dst = dst;
	f->id = id;
	f->proto = proto;
	f->dir = (uint8_t)dir;
	f->iface = iface;
	f->owner = owner;
	f->addr = addr;
	f->expire_tsc = now + (uint64_t)NFV_NAT_FRAG_TIMEOUT_S * rte_get_tsc_hz();
}

/* What nat_frag_translate found: no note of the datagram. */
#define NAT_FRAG_UNKNOWN (-1)

/* A later fragment p (parsed: not ok, frag) in direction dir by iface:
 * when its datagram is noted as translated here, its source (i2o) or
 * destination (o2i) rewritten, with the IP header checksum, and
 * NFV_HANDOFF_KEEP returned; as handed to another worker, that worker
 * (nothing rewritten); else NAT_FRAG_UNKNOWN. */
static __rte_noinline __rte_unused int
nat_frag_translate(struct nfv_nat_table *t, struct nat_pkt *p, unsigned int dir, uint16_t iface,
		   uint64_t now)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p->ip;
	struct nfv_nat_frag *set = nat_frag_set(t, p->src, p->dst, ip->packet_id, p->proto, dir);

	for (unsigned int w = 0; w < NFV_NAT_FRAG_WAYS; w++) {
		const struct nfv_nat_frag *f = &set[w];

		if (nat_frag_is(f, p->src, p->dst, ip->packet_id, p->proto, dir, iface) &&
		    (int64_t)(now - f->expire_tsc) < 0) {
			if (f->owner != NFV_HANDOFF_KEEP)
				return f->owner;
			uint8_t *a = p->ip + (dir == NFV_NAT_I2O ? offsetof(struct rte_ipv4_hdr, src_addr) :
					      offsetof(struct rte_ipv4_hdr, dst_addr));
			rte_be32_t old;

			memcpy(&old, a, 4);
			ip->hdr_checksum = nat_cksum_apply(ip->hdr_checksum, nat_delta32(old, f->addr));
			memcpy(a, &f->addr, 4);
			if (dir == NFV_NAT_I2O)
				p->src = f->addr;
			else
				p->dst = f->addr;
			return NFV_HANDOFF_KEEP;
		}
	}
	return NAT_FRAG_UNKNOWN;
}

/* Whether parsed p is a first fragment (offset 0, more fragments). */
static __rte_always_inline bool
nat_first_frag(const struct nat_pkt *p)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p->ip;

	return p->frag && !(ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK));
}

#endif
