/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fragments through the modules that translate IPv4 addresses and ports
 * (nat44, lb), as VPP's shallow virtual reassembly does it: nothing is
 * reassembled or held. A first fragment carries the L4 header and is
 * translated as any packet of its session (its L4 checksum covers the
 * whole datagram, so the incremental update of addresses and ports holds
 * for it); the worker notes its datagram (source, destination, protocol,
 * IP identifier, interface and the module's direction, as it came) with
 * what its later fragments get: an address (their new source or
 * destination, by the direction), or the worker the first fragment was
 * handed to, where they follow it (they carry no ports to find the
 * session's owner by). A note lasts NFV_L4_FRAG_TIMEOUT_S after its first
 * fragment. A later fragment that comes before its first finds none.
 *
 * Each worker's notes are a table of NFV_L4_FRAG_SETS sets of
 * NFV_L4_FRAG_WAYS, 32 bytes each (64 KB), made with the module's session
 * table and zeroed (empty) with it.
 */
#ifndef NFV_L4_FRAG_H
#define NFV_L4_FRAG_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>

#include "modules/ip/l4_rewrite.h"

#define NFV_L4_FRAG_SETS 1024
#define NFV_L4_FRAG_WAYS 2
#define NFV_L4_FRAG_ENTRIES (NFV_L4_FRAG_SETS * NFV_L4_FRAG_WAYS)
#define NFV_L4_FRAG_TIMEOUT_S 2

/* A note's owner when the later fragments are translated here. */
#define NFV_L4_FRAG_HERE UINT16_MAX

struct nfv_l4_frag {
	rte_be32_t src;
	rte_be32_t dst;
	rte_be16_t id;
	uint8_t proto;
	uint8_t dir;      /* the module's direction, or what it does to the fragments */
	uint16_t iface;
	uint16_t owner;   /* NFV_L4_FRAG_HERE, or the worker the first fragment went to */
	rte_be32_t addr;  /* what the later fragments get (the module's to say which) */
	uint8_t action;   /* the module's: what to do with addr */
	uint8_t pad[3];
	uint64_t expire_tsc; /* 0: empty */
};

_Static_assert(sizeof(struct nfv_l4_frag) == 32, "two notes a cache line");

/* The set of a datagram's note. */
static __rte_always_inline struct nfv_l4_frag *
nfv_l4_frag_set(struct nfv_l4_frag *tab, rte_be32_t src, rte_be32_t dst, rte_be16_t id,
		uint8_t proto, unsigned int dir)
{
	uint32_t h = rte_hash_crc_8byte((uint64_t)src << 32 | dst,
					(uint32_t)id | (uint32_t)proto << 16 | dir << 24);

	return &tab[(h & (NFV_L4_FRAG_SETS - 1)) * NFV_L4_FRAG_WAYS];
}

static __rte_always_inline bool
nfv_l4_frag_is(const struct nfv_l4_frag *f, rte_be32_t src, rte_be32_t dst, rte_be16_t id,
	       uint8_t proto, unsigned int dir, uint16_t iface)
{
	return f->src == src && f->dst == dst && f->id == id && f->proto == proto &&
	       f->dir == dir && f->iface == iface;
}

/* Whether parsed p is a first fragment (offset 0, more fragments). */
static __rte_always_inline bool
nfv_l4_first_frag(const struct nat_pkt *p)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p->ip;

	return p->frag && !(ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK));
}

/*
 * A first fragment (ip: its IP header; src, dst: its addresses as it
 * came) taken in direction dir by iface: its datagram noted, the later
 * fragments to get addr under the module's action (owner
 * NFV_L4_FRAG_HERE) or to go to worker owner. In the set, the note of the
 * same datagram, an empty or expired one, or else the one that expires
 * first, is replaced.
 */
static __rte_noinline __rte_unused void
nfv_l4_frag_note_as(struct nfv_l4_frag *tab, rte_be32_t src, rte_be32_t dst, const uint8_t *ip,
		    uint8_t proto, unsigned int dir, uint16_t iface, rte_be32_t addr,
		    uint8_t action, uint16_t owner, uint64_t now)
{
	struct nfv_l4_frag *set, *f;
	rte_be16_t id;

	memcpy(&id, ip + offsetof(struct rte_ipv4_hdr, packet_id), 2);
	set = nfv_l4_frag_set(tab, src, dst, id, proto, dir);
	f = &set[0];
	for (unsigned int w = 0; w < NFV_L4_FRAG_WAYS; w++) {
		if (nfv_l4_frag_is(&set[w], src, dst, id, proto, dir, iface) ||
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
	f->action = action;
	memset(f->pad, 0, sizeof(f->pad));
	f->expire_tsc = now + (uint64_t)NFV_L4_FRAG_TIMEOUT_S * rte_get_tsc_hz();
}

/* nfv_l4_frag_note_as with action 0. */
static __rte_always_inline void
nfv_l4_frag_note(struct nfv_l4_frag *tab, rte_be32_t src, rte_be32_t dst, const uint8_t *ip,
		 uint8_t proto, unsigned int dir, uint16_t iface, rte_be32_t addr, uint16_t owner,
		 uint64_t now)
{
	nfv_l4_frag_note_as(tab, src, dst, ip, proto, dir, iface, addr, 0, owner, now);
}

/* The live note of later fragment p's datagram in direction dir by
 * iface, or NULL. */
static __rte_always_inline const struct nfv_l4_frag *
nfv_l4_frag_find(struct nfv_l4_frag *tab, const struct nat_pkt *p, unsigned int dir,
		 uint16_t iface, uint64_t now)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p->ip;
	const struct nfv_l4_frag *set = nfv_l4_frag_set(tab, p->src, p->dst, ip->packet_id,
							p->proto, dir);

	for (unsigned int w = 0; w < NFV_L4_FRAG_WAYS; w++)
		if (nfv_l4_frag_is(&set[w], p->src, p->dst, ip->packet_id, p->proto, dir, iface) &&
		    (int64_t)(now - set[w].expire_tsc) < 0)
			return &set[w];
	return NULL;
}

/* A later fragment's source (dst false) or destination address becomes
 * addr, with the IP header checksum's update (it has no L4 header). */
static __rte_always_inline void
nfv_l4_frag_rewrite(struct nat_pkt *p, bool dst, rte_be32_t addr)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p->ip;
	uint8_t *a = p->ip + (dst ? offsetof(struct rte_ipv4_hdr, dst_addr) :
			      offsetof(struct rte_ipv4_hdr, src_addr));
	rte_be32_t old;

	memcpy(&old, a, 4);
	ip->hdr_checksum = nat_cksum_apply(ip->hdr_checksum, nat_delta32(old, addr));
	memcpy(a, &addr, 4);
	if (dst)
		p->dst = addr;
	else
		p->src = addr;
}

#endif
